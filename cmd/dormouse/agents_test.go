package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAgentsDelete: the real binary, through the daemon and on the files:
// delete refuses without --yes saying what it would remove, then backs up
// and deletes; a later write does not bring the agent back.
func TestAgentsDelete(t *testing.T) {
	for _, mode := range []struct {
		name  string
		setup func(t *testing.T, data string) []string
	}{
		{"daemon", func(t *testing.T, data string) []string { return []string{"--addr", startDaemon(t, data).addr} }},
		{"files", func(t *testing.T, data string) []string { return []string{"--data", data} }},
	} {
		t.Run(mode.name, func(t *testing.T) {
			data := t.TempDir()
			where := mode.setup(t, data)
			cli := func(args ...string) (string, string, int) {
				t.Helper()
				return run(t, nil, "", append(args, where...)...)
			}
			if _, stderr, code := cli("ingest", "--agent", "mian", "typed into the wrong agent"); code != 0 {
				t.Fatalf("ingest: exit %d: %s", code, stderr)
			}
			db := filepath.Join(data, "agents", "mian.db")
			_, stderr, code := cli("agents", "delete", "mian")
			if code != 2 || !strings.Contains(stderr, "would delete agent mian: 1 memories") || !strings.Contains(stderr, "--yes") {
				t.Errorf("delete without --yes: exit %d, %q; want 2 saying what it would delete", code, stderr)
			}
			if _, err := os.Stat(db); err != nil {
				t.Fatalf("delete without --yes touched the agent: %v", err)
			}
			out, stderr, code := cli("agents", "delete", "mian", "--yes")
			backupRE := regexp.MustCompile(`its backup is (\S+) `)
			m := backupRE.FindStringSubmatch(out)
			if code != 0 || m == nil {
				t.Fatalf("delete --yes: exit %d, %q %q", code, out, stderr)
			}
			if fi, err := os.Stat(m[1]); err != nil || fi.Size() == 0 {
				t.Errorf("the backup %s: %v", m[1], err)
			}
			if _, err := os.Stat(db); !os.IsNotExist(err) {
				t.Errorf("%s after delete: %v", db, err)
			}
			if out, _, _ := cli("agents"); strings.TrimSpace(out) != "" {
				t.Errorf("agents after delete: %q, want none", out)
			}
			_, stderr, code = cli("ingest", "--agent", "mian", "again")
			if code != 1 || !strings.Contains(stderr, "was deleted") {
				t.Errorf("a write to the deleted agent: exit %d, %q", code, stderr)
			}
			if out, stderr, code := cli("agents", "create", "mian"); code != 0 || !strings.Contains(out, "created agent mian") {
				t.Errorf("create: exit %d, %q %q", code, out, stderr)
			}
		})
	}
}

// TestAgentsCreateExplicit: with agents.create explicit, a write to a new
// agent is refused naming the setting until the agent is created.
func TestAgentsCreateExplicit(t *testing.T) {
	data := t.TempDir()
	env := []string{"DORMOUSE_AGENTS_CREATE=explicit"}
	_, stderr, code := run(t, env, "", "ingest", "--data", data, "--agent", "main", "hello")
	if code != 1 || !strings.Contains(stderr, "agents.create is explicit") {
		t.Fatalf("ingest into a new agent: exit %d, %q; want the setting named", code, stderr)
	}
	if _, stderr, code := run(t, env, "", "agents", "create", "main", "--data", data); code != 0 {
		t.Fatalf("agents create: exit %d, %s", code, stderr)
	}
	if _, stderr, code := run(t, env, "", "ingest", "--data", data, "--agent", "main", "hello"); code != 0 {
		t.Errorf("ingest after create: exit %d, %s", code, stderr)
	}
}

// TestExportImportRoundTrip: export from the daemon, import into a fresh
// data directory, export again: the same bytes. The Markdown export writes
// a note per day with the memories' ids.
func TestExportImportRoundTrip(t *testing.T) {
	d := startDaemon(t, t.TempDir())
	for _, m := range []string{"Alice moved to Chicago", "Bob likes green tea"} {
		if _, stderr, code := run(t, nil, "", "ingest", "--addr", d.addr, "--agent", "home", "--at", "2026-02-01T10:00:00Z", m); code != 0 {
			t.Fatalf("ingest: %s", stderr)
		}
	}
	dir := t.TempDir()
	first := filepath.Join(dir, "first.jsonl")
	if _, stderr, code := run(t, nil, "", "export", "--addr", d.addr, "--agent", "home", "--out", first); code != 0 {
		t.Fatalf("export: exit %d, %s", code, stderr)
	}
	fresh := t.TempDir()
	out, stderr, code := run(t, nil, "", "import", "--data", fresh, first)
	if code != 0 || !strings.Contains(out, "imported into agent home: ") || !strings.Contains(out, "2 memory") {
		t.Fatalf("import: exit %d, %q %q", code, out, stderr)
	}
	second, stderr, code := run(t, nil, "", "export", "--data", fresh, "--agent", "home")
	want, _ := os.ReadFile(first)
	if code != 0 || !bytes.Equal(want, []byte(second)) {
		t.Errorf("export after import (exit %d, %s) differs:\n%s\nwant:\n%s", code, stderr, second, want)
	}
	_, stderr, code = run(t, nil, "", "import", "--data", fresh, first)
	if code != 1 || !strings.Contains(stderr, "not empty") {
		t.Errorf("a second import: exit %d, %q; want refused as not empty", code, stderr)
	}
	piped := t.TempDir()
	out, stderr, code = run(t, nil, string(want), "import", "--data", piped, "-")
	if code != 0 || !strings.Contains(out, "imported into agent home: ") || !strings.Contains(out, "2 memory") {
		t.Errorf("import from stdin, the agent named by the header: exit %d, %q %q", code, out, stderr)
	}
	_, stderr, code = run(t, nil, `{"type":"not-an-export"}`+"\n", "import", "--data", piped, "-")
	if code != 2 || !strings.Contains(stderr, "does not start with a Dormouse export") {
		t.Errorf("stdin that is no export: exit %d, %q", code, stderr)
	}
	notes := filepath.Join(dir, "notes")
	if _, stderr, code := run(t, nil, "", "export", "--addr", d.addr, "--agent", "home", "--format", "markdown", "--out", notes); code != 0 {
		t.Fatalf("markdown export: exit %d, %s", code, stderr)
	}
	note, err := os.ReadFile(filepath.Join(notes, "2026-02-01.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"---\ndate: 2026-02-01\nagent: home\n", "· memory:1", "Alice moved to Chicago", "· memory:2"} {
		if !strings.Contains(string(note), want) {
			t.Errorf("the day's note lacks %q:\n%s", want, note)
		}
	}
}
