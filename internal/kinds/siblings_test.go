package kinds

import "testing"

func TestSiblings(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"electrician", "plumber", true},
		{"swimming", "football", true},
		{"coffee", "tea", true},
		{"car", "truck", true},
		{"dentist", "doctor", true},
		{"glazier", "surgeon", true}, // two trades
		{"gp", "doctor", false},      // a GP is a doctor
		{"dog", "beagle", false},     // a kind and its member
		{"dog", "dogs", false},
		{"dog", "cat", true}, // two pets' species (species.go), though WordNet's shared kinds are wide
		{"kitten", "puppy", true},
		{"beagle", "cat", true},          // a breed is its species
		{"chinchilla", "terrapin", true}, // a pet and an animal the list does not hold
		{"chinchilla", "dog", true},
		{"rodent", "hamster", false}, // a kind that takes in the pet
		{"animal", "cat", false},
		{"mammal", "dog", false},
		{"puppy", "dog", false}, // one species
		{"pony", "horse", false},
		{"hens", "chickens", false},
		{"dog", "vaccination", false},
		{"passport", "monday", false},
		{"fee", "unknownword", false},
	} {
		if got := Siblings(c.a, c.b); got != c.want {
			t.Errorf("Siblings(%q, %q) = %v, want %v; kinds %q / %q", c.a, c.b, got, c.want, nearKinds(c.a), nearKinds(c.b))
		}
	}
}
