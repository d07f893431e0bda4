package auth

import (
	"sync"
	"testing"
)

// TestReplaceUnderLookups swaps the tokens while requests look them up (run
// with -race): each lookup sees the old set or the new, whole, and once the
// new set is seen the old one never comes back.
func TestReplaceUnderLookups(t *testing.T) {
	old, err := New([]Rule{{Name: "old", SHA256: Hash("dm_old"), Agents: []string{"*"}}})
	if err != nil {
		t.Fatal(err)
	}
	next, err := New([]Rule{{Name: "new", SHA256: Hash("dm_new"), Agents: []string{"*"}}})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			for range 1000 {
				_, errNew := old.Lookup("dm_new")
				_, errOld := old.Lookup("dm_old")
				if errNew == nil && errOld == nil {
					t.Error("the old token known after the new one was")
					return
				}
			}
		})
	}
	old.Replace(next)
	wg.Wait()
	if g, err := old.Lookup("dm_new"); err != nil || g.Name != "new" {
		t.Errorf("after Replace: %v, %v; want the new token's grant", g, err)
	}
	if _, err := old.Lookup("dm_old"); err != ErrBadToken {
		t.Errorf("the old token after Replace: %v, want ErrBadToken", err)
	}
}
