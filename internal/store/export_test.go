package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
)

// TestExportCoversEverySchemaTable: a table the schema gains is either
// exported or listed as derived, or this fails; nothing is dropped by
// omission.
func TestExportCoversEverySchemaTable(t *testing.T) {
	s := openTest(t, Options{})
	a := acquire(t, s, "main")
	var tables []string
	err := a.read(t.Context(), func(c *conn) error {
		return c.query(t.Context(), `SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`, nil,
			func(st *sqlite3.Stmt) error {
				tables = append(tables, st.ColumnText(0))
				return nil
			})
	})
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, e := range exported {
		covered[e.table] = true
	}
	for _, name := range tables {
		if covered[name] || derived[name] != "" || isShadowOfDerived(name) {
			continue
		}
		t.Errorf("table %s is neither exported (store.exported) nor derived (store.derived)", name)
	}
	for _, e := range exported {
		if !containsString(tables, e.table) {
			t.Errorf("exported table %s is not in the schema", e.table)
		}
	}
}

func isShadowOfDerived(name string) bool {
	for d := range derived {
		if rest, ok := strings.CutPrefix(name, d+"_"); ok && !strings.Contains(rest, "_") {
			return true
		}
	}
	return false
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// fillEveryTable gives every exported table at least one row, through the
// store's own methods where there is one.
func fillEveryTable(t *testing.T, a *Agent) {
	t.Helper()
	ctx := t.Context()
	m := mem("Alice moved to Chicago <in March> & \"liked\" it", "s1")
	m.Context = json.RawMessage(`{"app":"chat"}`)
	ins, err := a.Insert(ctx, []Memory{m, mem("Bob's secret to forget", "s1"), mem("a third memory", "s2")})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, ins[1].ID); err != nil { // a forgotten hash, and a gap in the IDs
		t.Fatal(err)
	}
	if _, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-02-01", Summary: "Alice moved.",
		KeyFacts: json.RawMessage(`["Alice lives in Chicago"]`), SourceIDs: []int64{ins[0].ID}}); err != nil {
		t.Fatal(err)
	}
	march := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if _, err := a.AddFact(ctx, Fact{Entity: "Alice", Attribute: "city", Content: "Alice lives in Boston", Confidence: 0.75, ValidFrom: march}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.AddFact(ctx, Fact{Entity: "Alice", Attribute: "city", Content: "Alice lives in Chicago", Confidence: 1, ValidFrom: march.AddDate(0, 1, 0)}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := a.PutProfileLines(ctx, []ProfileLine{{Category: "home", Subject: "Alice", Key: "city", Value: "Chicago",
		Text: "Alice lives in Chicago.", SourceMemoryIDs: []int64{ins[0].ID}, Single: true, ValidFrom: march}}, march); err != nil {
		t.Fatal(err)
	}
	if err := a.PutEmbeddings(ctx, "test-model", []MemoryVector{{ID: ins[0].ID, Vec: []float32{0.6, 0.8}}}); err != nil {
		t.Fatal(err)
	}
	err = a.write(ctx, func(ctx context.Context, c *conn) error {
		return c.exec(`
INSERT INTO consolidation_runs (day, started_at, finished_at, status, memories, holder) VALUES ('2026-02-01', 1, 2, 'ok', 1, 'test');
INSERT INTO pruned_days (date, summary, pruned, pruned_at) VALUES ('2026-01-01', 'an old day', 3, 5);
INSERT INTO tracked_files (root, path, sha256, size, mtime, status, updated_at) VALUES ('/notes', 'a.md', '` + testHash("a note") + `', 10, 7, 'ok', 8);
INSERT INTO file_rebuild_days (day, reason, marked_at) VALUES ('2026-02-01', 'a.md changed', 9);
INSERT INTO leases (name, holder, expires_at) VALUES ('consolidate', 'someone', 1);
INSERT INTO shared_to (memory_id, agent) VALUES (1, 'household');
INSERT INTO share_forgets (agent, memory_id, created_at) VALUES ('team', 2, 10);
UPDATE daily_memories SET shared_from_agent = 'assistant', shared_from_id = 7 WHERE id = 3;`)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func exportOf(t *testing.T, a *Agent) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := a.Export(t.Context(), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestExportImportRoundTripIsByteIdentical: export, import into a fresh
// data directory, export again: the same bytes, every table's records
// among them; IDs, the full-text index and forgetting survive.
func TestExportImportRoundTripIsByteIdentical(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	fillEveryTable(t, a)
	first := exportOf(t, a)
	for _, e := range exported {
		if !bytes.Contains(first, []byte(`{"type":"`+e.kind+`",`)) {
			t.Errorf("the export has no %s record; the test's fill should give %s a row", e.kind, e.table)
		}
	}
	if bytes.Contains(first, []byte(`"someone"`)) {
		t.Error("the export holds a lease, which is derived")
	}
	b := acquire(t, openTest(t, Options{}), "main")
	counts, err := b.Import(t.Context(), bytes.NewReader(first), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if counts["memory"] != 2 || counts["fact"] != 2 {
		t.Errorf("import counts = %v, want 2 memories and 2 facts", counts)
	}
	if second := exportOf(t, b); !bytes.Equal(first, second) {
		t.Errorf("the round trip changed the export:\nfirst:\n%s\nsecond:\n%s", first, second)
	}
	if m, err := b.Get(t.Context(), 3); err != nil || m.Content != "a third memory" {
		t.Errorf("memory:3 after import = %q, %v; want the same memory", m.Content, err)
	}
	if hits, err := b.SearchMemories(t.Context(), SearchOptions{Terms: []string{"chicago"}, Limit: 5}); err != nil || len(hits) != 1 {
		t.Errorf("search after import = %d hits, %v; want the imported memory", len(hits), err)
	}
	if gone, err := b.IsForgotten(t.Context(), "Bob's secret to forget"); err != nil || !gone {
		t.Errorf("the imported agent forgot the forgotten memory: %v, %v", gone, err)
	}
	ins, err := b.Insert(t.Context(), []Memory{mem("a new memory", "s3")})
	if err != nil || ins[0].ID != 4 {
		t.Errorf("a new memory after import got id %v (%v), want 4: the deleted memory:2's id is never reused", ins, err)
	}
}

// TestImportBadRecordImportsNothing: one bad line is reported by number,
// and nothing of the import is stored.
func TestImportBadRecordImportsNothing(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "src")
	fillEveryTable(t, a)
	lines := strings.Split(strings.TrimSpace(string(exportOf(t, a))), "\n")
	memLine := 0
	for i, l := range lines {
		if strings.HasPrefix(l, `{"type":"memory"`) {
			memLine = i
			break
		}
	}
	check := func(m Memory) error {
		if strings.ContainsRune(m.Role, '\u2028') {
			return errors.New("role: contains a control character")
		}
		return nil
	}
	end := len(lines) - 1 // the end line
	body := lines[1:end]
	build := func(extra ...string) []string { // the header, body and extra, and a true end line
		out := append(append([]string{lines[0]}, body...), extra...)
		return append(out, fmt.Sprintf(`{"type":"dormouse-export-end","records":%d}`, len(out)-1))
	}
	bad := slicesWith(lines, memLine, strings.Replace(lines[memLine], `"role":"user"`, `"role":"us\u2028er"`, 1))
	cases := map[string]struct {
		lines []string
		line  int // 0: any error
	}{
		"control character":    {bad, memLine + 1},
		"unknown field":        {slicesWith(lines, 2, strings.Replace(lines[2], `{"type":`, `{"colour":"red","type":`, 1)), 3},
		"wrong value type":     {slicesWith(lines, memLine, strings.Replace(lines[memLine], `"ts":`, `"ts":"noon","x":`, 1)), memLine + 1},
		"unknown record type":  {build(`{"type":"mystery"}`), end + 1},
		"not JSON":             {slicesWith(lines, 1, `{"type":"day",`), 2},
		"no header":            {lines[1:], 1},
		"cut short":            {lines[:end], end + 1},
		"a line after the end": {append(append([]string{}, lines...), lines[memLine]), end + 2},
		"end miscounts":        {append(append(append([]string{}, lines[:end]...), lines[memLine]), lines[end]), end + 2},
		"duplicate memory id":  {build(lines[memLine]), end + 1},
		"dangling reference":   {build(`{"type":"run","id":99,"day":"2026-02-02","started_at":1,"finished_at":2,"status":"ok","consolidation_id":77}`), 0},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			b := acquire(t, openTest(t, Options{}), "dst")
			_, err := b.Import(t.Context(), strings.NewReader(strings.Join(c.lines, "\n")+"\n"), ImportOptions{CheckMemory: check})
			var ie *ImportError
			switch {
			case c.line == 0 && err == nil:
				t.Fatal("imported a record that refers to nothing")
			case c.line > 0 && (!errors.As(err, &ie) || ie.Line != c.line):
				t.Fatalf("err = %v, want an ImportError at line %d", err, c.line)
			}
			if st, err := b.Stats(t.Context()); err != nil || st.Memories != 0 {
				t.Errorf("after a failed import: stats %+v, %v; want nothing imported", st, err)
			}
		})
	}
}

func slicesWith(lines []string, i int, line string) []string {
	out := append([]string{}, lines...)
	out[i] = line
	return out
}

// TestImportIntoNonEmptyAgentNeedsMerge: an import never mixes into an
// agent's memories unless asked; with Merge it adds, and a clash of IDs
// fails the whole import.
func TestImportIntoNonEmptyAgentNeedsMerge(t *testing.T) {
	src := acquire(t, openTest(t, Options{}), "src")
	if _, err := src.Insert(t.Context(), []Memory{mem("from the export", "s")}); err != nil {
		t.Fatal(err)
	}
	exp := exportOf(t, src)
	dst := acquire(t, openTest(t, Options{}), "dst")
	if _, err := dst.Insert(t.Context(), []Memory{mem("already here", "s")}); err != nil {
		t.Fatal(err)
	}
	if _, err := dst.Import(t.Context(), bytes.NewReader(exp), ImportOptions{}); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("import into a non-empty agent: err = %v, want ErrNotEmpty", err)
	}
	var ie *ImportError
	if _, err := dst.Import(t.Context(), bytes.NewReader(exp), ImportOptions{Merge: true}); !errors.As(err, &ie) {
		t.Fatalf("merge with a clashing id: err = %v, want an ImportError", err)
	}
	if st, _ := dst.Stats(t.Context()); st.Memories != 1 {
		t.Errorf("after the refused merge: %d memories, want 1", st.Memories)
	}
}

// FuzzParseImport: whatever the bytes, the parser returns records or an
// ImportError naming a line, and never panics. An import of them that
// succeeds leaves an agent that holds to every invariant the rest of the
// store reads it by: everything reads back, a memory can be forgotten, and
// a new one is stored past every id. One that fails stores nothing.
func FuzzParseImport(f *testing.F) {
	ctx := context.Background()
	s, err := Open(ctx, Options{Dir: f.TempDir(), Location: time.UTC})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	a, err := s.Acquire(ctx, "fuzz", true)
	if err != nil {
		f.Fatal(err)
	}
	defer s.Release(a)
	var empty bytes.Buffer
	if err := a.Export(ctx, &empty); err != nil {
		f.Fatal(err)
	}
	fillSeedAgent(f, a)
	var seed bytes.Buffer
	if err := a.Export(ctx, &seed); err != nil {
		f.Fatal(err)
	}
	f.Add(seed.Bytes())
	// Two an importer once took, which broke the agent: reads fail after the
	// first, every write after the second.
	f.Add(bytes.Replace(seed.Bytes(), []byte(`"source_memory_ids":"[1]"`), []byte(`"source_memory_ids":"x"`), 1))
	f.Add(bytes.Replace(seed.Bytes(), []byte(`"name":"daily_memories","seq":2`), []byte(`"name":"daily_memories","seq":9223372036854775807`), 1))
	f.Add([]byte(`{"type":"dormouse-export","format":1,"schema":1}` + "\n" + `{"type":"embedding","vec":"AAAA","memory_id":1e400}`))
	f.Add([]byte(`{"type":"dormouse-export","format":"1","schema":null}`))
	f.Add([]byte("null\n[]\n\"x\"\n{}"))
	tables, err := schemaTables()
	if err != nil {
		f.Fatal(err)
	}
	resetAgent(f, a, tables)
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := collectImport(bytes.NewReader(data), tables, nil)
		var ie *ImportError
		if err != nil && !errors.As(err, &ie) {
			t.Fatalf("a bad import is %v, not an ImportError naming its line", err)
		}
		for _, r := range recs {
			if r.t == nil || len(r.cols) != len(r.vals) {
				t.Fatalf("line %d: a record without its table or with %d columns for %d values", r.line, len(r.cols), len(r.vals))
			}
		}
		if err != nil {
			return
		}
		defer resetAgent(t, a, tables)
		if _, err := a.Import(ctx, bytes.NewReader(data), ImportOptions{}); err != nil {
			if !errors.As(err, &ie) {
				t.Fatalf("a bad import is %v, not an ImportError naming its line", err)
			}
			var after bytes.Buffer
			if err := a.Export(ctx, &after); err != nil || !bytes.Equal(after.Bytes(), empty.Bytes()) {
				t.Fatalf("the failed import (%v) stored something: %v\n%s", ie, err, after.Bytes())
			}
			return
		}
		checkReadable(t, a)
	})
}

