package recall

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestNearMissAbstains: a memory naming a sibling of the question's word
// (another tradesman's quote, another sport of the same child) is no
// answer; the word itself is, and a near-miss beside an answer does not
// hide it. A profile line naming only the child answers nothing.
func TestNearMissAbstains(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "The roofer quoted 900 pounds to replace the flashing.", nil},
		{day0.Add(time.Hour), "s2", "user", "Our daughter Ama has netball practice on Wednesdays after school.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "Drank too much tea at the meeting.", nil},
	})
	if _, _, err := a.PutProfileLines(t.Context(), []store.ProfileLine{{Category: "family", Subject: "user", Key: "daughter",
		Value: "Ama", Text: "Ama is the user's daughter."}}, day0); err != nil {
		t.Fatal(err)
	}
	asOf := day0.Add(48 * time.Hour)
	for _, c := range []struct {
		q     string
		found bool
	}{
		{"How much did the plasterer quote?", false},
		{"How much did the roofer quote?", true},
		{"When does Ama have hockey?", false},
		{"When does Ama have netball?", true},
		// asked of a role: another thing of a near kind, nothing of the one asked
		{"When does my daughter have rowing?", false},
		{"When does my daughter have netball?", true},
		{"What does my daughter do after school?", true},
		{"Did I drink coffee at the meeting?", false},
	} {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: c.q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found != c.found || !c.found && len(res.Items) > 0 {
			t.Errorf("%q: found %v with %d items (%q), want found %v", c.q, res.Found, len(res.Items), res.Context, c.found)
		}
	}
	b := agentWith(t, []turn{
		{day0, "s1", "user", "The roofer quoted 900 pounds to replace the flashing.", nil},
		{day0.Add(time.Hour), "s2", "user", "The plasterer quoted 450 for the ceiling.", nil},
	})
	expectContext(t, b, Query{Text: "How much did the plasterer quote?", AsOf: asOf}, []string{"450"}, nil)
}

// TestLightVerbAloneAnswersNothing: an item that holds only the question's
// light verb ("taking") is no answer to what the user takes: "started
// taking vitamin D" does not say which blood thinner I am on, nor does a
// day record saying it; asked of the vitamins, it does.
func TestLightVerbAloneAnswersNothing(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, session: "s1", role: "user", content: "Mum takes donepezil every morning for her memory."},
		{at: day0.Add(time.Hour), session: "s2", role: "user", content: "Dad is on warfarin so he has his INR checked every fortnight."},
		{at: day0.Add(2 * time.Hour), session: "s3", role: "user", content: "I've started taking vitamin D again for the winter."},
	})
	for q, want := range map[string]bool{"Which blood thinner am I taking?": false, "Which antidepressant am I taking?": false, "What vitamins am I taking?": true} {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: q, AsOf: day0.Add(48 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(res.Context, "vitamin D"); got != want {
			t.Errorf("%q: offers vitamin D = %v, want %v (context %q)", q, got, want, res.Context)
		}
	}
}

// TestAnotherThingsFor: a memory holding the asked noun only as another
// thing's ("the PIN for the side gate padlock") answers no question of
// the noun for the thing asked ("the PIN for the bike lock"); asked of its
// own thing, it does, and so does a memory holding the noun otherwise.
func TestAnotherThingsFor(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "The PIN for the side gate padlock is 3391.", nil},
		{day0.Add(time.Hour), "s2", "user", "The password for our router is taped under the desk.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "Bought new gloves for the allotment.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	for _, c := range []struct {
		q     string
		found bool
	}{
		{"What's the PIN for the bike lock?", false},
		{"What's the password for my laptop?", false},
		{"What's the PIN for the side gate padlock?", true},
		{"Where is the password for the router?", true},
	} {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: c.q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found != c.found || !c.found && len(res.Items) > 0 {
			t.Errorf("%q: found %v with %d items (%q), want found %v", c.q, res.Found, len(res.Items), res.Context, c.found)
		}
	}
}

