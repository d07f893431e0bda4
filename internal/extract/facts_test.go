package extract

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestStatedValues: what recall retires today's stale values with is the
// one-valued claims a memory states, keyed as the night keys them; claims
// of attributes of several values are not among them.
func TestStatedValues(t *testing.T) {
	got := StatedValues("I got a new phone, my mobile is 07700 900 462. My daughter is Maya. We moved to Bristol.", "user")
	var keys []string
	for _, f := range got {
		keys = append(keys, f.Entity+"|"+f.Attribute+"|"+f.Value)
	}
	want := []string{"user|phone|07700 900 462", "user|city|Bristol"}
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Errorf("StatedValues = %q, want %q", keys, want)
	}
	// What the profile rules read as the speaker's one-valued claims counts
	// too: a title and a partner no fact shape states.
	got = StatedValues("I'm a junior designer at Pixelworks, mostly doing icons. My girlfriend Hana loves sushi.", "user")
	keys = keys[:0]
	for _, f := range got {
		keys = append(keys, f.Entity+"|"+f.Attribute+"|"+f.Value)
	}
	if want := []string{"user|job_title|junior designer", "user|employer|Pixelworks", "user|partner|Hana"}; strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Errorf("StatedValues = %q, want %q", keys, want)
	}
	if got := StatedValues("I'm on CET now.", "assistant"); len(got) != 0 {
		t.Errorf("an agent's own claims are not the user's: %+v", got)
	}
}

