package capture

import (
	"slices"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestEndedWithSuccessorInFrame: a habit ended under another name than its
// claim's, its successor said with "instead" in the claim's frame (the
// same verb after "I" or "we", a kind of time both state), ends the
// recent claim in that frame; not one of another frame, nor an old one.
func TestEndedWithSuccessorInFrame(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 10, d, 8, 0, 0, 0, time.UTC) }
	hit := func(id int64, d int, text string) store.Hit {
		return store.Hit{Kind: "memory", ID: id, SessionID: "s" + string(rune('a'+id)), Timestamp: day(d), Text: text, Role: "user"}
	}
	cases := []struct {
		name, say string
		hits      []store.Hit
		want      []int64
	}{
		{"same verb, a weekday both", "I've given up the stretching classes, my back hates them, so I do Pilates on Thursdays instead.",
			[]store.Hit{hit(1, 12, "I do Hatha yoga at the leisure centre on Monday evenings."), hit(2, 13, "The leisure centre car park is shut on Mondays.")}, []int64{1}},
		{"we and a clock time", "We've stopped the Saturday club, the coach left, so we go to the 10am junior parkrun instead.",
			[]store.Hit{hit(3, 14, "We go to Little Kickers at 9am with Ada."), hit(4, 15, "Ada lost a tooth at 9am.")}, []int64{3}},
		{"another verb is another habit", "I've given up the stretching classes, so I do Pilates on Thursdays instead.",
			[]store.Hit{hit(5, 12, "I play squash with Rhys on Monday evenings.")}, nil},
		{"no time in common", "I've given up the stretching classes, so I do Pilates on Thursdays instead.",
			[]store.Hit{hit(6, 12, "I do the crossword with my coffee.")}, nil},
		{"an old claim is no recent context", "I've given up the stretching classes, so I do Pilates on Thursdays instead.",
			[]store.Hit{hit(7, 1, "I do Hatha yoga at the leisure centre on Monday evenings.")}, nil},
		{"no successor said, no frame", "I've given up the stretching classes, my back hates them.",
			[]store.Hit{hit(8, 12, "I do Hatha yoga at the leisure centre on Monday evenings.")}, nil},
	}
	for _, c := range cases {
		corr, ok := CorrectionIn(c.say)
		if !ok {
			t.Errorf("%s: %q is not read as a correction", c.name, c.say)
			continue
		}
		m := store.Hit{Kind: "memory", ID: 100, SessionID: "z", Timestamp: day(18), Role: "user", Text: c.say}
		if got := Corrected(m, corr, c.hits, nil); !slices.Equal(got, c.want) {
			t.Errorf("%s: corrected = %v (%+v), want %v", c.name, got, corr, c.want)
		}
	}
}

// TestActuallyItsAValue: "actually it's £X" and "it's £X now" stand for
// the recent claim of a price by a pro-form, though they name nothing.
func TestActuallyItsAValue(t *testing.T) {
	for _, c := range []struct {
		say  string
		want bool
	}{
		{"Actually it's £15 now, she raised her rate in March.", true},
		{"Actually, that's €40 a month, not 35.", true},
		{"It's $12 now, they put it up.", true},
		{"Oh actually it is £9.", true},
		{"It's £15 for the two of us.", false},
		{"The tickets are £15 each.", false},
	} {
		if got := Anaphoric(c.say); got != c.want {
			t.Errorf("Anaphoric(%q) = %v, want %v", c.say, got, c.want)
		}
	}
	day := func(d, h int) time.Time { return time.Date(2026, 3, d, h, 0, 0, 0, time.UTC) }
	said := store.Hit{Kind: "memory", ID: 10, SessionID: "b", Timestamp: day(9, 10), Role: "user", Text: "Actually it's £15 now, she raised her rate in March."}
	corr, ok := CorrectionIn(said.Text)
	if !ok {
		t.Fatalf("%q is not read as a correction", said.Text)
	}
	hits := []store.Hit{
		{Kind: "memory", ID: 1, SessionID: "a", Timestamp: day(8, 18), Role: "user", Text: "Our cleaner Dorota charges £14 an hour."},
		{Kind: "memory", ID: 2, SessionID: "c", Timestamp: day(8, 19), Role: "user", Text: "Booked the car in for its MOT on Friday."},
	}
	if got := Corrected(said, corr, hits, nil); !slices.Equal(got, []int64{1}) {
		t.Errorf("corrected = %v (%+v), want [1]", got, corr)
	}
}

// TestOnesOfItsOwnNoun: "the X ones" stands for a recent choice only when
// its sentence names no thing of someone's: "swapped my running shoes for
// the wide ones" speaks of the shoes, and retires no recent claim that
// shares nothing with it, while "changed my mind, the green one" and
// "actually, the blue ones" still speak of the recent choice.
func TestOnesOfItsOwnNoun(t *testing.T) {
	for _, c := range []struct {
		say  string
		want bool
	}{
		{"Nurse switched my insulin pen to the pre-filled ones.", false},
		{"Swapped our kitchen bin for the pedal ones.", false},
		{"The optician changed his lenses to the daily ones.", false},
		{"Changed my mind, the green one.", true},
		{"Actually, the blue ones please.", true},
		{"We changed our minds, the oak one.", true},
		{"Dad's lenses are fine. Actually, make it the daily ones.", true},
	} {
		if got := Anaphoric(c.say); got != c.want {
			t.Errorf("Anaphoric(%q) = %v, want %v", c.say, got, c.want)
		}
	}
	day := func(d int) time.Time { return time.Date(2026, 5, d, 10, 0, 0, 0, time.UTC) }
	recentClaim := store.Hit{Kind: "memory", ID: 1, SessionID: "a", Timestamp: day(2), Role: "user",
		Text: "The allotment committee moved the work party to Sunday 10am, same place."}
	said := store.Hit{Kind: "memory", ID: 2, SessionID: "b", Timestamp: day(5), Role: "user",
		Text: "Nurse switched my insulin pen to the pre-filled ones."}
	corr, ok := CorrectionIn(said.Text)
	if !ok {
		t.Fatalf("%q is not read as a correction", said.Text)
	}
	if got := Corrected(said, corr, []store.Hit{recentClaim}, nil); len(got) != 0 {
		t.Errorf("corrected = %v: the pen's change retires the work party's day", got)
	}
}
