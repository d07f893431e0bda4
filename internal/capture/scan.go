package capture

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// kind is what a token is.
type kind uint8

const (
	word   kind = iota // letters and digits, with joiners inside: "don't", "14:30", "v2.3.1"
	punct              // any other single non-space rune
	link               // an http(s) URL
	mail               // an e-mail address
	handle             // an @handle
)

// token is a piece of the content. Entities are found on tokens rather than
// with regular expressions over the text: one hand-written pass is several
// times faster, and ingest runs the extractor on every memory.
type token struct {
	text       string // as written
	low        string // words only: lowercase, with ’ as '
	base       string // words only: low without a possessive 's
	start, end int    // byte offsets in the content
	cls        class  // words only: the lexicon classes of base
	kind       kind
	space      bool // white space or the start of the content comes before it
	newline    bool // a line break or the start of the content comes before it
	initial    bool // words only: the first word of a sentence or line
	lineFirst  bool // words only: the first word of a line, after any list marker
	used       bool // part of an entity, so not a topic
	joined     bool // words only: has joiners inside, so text.Words splits it
	shape
}

// shape is what a word's letters look like, worked out once while scanning.
type shape struct {
	capital      bool  // starts with a capital letter
	digit        bool  // has a digit
	nonASCII     bool  // has a rune outside ASCII
	upper, lower uint8 // how many capital and small letters, up to 255
}

func shapeOf(s string) shape {
	var sh shape
	for i, r := range s {
		switch {
		case r < utf8.RuneSelf:
			switch {
			case 'a' <= r && r <= 'z':
				sh.lower = saturatingInc(sh.lower)
			case 'A' <= r && r <= 'Z':
				sh.upper = saturatingInc(sh.upper)
				sh.capital = sh.capital || i == 0
			case '0' <= r && r <= '9':
				sh.digit = true
			}
		case unicode.IsLower(r):
			sh.nonASCII = true
			sh.lower = saturatingInc(sh.lower)
		case unicode.IsUpper(r) || unicode.IsTitle(r):
			sh.nonASCII = true
			sh.upper = saturatingInc(sh.upper)
			sh.capital = sh.capital || i == 0
		case unicode.IsNumber(r):
			sh.nonASCII = true
			sh.digit = true
		default:
			sh.nonASCII = true
		}
	}
	return sh
}

func saturatingInc(n uint8) uint8 {
	if n == 255 {
		return n
	}
	return n + 1
}

// scan splits s, which must be valid UTF-8, into tokens, and reports whether
// the text is shouted (three or more words in capitals, and more capital
// letters than small ones), in which case all-capital words are not acronyms.
func scan(s string) (toks []token, shouting bool) {
	toks = make([]token, 0, len(s)/4+1) // English runs at about five bytes a token
	// Lowercasing ASCII text keeps every byte where it was, so one copy
	// serves all its words; other text is lowercased word by word.
	var lowered string
	if isASCII(s) {
		lowered = strings.ToLower(s)
	}
	space, nl := true, true
	upper, lower, capsWords := 0, 0, 0
	for i := 0; i < len(s); {
		r, w := decode(s, i)
		if unicode.IsSpace(r) {
			space = true
			if r == '\n' || r == '\r' || r == '\u2028' || r == '\u2029' {
				nl = true
			}
			i += w
			continue
		}
		t := token{start: i, space: space, newline: nl}
		space, nl = false, false
		switch {
		case (r == 'h' || r == 'H') && hasScheme(s[i:]):
			t.kind, t.end = link, urlEnd(s, i)
		case r == '@' && (t.space || len(toks) > 0 && toks[len(toks)-1].kind == punct) && handleEnd(s, i) > i+1:
			t.kind, t.end = handle, handleEnd(s, i)
		case text.IsWordRune(r):
			t.kind = word
			t.end, t.joined = wordEnd(s, i)
			// Only a word stopped by a character of an address's local part
			// can start one; checking first saves a second scan of each word.
			if t.end < len(s) && strings.IndexByte("@._%+-", s[t.end]) >= 0 {
				if e := emailEnd(s, i); e > 0 {
					t.kind, t.end, t.joined = mail, e, false
				}
			}
		default:
			t.kind, t.end = punct, i+w
		}
		t.text = s[t.start:t.end]
		if t.kind == word {
			t.shape = shapeOf(t.text)
			t.low = t.text
			if lowered != "" {
				t.low = lowered[t.start:t.end]
			} else if t.upper > 0 || t.nonASCII {
				t.low = strings.ToLower(t.text)
				if t.nonASCII && strings.Contains(t.low, "’") {
					t.low = strings.ReplaceAll(t.low, "’", "'")
				}
			}
			t.base = t.low
			if n := len(t.low); n > 2 && t.low[n-2] == '\'' && t.low[n-1] == 's' {
				t.base = t.low[:n-2]
			}
			t.cls = lexicon[t.base]
			if !t.digit { // codes such as JIRA-123 are capitals without shouting
				upper += int(t.upper)
				lower += int(t.lower)
				if t.lower == 0 && t.upper >= 2 {
					capsWords++
				}
			}
		}
		toks = append(toks, t)
		i = t.end
	}
	markInitials(toks)
	// A few acronyms are not shouting; three capitalised words are.
	return toks, capsWords >= 3 && upper > lower
}

