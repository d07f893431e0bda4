package cli

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/locomo"
	"github.com/dormouse-dev/dormouse/internal/locomo/dataset"
)

const tinyLocomo = `[{"sample_id":"conv-t","conversation":{"speaker_a":"Ann","speaker_b":"Ben",
 "session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[
  {"speaker":"Ann","dia_id":"D1:1","text":"Yesterday I adopted a dog called Rex."},
  {"speaker":"Ben","dia_id":"D1:2","text":"Wow, congrats!"},
  {"speaker":"Ann","dia_id":"D1:3","text":"I also started a pottery class."}]},
 "qa":[{"question":"What is Ann's dog called?","answer":"Rex","evidence":["D1:1"],"category":4},
  {"question":"What did Ann start?","answer":"pottery","evidence":["D1:3","D1:9"],"category":1}]}]`

// TestBenchLocomoQuestions: --questions writes a JSON line a question, in
// order, with where each evidence turn ranked; --explain adds the items
// with their score parts. The file is private (0600).
func TestBenchLocomoQuestions(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "locomo.json")
	if err := os.WriteFile(data, []byte(tinyLocomo), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "questions.jsonl")
	_, stderr, code := runMain(t, "", "bench", "locomo", "--data", data, "--k", "1,5", "--questions", out, "--explain")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Errorf("questions file mode %v, want 0600", st.Mode().Perm())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []locomo.QuestionResult
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r locomo.QuestionResult
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		lines = append(lines, r)
	}
	if len(lines) != 2 || lines[0].Question != "What is Ann's dog called?" || lines[1].Category != 1 {
		t.Fatalf("lines %+v, want the two questions in order", lines)
	}
	dog := lines[0]
	if len(dog.Evidence) != 1 || dog.Evidence[0].ID != "D1:1" || dog.Evidence[0].Rank != 1 || dog.Recall["1"] != 1 {
		t.Errorf("dog question: %+v; want D1:1 ranked first, recall@1 1", dog)
	}
	if len(dog.Turns) == 0 || len(dog.Turns) > 5 || len(dog.Items) == 0 || dog.Items[0].Explain == nil {
		t.Errorf("dog question: turns %v (want 1..5), items %+v (want explained)", dog.Turns, dog.Items)
	}
	// An evidence id that names no turn is dropped by the loader; one that
	// was not returned ranks 0.
	for _, e := range lines[1].Evidence {
		if e.ID == "D1:3" && e.Rank < 1 {
			t.Errorf("pottery question: %+v; want D1:3 returned", lines[1])
		}
	}
}

// TestBenchLocomoDownloads: without --data the first run downloads the file
// from --source into the user cache, saying so and under which licence; the
// next runs on the cached copy, with the server gone.
func TestBenchLocomoDownloads(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped with -short: runs the benchmark on a sample twice")
	}
	var real []byte
	for _, p := range []string{"../../../shared/data/locomo/locomo10.json", "../../../../shared/data/locomo/locomo10.json"} {
		if b, err := os.ReadFile(p); err == nil {
			real = b
			break
		}
	}
	if real == nil {
		t.Skip("the shared LoCoMo data is absent: a download of the real file is not checked")
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(real) }))
	args := []string{"bench", "locomo", "--source", srv.URL + "/locomo10.json", "--samples", "0", "--k", "5", "--json"}
	_, stderr, code := runMain(t, "", args...)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	cached := filepath.Join(cache, "dormouse", "locomo10.json")
	if !strings.Contains(stderr, "downloading the LoCoMo data") || !strings.Contains(stderr, "CC BY-NC 4.0") || !strings.Contains(stderr, cached) {
		t.Errorf("stderr %q, want the download, its licence and where it goes", stderr)
	}
	srv.Close()
	stdout, stderr, code := runMain(t, "", args...)
	var rep locomo.Report
	if code != ExitOK || strings.Contains(stderr, "downloading") || json.Unmarshal([]byte(stdout), &rep) != nil || rep.Overall.N == 0 {
		t.Errorf("second run: exit %d, stderr %q, %d questions; want the cached copy scored", code, stderr, rep.Overall.N)
	}
}

// TestBenchLocomoDownloadFails: a download that is not the file, or that
// fails, is an error saying so, and nothing is cached.
func TestBenchLocomoDownloadFails(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/locomo10.json" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(tinyLocomo))
	}))
	defer srv.Close()
	for _, tc := range []struct{ path, want string }{
		{"/locomo10.json", "want " + dataset.SHA256 + ": not the file Dormouse is measured on"},
		{"/moved.json", "the server answered 404 Not Found"},
	} {
		cache := t.TempDir()
		t.Setenv("XDG_CACHE_HOME", cache)
		_, stderr, code := runMain(t, "", "bench", "locomo", "--source", srv.URL+tc.path)
		if code != ExitError || !strings.Contains(stderr, "download LoCoMo data from "+srv.URL+tc.path) || !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want an error saying %q", tc.path, code, stderr, tc.want)
		}
		if ents, _ := os.ReadDir(filepath.Join(cache, "dormouse")); len(ents) != 0 {
			t.Errorf("%s: the cache holds %v after a failed download", tc.path, ents)
		}
	}
}
