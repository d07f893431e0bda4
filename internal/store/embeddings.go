package store

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/ncruces/go-sqlite3"
)

// blob binds as a BLOB (a []byte binds as text).
type blob []byte

// Embeddings: the optional semantic arm of recall keeps one vector per
// memory, of one model, in memory_embeddings (migration 8). Vectors are
// stored at unit length, so cosine similarity is a dot product.

// ToEmbed is a memory waiting for its vector.
type ToEmbed struct {
	ID   int64
	Text string
}

// MemoryVector is a memory's stored vector, of unit length.
type MemoryVector struct {
	ID  int64
	Vec []float32
}

// Unembedded returns up to limit memories without a vector of model
// (none, or another model's), oldest first; flagged and retired memories,
// never recalled, are left out.
func (a *Agent) Unembedded(ctx context.Context, model string, limit int) ([]ToEmbed, error) {
	var out []ToEmbed
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `SELECT m.id, m.content FROM daily_memories m
			LEFT JOIN memory_embeddings e ON e.memory_id = m.id
			WHERE (e.memory_id IS NULL OR e.model != ?) AND m.flagged = 0 AND m.retired_at IS NULL
			ORDER BY m.id LIMIT ?`, []any{model, max(limit, 1)}, func(s *sqlite3.Stmt) error {
			out = append(out, ToEmbed{ID: s.ColumnInt64(0), Text: s.ColumnText(1)})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list memories to embed: %w", err)
	}
	return out, nil
}

// UnembeddedCount is how many memories Unembedded would return without a
// limit: the embedder's backlog.
func (a *Agent) UnembeddedCount(ctx context.Context, model string) (int, error) {
	n := 0
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `SELECT count(*) FROM daily_memories m
			LEFT JOIN memory_embeddings e ON e.memory_id = m.id
			WHERE (e.memory_id IS NULL OR e.model != ?) AND m.flagged = 0 AND m.retired_at IS NULL`,
			[]any{model}, func(s *sqlite3.Stmt) error {
				n = s.ColumnInt(0)
				return nil
			})
	})
	if err != nil {
		return 0, fmt.Errorf("count memories to embed: %w", err)
	}
	return n, nil
}

// PutEmbeddings stores the vectors of model for their memories, scaled to
// unit length, replacing any other. A memory deleted meanwhile is skipped.
// Every vector must have the same, non-zero length and a non-zero norm.
func (a *Agent) PutEmbeddings(ctx context.Context, model string, vecs []MemoryVector) error {
	if model == "" {
		return fmt.Errorf("store embeddings: no model named")
	}
	enc := make([]blob, len(vecs))
	for i, v := range vecs {
		if len(v.Vec) == 0 || len(v.Vec) != len(vecs[0].Vec) {
			return fmt.Errorf("store embeddings: vector of memory %d has %d numbers, want %d (and not 0)",
				v.ID, len(v.Vec), len(vecs[0].Vec))
		}
		b, ok := encodeUnit(v.Vec)
		if !ok {
			return fmt.Errorf("store embeddings: vector of memory %d has no direction (zero, infinite or NaN)", v.ID)
		}
		enc[i] = b
	}
	err := a.write(ctx, func(ctx context.Context, c *conn) error {
		for i, v := range vecs {
			err := c.execArgs(ctx, `INSERT OR REPLACE INTO memory_embeddings(memory_id, model, dim, vec)
				SELECT id, ?, ?, ? FROM daily_memories WHERE id = ?`, model, len(v.Vec), enc[i], v.ID)
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store embeddings: %w", err)
	}
	return nil
}

// HasEmbeddings reports whether any memory has a vector of model.
func (a *Agent) HasEmbeddings(ctx context.Context, model string) (bool, error) {
	found := false
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, `SELECT 1 FROM memory_embeddings WHERE model = ? LIMIT 1`, []any{model},
			func(*sqlite3.Stmt) error { found = true; return nil })
	})
	if err != nil {
		return false, fmt.Errorf("look for embeddings: %w", err)
	}
	return found, nil
}

// Embeddings returns the vectors of model stored for the given memories;
// a memory without one is absent from the map.
func (a *Agent) Embeddings(ctx context.Context, model string, ids []int64) (map[int64][]float32, error) {
	out := make(map[int64][]float32, len(ids))
	const chunk = 500
	err := a.read(ctx, func(c *conn) error {
		for start := 0; start < len(ids); start += chunk {
			part := ids[start:min(start+chunk, len(ids))]
			args := make([]any, 0, len(part)+1)
			args = append(args, model)
			for _, id := range part {
				args = append(args, id)
			}
			sql := `SELECT memory_id, vec FROM memory_embeddings WHERE model = ? AND memory_id IN (?` +
				strings.Repeat(",?", len(part)-1) + `)`
			err := c.query(ctx, sql, args, func(s *sqlite3.Stmt) error {
				out[s.ColumnInt64(0)] = decodeVec(s.ColumnRawBlob(1))
				return nil
			})
			if err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read embeddings: %w", err)
	}
	return out, nil
}

// RecentEmbeddings returns the vectors of model of the newest limit
// memories within o's filters (its Terms are ignored): the candidates the
// semantic arm scans for what the words missed.
func (a *Agent) RecentEmbeddings(ctx context.Context, model string, o SearchOptions, limit int) ([]MemoryVector, error) {
	sql, args := memoryFilters(`SELECT m.id, e.vec FROM memory_embeddings e JOIN daily_memories m ON m.id = e.memory_id
		WHERE e.model = ?`, []any{model}, o)
	sql += ` ORDER BY e.memory_id DESC LIMIT ?`
	args = append(args, max(limit, 1))
	var out []MemoryVector
	err := a.read(ctx, func(c *conn) error {
		return c.query(ctx, sql, args, func(s *sqlite3.Stmt) error {
			out = append(out, MemoryVector{ID: s.ColumnInt64(0), Vec: decodeVec(s.ColumnRawBlob(1))})
			return nil
		})
	})
	if err != nil {
		return nil, fmt.Errorf("read recent embeddings: %w", err)
	}
	return out, nil
}

// MemoryHits returns the given memories as recall candidates, within o's
// filters (its Terms are ignored), in no particular order.
func (a *Agent) MemoryHits(ctx context.Context, ids []int64, o SearchOptions) ([]MemoryHit, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	args := make([]any, 0, len(ids))
	for _, id := range ids {
		args = append(args, id)
	}
	sql, args := memoryFilters(`SELECT `+memoryHitColumns+`, 0 FROM daily_memories m WHERE m.id IN (?`+
		strings.Repeat(",?", len(ids)-1)+`)`, args, o)
	return a.memoryHits(ctx, sql, args)
}

// encodeUnit is v scaled to unit length as little-endian float32; ok is
// false when v has no length to scale.
func encodeUnit(v []float32) (blob, bool) {
	var norm float64
	for _, x := range v {
		norm += float64(x) * float64(x)
	}
	norm = math.Sqrt(norm)
	if norm == 0 || math.IsInf(norm, 0) || math.IsNaN(norm) {
		return nil, false
	}
	b := make(blob, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(float32(float64(x)/norm)))
	}
	return b, true
}

func decodeVec(b []byte) []float32 {
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v
}