// collectImport is parseImport's records, all of them.
func collectImport(r io.Reader, tables []*exportTable, check func(Memory) error) ([]importRecord, error) {
	var recs []importRecord
	err := parseImport(r, tables, check, func(rec importRecord) error {
		recs = append(recs, rec)
		return nil
	})
	return recs, err
}

// fillSeedAgent gives the fuzzer's seed export a record of every kind, as
// fillEveryTable does for a test.
func fillSeedAgent(f *testing.F, a *Agent) {
	ctx := context.Background()
	ins, err := a.Insert(ctx, []Memory{mem("seed memory about Alice", "s"), mem("a memory to forget", "s")})
	if err != nil {
		f.Fatal(err)
	}
	if err := a.Delete(ctx, ins[1].ID); err != nil {
		f.Fatal(err)
	}
	if _, err := a.PutConsolidation(ctx, Consolidation{Date: "2026-02-01", Summary: "Alice.",
		KeyFacts: json.RawMessage(`["Alice is here"]`), SourceIDs: []int64{ins[0].ID}}); err != nil {
		f.Fatal(err)
	}
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	if _, err := a.AddFact(ctx, Fact{Entity: "Alice", Attribute: "city", Content: "Alice lives in Boston", Confidence: 0.5,
		ValidFrom: day, SourceMemoryIDs: []int64{ins[0].ID}}); err != nil {
		f.Fatal(err)
	}
	if _, err := a.AddFact(ctx, Fact{Entity: "Alice", Attribute: "city", Content: "Alice lives in Chicago", Confidence: 1,
		ValidFrom: day.AddDate(0, 1, 0)}); err != nil {
		f.Fatal(err)
	}
	if _, _, err := a.PutProfileLines(ctx, []ProfileLine{{Category: "home", Subject: "Alice", Key: "city", Value: "Chicago",
		Text: "Alice lives in Chicago.", SourceMemoryIDs: []int64{ins[0].ID}, Single: true, ValidFrom: day}}, day); err != nil {
		f.Fatal(err)
	}
	if err := a.PutEmbeddings(ctx, "m", []MemoryVector{{ID: ins[0].ID, Vec: []float32{0.6, 0.8}}}); err != nil {
		f.Fatal(err)
	}
}

