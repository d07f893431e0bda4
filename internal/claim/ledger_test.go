package claim

import (
	"slices"
	"testing"
	"time"
)

// day is hour h of a fixed day: the times of the table's histories.
func day(h int) time.Time { return time.Date(2026, 3, 2, h, 0, 0, 0, time.UTC) }

// cur is a current row; old one ended at `to`; refused one the user refused.
func cur(id int64, v string, from int) Row { return Row{ID: id, Value: v, ValidFrom: day(from)} }
func old(id int64, v string, from, to int) Row {
	return Row{ID: id, Value: v, ValidFrom: day(from), ValidTo: day(to)}
}
func refused(id int64, v string, from int) Row {
	return Row{ID: id, Value: v, ValidFrom: day(from), ValidTo: day(from), Refused: true}
}
func worded(r Row, w string) Row { r.Words = w; return r }

func one(v string, at int) Statement   { return Statement{Value: v, At: day(at), Single: true} }
func many(v string, at int) Statement  { return Statement{Value: v, At: day(at)} }
func ended(v string, at int) Statement { return Statement{Value: v, At: day(at), Retire: true} }

func TestDecide(t *testing.T) {
	tests := []struct {
		name string
		rows []Row
		s    Statement
		want Decision
	}{
		// A first statement.
		{"first value of a single key", nil, one("Arup", 9), Decision{Action: Insert}},
		{"first value of a multi-valued key", nil, many("penicillin", 9), Decision{Action: Insert}},

		// The same value restated.
		{"same value restated", []Row{cur(1, "Arup", 9)}, one("Arup", 12), Decision{Action: Reinforce, Row: 1}},
		{"same value in other case and punctuation", []Row{cur(1, "07700 900-462", 9)}, one("07700 900 462", 12),
			Decision{Action: Reinforce, Row: 1}},
		{"same value restated before it was first said", []Row{cur(1, "Arup", 12)}, one("Arup", 9),
			Decision{Action: Reinforce, Row: 1}},
		{"same value of a multi-valued key", []Row{cur(1, "penicillin", 9), cur(2, "peanuts", 10)}, many("Peanuts", 12),
			Decision{Action: Reinforce, Row: 2}},
		{"same words, other value", []Row{worded(cur(1, "", 9), "the user likes jazz")},
			Statement{Words: "The user likes jazz.", At: day(12)}, Decision{Action: Reinforce, Row: 1}},
		{"an old value restated while current again is the current row",
			[]Row{old(1, "Leeds", 8, 10), old(2, "York", 10, 12), cur(3, "Leeds", 12)}, one("Leeds", 14),
			Decision{Action: Reinforce, Row: 3}},
		{"a late restatement of a value valid then reinforces that row",
			[]Row{old(1, "Leeds", 8, 12), cur(2, "York", 12)}, one("Leeds", 10), Decision{Action: Reinforce, Row: 1}},

		// A different value, later.
		{"new value supersedes the current", []Row{cur(1, "Arup", 9)}, one("Atkins", 12),
			Decision{Action: Insert, Ends: []int64{1}}},
		{"new value after a history", []Row{old(1, "Leeds", 8, 10), cur(2, "York", 10)}, one("Bath", 12),
			Decision{Action: Insert, Ends: []int64{2}}},
		{"new value ends every current row (a history stored before the keys)",
			[]Row{cur(1, "07700 1", 8), cur(2, "07700 2", 9)}, one("07700 3", 12), Decision{Action: Insert, Ends: []int64{1, 2}}},
		{"an old value said again later is a new row", []Row{old(1, "Leeds", 8, 10), cur(2, "York", 10)}, one("Leeds", 12),
			Decision{Action: Insert, Ends: []int64{2}}},
		{"new value at the same moment as the current", []Row{cur(1, "Arup", 9)}, one("Atkins", 9),
			Decision{Action: Insert, Ends: []int64{1}}},
		{"a value after a retirement supersedes nothing", []Row{old(1, "vegetarian", 8, 10)}, one("vegan", 12),
			Decision{Action: Insert}},

		// An older statement arriving after a newer one.
		{"older value arriving late goes into the history", []Row{cur(1, "York", 12)}, one("Leeds", 9),
			Decision{Action: InsertHistory, Until: day(12), Successor: 1}},
		{"late value between two values ends the older and is ended by the newer",
			[]Row{old(1, "Leeds", 8, 12), cur(2, "York", 12)}, one("Bath", 10),
			Decision{Action: InsertHistory, Ends: []int64{1}, Until: day(12), Successor: 2}},
		{"late value is ended by the nearest newer value",
			[]Row{old(1, "Leeds", 8, 10), old(2, "York", 10, 14), cur(3, "Bath", 14)}, one("Hull", 9),
			Decision{Action: InsertHistory, Ends: []int64{1}, Until: day(10), Successor: 2}},
		{"late value before the whole history", []Row{old(1, "Leeds", 8, 10), cur(2, "York", 10)}, one("Hull", 6),
			Decision{Action: InsertHistory, Until: day(8), Successor: 1}},
		{"late value of a multi-valued key is simply added", []Row{cur(1, "penicillin", 12)}, many("latex", 9),
			Decision{Action: Insert}},
		{"late value inside a retired stretch", []Row{old(1, "vegetarian", 8, 12)}, one("vegan", 10),
			Decision{Action: Insert, Ends: []int64{1}}},

		// A refused value stated again.
		{"refused value stated again", []Row{refused(1, "Arup", 9)}, one("Arup", 12), Decision{Action: Refuse, Row: 1}},
		{"refused value in other words", []Row{refused(1, "Atkins & Co.", 9)}, one("atkins co", 12), Decision{Action: Refuse, Row: 1}},
		{"refused value stated with a current other value", []Row{refused(1, "Arup", 8), cur(2, "Atkins", 9)}, one("Arup", 12),
			Decision{Action: Refuse, Row: 1}},
		{"refused value of a multi-valued key", []Row{refused(1, "penicillin", 9)}, many("penicillin", 12),
			Decision{Action: Refuse, Row: 1}},
		{"refused words", []Row{worded(refused(1, "", 9), "the user likes jazz")},
			Statement{Words: "the user likes jazz", At: day(12)}, Decision{Action: Refuse, Row: 1}},
		{"refused outside the history", []Row{cur(1, "Arup", 9)}, Statement{Value: "Arup", At: day(12), Single: true, Forgotten: true},
			Decision{Action: Refuse}},
		{"a refused row is named though forgotten too", []Row{refused(1, "Arup", 9)},
			Statement{Value: "Arup", At: day(12), Single: true, Forgotten: true}, Decision{Action: Refuse, Row: 1}},
		{"another value than the refused is stored", []Row{refused(1, "Arup", 9)}, one("Atkins", 12), Decision{Action: Insert}},
		{"a refused row is never superseded", []Row{refused(1, "Arup", 9), cur(2, "Atkins", 10)}, one("Mott", 12),
			Decision{Action: Insert, Ends: []int64{2}}},
		{"a refused row never bounds a late value", []Row{refused(1, "Arup", 12)}, one("Atkins", 9), Decision{Action: Insert}},

		// Multi-valued keys add rather than replace.
		{"second value of a multi-valued key adds", []Row{cur(1, "penicillin", 9)}, many("latex", 12), Decision{Action: Insert}},
		{"third value adds", []Row{cur(1, "Maya", 9), cur(2, "Leo", 10)}, many("Ana", 12), Decision{Action: Insert}},
		{"a value ended before comes back as a new row", []Row{old(1, "sertraline", 8, 10)}, many("sertraline", 12),
			Decision{Action: Insert}},

		// Retire with no successor.
		{"retire the current value", []Row{cur(1, "vegetarian", 9)}, ended("vegetarian", 12), Decision{Action: Retire, Ends: []int64{1}}},
		{"retire in other words", []Row{cur(1, "Vegetarian.", 9)}, ended("vegetarian", 12), Decision{Action: Retire, Ends: []int64{1}}},
		{"retire one of several values", []Row{cur(1, "penicillin", 9), cur(2, "latex", 9)}, ended("latex", 12),
			Decision{Action: Retire, Ends: []int64{2}}},
		{"retire with no value retires what is current", []Row{old(1, "Leeds", 8, 10), cur(2, "meat", 10)}, ended("", 12),
			Decision{Action: Retire, Ends: []int64{2}}},
		{"retire with no value of a multi-valued key retires every value", []Row{cur(1, "Rex", 9), cur(2, "Mochi", 9)}, ended("", 12),
			Decision{Action: Retire, Ends: []int64{1, 2}}},
		{"retire at the moment the value was said", []Row{cur(1, "vegetarian", 9)}, ended("vegetarian", 9),
			Decision{Action: Retire, Ends: []int64{1}}},
		{"a retirement is never refused", []Row{refused(1, "meat", 8), cur(2, "meat", 9)}, ended("meat", 12),
			Decision{Action: Retire, Ends: []int64{2}}},

		{"retire by words a claim without key", []Row{{ID: 1, Words: "Tuesday piano", ValidFrom: day(9)}, {ID: 2, Words: "Friday swim", ValidFrom: day(9)}},
			Statement{Words: "tuesday piano", At: day(12), Retire: true}, Decision{Action: Retire, Ends: []int64{1}}},
		{"retire by words of other words", []Row{{ID: 1, Words: "Friday swim", ValidFrom: day(9)}},
			Statement{Words: "Tuesday piano", At: day(12), Retire: true}, Decision{Action: Nothing}},

		// Retire of something not current.
		{"retire with no history", nil, ended("vegetarian", 12), Decision{Action: Nothing}},
		{"retire of another value", []Row{cur(1, "vegan", 9)}, ended("vegetarian", 12), Decision{Action: Nothing}},
		{"retire of a value already superseded", []Row{old(1, "Arup", 8, 10), cur(2, "Atkins", 10)}, ended("Arup", 12),
			Decision{Action: Nothing}},
		{"retire of a value already retired", []Row{old(1, "vegetarian", 8, 10)}, ended("vegetarian", 12), Decision{Action: Nothing}},
		{"retire of a refused value", []Row{refused(1, "meat", 9)}, ended("meat", 12), Decision{Action: Nothing}},
		{"a retirement older than the value leaves it", []Row{cur(1, "vegetarian", 12)}, ended("vegetarian", 9),
			Decision{Action: Nothing}},

		// As-of history kept: nothing ends a row before its time or
		// rewrites another's.
		{"history rows stay when a new value comes",
			[]Row{old(1, "Leeds", 8, 10), old(2, "York", 10, 12), cur(3, "Bath", 12)}, one("Hull", 14),
			Decision{Action: Insert, Ends: []int64{3}}},
		{"a late value ends only the row valid at its time",
			[]Row{old(1, "Leeds", 8, 10), old(2, "York", 10, 12), cur(3, "Bath", 12)}, one("Hull", 11),
			Decision{Action: InsertHistory, Ends: []int64{2}, Until: day(12), Successor: 3}},
		{"a retirement leaves the history", []Row{old(1, "Leeds", 8, 10), cur(2, "York", 10)}, ended("", 12),
			Decision{Action: Retire, Ends: []int64{2}}},
		{"a current row said later than a retirement stands beside an earlier one",
			[]Row{cur(1, "penicillin", 8), cur(2, "penicillin", 14)}, ended("penicillin", 12),
			Decision{Action: Retire, Ends: []int64{1}}},
	}
	if len(tests) < 40 {
		t.Fatalf("%d rows: the ledger's table needs at least 40", len(tests))
	}
	for _, tt := range tests {
		checkDecision(t, tt.name, Decide(tt.rows, tt.s), tt.want)
	}
}

