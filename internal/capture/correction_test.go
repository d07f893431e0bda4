package capture

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCorrectionIn: each correction shape, in words other than the
// practice scenarios', and sentences that look alike but correct nothing.
func TestCorrectionIn(t *testing.T) {
	cases := []struct {
		say   string
		shape string // "" for no correction
		ends  bool
		old   string
	}{
		// actually
		{"Actually, make the electrician Friday instead.", "instead", false, ""},
		{"Actually the piano lesson is at 5pm, not 4pm.", "actually", false, ""},
		{"Oh, actually, Priya is hosting the quiz night this time.", "actually", false, ""},
		{"Sorry, actually it's the green bin this week.", "actually", false, ""},
		{"I actually enjoyed the opera more than I expected.", "", false, ""},
		{"Was it actually on Tuesday?", "", false, ""},
		// no longer
		{"I no longer take sugar in my tea.", "no longer", true, "take sugar in my tea"},
		{"Marta no longer teaches the Tuesday pilates class.", "no longer", true, "teaches the Tuesday pilates class"},
		{"We no longer have the allotment, so don't remind me about it.", "no longer", true, "have the allotment"},
		{"The 52 bus no longer stops at Elm Road.", "no longer", true, "stops at Elm Road"},
		{"I'm no longer vegan.", "no longer", true, "vegan"},
		// a negation naming only where its subject was: the subject ended
		{"Biscuit is no longer with us, the vet was very kind.", "no longer", true, "Biscuit"},
		{"Our lodger isn't with us any more, he's moved to Leeds.", "not any more", true, "Our lodger"},
		{"The twins are no longer here, they went back to their mum's.", "no longer", true, "The twins"},
		{"We're no longer with Barclays.", "no longer", true, "with Barclays"},
		{"Sadly it's no longer with us.", "no longer", true, "with us"},
		// not … any more
		{"I don't cycle to work any more.", "not any more", true, "cycle to work"},
		{"We don't get the Sunday paper anymore.", "not any more", true, "get the Sunday paper"},
		{"Dev isn't on the night shift any more.", "not any more", true, "on the night shift"},
		{"I'm not seeing Dr Okafor any more, I changed surgeries.", "not any more", true, "seeing Dr Okafor"},
		{"I never drink fizzy drinks anymore.", "not any more", true, "drink fizzy drinks"},
		{"There isn't any more milk in the fridge.", "", false, ""},
		// no more
		{"No more wine for me, the doctor says my liver numbers are up.", "no more", true, "wine"},
		{"No more night shifts: I'm on days from March.", "no more", true, "night shifts"},
		{"The knee is bad, so no more five-mile runs.", "no more", true, "five-mile runs"},
		{"It's no more cheese for him after that scan.", "no more", true, "cheese"},
		{"There's no more milk in the fridge.", "", false, ""},
		{"It costs no more than a tenner.", "", false, ""},
		// gave up, quit, stopped
		{"I gave up running after the knee injury.", "gave up", true, "running"},
		{"I've quit the choir, Wednesdays were too much.", "gave up", true, "the choir"},
		{"I stopped taking the iron tablets last month.", "gave up", true, "taking the iron tablets"},
		{"We stopped at the services for coffee.", "", false, ""},
		{"I gave up golden syrup on my porridge in January.", "gave up", true, "golden syrup on my porridge"},
		{"I've given up on sugary cereal for breakfast.", "gave up", true, "sugary cereal"},
		{"Quit my evening job at the cinema last week.", "gave up", true, "my evening job"},
		{"I'm not giving up and trying new things instead.", "instead", false, ""},
		{"Don't ever quit on your dreams.", "", false, ""},
		{"I nearly quit - the path forward was so unclear.", "", false, ""},
		// cancelled
		{"The dentist appointment on the 14th is cancelled.", "cancelled", true, ""},
		{"We've called off the barbecue because of the rain.", "cancelled", true, "barbecue"},
		{"I'm cancelling the gym membership at the end of the month.", "cancelled", true, ""},
		{"Netflix got canceled, we never watched it.", "cancelled", true, ""},
		// instead of, rather than
		{"We're flying from Bristol instead of Heathrow.", "instead of", false, "Heathrow"},
		{"Book the table for six rather than four.", "instead of", false, "four"},
		{"Let's do the swim lesson on Saturday instead.", "instead", false, ""},
		// moved from X to Y
		{"The parents' evening moved from Tuesday to Thursday.", "moved from", false, "Tuesday"},
		{"We switched the broadband from Sky to Plusnet.", "moved from", false, "Sky"},
		{"Lena's leaving do has changed from the pub to the bowling alley.", "moved from", false, "the pub"},
		// switched to, moved … to
		{"I switched to oat milk last week.", "switched to", false, ""},
		{"We moved Dad to the ground-floor flat in March.", "switched to", false, ""},
		{"We've moved the twins to the after-school club on Park Lane.", "switched to", false, ""},
		{"Changed my energy supplier to Octopus.", "switched to", false, ""},
		{"Swapped the Tuesday karate for judo on Mondays.", "", false, ""},
		// pushed to, postponed
		{"The boiler service got pushed to next Monday.", "pushed to", false, ""},
		{"My MRI scan was postponed until the 3rd of June.", "pushed to", false, ""},
		{"The flight is delayed until 9pm.", "pushed to", false, ""},
		{"Harriet's christening has been rescheduled for the autumn.", "pushed to", false, ""},
		{"They brought forward the school play to Wednesday.", "pushed to", false, ""},
		// went up to
		{"The council tax went up to 160 pounds a month.", "went up to", false, ""},
		{"They put the season ticket up to £1,200.", "went up to", false, ""},
		{"Our water bill dropped to £28 a month.", "went up to", false, ""},
		{"The childminder has put her rates up, it's 7 an hour now.", "went up to", false, ""},
		{"The season ticket price has gone up again.", "went up to", false, ""},
		// back to
		{"We've gone back to 7:30 bedtime for the kids now school has started.", "back to", false, ""},
		{"The bins are back to Mondays after the holidays.", "back to", false, ""},
		{"I'm going back to the old dentist on Hill Street.", "back to", false, ""},
		{"We went back to the café for more cake.", "", false, ""},
		{"Back to work tomorrow after the long weekend.", "", false, ""},
		// a possibility is no correction, nor another's switch
		{"It suits me, but who knows, maybe I'll go back to teaching someday.", "", false, ""},
		{"We might be changing banks in the spring.", "", false, ""},
		{"One day we are moving to the coast.", "", false, ""},
		{"Keep it up, you're changing lives!", "", false, ""},
		{"They changed hairdressers after the move.", "", false, ""},
		{"We changed banks, we're with Monzo now.", "switched kind", false, "banks"},
		// is now
		{"The April price rise hit: my Lyca plan is now 12 pounds a month.", "is now", false, ""},
		{"My hairdresser is now Niamh, at the place next to the library.", "is now", false, ""},
		{"Yoga is now on Mondays at the scout hut.", "is now", false, ""},
		{"The parking fee's now £4 for the day.", "is now", false, ""},
		{"The baby is now crawling everywhere.", "", false, ""},
		{"It is now or never for the garden.", "", false, ""},
		// a spoken correction: scratch that, change of plan
		{"Scratch that, the picnic is at noon.", "actually", false, ""},
		{"Change of plan: we're meeting at the lido.", "actually", false, ""},
		{"On second thoughts, book the later train.", "actually", false, ""},
		{"Make that two tickets, Femi is coming too.", "actually", false, ""},
		{"That was a change of plan for the team.", "", false, ""},
		// changed my mind
		{"I've changed my mind about the blue tiles, let's go with white.", "changed my mind", false, "the blue tiles"},
		{"We changed our minds, no party this year.", "changed my mind", false, ""},
		{"Kofi changed his mind and wants the window seat.", "changed my mind", false, ""},
		// neither
		{"The 8:10 to Leeds was delayed again this morning.", "", false, ""},
		{"Losing my job pushed me to start my own business.", "", false, ""},
		{"We went up to the Peak District for the weekend.", "", false, ""},
		{"Instead of giving up, I practised every evening.", "", false, ""},
		{"The plumber is coming on Tuesday at 10.", "", false, ""},
		{"We went up the hill after lunch.", "", false, ""},
		{"Scratched the car door on the gatepost.", "", false, ""},
		{"I love my new running shoes.", "", false, ""},
		{"Is the swimming club still on Thursdays?", "", false, ""},
	}
	for _, c := range cases {
		got, ok := CorrectionIn(c.say)
		if c.shape == "" {
			if ok {
				t.Errorf("CorrectionIn(%q) = %+v; want no correction", c.say, got)
			}
			continue
		}
		if !ok || got.Shape != c.shape || got.Ends != c.ends || got.Old != c.old {
			t.Errorf("CorrectionIn(%q) = %+v, %v; want shape %q ends %v old %q", c.say, got, ok, c.shape, c.ends, c.old)
		}
	}
}

