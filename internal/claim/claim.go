// Package claim is the one home of the claim: a stated value of a
// subject's attribute ("the user's phone is 07700 900 462"), with a
// history. It holds the vocabulary every layer keys claims by (categories,
// canonical keys, which keys hold one value, the phrases that name each
// key) and the ledger's decision (Decide): what storing a new statement of
// a claim does to the claim's history. The store's facts and profile lines
// both put through it; the package is a leaf and knows nothing of SQL.
package claim

import (
	"strings"

	"github.com/dormouse-dev/dormouse/internal/text"
)

// Claim is what a statement says about a subject: the value of one key.
// Facts call the subject their entity and the key their attribute.
type Claim struct {
	Subject, Key, Value string
}

// Normal is the form in which two values or wordings count as the same:
// lower-cased words separated by single spaces, punctuation dropped.
func Normal(s string) string { return strings.Join(text.Words(s), " ") }
