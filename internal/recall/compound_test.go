package recall

import (
	"slices"
	"testing"
)

// TestOtherKind: a text holding the question's noun only as another thing
// of its kind ("a spin class" asked of "the yoga class") does not hold the
// noun; the noun itself, the same thing, a related word or a kind of the
// modifier ("mobile", "dog") does; a question without a compound of two
// nouns (an adjective, a time, no determiner) reads no text so.
func TestOtherKind(t *testing.T) {
	for _, tc := range []struct {
		ask, text string
		other     bool
	}{
		{"Should I sign up for the 8am yoga class this Saturday?", "The gym has added a 6:30am spin class on weekdays.", true},
		{"Should I sign up for the 8am yoga class this Saturday?", "Loved the class at the yoga studio.", false},
		{"Should I sign up for the 8am yoga class this Saturday?", "Class starts at 8 on the dot.", false},
		{"How much is my phone bill?", "The electricity bill went up to 88 a month.", true},
		{"How much is my phone bill?", "The mobile bill is 14 a month now.", false},
		{"When is my dentist appointment?", "Booked the vet appointment for Thursday at 4.", true},
		{"When is my dentist appointment?", "appointment: Booked the vet appointment for Thursday at 4.", true},
		{"When is my dentist appointment?", "The appointment is on Monday.", false},
		{"How much did the car repair cost?", "The boiler repair came to 180.", true},
		{"How much did the car repair cost?", "The Fiesta repair, 340 for the car.", false},
		{"When does the projector warranty end?", "The soundbar's warranty runs out at the end of May.", true},
		{"When does the projector warranty end?", "The projector's warranty runs out in May.", false},
		{"When does the projector warranty end?", "My sister's warranty claim came through.", false}, // a person's: the person filter's
		{"How much is my phone bill?", "The mobile's bill is 14 a month now.", false},
		{"Who won the big game?", "The final game went to penalties.", false},             // "big" is no noun
		{"Where do I buy dog food?", "The cat food is on the top shelf.", false},          // no determiner: no compound
		{"When does my phone insurance renew?", "Boiler cover renews on the 12th.", true}, // a member of the head's topic
		{"When does my phone insurance renew?", "The phone cover renews on the 12th.", false},
		// a member named, when the modifier's topic says which members are meant
		{"How much does our music streaming cost?", "Netflix went up to 12.99 a month.", true},
		{"How much does our music streaming cost?", "The Spotify family plan is 19.99.", false},
		{"How much does our music streaming cost?", "Netflix streaming is 12.99 now.", false}, // the noun itself
		{"How much is our streaming bill?", "Netflix went up to 12.99 a month.", false},       // no topic says which
		// a part of the week says which by its days
		{"What's my weekend job now?", "I do Saturday mornings at the farm shop as a second job.", false},
		{"What's my weekend job now?", "My day job is at the council.", true},
	} {
		r := &ranker{words: askedWords(tc.ask)}
		r.compounds = compoundsOf(tc.ask, r.words)
		have := r.stems(tc.text)
		other := false
		for _, c := range r.compounds {
			if !slices.ContainsFunc(c.heads, have.has) && slices.ContainsFunc(c.heads, r.withAliases(stemsOfWords(r.analysed(tc.text).words, r.stem)).has) {
				other = true
			}
		}
		if other != tc.other {
			t.Errorf("%q / %q: other kind %v, want %v (compounds %v)", tc.ask, tc.text, other, tc.other, r.compounds)
		}
	}
}

// TestCompoundStopsAtItsVerb: the noun phrase a question's verb follows
// ("how much does my pony cost?", "did the yoga class move?", "my van
// costs me") ends before the verb, which is no noun of it, though WordNet
// knows "cost" and "move" as nouns.
func TestCompoundStopsAtItsVerb(t *testing.T) {
	for _, tc := range []struct {
		ask  string
		want []string // each compound as mod+" "+head
	}{
		{"How much does my pony cost?", nil},
		{"How much does my pony cost me a week?", nil},
		{"Did the yoga class move?", []string{"yoga class"}},
		{"How much does our music streaming cost?", []string{"music streaming"}},
		{"What does the van insurance cover?", []string{"van insurance"}},
		{"How much is my phone bill?", []string{"phone bill"}},
		{"When does the car service start?", []string{"car service"}},
	} {
		var got []string
		for _, c := range compoundsOf(tc.ask, askedWords(tc.ask)) {
			got = append(got, c.modWord+" "+c.headWord)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("compoundsOf(%q) = %q, want %q", tc.ask, got, tc.want)
		}
	}
}
