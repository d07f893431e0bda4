package store

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"
)

// MemoryHit is a memory candidate with the fields recall's ranking and
// filters read beyond Hit's.
type MemoryHit struct {
	Hit
	Source   string
	Entities EntityTexts // as derived at capture
}

// EntityTexts are a memory hit's entity texts, decoded from the stored JSON
// when first asked for: recall reads them only for a question naming
// someone, and decoding them for every best row was a twelfth of its CPU.
type EntityTexts struct {
	raw   string // the column, while not decoded
	texts []string
}

// Texts are the entities' texts in capture's order.
func (e *EntityTexts) Texts() []string {
	if e.raw != "" {
		var ok bool
		if e.texts, ok = columnTexts(e.raw); !ok {
			e.texts = decodedTexts(e.raw)
		}
		e.raw = ""
	}
	return e.texts
}

// decodedTexts are the texts of the entities column raw, decoded as JSON;
// none when it is not an array of entities.
func decodedTexts(raw string) []string {
	var ents []Entity
	if json.Unmarshal([]byte(raw), &ents) != nil {
		return nil
	}
	var out []string
	for _, x := range ents {
		out = append(out, x.Text)
	}
	return out
}

// columnTexts are the texts of the entities column raw read without
// reflection, as derivedColumns writes it ([{"text":"…","type":"…"},…]),
// each text a slice of raw; ok is false for anything else (an escape, a
// byte JSON must escape or that is not UTF-8, other keys, spaces), which
// decodedTexts reads. Recall reads the column of every candidate of a
// question naming someone, and json.Unmarshal was a fiftieth of its CPU.
func columnTexts(raw string) (texts []string, ok bool) {
	rest, ok := strings.CutPrefix(raw, "[")
	if !ok {
		return nil, false
	}
	if rest == "]" {
		return nil, true
	}
	for {
		var text string
		if text, rest, ok = plainField(rest, `{"text":"`); !ok {
			return nil, false
		}
		if _, rest, ok = plainField(rest, `,"type":"`); !ok {
			return nil, false
		}
		texts = append(texts, text)
		switch {
		case rest == "}]":
			return texts, true
		case strings.HasPrefix(rest, "},"):
			rest = rest[2:]
		default:
			return nil, false
		}
	}
}

// plainField is the string after key (which ends in its opening quote)
// at the start of s, up to its closing quote, and what follows that
// quote; ok is false when s does not start with key or the string holds a
// backslash, a control byte or a byte that is not UTF-8.
func plainField(s, key string) (val, rest string, ok bool) {
	s, ok = strings.CutPrefix(s, key)
	if !ok {
		return "", "", false
	}
	end := strings.IndexByte(s, '"')
	if end < 0 {
		return "", "", false
	}
	val = s[:end]
	for i := 0; i < len(val); i++ {
		if val[i] == '\\' || val[i] < 0x20 {
			return "", "", false
		}
	}
	if !utf8.ValidString(val) {
		return "", "", false
	}
	return val, s[end+1:], true
}

// None reports whether the memory stored no entities (without decoding
// them).
func (e *EntityTexts) None() bool { return e.raw == "" && len(e.texts) == 0 }

const memoryHitColumns = `m.id, m.ts, m.session_id, m.role, m.content, m.importance, m.source, m.entities, m.consolidated,
	m.shared_from_agent, m.shared_from_id`

// memoryHitScore is the column after memoryHitColumns: the score each of
// their queries appends.
const memoryHitScore = 11

// SearchMemories returns the Limit best memories by BM25 among those
// matching any term (the Window newest matches, or all), with their scores.
func (a *Agent) SearchMemories(ctx context.Context, o SearchOptions) ([]MemoryHit, error) {
	if len(o.Terms) == 0 {
		return nil, nil
	}
	return searchRows(ctx, a, "search memories", "daily_memories", func(c *conn, st *searchState) (string, []any, error) {
		return a.memorySearch(ctx, c, st, o)
	}, memoryHits)
}

