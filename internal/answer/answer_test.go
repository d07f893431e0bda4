package answer_test

import (
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

func TestValidate(t *testing.T) {
	valid := map[string]bool{"memory:12": true, "fact:3": true, "consolidation:2": true, "household/memory:4": true}
	tests := []struct {
		name, in, want string
		cites, dropped []string
	}{
		{"canonical", "The budget is $2.1M [memory:12].", "The budget is $2.1M [memory:12].", []string{"memory:12"}, nil},
		{"repaired forms", "Penicillin [Memory 12], confirmed (fact #3).", "Penicillin [memory:12], confirmed [fact:3].",
			[]string{"memory:12", "fact:3"}, nil},
		{"group split", "Both say so [memory:12, fact:3; consolidation:2].", "Both say so [memory:12][fact:3][consolidation:2].",
			[]string{"memory:12", "fact:3", "consolidation:2"}, nil},
		{"invented id dropped", "It is P-117 [memory:99].", "It is P-117.", []string{}, []string{"memory:99"}},
		{"invalid part of a group", "Yes [memory:12, memory:7].", "Yes [memory:12].", []string{"memory:12"}, []string{"memory:7"}},
		{"bare citation", "As memory:12 says, and fact:8 too.", "As [memory:12] says, and too.", []string{"memory:12"}, []string{"fact:8"}},
		{"plural kinds", "Seen in [memories 12] and (facts: 3).", "Seen in [memory:12] and [fact:3].", []string{"memory:12", "fact:3"}, nil},
		{"not a citation", "Use [brackets] (like this) and [1].", "Use [brackets] (like this) and [1].", []string{}, nil},
		{"unknown kind left alone", "See [note:4].", "See [note:4].", []string{}, nil},
		{"repeat cited once", "A [fact:3]. B [fact:3].", "A [fact:3]. B [fact:3].", []string{"fact:3"}, nil},
		{"leading zeros", "X [memory:012].", "X [memory:12].", []string{"memory:12"}, nil},
		{"granted agent's", "Away until Sunday [household/memory:4, memory:12].", "Away until Sunday [household/memory:4][memory:12].",
			[]string{"household/memory:4", "memory:12"}, nil},
		{"granted agent's bare and repaired", "As household/memory:4 says (Household/Memory #4).", "As [household/memory:4] says [household/memory:4].",
			[]string{"household/memory:4"}, nil},
		{"another agent's id is not the reader's", "Set to 15 [household/memory:12] [team/fact:3].", "Set to 15.",
			[]string{}, []string{"household/memory:12", "team/fact:3"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, cites, dropped := answer.Validate(tc.in, valid)
			if got != tc.want || !slices.Equal(cites, tc.cites) || !slices.Equal(dropped, tc.dropped) {
				t.Errorf("Validate(%q) = %q, %q, %q; want %q, %q, %q", tc.in, got, cites, dropped, tc.want, tc.cites, tc.dropped)
			}
			for _, c := range answer.Cited(got) {
				if !valid[c] {
					t.Errorf("the repaired answer %q still cites %s", got, c)
				}
			}
		})
	}
}

func FuzzValidate(f *testing.F) {
	for _, s := range []string{"a [memory:1] b", "[fact:2, memory:3]", "(consolidation #4)", "memory:5", "[[memory:1]]", "[memory:99999999999999999999]"} {
		f.Add(s)
	}
	valid := map[string]bool{"memory:1": true, "fact:2": true}
	f.Fuzz(func(t *testing.T, s string) {
		out, cites, _ := answer.Validate(s, valid)
		for _, c := range append(cites, answer.Cited(out)...) {
			if !valid[c] {
				t.Fatalf("Validate(%q) = %q keeps citation %s of no context item", s, out, c)
			}
		}
	})
}

func items(texts ...string) []recall.Item {
	var out []recall.Item
	for i, s := range texts {
		out = append(out, recall.Item{ID: "memory:" + string(rune('1'+i)), Kind: "memory", Text: s})
	}
	return out
}

func TestExtract(t *testing.T) {
	tests := []struct {
		name, q   string
		items     []recall.Item
		n         int
		want      string
		wantCites []string
	}{
		{"best sentences with their citations, in rank order", "What is the Q3 budget?",
			items("Correction from finance: the Q3 budget is $2.1M. Alice agreed.", "Lunch was good.", "Budget meeting moved to Monday."), 2,
			"Correction from finance: the Q3 budget is $2.1M. [memory:1] Budget meeting moved to Monday. [memory:3]",
			[]string{"memory:1", "memory:3"}},
		{"no shared word: recall's best items speak", "Is there any medicine I should avoid?",
			items("I am allergic to penicillin. Never suggest it.", "Standup notes."), 1,
			"I am allergic to penicillin. [memory:1]", []string{"memory:1"}},
		{"stems match", "What has Bob been raising?",
			items("Bob raised the inverter budget again.", "Carol shared logos."), 3,
			"Bob raised the inverter budget again. [memory:1]", []string{"memory:1"}},
		{"said once, citing every source", "gate code",
			items("The gate code is 5678.", "the gate code is 5678!"), 3,
			"The gate code is 5678. [memory:1][memory:2]", []string{"memory:1", "memory:2"}},
		{"one value in other words, and a fact's entity is no prose", "What is my phone number?",
			[]recall.Item{
				{ID: "profile:6", Kind: "profile", Text: "The user's phone number is 555-0199."},
				{ID: "memory:11", Kind: "memory", Text: "My new phone number is 555-0199."},
				{ID: "fact:7", Kind: "fact", Text: "user: My new phone number is 555-0199."},
			}, 3,
			"The user's phone number is 555-0199. [profile:6][memory:11][fact:7]",
			[]string{"profile:6", "memory:11", "fact:7"}},
		{"the same value about different things is said twice", "When are the launch and the party?",
			items("The launch is on 6 March.", "The party is on 6 March."), 3,
			"The launch is on 6 March. [memory:1] The party is on 6 March. [memory:2]", []string{"memory:1", "memory:2"}},
		{"different values are different statements", "What is the gate code?",
			items("The gate code is 5678.", "The gate code is 9012."), 3,
			"The gate code is 5678. [memory:1] The gate code is 9012. [memory:2]", []string{"memory:1", "memory:2"}},
		{"a negation is no repetition", "Does Bob eat fish on 3 May?",
			items("Bob eats fish on 3 May.", "Bob never eats fish on 3 May."), 3,
			"Bob eats fish on 3 May. [memory:1] Bob never eats fish on 3 May. [memory:2]", []string{"memory:1", "memory:2"}},
		{"old and new are different", "What is my phone number?",
			items("My old phone number is 555-0100.", "My new phone number is 555-0199.", "My new phone number is 555-0199."), 3,
			"My old phone number is 555-0100. [memory:1] My new phone number is 555-0199. [memory:2][memory:3]", []string{"memory:1", "memory:2", "memory:3"}},
		{"a repeat takes no place of the n", "What is Alice's phone number and email?",
			items("Alice's phone number is 555-0101.", "Alice's phone number is 555-0101.", "Alice's email is alice@example.com."), 2,
			"Alice's phone number is 555-0101. [memory:1][memory:2] Alice's email is alice@example.com. [memory:3]", []string{"memory:1", "memory:2", "memory:3"}},
		{"nothing", "anything", nil, 3, answer.NothingFound, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, cites := answer.Extract(tc.q, tc.items, tc.n)
			if got != tc.want || !slices.Equal(cites, tc.wantCites) {
				t.Errorf("Extract = %q %q, want %q %q", got, cites, tc.want, tc.wantCites)
			}
		})
	}
}

