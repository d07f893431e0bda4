package benchdata

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// denseWords is the tool-log corpus's whole vocabulary: an agent's logs,
// status lines and summaries reuse a hundred-odd words, so every word is
// in thousands of memories (the opposite of conversation, where most words
// are rare). Subjects, verbs, objects and states make clauses that read
// like log lines.
var denseWords = struct{ subjects, verbs, objects, states []string }{
	subjects: strings.Fields(`build test deploy sync backup lint fetch index scan upload download compile
		migrate restart worker job task step queue server client agent daemon service database cache
		scheduler pipeline runner crawler`),
	verbs: strings.Fields(`ran started finished failed passed skipped retried wrote read synced
		checked updated removed created loaded saved sent received parsed merged`),
	objects: strings.Fields(`files folder disk memory network request response records rows
		tables config branch commit release version report summary log output input batch chunk
		token session user account message email calendar document page image archive
		cron webhook ticket invoice photo`),
	states: strings.Fields(`ok error errors warning timeout slow fast normal high low pending
		complete partial again today tonight morning evening hourly daily nightly weekly`),
}

// DenseVocabulary returns every word the dense corpus uses.
func DenseVocabulary() []string {
	w := denseWords
	return concat(w.subjects, w.verbs, w.objects, w.states)
}

func concat(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// Session says whether generated memories carry a session id: tool logs
// often send none, which puts every memory of a day in one session.
type Session bool

// The two ways of sending dense memories.
const (
	WithSession    Session = true
	WithoutSession Session = false
)

// denseSeed fixes the corpus: every run, every machine, the same text.
const denseSeed = 17

// Dense returns n tool-log memories of 20–50 words, one second apart and
// ending at end, generated from a fixed seed. With sessions, each run of
// 25 memories is one session ("run-7"); without, the session id is empty.
func Dense(n int, end time.Time, s Session) []Memory {
	r := rand.New(rand.NewPCG(denseSeed, 0))
	out := make([]Memory, n)
	start := end.Add(-time.Duration(n) * time.Second)
	for i := range out {
		out[i] = Memory{Content: denseLine(r), Role: "tool", Timestamp: start.Add(time.Duration(i) * time.Second)}
		if s == WithSession {
			out[i].Session = fmt.Sprintf("run-%d", i/25)
		}
	}
	return out
}

// denseLine is one memory: clauses ("backup job finished records ok.")
// until it holds 20 to 50 words.
func denseLine(r *rand.Rand) string {
	w := denseWords
	want := 20 + r.IntN(31)
	words := make([]string, 0, want+4)
	for len(words) < want {
		words = append(words, pick(r, w.subjects), pick(r, w.subjects), pick(r, w.verbs), pick(r, w.objects))
		if r.IntN(2) == 0 {
			words = append(words, pick(r, w.states))
		}
		words[len(words)-1] += "."
	}
	words = words[:want]
	last := &words[want-1]
	*last = strings.TrimSuffix(*last, ".") + "."
	return strings.Join(words, " ")
}

func pick(r *rand.Rand, from []string) string { return from[r.IntN(len(from))] }

// DenseQueries returns n two-word queries from the dense vocabulary (a
// subject and what happened to it, "backup failed"), from a fixed seed.
func DenseQueries(n int) []string {
	r := rand.New(rand.NewPCG(denseSeed, 1))
	w := denseWords
	second := concat(w.verbs, w.objects, w.states)
	out := make([]string, n)
	for i := range out {
		out[i] = pick(r, w.subjects) + " " + pick(r, second)
	}
	return out
}
