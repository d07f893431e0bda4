package recall

import (
	"strings"
	"testing"
	"time"
)

func TestNotOwn(t *testing.T) {
	// Asked of phones, drills, cats and trips: another's of those is not
	// the user's, another's wedding on the user's trip is.
	r := &ranker{words: words("phone drill cat trip naproxen")}
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"My neighbour Dot has taken up watercolours since she retired.", true},
		{"The neighbours bought a huge trampoline.", true},
		{"Kofi at work swears by the battery life on his Galaxy.", true},
		{"Spent an hour setting up Mum's new phone.", true},
		{"Jess says the Ethiopian restaurant is amazing, we should go sometime.", true},
		{"Thinking about maybe trying sea swimming one day.", true},
		{"Rhys orders the hottest vindaloo on the menu.", true},
		{"Borrowed my sister's drill for the shelves.", true},
		{"The neighbours' cat keeps sleeping on our car bonnet.", true},
		{"Dropped the Pixel 8 on the patio and cracked the screen again.", false},
		{"Took Mum to the Pig & Acorn gastropub; her pie was huge.", false},
		{"Dinner at Osteria Lupa for our anniversary.", false},
		{"Lunch at the Pho Saigon canteen by the market.", false},
		{"My wife and I tried the new ramen bar.", false},
		{"Had lunch at McDonald's today.", false},
		{"Got a big bag of grass seed for the bare patch.", false},
		{"Threw my first bowl on the wheel at the Thursday clay class.", false},
		{"Walked along Tanner's Row to the market.", false},
		{"We adopted a beagle puppy and named him Biscuit.", false},
		{"I now make 58,500 a year.", false},
		{"Went to the open-air concert in the park with the choir.", false},
		{"Saw the new Bond film at the Odeon.", false},
		{"Last week we saw a brass band concert on the pier.", false},
		{"Sam from work lent me his ladder.", true},
		{"Priyanka keeps telling me to try her phone's camera app.", true},
		{"My cousin says I should get a cat from the shelter.", true},
		{"Dad told me to take the trip insurance with the drill hire.", true},
		{"Trip to Leeds for Hannah's wedding.", false},
		{"Naproxen brings me out in hives.", false},
		{"Ines brings me soup when I'm ill.", true},
		{"Cooked a big pot of chilli con carne, enough for the freezer too.", false},
		{"Baked flapjacks for the school bake sale.", false},
		{"Hoovered the stairs and found three missing Lego pieces.", false},
		{"Next door's cat keeps sleeping on our car bonnet.", true},
		{"Fed next door's cat while they were away.", true},
		{"The kids' cat had kittens.", true},                                       // asked as "I", the kids' are theirs
		{"Fergus from next door gives me a lift on his trip to the depot.", false}, // the trip is done for the user
		{"Fergus gives me a lift. His phone is always ringing.", true},             // another clause: his phone
		{"Need to sand and varnish the back door next weekend.", true},             // a job still to do
		{"Going to put up the new curtain pole tomorrow.", true},
		{"Going to the tip with the old drill.", false},
		{"Picked up a new phone for Dad from the shop.", true},           // the phone is Dad's
		{"Booked a trip for Sam and me in May.", false},                  // ours too
		{"Bought a drill for Priya's birthday.", false},                  // for an occasion, not a person
		{"Would be lovely to take a trip up the fjords one year.", true}, // a wish
		{"It'd be nice to have a cat when we move.", true},
		{"Aoife's U16s trip to Cork is in May.", true}, // her team's trip
		{"Sainsbury's Local had no phone chargers left.", false},
		{"A new cordless drill is on my wish list.", true},
		{"If we ever get a cat it'll be a Maine Coon.", true}, // a shop
	} {
		if got := r.notOwn(tc.s); got != tc.want {
			t.Errorf("notOwn(%q) = %v, want %v (subject %v, possession %v, wished %v)", tc.s, got, tc.want,
				othersSubject(tc.s, r.asksWord), othersPossession(tc.s, r.asksWord), wished(tc.s))
		}
	}
}

