package store

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/ext/fts5"
)

// FTS5's bm25() counts, once per query and per phrase, every row that holds
// the phrase (its whole posting list) to weigh it, whatever LIMIT lets
// through: a common word or a long OR list of related words costs that at
// every search (29% of recall's CPU at 100,000 memories). dormouse_bm25 is
// the same score with each phrase's document count given, which the agent
// counts once and keeps (docCounts).

// scoreFn is the SQL of the score of table's rows for the phrases of a
// MATCH; its one parameter is countsOn's answer for the same terms, as
// joinCounts writes it. The table's name tells dormouse_bm25 which kept
// row sizes to use (docSizes.of).
func scoreFn(table string) string { return "dormouse_bm25(" + table + ", ?, '" + table + "')" }

// bm25 parameters, as FTS5's bm25() has them.
const bm25K1, bm25B = 1.2, 0.75

// bm25Query is what every row of one query shares: each phrase's IDF, the
// average document length, and a buffer for a row's phrase counts.
type bm25Query struct {
	idf   []float64
	avgdl float64
	freq  []float64
	count func(column, offset int) bool // counts an instance into n: one closure a query, not one a row and phrase
	n     float64
	table string
	sh    shadow
	sizes *rowSizes // the table's kept row sizes, nil when none are kept
}

// registerBM25 gives c dormouse_bm25, which keeps the sizes it reads of
// memories in sizes (nil: none kept).
func registerBM25(c *conn, sizes *docSizes) error {
	return fts5.RegisterCustom(c.db, func(api *fts5.API) error {
		return api.CreateFunction("dormouse_bm25", func(fts fts5.Context, ctx sqlite3.Context, arg ...sqlite3.Value) {
			givenBM25(shadowOf(c), sizes, fts, ctx, arg)
		})
	})
}

// givenBM25 is FTS5's bm25() (each column weighs 1) with the phrases'
// document counts given in arg[0], in the order of the MATCH's phrases,
// and the table's name in arg[1].
//
// It calls only those fts5.Context methods that leave the wasm stack as
// they found it (PhraseCount, PhraseIter, RowID, the auxdata): RowCount,
// ColumnTotalSize, ColumnSize, InstCount and Inst (ncruces/go-sqlite3
// v0.37.0) take their result slot off SQLite's stack unaligned, and the
// C they call assumes a 16-byte-aligned stack: ColumnSize's first read of
// a row size prepares a statement whose parser state is then only partly
// zeroed, and SQLite calls a stale cleanup pointer (issue 26; reproduced
// by TestRankedSearchAfterAWriteBurst, reduced in
// TestUnalignedStackCorruptsAPrepare). What those methods read, the
// table's totals and a row's size, shadow reads from FTS5's own tables.
func givenBM25(sh shadow, sizes *docSizes, fts fts5.Context, ctx sqlite3.Context, arg []sqlite3.Value) {
	q, _ := fts.GetAuxdata(false).(*bm25Query)
	if q == nil {
		var err error
		if q, err = newBM25Query(sh, fts, arg, sizes); err == nil {
			err = fts.SetAuxdata(q)
		}
		if err != nil {
			ctx.ResultError(fmt.Errorf("dormouse_bm25: %w", err))
			return
		}
	}
	score, err := q.score(fts)
	if err != nil {
		ctx.ResultError(fmt.Errorf("dormouse_bm25: %w", err))
		return
	}
	ctx.ResultFloat(-score)
}

