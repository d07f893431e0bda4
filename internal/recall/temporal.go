package recall

import (
	"time"

	"github.com/dormouse-dev/dormouse/internal/when"
)

// Temporal is the date intent of a question.
type Temporal struct {
	Found    bool      // a range or "latest"
	From, To time.Time // the range asked about; zero for "latest" alone
	// Since and Until bound what may answer without naming the time asked
	// about ("as of March", "before 2024", "since Monday"); they narrow the
	// query's own since and until.
	Since, Until time.Time
	Latest       bool
	Phrase       string
	Rest         string // the question without the date phrase
}

// ParseTemporal reads the date or range a question asks about, relative to asOf.
func ParseTemporal(q string, asOf time.Time) Temporal {
	r := when.Parse(q, asOf, nil)
	return Temporal{
		Found: !r.From.IsZero() || r.Latest, From: r.From, To: r.To, Since: r.Since, Until: r.Until,
		Latest: r.Latest, Phrase: r.Phrase, Rest: r.Rest,
	}
}
