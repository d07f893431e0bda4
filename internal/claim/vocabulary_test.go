package claim

import "testing"

func TestKey(t *testing.T) {
	tests := []struct {
		attribute string
		key       string
		single    bool
	}{
		{"phone", "phone", true},
		{"phone number", "phone", true},
		{"Phone Number", "phone", true},
		{"new number", "phone", true},
		{"my number", "phone", true},
		{"my new mobile number", "phone", true},
		{"mobile", "phone", true},
		{"cell", "phone", true},
		{"cell phone", "phone", true},
		{"cellphone", "phone", true},
		{"telephone number", "phone", true},
		{"phone numbers", "phone", true},
		{"e-mail", "email", true},
		{"updated email address", "email", true},
		{"home address", "address", true},
		{"new address", "address", true},
		{"place", "address", true},
		{"postal address", "address", true},
		{"employer", "employer", true},
		{"company", "employer", true},
		{"works at", "employer", true},
		{"current employer", "employer", true},
		{"job", "job_title", true},
		{"title", "job_title", true},
		{"job title", "job_title", true},
		{"job_title", "job_title", true},
		{"role", "job_title", true},
		{"position", "job_title", true},
		{"occupation", "job_title", true},
		{"boss", "manager", true},
		{"line manager", "manager", true},
		{"rent", "rent", true},
		{"salary", "salary", true},
		{"pay", "salary", true},
		{"wages", "salary", true},
		{"annual salary", "salary", true},
		{"take-home pay", "salary", true},
		{"monthly rent", "rent", true},
		{"partner", "partner", true},
		{"girlfriend", "partner", true},
		{"wife", "partner", true},
		{"husband", "partner", true},
		{"car", "car", true},
		{"old car", "car", true},
		{"vehicle", "car", true},
		{"city", "city", true},
		{"lives in", "city", true},
		{"time zone", "timezone", true},
		{"time-zone", "timezone", true},
		{"date of birth", "birthday", true},
		{"blood group", "blood_type", true},
		{"gp", "doctor", true},
		// Providers hold one value each: a new one replaces the old.
		{"GP surgery", "doctor", true},
		{"family doctor", "doctor", true},
		{"dentist", "dentist", true},
		{"new dentist", "dentist", true},
		{"dental practice", "dentist", true},
		{"vet", "vet", true},
		{"vets", "vet", true},
		{"veterinary practice", "vet", true},
		{"optometrist", "optician", true},
		{"physiotherapist", "physio", true},
		{"chemist", "pharmacy", true},
		{"plumber", "plumber", true},
		{"electrician", "electrician", true},
		{"car mechanic", "mechanic", true},
		{"dog walker", "dog_walker", true},
		{"dog-walker", "dog_walker", true},
		{"barber", "hairdresser", true},
		{"lawyer", "solicitor", true},
		{"bank", "bank", true},
		{"building society", "bank", true},
		{"insurance company", "insurer", true},
		{"energy supplier", "energy_supplier", true},
		{"gas supplier", "energy_supplier", true},
		{"broadband provider", "broadband", true},
		{"internet provider", "broadband", true},
		{"ISP", "broadband", true},
		{"mobile network", "mobile_network", true},
		{"phone provider", "mobile_network", true},
		{"gym", "gym", true},
		{"commute", "commute", true},
		{"journey to work", "commute", true},
		// Words that only sometimes name a provider are not its key.
		{"surgery", "surgery", true},
		{"garage", "garage", true},
		{"network", "network", true},
		{"energy", "energy", true},
		{"interest", "interest", true},
		{"Maya's birthday", "maya's birthday", true}, // someone else's: not the speaker's key
		{"sister's birthday", "sister's birthday", true},
		{"allergy", "allergy", false},
		{"allergies", "allergy", false},
		{"allergic to", "allergy", false},
		{"medications", "medication", false},
		{"meds", "medication", false},
		{"kids", "child", false},
		{"children", "child", false},
		{"daughter", "child", false},
		{"mum", "parent", false},
		{"sister", "sibling", false},
		{"coworker", "colleague", false},
		{"co-worker", "colleague", false},
		{"dog", "pet", false},
		{"pets", "pet", false},
		{"routine", "routine", false},
		{"hobby", "hobby", false},
		{"hobbies", "hobby", false},
		{"pastimes", "hobby", false},
		{"languages", "language", false},
		{"cats", "pet", false},
		{"my kids", "child", false},
		{"standing instruction", "rule", false},
		{"work schedule", "work_schedule", false},
		{"pronouns", "pronouns", false},
		{"diet", "diet", true},
		// Not a canonical key: normalised, keyed as facts always were.
		{"Favorite Colour", "favourite colour", true},
		{"  Wi-Fi   password ", "wi-fi password", true},
		{"the budget", "budget", true},
		{"new york office", "new york office", true},
		{"current project", "current project", true},
		{"amount", "amount", true},
	}
	for _, tt := range tests {
		key, single := Key(tt.attribute)
		if key != tt.key || single != tt.single {
			t.Errorf("Key(%q) = %q, %v; want %q, %v", tt.attribute, key, single, tt.key, tt.single)
		}
	}
}

// TestMany: the keys that add a value beside the others, by any name of
// theirs; every other attribute, canonical or not, holds one value.
func TestMany(t *testing.T) {
	for _, tt := range []struct {
		attribute string
		many      bool
	}{
		{"allergy", true}, {"allergies", true}, {"kids", true}, {"cats", true}, {"languages", true},
		{"hobbies", true}, {"medications", true}, {"dentist", false}, {"GP", false}, {"commute", false},
		{"bank", false}, {"phone number", false}, {"favourite colour", false}, {"wifi password", false}, {"", false},
	} {
		if got := Many(tt.attribute); got != tt.many {
			t.Errorf("Many(%q) = %v, want %v", tt.attribute, got, tt.many)
		}
	}
}

// Every canonical key names itself, no phrase names two keys, and
// singleKeys holds only canonical keys.
func TestKeyCanonicalIsFixedPoint(t *testing.T) {
	seen := map[string]string{}
	for key, phrases := range keySynonyms {
		for _, p := range phrases {
			if other, dup := seen[p]; dup {
				t.Errorf("phrase %q names both %q and %q", p, other, key)
			}
			seen[p] = key
		}
	}
	for key := range keySynonyms {
		if got, _ := Key(key); got != key {
			t.Errorf("Key(%q) = %q, want itself", key, got)
		}
	}
	for key := range singleKeys {
		if _, ok := keySynonyms[key]; !ok {
			t.Errorf("single key %q is not a canonical key", key)
		}
	}
}

// TestCategoriesKeysAreCanonical: every key a category offers is a
// canonical key, which names itself, so a line from a model and one from
// the rules key the same claim alike; and every category ranks in order.
func TestCategoriesKeysAreCanonical(t *testing.T) {
	for i, c := range Categories {
		if CategoryRank(c.Name) != i || !IsCategory(c.Name) {
			t.Errorf("category %q ranks %d, want %d", c.Name, CategoryRank(c.Name), i)
		}
		for _, k := range c.Keys {
			if got, _ := Key(k); got != k || !IsKey(k) {
				t.Errorf("Key(%q) = %q; a category's key must be canonical", k, got)
			}
		}
	}
	if IsCategory("hobbies") || CategoryRank("hobbies") != len(Categories) {
		t.Errorf("an unknown category is a category")
	}
}
