package text

import (
	"hash/maphash"
	"math/bits"
	"strings"
)

// Lexicon is a word list of "word rest ..." lines (an embedded file), looked
// up in place: the index holds only where each line starts, 4 bytes a slot,
// so the list costs a fraction of what a map of its words would, and every
// caller shares the one text.
type Lexicon struct {
	text  string
	slots []uint32 // open addressing; a slot is (line start + 1) | tag<<offBits, 0 empty
	mask  uint32
	// offBits is how many low bits of a slot hold the line start; the rest
	// hold the top bits of the word's hash, so a probe that cannot match
	// never reads the text.
	offBits uint
}

var lexiconSeed = maphash.MakeSeed()

// NewLexicon indexes text's lines. A line without a space has no words
// after its word and is skipped; of two lines for one word, the later one
// counts, as it would in a map filled line by line.
func NewLexicon(text string) *Lexicon {
	lines := strings.Count(text, "\n") + 1
	l := &Lexicon{text: text, offBits: uint(bits.Len(uint(len(text) + 1)))}
	if l.offBits > 32 {
		panic("text.NewLexicon: the text is over 4 GiB")
	}
	size := 1 << bits.Len(uint(lines+lines/2))
	l.slots, l.mask = make([]uint32, size), uint32(size-1)
	for start := 0; start < len(text); {
		end := strings.IndexByte(text[start:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += start
		}
		if sp := strings.IndexByte(text[start:end], ' '); sp >= 0 {
			l.put(text[start:start+sp], start)
		}
		start = end + 1
	}
	return l
}

// put points w's slot at the line starting at start.
func (l *Lexicon) put(w string, start int) {
	h := maphash.String(lexiconSeed, w)
	slot := uint32(start+1) | l.tag(h)
	for i := uint32(h) & l.mask; ; i = (i + 1) & l.mask {
		if l.slots[i] == 0 || l.holds(l.slots[i], w, h) {
			l.slots[i] = slot
			return
		}
	}
}

// Lookup returns the rest of w's line, after its word and a space.
func (l *Lexicon) Lookup(w string) (rest string, ok bool) {
	h := maphash.String(lexiconSeed, w)
	for i := uint32(h) & l.mask; l.slots[i] != 0; i = (i + 1) & l.mask {
		if l.holds(l.slots[i], w, h) {
			start := int(l.slots[i]&(1<<l.offBits-1)) - 1 + len(w) + 1
			end := strings.IndexByte(l.text[start:], '\n')
			if end < 0 {
				return l.text[start:], true
			}
			return l.text[start : start+end], true
		}
	}
	return "", false
}

// Has reports whether w has a line.
func (l *Lexicon) Has(w string) bool {
	_, ok := l.Lookup(w)
	return ok
}

func (l *Lexicon) tag(h uint64) uint32 {
	if l.offBits == 32 {
		return 0
	}
	return uint32(h>>32) << l.offBits
}

// holds reports whether slot is w's line: its tag matches the hash and its
// line begins with w and a space.
func (l *Lexicon) holds(slot uint32, w string, h uint64) bool {
	if slot&^(1<<l.offBits-1) != l.tag(h) {
		return false
	}
	start := int(slot&(1<<l.offBits-1)) - 1
	line := l.text[start:]
	return len(line) > len(w) && line[len(w)] == ' ' && line[:len(w)] == w
}
