package store

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func fileMems(src string, texts ...string) []Memory {
	var out []Memory
	for _, t := range texts {
		out = append(out, Memory{Content: t, Source: src, Timestamp: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC),
			ContentHash: t, InteractionType: "file", Importance: 0.5})
	}
	return out
}

func searchIDs(t *testing.T, a *Agent, term string) []int64 {
	t.Helper()
	return searchIDsUntil(t, a, term, time.Time{})
}

func commit(t *testing.T, a *Agent, ch FileChange) FileResult {
	t.Helper()
	if ch.Root == "" {
		ch.Root = "/vault"
	}
	if ch.Status == "" {
		ch.Status = FileOK
	}
	ch.Replace = true
	res, err := a.CommitFile(t.Context(), ch)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestFileLifecycle(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	ctx := t.Context()

	// New file: memories stored and tracked.
	res := commit(t, a, FileChange{Path: "a.md", SHA256: "h1", Size: 10, Memories: fileMems("a.md", "alpha apples", "alpha pears")})
	if res != (FileResult{Inserted: 2}) {
		t.Fatalf("first commit = %+v", res)
	}
	first := searchIDs(t, a, "alpha")
	if len(first) != 2 {
		t.Fatalf("search alpha = %v, want 2 memories", first)
	}

	// The same content under a second path is stored once.
	res = commit(t, a, FileChange{Path: "copy/a.md", SHA256: "h1", Size: 10, Memories: fileMems("copy/a.md", "alpha apples", "alpha pears")})
	if !res.Reused || res.Inserted != 0 {
		t.Fatalf("second path commit = %+v, want reused", res)
	}
	if got := searchIDs(t, a, "alpha"); !slices.Equal(got, first) {
		t.Fatalf("after a copy, search alpha = %v, want %v", got, first)
	}

	// Deleting one of the two paths retires nothing; the memories cite the other path.
	if n, err := a.ForgetFile(ctx, "/vault", "a.md", true); err != nil || n != 0 {
		t.Fatalf("ForgetFile(a.md) = %d, %v; want 0 retired", n, err)
	}
	m, err := a.Get(ctx, first[0])
	if err != nil || m.Source != "copy/a.md" {
		t.Fatalf("memory source = %q (%v), want copy/a.md", m.Source, err)
	}

	// The day is consolidated, then the file changes: old memories retired, new stored, day marked.
	if _, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-01-05", Summary: "alpha day", SourceIDs: first}); err != nil {
		t.Fatal(err)
	}
	res = commit(t, a, FileChange{Path: "copy/a.md", SHA256: "h2", Size: 12, Memories: fileMems("copy/a.md", "beta bananas")})
	if res != (FileResult{Inserted: 1, Retired: 2}) {
		t.Fatalf("changed file commit = %+v", res)
	}
	if got := searchIDs(t, a, "alpha"); len(got) != 0 {
		t.Errorf("retired memories still found: %v", got)
	}
	if got := searchIDs(t, a, "beta"); len(got) != 1 {
		t.Errorf("new memory not found: %v", got)
	}
	list, _, err := a.List(ctx, ListOptions{})
	if err != nil || len(list) != 1 || list[0].Content != "beta bananas" {
		t.Errorf("List = %v (%v), want only the current memory", list, err)
	}
	recent, err := a.RecentMemories(ctx, SearchOptions{Limit: 10})
	if err != nil || len(recent) != 1 {
		t.Errorf("RecentMemories = %v (%v), want 1", recent, err)
	}
	days, err := a.DayMemories(ctx, "2026-01-05")
	if err != nil || len(days) != 1 {
		t.Errorf("DayMemories = %d (%v), want only the current memory", len(days), err)
	}
	rebuild, err := a.FileRebuildDays(ctx)
	if err != nil || len(rebuild) != 1 || rebuild[0].Day != "2026-01-05" {
		t.Errorf("FileRebuildDays = %v (%v), want 2026-01-05", rebuild, err)
	}
	// Retired memories stay explainable.
	old, err := a.Get(ctx, first[0])
	if err != nil || old.Content != "alpha apples" {
		t.Fatalf("Get(retired) = %v, %v", old, err)
	}
	origin, err := a.MemoryOrigin(ctx, first[0])
	if err != nil || origin.FileHash != "h1" || origin.RetiredAt == nil {
		t.Errorf("MemoryOrigin(retired) = %+v, %v", origin, err)
	}
	if err := a.ClearFileRebuildDay(ctx, "2026-01-05"); err != nil {
		t.Fatal(err)
	}

	// Undo the edit: the old content comes back, its memories are restored, not stored twice.
	res = commit(t, a, FileChange{Path: "copy/a.md", SHA256: "h1", Size: 10, Memories: fileMems("copy/a.md", "alpha apples", "alpha pears")})
	if res != (FileResult{Reused: true, Retired: 1}) {
		t.Fatalf("reverted commit = %+v", res)
	}
	if got := searchIDs(t, a, "alpha"); !slices.Equal(got, first) {
		t.Errorf("after revert, search alpha = %v, want the original %v", got, first)
	}

	// Deleting the last path retires its memories.
	if n, err := a.ForgetFile(ctx, "/vault", "copy/a.md", true); err != nil || n != 2 {
		t.Fatalf("ForgetFile(last path) = %d, %v; want 2 retired", n, err)
	}
	if got := searchIDs(t, a, "alpha"); len(got) != 0 {
		t.Errorf("deleted file's memories still found: %v", got)
	}
	tracked, err := a.TrackedFiles(ctx, "")
	if err != nil || len(tracked) != 0 {
		t.Errorf("TrackedFiles = %v, %v; want none", tracked, err)
	}
	st, err := a.Stats(ctx)
	if err != nil || st.Unconsolidated != 0 {
		t.Errorf("Stats.Unconsolidated = %d (%v), want retired memories not counted", st.Unconsolidated, err)
	}
}