// newBM25Query weighs the query's phrases as bm25() does, from the counts
// given rather than counted.
func newBM25Query(sh shadow, fts fts5.Context, arg []sqlite3.Value, sizes *docSizes) (*bm25Query, error) {
	if len(arg) != 2 {
		return nil, fmt.Errorf("want the document counts and the table, got %d arguments", len(arg))
	}
	counts := strings.Fields(arg[0].Text())
	if n := fts.PhraseCount(); n != len(counts) {
		return nil, fmt.Errorf("%d document counts for %d phrases", len(counts), n)
	}
	table := arg[1].Text()
	rows, tokens, err := sh.totals(table)
	if err != nil {
		return nil, err
	}
	q := &bm25Query{avgdl: float64(tokens) / float64(rows), idf: make([]float64, len(counts)), freq: make([]float64, len(counts)),
		table: table, sh: sh, sizes: sizes.of(table)}
	q.count = func(int, int) bool { q.n++; return true }
	for i, c := range counts {
		hits, err := strconv.ParseInt(c, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("document count %q: %w", c, err)
		}
		q.idf[i] = math.Log((float64(rows) - float64(hits) + 0.5) / (float64(hits) + 0.5))
		if q.idf[i] <= 0 {
			q.idf[i] = 1e-6
		}
	}
	return q, nil
}

// score is the current row's BM25 (positive: higher is better).
func (q *bm25Query) score(fts fts5.Context) (float64, error) {
	if err := q.phraseCounts(fts); err != nil {
		return 0, err
	}
	size, err := q.sizes.size(fts.RowID(), q.rowSize)
	if err != nil {
		return 0, err
	}
	d, score := float64(size), 0.0
	for i, f := range q.freq {
		score += q.idf[i] * ((f * (bm25K1 + 1)) / (f + bm25K1*(1-bm25B+bm25B*d/q.avgdl)))
	}
	return score, nil
}

// phraseCounts sets q.freq to how often the current row holds each phrase.
func (q *bm25Query) phraseCounts(fts fts5.Context) error {
	for i := range q.freq {
		hits, err := fts.PhraseIter(i)
		if err != nil {
			return err
		}
		q.n = 0
		hits(q.count)
		q.freq[i] = q.n
	}
	return nil
}

// rowSize is row's size in tokens, as FTS5 keeps it.
func (q *bm25Query) rowSize(row int64) (int, error) { return q.sh.rowSize(q.table, row) }

// docCounts are an agent's document counts of the terms it was searched
// for, by full-text table. A count is kept until the table's content has
// grown by more than 1/countsStale since it was counted: the weight of a
// word moves little while the store grows by 3%, and a store taking a
// memory a second would otherwise count every word again at each search.
type docCounts struct {
	mu     sync.Mutex
	tables map[string]*tableCounts
}

type tableCounts struct {
	size  int64 // the content table's largest id when counted
	terms map[string]int64
}

const (
	countsStale = 32
	countsMax   = 4096 // terms kept a table; past that it starts again
)

// contentOf is the table whose largest id tells how much a full-text
// table holds.
var contentOf = map[string]string{
	"memories_fts":       "daily_memories",
	"memory_kinds":       "daily_memories",
	"facts_fts":          "facts",
	"consolidations_fts": "consolidated_memories",
}

// joinCounts is counts as scoreFn's argument.
func joinCounts(counts []int64) string {
	out := make([]string, len(counts))
	for i, n := range counts {
		out[i] = strconv.FormatInt(n, 10)
	}
	return strings.Join(out, " ")
}

// countsOn is each term's document count in table, counted on c when not
// kept, and the size the counts are good for (the content's largest id, as
// st has it).
func (a *Agent) countsOn(ctx context.Context, c *conn, st *searchState, table string, terms []string) ([]int64, int64, error) {
	size := st.largest[contentOf[table]]
	kept := a.counts.table(table, size)
	counts := make([]int64, len(terms))
	for i, t := range terms {
		n, ok := a.counts.get(kept, t)
		if !ok {
			var err error
			if n, err = countDocs(ctx, c, table, t, size); err != nil {
				return nil, 0, err
			}
			a.counts.put(kept, t, n)
			st.counted(table, t, n)
		}
		counts[i] = n
	}
	return counts, size, nil
}

