package store

import (
	"context"
	"sync"
	"time"
)

// readPool is an agent's read connections. At most as many reads run at
// once as it has slots; each borrows an idle connection or opens one. The
// most recently returned connection is lent first, so under a light load
// one connection serves and the others stand idle, and closeIdle can give
// their memory back: ncruces/go-sqlite3 gives each connection a memory of
// its own, which keeps all it ever held until the connection closes.
type readPool struct {
	slots chan struct{} // one token per read that may start now
	open  func(ctx context.Context) (*conn, error)

	mu   sync.Mutex
	idle []*conn // not lent, the most recently returned last

	closing sync.Mutex // held while idle connections are closed
}

// newReadPool is a pool of at most size connections, none open yet and
// none lendable until release gives it slots.
func newReadPool(size int, open func(ctx context.Context) (*conn, error)) *readPool {
	return &readPool{slots: make(chan struct{}, size), open: open}
}

// release makes n more reads possible at once.
func (p *readPool) release(n int) {
	for range n {
		p.slots <- struct{}{}
	}
}

// acquire waits for a slot.
func (p *readPool) acquire(ctx context.Context) error {
	select {
	case <-p.slots:
		return nil
	default:
	}
	select {
	case <-p.slots:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// get lends a connection: the most recently returned idle one, or a new
// one. Every get that succeeds must be paired with a put.
func (p *readPool) get(ctx context.Context) (*conn, error) {
	if err := p.acquire(ctx); err != nil {
		return nil, err
	}
	if c := p.pop(); c != nil {
		return c, nil
	}
	c, err := p.open(ctx)
	if err != nil {
		p.release(1)
		return nil, err
	}
	return c, nil
}

// pop takes the most recently returned idle connection, if any.
func (p *readPool) pop() *conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := len(p.idle)
	if n == 0 {
		return nil
	}
	c := p.idle[n-1]
	p.idle = p.idle[:n-1]
	return c
}

// put returns a lent connection, idle from now, and frees its slot.
func (p *readPool) put(c *conn) {
	c.idleSince = time.Now()
	p.add(c)
	p.release(1)
}

// add makes c an idle connection without freeing a slot: for a connection
// opened outside the pool (openReadOnly).
func (p *readPool) add(c *conn) {
	p.mu.Lock()
	p.idle = append(p.idle, c)
	p.mu.Unlock()
}

// closeIdle closes the idle connections returned before their cutoff: the
// most recently returned one before cutoff.kept, the others (spares, which
// only concurrent reads need) before cutoff.spare. Lent ones are never
// touched.
func (p *readPool) closeIdle(cutoff idleCutoffs) []error {
	p.closing.Lock()
	defer p.closing.Unlock()
	p.mu.Lock()
	n := 0 // idle is in the order returned
	for n < len(p.idle)-1 && p.idle[n].idleSince.Before(cutoff.spare) {
		n++
	}
	if n == len(p.idle)-1 && p.idle[n].idleSince.Before(cutoff.kept) {
		n++
	}
	old := append([]*conn(nil), p.idle[:n]...)
	p.idle = append(p.idle[:0], p.idle[n:]...)
	p.mu.Unlock()
	return closeAll(old)
}

// closeAll closes every idle connection, once any closeIdle under way has
// closed its own: when it returns no read connection is open but those
// lent.
func (p *readPool) closeAll() []error {
	p.closing.Lock()
	defer p.closing.Unlock()
	p.mu.Lock()
	all := p.idle
	p.idle = nil
	p.mu.Unlock()
	return closeAll(all)
}

func closeAll(conns []*conn) []error {
	var errs []error
	for _, c := range conns {
		if err := c.close(); err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}
