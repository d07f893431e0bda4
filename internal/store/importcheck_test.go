package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// exportLines is a's export, a line per element.
func exportLines(t *testing.T, a *Agent) []string {
	t.Helper()
	return strings.Split(strings.TrimSpace(string(exportOf(t, a))), "\n")
}

// firstOf is the index of the first line of record type kind.
func firstOf(t *testing.T, lines []string, kind string) int {
	t.Helper()
	for i, l := range lines {
		if strings.HasPrefix(l, `{"type":"`+kind+`",`) {
			return i
		}
	}
	t.Fatalf("the export has no %s record", kind)
	return 0
}

// withField is the record line with field set to the JSON value raw.
func withField(t *testing.T, line, field, raw string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(line))
	dec.UseNumber()
	var rec map[string]any
	if err := dec.Decode(&rec); err != nil {
		t.Fatal(err)
	}
	rec[field] = json.RawMessage(raw)
	b, err := json.Marshal(rec)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func joinLines(lines []string) *strings.Reader {
	return strings.NewReader(strings.Join(lines, "\n") + "\n")
}

// TestImportRefusesRecordsThatBreakAnInvariant: a value the rest of the
// store could not read back, or that would stop later writes, is an
// ImportError naming its line, and no agent is made.
func TestImportRefusesRecordsThatBreakAnInvariant(t *testing.T) {
	src := acquire(t, openTest(t, Options{}), "src")
	fillEveryTable(t, src)
	lines := exportLines(t, src)
	cases := []struct{ name, kind, field, value string }{
		{"memory id at 2^63-1", "memory", "id", "9223372036854775807"},
		{"memory id 0", "memory", "id", "0"},
		{"negative fact id", "fact", "id", "-1"},
		{"float timestamp", "memory", "ts", "1769956200000.5"},
		{"timestamp in exponent form", "memory", "ts", "1.7e12"},
		{"timestamp past year 9999", "fact", "valid_from", "253402300800000"},
		{"impossible day", "memory", "day", `"2026-02-30"`},
		{"day not of its timestamp", "memory", "day", `"2025-02-01"`},
		{"impossible record date", "day", "date", `"2026-13-01"`},
		{"malformed content hash", "memory", "content_hash", `"e5cd"`},
		{"malformed forgotten hash", "forgotten", "norm_hash", `"5901646BA48697E5ACF2D00E80C00A609011C995F6BCEFD95217027988C64DD0"`},
		{"importance above 1", "memory", "importance", "1.5"},
		{"confidence above 1", "fact", "confidence", "1.5"},
		{"confidence below 0", "fact", "confidence", "-0.25"},
		{"flag of 2", "memory", "flagged", "2"},
		{"negative count", "run", "tokens_in", "-3"},
		{"source ids not JSON", "fact", "source_memory_ids", `"[1,"`},
		{"source ids not ids", "profile_line", "source_memory_ids", `"[\"a\"]"`},
		{"source id 0", "day", "source_ids", `"[0]"`},
		{"key facts not JSON", "day", "key_facts", `"Alice lives in Chicago"`},
		{"insights not an array", "pruned_day", "insights", `"{}"`},
		{"topics not strings", "memory", "topics", `"[1]"`},
		{"entities not objects", "memory", "entities", `"[\"Alice\"]"`},
		{"context not an object", "memory", "context", `"[]"`},
		{"superseded by a missing fact", "fact", "superseded_by", "99"},
		{"vector of the wrong size", "embedding", "dim", "3"},
		{"counter at 2^63-1", "sequence", "seq", "9223372036854775807"},
		{"counter of a table without ids", "sequence", "name", `"forgotten"`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := firstOf(t, lines, c.kind)
			bad := slicesWith(lines, i, withField(t, lines[i], c.field, c.value))
			s := openTest(t, Options{})
			_, err := s.Import(t.Context(), "dst", joinLines(bad), ImportOptions{})
			var ie *ImportError
			if !errors.As(err, &ie) || ie.Line != i+1 {
				t.Fatalf("err = %v, want an ImportError at line %d", err, i+1)
			}
			if names, _ := s.Agents(); len(names) != 0 {
				t.Errorf("agents after the refused import = %q, want none", names)
			}
		})
	}
}

