package cli

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/locomo"
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
