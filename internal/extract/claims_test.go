package extract

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestClaims: sentences to the claim they state, keyed so that successive
// values of one thing share entity and attribute. Entities come from
// capture, as at ingest.
func TestClaims(t *testing.T) {
	for _, tc := range []struct {
		sentence string
		role     string
		want     []string // entity|attribute|value, and |content when the content is not the sentence
	}{
		// Amounts, and the correction of one: the asserted value, never the negated one.
		{"Met with Alice today. Q3 budget is approved, $2.4M.", "user", []string{"q3 budget|amount|$2.4M"}},
		{"Noted: Q3 budget approved at $2.4M, per Alice.", "assistant", []string{"q3 budget|amount|$2.4M|Q3 budget approved at $2.4M, per Alice"}},
		{"Correction from finance: the Q3 budget is $2.1M, not $2.4M.", "user", []string{"q3 budget|amount|$2.1M|Correction from finance: the Q3 budget is $2.1M"}},
		{"The Q3 budget is not $2.4M.", "user", nil},
		{"The Q3 budget is no longer $2.4M.", "user", nil},
		{"Our rent is 1,450 a month, paid on the first.", "user", []string{"user|rent|1,450 a month"}},
		{"The landlord raised the rent to 1,520 a month from June.", "user", []string{"user|rent|1,520 a month"}},
		{"The rent went up to 1,600 a month.", "user", []string{"user|rent|1,600 a month"}},
		{"The proxy timeout is 30 seconds; the login call takes 45.", "user", []string{"proxy timeout|amount|30 seconds"}},
		// The speaker's own attributes, however introduced.
		{"My phone number is 555-0142, text me there if the delivery is late.", "user", []string{"user|phone|555-0142"}},
		{"I changed carriers, my phone number is now 555-0199.", "user", []string{"user|phone|555-0199"}},
		{"My mobile is 555-0100.", "user", []string{"user|phone|555-0100"}},
		{"Please send the invoices to my home address, 12 Birch Lane, Harwick.", "user", []string{"user|address|12 Birch Lane"}},
		{"We moved house last weekend. My address is now 48 Quay Street, Harwick.", "user", []string{"user|address|48 Quay Street"}},
		{"My favorite color is orange.", "user", []string{"user|favourite colour|orange"}},
		// "your" said by the agent is the user's; reported speech is the claim it reports.
		{"Earlier you said your favourite colour is orange.", "assistant", []string{"user|favourite colour|orange"}},
		{"Your favourite colour is teal.", "user", nil},
		{"Her phone number is 555-0111.", "user", nil},
		// Named events: one key however the sentence names them; the new date, not the left-behind one.
		{"Product launch for the Kestrel app is planned for May 12.", "user", []string{"kestrel launch|date|May 12"}},
		{"The Kestrel launch slipped a week: it is now on May 19.", "user", []string{"kestrel launch|date|May 19"}},
		{"The Kestrel launch moved from May 12 to May 26.", "user", []string{"kestrel launch|date|May 26"}},
		{"The Kestrel launch is on May 19, not May 12.", "user", []string{"kestrel launch|date|May 19|The Kestrel launch is on May 19"}},
		{"My phone number is 555-0142, text me if it is not urgent.", "user", []string{"user|phone|555-0142"}},
		// Changes said without "my X is Y", keyed by the claim key they change.
		{"new number: 0687 220 915 - the old SIM is dead.", "user", []string{"user|phone|0687 220 915"}},
		{"My new mobile is 07700 900 462.", "user", []string{"user|phone|07700 900 462"}},
		{"I got a new phone, my mobile is 07700 900 462 from today.", "user", []string{"user|phone|07700 900 462"}},
		{"You can reach me on 0612 448 731 from now on.", "user", []string{"user|phone|0612 448 731"}},
		{"Updated email: lena.ruiz@fastmail.com", "user", []string{"user|email|lena.ruiz@fastmail.com"}},
		{"We moved to 31 Harbour Row, Penwick last week, so the groceries go there now.", "user", []string{"user|address|31 Harbour Row"}},
		{"New address is 9 Orchard Mews, Dunmore.", "user", []string{"user|address|9 Orchard Mews"}},
		{"Finally moved to Bristol, the boxes are everywhere.", "user", []string{"user|city|Bristol"}},
		{"I live in Leeds, so weekend trips should start from there.", "user", []string{"user|city|Leeds"}},
		{"We've relocated to Porto for good.", "user", []string{"user|city|Porto"}},
		{"I work at Fernhill Logistics as a planner, the office is by the canal.", "user", []string{"user|employer|Fernhill Logistics"}},
		{"Big news: I left Fernhill Logistics for Corvid Health, first day was today.", "user", []string{"user|employer|Corvid Health"}},
		{"Started at Meridian Studio today, new badge and everything.", "user", []string{"user|employer|Meridian Studio"}},
		{"I joined Quill Labs in the data team.", "user", []string{"user|employer|Quill Labs"}},
		{"I joined Maya for lunch.", "user", nil},
		{"I got promoted to senior analyst this afternoon!", "user", []string{"user|job_title|senior analyst|I got promoted to senior analyst this afternoon"}},
		{"I've been made up to duty manager, starting Monday.", "user", []string{"user|job_title|duty manager"}},
		{"Got bumped up to shift lead this week.", "user", []string{"user|job_title|shift lead"}},
		{"My job title is junior analyst, put that on the conference badge.", "user", []string{"user|job_title|junior analyst"}},
		{"My new role is head of analytics.", "user", []string{"user|job_title|head of analytics"}},
		{"New lease signed: we now pay 1,265 a month for the flat.", "user", []string{"user|rent|1,265 a month"}},
		{"The rent for the flat is 1,180 a month, due on the 3rd.", "user", []string{"user|rent|1,180 a month"}},
		{"Paid the rent, 1,150 euros as usual.", "user", []string{"user|rent|1,150 euros"}},
		{"Landlord put the rent up, it's 1,290 euros a month now.", "user", []string{"user|rent|1,290 euros a month"}},
		{"The rent went up to £980 per month in April.", "user", []string{"user|rent|£980 per month"}},
		{"My sister's rent is 900 euros.", "user", []string{"user|sister's rent|900 euros"}}, // hers, not the user's rent
		{"My brother Jonas's flat rent is 950 a month in Leeds.", "user", nil},               // his, not the user's rent
		{"New email address from today: sam@kowalski.dev", "user", []string{"user|email|sam@kowalski.dev"}},
		{"Send invoices to my email, sam.k@outlook.com.", "user", []string{"user|email|sam.k@outlook.com"}},
		{"The new address is 7 Quarry Lane, Bath.", "user", []string{"user|address|7 Quarry Lane"}},
		{"Email me at j.doe@example.org if the parcel is late.", "user", []string{"user|email|j.doe@example.org"}},
		{"My email address has changed, it's now tom@halestudio.example.", "user", []string{"user|email|tom@halestudio.example"}},
		{"My mobile number changed to 07700 900 555 last week.", "user", []string{"user|phone|07700 900 555"}},
		{"Our address has changed - it is now 12 Ferry Road, Leith.", "user", []string{"user|address|12 Ferry Road"}},
		{"My mood has changed, it's now better.", "user", nil},
		{"New phone number as of Monday: 0612 334 556", "user", []string{"user|phone|0612 334 556"}},
		{"Heads up, I'm on WET now.", "user", []string{"user|timezone|WET"}},
		{"My timezone is EST, so book calls after 9am my time.", "user", []string{"user|timezone|EST"}},
		{"I switched to Pacific Time when I moved.", "user", []string{"user|timezone|Pacific Time"}},
		{"I'm on Slack all day.", "user", nil},
		{"My girlfriend is Hana, remind me to book her a birthday dinner.", "user", []string{"user|partner|Hana"}},
		{"My partner is Idris now, we met at climbing.", "user", []string{"user|partner|Idris"}},
		{"I'm seeing Laura now.", "user", []string{"user|partner|Laura"}},
		{"My car is a grey Volkswagen Golf, the service is due in spring.", "user", []string{"user|car|grey Volkswagen Golf"}},
		{"Sold the Golf on Saturday and bought a Kia Niro, much better on the motorway.", "user", []string{"user|car|Kia Niro"}},
		{"Picked up the new Skoda Octavia from the dealer.", "user", []string{"user|car|Skoda Octavia"}},
		{"Sold the sofa and bought a Futon.", "user", nil},
		{"I'm on CET now.", "assistant", nil},
		// The salary, said by its noun or by the verb of earning it.
		{"My salary is 52,000 a year.", "user", []string{"user|salary|52,000 a year"}},
		{"Got the raise: I now make 58,500 a year.", "user", []string{"user|salary|58,500 a year"}},
		{"I earn £14.20 an hour at the garden centre.", "user", []string{"user|salary|£14.20 an hour"}},
		{"I'm paid 3,100 euros a month after tax.", "user", []string{"user|salary|3,100 euros a month"}},
		{"Finally got a pay rise to 61k!", "user", []string{"user|salary|61k|Finally got a pay rise to 61k"}},
		{"My take home pay is 2,300 a month.", "user", []string{"user|salary|2,300 a month"}},
		{"I'm on 41,500 a year at the council, before tax.", "user", []string{"user|salary|41,500 a year"}},
		{"I'm on 12 pounds a month with my network.", "user", nil},
		{"Started at the bakery; my hourly wage is 11.40 to begin with.", "user", []string{"user|salary|11.40"}},
		{"The owner liked my sourdough, so I get paid 12.75 an hour from this week.", "user", []string{"user|salary|12.75 an hour"}},
		{"I make 3 loaves a week.", "user", nil},
		{"We make 200 a month from the allotment stall.", "user", nil},
		// Not claims.
		{"I paid 40 for lunch.", "user", nil},
		{"It is 5 minutes away.", "user", nil},
		{"Since I was 17 or so.", "user", nil},
		{"Thankfully, my son's ok and that was a reminder that life is precious.", "user", nil},
		{"That's really cool, I like it!", "user", nil},
		{"My parking spot at the office is P-117.", "user", []string{"user|parking spot at the office|P-117"}},
	} {
		var ents []store.Entity
		for _, e := range capture.Extract(tc.sentence).Entities {
			ents = append(ents, store.Entity{Text: e.Text, Type: e.Type})
		}
		m := &store.Memory{ID: 3, Role: tc.role, Importance: 0.5, Entities: ents}
		var got []string
		for _, s := range capture.Sentences(tc.sentence) {
			for _, f := range KeyFacts(s, m) {
				g := f.Entity + "|" + f.Attribute + "|" + f.Value
				if f.Content != strings.TrimRight(s, ".") {
					g += "|" + f.Content
				}
				got = append(got, g)
			}
		}
		if diff := cmp.Diff(got, tc.want); diff != "" {
			t.Errorf("claims of %q (%s) mismatch (-got +want):\n%s", tc.sentence, tc.role, diff)
		}
	}
}

