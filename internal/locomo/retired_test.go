package locomo_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/locomo"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestRetiredDev lists, for the development split only, every turn the
// night retired (superseded_by), its successor and the rule that retired
// it (a correction's shape, or a fact's new value), and how many
// questions cite it as evidence: a turn retired wrongly is lost to every
// question. It runs only when DORMOUSE_RETIRED=1 (a measurement, not a
// check); the held-out samples are never read.
func TestRetiredDev(t *testing.T) {
	if os.Getenv("DORMOUSE_RETIRED") != "1" {
		t.Skip("set DORMOUSE_RETIRED=1 to list the development split's retired turns")
	}
	set, err := locomo.Load(locomo.DataPath(t))
	if err != nil {
		t.Fatal(err)
	}
	svc, err := daemon.OpenBench(t.Context(), config.Default(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	notes := 0
	o := locomo.Options{Samples: []int{0, 1, 2, 3, 4}, Store: svc.Store, Consolidate: svc.Consolidate, Engine: svc.Recall,
		Each: func(out locomo.Outcome) {
			if out.Result.Note != "" {
				notes++
				fmt.Printf("NOTE\t%s\t%q\t%s\n", out.Sample, out.Question.Text, out.Result.Note)
			}
		}}
	if _, err := locomo.Run(t.Context(), set, o); err != nil {
		t.Fatal(err)
	}
	defer func() { fmt.Printf("NOTES %d questions\n", notes) }()
	total, cited := 0, 0
	for _, s := range set[:5] {
		evidence := map[string]int{}
		for _, q := range s.Questions {
			for _, e := range q.Evidence {
				evidence[e]++
			}
		}
		agent := strings.ToLower(s.ID)
		err := svc.Store.With(t.Context(), agent, false, func(a *store.Agent) error {
			mems, err := allMemories(t, a)
			if err != nil {
				return err
			}
			byID := map[int64]store.Memory{}
			for _, m := range mems {
				byID[m.ID] = m
			}
			for _, m := range mems {
				if m.SupersededBy == nil {
					continue
				}
				n := byID[*m.SupersededBy]
				rule := "fact"
				if c, ok := capture.CorrectionIn(n.Content); ok {
					rule = "correction:" + c.Shape
				}
				total++
				if evidence[diaID(m)] > 0 {
					cited++
				}
				fmt.Printf("RETIRED\t%s\t%s\tq=%d\t%s\t%s: %q\n\tBY %s %s: %q\n", rule, diaID(m), evidence[diaID(m)],
					m.Timestamp.Format("2006-01-02"), m.Role, m.Content, diaID(n), n.Role, n.Content)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	fmt.Printf("TOTAL retired %d, cited as evidence %d\n", total, cited)
}

func allMemories(t *testing.T, a *store.Agent) ([]store.Memory, error) {
	var out []store.Memory
	cursor := ""
	for {
		page, next, err := a.List(t.Context(), store.ListOptions{Limit: 500, Cursor: cursor})
		if err != nil {
			return nil, err
		}
		out = append(out, page...)
		if next == "" {
			return out, nil
		}
		cursor = next
	}
}

func diaID(m store.Memory) string {
	var c struct {
		DiaID string `json:"dia_id"`
	}
	_ = json.Unmarshal(m.Context, &c)
	return c.DiaID
}
