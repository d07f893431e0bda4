package recall

import (
	"slices"
	"strings"
)

// Places are no people: a capitalised word the agent has never seen, read
// by capture as a name, stands as a place after "at", "in" or "near" ("my
// teeth cleaned at Harbourside", "the jabs at Westgate Animal Hospital",
// "a week in Matera"). Such a name keeps no memory from a question asked of
// the user or of a role ("who's my dentist?"): it is where, not whom. So is
// a name the text holds only as a means, after "use", "via" or "through"
// ("always use Wise", "booked via Trainline"): what, not whom.

// placePrepositions are the words before a name that place it.
var placePrepositions = []string{"at", "in", "near"}

// meansWords are the words before a name that make it a means: a service,
// a shop, an app. Nobody is "used" in everyday speech.
var meansWords = []string{"use", "uses", "used", "using", "via", "through"}

// unplaced are names but those s holds only as a place (above): each
// occurrence of the name follows a place preposition and is no possessive
// ("in Sam's car" is Sam's), or lies within such a place ("Westgate" of
// "at Westgate Animal Hospital"). It counts substrings, allocating nothing
// when no name is placed: it runs for every candidate a person stage reads.
func unplaced(names []string, s string) []string {
	var places []string
	for _, n := range names {
		if onlyPlaced(s, n) {
			places = append(places, n)
		}
	}
	if len(places) == 0 {
		return names
	}
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return withinPlaces(s, n, places) })
}

// withinPlaces reports whether every occurrence of n in s lies within one
// of places (n being one of them).
func withinPlaces(s, n string, places []string) bool {
	within := 0
	for _, p := range places {
		if p == n {
			return true
		}
		if strings.Contains(p, n) {
			within += strings.Count(s, p) * strings.Count(p, n)
		}
	}
	return within > 0 && within == strings.Count(s, n)
}

// onlyPlaced reports whether s holds the name n, and each time after a
// place preposition or a means word and not as a possessive. A longer word holding n
// ("Sam" in "Samuel") counts as an occurrence not placed, which keeps n.
func onlyPlaced(s, n string) bool {
	all := strings.Count(s, n)
	if n == "" || all == 0 || strings.Contains(s, n+"'s") || strings.Contains(s, n+"’s") {
		return false
	}
	placed := 0
	for _, p := range placePrepositions {
		placed += strings.Count(s, " "+p+" "+n)
	}
	for _, p := range meansWords {
		placed += strings.Count(s, " "+p+" "+n)
	}
	return placed == all
}

// askedPlaces are the names the question puts after a place preposition
// ("which hotel are we staying at in Ghent?": ghent), lowercased.
func askedPlaces(q string) []string {
	var out []string
	eachName(q, func(name, prev string) {
		if slices.Contains(placePrepositions, prev) && !calendarWord(name) {
			out = append(out, name)
		}
	})
	return out
}

// anotherPlace reports whether s, asked of the user's own at a named place,
// holds none of the places asked and places something at another name:
// "we're staying at the Hotel Adornes in Bruges" does not say which hotel
// in Ghent.
func (r *ranker) anotherPlace(s string) bool {
	if !r.self {
		return false
	}
	asked := askedPlaces(r.q.Text)
	if len(asked) == 0 || namesAny(s, asked) {
		return false
	}
	return len(askedPlaces("_ "+s)) > 0 // eachName skips a text's first word
}
