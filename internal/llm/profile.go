package llm

import (
	"fmt"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/claim"
)

// The profile section of the consolidation schema: the day's durable
// statements about the user and the people, pets and places around them,
// each a claim (subject, key, value) in words, in the categories and keys
// of claim.Categories. The consolidation checks each entry against the
// same vocabulary and the day's memories before it stores any.

// ProfileEntry is one statement a model offers for the profile.
type ProfileEntry struct {
	Category  string  `json:"category"`
	Subject   string  `json:"subject"`
	Key       string  `json:"key"`
	Value     string  `json:"value"`
	Text      string  `json:"text"`
	Ended     bool    `json:"ended,omitempty"`
	MemoryIDs []int64 `json:"memory_ids"`
}

const profileSchema = `,
  "profile": [{
    "category": "a category below",
    "subject": "user, or the name of the person, pet or place it is about",
    "key": "one of the category's keys below",
    "value": "the value alone, e.g. Arup, penicillin, Rex (labrador)",
    "text": "the statement as one short third-person sentence, e.g. The user works at Arup.",
    "ended": false,
    "memory_ids": [123]
  }]
}`

// profileRules says what the profile holds, with its vocabulary.
func profileRules() string {
	var b strings.Builder
	b.WriteString("- profile holds only durable truths about the user's world (who they are, home, work, family and pets, " +
		"health, diet, strong preferences, standing instructions such as \"never X\" or \"always Y\", recurring commitments), " +
		"as the user or the people around them state them; never a one-off event, a plan or a guess, and an assistant's words are no evidence. " +
		"\"ended\": true when a memory says a value stopped being true (\"no longer allergic to X\", \"left Arup\"). Categories and their keys:\n")
	for _, c := range claim.Categories {
		fmt.Fprintf(&b, "  %s: %s\n", c.Name, strings.Join(c.Keys, ", "))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// wellFormed keeps the entries that have every field and cite a memory:
// the profile is the record's optional part, so a malformed entry is
// dropped rather than failing the day.
func wellFormed(es []ProfileEntry) []ProfileEntry {
	var out []ProfileEntry
	for _, e := range es {
		full := true
		for _, v := range []string{e.Category, e.Subject, e.Key, e.Value, e.Text} {
			full = full && strings.TrimSpace(v) != ""
		}
		if full && len(e.MemoryIDs) > 0 {
			out = append(out, e)
		}
	}
	return out
}
