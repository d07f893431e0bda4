package capture

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Shape tests on single tokens. They take the token as written or in
// lowercase, as each says, and never allocate.

// isNumericDate reports whether low is a date in digits: 2026-02-01 (with
// an optional ISO time after a T), 2026/02/01, 1/2/2026, 1/2/26 or 01.02.2026.
func isNumericDate(low string) bool {
	if low == "" || !isDigit(rune(low[0])) {
		return false
	}
	if len(low) >= 10 && low[4] == '-' && low[7] == '-' {
		y, m, d := atoi(low[:4]), atoi(low[5:7]), atoi(low[8:10])
		if y >= 1000 && validMonthDay(m, d) && (len(low) == 10 || low[10] == 't' && len(low) > 11 && isDigit(rune(low[11]))) {
			return true
		}
	}
	for _, sep := range []byte{'/', '.', '-'} {
		a, rest, ok := strings.Cut(low, string(sep))
		if !ok {
			continue
		}
		b, c, ok := strings.Cut(rest, string(sep))
		if !ok || strings.IndexByte(c, sep) >= 0 {
			continue
		}
		x, y, z := atoi(a), atoi(b), atoi(c)
		if x < 0 || y < 0 || z < 0 {
			continue
		}
		switch {
		case len(a) == 4 && len(b) <= 2 && len(c) <= 2 && sep != '.': // 2026/02/01
			return validMonthDay(y, z)
		case len(a) <= 2 && len(b) <= 2 && (len(c) == 4 || len(c) == 2 && sep == '/'):
			// 1/2/2026 is the first of February or the second of January:
			// a date either way, whichever the writer meant.
			return validMonthDay(y, x) || validMonthDay(x, y)
		}
	}
	return false
}

func validMonthDay(m, d int) bool { return m >= 1 && m <= 12 && d >= 1 && d <= 31 }

// atoi parses a short run of ASCII digits, or returns -1.
func atoi(s string) int {
	if s == "" || len(s) > 9 {
		return -1
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return -1
		}
		n = n*10 + int(s[i]-'0')
	}
	return n
}

// isDay reports whether low is a day of the month: "1", "03", "3rd", "21st".
func isDay(low string) bool {
	n, rest := leadingNumber(low)
	if n < 1 || n > 31 || len(low)-len(rest) > 2 {
		return false
	}
	switch rest {
	case "", "st", "nd", "rd", "th":
		return true
	}
	return false
}

// isYear reports whether low is a year from 1900 to 2099: four digits that
// are more likely a year than a count.
func isYear(low string) bool {
	n := atoi(low)
	return len(low) == 4 && n >= 1900 && n <= 2099
}

// leadingNumber splits low into the number its leading digits spell and the
// rest, or returns -1 and low when it does not start with a digit.
func leadingNumber(low string) (int, string) {
	i := 0
	for i < len(low) && i < 9 && low[i] >= '0' && low[i] <= '9' {
		i++
	}
	if i == 0 {
		return -1, low
	}
	return atoi(low[:i]), low[i:]
}

func isAllDigits(s string) bool { return atoi(s) >= 0 }

// clockPrefix reports whether low starts with a time on the clock, H:MM or
// H:MM:SS, and returns what follows it.
func clockPrefix(low string) (rest string, ok bool) {
	h, rest := leadingNumber(low)
	if h < 0 || h > 24 || len(low)-len(rest) > 2 {
		return "", false
	}
	for i := 0; i < 2; i++ { // minutes, then optional seconds
		if len(rest) < 3 || rest[0] != ':' {
			return rest, i > 0
		}
		m := atoi(rest[1:3])
		if m < 0 || m > 59 || len(rest) > 3 && isDigit(rune(rest[3])) {
			return "", false
		}
		rest = rest[3:]
	}
	return rest, true
}

func isCapitalised(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r) || unicode.IsTitle(r)
}

// trimPossessive removes a trailing 's, as in "Alice's".
func trimPossessive(s string) string {
	for _, suf := range []string{"'s", "’s", "'S", "’S"} {
		if len(s) > len(suf) && strings.HasSuffix(s, suf) {
			return s[:len(s)-len(suf)]
		}
	}
	return s
}