func TestFileFailuresAndInbox(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	ctx := t.Context()
	commit(t, a, FileChange{Path: "n.md", SHA256: "h1", Memories: fileMems("n.md", "gamma one")})
	retry := time.Now().Add(time.Minute).Truncate(time.Millisecond)
	for want := 1; want <= 3; want++ {
		res := commit(t, a, FileChange{Path: "n.md", SHA256: "h2", Status: FileFailed, Error: "parse JSON: boom", NextRetry: retry})
		if res.Retired != 0 || res.Inserted != 0 {
			t.Fatalf("failed commit = %+v, want nothing stored or retired", res)
		}
		failed, err := a.FailedFiles(ctx)
		if err != nil || len(failed) != 1 {
			t.Fatalf("FailedFiles = %v, %v", failed, err)
		}
		f := failed[0]
		if f.Attempts != want || f.Error != "parse JSON: boom" || !f.NextRetry.Equal(retry.UTC()) {
			t.Errorf("failed file = %+v, want attempt %d", f, want)
		}
	}
	if got := searchIDs(t, a, "gamma"); len(got) != 1 {
		t.Errorf("a failed update must keep the old memories, got %v", got)
	}

	// Inbox mode: a new version adds memories, a deletion keeps them.
	in := FileChange{Root: "/inbox", Path: "drop.txt", SHA256: "i1", Status: FileOK, Memories: fileMems("drop.txt", "delta first")}
	if _, err := a.CommitFile(ctx, in); err != nil {
		t.Fatal(err)
	}
	in.SHA256, in.Memories = "i2", fileMems("drop.txt", "delta second")
	if res, err := a.CommitFile(ctx, in); err != nil || res.Retired != 0 {
		t.Fatalf("inbox update = %+v, %v; want nothing retired", res, err)
	}
	if n, err := a.ForgetFile(ctx, "/inbox", "drop.txt", false); err != nil || n != 0 {
		t.Fatalf("inbox ForgetFile = %d, %v", n, err)
	}
	if got := searchIDs(t, a, "delta"); len(got) != 2 {
		t.Errorf("inbox memories = %v, want both kept", got)
	}
	if _, err := a.MemoryOrigin(ctx, 9999); !errors.Is(err, ErrNotFound) {
		t.Errorf("MemoryOrigin(unknown) error = %v, want ErrNotFound", err)
	}
	got, err := a.FileMemories(ctx, "i2")
	if err != nil || len(got) != 1 || got[0].Content != "delta second" {
		t.Errorf("FileMemories(i2) = %v, %v", got, err)
	}
	if diff := cmp.Diff(got[0].Source, "drop.txt"); diff != "" {
		t.Error(diff)
	}
}

func TestRetiringADaysLastMemoriesDropsItsRecord(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	ctx := t.Context()
	commit(t, a, FileChange{Path: "b.md", SHA256: "h1", Memories: fileMems("b.md", "the gate code is 1234")})
	ids := searchIDs(t, a, "gate")
	if _, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-01-05", Summary: "gate code 1234", SourceIDs: ids}); err != nil {
		t.Fatal(err)
	}
	later := fileMems("b.md", "the gate code is 5678")
	later[0].Timestamp = later[0].Timestamp.Add(19 * 24 * time.Hour)
	commit(t, a, FileChange{Path: "b.md", SHA256: "h2", Memories: later})
	recs, err := a.Consolidations(ctx, "", "", 10)
	if err != nil || len(recs) != 0 {
		t.Errorf("Consolidations = %+v, %v; want the emptied day's record gone", recs, err)
	}
	if days, err := a.FileRebuildDays(ctx); err != nil || len(days) != 0 {
		t.Errorf("FileRebuildDays = %v, %v; want nothing left to rebuild", days, err)
	}
	hits, err := a.SearchDayRecords(ctx, SearchOptions{Terms: []string{"1234"}, Limit: 10})
	if err != nil || len(hits) != 0 {
		t.Errorf("SearchDayRecords(1234) = %v, %v", hits, err)
	}
}

