package kinds

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		text string
		want []string // kinds that must be among the result
		not  []string // kinds that must not
	}{
		{"We drove to Chicago last week", []string{"city"}, nil},
		{"Spent two weeks in France and Spain", []string{"country", "european"}, nil},
		{"I started karate classes", []string{"martial", "art"}, nil},
		{"My turtles love strawberries", []string{"reptile"}, nil},
		{"Made lasagna for the kids", []string{"dish", "food"}, nil},
		{"The children played tennis", []string{"sport", "juvenile"}, nil},
		{"Just learning the guitar and violin", []string{"instrument"}, nil},
		// Chat words WordNet lacks (informal.txt), two letters included.
		{"Went camping with my fam", []string{"family", "social"}, nil},
		{"Fitted a Potterton combi for the Garcias", []string{"boiler"}, nil}, // a boiler told by its make or type
		{"The Viessmann needs a new diverter valve", []string{"boiler"}, nil},
		{"My gf got a new pup!", []string{"girlfriend", "friend", "puppy", "dog"}, nil},
		{"The biz is doing well", []string{"business"}, nil},
		// World knowledge WordNet lacks (world.txt), added to WordNet's
		// kinds rather than replacing them.
		{"Picked up the new Skoda Octavia from the dealer", []string{"car", "vehicle"}, nil},
		{"Our cockapoo chewed the sofa again", []string{"dog", "canid"}, nil},
		{"Charged the Tesla overnight", []string{"car", "inventor"}, nil},
		{"My boss signed off the plan", []string{"manager", "supervisor"}, nil},
		{"Saw my GP about the rash", []string{"doctor"}, nil},
		{"We drive a grey Polestar 2 now", []string{"car", "star"}, nil},
		{"My Ducati is back from the garage", []string{"motorcycle", "vehicle"}, nil},
		{"I take levothyroxine every morning", []string{"medication", "drug"}, nil},
		{"A standing order to the RNLI and a tenner to Oxfam", []string{"charity", "organization"}, nil},
		// a medicine no list names, known by its stem
		{"Started on rosuvastatin and esomeprazole", []string{"medication", "drug"}, nil},
		{"Dr Ahn switched me to nebivolol", []string{"medication"}, nil},
		{"Started adalimumab injections and aciclovir cream", []string{"medication", "drug"}, nil},
		{"Two puffs of budesonide and a clopidogrel", []string{"medication", "drug"}, nil},
		{"Made my first focaccia", []string{"bread", "baked"}, nil},
		{"We finally bought a campervan", []string{"vehicle"}, nil},
		{"My bike's a Brompton", []string{"bicycle", "vehicle"}, nil},
		// lexgen's occupations and the people a place is for.
		{"I'm a structural engineer at Arup", []string{"occupation", "job", "profession"}, nil},
		{"She works as an accountant in Bristol", []string{"occupation", "living"}, nil},
		{"My sister is a childminder", []string{"child", "job"}, nil},
		// An occupation met, not held: no role kinds.
		{"Saw the nurse about my ankle", []string{"health"}, []string{"occupation", "job", "living"}},
		{"The plumber is coming on Thursday", []string{"craftsman"}, []string{"occupation", "job"}},
		{"Dropped Maya at nursery", []string{"child", "kid"}, nil},
		// an amount someone is "on" is their pay
		{"I'm on 38k since the restructure", []string{"salary"}, nil},
		{"Dev's now on £41,500 a year", []string{"salary"}, nil},
		{"She's on about 12 quid an hour", []string{"salary"}, nil},
		{"We're still on 52 grand between us", []string{"salary"}, nil},
		{"Ran 5k on Sunday", []string{}, []string{"salary"}},
		{"Spent £40 on the shopping", []string{"buying"}, []string{"salary"}},
		{"The train was on platform 4", []string{"surface"}, []string{"salary"}},
		// a title after "the", capitalised: a paper or a magazine
		{"We get the Guardian delivered on Saturdays", []string{"newspaper", "paper", "press"}, nil},
		{"The Economist arrives every Friday", []string{"magazine", "publication"}, nil},
		{"Read it in the Times this morning", []string{"newspaper"}, nil},
		{"Her legal guardian signed the form", []string{"animate"}, []string{"newspaper"}},
		{"Times are hard for everyone", []string{}, []string{"newspaper"}},
		{"Sat out in the sun all afternoon", []string{"star"}, []string{"newspaper"}},
		{"Is it us or them?", nil, nil},
		{"ok thanks, see you", nil, nil},
		{"", nil, nil},
	} {
		got := Of(tc.text)
		words := strings.Fields(got)
		set := map[string]int{}
		for _, w := range words {
			set[w]++
		}
		for _, w := range tc.want {
			if set[w] == 0 {
				t.Errorf("Of(%q) = %q, want %q among them", tc.text, got, w)
			}
		}
		for _, w := range tc.not {
			if set[w] > 0 {
				t.Errorf("Of(%q) = %q, want no %q", tc.text, got, w)
			}
		}
		for w, n := range set {
			if n > 1 {
				t.Errorf("Of(%q) = %q: %q twice", tc.text, got, w)
			}
		}
		if tc.want == nil && got != "" {
			t.Errorf("Of(%q) = %q, want none", tc.text, got)
		}
	}
}

