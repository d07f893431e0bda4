package locomo

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/recall"
)

func TestDumpMisses(t *testing.T) {
	if os.Getenv("DORMOUSE_DUMP") != "1" {
		t.Skip("set DORMOUSE_DUMP=1")
	}
	set, err := Load(dataPath(t))
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{}
	for _, s := range set[:2] {
		for _, ses := range s.Sessions {
			for _, tr := range ses.Turns {
				text[s.ID+tr.DiaID] = tr.Speaker + ": " + tr.Text
			}
		}
	}
	var b strings.Builder
	_, err = Run(t.Context(), set, Options{Samples: []int{0, 1}, Engine: &recall.Engine{}, Each: func(o Outcome) {
		if o.Recall[10] >= 1 || o.Question.Category != 1 {
			return
		}
		fmt.Fprintf(&b, "\nQ[%d] %s  R@10=%.2f\n", o.Question.Category, o.Question.Text, o.Recall[10])
		for _, e := range o.Question.Evidence {
			fmt.Fprintf(&b, "   EV %s %s\n", e, text[o.Sample+e])
		}
		for i, d := range o.Turns {
			if i >= 3 {
				break
			}
			fmt.Fprintf(&b, "   got %s %s\n", d, text[o.Sample+d])
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile("/tmp/misses.txt", []byte(b.String()), 0o600)
}
