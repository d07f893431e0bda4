package recall

import (
	"slices"
	"strings"
)

// Places are no people: a capitalised word the agent has never seen, read
// by capture as a name, stands as a place after "at", "in" or "near" ("my
// teeth cleaned at Harbourside", "the jabs at Westgate Animal Hospital",
// "a week in Matera"). Such a name keeps no memory from a question asked of
// the user or of a role ("who's my dentist?"): it is where, not whom.

// placePrepositions are the words before a name that place it.
var placePrepositions = []string{"at", "in", "near"}

// unplaced are names but those s holds only as a place (above): each
// occurrence of the name follows a place preposition and is no possessive
// ("in Sam's car" is Sam's).
func unplaced(names []string, s string) []string {
	if len(names) == 0 {
		return names
	}
	fs := strings.Fields(s)
	return slices.DeleteFunc(slices.Clone(names), func(n string) bool { return onlyPlaced(fs, strings.Fields(n)) })
}

// onlyPlaced reports whether every occurrence of the name (its words nw)
// in fs follows a place preposition, and there is one.
func onlyPlaced(fs, nw []string) bool {
	if len(nw) == 0 {
		return false
	}
	seen := false
	for i := 0; i+len(nw) <= len(fs); i++ {
		if !sameWords(fs[i:i+len(nw)], nw) {
			continue
		}
		last := fs[i+len(nw)-1]
		if _, poss := cutPossessive(strings.TrimRight(last, ",;:.!?")); poss {
			return false
		}
		if i == 0 || !slices.Contains(placePrepositions, strings.ToLower(fs[i-1])) {
			return false
		}
		seen = true
	}
	return seen
}

// sameWords reports whether fs, bare of punctuation, are the words nw.
func sameWords(fs, nw []string) bool {
	for j := range nw {
		if bare(fs[j]) != bare(nw[j]) {
			return false
		}
	}
	return true
}
