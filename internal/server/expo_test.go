package server

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// TestExposition: what /metrics writes is Prometheus' text format as its
// own parser reads it: escaped label values come back as they were, a value
// on a bucket's bound is in that bucket, and a filtered family whose every
// sample names an agent the viewer may not see is left out whole.
func TestExposition(t *testing.T) {
	odd := "a \"quoted\" \\ back\nslash"
	g := &family{name: "x_gauge", typ: "gauge", help: "help with \\ and\nnewline"}
	g.add(1.5, "agent", "main", "note", odd)
	g.add(2, "agent", "other")
	h := newHistogram(0.1, 1)
	for _, v := range []float64{0.05, 0.1, 0.5, 3} {
		h.Observe(v)
	}
	hist := &family{name: "x_seconds", typ: "histogram", help: "h"}
	h.addTo(hist)
	hidden := &family{name: "x_hidden", typ: "gauge", help: "only other's"}
	hidden.add(7, "agent", "other")
	var b bytes.Buffer
	for _, f := range []*family{g, hist, hidden} {
		f.write(&b, func(agent string) bool { return agent == "main" })
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(b.String()))
	if err != nil {
		t.Fatalf("parse:\n%s\n%v", b.String(), err)
	}
	if fams["x_hidden"] != nil {
		t.Errorf("x_hidden written though the viewer sees none of its agents:\n%s", b.String())
	}
	ms := fams["x_gauge"].GetMetric()
	if len(ms) != 1 || ms[0].GetGauge().GetValue() != 1.5 {
		t.Fatalf("x_gauge = %v, want main's sample only", ms)
	}
	for _, l := range ms[0].GetLabel() {
		if l.GetName() == "note" && l.GetValue() != odd {
			t.Errorf("label value %q, want %q", l.GetValue(), odd)
		}
	}
	if got := fams["x_gauge"].GetHelp(); got != "help with \\ and\nnewline" {
		t.Errorf("help %q", got)
	}
	hm := fams["x_seconds"].GetMetric()[0].GetHistogram()
	var cum []uint64
	for _, bk := range hm.GetBucket() {
		cum = append(cum, bk.GetCumulativeCount())
	}
	if hm.GetSampleCount() != 4 || math.Abs(hm.GetSampleSum()-3.65) > 1e-9 || !slices.Equal(cum, []uint64{2, 3, 4}) {
		t.Errorf("histogram count %d sum %g buckets %v, want 4, 3.65, [2 3 4] (0.1 is in le=0.1)", hm.GetSampleCount(), hm.GetSampleSum(), cum)
	}
}
