package server

import (
	"bytes"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Prometheus' text exposition format (version 0.0.4), written by hand: the
// server has a dozen series, and the client library with its protobuf
// runtime was 2.5 MB of the Pi's binary.

// family is one metric family as scraped: its samples, written only when it
// has one.
type family struct {
	name, help, typ string
	samples         []sample
}

// sample is one line: the family's name plus suffix ("_bucket"), its label
// pairs (name, value, name, value...) and its value.
type sample struct {
	suffix string
	labels []string
	value  float64
}

func (f *family) add(v float64, labels ...string) { f.addSuffixed("", v, labels...) }

func (f *family) addSuffixed(suffix string, v float64, labels ...string) {
	f.samples = append(f.samples, sample{suffix, labels, v})
}

// addHistogram adds a histogram's cumulative buckets (counts[i] of the
// observations were at most bounds[i]), its sum and its count.
func (f *family) addHistogram(bounds []float64, cumulative []uint64, sum float64, count uint64, labels ...string) {
	for i, b := range bounds {
		f.addSuffixed("_bucket", float64(cumulative[i]), append(labels, "le", formatValue(b))...)
	}
	f.addSuffixed("_bucket", float64(count), append(labels, "le", "+Inf")...)
	f.addSuffixed("_sum", sum, labels...)
	f.addSuffixed("_count", float64(count), labels...)
}

// write appends f to b without the samples whose agent label sees refuses
// (nil: all), and nothing when no sample is left.
func (f *family) write(b *bytes.Buffer, sees func(agent string) bool) {
	header := false
	for _, s := range f.samples {
		if agent, ok := labelValue(s.labels, "agent"); ok && sees != nil && !sees(agent) {
			continue
		}
		if !header {
			b.WriteString("# HELP " + f.name + " " + escapeHelp(f.help) + "\n# TYPE " + f.name + " " + f.typ + "\n")
			header = true
		}
		b.WriteString(f.name + s.suffix)
		if len(s.labels) > 0 {
			b.WriteByte('{')
			for i := 0; i+1 < len(s.labels); i += 2 {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteString(s.labels[i] + `="` + escapeLabel(s.labels[i+1]) + `"`)
			}
			b.WriteByte('}')
		}
		b.WriteString(" " + formatValue(s.value) + "\n")
	}
}

// labelValue is the value of label name among labels, if it is there.
func labelValue(labels []string, name string) (string, bool) {
	for i := 0; i+1 < len(labels); i += 2 {
		if labels[i] == name {
			return labels[i+1], true
		}
	}
	return "", false
}

func formatValue(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

var (
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
)

func escapeLabel(s string) string { return labelEscaper.Replace(s) }
func escapeHelp(s string) string  { return helpEscaper.Replace(s) }

// histogram counts observations into buckets with upper bounds (ascending).
type histogram struct {
	mu     sync.Mutex
	bounds []float64
	counts []uint64 // counts[i]: observations in (bounds[i-1], bounds[i]]; the last is over every bound
	sum    float64
}

func newHistogram(bounds ...float64) *histogram {
	return &histogram{bounds: bounds, counts: make([]uint64, len(bounds)+1)}
}

func (h *histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.bounds, v) // v equal to a bound is in its bucket (le)
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.mu.Unlock()
}

// addTo adds h's samples to f, with labels.
func (h *histogram) addTo(f *family, labels ...string) {
	h.mu.Lock()
	cum := make([]uint64, len(h.bounds))
	var n uint64
	for i := range h.bounds {
		n += h.counts[i]
		cum[i] = n
	}
	n += h.counts[len(h.bounds)]
	sum := h.sum
	h.mu.Unlock()
	f.addHistogram(h.bounds, cum, sum, n, labels...)
}
