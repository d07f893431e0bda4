package recall

import (
	"regexp"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// citeToken is an item's kind and number as a citation spells them: "memory:12", "Fact #3",
// "memories 4" (the forms answer.Validate reads inside brackets, and "kind:N" bare). A context line
// holding one that is not its own item could make a model cite what the context never offered.
var citeToken = regexp.MustCompile(`(?i)\b(memor(?:y|ies)|facts?|consolidations?|profiles?)\s*[:#]?\s*(\d+)`)

// Quote renders stored text (content, a role, a session) for one line of a context or a tool's
// output: on one line, control characters as spaces, and every citation-shaped token written as
// text ("[memory:55]" → "[memory no. 55]"), which no citation reader takes for a citation. What is
// stored stays as it was.
func Quote(s string) string {
	s = strings.Map(func(r rune) rune {
		if text.IsLineControl(r) {
			return ' '
		}
		return r
	}, s)
	s = oneLine(s)
	if !strings.ContainsAny(s, "0123456789") {
		return s // citeToken's number is ASCII digits: most texts hold none, and the regexp costs
	}
	return citeToken.ReplaceAllString(s, "$1 no. $2")
}