// TestDreamIsNoAnswer: asked of the user's own as what is or will be, a
// wish only ("we'd love to … one day") answers nothing; asked of wishes,
// it does, and a booking answers beside it.
func TestDreamIsNoAnswer(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "We'd really love to see Patagonia one day, when the kids are grown.", nil},
		{day0.Add(time.Hour), "s2", "user", "It would be brilliant to learn the cello properly.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "Booked the night ferry to Bergen for 3 August.", nil},
		{day0.Add(3 * time.Hour), "s4", "user", "My son would love to do a season in Whistler one day.", nil},
		{day0.Add(4 * time.Hour), "s5", "user", "I'd like to walk the Pembrokeshire coast path with the lads.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	for _, c := range []struct {
		q     string
		found bool
	}{
		{"When do we go to Patagonia?", false},
		{"When are my cello lessons?", false},
		{"Where would we love to travel one day?", true},
		{"What would I like to learn?", true},
		{"When is our ferry to Bergen?", true},
		{"When does my son leave for Whistler?", false},
		{"Where would my son like to spend a season?", true},
		{"When are we walking the coast path?", false},
		{"Which coast path am I doing with the lads?", false},
		{"What would I like to walk?", true},
	} {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: c.q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found != c.found || !c.found && len(res.Items) > 0 {
			t.Errorf("%q: found %v with %d items (%q), want found %v", c.q, res.Found, len(res.Items), res.Context, c.found)
		}
	}
}

// TestNeighbourNamingAnotherThing: asked as "I" of a thing by its name (a
// shop), the turn beside the answer that names another shop, and not the
// one asked of, is another errand and is not offered with it.
func TestNeighbourNamingAnotherThing(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "Collected the blackout curtains from Dunelm, they need hemming.", nil},
		{day0.Add(time.Minute), "s1", "user", "The Argos parcel of lightbulbs comes on Wednesday.", nil},
	})
	expectContext(t, a, Query{Text: "What did I collect from Dunelm?", AsOf: day0.Add(48 * time.Hour)},
		[]string{"curtains"}, []string{"Argos"})
}

