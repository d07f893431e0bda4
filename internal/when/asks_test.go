package when

import "testing"

// A question asks about a time when it names a date, a range or the
// latest; a bound alone narrows what may answer and asks about no time.
func TestAsksTime(t *testing.T) {
	for _, c := range []struct {
		q    string
		want bool
	}{
		{"what happened on Feb 1 2026", true},
		{"the last meeting with Bob", true},
		{"what trips did I take in April", true},
		{"where did Bob live as of March", false},
		{"what did Bob say since Monday", false},
		{"where does Bob live", false},
	} {
		r := Parse(c.q, asOf, nil)
		if got := r.AsksTime(); got != c.want {
			t.Errorf("Parse(%q).AsksTime() = %v, want %v (%+v)", c.q, got, c.want, r)
		}
	}
}
