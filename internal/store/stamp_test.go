package store

import "testing"

// TestFileStampChangesWithACommit: a commit changes the agent's stamp; a
// bad or missing agent has none.
func TestFileStampChangesWithACommit(t *testing.T) {
	s := openTest(t, Options{Dir: t.TempDir()})
	a := acquire(t, s, "main")
	if _, err := a.Insert(t.Context(), []Memory{mem("the boiler was serviced", "")}); err != nil {
		t.Fatal(err)
	}
	before, err := s.FileStamp("main")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Insert(t.Context(), []Memory{mem("the gutters were cleared", "")}); err != nil {
		t.Fatal(err)
	}
	if after, err := s.FileStamp("main"); err != nil || after == before {
		t.Errorf("FileStamp() after a commit = %+v, %v; want a change from %+v", after, err, before)
	}
	if s.StorageFull("main") {
		t.Error("StorageFull(main) = true for an agent with room")
	}
	for _, name := range []string{"../main", "nobody"} {
		if _, err := s.FileStamp(name); err == nil {
			t.Errorf("FileStamp(%q) = nil error, want one", name)
		}
		if s.StorageFull(name) {
			t.Errorf("StorageFull(%q) = true", name)
		}
	}
}
