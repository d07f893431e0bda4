package capture

import (
	"slices"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestCorrectedByVariant: a correction that names the thing by another
// everyday word for it than the claim did (mobile and phone, telly and
// TV, motorbike and motorcycle, gran and grandmother) retires the claim;
// the same correction leaves a claim about another thing, or someone
// else's, alone.
func TestCorrectedByVariant(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 4, d, 10, 0, 0, 0, time.UTC) }
	hit := func(id int64, d int, text string) store.Hit {
		return store.Hit{Kind: "memory", ID: id, SessionID: "s" + string(rune('a'+id)), Timestamp: day(d), Text: text, Role: "user"}
	}
	cases := []struct {
		name, say string
		hits      []store.Hit
		want      []int64
	}{
		{"phone for mobile", "Moved my phone contract over to Giffgaff.",
			[]store.Hit{hit(1, 2, "My mobile is with EE, thirty quid a month."), hit(2, 3, "The dishwasher is making a noise again.")}, []int64{1}},
		{"mobile for phone", "Switched my mobile over to Smarty last week.",
			[]store.Hit{hit(3, 2, "My phone's on Vodafone, 22 pounds a month."), hit(4, 3, "Booked the boiler service for May.")}, []int64{3}},
		{"a thing gone, named by its variant", "We don't have a telly any more.",
			[]store.Hit{hit(5, 2, "The TV in the back room is an old Panasonic."), hit(6, 3, "The back room needs repainting.")}, []int64{5}},
		{"sold, by its variant", "Sold the motorcycle to a lad from Hull.",
			[]store.Hit{hit(7, 2, "I keep my motorbike in the lock-up on Mill Lane."), hit(8, 3, "The lock-up rent is due on the 1st.")}, []int64{7}},
		{"another thing is not retired", "Moved my phone contract over to Giffgaff.",
			[]store.Hit{hit(9, 2, "Our broadband is with Plusnet, 28 pounds a month.")}, nil},
	}
	for _, c := range cases {
		corr, ok := CorrectionIn(c.say)
		if !ok {
			t.Errorf("%s: %q is not read as a correction", c.name, c.say)
			continue
		}
		m := store.Hit{Kind: "memory", ID: 100, SessionID: "z", Timestamp: day(20), Role: "user", Text: c.say}
		if got := Corrected(m, corr, c.hits, nil); !slices.Equal(got, c.want) {
			t.Errorf("%s: corrected = %v (%+v), want %v", c.name, got, corr, c.want)
		}
	}
}
