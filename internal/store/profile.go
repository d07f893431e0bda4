package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ncruces/go-sqlite3"

	"github.com/dormouse-dev/dormouse/internal/claim"
)

// The profile: per agent, a compact set of durable statements about the
// user and the people, pets and places around them, each citing the
// memories it came from. Consolidation writes it (PutProfileLines); a
// person edits or removes a line. A line states one claim (subject, key,
// value) in words (Text). Nothing is overwritten: a newer value, an edit or
// a removal ends a line (valid_to) and the history keeps it, so an as_of in
// the past sees the profile as it was then.

// ProfileLine is one statement of the profile.
type ProfileLine struct {
	ID              int64
	Category        string // one of claim.Categories
	Subject         string // "user", or the person/pet/place the line is about
	Key             string // canonical claim key
	Value           string
	Text            string // the statement as offered: "Works at Arup as a structural engineer."
	SourceMemoryIDs []int64
	// Single says the key holds one value at a time (an address, an
	// employer): a new value ends the current line. Otherwise values
	// accumulate (allergies, children) and a line ends only when its own
	// value is said to have ended.
	Single    bool
	ValidFrom time.Time
	// ValidTo is zero while the line is current. Given to PutProfileLines it
	// says the claim ended then ("stopped taking naproxen"): the current line
	// stating it ends, and nothing new is stored.
	ValidTo      time.Time
	SupersededBy int64
	Edited       bool // the text was set by a person
	Removed      bool // removed by a person
	CreatedAt    time.Time
}

// Current reports whether the line is part of the profile now.
func (l ProfileLine) Current() bool { return l.ValidTo.IsZero() && !l.Removed }

// ErrProfileLineNotCurrent is an edit or removal of a line a newer value,
// an earlier edit or a removal has ended.
var ErrProfileLineNotCurrent = errors.New("only a current profile line can be edited or removed: this one is superseded or removed")

const profileColumns = `id, category, subject, key, value, text, source_memory_ids, single,
	valid_from, valid_to, superseded_by, edited, removed, created_at`

func scanProfileLine(s *sqlite3.Stmt) (ProfileLine, error) {
	l := ProfileLine{
		ID:           s.ColumnInt64(0),
		Category:     s.ColumnText(1),
		Subject:      s.ColumnText(2),
		Key:          s.ColumnText(3),
		Value:        s.ColumnText(4),
		Text:         s.ColumnText(5),
		Single:       s.ColumnBool(7),
		ValidFrom:    storedTime(s.ColumnInt64(8)),
		SupersededBy: s.ColumnInt64(10),
		Edited:       s.ColumnBool(11),
		Removed:      s.ColumnBool(12),
		CreatedAt:    storedTime(s.ColumnInt64(13)),
	}
	if s.ColumnType(9) != sqlite3.NULL {
		l.ValidTo = storedTime(s.ColumnInt64(9))
	}
	if err := json.Unmarshal(s.ColumnRawText(6), &l.SourceMemoryIDs); err != nil {
		return l, fmt.Errorf("profile line %d: decode source memories: %w", l.ID, err)
	}
	return l, nil
}

// Profile returns the lines current at asOf (zero: now), by category in
// the order of claim.Categories, then subject (the user first), then key.
// A removed line is never returned, whatever asOf: the person said it was
// wrong, not that it stopped being true.
func (a *Agent) Profile(ctx context.Context, asOf time.Time) ([]ProfileLine, error) {
	if asOf.IsZero() {
		asOf = time.Now()
	}
	ms := asOf.UnixMilli()
	lines, err := readRows(ctx, a, "read the profile", `SELECT `+profileColumns+` FROM profile_lines
		WHERE removed = 0 AND valid_from <= ? AND (valid_to IS NULL OR valid_to > ?)
		ORDER BY valid_from, id`, []any{ms, ms}, scanProfileLine)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(lines, compareProfileLines)
	return lines, nil
}

