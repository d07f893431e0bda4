package extract

import "testing"

// TestRestates: a correction that states a claim again repeats it; one
// that changes or ends its value, or an older text stating no claim, does
// not.
func TestRestates(t *testing.T) {
	cases := []struct {
		newer, older string
		want         bool
	}{
		{"Since I'm lactose intolerant I'm trying coconut milk instead.", "I'm lactose intolerant, so I'll need the dairy-free recipe!", true},
		{"As I'm vegetarian, I'll have the halloumi burger instead.", "I'm vegetarian, so no meat for me at the barbecue.", true},
		{"I'm vegan now, so oat milk instead.", "I'm vegetarian, so no meat for me at the barbecue.", false},
		{"I no longer eat meat, the lentil stew instead.", "I eat meat most days.", false},
		{"Actually, I work at Atkins instead.", "I work at Arup as a structural engineer.", false},
		{"I work at Arup, so the train instead of the car.", "I work at Arup.", true},
		{"Actually, make it Thursday instead.", "Book the roofer for Tuesday.", false},
	}
	for _, c := range cases {
		if got := Restates(c.newer, c.older, "user"); got != c.want {
			t.Errorf("Restates(%q, %q) = %v, want %v\n  newer %v\n  older %v", c.newer, c.older, got, c.want,
				statedClaims(c.newer, "user"), statedClaims(c.older, "user"))
		}
	}
}
