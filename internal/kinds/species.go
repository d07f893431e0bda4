package kinds

import "strings"

// petSpecies are the animals kept as pets, each a group of the words for
// one species (a puppy is a dog, a pony a horse). WordNet files a dog and a
// cat under kinds too wide to tell apart (carnivore, mammal), yet to the
// person who keeps them they are plainly two things: the cat's
// vaccinations do not say what the dog's cost.
var petSpecies = [][]string{
	strings.Fields("dog puppy pup"), strings.Fields("cat kitten moggy moggie"), strings.Fields("rabbit bunny"),
	strings.Fields("hamster"), strings.Fields("gerbil"), strings.Fields("guinea"), strings.Fields("mouse"),
	strings.Fields("rat"), strings.Fields("ferret"), strings.Fields("budgie budgerigar parakeet"),
	strings.Fields("parrot cockatiel"), strings.Fields("canary"), strings.Fields("fish goldfish"),
	strings.Fields("tortoise terrapin turtle"), strings.Fields("lizard gecko iguana"), strings.Fields("snake"),
	strings.Fields("horse pony"), strings.Fields("hen chicken"), strings.Fields("duck"),
}

// species is the index in petSpecies of w's species, by its word or a
// kind it is (a beagle is a dog), or -1.
func species(w string) int {
	w = singular(w)
	for i, group := range petSpecies {
		for _, s := range group {
			if w == s {
				return i
			}
		}
	}
	for i, group := range petSpecies {
		if isKindOf(w, group[0]) {
			return i
		}
	}
	return -1
}

// otherSpecies reports whether a and b both name pets and of two species;
// known says whether both name pets at all.
func otherSpecies(a, b string) (other, known bool) {
	sa, sb := species(a), species(b)
	if sa >= 0 && sb < 0 {
		a, b, sa, sb = b, a, sb, sa
	}
	switch {
	case sa >= 0:
		return sa != sb, true
	case sb >= 0 && animalNotPet(a, b):
		// a pet and an animal the list does not hold (a chinchilla, an
		// alpaca): another species, unless one is a kind of the other
		return !isKindOf(a, b) && !isKindOf(b, a), true
	}
	return false, false
}

// animalNotPet reports whether a, which names no pet of the list, is an
// animal by WordNet of one species, a kind of few words or none (not
// "mammal" or "rodent", which take in pets), and no kind of the pet b.
func animalNotPet(a, b string) bool {
	a = singular(a)
	return isKindOf(a, "animal") && countBreadth()[a] <= speciesBreadth && !isKindOf(b, a)
}

// speciesBreadth is the most words a species may have as its kinds (its
// breeds and varieties); a wider kind is a group of species.
const speciesBreadth = 10