// TestDecideDoesNotChangeHistory: the decision is pure; the rows it is
// given are the caller's.
func TestDecideDoesNotChangeHistory(t *testing.T) {
	rows := []Row{old(1, "Leeds", 8, 10), cur(2, "York", 10)}
	before := slices.Clone(rows)
	Decide(rows, one("Hull", 9))
	Decide(rows, ended("", 12))
	if !slices.Equal(rows, before) {
		t.Errorf("Decide changed its rows: %+v, was %+v", rows, before)
	}
}

// TestDecideByKey: the vocabulary decides what a new value of a key does.
// A key of many values (allergies, children, pets, languages, hobbies)
// adds it beside the others and loses one only to an end naming it; a key
// of one value (a provider, the commute, the employer) supersedes; the
// same value reinforces and a refused one is refused, whichever the key.
func TestDecideByKey(t *testing.T) {
	state := func(attribute, v string, at int) Statement {
		_, single := Key(attribute)
		return Statement{Value: v, At: day(at), Single: single}
	}
	end := func(attribute, v string, at int) Statement {
		s := state(attribute, v, at)
		s.Retire = true
		return s
	}
	tests := []struct {
		name string
		rows []Row
		s    Statement
		want Decision
	}{
		// Add: a new value of a many-valued key stands beside the others.
		{"second allergy", []Row{cur(1, "penicillin", 9)}, state("allergies", "shellfish", 12), Decision{Action: Insert}},
		{"allergy by its phrase", []Row{cur(1, "penicillin", 9)}, state("allergic to", "latex", 12), Decision{Action: Insert}},
		{"second cat", []Row{cur(1, "Mochi", 9)}, state("cats", "Pepper", 9), Decision{Action: Insert}},
		{"a dog beside a cat", []Row{cur(1, "Mochi", 9)}, state("dog", "Rex", 12), Decision{Action: Insert}},
		{"second child", []Row{cur(1, "Ava", 9)}, state("kids", "Leo", 9), Decision{Action: Insert}},
		{"a daughter beside a son", []Row{cur(1, "Leo", 9)}, state("daughter", "Ava", 12), Decision{Action: Insert}},
		{"third language", []Row{cur(1, "French", 9), cur(2, "Portuguese", 9)}, state("languages", "Welsh", 12), Decision{Action: Insert}},
		{"second hobby", []Row{cur(1, "climbing", 9)}, state("hobbies", "pottery", 12), Decision{Action: Insert}},
		{"second medication", []Row{cur(1, "sertraline", 9)}, state("meds", "ibuprofen", 12), Decision{Action: Insert}},
		{"second sibling", []Row{cur(1, "Jo", 9)}, state("sister", "Kim", 12), Decision{Action: Insert}},
		// Reinforce: the same value again, either kind of key.
		{"same allergy again", []Row{cur(1, "penicillin", 9), cur(2, "shellfish", 10)}, state("allergy", "Shellfish", 12),
			Decision{Action: Reinforce, Row: 2}},
		{"same cat again", []Row{cur(1, "Mochi", 9), cur(2, "Pepper", 9)}, state("cat", "Mochi", 12), Decision{Action: Reinforce, Row: 1}},
		{"same dentist again", []Row{cur(1, "Dr Okafor", 9)}, state("dentist", "Dr Okafor", 12), Decision{Action: Reinforce, Row: 1}},
		{"same commute again", []Row{cur(1, "tram", 9)}, state("commute", "tram", 12), Decision{Action: Reinforce, Row: 1}},
		// Supersede: a key of one value.
		{"new dentist", []Row{cur(1, "Dr Okafor", 9)}, state("dentist", "Dr Hale", 12), Decision{Action: Insert, Ends: []int64{1}}},
		{"new dentist by a state word", []Row{cur(1, "Dr Okafor", 9)}, state("new dentist", "Dr Hale", 12), Decision{Action: Insert, Ends: []int64{1}}},
		{"new GP", []Row{cur(1, "Dr Shah", 9)}, state("GP surgery", "Parkway", 12), Decision{Action: Insert, Ends: []int64{1}}},
		{"new vet", []Row{cur(1, "Oakfield", 9)}, state("vets", "Riverside", 12), Decision{Action: Insert, Ends: []int64{1}}},
		{"new bank", []Row{cur(1, "Monzo", 9)}, state("bank", "Starling", 12), Decision{Action: Insert, Ends: []int64{1}}},
		{"new energy supplier", []Row{cur(1, "Octopus", 9)}, state("gas supplier", "Ecotricity", 12), Decision{Action: Insert, Ends: []int64{1}}},
		{"new broadband", []Row{cur(1, "Zentrix", 9)}, state("internet provider", "Brightwave", 12), Decision{Action: Insert, Ends: []int64{1}}},
		{"new plumber", []Row{cur(1, "Dave Rees", 9)}, state("plumber", "Ana Cole", 12), Decision{Action: Insert, Ends: []int64{1}}},
		{"new commute", []Row{cur(1, "car", 9)}, state("commute", "tram", 12), Decision{Action: Insert, Ends: []int64{1}}},
		{"new employer", []Row{cur(1, "Arup", 9)}, state("works at", "Atkins", 12), Decision{Action: Insert, Ends: []int64{1}}},
		{"an old dentist said late goes into the history", []Row{cur(1, "Dr Hale", 12)}, state("dentist", "Dr Okafor", 9),
			Decision{Action: InsertHistory, Until: day(12), Successor: 1}},
		{"an old cat said late is simply added", []Row{cur(1, "Mochi", 12)}, state("cat", "Pepper", 9), Decision{Action: Insert}},
		// Retire: only an end naming the value, and only that value.
		{"we lost Pepper", []Row{cur(1, "Mochi", 9), cur(2, "Pepper", 9)}, end("pet", "Pepper", 12), Decision{Action: Retire, Ends: []int64{2}}},
		{"not allergic to latex after all", []Row{cur(1, "penicillin", 9), cur(2, "latex", 10)}, end("allergy", "latex", 12),
			Decision{Action: Retire, Ends: []int64{2}}},
		{"gave up climbing", []Row{cur(1, "climbing", 9), cur(2, "pottery", 9)}, end("hobby", "Climbing", 12), Decision{Action: Retire, Ends: []int64{1}}},
		{"an end of a pet we never had", []Row{cur(1, "Mochi", 9)}, end("pet", "Tom", 12), Decision{Action: Nothing}},
		{"an end before the value was said", []Row{cur(1, "Pepper", 12)}, end("pet", "Pepper", 9), Decision{Action: Nothing}},
		{"a provider ended with no successor", []Row{cur(1, "Dave Rees", 9)}, end("plumber", "", 12), Decision{Action: Retire, Ends: []int64{1}}},
		// Refuse: a value the user refused, whichever the key.
		{"a refused allergy", []Row{refused(1, "latex", 9), cur(2, "penicillin", 9)}, state("allergy", "latex", 12),
			Decision{Action: Refuse, Row: 1}},
		{"a refused pet", []Row{refused(1, "Captain", 9)}, state("parrot", "Captain", 12), Decision{Action: Refuse, Row: 1}},
		{"a refused dentist", []Row{refused(1, "Dr Okafor", 9), cur(2, "Dr Hale", 10)}, state("dentist", "Dr Okafor", 12),
			Decision{Action: Refuse, Row: 1}},
		{"a refused commute", []Row{refused(1, "bus", 9)}, state("commute", "bus", 12), Decision{Action: Refuse, Row: 1}},
		{"another value than the refused dentist", []Row{refused(1, "Dr Okafor", 9)}, state("dentist", "Dr Hale", 12), Decision{Action: Insert}},
	}
	if len(tests) < 30 {
		t.Fatalf("%d rows: the table needs rows for every action of both kinds of key", len(tests))
	}
	for _, tt := range tests {
		checkDecision(t, tt.name, Decide(tt.rows, tt.s), tt.want)
	}
}

func checkDecision(t *testing.T, name string, got, want Decision) {
	t.Helper()
	if got.Action != want.Action || got.Row != want.Row || !slices.Equal(got.Ends, want.Ends) ||
		!got.Until.Equal(want.Until) || got.Successor != want.Successor {
		t.Errorf("%s: Decide = %s %+v, want %s %+v", name, got.Action, got, want.Action, want)
	}
}
