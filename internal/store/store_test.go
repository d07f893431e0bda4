package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/ncruces/go-sqlite3"

	"github.com/dormouse-dev/dormouse/internal/kinds"
)

// The child processes of TestConcurrentWritersTwoProcesses (a writer) and
// TestImportKilledLeavesNoAgent (an import).
func TestMain(m *testing.M) {
	if dir := os.Getenv("DORMOUSE_TEST_CHILD_DIR"); dir != "" {
		n, _ := strconv.Atoi(os.Getenv("DORMOUSE_TEST_CHILD_N"))
		var err error
		if path := os.Getenv("DORMOUSE_TEST_CHILD_IMPORT"); path != "" {
			err = childImport(dir, path)
		} else {
			err = childWrite(dir, n)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "child:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func childWrite(dir string, n int) error {
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: dir})
	if err != nil {
		return err
	}
	defer s.Close()
	return s.With(ctx, "shared", true, func(a *Agent) error {
		for i := range n {
			if _, err := a.Insert(ctx, []Memory{mem(fmt.Sprintf("child memory %d", i), "child")}); err != nil {
				return err
			}
		}
		return nil
	})
}

func openTest(t *testing.T, o Options) *Store {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.Location == nil {
		o.Location = time.UTC
	}
	if o.Kinds == nil {
		o.Kinds = kinds.Of
	}
	s, err := Open(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return s
}

func acquire(t *testing.T, s *Store, name string) *Agent {
	t.Helper()
	a, err := s.Acquire(t.Context(), name, true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Release(a) })
	return a
}

var testTime = time.Date(2026, 2, 1, 14, 30, 0, 0, time.UTC)

// testHash is a SHA-256 as capture writes them (an import checks its form).
func testHash(content string) string {
	h := sha256.Sum256([]byte(content))
	return hex.EncodeToString(h[:])
}

func mem(content, session string) Memory {
	return Memory{
		SessionID:   session,
		Timestamp:   testTime,
		Role:        "user",
		Content:     content,
		Importance:  0.5,
		ContentHash: testHash(content),
		Entities:    []Entity{{Text: "Alice", Type: "name"}},
		Topics:      []string{"test"},
	}
}

func TestValidateAgentName(t *testing.T) {
	good := []string{"main", "a", "0", "coder-2", "x_y", strings.Repeat("a", 64)}
	bad := []string{"", "../etc", "a/b", "A", ".", "..", "-x", "_x", strings.Repeat("a", 65), "%2e%2e", "a\x00", "a b", "é", "main.db"}
	for _, n := range good {
		if err := ValidateAgentName(n); err != nil {
			t.Errorf("ValidateAgentName(%q) = %v, want nil", n, err)
		}
	}
	for _, n := range bad {
		var ne *NameError
		if err := ValidateAgentName(n); !errors.As(err, &ne) {
			t.Errorf("ValidateAgentName(%q) = %v, want *NameError", n, err)
		}
	}
}

func FuzzValidateAgentName(f *testing.F) {
	for _, s := range []string{"main", "../etc", "a/b", "A", ".", "-x", "%2e%2e", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if ValidateAgentName(name) != nil {
			return
		}
		// An accepted name must be a plain file stem: joining it to a
		// directory never leaves that directory or names a hidden file.
		p := filepath.Join("/data/agents", name+".db")
		if filepath.Dir(p) != "/data/agents" || strings.HasPrefix(name, ".") || strings.ContainsAny(name, "/\\\x00.") || len(name) > 64 {
			t.Fatalf("accepted unsafe name %q (path %s)", name, p)
		}
	})
}

func TestAcquireRejectsBadNamesBeforeTouchingDisk(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, Options{Dir: dir})
	for _, n := range []string{"../etc", "a/b", "..", "../../tmp/x"} {
		if _, err := s.Acquire(t.Context(), n, true); err == nil {
			t.Errorf("Acquire(%q) succeeded", n)
		}
	}
	var files []string
	filepath.Walk(dir, func(p string, _ os.FileInfo, _ error) error {
		files = append(files, p)
		return nil
	})
	if want := []string{dir, filepath.Join(dir, "agents")}; !cmp.Equal(files, want) {
		t.Errorf("files after bad names: %v, want %v", files, want)
	}
}

