package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// dayMems returns n memories of day (at noon UTC) with big enough content
// for pruning them to free pages.
func dayMems(day string, n int) []Memory {
	d, _ := time.Parse(time.DateOnly, day)
	out := make([]Memory, n)
	for i := range out {
		m := mem(fmt.Sprintf("%s note %d: %s", day, i, strings.Repeat("lorem ipsum dolor sit amet ", 40)), "s")
		m.Timestamp = d.Add(12*time.Hour + time.Duration(i)*time.Second)
		out[i] = m
	}
	return out
}

func ids(ins []Inserted) []int64 {
	out := make([]int64, len(ins))
	for i, x := range ins {
		out[i] = x.ID
	}
	return out
}

func TestNewFilesVacuumIncrementally(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	mode, err := a.AutoVacuum(t.Context())
	if err != nil || mode != autoVacuumIncremental {
		t.Errorf("auto_vacuum of a new file = %d, %v; want %d (incremental)", mode, err, autoVacuumIncremental)
	}
}

// TestPruneKeepsRecordsAndFacts: retention deletes the raw memories of
// wholly consolidated old days, keeps their records and facts, keeps a copy
// of the record that says which memories it summarised, and leaves alone a
// day that is recent, unconsolidated or partly so.
func TestPruneKeepsRecordsAndFacts(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{}), "main")
	insert := func(day string, n int) []int64 {
		t.Helper()
		ins, err := a.Insert(ctx, dayMems(day, n))
		if err != nil {
			t.Fatal(err)
		}
		return ids(ins)
	}
	old := insert("2026-01-01", 200)
	partly := insert("2026-01-02", 3)
	recent := insert("2026-03-01", 2)
	never := insert("2026-01-03", 2)
	for _, d := range []struct {
		day string
		ids []int64
	}{{"2026-01-01", old}, {"2026-01-02", partly[:2]}, {"2026-03-01", recent}} {
		if _, err := a.PutConsolidation(ctx, Consolidation{Date: d.day, Summary: "the day of " + d.day, SourceIDs: d.ids}); err != nil {
			t.Fatal(err)
		}
	}
	fact, err := a.AddFact(ctx, Fact{Entity: "Alice", Attribute: "role", Value: "CTO", Content: "Alice's role is CTO",
		SourceMemoryIDs: old[:1], ValidFrom: testTime})
	if err != nil {
		t.Fatal(err)
	}
	before, err := a.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}

	res, err := a.Prune(ctx, "2026-02-01")
	if err != nil {
		t.Fatal(err)
	}
	if res != (PruneResult{Days: 1, Memories: 200}) {
		t.Errorf("Prune = %+v, want the 200 memories of 2026-01-01", res)
	}
	after, _ := a.Stats(ctx)
	if after.Memories != before.Memories-200 || after.Consolidations != 3 || after.CurrentFacts != 1 {
		t.Errorf("stats %+v after pruning, before %+v: want only the raw memories gone", after, before)
	}
	if _, err := a.Get(ctx, old[5]); err == nil {
		t.Errorf("pruned memory %d still there", old[5])
	}
	for _, id := range append(append(partly, recent...), never...) {
		if _, err := a.Get(ctx, id); err != nil {
			t.Errorf("memory %d of a day not to prune: %v", id, err)
		}
	}
	// Provenance: the fact still names its memory, and the memory leads to
	// the day that summarised it.
	fs, _ := a.Facts(ctx, FactFilter{Entity: "Alice"})
	if len(fs) != 1 || fs[0].ID != fact || !slices.Equal(fs[0].SourceMemoryIDs, old[:1]) {
		t.Errorf("facts after pruning = %+v", fs)
	}
	p, ok, err := a.Pruned(ctx, old[0])
	if err != nil || !ok || p.Record.Date != "2026-01-01" || p.Pruned != 200 || !slices.Equal(p.Record.SourceIDs, old) ||
		p.Record.Summary != "the day of 2026-01-01" {
		t.Errorf("Pruned(%d) = %+v, %v, %v; want the day that summarised it", old[0], p, ok, err)
	}
	if _, ok, _ := a.Pruned(ctx, recent[0]); ok {
		t.Errorf("Pruned(%d) found a memory that was not pruned", recent[0])
	}
	// Pruning again does nothing.
	if res, err := a.Prune(ctx, "2026-02-01"); err != nil || res.Memories != 0 {
		t.Errorf("second Prune = %+v, %v", res, err)
	}
	// Forgetting never touches what was pruned: a memory arriving late for
	// the pruned day, forgotten, leaves the day with the record it had.
	late, err := a.Insert(ctx, dayMems("2026-01-01", 1))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-01-01", Summary: "rebuilt", SourceIDs: append(slices.Clone(old), late[0].ID)}); err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, late[0].ID); err != nil {
		t.Fatal(err)
	}
	recs, _ := a.Consolidations(ctx, "2026-01-01", "2026-01-01", 0)
	if len(recs) != 1 || recs[0].Summary != "the day of 2026-01-01" || !slices.Equal(recs[0].SourceIDs, old) {
		t.Errorf("record of the pruned day after forgetting its late memory = %+v, want the pruned record back", recs)
	}
	var kf []any
	if err := json.Unmarshal(recs[0].KeyFacts, &kf); err != nil {
		t.Errorf("restored record's key facts: %v", err)
	}
}