// FuzzKeyFacts: whatever the sentence, extraction does not panic, a claim
// with an attribute (but a preference, whose value is its stance) has a
// value that is in the sentence, and that value is
// never one the sentence denies.
func FuzzKeyFacts(f *testing.F) {
	for _, s := range []string{
		"Correction from finance: the Q3 budget is $2.1M, not $2.4M.",
		"The landlord raised the rent to 1,520 a month from June.",
		"I changed carriers, my phone number is now 555-0199.",
		"Please send the invoices to my home address, 12 Birch Lane, Harwick.",
		"The Kestrel launch slipped a week: it is now on May 19.",
		"Earlier you said your favourite colour is orange.",
		"The Q3 budget is not $2.4M.",
		"my , : ; - — to to from not",
		"I love hiking in the Alps.",
	} {
		f.Add(s, "user")
		f.Add(s, "assistant")
	}
	f.Fuzz(func(t *testing.T, content, role string) {
		if len(content) > 2000 {
			return
		}
		var ents []store.Entity
		for _, e := range capture.Extract(content).Entities {
			ents = append(ents, store.Entity{Text: e.Text, Type: e.Type})
		}
		m := &store.Memory{ID: 1, Role: role, Importance: 0.5, Entities: ents}
		for _, s := range capture.Sentences(content) {
			for _, k := range KeyFacts(s, m) {
				if k.Entity == "" {
					t.Errorf("claim without entity from %q: %+v", s, k)
				}
				if k.Attribute == "" || k.Value == "" || strings.HasPrefix(k.Attribute, "preference: ") {
					continue // a preference's value is its stance ("likes"), not a quote
				}
				if !strings.Contains(s, k.Value) {
					t.Errorf("value %q is not in %q", k.Value, s)
				}
				if negated(s, k.Value) {
					t.Errorf("value %q is denied in %q", k.Value, s)
				}
			}
		}
	})
}

