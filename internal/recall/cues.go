package recall

import (
	"hash/maphash"
	"sync"

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
	k := cueKey{h.ID, maphash.String(cueSeed, h.Text)}
	cueMu.Lock()
	c, ok := cueMemo[k]
	cueMu.Unlock()
	if ok {
		return c.corr, c.ok
	}
	c.corr, c.ok = capture.CorrectionIn(h.Text)
	cueMu.Lock()
	if len(cueMemo) >= cueMemoSize {
		clear(cueMemo) // bounded: a day's memories fit; a miss only costs the parse
	}
	cueMemo[k] = c
	cueMu.Unlock()
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

// cueMemoSize bounds the memo to about 1.5 MB.
const cueMemoSize = 1 << 14

var (
	cueSeed = maphash.MakeSeed()
	cueMu   sync.Mutex
	cueMemo = map[cueKey]cue{}
)