// compareProfileLines orders lines as Profile returns them.
func compareProfileLines(x, y ProfileLine) int {
	if c := claim.CategoryRank(x.Category) - claim.CategoryRank(y.Category); c != 0 {
		return c
	}
	if xu, yu := x.Subject == "user", y.Subject == "user"; xu != yu {
		if xu {
			return -1
		}
		return 1
	}
	if c := strings.Compare(strings.ToLower(x.Subject), strings.ToLower(y.Subject)); c != 0 {
		return c
	}
	return strings.Compare(x.Key, y.Key)
}

// ProfileLine returns line id, current or not; ErrNotFound when there is none.
func (a *Agent) ProfileLine(ctx context.Context, id int64) (ProfileLine, error) {
	return readRow(ctx, a, fmt.Sprintf("get profile line %d", id), fmt.Sprintf("profile line %d", id),
		`SELECT `+profileColumns+` FROM profile_lines WHERE id = ?`, []any{id}, scanProfileLine)
}

// ProfileHistory returns every line about subject's key, removed and
// superseded ones too, newest first.
func (a *Agent) ProfileHistory(ctx context.Context, subject, key string) ([]ProfileLine, error) {
	return readRows(ctx, a, fmt.Sprintf("read the profile history of %q %q", subject, key),
		`SELECT `+profileColumns+` FROM profile_lines WHERE subject = ? COLLATE NOCASE AND key = ?
		ORDER BY valid_from DESC, id DESC`, []any{subject, key}, scanProfileLine)
}

// ProfileEver returns every line there has been, ended, superseded and
// removed ones too, in Profile's order, the newest first within a key.
func (a *Agent) ProfileEver(ctx context.Context) ([]ProfileLine, error) {
	lines, err := readRows(ctx, a, "read every profile line", `SELECT `+profileColumns+` FROM profile_lines
		ORDER BY valid_from DESC, id DESC`, nil, scanProfileLine)
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(lines, compareProfileLines)
	return lines, nil
}

// ProfileLineError is a line PutProfileLines refuses as given.
type ProfileLineError struct{ Msg string }

func (e *ProfileLineError) Error() string { return e.Msg }

// ErrProfileLineNotUTF8 refuses a line whose text is not UTF-8. A JSON decoder would have made
// such bytes U+FFFD, so the API refuses a body that is not UTF-8 with it before decoding.
var ErrProfileLineNotUTF8 error = &ProfileLineError{"the profile line is not valid UTF-8"}

// CheckProfileLine says what is wrong with a line for PutProfileLines, nil
// when nothing is.
func CheckProfileLine(l ProfileLine) error {
	switch {
	case !claim.IsCategory(l.Category):
		return &ProfileLineError{fmt.Sprintf("unknown profile category %q", l.Category)}
	case strings.TrimSpace(l.Subject) == "" || strings.TrimSpace(l.Key) == "":
		return &ProfileLineError{"a profile line needs a subject and a key"}
	case claim.Normal(l.Value) == "":
		return &ProfileLineError{fmt.Sprintf("the profile line %q %q has no value", l.Subject, l.Key)}
	}
	return checkProfileText(l.Text)
}

func checkProfileText(text string) error {
	switch {
	case strings.TrimSpace(text) == "":
		return &ProfileLineError{"the profile line's text is empty"}
	case len(text) > MaxCorrectionBytes:
		return &ProfileLineError{fmt.Sprintf("a profile line is limited to %d bytes", MaxCorrectionBytes)}
	case !utf8.ValidString(text):
		return ErrProfileLineNotUTF8
	}
	return nil
}

// PutProfileLines is the builder's write, in one transaction. For each
// line, as the ledger decides (claim.Decide):
//   - a claim a person removed, or one forgotten with its memory, is not
//     stored again;
//   - the same claim (subject, key and value) valid at the line's time gets
//     the line's sources, and its wording unless a person edited it;
//   - otherwise a new line; for a single-valued key it supersedes the line
//     valid at its time (and when a newer value came since, it goes into the
//     history, superseded by that);
//   - a line with ValidTo retires the current line of its claim stated by
//     then, with no successor (a value stated after it stands).
//
// added counts new lines, superseded the lines they ended.
func (a *Agent) PutProfileLines(ctx context.Context, lines []ProfileLine, now time.Time) (added, superseded int, err error) {
	n, err := writeValue(ctx, a, func(ctx context.Context, c *conn) (putCounts, error) { return putProfileLines(ctx, c, lines, now) })
	if err != nil {
		return 0, 0, fmt.Errorf("put profile lines: %w", err)
	}
	return n.added, n.superseded, nil
}