func TestAcquireWithoutCreate(t *testing.T) {
	s := openTest(t, Options{})
	if _, err := s.Acquire(t.Context(), "ghost", false); !errors.Is(err, ErrNoAgent) {
		t.Fatalf("Acquire(ghost, create=false) = %v, want ErrNoAgent", err)
	}
	acquire(t, s, "real")
	names, err := s.Agents()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"real"}, names); diff != "" {
		t.Errorf("Agents() (-want +got):\n%s", diff)
	}
}

func TestFileModes(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, Options{Dir: dir})
	a := acquire(t, s, "main")
	if _, err := a.Insert(t.Context(), []Memory{mem("hello", "")}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(dir, "agents")} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got&0o077 != 0 {
			t.Errorf("%s mode %o, want no group/other bits", p, got)
		}
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		p := filepath.Join(dir, "agents", "main.db"+suffix)
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got&0o077 != 0 {
			t.Errorf("%s mode %o, want no group/other bits", p, got)
		}
	}
}

func TestInsertGetListDelete(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	var mems []Memory
	for i := range 7 {
		m := mem(fmt.Sprintf("memory number %d", i), "s1")
		m.Timestamp = testTime.Add(time.Duration(i) * time.Minute)
		m.Context = []byte(`{"k":1}`)
		mems = append(mems, m)
	}
	ins, err := a.Insert(ctx, mems)
	if err != nil {
		t.Fatal(err)
	}
	if len(ins) != 7 || ins[0].ID == 0 || ins[6].ID != ins[0].ID+6 {
		t.Fatalf("Insert ids = %+v", ins)
	}
	got, err := a.Get(ctx, ins[3].ID)
	if err != nil {
		t.Fatal(err)
	}
	want := mems[3]
	want.ID = ins[3].ID
	if diff := cmp.Diff(want, got, cmpIgnoreCreated); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}

	// Pages of 3, newest first, cursor until exhausted.
	var ids []int64
	cursor := ""
	for pages := 0; ; pages++ {
		page, next, err := a.List(ctx, ListOptions{Limit: 3, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range page {
			ids = append(ids, m.ID)
		}
		if next == "" {
			break
		}
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
		cursor = next
	}
	var wantIDs []int64
	for i := 6; i >= 0; i-- {
		wantIDs = append(wantIDs, ins[i].ID)
	}
	if diff := cmp.Diff(wantIDs, ids); diff != "" {
		t.Errorf("paged ids (-want +got):\n%s", diff)
	}

	page, _, err := a.List(ctx, ListOptions{Since: testTime.Add(2 * time.Minute), Until: testTime.Add(4 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if len(page) != 3 {
		t.Errorf("List since/until returned %d memories, want 3", len(page))
	}
	if _, _, err := a.List(ctx, ListOptions{Cursor: "!!"}); !errors.Is(err, ErrBadCursor) {
		t.Errorf("List with bad cursor = %v, want ErrBadCursor", err)
	}

	if err := a.Delete(ctx, ins[3].ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Get(ctx, ins[3].ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete = %v, want ErrNotFound", err)
	}
	if err := a.Delete(ctx, ins[3].ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("second Delete = %v, want ErrNotFound", err)
	}
	hits, err := a.SearchMemories(ctx, SearchOptions{Terms: []string{"3"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 0 {
		t.Errorf("deleted memory still found by full-text search: %+v", hits)
	}
}

var cmpIgnoreCreated = cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "CreatedAt" }, cmp.Ignore())

func TestDedup(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{DedupWindow: time.Hour})
	a := acquire(t, s, "main")
	first, err := a.Insert(ctx, []Memory{mem("same words", "s1")})
	if err != nil {
		t.Fatal(err)
	}
	later := mem("same words", "s1")
	later.Timestamp = testTime.Add(30 * time.Minute)
	otherSession := mem("same words", "s2")
	outside := mem("same words", "s1")
	outside.Timestamp = testTime.Add(2 * time.Hour)
	got, err := a.Insert(ctx, []Memory{later, otherSession, outside, mem("same words", "s1")})
	if err != nil {
		t.Fatal(err)
	}
	id := first[0].ID
	want := []Inserted{{ID: id, Duplicate: true}, {ID: id + 1}, {ID: id + 2}, {ID: id, Duplicate: true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Insert duplicates (-want +got):\n%s", diff)
	}
}

func TestFactsSupersedeAndReject(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	march := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	may := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	old, err := a.AddFact(ctx, Fact{Entity: "Alice", Attribute: "role", Content: "Alice is the team lead", Confidence: 0.8, ValidFrom: march})
	if err != nil {
		t.Fatal(err)
	}
	nw, err := a.AddFact(ctx, Fact{Entity: "Alice", Attribute: "role", Content: "Alice is the CTO", Confidence: 0.9, ValidFrom: may})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := a.AddFact(ctx, Fact{Entity: "Alice", Attribute: "pet", Content: "Alice owns a llama", ValidFrom: march})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RejectFact(ctx, bad); err != nil {
		t.Fatal(err)
	}
	ids := func(fs []Fact) []int64 {
		var out []int64
		for _, f := range fs {
			out = append(out, f.ID)
		}
		return out
	}
	cur, err := a.Facts(ctx, FactFilter{Entity: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{nw}, ids(cur)); diff != "" {
		t.Errorf("current facts (-want +got):\n%s", diff)
	}
	april, err := a.Facts(ctx, FactFilter{Entity: "Alice", AsOf: time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{old}, ids(april)); diff != "" {
		t.Errorf("facts as of April (-want +got):\n%s", diff)
	}
	hist, err := a.Facts(ctx, FactFilter{Entity: "Alice", History: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int64{nw, bad, old}, ids(hist)); diff != "" {
		t.Errorf("fact history (-want +got):\n%s", diff)
	}
	if hist[2].SupersededBy == nil || *hist[2].SupersededBy != nw || hist[2].ValidTo == nil || !hist[2].ValidTo.Equal(may) {
		t.Errorf("old fact not superseded: %+v", hist[2])
	}
	hits, err := a.SearchCurrentFacts(ctx, SearchOptions{Terms: []string{"alice"}, Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != nw {
		t.Errorf("SearchCurrentFacts returned %+v, want only fact %d", hits, nw)
	}
}

func TestPutConsolidationIsIdempotent(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	ins, err := a.Insert(ctx, []Memory{mem("one", ""), mem("two", "")})
	if err != nil {
		t.Fatal(err)
	}
	c := Consolidation{Date: "2026-02-01", Summary: "a day of one and two", SourceIDs: []int64{ins[0].ID, ins[1].ID}, Model: "offline"}
	id1, err := a.PutConsolidation(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	c.Summary = "rebuilt"
	id2, err := a.PutConsolidation(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if id1 != id2 {
		t.Errorf("re-running a day created record %d beside %d", id2, id1)
	}
	all, err := a.Consolidations(ctx, "", "", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Summary != "rebuilt" {
		t.Errorf("consolidations = %+v, want one rebuilt record", all)
	}
	st, err := a.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != 2 || st.Unconsolidated != 0 || st.Consolidations != 1 {
		t.Errorf("stats = %+v", st)
	}
	hits, err := a.SearchDayRecords(ctx, SearchOptions{Terms: []string{"rebuilt"}, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 1 || hits[0].ID != id1 {
		t.Errorf("SearchDayRecords = %+v", hits)
	}
}

// TestGroupCommitConcurrentWriters runs 16 goroutines and a second process
// writing one agent file at once: every write must succeed (no "database is
// locked" reaches a caller) and every row must be there.
func TestConcurrentWritersTwoProcesses(t *testing.T) {
	dir := t.TempDir()
	s := openTest(t, Options{Dir: dir})
	a := acquire(t, s, "shared")
	const writers, each, childN = 16, 15, 60

	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "DORMOUSE_TEST_CHILD_DIR="+dir, "DORMOUSE_TEST_CHILD_N="+strconv.Itoa(childN))
	var childOut strings.Builder
	child.Stdout, child.Stderr = &childOut, &childOut
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if _, err := a.Insert(t.Context(), []Memory{mem(fmt.Sprintf("writer %d memory %d", w, i), "parent")}); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("insert: %v", err)
	}
	if err := child.Wait(); err != nil {
		t.Fatalf("child writer: %v\n%s", err, childOut.String())
	}
	st, err := a.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(writers*each + childN); st.Memories != want {
		t.Errorf("stored %d memories, want %d", st.Memories, want)
	}
}

// TestFailedWriteFailsAlone mixes writes that fail (deleting ids that do not
// exist) into concurrent groups of inserts: each request gets its own
// outcome, and no insert is lost to a neighbour's failure.
func TestFailedWriteFailsAlone(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	var wg sync.WaitGroup
	var mu sync.Mutex
	inserted, notFound := 0, 0
	for w := range 16 {
		wg.Go(func() {
			for i := range 20 {
				if (w+i)%4 == 0 {
					err := a.Delete(t.Context(), int64(1_000_000+w*100+i))
					if !errors.Is(err, ErrNotFound) {
						t.Errorf("Delete of a missing id = %v, want ErrNotFound", err)
					}
					mu.Lock()
					notFound++
					mu.Unlock()
					continue
				}
				if _, err := a.Insert(t.Context(), []Memory{mem(fmt.Sprintf("w%d i%d", w, i), "")}); err != nil {
					t.Errorf("Insert: %v", err)
					continue
				}
				mu.Lock()
				inserted++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	st, err := a.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != int64(inserted) || notFound == 0 {
		t.Errorf("stored %d memories, want %d (with %d failed deletes among them)", st.Memories, inserted, notFound)
	}
}

// TestConcurrentFirstOpen has many requests arrive at once for an agent that
// does not exist yet: one file, migrated once, every write stored.
func TestConcurrentFirstOpen(t *testing.T) {
	s := openTest(t, Options{})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Go(func() {
			errs <- s.With(t.Context(), "fresh", true, func(a *Agent) error {
				_, err := a.Insert(t.Context(), []Memory{mem(fmt.Sprint("first words ", i), "")})
				return err
			})
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	a := acquire(t, s, "fresh")
	st, err := a.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if st.Memories != 16 {
		t.Errorf("%d memories stored, want 16", st.Memories)
	}
}

func TestIdleAgentsAreClosedAndReopen(t *testing.T) {
	s := openTest(t, Options{IdleClose: 20 * time.Millisecond, MaxOpenAgents: 2})
	ctx := t.Context()
	for _, n := range []string{"a1", "a2", "a3"} {
		err := s.With(ctx, n, true, func(a *Agent) error {
			_, err := a.Insert(ctx, []Memory{mem("hi from "+n, "")})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if got := len(s.OpenAgents()); got > 2 {
		t.Errorf("%d agents open, want at most MaxOpenAgents=2", got)
	}
	deadline := time.Now().Add(5 * time.Second)
	for len(s.OpenAgents()) > 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if got := s.OpenAgents(); len(got) != 0 {
		t.Errorf("idle agents still open: %v", got)
	}
	err := s.With(ctx, "a1", false, func(a *Agent) error {
		st, err := a.Stats(ctx)
		if err == nil && st.Memories != 1 {
			err = fmt.Errorf("reopened agent has %d memories, want 1", st.Memories)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

func schemaOf(t *testing.T, path string) string {
	t.Helper()
	db, err := sqlite3.Open("file:" + path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st, _, err := db.Prepare(`SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var b strings.Builder
	for st.Step() {
		fmt.Fprintf(&b, "%s %s %s\n%s\n", st.ColumnText(0), st.ColumnText(1), st.ColumnText(2), st.ColumnText(3))
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestMigrations opens files left at every earlier schema version, with data
// in them, and checks each ends at the same schema as a new file and keeps
// and indexes its rows.
func TestMigrations(t *testing.T) {
	ctx := t.Context()
	fresh := filepath.Join(t.TempDir(), "fresh.db")
	c, err := openConn(ctx, fresh, withDefaults(Options{}))
	if err != nil {
		t.Fatal(err)
	}
	if err := migrate(ctx, c, len(migrations)); err != nil {
		t.Fatal(err)
	}
	c.close()
	want := schemaOf(t, fresh)

	for from := 0; from < len(migrations); from++ {
		t.Run(fmt.Sprintf("from_v%d", from), func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "agents", "old.db")
			os.MkdirAll(filepath.Dir(path), 0o700)
			c, err := openConn(ctx, path, withDefaults(Options{}))
			if err != nil {
				t.Fatal(err)
			}
			if err := migrate(ctx, c, from); err != nil {
				t.Fatal(err)
			}
			if from >= 1 {
				err := c.exec(`INSERT INTO daily_memories (ts, day, content, importance, content_hash, created_at)
					VALUES (0, '1970-01-01', 'penicillin allergy noted', 0.9, 'h', 0)`)
				if err != nil {
					t.Fatal(err)
				}
				// From version 2 on, the store's insert indexes a memory itself.
				if from >= 2 {
					if err := c.exec(`INSERT INTO memories_fts(rowid, content) SELECT id, content FROM daily_memories`); err != nil {
						t.Fatal(err)
					}
				}
				// From version 7 on, it indexes its kinds too: before
				// version 9, the kinds of an older lexicon, which
				// migration 9 replaces; from then on, the current ones.
				if from >= 7 {
					kinds := `'stale'`
					if from >= 9 {
						kinds = `dormouse_kinds(content)`
					}
					if err := c.exec(`INSERT INTO memory_kinds(rowid, kinds) SELECT id, ` + kinds + ` FROM daily_memories`); err != nil {
						t.Fatal(err)
					}
				}
			}
			c.close()

			s := openTest(t, Options{Dir: dir})
			a := acquire(t, s, "old")
			st, err := a.Stats(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.SchemaVersion != len(migrations) {
				t.Errorf("schema version %d, want %d", st.SchemaVersion, len(migrations))
			}
			if from >= 1 {
				hits, err := a.SearchMemories(ctx, SearchOptions{Terms: []string{"penicillin"}, Limit: 5})
				if err != nil {
					t.Fatal(err)
				}
				if len(hits) != 1 {
					t.Errorf("row written at v%d not found by full-text search after migration: %+v", from, hits)
				}
				// Penicillin is a medicine: the migration indexed its kinds.
				kh, err := a.SearchMemories(ctx, SearchOptions{Terms: []string{"medicine"}, Limit: 5, Kinds: true})
				if err != nil {
					t.Fatal(err)
				}
				if len(kh) != 1 {
					t.Errorf("row written at v%d not found by kind after migration: %+v", from, kh)
				}
			}
			if diff := cmp.Diff(want, schemaOf(t, path)); diff != "" {
				t.Errorf("schema after migrating from v%d differs from a new file (-new +migrated):\n%s", from, diff)
			}
		})
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "agents", "future.db")
	os.MkdirAll(filepath.Dir(path), 0o700)
	db, err := sqlite3.Open("file:" + path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", len(migrations)+1)); err != nil {
		t.Fatal(err)
	}
	db.Close()
	s := openTest(t, Options{Dir: dir})
	if _, err := s.Acquire(t.Context(), "future", false); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("opening a newer schema: err = %v, want a refusal", err)
	}
}

func withDefaults(o Options) Options {
	o.fill()
	if o.Kinds == nil {
		o.Kinds = kinds.Of
	}
	return o
}

func TestSearchFiltersAndAsOf(t *testing.T) {
	ctx := t.Context()
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	var mems []Memory
	for i := range 5 {
		m := mem(fmt.Sprintf("coffee note %d", i), fmt.Sprintf("s%d", i%2))
		m.Timestamp = testTime.Add(time.Duration(i) * 24 * time.Hour)
		mems = append(mems, m)
	}
	if _, err := a.Insert(ctx, mems); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		o    SearchOptions
		want int
	}{
		{"all", SearchOptions{Terms: []string{"coffee"}}, 5},
		{"until", SearchOptions{Terms: []string{"coffee"}, Until: testTime.Add(36 * time.Hour)}, 2},
		{"since", SearchOptions{Terms: []string{"coffee"}, Since: testTime.Add(36 * time.Hour)}, 3},
		{"session", SearchOptions{Terms: []string{"coffee"}, Session: "s0"}, 3},
		{"quote in term", SearchOptions{Terms: []string{`co"ffee`, "coffee"}}, 5},
		{"fts syntax is literal", SearchOptions{Terms: []string{"NEAR(coffee note)", "*"}}, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Limit = 100
			hits, err := a.SearchMemories(ctx, tc.o)
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != tc.want {
				t.Errorf("got %d hits, want %d", len(hits), tc.want)
			}
			for _, h := range hits {
				if !tc.o.Until.IsZero() && h.Timestamp.After(tc.o.Until) {
					t.Errorf("hit %d at %v is after until %v", h.ID, h.Timestamp, tc.o.Until)
				}
			}
		})
	}
}