// TestImportNeverGivesOutAnIDTwice: an id the agent gave out, to a row it
// still has or one it deleted, is never an imported record's, and an
// export's low counter does not let a new memory take a forgotten one's id:
// an old citation (memory:2) never comes to name other text.
func TestImportNeverGivesOutAnIDTwice(t *testing.T) {
	t.Run("merge onto a deleted id", func(t *testing.T) {
		dst := acquire(t, openTest(t, Options{}), "dst")
		ins, err := dst.Insert(t.Context(), []Memory{mem("kept here", "s"), mem("said and deleted here", "s")})
		if err != nil {
			t.Fatal(err)
		}
		if err := dst.Delete(t.Context(), ins[1].ID); err != nil {
			t.Fatal(err)
		}
		src := acquire(t, openTest(t, Options{}), "src")
		ins, err = src.Insert(t.Context(), []Memory{mem("a filler", "s"), mem("from the export", "s")})
		if err != nil {
			t.Fatal(err)
		}
		if err := src.Delete(t.Context(), ins[0].ID); err != nil {
			t.Fatal(err)
		}
		lines := exportLines(t, src)
		_, err = dst.Import(t.Context(), joinLines(lines), ImportOptions{Merge: true})
		var ie *ImportError
		if line := firstOf(t, lines, "memory") + 1; !errors.As(err, &ie) || ie.Line != line {
			t.Fatalf("merge of memory:2 onto the deleted memory:2: err = %v, want an ImportError at line %d", err, line)
		}
		if _, err := dst.Get(t.Context(), 2); !errors.Is(err, ErrNotFound) {
			t.Errorf("memory:2 after the refused merge: %v, want not found", err)
		}
	})
	t.Run("low counter", func(t *testing.T) {
		src := acquire(t, openTest(t, Options{}), "src")
		ins, err := src.Insert(t.Context(), []Memory{mem("one", "s"), mem("two", "s"), mem("three, forgotten", "s")})
		if err != nil {
			t.Fatal(err)
		}
		if err := src.Delete(t.Context(), ins[2].ID); err != nil {
			t.Fatal(err)
		}
		lines := exportLines(t, src)
		low := strings.Replace(strings.Join(lines, "\n"), `{"type":"sequence","name":"daily_memories","seq":3}`,
			`{"type":"sequence","name":"daily_memories","seq":2}`, 1)
		if low == strings.Join(lines, "\n") {
			t.Fatal("the export has no daily_memories counter of 3 to lower")
		}
		dst := acquire(t, openTest(t, Options{}), "dst")
		if _, err := dst.Import(t.Context(), strings.NewReader(low+"\n"), ImportOptions{}); err != nil {
			t.Fatal(err)
		}
		got, err := dst.Insert(t.Context(), []Memory{mem("a new memory", "s")})
		if err != nil || got[0].ID != 4 {
			t.Errorf("a new memory after the import got %v, %v; want id 4, past the forgotten memory:3", got, err)
		}
	})
}

// TestMergeFlagsWhatTheAgentForgot: a merged memory saying what the agent
// forgot is stored flagged, as a POST of it is: kept, never recalled.
func TestMergeFlagsWhatTheAgentForgot(t *testing.T) {
	dst := acquire(t, openTest(t, Options{}), "dst")
	ins, err := dst.Insert(t.Context(), []Memory{mem("Bob's secret is the garden shed", "s")})
	if err != nil {
		t.Fatal(err)
	}
	if err := dst.Delete(t.Context(), ins[0].ID); err != nil {
		t.Fatal(err)
	}
	src := acquire(t, openTest(t, Options{}), "src")
	if _, err := src.Insert(t.Context(), []Memory{mem("a filler", "s"), mem("Bob's secret is the garden shed", "t")}); err != nil {
		t.Fatal(err)
	}
	if err := src.Delete(t.Context(), 1); err != nil { // the export starts past dst's ids
		t.Fatal(err)
	}
	if _, err := dst.Import(t.Context(), bytes.NewReader(exportOf(t, src)), ImportOptions{Merge: true}); err != nil {
		t.Fatal(err)
	}
	m, err := dst.Get(t.Context(), 2)
	if err != nil || !m.Flagged || !m.Consolidated {
		t.Errorf("the merged memory = flagged %v, consolidated %v (%v); want both, as a POST of it", m.Flagged, m.Consolidated, err)
	}
	hits, err := dst.SearchMemories(t.Context(), SearchOptions{Terms: []string{"secret"}, Limit: 5})
	if err != nil || len(hits) != 0 {
		t.Errorf("search for the forgotten content = %d hits, %v; want none", len(hits), err)
	}
}

// TestImportKilledLeavesNoAgent: an import into a new agent killed with
// SIGKILL mid-way leaves no agent (not an empty one), and the next import
// of the name makes it.
func TestImportKilledLeavesNoAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a large export")
	}
	src := acquire(t, openTest(t, Options{}), "src")
	mems := make([]Memory, 5000)
	for i := range mems {
		mems[i] = mem(fmt.Sprintf("memory number %d of a large export, with a few more words", i), "s")
	}
	if _, err := src.Insert(t.Context(), mems); err != nil {
		t.Fatal(err)
	}
	export := filepath.Join(t.TempDir(), "src.jsonl")
	if err := os.WriteFile(export, exportOf(t, src), 0o600); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^$")
	child.Env = append(os.Environ(), "DORMOUSE_TEST_CHILD_DIR="+dir, "DORMOUSE_TEST_CHILD_IMPORT="+export)
	var out strings.Builder
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	waitForAgentFile(t, filepath.Join(dir, "agents"))
	if err := child.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	if err := child.Wait(); err == nil {
		t.Fatalf("the import finished before the kill: make the export larger\n%s", out.String())
	}
	s := openTest(t, Options{Dir: dir})
	if names, err := s.Agents(); err != nil || len(names) != 0 {
		t.Fatalf("agents after the killed import = %q, %v; want none", names, err)
	}
	f, err := os.Open(export)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if res, err := s.Import(t.Context(), "dst", f, ImportOptions{}); err != nil || !res.Created || res.Records["memory"] != len(mems) {
		t.Errorf("import after the killed one = %+v, %v; want the agent made with %d memories", res, err, len(mems))
	}
}

// waitForAgentFile waits until dir holds a file: the agent's, or the one
// an import builds it in.
func waitForAgentFile(t *testing.T, dir string) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		if entries, _ := os.ReadDir(dir); len(entries) > 0 {
			return
		}
	}
	t.Fatal("the child made no file in a minute")
}

// childImport is TestImportKilledLeavesNoAgent's child: it imports the
// export at path into agent dst of the store in dir.
func childImport(dir, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := Open(context.Background(), Options{Dir: dir})
	if err != nil {
		return err
	}
	defer s.Close()
	_, err = s.Import(context.Background(), "dst", f, ImportOptions{})
	return err
}
