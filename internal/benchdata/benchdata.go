// Package benchdata feeds benchmarks real conversational text: the turns and
// questions of the LoCoMo data set (found by internal/locomo/dataset, never
// copied into this repository or shipped), repeated to any size.
package benchdata

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/locomo/dataset"
)

// Turn is one conversation turn.
type Turn struct {
	Speaker string
	Text    string
	Session string
}

// Set is the loaded data.
type Set struct {
	Turns     []Turn
	Questions []string
}

// ErrMissing means the data set is not where benchmarks look for it.
var ErrMissing = dataset.ErrMissing

// Path finds locomo10.json as dataset.Find does, with the shared data
// beside the repository checkout as a candidate. It never downloads.
func Path() (string, error) {
	_, file, _, _ := runtime.Caller(0)
	repo := filepath.Join(filepath.Dir(file), "..", "..")
	return dataset.Find(filepath.Join(repo, "..", "shared", "data", "locomo", "locomo10.json"))
}

// Load reads the data set.
func Load() (*Set, error) {
	path, err := Path()
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read the LoCoMo data: %w", err)
	}
	var samples []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string `json:"question"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(b, &samples); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	s := &Set{}
	for _, sm := range samples {
		keys := make([]string, 0, len(sm.Conversation))
		for k := range sm.Conversation {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if !strings.HasPrefix(k, "session_") || strings.HasSuffix(k, "date_time") {
				continue
			}
			var turns []struct {
				Speaker string `json:"speaker"`
				Text    string `json:"text"`
			}
			if json.Unmarshal(sm.Conversation[k], &turns) != nil {
				continue
			}
			for _, t := range turns {
				if strings.TrimSpace(t.Text) != "" {
					s.Turns = append(s.Turns, Turn{Speaker: t.Speaker, Text: t.Text, Session: sm.SampleID + "/" + k})
				}
			}
		}
		for _, q := range sm.QA {
			if q.Question != "" {
				s.Questions = append(s.Questions, q.Question)
			}
		}
	}
	if len(s.Turns) == 0 {
		return nil, fmt.Errorf("%s holds no turns", path)
	}
	return s, nil
}

// Memory is one generated memory.
type Memory struct {
	Content   string
	Session   string
	Role      string
	Timestamp time.Time
}

// Memories returns n memories: the turns in order, repeated with a copy
// number in the session id (so copies are separate sessions, as for several
// households), one minute apart, ending at end.
func (s *Set) Memories(n int, end time.Time) []Memory {
	out := make([]Memory, n)
	start := end.Add(-time.Duration(n) * time.Minute)
	for i := range n {
		t := s.Turns[i%len(s.Turns)]
		out[i] = Memory{
			Content:   t.Text,
			Session:   fmt.Sprintf("%s#%d", t.Session, i/len(s.Turns)),
			Role:      strings.ToLower(t.Speaker),
			Timestamp: start.Add(time.Duration(i) * time.Minute),
		}
	}
	return out
}
