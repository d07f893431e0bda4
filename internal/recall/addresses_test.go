package recall

import "testing"

// TestAddresses: an item addresses a question by a shared word (its stem),
// a related word of the lexicon or a kind of thing it names, and by nothing
// else.
func TestAddresses(t *testing.T) {
	tests := []struct {
		question, text string
		want           bool
	}{
		{"what am I allergic to?", "I am allergic to penicillin", true},
		{"what am I allergic to?", "We decided to keep the memory store on SQLite", false},
		{"is there any medicine I should avoid?", "I am allergic to penicillin", true},          // penicillin is a medicine
		{"what does the dog eat?", "Rex, our poodle, gets two scoops at seven", true},           // a poodle is a dog
		{"which car should I take?", "The automobile is booked in for its MOT on Friday", true}, // related: car, automobile
		{"where can I park?", "My parking spot at work is P-117", true},                         // stems
		{"When is Bob's birthday?", "I am allergic to penicillin", false},
		{"Is there any medicine I should avoid?", "Blood type: O negative, for the emergency card", false},
		{"what is it?", "I am allergic to penicillin", false}, // no word worth matching
		{"", "anything", false},
	}
	for _, tc := range tests {
		if got := Addresses(tc.question, tc.text); got != tc.want {
			t.Errorf("Addresses(%q, %q) = %v, want %v", tc.question, tc.text, got, tc.want)
		}
	}
}
