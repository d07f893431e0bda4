package recall

import (
	"slices"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// A question of the user's own may end in why it is asked: "do I have any
// long-term conditions I should list on the travel insurance form?", "what
// are my bank details so I can fill in the claim?". The clause names what
// the answer is for, not what it says: an item holding the asked thing
// ("rheumatoid arthritis") holds none of it.

// purposeModals open a purpose clause after "I" or "we": "I should list",
// "we need to tell", "I can fill in".
var purposeModals = words("should need needs have has must can could ought want")

// purposeWords are the words of q's trailing purpose clause, or nil: "I"
// or "we" and a modal right after the asked thing, a word that is no
// stop word ("conditions I should list on the form"), or after "so" or
// "so that" ("my bank details so I can fill in the claim"). Not at the
// question's start: "what should I list", "do I need to".
func purposeWords(q string) []string {
	ws := text.Words(strings.ToLower(strings.ReplaceAll(q, "’", "'")))
	for i := 2; i+1 < len(ws); i++ {
		if ws[i] != "i" && ws[i] != "we" || !slices.Contains(purposeModals, ws[i+1]) {
			continue
		}
		before := ws[i-1]
		if before == "that" && ws[i-2] == "so" {
			before = "so"
		}
		if before == "so" || !text.IsStopword(before) {
			return ws[i:]
		}
	}
	return nil
}

// askedWords are the question's words less those only its purpose clause
// holds, or nil when it has no purpose clause or nothing else is asked.
func (r *ranker) askedWords() []string {
	if !r.self {
		return nil
	}
	purpose := purposeWords(r.q.Text)
	if purpose == nil {
		return nil
	}
	head := text.Words(strings.ToLower(r.q.Text))
	head = head[:len(head)-len(purpose)]
	var asked []string
	for _, w := range r.words {
		if !slices.Contains(purpose, w) || slices.Contains(head, w) {
			asked = append(asked, w)
		}
	}
	if len(asked) == 0 || len(asked) == len(r.words) {
		return nil
	}
	return asked
}
