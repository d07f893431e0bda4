package locomo

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/locomo/dataset"
)

// dataPath is the LoCoMo file as dataset.Find has it ($DORMOUSE_LOCOMO, the
// shared data beside the checkout, the cached download); the test skips,
// saying why, where there is none. Tests never download it.
func dataPath(t testing.TB) string {
	t.Helper()
	p, err := dataset.Find(
		filepath.Join("..", "..", "..", "..", "shared", "data", "locomo", "locomo10.json"),
		filepath.Join("..", "..", "..", "shared", "data", "locomo", "locomo10.json"))
	if err != nil {
		t.Skipf("%v: skipping", err)
	}
	return p
}

// quirky is a two-session sample with the file's quirks: a numeric answer,
// evidence in one string, a broken id, an id naming no turn, a session date
// without a session, a question without an answer, an image caption.
const quirky = `[{"sample_id":"conv-x","conversation":{"speaker_a":"Ann","speaker_b":"Ben",
 "session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[
  {"speaker":"Ann","dia_id":"D1:1","text":"I got a dog."},
  {"speaker":"Ben","dia_id":"D1:2","text":"Look!","img_url":["x"],"blip_caption":"a photo of a cat"}],
 "session_2_date_time":"10:04 am on 27 June, 2023","session_2":[
  {"speaker":"Ann","dia_id":"D2:1","text":"The dog is called Rex."}],
 "session_3_date_time":"9:00 am on 1 July, 2023"},
 "observation":{"x":"never read"},
 "qa":[{"question":"How many dogs?","answer":1,"evidence":["D1:1"],"category":4},
  {"question":"Names?","answer":"Rex","evidence":["D1:1; D2:1","D","D:11:26","D9:9"],"category":1},
  {"question":"What does Ben's cat eat?","adversarial_answer":"fish","evidence":["D1:2"],"category":5}]}]`

func TestParseQuirks(t *testing.T) {
	set, err := Parse([]byte(quirky))
	if err != nil {
		t.Fatal(err)
	}
	s := set[0]
	if len(s.Sessions) != 2 || s.Sessions[1].N != 2 || len(s.Sessions[0].Turns) != 2 {
		t.Fatalf("sessions: %+v", s.Sessions)
	}
	if got := s.Sessions[0].Date; !got.Equal(time.Date(2023, 5, 8, 13, 56, 0, 0, time.UTC)) {
		t.Errorf("session 1 date %s", got)
	}
	if got := s.Sessions[0].Turns[1].Text; got != "Look! [shared an image: a photo of a cat]" {
		t.Errorf("caption: %q", got)
	}
	q := s.Questions[1]
	if strings.Join(q.Evidence, ",") != "D1:1,D2:1" || q.Dropped != 1 {
		t.Errorf("evidence %v dropped %d; want D1:1,D2:1 and 1 dropped", q.Evidence, q.Dropped)
	}
	if s.Questions[2].Category != 5 || len(s.Questions[2].Evidence) != 1 {
		t.Errorf("adversarial question: %+v", s.Questions[2])
	}
	if _, err := Parse([]byte(`{"not":"an array"}`)); err == nil {
		t.Error("an object parsed as the data set")
	}
	if _, err := Parse([]byte(`[{"sample_id":"x","conversation":{"session_1":[],"session_1_date_time":"yesterday"},"qa":[]}]`)); err == nil {
		t.Error("a bad session date parsed")
	}
}

func TestParseSamplesAndKs(t *testing.T) {
	cases := []struct {
		in   string
		want []int
		bad  bool
	}{
		{"0-4", []int{0, 1, 2, 3, 4}, false},
		{"all", []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}, false},
		{"7,2,2", []int{7, 2}, false},
		{"5-9", []int{5, 6, 7, 8, 9}, false},
		{"4-1", nil, true},
		{"10", nil, true},
		{"x", nil, true},
	}
	for _, c := range cases {
		got, err := ParseSamples(c.in, 10)
		if (err != nil) != c.bad || !c.bad && fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("ParseSamples(%q) = %v, %v", c.in, got, err)
		}
	}
	if ks, err := ParseKs("50,5,10,5"); err != nil || fmt.Sprint(ks) != "[5 10 50]" {
		t.Errorf("ParseKs = %v, %v", ks, err)
	}
	for _, bad := range []string{"0", "a", "5,,10", "2000"} {
		if _, err := ParseKs(bad); err == nil {
			t.Errorf("ParseKs(%q) accepted", bad)
		}
	}
}
