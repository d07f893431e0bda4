package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestIngestFileAndWatchLocal(t *testing.T) {
	data, vault := t.TempDir(), t.TempDir()
	note := filepath.Join(t.TempDir(), "plan.md")
	if err := os.WriteFile(note, []byte("# Plan\n\nRepaint the fence in April.\n\n## Budget\n\nAt most 200 euros.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runMain(t, "", "ingest", "--data", data, "--file", note)
	if code != ExitOK || out != "plan.md: stored 2 memories\n" {
		t.Fatalf("ingest --file: exit %d, %q %q", code, out, errOut)
	}
	out, _, code = runMain(t, "", "ingest", "--data", data, "--file", note)
	if code != ExitOK || out != "plan.md: already stored (same content)\n" {
		t.Errorf("ingest --file again: exit %d, %q", code, out)
	}
	_, errOut, code = runMain(t, "", "ingest", "--data", data, "--file", filepath.Join(vault, "missing.md"))
	if code != ExitError || !strings.Contains(errOut, "no such file") {
		t.Errorf("ingest --file missing: exit %d, %q", code, errOut)
	}
	_, errOut, code = runMain(t, "", "ingest", "--data", data, "--file", note, "extra text")
	if code != ExitUsage {
		t.Errorf("ingest --file with text: exit %d, %q", code, errOut)
	}
	out, _, code = runMain(t, "", "recall", "--data", data, "fence")
	if code != ExitOK || !strings.Contains(out, "Repaint the fence") {
		t.Errorf("recall after ingest --file: exit %d, %q", code, out)
	}

	// watch list / scan / status on a configured folder, without a daemon.
	if err := os.WriteFile(filepath.Join(vault, "a.md"), []byte("The osprey nests by the river.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, "b.jsonl"), []byte("not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(t.TempDir(), "d.yaml")
	yaml := "watch:\n  - path: " + vault + "\n    agent: notes\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = runMain(t, "", "watch", "list", "--config", cfg)
	if code != ExitOK || !strings.Contains(out, vault) || !strings.Contains(out, "notes") || !strings.Contains(out, "mirror") {
		t.Errorf("watch list: exit %d, %q %q", code, out, errOut)
	}
	out, errOut, code = runMain(t, "", "watch", "scan", "--config", cfg, "--data", data, "--json")
	var scan struct {
		Scans []struct{ Seen, Ingested, Failed int } `json:"scans"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &scan) != nil || len(scan.Scans) != 1 ||
		scan.Scans[0].Seen != 2 || scan.Scans[0].Ingested != 1 || scan.Scans[0].Failed != 1 {
		t.Errorf("watch scan: exit %d, %q %q", code, out, errOut)
	}
	out, _, code = runMain(t, "", "watch", "status", "--config", cfg, "--data", data)
	if code != ExitOK || !strings.Contains(out, "1 failing files") || !strings.Contains(out, "b.jsonl") ||
		!strings.Contains(out, "no line holds valid JSON") {
		t.Errorf("watch status: exit %d, %q", code, out)
	}
	out, _, code = runMain(t, "", "watch", "status", "--config", cfg, "--data", data, "--json")
	var status struct {
		Folders []struct {
			FilesTracked int `json:"files_tracked"`
		} `json:"folders"`
	}
	if code != ExitOK || json.Unmarshal([]byte(out), &status) != nil || len(status.Folders) != 1 || status.Folders[0].FilesTracked != 2 {
		t.Errorf("watch status --json after the scan: exit %d, %q; want 2 files tracked", code, out)
	}
	out, _, code = runMain(t, "", "status", "--data", data)
	if code != ExitOK || !strings.Contains(out, "1 failing files") || !strings.Contains(out, "b.jsonl: parse JSON Lines") {
		t.Errorf("status lists failing files: exit %d, %q", code, out)
	}
	_, _, code = runMain(t, "", "watch")
	if code != ExitUsage {
		t.Errorf("watch without a verb: exit %d, want usage", code)
	}
	_, errOut, code = runMain(t, "", "watch", "sync")
	if code != ExitUsage || !strings.Contains(errOut, `unknown watch verb "sync"`) {
		t.Errorf("watch sync: exit %d, %q", code, errOut)
	}
}