func TestClaimStems(t *testing.T) {
	got := ClaimStems("Actually, Priya's quiz nights moved to the Crown on Fridays at 8pm instead.")
	want := []string{"priya", "quiz", "night", "crown", "friday", "8pm"}
	want = want[:5] // numbers are values, never subjects
	if !slices.Equal(got, want) {
		t.Errorf("ClaimStems = %q, want %q", got, want)
	}
	if got := UnitsIn("Now 48 dollars a month, billed each month"); !slices.Equal(got, []string{"dollars", "month"}) {
		t.Errorf("UnitsIn = %q", got)
	}
	if st := (Correction{Old: "drink fizzy drinks"}).OldStem(); st != "drink" {
		t.Errorf("OldStem = %q, want drink", st)
	}
	if st := (Correction{Old: "cycle to work"}).OldStem(); st != "work" {
		t.Errorf("OldStem = %q, want work", st)
	}
	for old, want := range map[string]string{"cycle to work": "cycle", "drink coffee": "", "walk the dog in the park": "dog", "work on Fridays": "work"} {
		if st := (Correction{Old: old}).headStem(); st != want {
			t.Errorf("headStem(%q) = %q, want %q", old, st, want)
		}
	}
}

func TestSharedValueKinds(t *testing.T) {
	if n := SharedValueKinds("The plumber comes on Tuesday at 10am", "Actually, make the plumber Thursday at 2pm"); n != 2 {
		t.Errorf("weekday and clock: %d kinds shared, want 2", n)
	}
	if n := SharedValueKinds("Booked the piano tuner for 14 October.", "Actually, make that the 21st, he's away."); n != 1 {
		t.Errorf("a date and a day of the month: %d kinds shared, want 1", n)
	}
	if n := SharedValueKinds("Gym is £30 a month", "The quiz is on Friday"); n != 0 {
		t.Errorf("money and weekday: %d kinds shared, want 0", n)
	}
}

