package claim

import "time"

// The ledger: a claim (a subject's key) has a history of rows, each a
// value valid from a time until a newer value, a retirement, or never.
// Nothing is overwritten: a new value ends the row it supersedes, and an
// as_of in the past still sees what was current then. Decide says what a
// new statement does to the history; the store carries it out.

// Row is one stored statement of a claim: a row of its history.
type Row struct {
	ID    int64
	Value string
	// Words is the statement's wording, for a layer that knows a claim by
	// its words as well as its value (a fact: its content); "" otherwise.
	Words     string
	ValidFrom time.Time
	ValidTo   time.Time // zero while current
	Refused   bool      // the user rejected or removed it: never current, never stated again
}

// Current reports whether r is part of the claim now.
func (r Row) Current() bool { return r.ValidTo.IsZero() && !r.Refused }

// validAt reports whether r held at t.
func (r Row) validAt(t time.Time) bool {
	return !r.Refused && !r.ValidFrom.After(t) && (r.ValidTo.IsZero() || t.Before(r.ValidTo))
}

// Statement is a new statement of a claim.
type Statement struct {
	Value, Words string    // as for Row
	At           time.Time // when it became true; for a retirement, when it stopped
	Single       bool      // the key holds one value at a time: a new value supersedes
	// Retire says the value stopped being true at At, with no successor
	// ("I no longer eat meat"); an empty Value retires whatever is current.
	Retire bool
	// Forgotten says the store found the statement refused outside the
	// history: forgotten with its memory, or rejected in these words.
	Forgotten bool
}

// Action is what a statement does to its claim's history.
type Action int

// The ledger's actions.
const (
	Refuse        Action = iota + 1 // the user refused it: nothing stored
	Reinforce                       // a row valid then already says it: that row gains the evidence
	Insert                          // a new current row, ending Ends
	InsertHistory                   // a new row older than a newer value: it ends Ends and is ended at Until by Successor
	Retire                          // Ends end at the statement's time, with no successor
	Nothing                         // a retirement of nothing current
)

var actionNames = [...]string{"", "refuse", "reinforce", "insert", "insert as history", "retire", "nothing"}

func (a Action) String() string { return actionNames[a] }

// Decision is the ledger's answer to a statement.
type Decision struct {
	Action Action
	Row    int64   // Refuse: the refused row (0: refused outside the history); Reinforce: the row
	Ends   []int64 // the rows the new row supersedes (Insert, InsertHistory) or that retire (Retire), at the statement's time
	// Until and Successor are, for InsertHistory, where the new row ends:
	// the next newer value's start, and its row.
	Until     time.Time
	Successor int64
}

// Decide is the ledger's decision for statement s of a claim whose history
// is rows (oldest first). Values and words compare in their Normal form.
//   - a statement the user refused (a refused row says it, or Forgotten) is
//     refused; a retirement never is;
//   - a retirement ends the current rows of its value (of any value when
//     empty) stated by its time: nothing when there are none;
//   - the same claim current, or valid at the statement's time, is
//     reinforced;
//   - otherwise a new row; for a single-valued key it ends the rows valid
//     at its time and, when a newer value came since, goes into the
//     history, ended by that value.
func Decide(rows []Row, s Statement) Decision {
	if s.Retire {
		return retire(rows, s)
	}
	v, w := Normal(s.Value), Normal(s.Words)
	says := func(r Row) bool {
		return (v != "" && Normal(r.Value) == v) || (w != "" && Normal(r.Words) == w)
	}
	var same []Row // the rows that say what s says
	for _, r := range rows {
		switch {
		case !says(r):
		case r.Refused:
			return Decision{Action: Refuse, Row: r.ID}
		default:
			same = append(same, r)
		}
	}
	if s.Forgotten {
		return Decision{Action: Refuse}
	}
	for _, r := range same {
		if r.Current() || r.validAt(s.At) {
			return Decision{Action: Reinforce, Row: r.ID}
		}
	}
	if !s.Single {
		return Decision{Action: Insert}
	}
	return place(rows, s.At)
}

// retire ends the current rows of s's value (and of its words, when it
// has them: a claim without key is known by its words) stated by s.At: a
// value said after the retirement stands.
func retire(rows []Row, s Statement) Decision {
	v, w := Normal(s.Value), Normal(s.Words)
	d := Decision{Action: Retire}
	for _, r := range rows {
		if r.Current() && !r.ValidFrom.After(s.At) && (v == "" || Normal(r.Value) == v) && (w == "" || Normal(r.Words) == w) {
			d.Ends = append(d.Ends, r.ID)
		}
	}
	if len(d.Ends) == 0 {
		return Decision{Action: Nothing}
	}
	return d
}

// place puts a new value of a single-valued key stated at t in its place:
// it ends the rows valid at t, and is ended by the next newer value.
func place(rows []Row, t time.Time) Decision {
	d := Decision{Action: Insert}
	var next *Row
	for i, r := range rows {
		switch {
		case r.Refused:
		case r.validAt(t):
			d.Ends = append(d.Ends, r.ID)
		case r.ValidFrom.After(t) && (next == nil || r.ValidFrom.Before(next.ValidFrom)):
			next = &rows[i]
		}
	}
	if next != nil {
		d.Action, d.Until, d.Successor = InsertHistory, next.ValidFrom, next.ID
	}
	return d
}
