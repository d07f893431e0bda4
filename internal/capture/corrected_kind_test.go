package capture

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestEndedByKind: an ownership ended naming the thing by its kind ("sold
// my bike", "we haven't got a car any more") retires the claim naming it
// by its make, given an OfKind; without one, or for a thing of another
// kind or someone else's, it retires nothing.
func TestEndedByKind(t *testing.T) {
	// by the kind's one name (kinds.Variant): a bike is a bicycle
	makes := map[string][]string{"car": {"peugeot", "yaris", "octavia"}, "bicycle": {"brompton", "cannondale"},
		"boat": {"wayfarer"}, "dog": {"vizsla"}}
	ofKind := func(h store.Hit, kind string) bool {
		return slices.ContainsFunc(makes[kind], func(mk string) bool { return strings.Contains(strings.ToLower(h.Text), mk) })
	}
	day := func(d int) time.Time { return time.Date(2026, 9, d, 10, 0, 0, 0, time.UTC) }
	hit := func(id int64, d int, text string) store.Hit {
		return store.Hit{Kind: "memory", ID: id, SessionID: "s" + string(rune('a'+id)), Timestamp: day(d), Text: text, Role: "user"}
	}
	cases := []struct {
		name, say string
		ofKind    OfKind
		hits      []store.Hit
		want      []int64
	}{
		{"sold, by kind", "Sold my bike at the car boot sale on Sunday.", ofKind,
			[]store.Hit{hit(1, 2, "I fold up my Brompton on the train to Leeds."), hit(2, 3, "The train to Leeds was late again.")}, []int64{1}},
		{"not any more, by kind", "We haven't got a car any more, the lease ran out.", ofKind,
			[]store.Hit{hit(3, 1, "Our Peugeot 3008 is due its MOT in October."), hit(4, 2, "Lunch at the garden centre cafe.")}, []int64{3}},
		{"got rid of, by kind", "We got rid of the boat, the mooring fees were silly.", ofKind,
			[]store.Hit{hit(5, 1, "We sail our Wayfarer on the reservoir at weekends.")}, []int64{5}},
		{"no longer own, by kind", "I no longer own a car.", ofKind,
			[]store.Hit{hit(6, 1, "I drive a blue Skoda Octavia estate.")}, []int64{6}},
		{"another kind is not ended", "Sold my bike at the car boot sale on Sunday.", ofKind,
			[]store.Hit{hit(7, 2, "Our Peugeot 3008 is due its MOT in October.")}, nil},
		{"no lexicon, no kind", "Sold my bike at the car boot sale on Sunday.", nil,
			[]store.Hit{hit(8, 2, "I fold up my Brompton on the train to Leeds.")}, nil},
		{"rehomed, by kind", "We had to rehome the dog, the flat's too small.", ofKind,
			[]store.Hit{hit(11, 1, "We have a Vizsla called Bess, she's two.")}, []int64{11}},
		{"a thing not said as the user's is no sale of theirs", "Sold my bike at the car boot sale on Sunday.", ofKind,
			[]store.Hit{hit(9, 2, "Brompton bikes are made in London.")}, nil},
		{"someone else's make is not mine", "I sold my car to Ayesha last week.", ofKind,
			[]store.Hit{hit(10, 2, "Ayesha's Yaris failed its MOT.")}, nil},
	}
	for _, c := range cases {
		corr, ok := CorrectionIn(c.say)
		if !ok {
			t.Errorf("%s: %q is not read as a correction", c.name, c.say)
			continue
		}
		m := store.Hit{Kind: "memory", ID: 100, SessionID: "z", Timestamp: day(20), Role: "user", Text: c.say}
		if got := Corrected(m, corr, c.hits, c.ofKind); !slices.Equal(got, c.want) {
			t.Errorf("%s: corrected = %v (%+v), want %v", c.name, got, corr, c.want)
		}
	}
}

// TestSoldShape: a thing the speaker had is gone; a sale of something
// that was never a claim of theirs is not read so.
func TestSoldShape(t *testing.T) {
	for _, c := range []struct{ say, shape, old string }{
		{"Sold my bike at the car boot sale on Sunday.", "sold", "bike"},
		{"We got rid of the telly, nobody watched it.", "sold", "telly"},
		{"Gave away our old sofa to the hospice shop.", "sold", "old sofa"},
		{"I'm getting rid of the trampoline this weekend.", "sold", "trampoline"},
		{"We're giving away the cot to Priya's sister.", "sold", "cot"},
		{"We had to rehome the rabbits, Sol's allergic.", "sold", "rabbits"},
		{"They sold the house next door for a fortune.", "", ""},
		{"She sold the idea to the board.", "", ""},
		{"The bakery sold out of croissants.", "", ""},
	} {
		got, ok := CorrectionIn(c.say)
		if c.shape == "" {
			if ok && got.Shape == "sold" {
				t.Errorf("CorrectionIn(%q) = %+v; want no sale", c.say, got)
			}
			continue
		}
		if !ok || got.Shape != c.shape || got.Old != c.old {
			t.Errorf("CorrectionIn(%q) = %+v, %v; want shape %q old %q", c.say, got, ok, c.shape, c.old)
		}
	}
}