// memorySearch is the SQL of SearchMemories and its arguments, "" when
// no term is left to search.
func (a *Agent) memorySearch(ctx context.Context, c *conn, st *searchState, o SearchOptions) (string, []any, error) {
	table := "memories_fts"
	if o.Kinds {
		table = "memory_kinds"
	}
	terms, counts, err := a.weighedTerms(ctx, c, st, table, o)
	if err == nil {
		terms, counts, err = a.present(ctx, c, st, table, terms, counts)
	}
	if err != nil || len(terms) == 0 {
		return "", nil, err
	}
	// Score ids first and read the whole rows of the best Limit only: the
	// sorter then handles two numbers a match, not its text.
	inner, args := memoryMatches(st, o, table, terms, ", "+scoreFn(table)+" AS score", []any{joinCounts(counts)})
	if o.Window > 0 {
		// The table's rowid, not an alias: FTS5 then walks the index
		// backwards and scores only the rows the limit lets through.
		inner = `SELECT id, score FROM (` + inner + ` ORDER BY ` + table + `.rowid DESC LIMIT ?)`
		args = append(args, o.Window)
	}
	sql := `SELECT ` + memoryHitColumns + `, r.score FROM (` + inner + ` ORDER BY score LIMIT ?) r
		JOIN daily_memories m ON m.id = r.id ORDER BY r.score`
	return sql, append(args, max(o.Limit, 1)), nil
}

// memoryMatches is the query of the ids of the memories whose table rows
// match any of terms and that o's filters keep, with the columns sel adds
// (its arguments first).
func memoryMatches(st *searchState, o SearchOptions, table string, terms []string, sel string, selArgs []any) (string, []any) {
	args := append(selArgs, matchAny(terms))
	if noFilter(st, o) {
		// Nothing to filter on: the index alone, without reading a row per
		// match, less the few superseded memories.
		inner := `SELECT rowid AS id` + sel + ` FROM ` + table + ` WHERE ` + table + ` MATCH ?`
		if st.superseded {
			inner, args = withoutSuperseded(inner, args, o.Until)
		}
		return inner, args
	}
	return memoryFilters(`SELECT m.id AS id`+sel+`
		FROM `+table+` JOIN daily_memories m ON m.id = `+table+`.rowid
		WHERE `+table+` MATCH ?`, args, o)
}

// MatchesMemories reports whether SearchMemories(o) would find any memory,
// without scoring the matches: whether a name is stored at all is known at
// its first match, where ranking them all read thousands for a common one.
func (a *Agent) MatchesMemories(ctx context.Context, o SearchOptions) (bool, error) {
	if len(o.Terms) == 0 {
		return false, nil
	}
	table := "memories_fts"
	if o.Kinds {
		table = "memory_kinds"
	}
	found, err := searchRows(ctx, a, "look for memories", "daily_memories", func(c *conn, st *searchState) (string, []any, error) {
		terms := o.Terms
		if o.MaxShare > 0 {
			var err error
			if terms, _, err = a.weighedTerms(ctx, c, st, table, o); err != nil || len(terms) == 0 {
				return "", nil, err
			}
		}
		inner, args := memoryMatches(st, o, table, terms, "", nil)
		return `SELECT 1 FROM (` + inner + `) LIMIT 1`, args, nil
	}, scanning(func(*sqlite3.Stmt) (bool, error) { return true, nil }))
	return len(found) > 0, err
}

// weighedTerms are those of o's terms that o.MaxShare keeps and their
// document counts, as scoreFn takes them.
func (a *Agent) weighedTerms(ctx context.Context, c *conn, st *searchState, table string, o SearchOptions) ([]string, []int64, error) {
	counts, size, err := a.countsOn(ctx, c, st, table, o.Terms)
	if err != nil || o.MaxShare <= 0 {
		return o.Terms, counts, err
	}
	var kept []string
	var keptCounts []int64
	for i, t := range o.Terms {
		// A term whose matches cannot fill the window costs little: kept.
		if float64(counts[i]) <= o.MaxShare*float64(size) || o.Window > 0 && counts[i] <= int64(o.Window) {
			kept, keptCounts = append(kept, t), append(keptCounts, counts[i])
		}
	}
	return kept, keptCounts, nil
}

