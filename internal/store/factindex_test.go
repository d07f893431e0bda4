package store

import (
	"strings"
	"testing"
)

// TestCurrentFactsSearchTheEntityIndex: looking up an entity's current
// facts of one attribute, and superseding them, search the index on
// (entity, attribute). The lookups compare entities case-blind and the
// index compared them case-sensitively, so SQLite could not use it: every
// fact put scanned all the current facts.
func TestCurrentFactsSearchTheEntityIndex(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	for name, plan := range map[string][]string{
		"current facts": queryPlan(t, a, currentFactsSQL, "Maya", "phone"),
		"supersede":     queryPlan(t, a, supersedeFactsSQL, 1, 2, "Maya", "phone", 2),
	} {
		if len(plan) != 1 || !strings.HasPrefix(plan[0], "SEARCH facts USING INDEX facts_entity (entity=? AND attribute=?)") {
			t.Errorf("%s: the plan does not search facts_entity by entity and attribute:\n%q", name, plan)
		}
	}
}
