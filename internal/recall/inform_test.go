package recall

import (
	"strings"
	"testing"
	"time"
	"unicode"
)

func TestInformative(t *testing.T) {
	// Each pair: the first states more than the second.
	pairs := [][2]string{
		{"Yesterday I joined a pottery class at the community centre.", "Wow, pottery sounds fun!"},
		{"Last week we went camping at Lake Tahoe with the kids.", "Camping? How was it?"},
		{"My passport number is X1234567.", "Thanks, that's great."},
		{"I met Dana and Priya at the Berlin conference.", "I met some people there."},
		{"That's awesome, I started running every morning.", "I started running every morning and it helps me think clearly before work."},
	}
	for _, p := range pairs[:4] {
		if a, b := informative(p[0]), informative(p[1]); a <= b {
			t.Errorf("informative(%q) = %.3f <= informative(%q) = %.3f", p[0], a, p[1], b)
		}
	}
	// Praise at the start counts against; more words count for.
	if a, b := informative(pairs[4][0]), informative(pairs[4][1]); a >= b {
		t.Errorf("informative(%q) = %.3f >= informative(%q) = %.3f", pairs[4][0], a, pairs[4][1], b)
	}
	for _, s := range []string{"", "?", "!!!", "a", "Ünïcode Wörds 123", "I"} {
		if v := informative(s); v <= 0 || v >= 1 {
			t.Errorf("informative(%q) = %v, want a probability", s, v)
		}
	}
}

// TestInformativeBreaksTies: of two memories that match the question
// equally, the one that tells what happened ranks above the one that chats
// about it; without the weight, the chat (newer) leads. (Feedback is off:
// in a two-memory store it lends the leader's own words back to it.)
func TestInformativeBreaksTies(t *testing.T) {
	tell := "Yesterday I finished my first bowl in the pottery class with Maria."
	chat := "Wow, that pottery class sounds like so much fun, you lucky thing!"
	a := agentWith(t, []turn{
		{at: day0, session: "s1", role: "Alice", content: tell},
		{at: day0.Add(time.Hour), session: "s2", role: "Bob", content: chat},
	})
	q := Query{Text: "pottery class", AsOf: day0.Add(24 * time.Hour), Explain: true}
	on := &Engine{Tuning: DefaultTuning}
	on.Tuning.NoFeedback = true
	res, err := on.Recall(t.Context(), a, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 2 || res.Items[0].Text != tell {
		t.Fatalf("items %v; want the account of the bowl first", ids(res.Items))
	}
	if x, y := res.Items[0].Explain, res.Items[1].Explain; x.Informative <= y.Informative || x.Relevance != y.Relevance {
		t.Errorf("explain %+v vs %+v; want the first more informative, equally relevant", x, y)
	}
	off := &Engine{Tuning: on.Tuning}
	off.Tuning.Informative = 0
	res, err = off.Recall(t.Context(), a, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 2 || res.Items[0].Text != chat {
		t.Errorf("weight 0: items %v; want the newer chat first", ids(res.Items))
	}
}

func BenchmarkInformative(b *testing.B) {
	turn := "Last weekend I went to a car show with Dave. Classic cars are so charming and the dedication people put into restoring them is amazing!"
	long := strings.Repeat(turn+" ", 5000) // a 700 KB note
	for _, c := range []struct{ name, s string }{{"turn", turn}, {"long", long}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				informative(c.s)
			}
		})
	}
}

// TestTrimToWord: the fast path gives what trimming every mark gives.
func TestTrimToWord(t *testing.T) {
	marks := func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\'' }
	for _, f := range []string{"word", "Word.", "(word)", "'tis", "don't", "“Zoë,”", "Zoë", "élan", "x", "...", "3pm", "$12.50", "wow!!", "naïve’"} {
		if got, want := trimToWord(f), strings.TrimFunc(f, marks); got != want {
			t.Errorf("trimToWord(%q) = %q, want %q", f, got, want)
		}
	}
}