// putProfileLines is PutProfileLines inside the caller's transaction: a
// bad line stores none.
func putProfileLines(ctx context.Context, c *conn, lines []ProfileLine, now time.Time) (putCounts, error) {
	for i, l := range lines {
		if err := CheckProfileLine(l); err != nil {
			return putCounts{}, fmt.Errorf("line %d: %w", i, err)
		}
	}
	var n putCounts
	for _, l := range lines {
		d, err := putProfileLine(ctx, c, l, now)
		if err != nil {
			return n, fmt.Errorf("%q %q: %w", l.Subject, l.Key, err)
		}
		n.added += d.added
		n.superseded += d.superseded
	}
	return n, nil
}

type putCounts struct{ added, superseded int }

// putProfileLine puts l through the ledger (putClaim): a line's claim is
// its subject's key, known by its value; a line with ValidTo retires it,
// in the facts too ("we lost Pepper", "not allergic to latex after all").
func putProfileLine(ctx context.Context, c *conn, l ProfileLine, now time.Time) (putCounts, error) {
	if l.ValidFrom.IsZero() {
		l.ValidFrom = now
	}
	if !l.ValidTo.IsZero() {
		r := Retirement{Subject: l.Subject, Key: l.Key, Value: l.Value, At: time.UnixMilli(l.ValidTo.UnixMilli())}
		if _, err := retireRows(ctx, c, factsTable, r, ""); err != nil {
			return putCounts{}, err
		}
	}
	d, _, err := putClaim(ctx, c, &linePut{l: l, now: now})
	switch {
	case err != nil:
		return putCounts{}, err
	case d.Action == claim.Retire:
		return putCounts{}, retireEndedMemories(ctx, c, d.Ends, l.SourceMemoryIDs)
	case d.Action != claim.Insert && d.Action != claim.InsertHistory:
		return putCounts{}, nil
	}
	return putCounts{added: 1, superseded: len(d.Ends)}, nil
}

// retireEndedMemories marks the memories behind the retired lines ended
// superseded by the memories that said so (by), when no current line
// cites them: "I'm allergic to latex too" goes with its allergy, "we have
// two cats, Mochi and Pepper" stays for Mochi when Pepper goes.
func retireEndedMemories(ctx context.Context, c *conn, ended, by []int64) error {
	if len(by) == 0 {
		return nil
	}
	news, err := json.Marshal(by)
	if err != nil {
		return err
	}
	stated := `SELECT j.value FROM profile_lines l, json_each(l.source_memory_ids) j WHERE l.id = ?1
		AND NOT EXISTS (SELECT 1 FROM profile_lines o, json_each(o.source_memory_ids) k
			WHERE k.value = j.value AND o.valid_to IS NULL AND o.removed = 0)`
	for _, id := range ended {
		if err := retireMemories(ctx, c, stated, `SELECT value FROM json_each(?2)`, id, string(news)); err != nil {
			return fmt.Errorf("mark the memories of retired profile line %d superseded: %w", id, err)
		}
	}
	return nil
}

// linePut is a profile line as the ledger's layer.
type linePut struct {
	l   ProfileLine
	now time.Time
}

func (p *linePut) table() table { return linesTable }
func (p *linePut) claim() claim.Claim {
	return claim.Claim{Subject: p.l.Subject, Key: p.l.Key, Value: p.l.Value}
}
func (p *linePut) statement() claim.Statement {
	if !p.l.ValidTo.IsZero() {
		return claim.Statement{Value: p.l.Value, At: p.l.ValidTo, Retire: true}
	}
	return claim.Statement{Value: p.l.Value, At: p.l.ValidFrom, Single: p.l.Single}
}

