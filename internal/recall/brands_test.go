package recall

import (
	"strings"
	"testing"
	"time"
)

// TestBrandAnswersItsCategory: a question asking for a household's
// provider by its category (energy supplier, bank, broadband, mobile
// network, streaming, airline, insurer) finds the memory naming only the
// brand (world.txt: a brand is a kind of its category), and a memory
// naming another category's brand does not answer it.
func TestBrandAnswersItsCategory(t *testing.T) {
	for _, tc := range []struct{ ask, memory, other string }{
		{"Which energy supplier are we with?", "EDF sent another estimated bill, it has gone up to 160 a month.", "Plusnet engineer is coming on Tuesday morning."},
		{"Who do I bank with?", "Starling's app flagged a payment I didn't make.", "Vodafone texted to say my bill is ready."},
		{"Who's our broadband provider?", "Plusnet engineer is coming on Tuesday morning.", "EDF sent another estimated bill, it has gone up to 160 a month."},
		{"What mobile network am I on?", "Vodafone texted to say my bill is ready.", "Starling's app flagged a payment I didn't make."},
		{"Which airline are we flying with?", "Booked the Ryanair flights to Porto, seats 14A and 14B.", "Spotify put the family plan up again."},
		{"Who is the car insured with?", "Aviva renewal for the car came through at 480.", "Booked the Ryanair flights to Porto, seats 14A and 14B."},
	} {
		recallFirst(t, tc.ask, tc.memory, tc.other)
	}
}

// TestTitleAnswersItsKind: a paper or magazine named by its title ("the
// Guardian", "the Spectator") is found asked by its kind; the everyday
// word a title also is ("hard times", "her guardian") is not.
func TestTitleAnswersItsKind(t *testing.T) {
	for _, tc := range []struct{ ask, memory, other string }{
		{"Which paper do we get?", "We get the Guardian delivered, Saturdays too.", "Her guardian signed the school form."},
		{"Which newspaper do I read?", "Always do the crossword in the Times on the train.", "Times are hard at the moment."},
		{"What magazine do I subscribe to?", "The Spectator comes every Thursday.", "The garden centre has a new cafe."},
	} {
		res := recallFirst(t, tc.ask, tc.memory, tc.other)
		if strings.Contains(res.Context, tc.other) {
			t.Errorf("%q: offered %q", tc.ask, tc.other)
		}
	}
}

// recallFirst recalls ask of an agent holding memory, other and a filler,
// and fails t unless memory comes first.
func recallFirst(t *testing.T, ask, memory, other string) Result {
	t.Helper()
	a := agentWith(t, []turn{
		{at: day0, role: "user", content: memory},
		{at: day0.Add(time.Hour), role: "user", content: other},
		{at: day0.Add(2 * time.Hour), role: "user", content: "The bins go out on Thursday night."},
	})
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: ask, AsOf: day0.Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || len(res.Items) == 0 || res.Items[0].Text != memory {
		t.Errorf("%q: found=%v items=%v; want %q first", ask, res.Found, texts(res.Items), memory)
	}
	return res
}
