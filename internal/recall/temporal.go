package recall

import (
	"time"

	"github.com/dormouse-dev/dormouse/internal/when"
)

// Temporal is the date intent of a question.
type Temporal struct {
	Found    bool
	From, To time.Time // the range asked about; zero for "latest" alone
	Latest   bool
	Phrase   string
	Rest     string // the question without the date phrase
}

// ParseTemporal reads the date or range a question asks about, relative to asOf.
func ParseTemporal(q string, asOf time.Time) Temporal {
	r := when.Parse(q, asOf, nil)
	return Temporal{Found: r.Found(), From: r.From, To: r.To, Latest: r.Latest, Phrase: r.Phrase, Rest: r.Rest}
}