// TestHouseholdIsOurs: asked as "we", the household's things are ours;
// a neighbour's stay someone else's.
func TestHouseholdIsOurs(t *testing.T) {
	r := &ranker{words: words("cat hamster"), us: true}
	for _, tc := range []struct {
		s    string
		want bool
	}{
		{"The kids' hamster Nibbles escaped again.", false},
		{"Our daughter's cat sleeps on the radiator.", false},
		{"My neighbour's cat sleeps on our shed.", true},
		{"Next door's hamster is called Fudge.", true},
	} {
		if got := r.notOwn(tc.s); got != tc.want {
			t.Errorf("notOwn(%q) asked as we = %v, want %v", tc.s, got, tc.want)
		}
	}
	if !asksOfUs("What pets do we have?") || asksOfUs("What pets do I have?") {
		t.Error("asksOfUs: want true for 'we', false for 'I'")
	}
}

// TestListKeepsToTheUsersOwn: "which castles did we visit on our trip?"
// gathers the castles visited, not a friend's visit nor the one planned
// for next time; asked of plans, the plan is offered.
func TestListKeepsToTheUsersOwn(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, session: "t1", role: "user", content: "Our trip to Wales: we visited Caernarfon Castle in the rain."},
		{at: day0.Add(time.Hour), session: "t2", role: "user", content: "Spent the afternoon at Beaumaris castle, the moat was full of ducks."},
		{at: day0.Add(2 * time.Hour), session: "t3", role: "user", content: "Jonas visited the castle at Conwy last summer and loved it."},
		{at: day0.Add(3 * time.Hour), session: "t4", role: "user", content: "We should see Harlech castle next time, it looked amazing from the road."},
		{at: day0.Add(4 * time.Hour), session: "t5", role: "user", content: "My sister's castle-shaped cake for the twins was a triumph."},
	})
	asOf := day0.Add(72 * time.Hour)
	expectContext(t, a, Query{Text: "Which castles did we visit on our trip?", AsOf: asOf},
		[]string{"Caernarfon", "Beaumaris"}, []string{"Conwy", "Harlech", "cake"})
	expectContext(t, a, Query{Text: "Which castle should we see next time?", AsOf: asOf}, []string{"Harlech"}, nil)
}

// Asked of the user's own, someone else's thing said of them alone is no
// answer even when nothing else answers: recall says it found nothing. Said
// with the user in it, or asked who, or a name asked as "we", it is kept.
func TestOthersThingAloneIsNoAnswer(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, session: "o1", role: "user", content: "Grandad is on statins so he has to skip grapefruit."},
		{at: day0.Add(time.Hour), session: "o2", role: "user", content: "Our neighbour's collie is called Moss and digs up the verge."},
		{at: day0.Add(2 * time.Hour), session: "o3", role: "user", content: "My husband Idris's train gets in at seven, I'll collect him at the station."},
		{at: day0.Add(3 * time.Hour), session: "o4", role: "user", content: "Ottoline thinks the Brampton quote is too high for the roof."},
		{at: day0.Add(4 * time.Hour), session: "o5", role: "user", content: "Picked up a prescription for Dad from the pharmacy."},
	})
	asOf := day0.Add(72 * time.Hour)
	for _, q := range []string{"What medicine do I take?", "What is our dog called?", "What medication am I on?"} {
		expectNothingFound(t, a, Query{Text: q, AsOf: asOf})
	}
	expectContext(t, a, Query{Text: "When does the train get in?", AsOf: asOf}, []string{"seven"}, nil)
	expectContext(t, a, Query{Text: "What do we think of the roof quote?", AsOf: asOf}, []string{"too high"}, nil)
	expectContext(t, a, Query{Text: "Who is on statins?", AsOf: asOf}, []string{"Grandad"}, nil)
}