// noFilter reports whether o filters nothing out but superseded memories
// (which st says whether any are stored): no filter but Until, no memory
// flagged (forgotten content said again) or retired (a watched file's old
// content), which the index alone would not leave out, and Until at or
// after the newest memory (an as_of of now).
func noFilter(st *searchState, o SearchOptions) bool {
	if !o.Since.IsZero() || o.Session != "" || o.Role != "" || o.Source != "" || o.Entity != "" || st.excluded {
		return false
	}
	return o.Until.IsZero() || o.Until.UnixMilli() >= st.newest
}

// MemoriesInRange returns memories within the filters (Since and Until
// bound the time), the most important first, then the newest: what a date
// question with no other words is answered from.
func (a *Agent) MemoriesInRange(ctx context.Context, o SearchOptions) ([]MemoryHit, error) {
	sql, args := memoryFilters(`SELECT `+memoryHitColumns+`, 0 FROM daily_memories m WHERE 1=1`, nil, o)
	sql += ` ORDER BY m.importance DESC, m.ts DESC LIMIT ?`
	return a.memoryHits(ctx, sql, append(args, max(o.Limit, 1)))
}

// RecentMemories returns the newest Limit memories within the filters and,
// after them, the newest Limit important ones (see ImportantMemories) not
// among them: what recall offers when a question has no words to search.
func (a *Agent) RecentMemories(ctx context.Context, o SearchOptions) ([]MemoryHit, error) {
	sql, args := memoryFilters(`SELECT `+memoryHitColumns+`, 0 FROM daily_memories m WHERE 1=1`, nil, o)
	recent, err := a.memoryHits(ctx, sql+` ORDER BY m.ts DESC LIMIT ?`, append(args, max(o.Limit, 1)))
	if err != nil {
		return nil, err
	}
	important, err := a.ImportantMemories(ctx, o)
	if err != nil {
		return nil, err
	}
	seen := make(map[int64]bool, len(recent))
	for _, h := range recent {
		seen[h.ID] = true
	}
	for _, h := range important {
		if !seen[h.ID] {
			recent = append(recent, h)
		}
	}
	return recent, nil
}

// Neighbours returns the memories of the same session stored within span
// ids of each given memory (the turns around a hit), excluding the given
// ones, filtered by o (its Terms are ignored).
func (a *Agent) Neighbours(ctx context.Context, ids []int64, span int, o SearchOptions) ([]MemoryHit, error) {
	if len(ids) == 0 || span <= 0 {
		return nil, nil
	}
	given := make(map[int64]bool, len(ids))
	for _, id := range ids {
		given[id] = true
	}
	want := make([]int64, 0, len(ids)*(2*span+1))
	for _, id := range ids {
		for d := -int64(span); d <= int64(span); d++ {
			want = append(want, id+d)
		}
	}
	b, _ := json.Marshal(want)
	idsJSON, _ := json.Marshal(ids)
	o.Terms = nil
	// The given memories themselves are read too, unfiltered, for their
	// sessions: one pass over the ids, in id order. memoryFilters' AND
	// conditions land inside the OR's second arm, closed after them.
	sql, args := memoryFilters(`SELECT `+memoryHitColumns+`, 0 FROM daily_memories m
		WHERE m.id IN (SELECT value FROM json_each(?))
		AND (m.id IN (SELECT value FROM json_each(?)) OR (1 = 1`, []any{string(b), string(idsJSON)}, o)
	all, err := a.memoryHits(ctx, sql+`)) ORDER BY m.id`, args)
	if err != nil {
		return nil, err
	}
	session := make(map[int64]string, len(ids))
	for _, h := range all {
		if given[h.ID] {
			session[h.ID] = h.SessionID
		}
	}
	var out []MemoryHit
	seen := map[int64]bool{}
	for _, h := range all {
		if given[h.ID] || seen[h.ID] {
			continue
		}
		for d := -int64(span); d <= int64(span); d++ {
			if s, ok := session[h.ID+d]; ok && given[h.ID+d] && s == h.SessionID {
				out = append(out, h)
				seen[h.ID] = true
				break
			}
		}
	}
	return out, nil
}