// TestTimesAndAllergiesAreTheirOwnClass: a clock time is a time, never the
// amount of its hour ("10:30" is not 10), and an allergy is a health fact
// (the profile's allergy), never a preference. Entities are capture's.
func TestTimesAndAllergiesAreTheirOwnClass(t *testing.T) {
	for _, tc := range []struct {
		sentence, role string
		want           []string // entity|attribute|value|fact_type
	}{
		// Clock times.
		{"Bob moved the standup to 10:30 on Fridays.", "user", []string{"standup|time|10:30 on Fridays|attribute"}},
		{"The standup moved to 10:30 on Fridays.", "user", []string{"standup|time|10:30 on Fridays|attribute"}},
		{"The standup is at 10:30.", "user", []string{"standup|time|10:30|attribute"}},
		{"The retro is at 10 am.", "user", []string{"retro|time|10 am|attribute"}},
		{"The meeting was moved to 9:15.", "user", []string{"meeting|time|9:15|attribute"}},
		{"We moved the review to 3pm.", "user", []string{"review|time|3pm|attribute"}},
		// Amounts stay amounts.
		{"The budget is $4,000 for the quarter.", "user", []string{"budget|amount|$4,000|attribute"}},
		{"The proxy timeout is 30 seconds.", "user", []string{"proxy timeout|amount|30 seconds|attribute"}},
		{"The landlord raised the rent to 1,520 a month.", "user", []string{"user|rent|1,520 a month|attribute"}},
		// Allergies.
		{"I am allergic to peanuts.", "user", []string{"user|allergy|peanuts|attribute"}},
		{"I'm allergic to penicillin.", "user", []string{"user|allergy|penicillin|attribute"}},
		{"I am severely allergic to bee stings.", "user", []string{"user|allergy|bee stings|attribute"}},
		{"Alice is allergic to cats.", "user", []string{"Alice|allergy|cats|attribute"}},
		// a list is one fact each, as the profile files them
		{"I am allergic to peanuts and shellfish.", "user", []string{"user|allergy|peanuts|attribute", "user|allergy|shellfish|attribute"}},
		{"My son is severely allergic to bee stings.", "user", nil}, // the son's, not what the son is
		{"I'm allergic to it.", "user", nil},
		{"I am not allergic to peanuts.", "user", nil},
		// Preferences stay preferences.
		{"I love peanuts.", "user", []string{"user|preference: peanuts|likes|preference"}},
		{"Alice hates cats.", "user", []string{"Alice|preference: cats|dislikes|preference"}},
	} {
		var ents []store.Entity
		for _, e := range capture.Extract(tc.sentence).Entities {
			ents = append(ents, store.Entity{Text: e.Text, Type: e.Type})
		}
		m := &store.Memory{ID: 3, Role: tc.role, Importance: 0.5, Entities: ents}
		var got []string
		for _, f := range KeyFacts(tc.sentence, m) {
			got = append(got, f.Entity+"|"+f.Attribute+"|"+f.Value+"|"+f.FactType)
		}
		if diff := cmp.Diff(got, tc.want); diff != "" {
			t.Errorf("KeyFacts(%q) mismatch (-got +want):\n%s", tc.sentence, diff)
		}
	}
}
