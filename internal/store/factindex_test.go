package store

import (
	"strings"
	"testing"
)

// TestClaimHistorySearchesTheClaimIndex: reading a claim's history, which
// every fact and profile line put does, searches the index on (subject,
// key) of its table. The lookups compare subjects case-blind and the facts
// index compared them case-sensitively, so SQLite could not use it: every
// fact put scanned all the current facts.
func TestClaimHistorySearchesTheClaimIndex(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	for tbl, want := range map[table]string{
		factsTable: "SEARCH facts USING INDEX facts_entity (entity=? AND attribute=?)",
		linesTable: "SEARCH profile_lines USING INDEX profile_lines_claim (subject=? AND key=?)",
	} {
		plan := queryPlan(t, a, claimRowsSQL(tbl), "Maya", "phone")
		if len(plan) == 0 || !strings.HasPrefix(plan[0], want) {
			t.Errorf("%s: the plan does not search its claim index by subject and key:\n%q", tbl.name, plan)
		}
	}
}