func TestNamed(t *testing.T) {
	got := Named([]string{"which", "cities", "been", "martial", "arts", "the", "medicine", "awesome"})
	want := []string{"cities", "martial", "arts", "medicine"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Named = %v, want %v", got, want)
	}
}

func TestSingular(t *testing.T) {
	for in, want := range map[string]string{"cities": "city", "boxes": "box", "turtles": "turtle", "glass": "glass",
		"churches": "church", "classes": "class", "dish": "dish"} {
		if got := singular(in); got != want {
			t.Errorf("singular(%q) = %q, want %q", in, got, want)
		}
	}
}

func BenchmarkOf(b *testing.B) {
	s := "Hey Caroline! Last weekend I took the kids to the museum in Chicago, then we had lasagna and played tennis."
	Of(s)
	b.ReportAllocs()
	for b.Loop() {
		Of(s)
	}
}

func TestBreadth(t *testing.T) {
	kid, activity, none := Breadth("kids"), Breadth("activity"), Breadth("zzzzq")
	if kid == 0 || activity <= 10*kid || none != 0 {
		t.Errorf("Breadth: kids %d, activity %d, zzzzq %d; want kids > 0, activity far more, zzzzq 0", kid, activity, none)
	}
	if Breadth("occupation") < 1000 {
		t.Errorf("Breadth(occupation) = %d: the occupations lexgen marks are not counted", Breadth("occupation"))
	}
}

// TestEveryLineIsLookedUp checks lookup answers every word of kinds.txt
// with its line's words, as the map the lexicon used to be parsed into
// did, and the hand-written lists' words with their listed kinds.
func TestEveryLineIsLookedUp(t *testing.T) {
	load()
	lexicon, err := os.ReadFile("../wordnet/kinds.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for line := range strings.SplitSeq(string(lexicon), "\n") {
		w, rest, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		n++
		if _, found := lookup(w); !found {
			t.Fatalf("lookup(%q) found nothing; want %q", w, rest)
		}
		if got := lookupText(w); !isListed(w) && got != rest {
			t.Fatalf("lookup(%q) = %q; want %q", w, got, rest)
		}
	}
	if n < 50_000 {
		t.Errorf("kinds.txt has %d lines, want over 50,000", n)
	}
	for _, list := range []string{informalText, worldText} {
		for line := range strings.SplitSeq(strings.TrimSpace(list), "\n") {
			w, rest, _ := strings.Cut(line, " ")
			if title, ok := strings.CutPrefix(rest, titleMark+" "); ok {
				if got := titleKinds[w]; !strings.HasPrefix(got, title) {
					t.Errorf("titleKinds[%q] = %q; want it to open with %q", w, got, title)
				}
				continue // a title's kinds are its only after "the" (TestOf)
			}
			if got := lookupText(w); !strings.Contains(got, rest) {
				t.Errorf("lookup(%q) = %q; want it to hold %q", w, got, rest)
			}
		}
	}
}