// A changed file takes the facts made from its old content alone with it (the
// value they superseded is current again), but does not forget the old claim:
// the file may honestly say it again.
func TestChangedFileDropsFactsOfItsOldContent(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	ctx := t.Context()
	day := time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC)
	older, err := a.AddFact(ctx, Fact{Entity: "gate", Attribute: "code", Value: "0000", Content: "the gate code is 0000",
		ValidFrom: day.Add(-48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	commit(t, a, FileChange{Path: "b.md", SHA256: "h1", Memories: fileMems("b.md", "the gate code is 1234")})
	ids := searchIDs(t, a, "gate")
	fromFile, err := a.AddFact(ctx, Fact{Entity: "gate", Attribute: "code", Value: "1234", Content: "the gate code is 1234",
		ValidFrom: day, SourceMemoryIDs: ids})
	if err != nil {
		t.Fatal(err)
	}
	current := func() []int64 {
		fs, err := a.Facts(ctx, FactFilter{Entity: "gate"})
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}
	if got := current(); !slices.Equal(got, []int64{fromFile}) {
		t.Fatalf("current facts before the change = %v, want [%d]", got, fromFile)
	}
	commit(t, a, FileChange{Path: "b.md", SHA256: "h2", Memories: fileMems("b.md", "the gate code is 5678")})
	if got := current(); !slices.Equal(got, []int64{older}) {
		t.Errorf("current facts after the change = %v, want the superseded value back [%d]", got, older)
	}
	if f, err := a.IsForgotten(ctx, "the gate code is 1234"); err != nil || f {
		t.Errorf("IsForgotten(old content) = %v, %v; want false: a changed file forgets nothing", f, err)
	}
}

// Refresh rewrites a content's memories in place: the same ids, the new text
// searchable and the old gone, the consolidated day marked for rebuild, and
// the undescribed flag cleared.
func TestRefreshRewritesInPlace(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	ctx := t.Context()
	meta := fileMems("pics/boat.png", "Image boat.png (in pics): PNG, 8×6 pixels, 100 bytes.")
	meta[0].Context = []byte(`{"file":{"path":"pics/boat.png"},"image":{"format":"png","width":8,"height":6}}`)
	commit(t, a, FileChange{Path: "pics/boat.png", SHA256: "img", Memories: meta})
	ids := searchIDs(t, a, "pixels")
	if len(ids) != 1 {
		t.Fatalf("image memory ids %v", ids)
	}
	if _, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-01-05", Summary: "a picture of something", SourceIDs: ids}); err != nil {
		t.Fatal(err)
	}
	tracked, err := a.TrackedFiles(ctx, "/vault")
	if err != nil || len(tracked) != 1 || !tracked[0].Undescribed {
		t.Fatalf("TrackedFiles = %+v, %v; want the image undescribed", tracked, err)
	}

	described := fileMems("pics/boat.png", "Image boat.png (in pics): PNG, 8×6 pixels, 100 bytes.\n\nA red rowing boat named Molly.")
	described[0].Context = []byte(`{"file":{"path":"pics/boat.png"},"image":{"format":"png","described_by":"ollama/llava"}}`)
	res := commit(t, a, FileChange{Path: "pics/boat.png", SHA256: "img", Memories: described, Refresh: true})
	if res.Refreshed != 1 || res.Inserted != 0 || res.Reused {
		t.Errorf("refresh result %+v; want one memory refreshed", res)
	}
	if got := searchIDs(t, a, "molly"); !slices.Equal(got, ids) {
		t.Errorf("memories naming Molly %v, want the same %v", got, ids)
	}
	if days, err := a.FileRebuildDays(ctx); err != nil || len(days) != 1 || days[0].Day != "2026-01-05" || days[0].Reason != "file described" {
		t.Errorf("FileRebuildDays = %v, %v; want the image's day", days, err)
	}
	tracked, err = a.TrackedFiles(ctx, "/vault")
	if err != nil || len(tracked) != 1 || tracked[0].Undescribed || tracked[0].Memories != 1 {
		t.Errorf("TrackedFiles after refresh = %+v, %v", tracked, err)
	}
}
