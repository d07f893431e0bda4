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
	if sa < 0 || sb < 0 {
		return false, false
	}
	return sa != sb, true
}
