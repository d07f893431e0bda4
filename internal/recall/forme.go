package recall

import (
	"strings"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// servedReach is how many words after "me" the asked thing may come ("gives
// me a lift", "drives me to the station in the morning").
const servedReach = 5

// servesUser reports whether s, though someone else opens it, does the
// thing asked about for the user: "Fergus gives me a lift to the plant",
// "Gran drives me to the station". The user is the verb's object, and a
// word of the question (or a member of its topic) follows within reach in
// that clause: the lift is the user's commute, not Fergus's.
func servesUser(s string, asked func(w string) bool) bool {
	for clause := range strings.FieldsFuncSeq(s, func(r rune) bool { return strings.ContainsRune(".;!?", r) }) {
		ws := text.Words(strings.ToLower(clause))
		for i, w := range ws {
			if w != "me" || i == 0 {
				continue
			}
			for _, x := range ws[i+1 : min(len(ws), i+1+servedReach)] {
				if asked(x) {
					return true
				}
			}
		}
	}
	return false
}