// TestGivenToIsTheirs: a thing bought or got for someone, named right
// after the verb ("ordered Ines a cycling helmet"), is theirs: asked of
// the user's own, recall says it found nothing; the user's own is kept.
func TestGivenToIsTheirs(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, session: "g1", role: "user", content: "Ordered Ines a cycling helmet in medium, hers cracked."},
		{at: day0.Add(time.Hour), session: "g2", role: "user", content: "Bought Mum new walking poles, the folding ones."},
	})
	asOf := day0.Add(72 * time.Hour)
	for _, q := range []string{"What size is my cycling helmet?", "Which walking poles do I have?"} {
		expectNothingFound(t, a, Query{Text: q, AsOf: asOf})
	}
	b := agentWith(t, []turn{
		{at: day0, session: "g3", role: "user", content: "Ordered a cycling helmet in large for my commute."},
		{at: day0.Add(time.Hour), session: "g1", role: "user", content: "Ordered Ines a cycling helmet in medium, hers cracked."},
	})
	expectContext(t, b, Query{Text: "What size is my cycling helmet?", AsOf: asOf}, []string{"large"}, []string{"medium"})
}

// TestPaidForIsTheThing: "we pay for Crunchyroll" names what is bought, not
// someone it is bought for: asked what we pay for, it is the answer; a
// thing bought "for" a person is still theirs.
func TestPaidForIsTheThing(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, session: "p1", role: "user", content: "I pay for Crunchyroll and Hulu out of my own account."},
		{at: day0.Add(time.Hour), session: "p2", role: "user", content: "The loft hatch sticks in damp weather."},
	})
	asOf := day0.Add(72 * time.Hour)
	expectContext(t, a, Query{Text: "Which subscriptions am I paying for?", AsOf: asOf}, []string{"Crunchyroll"}, nil)
	b := agentWith(t, []turn{
		{at: day0, session: "p3", role: "user", content: "Bought a subscription for Dad to the gardening magazine."},
	})
	expectNothingFound(t, b, Query{Text: "Which subscriptions have I bought?", AsOf: asOf})
}

// TestPlacedName: a word opening a text that the words after it place as
// a person is a name; a place or a thing before the same words is not.
func TestPlacedName(t *testing.T) {
	for s, want := range map[string]string{
		"Hamish next door asked to borrow the mower.":     "Hamish",
		"Hal over the road asked to borrow our ladders.":  "Hal",
		"Femi across the street has a new van.":           "Femi",
		"Over the road they are digging up the pavement.": "",
		"The bins over the road were not emptied.":        "",
	} {
		got := strings.Join(placedName(s), " ")
		if got != want {
			t.Errorf("placedName(%q) = %q, want %q", s, got, want)
		}
	}
}

// TestOthersFirstClauseIsTheirs: what a first clause opened by someone else
// says of the asked thing is theirs, whatever the user adds after it; a
// clause whose asked word is the person ("my wife") is not read so.
func TestOthersFirstClauseIsTheirs(t *testing.T) {
	day := time.Date(2026, 2, 11, 10, 0, 0, 0, time.UTC)
	a := notesWithDay(t, day, "", "Tobias takes metformin for his diabetes, so we'll eat early when he visits.")
	expectNothingFound(t, a, Query{Text: "Do I take any medication?", AsOf: day.AddDate(0, 0, 3)})
	expectContext(t, a, Query{Text: "What does Tobias take for his diabetes?", AsOf: day.AddDate(0, 0, 3)}, []string{"metformin"}, nil)
	b := notesWithDay(t, day, "", "My husband Kwame's flight lands at nine, I'll collect him from Stansted.")
	expectContext(t, b, Query{Text: "Am I married?", AsOf: day.AddDate(0, 0, 3)}, []string{"Kwame"}, nil)
}

