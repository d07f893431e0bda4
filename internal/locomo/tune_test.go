package locomo_test

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/daemon"
	"github.com/dormouse-dev/dormouse/internal/locomo"
	"github.com/dormouse-dev/dormouse/internal/recall"
)

// TestTuneDev prints the development split's figures for ranking variants:
// the measurements behind recall.DefaultTuning. It runs only when
// DORMOUSE_TUNE=1 (it is a measurement, not a check).
func TestTuneDev(t *testing.T) {
	if os.Getenv("DORMOUSE_TUNE") != "1" {
		t.Skip("set DORMOUSE_TUNE=1 to measure ranking variants on the development split")
	}
	set, err := locomo.Load(locomo.DataPath(t))
	if err != nil {
		t.Fatal(err)
	}
	split := []int{0, 1, 2, 3, 4}
	if os.Getenv("DORMOUSE_TUNE_SPLIT") == "held-out" {
		split = []int{5, 6, 7, 8, 9}
	}
	// Each variant changes the daemon's tuning (daemon.OpenBench's engine).
	variants := []struct {
		name string
		f    func(*recall.Tuning)
	}{
		{"default", func(*recall.Tuning) {}},
	}
	add := func(name string, f func(*recall.Tuning)) {
		variants = append(variants, struct {
			name string
			f    func(*recall.Tuning)
		}{name, f})
	}
	for _, name := range strings.Split(os.Getenv("DORMOUSE_TUNE_VARIANTS"), ";") {
		if name == "" {
			continue
		}
		add(name, func(t *recall.Tuning) {
			for _, kv := range strings.Split(name, ",") {
				k, v, _ := strings.Cut(kv, "=")
				f, _ := strconv.ParseFloat(v, 64)
				switch k {
				case "cov":
					t.Coverage = f
				case "imp":
					t.Importance = f
				case "rec":
					t.Recency = f
				case "spk":
					t.Speaker = f
				case "nb":
					t.Neighbour = f
				case "ctx2":
					t.Context2 = f
				case "ctx":
					t.Context = f
				case "rel":
					t.Relevance = f
				case "reply":
					t.Reply = f
				case "nbfrom":
					t.NeighbourFrom = int(f)
				case "span":
					t.NeighbourSpan = int(f)
				case "day":
					t.DayRecord = f
				case "exp":
					t.Expansion = f
				case "fbt":
					t.FeedbackTerms = int(f)
				case "fbd":
					t.FeedbackDocs = int(f)
				case "floor":
					t.MinCoverage = f
				case "ent":
					t.Entity = f
				case "inr":
					t.InRange = f
				case "inf":
					t.Informative = f
				case "kind":
					t.Kind = f
				case "nospk":
					t.NoSpeaker = true
				case "nofb":
					t.NoFeedback = true
				case "nonb":
					t.NoNeighbours = true
				case "noexp":
					t.NoExpansion = true
				case "nostrict":
					t.NoStrictDates = true
				case "nodays":
					t.DayRecords = false
				}
			}
		})
	}
	if os.Getenv("DORMOUSE_TUNE_VARIANTS") != "" {
		variants = variants[1:]
	}
	for _, v := range variants {
		rep, err := runBench(t, set, locomo.Options{Samples: split}, func(s *daemon.Services) { v.f(&s.Recall.Tuning) })
		if err != nil {
			t.Fatal(err)
		}
		cats := ""
		for _, c := range rep.CategoryKeys() {
			cats += fmt.Sprintf(" c%s %.1f", c, 100*rep.Categories[c].Recall["10"])
		}
		t.Logf("%-18s R@5 %.1f R@10 %.1f R@25 %.1f R@50 %.1f | multi-hop R@10 %.1f @25 %.1f @50 %.1f | R@10 by category%s | tok@10 %.0f | %.1fs",
			v.name, 100*rep.Overall.Recall["5"], 100*rep.Overall.Recall["10"], 100*rep.Overall.Recall["25"],
			100*rep.Overall.Recall["50"], 100*rep.Categories["1"].Recall["10"], 100*rep.Categories["1"].Recall["25"], 100*rep.Categories["1"].Recall["50"], cats, rep.Overall.Tokens["10"], rep.Seconds)
	}
}