func (a *Agent) memoryHits(ctx context.Context, sql string, args []any) ([]MemoryHit, error) {
	return readRows(ctx, a, "search memories", sql, args, scanMemoryHit)
}

// scanMemoryHit reads a row of memoryHitColumns and a BM25 score.
func scanMemoryHit(s *sqlite3.Stmt) (MemoryHit, error) {
	h := MemoryHit{Hit: Hit{
		Kind:         "memory",
		ID:           s.ColumnInt64(0),
		Timestamp:    storedTime(s.ColumnInt64(1)),
		SessionID:    s.ColumnText(2),
		Role:         s.ColumnText(3),
		Text:         s.ColumnText(4),
		Importance:   s.ColumnFloat(5),
		BM25:         s.ColumnFloat(memoryHitScore),
		Consolidated: s.ColumnBool(8),
	}, Source: s.ColumnText(6)}
	if p := scanProvenance(s, 9); p != nil {
		h.Origin = p.String()
	}
	if raw := s.ColumnRawText(7); len(raw) > 2 {
		h.Entities.raw = string(raw) // a copy: decoded only if read (EntityTexts)
	}
	return h, nil
}

// ConsolidationHit is a day record candidate.
type ConsolidationHit struct {
	Hit
	Date      string // YYYY-MM-DD
	SourceIDs []int64
}

// SearchDayRecords returns day records matching any term (all of them, day
// by day, without terms) for the days from Since to Until. It bounds the
// record's day, not when it was written: a record of a day before as_of
// describes only memories before as_of, even when the consolidation ran
// later.
func (a *Agent) SearchDayRecords(ctx context.Context, o SearchOptions) ([]ConsolidationHit, error) {
	return searchRows(ctx, a, "search day records", "consolidated_memories", func(c *conn, st *searchState) (string, []any, error) {
		return a.dayRecordSearch(ctx, c, st, o)
	}, scanning(a.scanDayRecord))
}

// dayRecordSearch is the SQL of SearchDayRecords and its arguments.
func (a *Agent) dayRecordSearch(ctx context.Context, c *conn, st *searchState, o SearchOptions) (string, []any, error) {
	sql := `SELECT c.id, c.date, c.summary, c.source_ids, `
	var args []any
	if len(o.Terms) > 0 {
		counts, _, err := a.countsOn(ctx, c, st, "consolidations_fts", o.Terms)
		if err != nil {
			return "", nil, err
		}
		sql += scoreFn("consolidations_fts") + ` AS score FROM consolidations_fts
			JOIN consolidated_memories c ON c.id = consolidations_fts.rowid WHERE consolidations_fts MATCH ?`
		args = append(args, joinCounts(counts), matchAny(o.Terms))
	} else {
		sql += `0 FROM consolidated_memories c WHERE 1=1`
	}
	if !o.Until.IsZero() {
		sql += ` AND c.date <= ?`
		args = append(args, o.Until.In(a.opts.Location).Format(time.DateOnly))
	}
	if !o.Since.IsZero() {
		sql += ` AND c.date >= ?`
		args = append(args, o.Since.In(a.opts.Location).Format(time.DateOnly))
	}
	if len(o.Terms) > 0 {
		sql += ` ORDER BY score LIMIT ?`
	} else {
		sql += ` ORDER BY c.date DESC LIMIT ?`
	}
	return sql, append(args, max(o.Limit, 1)), nil
}

