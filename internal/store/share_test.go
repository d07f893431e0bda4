package store

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// insertMem stores m in a and returns its id.
func insertMem(t *testing.T, a *Agent, m Memory) int64 {
	t.Helper()
	ins, err := a.Insert(t.Context(), []Memory{m})
	if err != nil {
		t.Fatal(err)
	}
	return ins[0].ID
}

// listedCopy is the copy of from that agent name lists, or ok false.
func listedCopy(t *testing.T, s *Store, name string, from Provenance) (Memory, bool) {
	t.Helper()
	a := acquire(t, s, name)
	mems, _, err := a.List(t.Context(), ListOptions{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range mems {
		if m.SharedFrom != nil && *m.SharedFrom == from {
			return m, true
		}
	}
	return Memory{}, false
}

// TestShareCopiesWithProvenance: the copy keeps the original's time, role,
// session, importance and content and names it; a second share answers the
// same copy; self, unknown ids and agents that may not be made are refused.
func TestShareCopiesWithProvenance(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	src := acquire(t, s, "assistant")
	orig := mem("we are away until Sunday, keep the heating at 15", "chat-1")
	orig.Role, orig.Importance = "assistant", 0.9
	id := insertMem(t, src, orig)

	sh, err := s.Share(ctx, src, id, "household", true)
	if err != nil || sh.Existing {
		t.Fatalf("Share = %+v, %v", sh, err)
	}
	got, err := acquire(t, s, "household").Get(ctx, sh.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := Provenance{Agent: "assistant", ID: id}
	if got.SharedFrom == nil || *got.SharedFrom != want || want.String() != "assistant/memory:1" {
		t.Errorf("copy's provenance = %v, want %v", got.SharedFrom, want)
	}
	if got.Content != orig.Content || !got.Timestamp.Equal(orig.Timestamp) || got.Role != "assistant" ||
		got.SessionID != "chat-1" || got.Importance != 0.9 || got.Flagged {
		t.Errorf("copy = %+v, want the original's fields", got)
	}
	if m, _ := src.Get(ctx, id); m.SharedFrom != nil {
		t.Errorf("the original names a provenance: %v", m.SharedFrom)
	}

	again, err := s.Share(ctx, src, id, "household", true)
	if err != nil || !again.Existing || again.ID != sh.ID {
		t.Errorf("second Share = %+v, %v; want the existing copy %d", again, err, sh.ID)
	}
	if _, err := s.Share(ctx, src, id, "assistant", true); !errors.Is(err, ErrShareToSelf) {
		t.Errorf("share to itself: %v, want ErrShareToSelf", err)
	}
	if _, err := s.Share(ctx, src, 999, "household", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("share of an unknown memory: %v, want ErrNotFound", err)
	}
	if _, err := s.Share(ctx, src, id, "nobody", false); !errors.Is(err, ErrNoAgent) {
		t.Errorf("share to a missing agent without create: %v, want ErrNoAgent", err)
	}
	var ne *NameError
	if _, err := s.Share(ctx, src, id, "../x", true); !errors.As(err, &ne) {
		t.Errorf("share to a bad name: %v, want a NameError", err)
	}
}

// TestForgetOriginalForgetsCopies: forgetting the original forgets its copy
// and the copy's copy, and the forget sticks in each agent: the content
// stored again, or shared again, comes back flagged.
func TestForgetOriginalForgetsCopies(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	src := acquire(t, s, "assistant")
	text := "the spare key is under the blue flowerpot"
	id := insertMem(t, src, mem(text, "s"))
	sh, err := s.Share(ctx, src, id, "household", true)
	if err != nil {
		t.Fatal(err)
	}
	house := acquire(t, s, "household")
	onward, err := s.Share(ctx, house, sh.ID, "team", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := house.Get(ctx, sh.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("household's copy after the forget: %v, want ErrNotFound", err)
	}
	if _, err := acquire(t, s, "team").Get(ctx, onward.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("team's copy of the copy after the forget: %v, want ErrNotFound", err)
	}
	for _, name := range []string{"household", "team"} {
		if f, err := acquire(t, s, name).IsForgotten(ctx, text); err != nil || !f {
			t.Errorf("%s: IsForgotten = %v, %v; want true", name, f, err)
		}
	}
	// Said again in the original's agent and shared: flagged at both ends.
	id2 := insertMem(t, src, mem(text, "later"))
	again, err := s.Share(ctx, src, id2, "household", true)
	if err != nil {
		t.Fatal(err)
	}
	if m, err := house.Get(ctx, again.ID); err != nil || !m.Flagged {
		t.Errorf("the re-shared forgotten content = %+v, %v; want flagged", m, err)
	}
}

// TestForgetCopyLeavesOriginal: forgetting a copy forgets it alone.
func TestForgetCopyLeavesOriginal(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	src := acquire(t, s, "assistant")
	id := insertMem(t, src, mem("the boiler service is due in March", "s"))
	sh, err := s.Share(ctx, src, id, "household", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := acquire(t, s, "household").Delete(ctx, sh.ID); err != nil {
		t.Fatal(err)
	}
	if m, err := src.Get(ctx, id); err != nil || m.Flagged {
		t.Errorf("the original after its copy's forget = %+v, %v", m, err)
	}
}

// TestForgetReachesClosedAgent: the copy's agent is not open when the
// original is forgotten (a new Store over the same directory): it is opened
// and the copy forgotten.
func TestForgetReachesClosedAgent(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	s := openTest(t, Options{Dir: dir})
	var id, copyID int64
	err := s.With(ctx, "assistant", true, func(a *Agent) error {
		id = insertMem(t, a, mem("the wifi password is on the fridge", "s"))
		sh, err := s.Share(ctx, a, id, "household", true)
		copyID = sh.ID
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2 := openTest(t, Options{Dir: dir})
	if err := acquire(t, s2, "assistant").Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := acquire(t, s2, "household").Get(ctx, copyID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the closed agent's copy: %v, want ErrNotFound", err)
	}
}

// TestOwedForgetIsRetried: a forget of a copy left owed (the process died
// after the original's forget committed) is done at the agent's next forget.
func TestOwedForgetIsRetried(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	src := acquire(t, s, "assistant")
	id := insertMem(t, src, mem("the bins go out on Tuesday night", "s"))
	other := insertMem(t, src, mem("the cat is called Miso", "s"))
	sh, err := s.Share(ctx, src, id, "household", true)
	if err != nil {
		t.Fatal(err)
	}
	// What a crash right after the original's forget leaves behind.
	if err := src.write(ctx, func(ctx context.Context, c *conn) error { return forgetMemory(ctx, c, id, time.Now()) }); err != nil {
		t.Fatal(err)
	}
	house := acquire(t, s, "household")
	if _, err := house.Get(ctx, sh.ID); err != nil {
		t.Fatalf("before the retry the copy should still be there: %v", err)
	}
	if err := src.Delete(ctx, other); err != nil {
		t.Fatal(err)
	}
	if _, err := house.Get(ctx, sh.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the owed forget was not retried: %v", err)
	}
}

// TestDeletedOriginalsAgentLeavesItsCopies: deleting the agent a memory was
// shared from leaves the copy, still naming where it came from.
func TestDeletedOriginalsAgentLeavesItsCopies(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	src, err := s.Acquire(ctx, "assistant", true)
	if err != nil {
		t.Fatal(err)
	}
	id := insertMem(t, src, mem("the water meter is under the sink", "s"))
	_, err = s.Share(ctx, src, id, "household", true)
	s.Release(src)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, "assistant", func(*Agent) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if _, ok := listedCopy(t, s, "household", Provenance{Agent: "assistant", ID: id}); !ok {
		t.Error("deleting the original's agent removed the copy")
	}
}

// TestSettleSharesDoesWhatIsOwed: an owed forget left by a crash is done by
// SettleShares (the nightly cycle's call) with no other forget or share;
// an agent that does not exist owes nothing.
func TestSettleSharesDoesWhatIsOwed(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	src := acquire(t, s, "assistant")
	id := insertMem(t, src, mem("the recycling goes out on Friday", "s"))
	sh, err := s.Share(ctx, src, id, "household", true)
	if err != nil {
		t.Fatal(err)
	}
	if err := src.write(ctx, func(ctx context.Context, c *conn) error { return forgetMemory(ctx, c, id, time.Now()) }); err != nil {
		t.Fatal(err)
	}
	if err := s.SettleShares(ctx, "assistant"); err != nil {
		t.Fatal(err)
	}
	if _, err := acquire(t, s, "household").Get(ctx, sh.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the owed forget was not settled: %v", err)
	}
	owed, err := readRows(ctx, src, "owed", `SELECT agent FROM share_forgets`, nil, func(st *sqlite3.Stmt) (string, error) { return st.ColumnText(0), nil })
	if err != nil || len(owed) != 0 {
		t.Errorf("still owed after settling: %v, %v", owed, err)
	}
	if err := s.SettleShares(ctx, "nobody"); err != nil {
		t.Errorf("an agent that does not exist: %v", err)
	}
}

// TestShareFromFileOfPreviousVersion: a file left at the schema version
// before sharing migrates, its memory has no provenance and can be shared.
func TestShareFromFileOfPreviousVersion(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "agents", "old.db")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	c, err := openConn(ctx, path, withDefaults(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, c, SchemaVersion-1); err != nil {
		t.Fatal(err)
	}
	ts := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli()
	if err := c.execArgs(ctx, `INSERT INTO daily_memories (ts, day, content, importance, content_hash, created_at)
		VALUES (?, '2026-01-02', 'the old file remembers the plumber', 0.7, 'h', 0)`, ts); err != nil {
		t.Fatal(err)
	}
	c.close()

	s := openTest(t, Options{Dir: dir})
	old := acquire(t, s, "old")
	m, err := old.Get(ctx, 1)
	if err != nil || m.SharedFrom != nil {
		t.Fatalf("old memory = %+v, %v; want no provenance", m, err)
	}
	sh, err := s.Share(ctx, old, 1, "household", true)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := listedCopy(t, s, "household", Provenance{"old", 1}); !ok || got.ID != sh.ID || got.Timestamp.UnixMilli() != ts {
		t.Errorf("copy = %+v, %v", got, ok)
	}
}

// TestRetiredOriginalRetiresCopies: a watched file that goes retires its
// memories and their copies, which are not recalled but not remembered as
// forgotten; the file back and the memory shared again, the copy is current.
func TestRetiredOriginalRetiresCopies(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	src := acquire(t, s, "assistant")
	commit(t, src, FileChange{Path: "note.md", SHA256: "h1", Size: 10, Memories: fileMems("note.md", "the heating stays at fifteen")})
	id := searchIDs(t, src, "heating")[0]
	sh, err := s.Share(ctx, src, id, "household", true)
	if err != nil {
		t.Fatal(err)
	}
	house := acquire(t, s, "household")
	if got := searchIDs(t, house, "heating"); len(got) != 1 {
		t.Fatalf("household finds %v before the retirement", got)
	}
	if n, err := src.ForgetFile(ctx, "/vault", "note.md", true); err != nil || n != 1 {
		t.Fatalf("ForgetFile = %d, %v", n, err)
	}
	if got := searchIDs(t, house, "heating"); len(got) != 0 {
		t.Errorf("household still finds the retired original's copy: %v", got)
	}
	if f, _ := house.IsForgotten(ctx, "the heating stays at fifteen"); f {
		t.Error("a retired copy was remembered as forgotten")
	}
	commit(t, src, FileChange{Path: "note.md", SHA256: "h1", Size: 10, Memories: fileMems("note.md", "the heating stays at fifteen")})
	again, err := s.Share(ctx, src, id, "household", true)
	if err != nil || again.ID != sh.ID {
		t.Fatalf("share again = %+v, %v", again, err)
	}
	if got := searchIDs(t, house, "heating"); len(got) != 1 {
		t.Errorf("household after the file came back and the share: %v, want the copy", got)
	}
	// Forgetting the original later still reaches the copy.
	if err := src.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := house.Get(ctx, sh.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the copy after the original's forget: %v", err)
	}
}

// TestForgottenCopyUndoesWhatItsAgentDerived: the day record and the fact
// the copy's agent made from it go with it, as for any forgotten memory.
func TestForgottenCopyUndoesWhatItsAgentDerived(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	src := acquire(t, s, "assistant")
	id := insertMem(t, src, mem("Maya's nursery is Little Acorns", "s"))
	sh, err := s.Share(ctx, src, id, "household", true)
	if err != nil {
		t.Fatal(err)
	}
	house := acquire(t, s, "household")
	rec, err := house.PutConsolidation(ctx, Consolidation{Date: testTime.Format(time.DateOnly), Summary: "Maya's nursery.",
		SourceIDs: []int64{sh.ID}})
	if err != nil {
		t.Fatal(err)
	}
	fact, err := house.AddFact(ctx, Fact{Entity: "Maya", Attribute: "nursery", Content: "Maya's nursery is Little Acorns",
		Confidence: 0.9, ValidFrom: testTime, SourceMemoryIDs: []int64{sh.ID}})
	if err != nil {
		t.Fatal(err)
	}
	if err := src.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := house.Consolidation(ctx, rec); !errors.Is(err, ErrNotFound) {
		t.Errorf("the day record citing the copy: %v, want ErrNotFound", err)
	}
	if f, err := house.Fact(ctx, fact); err == nil && f.ValidTo == nil && !f.Rejected {
		t.Errorf("the fact made from the copy alone is still current: %+v", f)
	}
}

// TestForgottenCopyStaysForgottenOnImport: the content of a forgotten copy
// imported into its agent (another agent's export saying it) comes back
// flagged.
func TestForgottenCopyStaysForgottenOnImport(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	src := acquire(t, s, "assistant")
	const text = "the passport is in the second drawer"
	id := insertMem(t, src, mem(text, "s"))
	if _, err := s.Share(ctx, src, id, "household", true); err != nil {
		t.Fatal(err)
	}
	if err := src.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	// notes says it too, under an id household never gave out.
	notes := acquire(t, s, "notes")
	for _, filler := range []string{"a filler memory", "another filler memory"} {
		if err := notes.Delete(ctx, insertMem(t, notes, mem(filler, "s"))); err != nil {
			t.Fatal(err)
		}
	}
	said := insertMem(t, notes, mem(text, "s"))
	var export bytes.Buffer
	if err := notes.Export(ctx, &export); err != nil {
		t.Fatal(err)
	}
	house := acquire(t, s, "household")
	if _, err := house.Import(ctx, &export, ImportOptions{Merge: true}); err != nil {
		t.Fatal(err)
	}
	m, err := house.Get(ctx, said)
	if err != nil || !m.Flagged {
		t.Errorf("the imported memory = %+v, %v; want it flagged", m, err)
	}
}