// refused reports whether l's claim was forgotten with the memory it came
// from (a person's removal is a refused row of its history).
func (p *linePut) refused(ctx context.Context, c *conn) ([]claim.Row, bool, error) {
	some, err := anyForgotten(ctx, c)
	if err != nil || !some {
		return nil, false, err
	}
	forgotten, err := isForgottenClaim(ctx, c, p.claim())
	return nil, forgotten, err
}

// reinforce adds l's sources to line id, which states the same claim, and
// l's wording unless a person set the line's.
func (p *linePut) reinforce(ctx context.Context, c *conn, id int64) error {
	var text string
	var edited bool
	var srcs []int64
	err := c.query(ctx, `SELECT text, edited, source_memory_ids FROM profile_lines WHERE id = ?`, []any{id},
		func(s *sqlite3.Stmt) error {
			text, edited = s.ColumnText(0), s.ColumnBool(1)
			return json.Unmarshal(s.ColumnRawText(2), &srcs)
		})
	if err != nil {
		return fmt.Errorf("read profile line %d: %w", id, err)
	}
	srcs, added := union(srcs, p.l.SourceMemoryIDs)
	wording := text
	if !edited {
		wording = p.l.Text
	}
	if !added && wording == text {
		return nil
	}
	b, err := json.Marshal(srcs)
	if err != nil {
		return err
	}
	if err := c.execArgs(ctx, `UPDATE profile_lines SET source_memory_ids = ?, text = ? WHERE id = ?`, string(b), wording, id); err != nil {
		return fmt.Errorf("add sources to profile line %d: %w", id, err)
	}
	return nil
}

