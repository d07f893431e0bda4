package recall

import (
	"strings"
	"testing"
	"time"
)

// TestVariantsAreOneWord: a question and a memory naming one thing by two
// everyday words (kinds.Variant: TV and telly, phone and mobile, flat and
// apartment, mother and mum) match as if both said the same word; a
// memory about another thing still answers nothing.
func TestVariantsAreOneWord(t *testing.T) {
	for _, tc := range []struct{ ask, memory string }{
		{"Where did we buy the TV?", "We got the new telly from Richer Sounds."},
		{"What colour is my phone case?", "My mobile has a green leather case."},
		{"How many bedrooms does our flat have?", "Our apartment has two bedrooms and a box room."},
		{"Where does my mother get her hair cut?", "Mum gets her hair cut at Snips on the high street."},
		{"Where is the motorcycle parked?", "The motorbike is parked in the lock-up on Mill Lane."},
	} {
		a := agentWith(t, []turn{
			{at: day0, role: "user", content: tc.memory},
			{at: day0.Add(time.Hour), role: "user", content: "The bins go out on Thursday night."},
			{at: day0.Add(2 * time.Hour), role: "user", content: "Bought new running shoes at the weekend."},
		})
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: tc.ask, AsOf: day0.Add(48 * time.Hour), Explain: true})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Found || len(res.Items) == 0 || res.Items[0].Text != tc.memory {
			t.Errorf("%q: found=%v items=%v; want %q first", tc.ask, res.Found, texts(res.Items), tc.memory)
		}
	}
}

func texts(items []Item) string {
	var out []string
	for _, it := range items {
		out = append(out, it.Text)
	}
	return strings.Join(out, " | ")
}
