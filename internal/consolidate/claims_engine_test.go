package consolidate

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// currentValue is the value of entity's attribute current at asOf, "" when none.
func currentValue(t *testing.T, a *store.Agent, entity, attr string, asOf time.Time) string {
	t.Helper()
	fs, err := a.Facts(t.Context(), store.FactFilter{Entity: entity, AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	var vals []string
	for _, f := range fs {
		if f.Attribute == attr {
			vals = append(vals, f.Value)
		}
	}
	if len(vals) > 1 {
		t.Errorf("%s/%s as of %s has %d current values %q, want one", entity, attr, asOf.Format(time.DateOnly), len(vals), vals)
	}
	if len(vals) == 0 {
		return ""
	}
	return vals[0]
}

// TestCorrectionsSupersede: successive values of one thing, said in the
// different words people use for a first value, a change and a correction,
// make one chain of facts through the offline consolidation: the newest is
// current, each older one has valid_to and superseded_by, the history keeps
// all of them (newest first), and as_of gets the value current then.
func TestCorrectionsSupersede(t *testing.T) {
	day := func(m, d int) time.Time { return time.Date(2026, time.Month(m), d, 9, 0, 0, 0, time.UTC) }
	type said struct {
		at      time.Time
		role    string
		content string
	}
	for _, tc := range []struct {
		name         string
		said         []said
		entity, attr string
		history      []string          // newest first
		asOf         map[string]string // YYYY-MM-DD → value current then
		never        string            // a value that must never be stored (negated)
	}{
		{
			name: "budget corrected then raised",
			said: []said{
				{day(3, 2), "user", "Met with Alice today. Q3 budget is approved, $2.4M."},
				{day(3, 2).Add(time.Minute), "assistant", "Noted: Q3 budget approved at $2.4M, per Alice."},
				{day(3, 9), "user", "Correction from finance: the Q3 budget is $2.1M, not $2.4M."},
				{day(4, 1), "user", "Good news, the Q3 budget was raised to $2.6M."},
			},
			entity: "q3 budget", attr: "amount",
			history: []string{"$2.6M", "$2.1M", "$2.4M"},
			asOf:    map[string]string{"2026-03-01": "", "2026-03-05": "$2.4M", "2026-03-10": "$2.1M", "2026-04-02": "$2.6M"},
		},
		{
			name: "rent raised twice",
			said: []said{
				{day(1, 5), "user", "Our rent is 1,450 a month, paid on the first."},
				{day(5, 2), "user", "The landlord raised the rent to 1,520 a month from June."},
				{day(9, 1), "user", "The rent went up to 1,600 a month."},
			},
			entity: "user", attr: "rent",
			history: []string{"1,600 a month", "1,520 a month", "1,450 a month"},
			asOf:    map[string]string{"2026-03-01": "1,450 a month", "2026-06-10": "1,520 a month", "2026-09-02": "1,600 a month"},
		},
		{
			name: "phone number changed twice",
			said: []said{
				{day(2, 3), "user", "My phone number is 555-0142, text me there if the delivery is late."},
				{day(4, 11), "user", "I changed carriers, my phone number is now 555-0199."},
				{day(6, 1), "user", "New job, new phone: my mobile number is 555-0123."},
			},
			entity: "user", attr: "phone",
			history: []string{"555-0123", "555-0199", "555-0142"},
			asOf:    map[string]string{"2026-04-15": "555-0199", "2026-03-01": "555-0142", "2026-06-02": "555-0123"},
		},
		{
			name: "address after a move",
			said: []said{
				{day(1, 12), "user", "Please send the invoices to my home address, 12 Birch Lane, Harwick."},
				{day(3, 28), "user", "We moved house last weekend. My address is now 48 Quay Street, Harwick."},
			},
			entity: "user", attr: "address",
			history: []string{"48 Quay Street", "12 Birch Lane"},
			asOf:    map[string]string{"2026-02-01": "12 Birch Lane", "2026-04-02": "48 Quay Street"},
		},
		{
			name: "phone: mobile, new number, call me on",
			said: []said{
				{day(1, 14), "user", "You can reach me on my mobile, 0612 448 731, if the courier is late."},
				{day(5, 3), "user", "new number: 0687 220 915 - the old SIM is dead."},
				{day(8, 9), "user", "Call me on 0699 310 442 from now on, work gave me a phone."},
			},
			entity: "user", attr: "phone",
			history: []string{"0699 310 442", "0687 220 915", "0612 448 731"},
			asOf:    map[string]string{"2026-02-01": "0612 448 731", "2026-05-04": "0687 220 915", "2026-08-10": "0699 310 442"},
		},
		{
			name: "address: stated, moved to, new address",
			said: []said{
				{day(1, 20), "user", "My address is 7 Larch Close, Penwick, for the grocery deliveries."},
				{day(4, 18), "user", "We moved to 31 Harbour Row, Penwick last week, so the groceries go there now."},
				{day(9, 2), "user", "New address: 5 Mill Yard, Penwick."},
			},
			entity: "user", attr: "address",
			history: []string{"5 Mill Yard", "31 Harbour Row", "7 Larch Close"},
			asOf:    map[string]string{"2026-02-01": "7 Larch Close", "2026-04-19": "31 Harbour Row"},
		},
		{
			name: "employer: works at, left for, started at",
			said: []said{
				{day(1, 9), "user", "I work at Fernhill Logistics as a planner, the office is by the canal."},
				{day(3, 2), "user", "Big news: I left Fernhill Logistics for Corvid Health, first day was today."},
				{day(10, 5), "user", "Started at Meridian Studio today, new badge and everything."},
			},
			entity: "user", attr: "employer",
			history: []string{"Meridian Studio", "Corvid Health", "Fernhill Logistics"},
			asOf:    map[string]string{"2026-02-01": "Fernhill Logistics", "2026-03-03": "Corvid Health", "2026-10-06": "Meridian Studio"},
		},
		{
			name: "job title: stated, promoted, new role",
			said: []said{
				{day(2, 2), "user", "My job title is junior analyst, put that on the conference badge."},
				{day(7, 1), "user", "I got promoted to senior analyst this afternoon!"},
				{day(11, 3), "user", "My new role is head of analytics."},
			},
			entity: "user", attr: "job_title",
			history: []string{"head of analytics", "senior analyst", "junior analyst"},
			asOf:    map[string]string{"2026-03-01": "junior analyst", "2026-07-02": "senior analyst"},
		},
		{
			name: "rent: the rent is, now pay",
			said: []said{
				{day(1, 8), "user", "The rent for the flat is 1,180 a month, due on the 3rd."},
				{day(5, 29), "user", "New lease signed: we now pay 1,265 a month for the flat."},
			},
			entity: "user", attr: "rent",
			history: []string{"1,265 a month", "1,180 a month"},
			asOf:    map[string]string{"2026-03-01": "1,180 a month", "2026-06-01": "1,265 a month"},
		},
		{
			name: "city and timezone after a move",
			said: []said{
				{day(1, 11), "user", "I live in Leeds, so weekend trips should start from there."},
				{day(2, 11), "user", "My timezone is EST, so book calls after 9am my time."},
				{day(4, 6), "user", "Finally moved to Lisbon, the boxes are everywhere."},
				{day(4, 7), "user", "Heads up, I'm on WET now."},
			},
			entity: "user", attr: "timezone",
			history: []string{"WET", "EST"},
			asOf:    map[string]string{"2026-03-01": "EST", "2026-04-08": "WET"},
		},
		{
			name: "city after a move",
			said: []said{
				{day(1, 11), "user", "I live in Leeds, so weekend trips should start from there."},
				{day(4, 6), "user", "Finally moved to Lisbon, the boxes are everywhere."},
			},
			entity: "user", attr: "city",
			history: []string{"Lisbon", "Leeds"},
			asOf:    map[string]string{"2026-03-01": "Leeds", "2026-04-08": "Lisbon"},
		},
		{
			name: "partner: girlfriend, then partner",
			said: []said{
				{day(1, 5), "user", "My girlfriend is Hana, remind me to book her a birthday dinner."},
				{day(6, 12), "user", "Things ended in spring. My partner is Idris now, we met at climbing."},
			},
			entity: "user", attr: "partner",
			history: []string{"Idris", "Hana"},
			asOf:    map[string]string{"2026-03-01": "Hana", "2026-06-13": "Idris"},
		},
		{
			name: "car: my car is, sold and bought",
			said: []said{
				{day(1, 25), "user", "My car is a grey Volkswagen Golf, the service is due in spring."},
				{day(5, 16), "user", "Sold the Golf on Saturday and bought a Kia Niro, much better on the motorway."},
			},
			entity: "user", attr: "car",
			history: []string{"Kia Niro", "grey Volkswagen Golf"},
			asOf:    map[string]string{"2026-03-01": "grey Volkswagen Golf", "2026-05-17": "Kia Niro"},
		},
		{
			name: "launch slipped twice",
			said: []said{
				{day(3, 2), "user", "Product launch for the Kestrel app is planned for May 12."},
				{day(4, 20), "user", "The Kestrel launch slipped a week: it is now on May 19."},
				{day(5, 4), "user", "The Kestrel launch moved from May 19 to May 26."},
			},
			entity: "kestrel launch", attr: "date",
			history: []string{"May 26", "May 19", "May 12"},
			asOf:    map[string]string{"2026-04-01": "May 12", "2026-04-22": "May 19", "2026-05-05": "May 26"},
		},
		{
			name: "a denied value is never the claim",
			said: []said{
				{day(3, 9), "user", "The Q3 budget is $2.1M, not $2.4M."},
				{day(3, 10), "user", "To be clear, the Q3 budget is not $2.4M."},
			},
			entity: "q3 budget", attr: "amount",
			history: []string{"$2.1M"},
			asOf:    map[string]string{"2026-03-11": "$2.1M"},
			never:   "$2.4M",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			st := openStore(t)
			for _, s := range tc.said {
				ingest(t, st, "main", []capture.Input{{Content: s.content, Role: s.role, SessionID: "s", Timestamp: s.at.Format(time.RFC3339)}})
			}
			e := &Engine{Store: st, Consolidator: Offline{}, Location: time.UTC,
				Now: func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }}
			if _, err := e.RunAll(ctx, "main", false); err != nil {
				t.Fatal(err)
			}
			a, err := st.Acquire(ctx, "main", false)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Release(a)
			all, err := a.Facts(ctx, store.FactFilter{Entity: tc.entity, History: true})
			if err != nil {
				t.Fatal(err)
			}
			var hist []store.Fact
			for _, f := range all {
				if f.Attribute == tc.attr {
					hist = append(hist, f)
				}
				if tc.never != "" && strings.Contains(f.Value, tc.never) {
					t.Errorf("fact %d has the denied value %q: %+v", f.ID, tc.never, f)
				}
			}
			var values []string
			for _, f := range hist {
				values = append(values, f.Value)
			}
			if diff := cmp.Diff(values, tc.history); diff != "" {
				t.Fatalf("history of %s/%s mismatch (-got +want):\n%s\nall facts: %+v", tc.entity, tc.attr, diff, all)
			}
			for i, f := range hist {
				if i == 0 {
					if f.ValidTo != nil || f.SupersededBy != nil {
						t.Errorf("newest value %q has valid_to %v, superseded_by %v; want it current", f.Value, f.ValidTo, f.SupersededBy)
					}
					continue
				}
				newer := hist[i-1]
				if f.SupersededBy == nil || *f.SupersededBy != newer.ID || f.ValidTo == nil || !f.ValidTo.Equal(newer.ValidFrom) {
					t.Errorf("value %q: valid_to %v, superseded_by %v; want %v and fact %d (%q)",
						f.Value, f.ValidTo, f.SupersededBy, newer.ValidFrom, newer.ID, newer.Value)
				}
			}
			for d, want := range tc.asOf {
				at, _ := time.Parse(time.DateOnly, d)
				if got := currentValue(t, a, tc.entity, tc.attr, at.Add(12*time.Hour)); got != want {
					t.Errorf("%s/%s as of %s = %q, want %q", tc.entity, tc.attr, d, got, want)
				}
			}
		})
	}
}