// scanDayRecord reads a row of dayRecordSearch.
func (a *Agent) scanDayRecord(s *sqlite3.Stmt) (ConsolidationHit, error) {
	date := s.ColumnText(1)
	ts, _ := time.ParseInLocation(time.DateOnly, date, a.opts.Location)
	h := ConsolidationHit{Hit: Hit{
		Kind: "consolidation", ID: s.ColumnInt64(0), Timestamp: ts.UTC(), Text: s.ColumnText(2),
		Importance: 0.5, BM25: s.ColumnFloat(4),
	}, Date: date}
	_ = json.Unmarshal(s.ColumnRawText(3), &h.SourceIDs)
	return h, nil
}

// factHitColumns are the columns scanFactHit reads before the score.
const factHitColumns = `f.id, f.valid_from, f.entity, f.attribute, f.value, f.content, f.confidence, f.source_memory_ids, f.access_count`

// FactHit is a current fact candidate.
type FactHit struct {
	Hit
	Entity, Attribute, Value string
	SourceMemoryIDs          []int64
	AccessCount              int64
}

// SearchCurrentFacts returns the facts current at o.Until (or now) that
// match any term, best match first: never a superseded or rejected one.
func (a *Agent) SearchCurrentFacts(ctx context.Context, o SearchOptions) ([]FactHit, error) {
	return a.factHits(ctx, o)
}

func (a *Agent) factHits(ctx context.Context, o SearchOptions) ([]FactHit, error) {
	return searchRows(ctx, a, "search facts", "facts", func(c *conn, st *searchState) (string, []any, error) {
		return a.factSearch(ctx, c, st, o)
	}, scanning(scanFactHit))
}

// factSearch is the SQL of factHits and its arguments.
func (a *Agent) factSearch(ctx context.Context, c *conn, st *searchState, o SearchOptions) (string, []any, error) {
	asOf := o.Until
	if asOf.IsZero() {
		asOf = time.Now()
	}
	sql := `SELECT ` + factHitColumns + `, `
	var args []any
	if len(o.Terms) > 0 {
		counts, _, err := a.countsOn(ctx, c, st, "facts_fts", o.Terms)
		if err != nil {
			return "", nil, err
		}
		sql += scoreFn("facts_fts") + ` AS score FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid WHERE facts_fts MATCH ?`
		args = append(args, joinCounts(counts), matchAny(o.Terms))
	} else {
		sql += `0 FROM facts f WHERE 1=1`
	}
	sql += ` AND f.rejected = 0 AND f.valid_from <= ?`
	args = append(args, asOf.UnixMilli())
	sql += ` AND (f.valid_to IS NULL OR f.valid_to > ?)`
	args = append(args, asOf.UnixMilli())
	if len(o.Terms) > 0 {
		sql += ` ORDER BY score LIMIT ?`
	} else {
		sql += ` ORDER BY f.confidence DESC, f.valid_from DESC LIMIT ?`
	}
	return sql, append(args, max(o.Limit, 1)), nil
}

// scanFactHit reads a row of factHitColumns and a BM25 score.
func scanFactHit(s *sqlite3.Stmt) (FactHit, error) {
	h := FactHit{Hit: Hit{
		Kind: "fact", ID: s.ColumnInt64(0), Timestamp: storedTime(s.ColumnInt64(1)),
		Text: s.ColumnText(2) + ": " + s.ColumnText(5), Importance: s.ColumnFloat(6), BM25: s.ColumnFloat(9),
	}, Entity: s.ColumnText(2), Attribute: s.ColumnText(3), Value: s.ColumnText(4), AccessCount: s.ColumnInt64(8)}
	_ = json.Unmarshal(s.ColumnRawText(7), &h.SourceMemoryIDs)
	return h, nil
}