// resetAgent empties every exported table of a, its counters too.
func resetAgent(tb testing.TB, a *Agent, tables []*exportTable) {
	err := a.write(context.Background(), func(ctx context.Context, c *conn) error {
		for _, t := range tables {
			if err := c.exec("DELETE FROM " + t.table); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
}

// checkReadable reads everything of a the way the store's readers do, and
// writes after it: what an import accepted must never fail either.
func checkReadable(t *testing.T, a *Agent) {
	ctx := context.Background()
	var mems []Memory
	for cursor := ""; ; {
		page, next, err := a.List(ctx, ListOptions{Limit: 500, Cursor: cursor})
		if err != nil {
			t.Fatalf("list the imported memories: %v", err)
		}
		mems = append(mems, page...)
		if cursor = next; next == "" {
			break
		}
	}
	if _, err := a.Facts(ctx, FactFilter{History: true, Limit: 10000}); err != nil {
		t.Fatalf("list the imported facts: %v", err)
	}
	if _, err := a.Facts(ctx, FactFilter{}); err != nil {
		t.Fatalf("list the current facts: %v", err)
	}
	if _, err := a.Consolidations(ctx, "", "", 10000); err != nil {
		t.Fatalf("list the imported day records: %v", err)
	}
	if _, err := a.Profile(ctx, time.Now()); err != nil {
		t.Fatalf("read the imported profile: %v", err)
	}
	if _, err := a.Runs(ctx, "", 10000); err != nil {
		t.Fatalf("list the imported runs: %v", err)
	}
	if _, err := a.Stats(ctx); err != nil {
		t.Fatalf("stats of the imported agent: %v", err)
	}
	if _, err := a.SearchMemories(ctx, SearchOptions{Terms: []string{"alice"}, Limit: 10}); err != nil {
		t.Fatalf("search the imported memories: %v", err)
	}
	if err := a.Export(ctx, io.Discard); err != nil {
		t.Fatalf("export the imported agent: %v", err)
	}
	if len(mems) > 0 {
		if err := a.Delete(ctx, mems[0].ID); err != nil {
			t.Fatalf("forget imported memory %d: %v", mems[0].ID, err)
		}
	}
	ins, err := a.Insert(ctx, []Memory{mem("a memory after the import", "after")})
	if err != nil {
		t.Fatalf("insert after the import: %v", err)
	}
	for _, m := range mems {
		if m.ID >= ins[0].ID {
			t.Fatalf("the memory after the import got id %d, which imported memory %d had", ins[0].ID, m.ID)
		}
	}
}

// TestStoreImportMakesTheAgentOnlyWhenItSucceeds: an import names its
// agent into being (even a deleted one); one that fails leaves no agent
// and no tombstone behind.
func TestStoreImportMakesTheAgentOnlyWhenItSucceeds(t *testing.T) {
	src := acquire(t, openTest(t, Options{}), "src")
	fillEveryTable(t, src)
	exp := exportOf(t, src)
	s := openTest(t, Options{ExplicitCreate: true})
	broken := bytes.Replace(exp, []byte(`"status":"ok","error"`), []byte(`"status":"bogus","error"`), 1)
	if _, err := s.Import(t.Context(), "dst", bytes.NewReader(broken), ImportOptions{}); err == nil {
		t.Fatal("imported a run whose status the schema refuses")
	}
	if names, _ := s.Agents(); len(names) != 0 {
		t.Errorf("agents after a failed import = %q, want none", names)
	}
	if _, err := os.Stat(s.tombstonePath("dst")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a failed import left a tombstone: %v", err)
	}
	res, err := s.Import(t.Context(), "dst", bytes.NewReader(exp), ImportOptions{})
	if err != nil || !res.Created || res.Records["memory"] != 2 {
		t.Fatalf("import = %+v, %v; want the agent created with 2 memories", res, err)
	}
}