// TestForgottenClaimInOtherWords: once the user rejects "favourite colour
// = orange" (or forgets the memory it came from, which drops the fact), the
// assistant restating it in other words is flagged by the consolidation (no
// record, no fact, never recalled), while a genuinely new value of the
// attribute is accepted and current.
func TestForgottenClaimInOtherWords(t *testing.T) {
	for _, how := range []string{"reject the fact", "forget the memory"} {
		t.Run(how, func(t *testing.T) {
			ctx := t.Context()
			st := openStore(t)
			e := &Engine{Store: st, Consolidator: Offline{}, Location: time.UTC,
				Now: func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }}
			first := ingest(t, st, "main", []capture.Input{{Content: "My favourite colour is orange.", Role: "user", Timestamp: "2026-05-02T09:00:00Z"}})
			if _, err := e.RunAll(ctx, "main", false); err != nil {
				t.Fatal(err)
			}
			a, err := st.Acquire(ctx, "main", false)
			if err != nil {
				t.Fatal(err)
			}
			defer st.Release(a)
			cur, err := a.Facts(ctx, store.FactFilter{Entity: "user"})
			if err != nil || len(cur) != 1 || cur[0].Attribute != "favourite colour" || cur[0].Value != "orange" {
				t.Fatalf("facts after the first day = %+v, %v; want user/favourite colour = orange", cur, err)
			}
			if how == "reject the fact" {
				err = a.RejectFact(ctx, cur[0].ID)
			} else {
				err = a.Delete(ctx, first[0]) // drops the fact it alone supported
			}
			if err != nil {
				t.Fatal(err)
			}
			ids := ingest(t, st, "main", []capture.Input{
				{Content: "Earlier you said your favourite colour is orange.", Role: "assistant", Timestamp: "2026-05-09T09:00:00Z"},
				{Content: "Shall I order the sofa in that colour?", Role: "assistant", Timestamp: "2026-05-09T09:01:00Z"},
			})
			if _, err := e.RunAll(ctx, "main", false); err != nil {
				t.Fatal(err)
			}
			if m, err := a.Get(ctx, ids[0]); err != nil || !m.Flagged {
				t.Errorf("the restatement = %+v, %v; want it flagged", m, err)
			}
			if m, err := a.Get(ctx, ids[1]); err != nil || m.Flagged || !m.Consolidated {
				t.Errorf("the day's other memory = %+v, %v; want it consolidated, not flagged", m, err)
			}
			recs, err := a.Consolidations(ctx, "2026-05-09", "2026-05-09", 0)
			if err != nil || len(recs) != 1 || strings.Contains(strings.ToLower(recs[0].Summary+string(recs[0].KeyFacts)), "orange") {
				t.Errorf("day record of 05-09 = %+v, %v; want one, without the forgotten claim", recs, err)
			}
			// Rejecting a fact leaves the memory it came from (README:
			// forget copies too); forgetting that memory leaves nothing.
			got := recallText(t, a, "What is my favourite colour?", "2026-05-10T09:00:00Z")
			if strings.Contains(got, "Earlier you said") || (how == "forget the memory" && strings.Contains(got, "orange")) {
				t.Errorf("recall offers the forgotten claim:\n%s", got)
			}
			if v := currentValue(t, a, "user", "favourite colour", time.Date(2026, 5, 10, 0, 0, 0, 0, time.UTC)); v != "" {
				t.Errorf("current favourite colour = %q, want none", v)
			}

			// A genuinely new value is a new claim: stored and current.
			ingest(t, st, "main", []capture.Input{{Content: "My favourite colour is green now.", Role: "user", Timestamp: "2026-05-12T09:00:00Z"}})
			if _, err := e.RunAll(ctx, "main", false); err != nil {
				t.Fatal(err)
			}
			if v := currentValue(t, a, "user", "favourite colour", time.Date(2026, 5, 13, 0, 0, 0, 0, time.UTC)); v != "green" {
				t.Errorf("current favourite colour = %q, want green", v)
			}
		})
	}
}
