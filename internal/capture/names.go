package capture

import (
	"strings"
	"unicode/utf8"
)

// Names are the names s holds ("Aunt Funmi", "Priya", "Riverside Vets"),
// as Extract finds them, without the rest of what Extract derives: recall
// asks it of each sentence of a day record to tell whom the sentence is
// about.
func Names(s string) []string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	toks, shouting := scan(s)
	e := &extractor{s: s, toks: toks, shouting: shouting}
	e.findEntities()
	var out []string
	for _, x := range e.ents {
		if x.Type == TypeName {
			out = append(out, x.Text)
		}
	}
	return out
}
