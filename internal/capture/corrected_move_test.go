package capture

import (
	"slices"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestMovesRetirementsAndMonths: a move of home to another named place
// ends where the same person lived; someone who did a thing for the
// speaker retiring or a shop closing ends the claim of what they did; a
// month said as when ("the first week of August") is a booking's time, so
// cancelling the thing booked ends it weeks later; being put on another
// shift ends the one I was on; a provider ditched by name ends the claim
// of being with it. Look-alikes end nothing.
func TestMovesRetirementsAndMonths(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 3, d, 10, 0, 0, 0, time.UTC) }
	old := func(id int64, text string) store.Hit {
		return store.Hit{Kind: "memory", ID: id, SessionID: "o", Timestamp: day(1), Text: text, Role: "user"}
	}
	elsewhere := func(id int64, text string) store.Hit { // said in another session than old's
		h := old(id, text)
		h.SessionID = "e"
		return h
	}
	cases := []struct {
		name, say string
		hits      []store.Hit
		want      []int64
	}{
		{"a named person moved up to another city", "Jonas moved back to Hamburg last spring.",
			[]store.Hit{old(1, "My cousin Jonas lives in Munich."), old(2, "Munich was lovely in the snow.")}, []int64{1}},
		{"the household relocated", "We relocated to Norwich over the summer.",
			[]store.Hit{old(3, "We live in Colchester, near the station.")}, []int64{3}},
		{"I moved, where I was based", "I've moved down to Exeter for the new job.",
			[]store.Hit{old(4, "I'm based in Leicester these days.")}, []int64{4}},
		{"another person's home is not moved", "Tomasz has moved over to Gdansk now.",
			[]store.Hit{old(5, "My friend Ines lives in Porto.")}, nil},
		{"someone else's move is not mine", "Tomasz has moved over to Gdansk now.",
			[]store.Hit{old(6, "I live in Swindon.")}, nil},
		{"a named person moved from where they stay", "Grandad's been moved to Elmhurst Court, he likes his room.",
			[]store.Hit{old(23, "Grandad's in Ward 12 at the General after his stroke."), old(24, "Grandad's in good spirits.")}, []int64{23}},
		{"another's stay is not moved", "Grandad's been moved to Elmhurst Court.",
			[]store.Hit{old(25, "Auntie Joy is in Lanzarote till Friday.")}, nil},
		{"switched to a rival provider", "Moved the current account over to Monzo, the app's better.",
			[]store.Hit{old(26, "We bank with Barclays, joint account."), old(27, "Barclays on the high street is closing.")}, []int64{26}},
		{"switched to a rival medicine", "The GP switched me to amlodipine.",
			[]store.Hit{old(28, "I take bisoprolol every morning.")}, []int64{28}},
		{"a rival not serving us", "Switched our energy to Ovo.",
			[]store.Hit{old(29, "Octopus keep sending leaflets through the door.")}, nil},
		{"a thing denied is done again", "I've started eating red meat again, doctor's orders.",
			[]store.Hit{old(30, "I don't eat red meat, haven't for years."), old(31, "Red meat prices are mad.")}, []int64{30}},
		{"back on it again", "We're back on the cider again since the summer.",
			[]store.Hit{old(32, "We've given up cider for Lent.")}, []int64{32}},
		{"done again, nothing denied", "I've started swimming again.",
			[]store.Hit{old(33, "Swimming at the lido with Kemi on Sundays.")}, nil},
		{"someone named can't come now", "Bogdan can't make the barbecue now, his flight's been moved.",
			[]store.Hit{old(34, "Bogdan is coming to the barbecue on Saturday."), elsewhere(35, "We're doing a barbecue for Ellie's 30th on Saturday.")}, []int64{34}},
		{"can't make it, nothing changed", "Bogdan can't make the barbecue.",
			[]store.Hit{old(36, "Bogdan is coming to the barbecue on Saturday.")}, nil},
		{"had to give up a habit", "Doctor's orders, I've had to give up cycling.",
			[]store.Hit{old(37, "I cycle 40 miles every Sunday with the club."), elsewhere(38, "The cycling club has a new kit.")}, []int64{37}},
		{"a named tradesman retired", "Keith's retired, so we need a new gardener.",
			[]store.Hit{old(7, "Keith cuts our hedges twice a year."), old(8, "The hedges look tidy.")}, []int64{7}},
		{"a shop closed down", "Hollis Bakery has closed down, such a shame.",
			[]store.Hit{old(9, "We get our bread from Hollis Bakery on Saturdays.")}, []int64{9}},
		{"a retired person's other news is not ended", "Dad's retired at last!",
			[]store.Hit{old(10, "Dad's coming for lunch on Sunday with the dog.")}, nil},
		{"a pronoun names no one", "He's retired now, lovely man.",
			[]store.Hit{old(11, "Keith cuts our hedges twice a year.")}, nil},
		{"a thing booked for a month is cancelled", "We've cancelled the caravan, the car's broken down.",
			[]store.Hit{old(12, "We've booked a caravan in Tenby for the end of July."), old(13, "The car needs new tyres.")}, []int64{12}},
		{"put on another value of what I'm on", "They've put me on earlies at the bakery from next month.",
			[]store.Hit{old(14, "I'm on the late shift at the bakery, 2 till 10."), old(15, "The bakery sells out of sourdough by noon.")}, []int64{14}},
		{"put on, nothing shared", "The GP has put me on statins.",
			[]store.Hit{old(16, "I'm on the late shift at the bakery, 2 till 10.")}, nil},
		{"a named role holder retired", "Mr Osei has retired, so Priya takes the class now.",
			[]store.Hit{old(19, "My violin teacher is Mr Osei, Thursdays after school."), old(20, "Mr Osei's garden is full of roses.")}, []int64{19}},
		{"a role holder named first retired", "Dr Lindqvist has retired.",
			[]store.Hit{old(21, "Dr Lindqvist is our family GP.")}, []int64{21}},
		{"a retired friend is no role ended", "Ines has retired from teaching.",
			[]store.Hit{old(22, "Ines is my oldest friend.")}, nil},
		{"a provider ditched by name", "Ditched Vodafone, we're with Lebara now.",
			[]store.Hit{old(17, "My phone contract is with Vodafone."), old(18, "Vodafone's shop in town has shut.")}, []int64{17}},
	}
	for _, c := range cases {
		corr, ok := CorrectionIn(c.say)
		if !ok {
			if c.want != nil {
				t.Errorf("%s: %q is not read as a correction", c.name, c.say)
			}
			continue
		}
		m := store.Hit{Kind: "memory", ID: 100, SessionID: "n", Timestamp: day(25), Role: "user", Text: c.say}
		if got := Corrected(m, corr, c.hits, nil); !slices.Equal(got, c.want) {
			t.Errorf("%s: corrected = %v (%+v), want %v", c.name, got, corr, c.want)
		}
	}
}