// TestTicketsForAnEvent: tickets or seats "for" a name followed by when or
// where it is on are for the event, the user's; "for" a name followed by
// anything else are the person's.
func TestTicketsForAnEvent(t *testing.T) {
	asked := func(w string) bool { return w == "tickets" || w == "seats" }
	for s, want := range map[string]bool{
		"Got tickets for Sleaford Mods at the Barrowland!": false,
		"Booked seats for Hamilton on the 14th.":           false,
		"Bought tickets for Nkechi, her birthday treat.":   true,
		"Bought tickets for Nkechi for her birthday.":      true,
	} {
		if got := othersBeneficiary(strings.Fields(s), asked); got != want {
			t.Errorf("othersBeneficiary(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestWishedPlansAndStarts: a thing said to come next or not yet begun is
// no thing done; a standing change said to start from a later time is a
// value, not a job still to do.
func TestWishedPlansAndStarts(t *testing.T) {
	for s, want := range map[string]bool{
		"Our book group is doing Middlemarch next, I haven't started it.": true,
		"Portugal next!": true,
		"Still haven't started the Duolingo course.":       true,
		"Need to sand the back door next weekend.":         true,
		"They've moved me onto days from next month.":      false,
		"Starting tomorrow I'm on the 7.15 bus.":           false,
		"The next bus was packed, stood all the way.":      false,
		"Finished Middlemarch, the next one is Adam Bede.": false,
	} {
		if got := wished(s); got != want {
			t.Errorf("wished(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestNamedPersonsWishIsNoneOfTheirs: asked what someone of the user's
// life does, a wish of theirs is left out beside what they do, as a wish
// of the user's own is; asked of wishes, it is kept.
func TestNamedPersonsWishIsNoneOfTheirs(t *testing.T) {
	a := agentWith(t, []turn{
		{day0, "s1", "user", "Ines plays the cello in the school orchestra.", nil},
		{day0.Add(time.Hour), "s2", "user", "Ines has started piano lessons on Wednesdays.", nil},
		{day0.Add(2 * time.Hour), "s3", "user", "Ines keeps begging to learn the drums next year.", nil},
		{day0.Add(3 * time.Hour), "s4", "user", "The loft hatch sticks in damp weather.", nil},
	})
	asOf := day0.Add(48 * time.Hour)
	expectContext(t, a, Query{Text: "Which instruments does Ines play?", AsOf: asOf}, []string{"cello", "piano"}, []string{"drums"})
	expectContext(t, a, Query{Text: "Which instruments would Ines like to learn?", AsOf: asOf}, []string{"drums"}, nil)
}

// TestSuccessorOfOwnClaimIsOwn: a correction opened by someone else that
// replaced the user's own claim ("Oskar can't do Tuesdays now…" after
// "Oskar teaches me Portuguese on Tuesdays") is the user's own, asked of
// the user's; someone else's correction of their own claim is not.
func TestSuccessorOfOwnClaimIsOwn(t *testing.T) {
	for _, tc := range []struct{ old, now, ask, want string }{
		{"Oskar teaches me Portuguese on Tuesday evenings.", "Oskar can't do Tuesdays now so Portuguese is Thursday evenings.",
			"When's my Portuguese lesson?", "thursday"},
		{"Mrs Dale gives me piano lessons at 4 on Mondays.", "Mrs Dale has moved piano to Wednesdays at 5.",
			"When is my piano lesson?", "wednesdays"},
		// the old claim said in an everyday variant of the question's word
		{"My PT is Gemma, Mondays at the gym.", "Gemma's off on maternity leave, so I'm with Callum for now.",
			"Who's my personal trainer?", "callum"},
	} {
		a := agentWith(t, []turn{
			{at: day0, session: "s1", role: "user", content: tc.old},
			{at: day0.Add(24 * time.Hour), session: "s2", role: "user", content: "The loft hatch sticks in damp weather."},
			{at: day0.Add(10 * 24 * time.Hour), session: "s3", role: "user", content: tc.now},
		})
		if err := a.RetireCorrected(t.Context(), []int64{1}, 3); err != nil {
			t.Fatal(err)
		}
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: tc.ask, AsOf: day0.Add(12 * 24 * time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.ToLower(res.Context), tc.want) {
			t.Errorf("%q: context %q, want the successor (%q)", tc.ask, res.Context, tc.want)
		}
	}
	// Tobi's own claim, corrected by Tobi: still his, not the user's
	a := agentWith(t, []turn{
		{at: day0, session: "s1", role: "user", content: "Tobi has swimming on Tuesdays."},
		{at: day0.Add(10 * 24 * time.Hour), session: "s3", role: "user", content: "Tobi can't do Tuesdays now so swimming is Fridays."},
	})
	if err := a.RetireCorrected(t.Context(), []int64{1}, 2); err != nil {
		t.Fatal(err)
	}
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "When do I go swimming?", AsOf: day0.Add(12 * 24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(res.Context, "Fridays") {
		t.Errorf("Tobi's swimming offered as mine: %q", res.Context)
	}
}
