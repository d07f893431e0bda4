package kinds

import (
	"strings"
	"testing"
)

// TestVersion: the lexicon's version is stable, and any change to a list,
// or where one list ends, names another.
func TestVersion(t *testing.T) {
	if v := Version(); len(v) != 16 || v != versionOf(revision, informalText, worldText, strings.Join(drugStems, " "), strings.Join(roleKinds, " ")) {
		t.Errorf("Version() = %q: not 16 hex digits of the lists", v)
	}
	base := versionOf("1", "skoda car", "statin")
	for _, other := range [][]string{
		{"2", "skoda car", "statin"},
		{"1", "skoda car\\ncupra car", "statin"},
		{"1", "skoda ca", "rstatin"},
	} {
		if versionOf(other...) == base {
			t.Errorf("versionOf(%q) = versionOf of the base lists", other)
		}
	}
}