// markInitials flags the first word of each sentence and line, where a
// capital letter says nothing about being a name.
func markInitials(toks []token) {
	start, lineStart := true, true
	for k := range toks {
		t := &toks[k]
		if t.newline {
			start, lineStart = true, true
		}
		if t.kind != punct {
			t.lineFirst = lineStart
			lineStart = false
		}
		switch t.kind {
		case word:
			t.initial = start
			start = false
		case punct:
			switch t.text {
			case ".":
				if k > 0 && !t.space && isAbbreviation(&toks[k-1]) {
					break
				}
				start = true
			case "!", "?", "…", ":", "。", "！", "？":
				start = true
			}
		default:
			start = false
		}
	}
}

// isAbbreviation reports whether a period after t is part of an
// abbreviation ("Dr.", "e.g.") or an initial ("J.") rather than a full stop.
func isAbbreviation(t *token) bool {
	if t.kind != word {
		return false
	}
	if t.cls&abbreviation != 0 {
		return true
	}
	r, n := utf8.DecodeRuneInString(t.text)
	return n == len(t.text) && unicode.IsUpper(r)
}

func decode(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

// wordEnd returns the end of the word starting at i. Some punctuation joins
// the runes around it into one word, because the pieces mean nothing apart:
// apostrophes between letters (O'Brien, don't), hyphens, underscores and
// periods between letters or digits (JIRA-123, v2.3.1, 2026-02-01), and
// colons, commas and slashes between digits (14:30, 1,200, 1/2/2026).
func wordEnd(s string, i int) (end int, joined bool) {
	prev := rune(-1)
	for i < len(s) {
		if c := s[i]; isAlnumByte(c) { // the common case, without decoding
			prev, i = rune(c), i+1
			continue
		}
		r, w := decode(s, i)
		if text.IsWordRune(r) {
			prev, i = r, i+w
			continue
		}
		if prev < 0 || i+w >= len(s) {
			break
		}
		next, _ := decode(s, i+w)
		if !text.IsWordRune(next) || !joins(prev, r, next) {
			break
		}
		prev, i, joined = -1, i+w, true
	}
	return i, joined
}

func joins(prev, j, next rune) bool {
	switch j {
	case '\'', '’':
		return unicode.IsLetter(prev) && unicode.IsLetter(next)
	case '-', '_', '.':
		return true
	case ':', ',', '/':
		return isDigit(prev) && isDigit(next)
	}
	return false
}

// hasScheme reports whether s starts with an http or https URL: the scheme
// and at least the first character of a host.
func hasScheme(s string) bool {
	var n int
	switch {
	case len(s) > 7 && strings.EqualFold(s[:7], "http://"):
		n = 7
	case len(s) > 8 && strings.EqualFold(s[:8], "https://"):
		n = 8
	default:
		return false
	}
	return isAlnumByte(s[n]) || s[n] >= utf8.RuneSelf // a host may be an IDN: https://例え.jp
}

// urlEnd returns the end of the URL starting at i: the next space, control
// character or character that cannot appear in a URL, less trailing
// punctuation that belongs to the sentence. A closing parenthesis stays when
// the URL opened one, as Wikipedia links do.
func urlEnd(s string, i int) int {
	j := i
	for j < len(s) {
		r, w := decode(s, j)
		if unicode.IsSpace(r) || unicode.IsControl(r) || strings.ContainsRune(`<>"{}|\^`+"`", r) || r == utf8.RuneError {
			break
		}
		j += w
	}
	opens, closes := strings.Count(s[i:j], "("), strings.Count(s[i:j], ")")
	for j > i {
		r, w := utf8.DecodeLastRuneInString(s[i:j])
		switch {
		case r == ')' && closes > opens:
			closes--
		case !strings.ContainsRune(".,;:!?'’”»*]", r):
			return j
		}
		j -= w
	}
	return j
}

// handleEnd returns the end of the @handle starting at i, or i+1 when there
// is none. Handles are ASCII letters, digits and underscores, with single
// hyphens or periods inside (GitHub and Mastodon allow them).
func handleEnd(s string, i int) int {
	j := i + 1
	for j < len(s) {
		c := s[j]
		if isAlnumByte(c) || c == '_' {
			j++
			continue
		}
		if (c == '-' || c == '.') && j+1 < len(s) && isAlnumByte(s[j+1]) && j > i+1 {
			j++
			continue
		}
		break
	}
	return j
}

// emailEnd returns the end of the e-mail address starting at i, or 0. It
// accepts what people type, not all of RFC 5322: a local part of letters,
// digits and ._%+-, and a domain of at least two labels ending in a
// top-level domain of two or more letters.
func emailEnd(s string, i int) int {
	j := i
	for j < len(s) && (isAlnumByte(s[j]) || strings.IndexByte("._%+-", s[j]) >= 0) {
		j++
	}
	if j == i || j >= len(s) || s[j] != '@' {
		return 0
	}
	k, labels, last := j+1, 0, ""
	for {
		ls := k
		for k < len(s) && (isAlnumByte(s[k]) || s[k] == '-') {
			k++
		}
		if k == ls {
			return 0
		}
		labels++
		last = s[ls:k]
		if k+1 < len(s) && s[k] == '.' && isAlnumByte(s[k+1]) {
			k++
			continue
		}
		break
	}
	if labels < 2 || len(last) < 2 || !allLetters(last) {
		return 0
	}
	return k
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isDigit(r rune) bool { return '0' <= r && r <= '9' }

func isAlnumByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