// insert stores l as a new line where d places it.
func (p *linePut) insert(ctx context.Context, c *conn, d claim.Decision) (int64, error) {
	l := p.l
	srcs, err := json.Marshal(nonNil(l.SourceMemoryIDs))
	if err != nil {
		return 0, err
	}
	validTo, by := placement(d)
	err = c.execArgs(ctx, `INSERT INTO profile_lines (category, subject, key, value, text, source_memory_ids,
		single, valid_from, valid_to, superseded_by, edited, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		l.Category, l.Subject, l.Key, l.Value, strings.TrimSpace(l.Text), string(srcs), l.Single,
		l.ValidFrom.UnixMilli(), validTo, by, l.Edited, p.now.UnixMilli())
	if err != nil {
		return 0, fmt.Errorf("insert profile line: %w", err)
	}
	return c.db.LastInsertRowID(), nil
}

// superseded marks the memories behind line old superseded by those of
// line by, the newer value that ended it (see supersede.go).
func (p *linePut) superseded(ctx context.Context, c *conn, old, by int64) error {
	return retireLineMemories(ctx, c, old, by)
}

// EditProfileLine stores a person's wording of current line id as a new
// line superseding it, with the same claim and sources, marked Edited: a
// rebuild stating the same value keeps the wording; a newer value replaces
// the line as it would any other.
func (a *Agent) EditProfileLine(ctx context.Context, id int64, text string, now time.Time) (ProfileLine, error) {
	text = strings.TrimSpace(text)
	if err := checkProfileText(text); err != nil {
		return ProfileLine{}, fmt.Errorf("edit profile line %d: %w", id, err)
	}
	newID, err := writeValue(ctx, a, func(ctx context.Context, c *conn) (int64, error) {
		old, err := currentProfileLine(ctx, c, id)
		if err != nil {
			return 0, err
		}
		if old.Text == text {
			return 0, fmt.Errorf("profile line %d: %w", id, ErrUnchanged)
		}
		edit := old
		edit.Text, edit.Edited = text, true
		edit.ValidFrom = now
		if !now.After(old.ValidFrom) { // a line dated in the future by its source
			edit.ValidFrom = old.ValidFrom.Add(time.Millisecond)
		}
		p := &linePut{l: edit, now: now}
		newID, err := p.insert(ctx, c, claim.Decision{Action: claim.Insert})
		if err != nil {
			return 0, err
		}
		if err := endRows(ctx, c, linesTable, []int64{id}, edit.ValidFrom, newID); err != nil {
			return 0, err
		}
		return newID, p.superseded(ctx, c, id, newID)
	})
	if err != nil {
		return ProfileLine{}, fmt.Errorf("edit profile line %d: %w", id, err)
	}
	return a.ProfileLine(ctx, newID)
}

// RemoveProfileLine removes current line id for a person: it is never
// current again, and its claim is never stored again by the builder.
func (a *Agent) RemoveProfileLine(ctx context.Context, id int64, now time.Time) error {
	err := a.write(ctx, func(ctx context.Context, c *conn) error {
		if _, err := currentProfileLine(ctx, c, id); err != nil {
			return err
		}
		return c.execArgs(ctx, `UPDATE profile_lines SET removed = 1, valid_to = ? WHERE id = ?`, now.UnixMilli(), id)
	})
	if err != nil {
		return fmt.Errorf("remove profile line %d: %w", id, err)
	}
	return nil
}

// currentProfileLine reads line id, which must be current.
func currentProfileLine(ctx context.Context, c *conn, id int64) (ProfileLine, error) {
	var l ProfileLine
	found := false
	err := c.query(ctx, `SELECT `+profileColumns+` FROM profile_lines WHERE id = ?`, []any{id}, func(s *sqlite3.Stmt) error {
		var err error
		l, err = scanProfileLine(s)
		found = true
		return err
	})
	switch {
	case err != nil:
		return l, err
	case !found:
		return l, fmt.Errorf("profile line %d: %w", id, ErrNotFound)
	case !l.Current():
		return l, fmt.Errorf("profile line %d: %w", id, ErrProfileLineNotCurrent)
	}
	return l, nil
}

// dropLineSource removes memory mem from the profile lines' sources, as
// for facts (dropRowSources); when forget says the memory was deleted, the
// claim of a line dropped with it is remembered as forgotten so the
// builder does not offer it again.
func dropLineSource(ctx context.Context, c *conn, mem int64, now time.Time, forget bool) error {
	return dropRowSources(ctx, c, linesTable, mem, func(id int64) error {
		cl, err := rowClaim(ctx, c, linesTable, id)
		if h, ok := claimHash(cl); err == nil && ok && forget {
			err = rememberHash(ctx, c, h, ForgottenMemory, mem, now)
		}
		return err
	})
}

// profileAtCapture stores the profile lines of the new memories of mems
// (ins says which are new and their ids) that are important enough, after
// their insert committed: an ordinary memory costs a comparison, and a
// failure is logged, never the capture's.
func (a *Agent) profileAtCapture(ctx context.Context, mems []Memory, ins []Inserted) {
	if a.opts.ProfileAtCapture == nil {
		return
	}
	var important []Memory
	for i := range mems {
		important = a.appendImportant(important, mems[i], ins[i])
	}
	a.putCaptureProfile(ctx, important)
}

// appendImportant appends m, stored as ins, to ms when it is a new memory
// the profile is built from at capture.
func (a *Agent) appendImportant(ms []Memory, m Memory, ins Inserted) []Memory {
	if a.opts.ProfileAtCapture == nil || ins.Duplicate || m.Importance < a.opts.ProfileImportance {
		return ms
	}
	m.ID = ins.ID
	return append(ms, m)
}

func (a *Agent) putCaptureProfile(ctx context.Context, mems []Memory) {
	if len(mems) == 0 {
		return
	}
	kept := mems[:0]
	for _, m := range mems {
		// A forgotten memory said again is stored flagged: no profile of it.
		if forgotten, err := a.IsForgotten(ctx, m.Content); err == nil && !forgotten {
			kept = append(kept, m)
		}
	}
	if len(kept) == 0 {
		return
	}
	lines := a.opts.ProfileAtCapture(kept)
	if len(lines) == 0 {
		return
	}
	if _, _, err := a.PutProfileLines(ctx, lines, a.opts.Now()); err != nil {
		a.opts.Logger.Warn("build the profile of important memories at capture", "agent", a.name, "memories", len(kept), "err", err)
	}
}