// TestNameAskedNeedsAName: asked what something of the user's is called, a
// text naming nothing ("a new collar for the hamster") is no answer; one
// giving the name is.
func TestNameAskedNeedsAName(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "Bought a new wheel for the hamster cage.", nil},
		{day0.Add(time.Hour), "s2", "user", "My osteopath appointment moved to 3pm on Thursday.", nil},
	})
	b := agentWith(t, []turn{
		{day0, "s1", "user", "Bought a new wheel for the hamster cage.", nil},
		{day0.Add(time.Hour), "s2", "user", "Our hamster is called Nibbles, the kids chose it.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "My osteopath is Ruairi at the Elm Road clinic.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	for _, c := range []struct {
		a     Searcher
		q     string
		found bool
	}{
		{a, "What's our hamster called?", false},
		{a, "What's the name of my osteopath?", false},
		{b, "What's our hamster called?", true},
		{b, "What's the name of my osteopath?", true},
	} {
		res, err := (&Engine{}).Recall(t.Context(), c.a, Query{Text: c.q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found != c.found || !c.found && len(res.Items) > 0 {
			t.Errorf("%q: found %v with %d items (%q), want found %v", c.q, res.Found, len(res.Items), res.Context, c.found)
		}
	}
	expectContext(t, b, Query{Text: "What's our hamster called?", AsOf: asOf}, []string{"Nibbles"}, nil)
	expectContext(t, b, Query{Text: "What's the name of my osteopath?", AsOf: asOf}, []string{"Ruairi"}, nil)
}

// TestWantIsNoPastAnswer: asked of the user's own as what happened, a want
// only ("keen to try", "thinking of") answers nothing; asked of wants, it
// does, and what was done answers beside it.
func TestWantIsNoPastAnswer(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "Keen to try the bouldering wall at Rockworks after Easter.", nil},
		{day0.Add(time.Hour), "s2", "user", "Thinking of a henna pattern on my ankle for the festival.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "Had my nose pierced at Silver Lotus, it stung for a day.", nil},
		{day0.Add(3 * time.Hour), "s4", "user", "Brunch with Imke at the canal café; she's thinking of moving to Leipzig.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	for _, c := range []struct {
		q     string
		found bool
	}{
		{"Which bouldering wall did I go to?", false},
		{"What henna pattern did I get on my ankle?", false},
		{"Where did I get my nose pierced?", true},
		{"Which bouldering wall do I want to try?", true},
		{"What henna pattern am I thinking of?", true},
		{"Who did I have brunch with?", true}, // her want is not what I did
	} {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: c.q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found != c.found || !c.found && len(res.Items) > 0 {
			t.Errorf("%q: found %v with %d items (%q), want found %v", c.q, res.Found, len(res.Items), res.Context, c.found)
		}
	}
}

// TestAnotherHiresPrice: "how much" asks the price of the thing its noun
// phrase names, a compound even when the lexicon holds its noun only as a
// verb ("hire"): another noun before that noun ("skip hire") is another
// thing's price, and a price of something else for the same occasion is
// none; the thing's own price answers, and "annual" says no other thing.
func TestAnotherHiresPrice(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "The skip hire for the garden clearance was £260.", nil},
		{day0.Add(time.Hour), "s2", "user", "Scaffold hire came to £480 for the fortnight.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "The removal men charge £90 an hour for the move.", nil},
		{day0.Add(3 * time.Hour), "s4", "user", "Paid £95 for the annual service on the boiler.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	for _, c := range []struct {
		q     string
		found bool
	}{
		{"How much was the van hire for the move?", false},
		{"How much is the marquee hire costing us?", false},
		{"How much was the skip hire?", true},
		{"How much did the boiler service cost?", true},
	} {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: c.q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found != c.found || !c.found && len(res.Items) > 0 {
			t.Errorf("%q: found %v with %d items (%q), want found %v", c.q, res.Found, len(res.Items), res.Context, c.found)
		}
	}
}

// TestHoldsOnlyWhomAbstains: asked a thing of a role or of someone named
// in the user's own notes ("what glove size is my nephew?", "when is
// Shelly due her vitamin injection?", "when's Grandpa's hearing test?", "the
// PIN for Nana's front door"), an item about them holding nothing of that
// thing, or no code where a code is asked, is no answer; one holding part
// of it is.
func TestHoldsOnlyWhomAbstains(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "My nephew Rory is obsessed with dinosaurs at the moment.", nil},
		{day0.Add(time.Hour), "s2", "user", "Our tortoise Shelly had her claws clipped at the vet; the next nail trim is due in August.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "Grandpa came round for Sunday lunch and fell asleep in the armchair.", nil},
		{day0.Add(3 * time.Hour), "s4", "user", "Nana's been poorly, took her some soup on Sunday.", nil},
	})
	b := agentWith(t, []turn{
		{day0, "s1", "user", "Grandpa's hearing aid appointment is on 3 October at the Eye and Ear.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	for _, c := range []struct {
		a     Searcher
		q     string
		found bool
	}{
		{a, "What glove size is my nephew?", false},
		{a, "When is Shelly due her vitamin injection?", false},
		{a, "When's Grandpa's hearing test?", false},
		{a, "What's the PIN for Nana's front door?", false},
		{a, "What is my nephew obsessed with?", true},
		{a, "When is Shelly due her nail trim?", true},
		{b, "When's Grandpa's hearing test?", true},
	} {
		res, err := (&Engine{}).Recall(t.Context(), c.a, Query{Text: c.q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found != c.found || !c.found && len(res.Items) > 0 {
			t.Errorf("%q: found %v with %d items (%q), want found %v", c.q, res.Found, len(res.Items), res.Context, c.found)
		}
	}
}

// TestPlanIsNoWhenDone: asked when the user last did something, a plan,
// a job still to do or a thought of doing it tells no such time; a done
// thing does, and the plan answers when it is to be done.
func TestPlanIsNoWhenDone(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "We need to get the gutters cleared before the autumn storms.", nil},
		{day0.Add(time.Hour), "s2", "user", "Thinking about getting the piano tuned, it sounds awful.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "Had the carpets shampooed by a man with a van, they look new.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	for _, c := range []struct {
		q     string
		found bool
	}{
		{"When did we last get the gutters cleared?", false},
		{"When did I last have the piano tuned?", false},
		{"When did we last have the carpets shampooed?", true},
		{"When do we need to get the gutters cleared?", true},
	} {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: c.q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found != c.found || !c.found && len(res.Items) > 0 {
			t.Errorf("%q: found %v with %d items (%q), want found %v", c.q, res.Found, len(res.Items), res.Context, c.found)
		}
	}
}
