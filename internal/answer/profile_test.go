package answer_test

import (
	"slices"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/answer"
)

// TestValidateKeepsProfileCitations: a profile line recall offered is cited
// as [profile:N] in whatever form a model writes it, and an invented one is
// dropped, as for the other kinds.
func TestValidateKeepsProfileCitations(t *testing.T) {
	valid := map[string]bool{"profile:4": true, "memory:12": true}
	got, cites, dropped := answer.Validate("Penicillin (Profile #4), said in profile:9 and [profiles 4, memory:12].", valid)
	if want := "Penicillin [profile:4], said in and [profile:4][memory:12]."; got != want ||
		!slices.Equal(cites, []string{"profile:4", "memory:12"}) || !slices.Equal(dropped, []string{"profile:9"}) {
		t.Errorf("Validate = %q, %q, %q; want %q, [profile:4 memory:12], [profile:9]", got, cites, dropped, want)
	}
	if c := answer.Cited(got); !slices.Equal(c, []string{"profile:4", "profile:4", "memory:12"}) {
		t.Errorf("Cited(%q) = %q", got, c)
	}
}