// isContraction reports whether low is a contraction such as "i'm" or
// "don't", as opposed to a name with an apostrophe such as "o'brien".
func isContraction(low string) bool {
	i := strings.LastIndexByte(low, '\'')
	if i < 0 {
		return false
	}
	switch low[i+1:] {
	case "m", "ll", "re", "ve", "d", "t", "s":
		return true
	}
	return false
}

func isCurrencySymbol(s string) bool {
	r, n := utf8.DecodeRuneInString(s)
	return n == len(s) && unicode.Is(unicode.Sc, r)
}

// isAmount reports whether low is a number as amounts are written: digits
// with , and . between them, and an optional k, m, b or bn ("5k", "3.5m").
func isAmount(low string) bool {
	if low == "" || !isDigit(rune(low[0])) {
		return false
	}
	for _, suf := range []string{"bn", "k", "m", "b"} {
		if strings.HasSuffix(low, suf) {
			low = low[:len(low)-len(suf)]
			break
		}
	}
	if !isDigit(rune(low[len(low)-1])) {
		return false
	}
	for i := 0; i < len(low); i++ {
		if c := low[i]; !isDigit(rune(c)) && c != ',' && c != '.' {
			return false
		}
	}
	return true
}

func isUpperASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 'A' || s[i] > 'Z' {
			return false
		}
	}
	return s != ""
}

// isTicket reports whether s is an issue key or identifier such as JIRA-123,
// ABC-42 or CVE-2024-1234: capitals and digits in parts joined by hyphens,
// the first part starting with two or more capitals, the last part digits.
func isTicket(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	first, rest, ok := strings.Cut(s, "-")
	if !ok || len(first) < 2 || first[0] < 'A' || first[0] > 'Z' || !capsOrDigits(first) {
		return false
	}
	for {
		part, more, ok := strings.Cut(rest, "-")
		if !ok {
			return isAllDigits(part)
		}
		if part == "" || !capsOrDigits(part) {
			return false
		}
		rest = more
	}
}

func capsOrDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// isVersion reports whether s is a version such as v2 or v2.3.1.
func isVersion(s string) bool {
	if len(s) < 2 || s[0] != 'v' && s[0] != 'V' {
		return false
	}
	return isDottedDigits(s[1:], 1)
}

// isDottedNumber reports whether s is three or more dot-separated numbers,
// such as a version (1.4.2) or an IP address; dates are matched before.
func isDottedNumber(s string) bool { return isDottedDigits(s, 3) }

func isDottedDigits(s string, minParts int) bool {
	if s == "" || !isDigit(rune(s[0])) {
		return false
	}
	parts := 0
	for part := range strings.SplitSeq(s, ".") {
		if !isAllDigits(part) {
			return false
		}
		parts++
	}
	return parts >= minParts
}

// isCapsWithDigits reports whether s is a code of capitals and digits such
// as ABC123, MP3 or A320. A number with a unit letter or two ("10M", "2FA",
// "5G") is a quantity, not a code.
func isCapsWithDigits(s string) bool {
	if len(s) < 3 || !capsOrDigits(s) {
		return false
	}
	n, rest := leadingNumber(s)
	if n >= 0 && len(rest) <= 2 {
		return false
	}
	return strings.ContainsAny(s, "0123456789") && strings.ContainsFunc(s, func(r rune) bool { return 'A' <= r && r <= 'Z' })
}

// isCapsWord reports whether s is two to six capitals, as in RFC or ISO.
func isCapsWord(s string) bool { return len(s) >= 2 && len(s) <= 6 && isUpperASCII(s) }

// isPlainNumber reports whether s is one to six digits, as in RFC 3339.
func isPlainNumber(s string) bool { return len(s) <= 6 && isAllDigits(s) }

// collapseSpace replaces each run of white space and control characters in
// s with one space and trims the ends, so that output is one clean line.
func collapseSpace(s string) string {
	clean := true
	prevSpace := true
	for _, r := range s {
		sp := unicode.IsSpace(r) || unicode.IsControl(r)
		if sp && (prevSpace || r != ' ') {
			clean = false
			break
		}
		prevSpace = sp
	}
	if clean && !prevSpace {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for f := range strings.FieldsFuncSeq(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(f)
	}
	return b.String()
}
