package answer_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

var askedAt = time.Date(2026, 3, 3, 9, 0, 0, 0, time.UTC)

// important is a memory of a month before the others (no neighbour of
// theirs) at importance, which pins it when it is 0.9 or more.
func important(content string, importance float64) capture.Input {
	return capture.Input{Content: content, Importance: &importance, Timestamp: "2026-02-01T08:00:00Z"}
}

// readmeStore is the README's "Try it" store after the forget: the
// penicillin memory is gone, the important SQLite decision (memory:2) is
// pinned to every answer's context.
func readmeStore(t *testing.T) *store.Agent {
	return newStoreOf(t, capture.Input{Content: "Bob moved the standup to 10:30 on Fridays"},
		important("We decided to keep the memory store on SQLite", 0.9))
}

func ask(t *testing.T, ans *answer.Answerer, a *store.Agent, q string) answer.Result {
	t.Helper()
	res, err := ans.Ask(t.Context(), a, recall.Query{Text: q, AsOf: askedAt})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func wantAbstained(t *testing.T, res answer.Result) {
	t.Helper()
	if !res.Abstained || res.Answer != answer.NothingFound || len(res.Citations) != 0 {
		t.Errorf("answer %q abstained %v citing %q, want %q, abstained, citing nothing",
			res.Answer, res.Abstained, res.Citations, answer.NothingFound)
	}
}

// TestAskAbstainsFromAnUnrelatedPinnedMemory: the README's defect. Recall
// finds nothing for "what am I allergic to?" and offers the pinned SQLite
// decision; the offline answer is an abstention, not the decision.
func TestAskAbstainsFromAnUnrelatedPinnedMemory(t *testing.T) {
	res := ask(t, &answer.Answerer{}, readmeStore(t), "what am I allergic to?")
	wantAbstained(t, res)
	if len(res.Items) != 1 || res.Items[0].ID != "memory:2" {
		t.Errorf("items %+v, want recall's context (the pinned memory:2) still shown", res.Items)
	}
	if res.Items[0].Explain != nil {
		t.Errorf("item %s carries an explanation nobody asked for", res.Items[0].ID)
	}
}

// TestAskAnswersFromAPinnedMemoryThatAddressesIt: a pinned memory that
// shares a concept with the question (penicillin is a medicine) answers it;
// the pinned one that does not is not cited.
func TestAskAnswersFromAPinnedMemoryThatAddressesIt(t *testing.T) {
	a := newStoreOf(t, important("I am allergic to penicillin", 0.95),
		capture.Input{Content: "Bob moved the standup to 10:30 on Fridays"},
		important("We decided to keep the memory store on SQLite", 0.9))
	res := ask(t, &answer.Answerer{}, a, "Is there any medicine I should avoid?")
	if res.Abstained || res.Answer != "I am allergic to penicillin. [memory:1]" || !slices.Equal(res.Citations, []string{"memory:1"}) {
		t.Errorf("answer %q abstained %v citing %q, want the penicillin memory alone", res.Answer, res.Abstained, res.Citations)
	}
}

// TestAskExplainedKeepsTheExplanations: an asked-for explanation survives
// the answer's own use of it.
func TestAskExplainedKeepsTheExplanations(t *testing.T) {
	res, err := (&answer.Answerer{}).Ask(t.Context(), readmeStore(t), recall.Query{Text: "standup", AsOf: askedAt, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range res.Items {
		if it.Explain == nil {
			t.Errorf("item %s lost its asked-for explanation", it.ID)
		}
	}
}

// TestModelAbstentions: with a model, an answer that cites only a pinned
// memory the question does not address, or cites nothing, is an
// abstention; one citing what the question found is an answer. The model
// is told which lines are only pinned.
func TestModelAbstentions(t *testing.T) {
	tests := []struct {
		name, reply string
		abstained   bool
	}{
		{"cites only the unrelated pinned memory", "You keep the memory store on SQLite [memory:2].", true},
		{"cites the found memory", "Your parking spot is P-117 [memory:1].", false},
		{"says nothing stored answers, in its own words", "I could not find anything about your parking in what you have told me.", true},
		{"cites the found memory and the pinned one", "Your spot is P-117 [memory:1]; the store is SQLite [memory:2].", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a := newStoreOf(t, capture.Input{Content: "The parking spot is P-117."},
				important("We decided to keep the memory store on SQLite", 0.9))
			model, fm := newOpenAI(t, tc.reply)
			res := ask(t, &answer.Answerer{Model: model}, a, "Where is my parking spot?")
			if tc.abstained {
				wantAbstained(t, res)
			} else if res.Abstained || res.Answer != tc.reply || len(res.Citations) == 0 {
				t.Errorf("answer %q abstained %v citing %q, want the model's answer", res.Answer, res.Abstained, res.Citations)
			}
			if res.Usage == nil {
				t.Error("no usage: the model was not called")
			}
			if !strings.Contains(fm.prompt, "[memory:2] (always included) 2026-02-01 08:00 user: We decided") ||
				!strings.Contains(fm.prompt, "\n[memory:1] 2026-03-01 09:00 user: The parking spot") {
				t.Errorf("the prompt does not mark the pinned line alone:\n%s", fm.prompt)
			}
		})
	}
}

// TestModelNotCalledWhenOnlyPinnedCameBack: when recall found nothing, the
// answer abstains without spending a model call on the pinned profile.
func TestModelNotCalledWhenOnlyPinnedCameBack(t *testing.T) {
	model, fm := newOpenAI(t, "You keep the memory store on SQLite [memory:2].")
	res := ask(t, &answer.Answerer{Model: model}, readmeStore(t), "what am I allergic to?")
	wantAbstained(t, res)
	if fm.prompt != "" || res.Usage != nil {
		t.Errorf("the model was asked (prompt %q)", fm.prompt)
	}
}