// TestVacuumGivesSpaceBack: after pruning, Vacuum shrinks the file; an
// older file that was not created for incremental vacuum is rewritten once.
func TestVacuumGivesSpaceBack(t *testing.T) {
	for _, legacy := range []bool{false, true} {
		t.Run(fmt.Sprintf("legacy=%v", legacy), func(t *testing.T) {
			ctx := t.Context()
			dir := t.TempDir()
			if legacy { // a file made before schema 4: auto_vacuum none
				path := filepath.Join(dir, "agents", "main.db")
				mkdirAll(t, filepath.Dir(path))
				c, err := openConn(ctx, path, withDefaults(Options{}))
				if err != nil {
					t.Fatal(err)
				}
				if err := migrate(ctx, c, 3); err != nil {
					t.Fatal(err)
				}
				if err := c.exec(`PRAGMA auto_vacuum = NONE; VACUUM`); err != nil {
					t.Fatal(err)
				}
				c.close()
			}
			a := acquire(t, openTest(t, Options{Dir: dir}), "main")
			if mode, _ := a.AutoVacuum(ctx); (mode == autoVacuumIncremental) == legacy {
				t.Fatalf("auto_vacuum = %d at the start", mode)
			}
			ins, err := a.Insert(ctx, dayMems("2026-01-01", 1000))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-01-01", Summary: "s", SourceIDs: ids(ins)}); err != nil {
				t.Fatal(err)
			}
			if _, err := a.Vacuum(ctx); err != nil { // the WAL into the file, a baseline
				t.Fatal(err)
			}
			if _, err := a.Prune(ctx, "2026-02-01"); err != nil {
				t.Fatal(err)
			}
			res, err := a.Vacuum(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if res.FreedPages == 0 || res.BytesAfter >= res.BytesBefore/2 {
				t.Errorf("Vacuum = %+v, want most of the file given back", res)
			}
			if mode, _ := a.AutoVacuum(ctx); mode != autoVacuumIncremental {
				t.Errorf("auto_vacuum after Vacuum = %d, want incremental", mode)
			}
			// The agent works on: a write and a search after the rewrite.
			if _, err := a.Insert(ctx, []Memory{mem("penicillin allergy noted", "s")}); err != nil {
				t.Fatal(err)
			}
			if hits, err := a.SearchMemories(ctx, SearchOptions{Terms: []string{"penicillin"}, Limit: 5}); err != nil || len(hits) != 1 {
				t.Errorf("search after Vacuum = %+v, %v", hits, err)
			}
		})
	}
}

// TestFlaggedOnInsert: content whose normalised form was forgotten (a
// deleted memory) or rejected (a fact) is stored flagged and consolidated by
// nothing; other content is not.
func TestFlaggedOnInsert(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{}), "main")
	ins, err := a.Insert(ctx, []Memory{mem("The door code is 1234.", "a")})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, ins[0].ID); err != nil {
		t.Fatal(err)
	}
	f, err := a.AddFact(ctx, Fact{Entity: "Bob", Content: "Bob's bike is red", ValidFrom: testTime})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RejectFact(ctx, f); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		content string
		flagged bool
	}{
		{"the door code is 1234", true},
		{"THE DOOR CODE IS  1234!!", true},
		{"bob's bike is red.", true},
		{"The door code is 4321.", false},
		{"Bob's bike is blue.", false},
	} {
		m := mem(tc.content, "b")
		ins, err := a.Insert(ctx, []Memory{m})
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.Get(ctx, ins[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.Flagged != tc.flagged || got.Consolidated != tc.flagged {
			t.Errorf("%q stored flagged=%v consolidated=%v, want %v", tc.content, got.Flagged, got.Consolidated, tc.flagged)
		}
	}
	if err := a.RejectFact(ctx, 999); err == nil {
		t.Errorf("rejecting a fact that does not exist succeeded")
	}
	// A fact worded as forgotten content is refused.
	r, err := a.PutFact(ctx, Fact{Entity: "user", Content: "The door code is 1234", ValidFrom: testTime})
	if err != nil || r.Outcome != FactRejected {
		t.Errorf("PutFact of forgotten content = %+v, %v; want rejected", r, err)
	}
}

func mkdirAll(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
}

// TestRejectedBeforeForgettingExisted: a fact rejected in a file from
// before schema 4 flags new memories saying it once the file is migrated.
func TestRejectedBeforeForgettingExisted(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	path := filepath.Join(dir, "agents", "main.db")
	mkdirAll(t, filepath.Dir(path))
	c, err := openConn(ctx, path, withDefaults(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, c, 3); err != nil {
		t.Fatal(err)
	}
	if err := c.exec(`INSERT INTO facts (entity, content, valid_from, rejected, created_at)
		VALUES ('Bob', 'Bob''s bike is red', 0, 1, 0)`); err != nil {
		t.Fatal(err)
	}
	c.close()
	a := acquire(t, openTest(t, Options{Dir: dir}), "main")
	ins, err := a.Insert(ctx, []Memory{mem("Bob's bike is red.", "s")})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := a.Get(ctx, ins[0].ID); err != nil || !m.Flagged {
		t.Errorf("memory saying a fact rejected before schema 4 = %+v, %v; want flagged", m, err)
	}
}