// TestPlace: a word first of all a place is one; a name that WordNet files
// further out under a place kind, or under a region, is not.
func TestPlace(t *testing.T) {
	for w, want := range map[string]bool{"marrakech": true, "bristol": true, "spain": true, "florida": true, "tenerife": true,
		"jordan": false, "maria": false, "caroline": false, "sam": false, "lily": false, "sofa": false} {
		if got := Place(w); got != want {
			t.Errorf("Place(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestHolds(t *testing.T) {
	for _, tc := range []struct {
		text, kind string
		want       bool
	}{
		{"My runaround is a red Mazda MX-5", "car", true},
		{"I ride my Cannondale along the canal", "bike", true},
		{"We did the school run on the Brompton", "bikes", true},
		{"The Vauxhall Corsa needs new tyres", "car", true},
		{"I ride my Cannondale along the canal", "car", false},
		{"My runaround is a red Mazda MX-5", "bike", false},
		{"We walked along the canal to the pub", "boat", false},
	} {
		if got := Holds(tc.text, tc.kind); got != tc.want {
			t.Errorf("Holds(%q, %q) = %v, want %v (kinds: %s)", tc.text, tc.kind, got, tc.want, Of(tc.text))
		}
	}
}

// TestVariants: an everyday word and its variant (informal.txt: the
// British or chat word and the one it stands for) name one thing, each
// way round: a text is indexed under the other word too, so a question
// in either finds it, and Variant gives the one name a claim compares.
func TestVariants(t *testing.T) {
	for _, tc := range []struct{ text, kind string }{
		{"The telly in the lounge keeps freezing", "television"},
		{"The TV in the lounge keeps freezing", "telly"},
		{"Grandad's hearing aid needs new batteries", "grandfather"},
		{"My grandfather still drives to the allotment", "grandad"},
		{"Our apartment is above a launderette", "flat"},
		{"Left my mobile on the bus", "phone"},
		{"My phone screen cracked again", "mobile"},
		{"My mother rings every Sunday", "mum"},
		{"Nan makes the best trifle", "grandmother"},
		{"The lorry blocked our drive", "truck"},
		{"Hemo three times a week at the unit", "dialysis"}, // the ward's short form: its thing's kinds too
	} {
		if got := Of(tc.text); !slices.Contains(strings.Fields(got), tc.kind) {
			t.Errorf("Of(%q) = %q, want %q among them", tc.text, got, tc.kind)
		}
	}
	for w, want := range map[string]string{"mobile": "phone", "phone": "phone", "telly": "television", "tv": "television",
		"mum": "mother", "mam": "mother", "grandad": "grandfather", "flat": "apartment", "motorbike": "motorcycle",
		"kettle": "kettle", "jumper": "sweater"} {
		if got := Variant(w); got != want {
			t.Errorf("Variant(%q) = %q, want %q", w, got, want)
		}
	}
	if got := Named([]string{"telly", "mum", "grandad"}); len(got) != 3 {
		t.Errorf("Named(telly mum grandad) = %v: a variant is a word to search the kinds for", got)
	}
}

// TestListedAs: a listed word gives what world.txt calls it, as written;
// an unlisted or chat word gives "".
func TestListedAs(t *testing.T) {
	for w, want := range map[string]string{"octopus": "energy supplier", "edf": "energy supplier", "monzo": "bank",
		"skoda": "car", "fam": "", "table": ""} {
		if got := ListedAs(w); got != want {
			t.Errorf("ListedAs(%q) = %q, want %q", w, got, want)
		}
	}
}
