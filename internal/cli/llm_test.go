package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestConsolidateWithAModel: with llm.provider set, the CLI consolidates
// through that provider (an OpenAI-compatible server here), plans with its
// estimator, and stops at the night's budget with a partial run.
func TestConsolidateWithAModel(t *testing.T) {
	const key = "sk-cli-test-DORMOUSE-secret"
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":{"message":"unexpected request"}}`, http.StatusBadRequest)
			return
		}
		calls.Add(1)
		answer := `{"summary":"Alice is an engineer.","key_facts":[],"entities":[{"text":"Alice","type":"person","count":1}],"topics":["work"],"insights":[]}`
		writeChatCompletion(w, "qwen2.5", answer, 300, 40)
	}))
	t.Cleanup(srv.Close)

	dir := t.TempDir()
	cfg := filepath.Join(dir, "dormouse.yaml")
	yaml := "llm:\n  provider: openai\n  model: qwen2.5\n  base_url: " + srv.URL + "/v1\n  budget:\n    max_calls: 1\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string, int) {
		o, e, code := runEnv([]string{"DORMOUSE_CONFIG=" + cfg, "OPENAI_API_KEY=" + key}, "", args...)
		if strings.Contains(o+e, key) {
			t.Errorf("the API key was printed: %s %s", o, e)
		}
		return o, e, code
	}
	data := filepath.Join(dir, "data")
	var days []string
	for _, ago := range []int{3, 2} {
		d := time.Now().AddDate(0, 0, -ago)
		at := time.Date(d.Year(), d.Month(), d.Day(), 12, 0, 0, 0, time.Local)
		days = append(days, at.Format(time.DateOnly))
		if _, errOut, code := run("ingest", "--data", data, "--agent", "home", "--at", at.Format(time.RFC3339), fmt.Sprintf("Note %d: Alice's role is engineer.", ago)); code != ExitOK {
			t.Fatalf("ingest: exit %d: %s", code, errOut)
		}
	}

	out, errOut, code := run("consolidate", "--data", data, "--agent", "home", "--dry-run")
	if code != ExitOK || !strings.Contains(out, days[0]) || calls.Load() != 0 {
		t.Fatalf("dry run: exit %d, %q %q, %d calls", code, out, errOut, calls.Load())
	}
	if f := strings.Fields(strings.Split(out, "\n")[1]); len(f) != 7 || f[5] != "1" || f[6] == "0" {
		t.Errorf("dry run row %q, want one call and an estimate of its tokens", f)
	}

	out, errOut, code = run("consolidate", "--data", data, "--agent", "home")
	if code != ExitOK || calls.Load() != 1 {
		t.Fatalf("consolidate: exit %d, %q %q after %d calls", code, out, errOut, calls.Load())
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 || !strings.Contains(lines[1], " ok ") || !strings.Contains(lines[1], "300/40") ||
		!strings.Contains(lines[2], " partial ") {
		t.Errorf("consolidate output:\n%s\n%s\nwant the first day ok at 300/40 tokens, the second partial", out, errOut)
	}
}

// writeChatCompletion answers as OpenAI's /v1/chat/completions does: one
// choice whose message content is content.
func writeChatCompletion(w io.Writer, model, content string, in, out int) {
	c, _ := json.Marshal(content)
	fmt.Fprintf(w, `{"id":"chatcmpl-1","object":"chat.completion","created":1772485445,"model":%q,`+
		`"choices":[{"index":0,"message":{"role":"assistant","content":%s},"finish_reason":"stop"}],`+
		`"usage":{"prompt_tokens":%d,"completion_tokens":%d,"total_tokens":%d}}`, model, c, in, out, in+out)
}