// FactsAbout returns the superseded (not rejected) facts with the given
// entity and attribute, as of asOf: the old values of a current fact.
func (a *Agent) FactsAbout(ctx context.Context, entity, attribute string, asOf time.Time) ([]FactHit, error) {
	if strings.TrimSpace(attribute) == "" {
		return nil, nil
	}
	sql := `SELECT ` + factHitColumns + `, 0
		FROM facts f WHERE f.entity = ? COLLATE NOCASE AND f.attribute = ? AND f.rejected = 0
		AND f.valid_to IS NOT NULL AND f.valid_to <= ?`
	return readRows(ctx, a, fmt.Sprintf("facts about %q %q", entity, attribute), sql,
		[]any{entity, attribute, asOf.UnixMilli()}, scanFactHit)
}

// ImportantMemories returns the newest memories with importance of at least
// 0.8 (the partial index's condition, so it is used) within the filters, up
// to Limit: the profile recall may pin.
// Every recall that finds something asks them, and they change only with
// a write: a read connection keeps them with its search state, for one
// data version.
func (a *Agent) ImportantMemories(ctx context.Context, o SearchOptions) ([]MemoryHit, error) {
	o.Terms = nil
	sql, args := memoryFilters(`SELECT `+memoryHitColumns+`, 0 FROM daily_memories m WHERE m.importance >= 0.8`, nil, o)
	sql += ` ORDER BY m.ts DESC LIMIT ?`
	args = append(args, max(o.Limit, 1))
	var out []MemoryHit
	err := a.read(ctx, func(c *conn) error {
		st, err := c.searchState(ctx)
		if err != nil {
			return err
		}
		key := fmt.Sprint(sql, args)
		hits, ok := st.important[key]
		if !ok {
			if hits, err = scanRows(ctx, c, sql, args, scanMemoryHit); err != nil {
				return err
			}
			if st.important == nil || len(st.important) > maxImportantKept {
				st.important = map[string][]MemoryHit{}
			}
			st.important[key] = hits
		}
		out = slices.Clone(hits) // the caller's to sort and decode
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("important memories: %w", err)
	}
	return out, nil
}

// maxImportantKept is how many filters' important memories a read
// connection keeps at most (a recall asks with one or two).
const maxImportantKept = 16

// Speaks reports whether a memory that recall may offer, stored up to
// until, was said by name: its role is the name, or starts with it ("Ann"
// for "Ann Lee"). Case is ignored.
func (a *Agent) Speaks(ctx context.Context, name string, until time.Time) (bool, error) {
	if strings.TrimSpace(name) == "" {
		return false, nil
	}
	sql, args := memoryFilters(`SELECT 1 FROM daily_memories m WHERE (m.role = ? COLLATE NOCASE OR m.role LIKE ? ESCAPE '\')`,
		[]any{name, likeEscape(name) + " %"}, SearchOptions{Until: until})
	found := false
	err := a.read(ctx, func(c *conn) error {
		// A name no role starts with is known without the query, which
		// reads every memory when none matches.
		if roles, err := c.roles(ctx); err != nil || roles != nil && !roleOf(roles, name) {
			return err
		}
		return c.query(ctx, sql+` LIMIT 1`, args, func(*sqlite3.Stmt) error { found = true; return nil })
	})
	if err != nil {
		return false, fmt.Errorf("look for memories said by %q: %w", name, err)
	}
	return found, nil
}

// roleOf reports whether a role of roles (lowercased as SQLite's NOCASE
// and LIKE fold: ASCII only) is name or starts with it and a space, as
// Speaks' query matches them.
func roleOf(roles []string, name string) bool {
	n := asciiLower(name)
	return slices.ContainsFunc(roles, func(r string) bool { return r == n || strings.HasPrefix(r, n+" ") })
}

// asciiLower is s with A-Z lowered, the only letters NOCASE and LIKE fold.
func asciiLower(s string) string {
	return strings.Map(func(r rune) rune {
		if 'A' <= r && r <= 'Z' {
			return r + ('a' - 'A')
		}
		return r
	}, s)
}

// likeEscape escapes LIKE's wildcards (and the escape character) in s.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}