// TestCorrectionNeedsHoldEveryMatch: a shape's needs gate its expression,
// so every sentence its expression matches must hold one of them. Checked
// on every line of the tree's scenarios: their corrections and the
// sentences around them.
func TestCorrectionNeedsHoldEveryMatch(t *testing.T) {
	files, err := filepath.Glob("../../testdata/scenarios/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenarios to read: %v", err)
	}
	var lines []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, strings.Split(string(b), "\n")...)
	}
	matched := 0
	for _, line := range lines {
		lower := strings.ToLower(line)
		for i, sh := range correctionShapes {
			if correctionRegexps()[i].MatchString(line) {
				matched++
				if !slices.ContainsFunc(sh.needs, func(w string) bool { return strings.Contains(lower, w) }) {
					t.Errorf("%q matches shape %q but holds none of %q", line, sh.shape, sh.needs)
				}
			}
		}
	}
	if matched < 50 {
		t.Errorf("only %d matches in %d lines: the check saw too few corrections", matched, len(lines))
	}
}

// TestCorrectionSaid: a correction's subject is read from the sentence of
// its cue, and the sentences after it when that names nothing else; never
// from the sentences before it.
func TestCorrectionSaid(t *testing.T) {
	for _, c := range []struct{ say, said string }{
		{"Great to see you, Ana! Actually, make the vet Thursday.", "Actually, make the vet Thursday."},
		{"Actually, scratch that. Make it Thursday.", "Actually, scratch that. Make it Thursday."},
		{"I don't drink coffee any more. Tea is fine.", "I don't drink coffee any more."},
		{"Actually, the dentist moved to Friday. Tea is fine.", "Actually, the dentist moved to Friday."},
	} {
		got, ok := CorrectionIn(c.say)
		if !ok || got.Said != c.said {
			t.Errorf("CorrectionIn(%q).Said = %q (%v), want %q", c.say, got.Said, ok, c.said)
		}
	}
}

// TestValueKindsFitAKindSet: a kindSet holds a bit a kind, so the kinds
// must fit its 32 bits, and the weekday is the kind weekdayKind names.
func TestValueKindsFitAKindSet(t *testing.T) {
	if n := len(valueKinds()); n > 32 {
		t.Fatalf("%d value kinds, a kindSet holds 32", n)
	}
	if whenKindsOf("every Tuesday") != 1<<weekdayKind {
		t.Fatalf("whenKindsOf(every Tuesday) = %b, want the weekday's bit %d", whenKindsOf("every Tuesday"), weekdayKind)
	}
}
