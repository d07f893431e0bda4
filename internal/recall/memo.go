package recall

import "sync"

// memo keeps between recalls what is costly to read and never changes for
// its key, cleared when it holds max entries: a miss only costs the read.
type memo[K comparable, V any] struct {
	mu  sync.Mutex
	max int
	m   map[K]V
}

// get is the value kept for k, or read's, then kept.
func (c *memo[K, V]) get(k K, read func() V) V {
	c.mu.Lock()
	v, ok := c.m[k]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = read()
	c.mu.Lock()
	if c.m == nil || len(c.m) >= c.max {
		c.m = make(map[K]V)
	}
	c.m[k] = v
	c.mu.Unlock()
	return v
}

// len is how many entries c keeps.
func (c *memo[K, V]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