func TestKeyFacts(t *testing.T) {
	said := time.Date(2023, 5, 8, 14, 0, 0, 0, time.UTC)
	alice := []store.Entity{{Text: "Alice", Type: "name"}}
	for _, tc := range []struct {
		sentence string
		role     string
		entities []store.Entity
		want     []string // entity|attribute|value|fact_type
	}{
		{"Alice's role is CTO.", "user", alice, []string{"Alice|job_title|CTO|attribute"}},
		{"Alice is the CTO now.", "user", alice, []string{"Alice|job_title|CTO|attribute"}},
		{"This is the best day.", "user", nil, nil},
		{"I prefer oat milk, never cow's milk.", "user", nil, []string{"user|preference: oat milk|prefers|preference"}},
		{"I love hiking in the Alps.", "caroline", nil, []string{"Caroline|preference: hiking in the alps|likes|preference"}},
		{"Alice hates tea", "user", alice, []string{"Alice|preference: tea|dislikes|preference"}},
		{"My favourite colour is green.", "user", nil, []string{"user|favourite colour|green|preference"}},
		{"We decided to ship on Friday.", "user", nil, []string{"we|||decision"}},
		{"Alice works at Mistral in Paris.", "user", alice, []string{"Alice|employer|Mistral in Paris|relation"}},
		{"I never drink coffee after 4pm.", "user", nil, []string{"user||never drink coffee after 4pm|preference"}},
		{"The budget is $4,000 for the quarter.", "user", []store.Entity{{Text: "$4,000", Type: "money"}}, []string{"budget|amount|$4,000|attribute"}},
		{"The launch is on 2 April.", "user", []store.Entity{{Text: "2 April", Type: "date"}}, []string{"launch|date|2 April|event"}},
		{"Is Alice the CTO?", "user", alice, nil},
		// A preference's object must name something on its own.
		{"I love it!", "melanie", nil, nil},
		{"I'd love to, but I'm busy.", "melanie", nil, nil},
		{"I love how you use it to tell your stories.", "melanie", nil, nil},
		{"I love that you chose pottery for your art.", "caroline", nil, nil},
		{"I love them so much.", "user", nil, nil},
		{"I like to paint on Sundays.", "user", nil, []string{"user|preference: to paint on sundays|likes|preference"}},
		{"I like that band.", "user", nil, nil}, // which band? said before
		// A relative date is resolved against when it was said (said is
		// Monday 8 May 2023); "on Friday" may be ahead, so it stays.
		{"The interview was yesterday.", "user", []store.Entity{{Text: "yesterday", Type: "date"}}, []string{"interview|date|7 May 2023|event"}},
		{"The interview is tomorrow.", "user", []store.Entity{{Text: "tomorrow", Type: "date"}}, []string{"interview|date|9 May 2023|event"}},
		{"The concert was last week.", "user", []store.Entity{{Text: "last week", Type: "date"}}, []string{"concert|date|1 May 2023 to 7 May 2023|event"}},
		{"The trip was last year.", "user", []store.Entity{{Text: "last year", Type: "date"}}, []string{"trip|date|2022|event"}},
		{"The meeting is on Friday.", "user", []store.Entity{{Text: "Friday", Type: "date"}}, []string{"meeting|date|Friday|event"}},
		{"It was last week.", "user", []store.Entity{{Text: "last week", Type: "date"}}, nil},
		{"ok thanks", "user", nil, nil},
		// "Our" things of the vocabulary are the speaker's, as in the profile;
		// the rest stay the group's.
		{"Our vet is Dr Ames.", "user", nil, []string{"user|vet|Dr Ames|attribute"}},
		{"Our new vet is Riverside.", "user", nil, []string{"user|vet|Riverside|attribute"}},
		{"Our plumber is Dave Rees.", "user", nil, []string{"user|plumber|Dave Rees|attribute"}},
		{"Our garden is a mess.", "user", nil, []string{"we|garden|a mess|attribute"}},
		{"I'm allergic to latex too.", "user", nil, []string{"user|allergy|latex|attribute"}},
		{"I'm allergic to kiwi and get hives from it.", "user", nil, []string{"user|allergy|kiwi|attribute"}},
		// a list of allergens is one fact each, as the profile files them
		{"I'm allergic to horses and guinea pigs.", "user", nil, []string{"user|allergy|horses|attribute", "user|allergy|guinea pigs|attribute"}},
		{"I'm allergic to kiwi, mango and latex.", "user", nil, []string{"user|allergy|kiwi|attribute", "user|allergy|mango|attribute", "user|allergy|latex|attribute"}},
		{"I'm allergic to aspirin, so I carry a card and a note.", "user", nil, []string{"user|allergy|aspirin|attribute"}},
		// a day of the calendar is a date, never the amount its number is
		{"The next bin collection is 14 November.", "user", []store.Entity{{Text: "14 November", Type: "date"}}, []string{"next bin collection|date|14 November|event"}},
		{"The boiler service is 3 March.", "user", []store.Entity{{Text: "3 March", Type: "date"}}, []string{"boiler service|date|3 March|event"}},
		{"The fee is 40 a month.", "user", nil, []string{"fee|amount|40 a month|attribute"}},
		// a clause after the employer is no part of its name
		{"Since I work at Siemens I'll take the early train.", "user", nil, []string{"user|employer|Siemens|attribute"}},
		// No shape, but the profile rules read one-valued claims: facts too.
		{"We switched dentists to Dr Hale at Brookside.", "user", nil, []string{"user|dentist|Dr Hale|attribute"}},
		{"I take the tram to work now.", "user", nil, []string{"user|commute|tram|attribute"}},
		{"I bank with Nationwide.", "caroline", nil, []string{"Caroline|bank|Nationwide|attribute"}},
		{"We have two cats, Mochi and Pepper.", "user", nil, nil}, // many values: the profile's lines
		{"We lost Pepper last week.", "user", nil, nil},
		{"I take the tram to work now.", "assistant", nil, nil},
	} {
		m := &store.Memory{ID: 7, Role: tc.role, Importance: 0.5, Entities: tc.entities, Timestamp: said}
		var got []string
		for _, f := range KeyFacts(tc.sentence, m) {
			got = append(got, f.Entity+"|"+f.Attribute+"|"+f.Value+"|"+f.FactType)
		}
		if diff := cmp.Diff(got, tc.want); diff != "" {
			t.Errorf("KeyFacts(%q) mismatch (-got +want):\n%s", tc.sentence, diff)
		}
	}
}