// present are those of terms (with their counts, as countsOn gives them)
// that some row of table holds as of st: a term no row holds matches
// nothing and adds nothing to any row's score, but FTS5 still looks it up
// in every segment of the index, and a topic's members or a question's
// related words hold many such. A kept count of 0 may be stale (counts
// are kept while the table grows), so the term is counted again, once a
// data version, before it is left out.
func (a *Agent) present(ctx context.Context, c *conn, st *searchState, table string, terms []string, counts []int64) ([]string, []int64, error) {
	var keptTerms []string
	var keptCounts []int64
	for i, t := range terms {
		if counts[i] == 0 {
			absent, err := st.absent(ctx, c, table, t)
			if err != nil {
				return nil, nil, err
			}
			if absent {
				continue
			}
		}
		keptTerms, keptCounts = append(keptTerms, t), append(keptCounts, counts[i])
	}
	return keptTerms, keptCounts, nil
}

// counted keeps whether any row of table held term as of st: n did.
func (st *searchState) counted(table, term string, n int64) {
	if st.none == nil || len(st.none) > countsMax { // a connection reading for long without a write starts again
		st.none = map[string]bool{}
	}
	st.none[table+" "+term] = n == 0
}

// absent reports whether no row of table holds term as of st, counting
// it on c when st does not know.
func (st *searchState) absent(ctx context.Context, c *conn, table, term string) (bool, error) {
	if none, ok := st.none[table+" "+term]; ok {
		return none, nil
	}
	n, err := countDocs(ctx, c, table, term, st.largest[contentOf[table]])
	if err != nil {
		return false, err
	}
	st.counted(table, term, n)
	return n == 0, nil
}

// countCap is how many of a term's rows countDocs reads at most. A term in
// more is common: its weight in BM25 is small and moves little with its
// count, which is estimated from how densely its newest countCap rows fill
// the ids they span. Counting them all cost a million-memory agent 65% of
// recall's CPU, posting lists of a quarter of the rows (BenchmarkScale);
// at 10,000 the counts were still a third of it at 1M LoCoMo turns, at
// 2,000 a sixth. Below 2,000 rows a term (every LoCoMo conversation, every
// scenario) the count is exact.
const countCap = 2_000

// countDocs is the number of rows of table holding term, estimated past
// countCap; size is the content table's largest id.
func countDocs(ctx context.Context, c *conn, table, term string, size int64) (int64, error) {
	var n, oldest int64
	err := c.query(ctx, `SELECT count(*), coalesce(min(rowid), 0) FROM (SELECT rowid FROM `+table+` WHERE `+table+
		` MATCH ? ORDER BY rowid DESC LIMIT ?)`, []any{matchAny([]string{term}), countCap},
		func(s *sqlite3.Stmt) error {
			n, oldest = s.ColumnInt64(0), s.ColumnInt64(1)
			return nil
		})
	if err != nil {
		return 0, fmt.Errorf("count %s rows holding %q: %w", table, term, err)
	}
	return estimateCount(n, oldest, size), nil
}

// estimateCount is a term's count from the n newest of its rows, the oldest
// of them with id oldest, in a table whose ids run to size: n itself below
// countCap, else n scaled by the ids they span, at most size.
func estimateCount(n, oldest, size int64) int64 {
	if n < countCap || oldest <= 1 || size < oldest {
		return n
	}
	return min(size, n*size/(size-oldest+1))
}

// table is the counts of table still good at size: a fresh set once the
// content has grown past them (or shrunk below).
func (d *docCounts) table(table string, size int64) *tableCounts {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.tables[table]
	if t == nil || size < t.size || size > t.size+t.size/countsStale || len(t.terms) > countsMax {
		if d.tables == nil {
			d.tables = map[string]*tableCounts{}
		}
		t = &tableCounts{size: size, terms: map[string]int64{}}
		d.tables[table] = t
	}
	return t
}

// forget drops the counts kept of table, whose index was replaced.
func (d *docCounts) forget(table string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.tables, table)
}

func (d *docCounts) get(t *tableCounts, term string) (int64, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	n, ok := t.terms[term]
	return n, ok
}

func (d *docCounts) put(t *tableCounts, term string, n int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	t.terms[term] = n
}
