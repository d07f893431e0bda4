package gate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Reads are the read grants of the configuration (agents.<reader>.reads):
// the agents whose memories each reader's recall also searches. A reload
// swaps them whole while requests read them. A nil *Reads grants nothing.
type Reads struct {
	m atomic.Pointer[map[string][]string]
}

// NewReads holds grants, reader → the agents it reads.
func NewReads(grants map[string][]string) *Reads {
	r := &Reads{}
	r.Replace(grants)
	return r
}

// Replace swaps in new grants (a reload).
func (r *Reads) Replace(grants map[string][]string) { r.m.Store(&grants) }

// Of is the agents reader is granted, in the configuration's order. Grants
// are not transitive: what those agents read is not reader's.
func (r *Reads) Of(reader string) []string {
	if r == nil {
		return nil
	}
	if m := r.m.Load(); m != nil {
		return (*m)[reader]
	}
	return nil
}

// Readable splits the agents granted to a reader into those the request's
// token may read too and a note naming the others and why (""
// when none is left out). A nil grant is a server without tokens: all.
func Readable(g *auth.Grant, granted []string) (readable []string, note string) {
	if g == nil {
		return granted, ""
	}
	var skipped []string
	for _, a := range granted {
		if g.Allows(a, false) {
			readable = append(readable, a)
		} else {
			skipped = append(skipped, strconv.Quote(a))
		}
	}
	if len(skipped) == 0 {
		return readable, ""
	}
	return readable, "granted agent(s) " + strings.Join(skipped, ", ") + " left out: token " +
		strconv.Quote(g.Name) + " may not read them"
}

// Granted is a reader's own storage and that of the granted agents the
// request may read, open for one recall: Sources for recall.RecallFrom,
// Note naming the granted agents left out and why. Release closes them.
type Granted struct {
	Sources []recall.Source
	Note    string
	st      *store.Store
	held    []*store.Agent
}

// Open opens what own's reader reads for a request with grant g: the
// granted agents its token covers. A granted agent that does not exist
// (not created yet, or deleted) is left out and named in the note; any
// other failure to open one fails the request, as its own would.
func (r *Reads) Open(ctx context.Context, st *store.Store, g *auth.Grant, own *store.Agent) (*Granted, error) {
	readable, note := Readable(g, r.Of(own.Name()))
	out := &Granted{Sources: []recall.Source{{Searcher: own}}, st: st}
	var missing []string
	for _, name := range readable {
		a, err := st.Acquire(ctx, name, false)
		if errors.Is(err, store.ErrNoAgent) {
			missing = append(missing, strconv.Quote(name))
			continue
		}
		if err != nil {
			out.Release()
			return nil, fmt.Errorf("open granted agent %q: %w", name, err)
		}
		out.held = append(out.held, a)
		out.Sources = append(out.Sources, recall.Source{Agent: name, Searcher: a})
	}
	if len(missing) > 0 {
		note = JoinNotes(note, "granted agent(s) "+strings.Join(missing, ", ")+" left out: no such agent")
	}
	out.Note = note
	return out, nil
}

// Release closes the granted agents Open opened.
func (g *Granted) Release() {
	for _, a := range g.held {
		g.st.Release(a)
	}
	g.held = nil
}

// JoinNotes joins two notes of one answer with "; ", either possibly "".
func JoinNotes(a, b string) string {
	if a == "" || b == "" {
		return a + b
	}
	return a + "; " + b
}
