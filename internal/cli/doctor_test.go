package cli

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/doctor"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/server"
	"github.com/dormouse-dev/dormouse/internal/store"
)

func TestDoctor(t *testing.T) {
	data := t.TempDir()
	if err := os.Chmod(data, 0o700); err != nil { // as dormouse makes it, whatever the umask
		t.Fatal(err)
	}
	if _, stderr, code := runMain(t, "", "ingest", "--data", data, "--agent", "main", "Alice likes tea"); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	stdout, _, _ := runMain(t, "", "doctor", "--data", data, "--json")
	var res struct {
		Checks []doctor.Check `json:"checks"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, stdout)
	}
	got := map[string]string{}
	for _, c := range res.Checks {
		got[c.Name] = c.Status
	}
	for _, name := range []string{"config", "clock", "data directory", "agent files", "integrity main", "llm provider"} {
		if got[name] != doctor.OK {
			t.Errorf("%s = %q, want ok (all: %v)", name, got[name], got)
		}
	}

	// A corrupt agent file: exit 1 and the advice to restore.
	if err := os.WriteFile(filepath.Join(data, "agents", "broken.db"), []byte("garbage garbage garbage garbage garbage garbage garbage!"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, _, code := runMain(t, "", "doctor", "--data", data)
	if code != ExitError || !strings.Contains(stdout, "FAIL  integrity broken") || !strings.Contains(stdout, "dormouse restore --agent broken") {
		t.Errorf("doctor with a corrupt file: exit %d\n%s", code, stdout)
	}

	// A broken configuration: one failed check naming the file, exit 1.
	cfg := filepath.Join(t.TempDir(), "bad.yaml")
	if err := os.WriteFile(cfg, []byte("storage:\n  read_conns: -3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stdout, _, code = runMain(t, "", "doctor", "--config", cfg)
	if code != ExitError || !strings.Contains(stdout, "FAIL  config") || !strings.Contains(stdout, "storage.read_conns") || !strings.Contains(stdout, cfg) {
		t.Errorf("doctor with a bad config: exit %d\n%s", code, stdout)
	}
}

func TestStatusShowsHealth(t *testing.T) {
	data := t.TempDir()
	if _, stderr, code := runMain(t, "", "ingest", "--data", data, "--agent", "main", "Alice likes tea"); code != 0 {
		t.Fatalf("ingest: %s", stderr)
	}
	stdout, stderr, code := runMain(t, "", "status", "--data", data)
	if code != 0 || !strings.Contains(stdout, "health: ok") || !strings.Contains(stdout, "host: disk ") || !strings.Contains(stdout, "main") {
		t.Errorf("status --data: exit %d\n%s%s", code, stdout, stderr)
	}

	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	mon := &health.Monitor{Thresholds: health.Thresholds{Backlog: 1}, Collector: health.CollectorFunc(func(context.Context) health.Readings {
		return health.Readings{
			System:   health.System{DiskPath: "/", DiskTotal: 100, DiskPercent: 99.5},
			Agents:   []health.Agent{{Name: "main", Backlog: 3}},
			Provider: &health.Provider{Name: "ollama", Error: "connection refused"},
		}
	})}
	ts := httptest.NewServer(server.New(st, &recall.Engine{}, server.Options{AutoCreate: true, Health: mon}))
	defer ts.Close()
	stdout, _, code = runMain(t, "", "status", "--addr", strings.TrimPrefix(ts.URL, "http://"))
	for _, want := range []string{"health: failing", "disk / is 99.5% full", "LLM provider ollama unreachable", "llm provider ollama: UNREACHABLE: connection refused"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("status --addr lacks %q (exit %d):\n%s", want, code, stdout)
		}
	}
}

// Doctor looks for every model the configuration uses.
func TestWantModels(t *testing.T) {
	var cfg config.Config
	cfg.LLM.Provider = "ollama"
	if got := wantModels(cfg); strings.Join(got, " ") != "llama3.2" {
		t.Errorf("chat only: %v", got)
	}
	cfg.LLM.Vision, cfg.LLM.VisionModel = true, "llava"
	cfg.Recall.Embeddings.Enabled = true
	if got := wantModels(cfg); strings.Join(got, " ") != "llama3.2 llava nomic-embed-text" {
		t.Errorf("chat, vision and embeddings: %v", got)
	}
}
