package main

import (
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode"
)

// modelOllama is Ollama's HTTP API with a deterministic embedding model and
// a chat model that answers from the context it is given. Embeddings are a
// bag of words hashed into 64 dimensions, where the made-up synonyms glorp
// and snazzle share one: a question about the snazzle finds the glorp only
// by its vector. The chat model answers "The model says: <the line>" with
// the citation of the context line that mentions the glorp, so an answer
// shows both who wrote it and what recall gave it.
func modelOllama(t *testing.T) *httptest.Server {
	cite := regexp.MustCompile(`\[memory:\d+\][^\n]*glorp`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/embed":
			var req struct{ Input []string }
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
				return
			}
			out := struct {
				Embeddings [][]float32 `json:"embeddings"`
			}{}
			for _, in := range req.Input {
				out.Embeddings = append(out.Embeddings, bagOfWords(in))
			}
			json.NewEncoder(w).Encode(out)
		case "/api/chat":
			var req struct{ Messages []struct{ Content string } }
			if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
				http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
				return
			}
			answer := "Nothing stored answers this."
			if m := cite.FindString(req.Messages[len(req.Messages)-1].Content); m != "" {
				answer = "The model says it is under the stairs " + m[:strings.Index(m, "]")+1] + "."
			}
			text, _ := json.Marshal(answer)
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"model":"qwen2.5","created_at":"2026-03-02T21:04:05Z","message":{"role":"assistant","content":` +
				string(text) + `},"done_reason":"stop","done":true,"prompt_eval_count":300,"eval_count":20}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func bagOfWords(s string) []float32 {
	v := make([]float32, 64)
	v[0] = 0.01
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if len(w) < 4 || w == "where" {
			continue
		}
		if w == "snazzle" {
			w = "glorp"
		}
		h := fnv.New32a()
		h.Write([]byte(w))
		v[1+h.Sum32()%63] += 3
	}
	return v
}

// TestOneAnswererEverywhere: the daemon, `ask --data`, `recall --data` and `mcp --data` are
// built from one composition root, so with a model and the semantic arm configured each
// answers with the model and recalls by stored vectors. A question sharing no word with
// the memory finds it only through the semantic arm.
func TestOneAnswererEverywhere(t *testing.T) {
	srv := modelOllama(t)
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "dormouse.yaml")
	yaml := "timezone: UTC\nllm:\n  provider: ollama\n  model: qwen2.5\n  base_url: " + srv.URL +
		"\n  max_retries: 0\nrecall:\n  embeddings:\n    enabled: true\n"
	if err := os.WriteFile(cfgPath, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	env := []string{"DORMOUSE_CONFIG=" + cfgPath}
	data := filepath.Join(dir, "data")
	const question = "Where did the snazzle go?"
	wantAnswer := func(t *testing.T, who, out string) {
		t.Helper()
		if !strings.Contains(out, "The model says it is under the stairs [memory:1]") {
			t.Errorf("%s answered %q; want the model's answer from the glorp memory", who, out)
		}
	}

	d := startDaemon(t, data, env...)
	for _, m := range []string{"The glorp sits under the stairs.", "We drove to Chicago on Friday."} {
		if out, errOut, code := run(t, env, "", "ingest", "--addr", d.addr, m); code != 0 {
			t.Fatalf("ingest: exit %d %s %s", code, out, errOut)
		}
	}
	waitEmbedded(t, d.addr)
	out, errOut, code := run(t, env, "", "ask", "--addr", d.addr, question)
	if code != 0 {
		t.Fatalf("ask --addr: exit %d %s", code, errOut)
	}
	wantAnswer(t, "the daemon", out)
	if err := d.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("stop the daemon: %v", err)
	}

	out, errOut, code = run(t, env, "", "ask", "--data", data, question)
	if code != 0 {
		t.Fatalf("ask --data: exit %d %s", code, errOut)
	}
	wantAnswer(t, "ask --data", out)
	out, errOut, code = run(t, env, "", "recall", "--data", data, question)
	if code != 0 || !strings.Contains(out, "[memory:1]") || !strings.Contains(out, "glorp") {
		t.Errorf("recall --data: exit %d %q %s; want the glorp memory by its vector", code, out, errOut)
	}
	cs := mcpSessionEnv(t, env, "--data", data)
	wantAnswer(t, "mcp --data", toolText(t, cs, "ask", map[string]any{"question": question}))

	// One health monitor: the provider (unreachable here: the fake lists no
	// models) is probed for `status --data` and mcp --data's status alike.
	out, errOut, _ = run(t, env, "", "status", "--data", data, "--json")
	var st struct{ Health struct{ Reasons []string } }
	err := json.Unmarshal([]byte(out), &st)
	reasons := st.Health.Reasons
	if err != nil || !strings.Contains(strings.Join(reasons, " "), "ollama") {
		t.Fatalf("status --data --json = %q (%v) %s; want the unreachable provider among the reasons", out, err, errOut)
	}
	if got := toolText(t, cs, "status", nil); !strings.Contains(got, strings.Join(reasons, "; ")) {
		t.Errorf("mcp --data status = %q; want the reasons of status --data, %q", got, reasons)
	}
}

// waitEmbedded waits until the daemon at addr reports no memory left without a vector.
func waitEmbedded(t *testing.T, addr string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var h struct {
			Embeddings *struct {
				Backlog     int64
				LastSuccess *time.Time `json:"last_success"`
			}
		}
		resp, err := http.Get("http://" + addr + "/health")
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&h)
			resp.Body.Close()
		}
		if err == nil && h.Embeddings != nil && h.Embeddings.Backlog == 0 && h.Embeddings.LastSuccess != nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("memories still without vectors after 30s: %v %+v", err, h.Embeddings)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
