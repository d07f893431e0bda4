package store

import (
	"math"
	"sync"
)

// A row's size (its tokens), which BM25 weighs, is a B-tree seek in FTS5's
// %_docsize table, mostly to pages outside the page cache: an eighth of
// recall's CPU at 100,000 memories, where a question scores some 1,200
// rows. The agent keeps the sizes of its memories' rows once read
// (docSizes), two bytes a memory a table.
//
// A kept size stays right because a memory's id is never given to another
// (AUTOINCREMENT) and its text changes only when a watched file's memory
// is refreshed: a memory refreshed or deleted (an import may store a
// deleted memory's id again) is marked changed in the same transaction,
// and its size is never kept again, whatever a reader of an older
// snapshot read meanwhile.

// docSizes are an agent's kept row sizes of memories_fts and memory_kinds.
type docSizes struct {
	memories, kinds rowSizes
}

// rowSizes are one table's row sizes by rowid: 0 not read, sizeChanged
// never kept, else the size plus one.
type rowSizes struct {
	mu sync.Mutex
	n  []uint16
}

const (
	sizeChanged = math.MaxUint16
	// sizedRows bounds what one table keeps: 8 MiB of sizes.
	sizedRows = 1 << 22
)

// of is the kept sizes of table, nil for a table whose rows are not
// memories (or for no docSizes).
func (d *docSizes) of(table string) *rowSizes {
	if d == nil {
		return nil
	}
	switch table {
	case "memories_fts":
		return &d.memories
	case "memory_kinds":
		return &d.kinds
	}
	return nil
}

// changed marks memory id's size as never to be kept: its text changes or
// it goes.
func (d *docSizes) changed(id int64) {
	if d == nil {
		return
	}
	d.memories.mark(id, sizeChanged)
	d.kinds.mark(id, sizeChanged)
}

// kindsChanged marks the kinds rows of memories from to through to as never
// to be kept: they are indexed afresh (later.go).
func (d *docSizes) kindsChanged(from, to int64) {
	if d == nil {
		return
	}
	d.kinds.mu.Lock()
	defer d.kinds.mu.Unlock()
	for id := from; id <= to && id < sizedRows; id++ {
		d.kinds.set(id, sizeChanged)
	}
}

// size is row's size in tokens, kept or read.
func (r *rowSizes) size(row int64, read func(row int64) (int, error)) (int, error) {
	if r == nil {
		return read(row)
	}
	if n, ok := r.kept(row); ok {
		return n, nil
	}
	n, err := read(row)
	if err == nil && n < sizeChanged-1 {
		r.keep(row, n)
	}
	return n, err
}

func (r *rowSizes) kept(row int64) (int, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if row < 0 || row >= int64(len(r.n)) || r.n[row] == 0 || r.n[row] == sizeChanged {
		return 0, false
	}
	return int(r.n[row]) - 1, true
}

// keep keeps a size read, unless the row was marked changed.
func (r *rowSizes) keep(row int64, n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if row < int64(len(r.n)) && r.n[row] != 0 {
		return
	}
	r.set(row, uint16(n+1))
}

func (r *rowSizes) mark(row int64, v uint16) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.set(row, v)
}

// set stores v at row, growing the slice as needed; rows past sizedRows
// are not kept.
func (r *rowSizes) set(row int64, v uint16) {
	if row < 0 || row >= sizedRows {
		return
	}
	if row >= int64(len(r.n)) {
		r.n = append(r.n, make([]uint16, int(row)+1-len(r.n))...)
	}
	r.n[row] = v
}
