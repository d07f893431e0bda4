package kinds

// Two words are siblings when they name different things of one narrow
// kind: a plumber and an electrician (skilled workers), swimming and
// football (sports), coffee and tea (beverages). An item that names the
// sibling of a question's word, but not the word, is about the other thing
// ("the plumber quoted 160" does not say what the electrician quoted).

// siblingReach is how many of a word's kinds, nearest first, count: the
// kinds further out are too wide to tell two things apart.
const siblingReach = 4

// narrowKind is the most words a shared kind may have: "skilled" (295)
// and "sport" (95) are narrow, "worker" (3,707) and "animal" are not.
const narrowKind = 300

// Siblings reports whether a and b, lowercase words, are different
// things of one narrow kind, neither a kind of the other (a dog and a
// beagle are not siblings).
func Siblings(a, b string) bool {
	if a == b || singular(a) == singular(b) {
		return false
	}
	if other, known := otherSpecies(a, b); known {
		return other // a dog and a cat, though WordNet's shared kinds are wide
	}
	ka, kb := nearKinds(a), nearKinds(b)
	if len(ka) == 0 || len(kb) == 0 || isKindOf(a, b) || isKindOf(b, a) {
		return false
	}
	if isKindOf(a, roleMark) && isKindOf(b, roleMark) {
		return true // two trades: a glazier is not a tree surgeon
	}
	breadth := countBreadth()
	for _, k := range ka {
		if k == roleMark || breadth[k] == 0 || breadth[k] > narrowKind {
			continue
		}
		for _, j := range kb {
			if j == k {
				return true
			}
		}
	}
	return false
}

// nearKinds is w's first siblingReach kinds.
func nearKinds(w string) []string {
	load()
	k, ok := lookup(w)
	if !ok {
		if k, ok = lookup(singular(w)); !ok {
			return nil
		}
	}
	var out []string
	for kind := range k.all() {
		if out = append(out, kind); len(out) == siblingReach {
			break
		}
	}
	return out
}

// isKindOf reports whether kind is one of w's kinds, however far out.
func isKindOf(w, kind string) bool {
	k, ok := lookup(w)
	if !ok {
		k, _ = lookup(singular(w))
	}
	for x := range k.all() {
		if x == kind || x == singular(kind) {
			return true
		}
	}
	return false
}
