package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ncruces/go-sqlite3"

	"github.com/dormouse-dev/dormouse/internal/claim"
)

// Corrections: a memory that corrects an earlier claim ("actually, make it
// Thursday", "I no longer eat meat") retires the memories that stated it,
// and with them the facts and profile lines only they stated. The old rows
// are kept: an as_of before the correction still sees them.

// RetireCorrected marks the memories old superseded by memory by (said
// after them; the others are left alone) and ends, at by's time, the
// current facts and profile lines whose source memories are all superseded
// by then (valid_to; no successor: the correction may end the claim, as a
// negation does). Memories already superseded keep their successor.
func (a *Agent) RetireCorrected(ctx context.Context, old []int64, by int64) error {
	return a.RetireCorrectedNaming(ctx, old, by, "")
}

// RetireCorrectedNaming is RetireCorrected where, when naming is not "",
// only the facts and profile lines whose value (or words, for a claim
// without key) names it end: "I left Arup" ends the employer Arup, not the
// job title the same memory stated ("I'm a structural engineer at Arup").
func (a *Agent) RetireCorrectedNaming(ctx context.Context, old []int64, by int64, naming string) error {
	if len(old) == 0 {
		return nil
	}
	ids, err := json.Marshal(old)
	if err != nil {
		return err
	}
	err = a.writeBackground(ctx, func(ctx context.Context, c *conn) error {
		if err := c.execArgs(ctx, `UPDATE daily_memories SET superseded_by = ?2
			WHERE id IN (SELECT value FROM json_each(?1)) AND superseded_by IS NULL AND id != ?2
			AND ts < (SELECT ts FROM daily_memories WHERE id = ?2)`, string(ids), by); err != nil {
			return err
		}
		for _, t := range []table{factsTable, linesTable} {
			if err := retireStatedOnlyByRetired(ctx, c, t, string(ids), by, claim.Normal(naming)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("retire the memories memory %d corrects: %w", by, err)
	}
	return nil
}

// retireStatedOnlyByRetired retires through the ledger, at memory by's
// time, the current claims of t stated by any of the memories ids and only
// by memories superseded by then, but for a value memory by says again:
// "we've switched Dorota to Mondays" moves the day, and Dorota is still
// the gardener.
func retireStatedOnlyByRetired(ctx context.Context, c *conn, t table, ids string, by int64, naming string) error {
	var at int64
	var said string
	if err := c.query(ctx, `SELECT ts, content FROM daily_memories WHERE id = ?`, []any{by},
		func(s *sqlite3.Stmt) error {
			at, said = s.ColumnInt64(0), " "+claim.Normal(s.ColumnText(1))+" "
			return nil
		}); err != nil {
		return err
	}
	type stated struct {
		Retirement
		words string
	}
	claims, err := scanRows(ctx, c, `SELECT DISTINCT `+t.subject+`, `+t.key+`, value, `+t.words+` FROM `+t.name+`
		WHERE valid_to IS NULL AND superseded_by IS NULL AND `+t.refused+` = 0 AND valid_from < ?2
		AND EXISTS (SELECT 1 FROM json_each(source_memory_ids) j WHERE j.value IN (SELECT value FROM json_each(?1)))
		AND NOT EXISTS (SELECT 1 FROM json_each(source_memory_ids) j
			WHERE j.value NOT IN (SELECT m.id FROM daily_memories m WHERE m.superseded_by IS NOT NULL))`,
		[]any{ids, at}, func(s *sqlite3.Stmt) (stated, error) {
			st := stated{Retirement{Subject: s.ColumnText(0), Key: s.ColumnText(1), Value: s.ColumnText(2), At: time.UnixMilli(at)}, ""}
			if st.Key == "" { // a claim without key is known by its words alone
				st.Value, st.words = "", s.ColumnText(3)
			}
			return st, nil
		})
	if err != nil {
		return fmt.Errorf("find the %s memory %d corrects: %w", t.name, by, err)
	}
	for _, st := range claims {
		if v := claim.Normal(st.Value); restates(said, v) && !movesDay(said, v) {
			continue
		}
		if naming != "" && !strings.Contains(" "+claim.Normal(st.Value+" "+st.words)+" ", " "+naming+" ") {
			continue // another claim of the memory: not what was left
		}
		if _, err := retireRows(ctx, c, t, st.Retirement, st.words); err != nil {
			return err
		}
	}
	return nil
}

// restates reports whether said (normal words, space-padded) says value
// v again and not as what ended: "switched Dorota to Mondays" restates
// Dorota, "we don't use Dorota any more" and "Dorota has retired" do not.
func restates(said, v string) bool {
	i := strings.Index(said, " "+v+" ")
	if v == "" || i < 0 {
		return false
	}
	before := strings.Fields(said[:i])
	for _, w := range before[max(0, len(before)-3):] {
		if denials[w] {
			return false
		}
	}
	after := strings.Fields(said[i+len(v)+1:])
	for _, w := range after[:min(len(after), 2)] {
		if endedBy[w] {
			return false
		}
	}
	return true
}

// endedBy are the words that say a value named before them ended, as its
// verb: "Dorota has retired", "the Spar's closed down".
var endedBy = map[string]bool{"retired": true, "retiring": true, "retires": true, "closed": true, "closing": true,
	"shut": true, "died": true}

// movesDay reports whether said names another weekday than the one
// value v opens with: "make that the Friday, I'm at work Wednesday" moves
// the Wednesday booking though it names Wednesday again.
func movesDay(said, v string) bool {
	first, _, _ := strings.Cut(v, " ")
	if !weekday(first) {
		return false
	}
	for w := range strings.FieldsSeq(said) {
		if w = strings.TrimSuffix(w, "s"); w != first && weekday(w) {
			return true
		}
	}
	return false
}

// weekday reports whether w is a weekday's name, lowercase.
func weekday(w string) bool {
	for d := time.Sunday; d <= time.Saturday; d++ {
		if w == strings.ToLower(d.String()) {
			return true
		}
	}
	return false
}

// denials are the words that say a value named after them ended.
var denials = map[string]bool{"not": true, "no": true, "longer": true, "never": true, "t": true, "dont": true,
	"don't": true, "stopped": true, "quit": true, "cancelled": true, "canceled": true, "without": true, "left": true,
	"lost": true, "instead": true, "than": true, "from": true}

// SupersededTexts returns the texts of the given memories that a successor
// said by asOf (zero: now) superseded: the sentences a day record made of
// them are no longer current. Cheap when none is superseded.
func (a *Agent) SupersededTexts(ctx context.Context, memoryIDs []int64, asOf time.Time) ([]string, error) {
	if len(memoryIDs) == 0 {
		return nil, nil
	}
	ids, err := json.Marshal(memoryIDs)
	if err != nil {
		return nil, err
	}
	return readRows(ctx, a, "superseded memory texts", `SELECT m.content FROM daily_memories m
		WHERE m.id IN (SELECT value FROM json_each(?1)) AND m.superseded_by IS NOT NULL
		AND EXISTS (SELECT 1 FROM daily_memories n WHERE n.id = m.superseded_by AND n.ts <= ?2)`,
		[]any{string(ids), successorBound(asOf)}, func(s *sqlite3.Stmt) (string, error) { return s.ColumnText(0), nil })
}
