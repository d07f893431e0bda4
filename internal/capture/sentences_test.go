package capture

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSentences(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"   \n\t", nil},
		{"One. Two!  Three?", []string{"One.", "Two!", "Three?"}},
		{"Dr. Smith met J. R. Tolkien. Then lunch.", []string{"Dr. Smith met J. R. Tolkien.", "Then lunch."}},
		{"# Plan\n- ship the beta\n- fix\n  the proxy", []string{"Plan", "ship the beta", "fix the proxy"}},
		{"--- \n Real text", []string{"Real text"}},
		{"bad \xff byte. ok", []string{"bad \uFFFD byte.", "ok"}},
	} {
		if diff := cmp.Diff(Sentences(tc.in), tc.want); diff != "" {
			t.Errorf("Sentences(%q) mismatch (-got +want):\n%s", tc.in, diff)
		}
	}
}
