package recall

import (
	"hash/maphash"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// correctionOf is capture.CorrectionIn of a memory, remembered: every
// recall reads today's memories again until the night consolidates them,
// and parsing their correction cues anew was a sixth of a short query's
// CPU at 100,000 memories. An entry is keyed by the memory and its text's
// hash, so an edited text, a reused id or another agent's memory of the
// same id is parsed on its own.
func correctionOf(h store.Hit) (capture.Correction, bool) {
	c := cues.get(cueKey{h.ID, maphash.String(cueSeed, h.Text)}, func() cue {
		corr, ok := capture.CorrectionIn(h.Text)
		return cue{corr, ok}
	})
	return c.corr, c.ok
}

type cueKey struct {
	id  int64
	sum uint64
}

type cue struct {
	corr capture.Correction
	ok   bool
}

// cues is bounded at 16,384 entries, about 1.5 MB: a day's memories fit.
var (
	cueSeed = maphash.MakeSeed()
	cues    = memo[cueKey, cue]{max: 1 << 14}
)
