package consolidate

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
)

// TestCorrectionRetiresOnlyItsClaim: the night retires the claim a
// correction changes, found by its subject, its kind of value and its
// session or recent context; not a claim it repeats, nor one of another
// subject said in another session, recent or long ago.
func TestCorrectionRetiresOnlyItsClaim(t *testing.T) {
	type turn struct {
		text, at, session string
	}
	for _, tc := range []struct {
		name    string
		before  []turn // the first is the claim asked about
		said    turn
		retired bool
	}{
		{"a pro-form in the claim's session",
			[]turn{{"Can you book the window cleaner for Tuesday?", "2026-05-04T09:00:00Z", "a"}},
			turn{"Actually, make it Friday instead.", "2026-05-04T09:05:00Z", "a"}, true},
		{"a pro-form after its subject, the day in another session",
			[]turn{{"The boiler engineer is coming on Wednesday.", "2026-05-02T09:00:00Z", "a"},
				{"About the boiler engineer visit.", "2026-05-04T09:00:00Z", "b"}},
			turn{"Actually, make it Monday instead.", "2026-05-04T09:01:00Z", "b"}, true},
		{"a pro-form about another subject, a recent claim of a weekday",
			[]turn{{"My pottery class is on Wednesday evening.", "2026-05-02T09:00:00Z", "a"},
				{"Can you move my haircut with Suki?", "2026-05-04T09:00:00Z", "b"}},
			turn{"Actually, make it Thursday instead.", "2026-05-04T09:01:00Z", "b"}, false},
		{"a pro-form months after a one-off claim",
			[]turn{{"Booked the carpet fitter for Tuesday.", "2026-01-12T09:00:00Z", "a"}},
			turn{"Actually, make it Thursday instead.", "2026-05-04T09:01:00Z", "b"}, false},
		{"a correction repeating a claim as its reason",
			[]turn{{"Great, I'm allergic to peanuts, so I'll need the nut-free menu!", "2026-01-12T09:00:00Z", "a"}},
			turn{"Yes, as I'm allergic to peanuts, I'm trying nut-free spreads like sunflower or pumpkin butter instead.", "2026-05-04T09:01:00Z", "b"}, false},
		{"a correction changing the claim's value",
			[]turn{{"I'm vegetarian, so no meat for me at the barbecue.", "2026-04-12T09:00:00Z", "a"}},
			turn{"I'm vegan now, so oat milk instead of cow's milk.", "2026-05-04T09:01:00Z", "b"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			st := openStore(t)
			e := &Engine{Store: st, Consolidator: Offline{}, Location: time.UTC,
				Now: func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }}
			var ins []capture.Input
			for _, b := range append(tc.before, tc.said) {
				ins = append(ins, capture.Input{Content: b.text, Role: "user", Timestamp: b.at, SessionID: b.session})
			}
			ids := ingest(t, st, "main", ins)
			if _, err := e.RunAll(ctx, "main", false); err != nil {
				t.Fatal(err)
			}
			a, err := st.Acquire(ctx, "main", false)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Release(a)
			m, err := a.Get(ctx, ids[0])
			if err != nil {
				t.Fatal(err)
			}
			if got := m.SupersededBy != nil; got != tc.retired {
				t.Errorf("%q after %q: retired %v, want %v", tc.before[0].text, tc.said.text, got, tc.retired)
			}
		})
	}
}

// TestSuccessorAnswersOfItsSubject: a correction that names the person
// whose claim it corrects otherwise (by a company, not the role) answers a
// question asking of that person by the role chain the retired claim
// named.
func TestSuccessorAnswersOfItsSubject(t *testing.T) {
	for _, tc := range []struct{ claim, correction, ask, want string }{
		{"My dad's physio from Kinetic Clinic comes round on Tuesdays at 2pm.",
			"Kinetic have moved Dad's home session to Thursdays at 11am.", "When does my father's physio come round?", "11am"},
		{"My son's tutor from Brightsparks does maths with him at 5pm on Mondays.",
			"Brightsparks pushed Leo's Monday lesson to 6.15 because of staffing.", "What time does my son's tutor come on Mondays?", "6.15"},
	} {
		t.Run(tc.want, func(t *testing.T) {
			ctx := t.Context()
			st := openStore(t)
			e := &Engine{Store: st, Consolidator: Offline{}, Location: time.UTC,
				Now: func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }}
			ids := ingest(t, st, "main", []capture.Input{
				{Content: tc.claim, Role: "user", Timestamp: "2026-05-04T09:00:00Z", SessionID: "a"},
				{Content: "Cleared the gutters before the rain.", Role: "user", Timestamp: "2026-05-06T09:00:00Z", SessionID: "b"},
				{Content: tc.correction, Role: "user", Timestamp: "2026-05-12T09:00:00Z", SessionID: "c"},
			})
			if _, err := e.RunAll(ctx, "main", false); err != nil {
				t.Fatal(err)
			}
			a, err := st.Acquire(ctx, "main", false)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Release(a)
			if m, err := a.Get(ctx, ids[0]); err != nil || m.SupersededBy == nil {
				t.Fatalf("the claim %q = %+v, %v; want it superseded", tc.claim, m, err)
			}
			if got := recallText(t, a, tc.ask, "2026-05-14T09:00:00Z"); !strings.Contains(got, tc.want) {
				t.Errorf("%q offers no %q:\n%s", tc.ask, tc.want, got)
			}
		})
	}
}
