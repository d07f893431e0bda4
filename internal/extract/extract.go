// Package extract is the offline extractor's sentence rules: the shapes of
// sentence that state a durable fact (KeyFacts), a profile line
// (ProfileLines) or a one-valued claim recall retires stale values with
// (StatedValues), with the regular expressions they match, compiled on
// first use. Deterministic, no model; the consolidation's nightly cycle
// calls them.
package extract

import (
	"unicode"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/capture"
)

// Fact types a key fact may have.
const (
	Preference = "preference"
	Attribute  = "attribute"
	Relation   = "relation"
	Decision   = "decision"
	Event      = "event"
)

// linking says which entity types connect memories: a person, a handle or
// a code (a ticket, a version) named twice is a thread through the day;
// a date or an amount named twice is a coincidence.
var linking = map[string]bool{capture.TypeName: true, capture.TypeHandle: true, capture.TypeCode: true, capture.TypeEmail: true}

// Linking reports whether entities of type typ link the memories that name
// them: a capitalised subject counts only when it is one of these.
func Linking(typ string) bool { return linking[typ] }

// titleCase capitalises the first letter of s.
func titleCase(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToUpper(r)) + s[n:]
}