// fakeModel replays a provider's documented wire format (testdata) with a
// chosen answer, and records the prompt it was sent.
type fakeModel struct {
	srv    *httptest.Server
	prompt string
}

func newOpenAI(t *testing.T, answerText string) (*llm.Client, *fakeModel) {
	t.Helper()
	tmpl, err := os.ReadFile("testdata/openai_response.json")
	if err != nil {
		t.Fatal(err)
	}
	quoted, _ := json.Marshal(answerText)
	body := strings.Replace(string(tmpl), `"{{ANSWER}}"`, string(quoted), 1)
	fm := &fakeModel{}
	fm.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.Error(w, "no such path", http.StatusNotFound)
			return
		}
		b, _ := io.ReadAll(r.Body)
		var req struct {
			Messages []struct{ Role, Content string }
		}
		if err := json.Unmarshal(b, &req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		for _, m := range req.Messages {
			if m.Role == "user" {
				fm.prompt = m.Content
			}
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}))
	t.Cleanup(fm.srv.Close)
	c, err := llm.New(t.Context(), llm.Config{Provider: "openai", BaseURL: fm.srv.URL + "/v1", Timeout: 2 * time.Second,
		Environ: []string{"OPENAI_API_KEY=sk-test-answer"}})
	if err != nil {
		t.Fatal(err)
	}
	return c, fm
}

