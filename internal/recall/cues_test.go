package recall

import (
	"testing"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestCorrectionOfParsesAnEditedText: the memo answers what
// capture.CorrectionIn does, also when a memory's text changes under the
// same id (an edit, an id reused, another agent's memory).
func TestCorrectionOfParsesAnEditedText(t *testing.T) {
	texts := []string{
		"I don't drink coffee any more.",
		"Lovely walk by the river today.",
		"Actually, make it Thursday instead.",
		"Lovely walk by the river today.",
	}
	for _, s := range texts {
		want, wantOK := capture.CorrectionIn(s)
		for range 2 { // parsed, then remembered
			got, ok := correctionOf(store.Hit{ID: 7, Text: s})
			if got != want || ok != wantOK {
				t.Fatalf("correctionOf(%q) = %+v, %v; CorrectionIn says %+v, %v", s, got, ok, want, wantOK)
			}
		}
	}
}

// TestCorrectionOfStaysBounded: the memo never holds more than its size.
func TestCorrectionOfStaysBounded(t *testing.T) {
	for i := range cues.max + 10 {
		correctionOf(store.Hit{ID: int64(i), Text: "no longer vegan"})
	}
	if n := cues.len(); n > cues.max || n == 0 {
		t.Fatalf("memo holds %d entries, want 1..%d", n, cues.max)
	}
}