// newStore returns an agent with memories, through capture as the API stores them.
func newStore(t *testing.T, contents ...string) *store.Agent {
	t.Helper()
	var ins []capture.Input
	for _, c := range contents {
		ins = append(ins, capture.Input{Content: c})
	}
	return newStoreOf(t, ins...)
}

// newStoreOf returns an agent holding ins, those without a time a minute
// apart from 09:00 on 1 March 2026, with the kinds index the daemon keeps.
func newStoreOf(t *testing.T, ins ...capture.Input) *store.Agent {
	t.Helper()
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC, Kinds: kinds.Of})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	a, err := st.Acquire(t.Context(), "main", true)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Release(a) })
	for i := range ins {
		ins[i].Role = cmp.Or(ins[i].Role, "user")
		ins[i].Timestamp = cmp.Or(ins[i].Timestamp, time.Date(2026, 3, 1, 9, i, 0, 0, time.UTC).Format(time.RFC3339))
	}
	if _, err := capture.Ingest(t.Context(), a, ins, capture.Limits{MaxContent: 64 << 10}, time.Date(2026, 3, 2, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	return a
}

func TestAskWithLyingModel(t *testing.T) {
	a := newStore(t, "I am allergic to penicillin.", "The parking spot is P-117.")
	// The model cites the real item, one that does not exist and one of
	// another kind that was never recalled.
	client, fm := newOpenAI(t, "You are allergic to penicillin [memory:1]. Your spot is P-200 [memory:77], see [fact:5].")
	ans := &answer.Answerer{Recall: &recall.Engine{}, Model: client}
	asOf := time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)
	res, err := ans.Ask(t.Context(), a, recall.Query{Text: "penicillin allergy", AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	if want := "You are allergic to penicillin [memory:1]. Your spot is P-200, see."; res.Answer != want {
		t.Errorf("answer = %q, want %q", res.Answer, want)
	}
	if !slices.Equal(res.Citations, []string{"memory:1"}) || !slices.Equal(res.Dropped, []string{"memory:77", "fact:5"}) {
		t.Errorf("citations %q dropped %q, want [memory:1] and [memory:77 fact:5]", res.Citations, res.Dropped)
	}
	if res.Provider != "openai/"+llm.DefaultModel("openai") || res.Usage == nil || res.Usage.TokensIn != 812 {
		t.Errorf("provider %q usage %+v, want the openai model and the response's usage", res.Provider, res.Usage)
	}
	if !strings.Contains(fm.prompt, "[memory:1] 2026-03-01 09:00 user: I am allergic to penicillin.") ||
		!strings.Contains(fm.prompt, "Question: penicillin allergy") {
		t.Errorf("the prompt lacks the cited context or the question:\n%s", fm.prompt)
	}
}

func TestAskAbstainsWithoutCallingTheModel(t *testing.T) {
	a := newStore(t, "The cat's vet is Dr. Osei.")
	client, fm := newOpenAI(t, "Your plate is XYZ [memory:1].")
	ans := &answer.Answerer{Model: client}
	res, err := ans.Ask(t.Context(), a, recall.Query{Text: "license plate", AsOf: time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Abstained || res.Answer != answer.NothingFound || len(res.Citations) != 0 || fm.prompt != "" {
		t.Errorf("got %+v (prompt %q), want an abstention without a model call", res, fm.prompt)
	}
}

func TestAskOffline(t *testing.T) {
	a := newStore(t, "Met with Alice. The Q3 budget is $2.1M after the correction.", "Lunch at the ramen place.")
	ans := &answer.Answerer{}
	res, err := ans.Ask(t.Context(), a, recall.Query{Text: "What is the Q3 budget?", AsOf: time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)})
	if err != nil {
		t.Fatal(err)
	}
	if res.Answer != "The Q3 budget is $2.1M after the correction. [memory:1]" || res.Provider != "offline" ||
		!slices.Equal(res.Citations, []string{"memory:1"}) {
		t.Errorf("offline answer = %+v", res)
	}
}

func TestModelErrorsAreWrapped(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	c, err := llm.New(t.Context(), llm.Config{Provider: "openai", BaseURL: srv.URL + "/v1", Environ: []string{"OPENAI_API_KEY=sk-x"}})
	if err != nil {
		t.Fatal(err)
	}
	ans := &answer.Answerer{Model: c}
	_, err = ans.Compose(context.Background(), "q", time.Now(), recall.Result{Items: items("x"), Found: true}, false)
	if err == nil || !strings.Contains(err.Error(), "answer with openai/") {
		t.Errorf("err = %v, want a refused call named by provider", err)
	}
}
