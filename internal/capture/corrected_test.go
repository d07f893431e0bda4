package capture

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestCorrected: which earlier memory a correction retires, by subject,
// kind of value, session and recency; and the look-alikes it leaves alone.
func TestCorrected(t *testing.T) {
	day := func(d int, h int) time.Time { return time.Date(2026, 5, d, h, 0, 0, 0, time.UTC) }
	hit := func(id int64, session string, at time.Time, text string) store.Hit {
		return store.Hit{Kind: "memory", ID: id, SessionID: session, Timestamp: at, Text: text, Role: "user"}
	}
	cases := []struct {
		name string
		say  string
		sess string
		at   time.Time
		hits []store.Hit
		want []int64
	}{
		{"actually, without the subject's every word", "Actually, make the electrician Friday instead.", "s2", day(10, 9),
			[]store.Hit{hit(1, "s1", day(8, 9), "The electrician is coming on Wednesday to look at the sockets."),
				hit(2, "s0", day(1, 9), "Dinner with Nadia on Friday.")}, []int64{1}},
		{"the agent's echo goes with the claim", "Actually the quiz night is at the Crown on Thursday 4 June instead.", "q2", day(20, 9),
			[]store.Hit{hit(3, "q1", day(12, 20), "Quiz night this month is at the Swan on Tuesday 2 June."),
				hit(4, "q1", day(12, 21), "Noted: quiz night at the Swan, Tuesday 2 June.")}, []int64{3, 4}},
		{"a negation names what it ends", "I don't cycle to work any more, I take the train.", "c", day(20, 9),
			[]store.Hit{hit(5, "a", day(2, 9), "I cycle to work along the canal every day."),
				hit(6, "b", day(3, 9), "Work was busy, the printer jammed again.")}, []int64{5}},
		{"a habit ended where its place was said in other words", "I don't drive to work any more, I take the tram.", "d2", day(20, 9),
			[]store.Hit{hit(33, "d1", day(2, 9), "I drive to the office in Salford each morning."),
				hit(34, "d0", day(3, 9), "Drove to the coast on Sunday.")}, []int64{33}},
		{"the habit word alone is no claim when its place is held", "I don't drive to work any more, I take the tram.", "d2", day(20, 9),
			[]store.Hit{hit(35, "d1", day(2, 9), "I drive to work through Salford each morning."),
				hit(36, "d0", day(3, 9), "I drive the kids to karate on Fridays.")}, []int64{35}},
		{"a switch of day for the person named, weeks later", "We've switched Ines to Tuesdays from next month.", "g2", day(28, 9),
			[]store.Hit{hit(37, "g1", day(1, 9), "Our cleaner Ines comes on Fridays to do the kitchen."),
				hit(38, "g0", day(2, 9), "Ines sent a photo of her new puppy.")}, []int64{37}},
		{"a habit ended is its own subject", "I don't drink coffee any more.", "h2", day(20, 9),
			[]store.Hit{hit(16, "h1", day(1, 9), "I have two coffees every morning before work."),
				hit(17, "h0", day(2, 9), "The office kettle is broken.")}, []int64{16}},
		{"changed my mind about what it names", "I've changed my mind about the blue tiles, let's go with white.", "t2", day(20, 9),
			[]store.Hit{hit(18, "t1", day(1, 9), "Ordered blue tiles for the bathroom floor."),
				hit(19, "t0", day(2, 9), "The bathroom fan is noisy.")}, []int64{18}},
		{"a bare correction takes its session's claim", "Actually, make it Thursday instead.", "r1", day(14, 10),
			[]store.Hit{hit(20, "r1", day(14, 9), "Please book the roofer for Tuesday morning."),
				hit(21, "r0", day(13, 9), "Bins go out on Monday night.")}, []int64{20}},
		{"a new provider and price replace the old though no word is shared", "Switched to Zest: 22 pounds a month, same number.", "n2", day(20, 9),
			[]store.Hit{hit(22, "n1", day(1, 9), "My broadband contract is with Fibrelink, 35 pounds a month.")}, []int64{22}},
		{"another bill's rise is not the phone's", "The water bill went up to 41 pounds a month.", "w2", day(20, 9),
			[]store.Hit{hit(23, "n2", day(10, 9), "Switched to Zest: 22 pounds a month, same number.")}, nil},
		{"the same event again is not a correction", "Parcel 12 switched to the evening delivery slot.", "", day(20, 9),
			[]store.Hit{hit(24, "", day(19, 9), "Parcel 11 switched to the evening delivery slot.")}, nil},
		{"moving from a place ends living there", "We've moved from Porto to Braga, the new flat is bigger.", "m2", day(20, 9),
			[]store.Hit{hit(30, "m1", day(2, 9), "I live in Porto, near the river."),
				hit(31, "m0", day(3, 9), "Booked a weekend in Lisbon.")}, []int64{30}},
		{"moving from a place is not a visit there", "We've moved from Porto to Braga, the new flat is bigger.", "m2", day(20, 9),
			[]store.Hit{hit(32, "m1", day(2, 9), "Had a lovely dinner in Porto with Rui.")}, nil},
		{"the old value alone is not the subject", "We're flying to Oslo on 2 June instead of May.", "f", day(20, 9),
			[]store.Hit{hit(7, "d", day(2, 9), "The dentist is on 14 May at 9:30.")}, nil},
		{"two shared words and no value are not one claim", "Ravi moved to the payments team last week.", "r", day(20, 9),
			[]store.Hit{hit(8, "r", day(20, 8), "Jo leads the team now; she took over from Ravi.")}, nil},
		{"three words of the subject are", "We switched the twins to the swimming club at Hollybank.", "k2", day(20, 9),
			[]store.Hit{hit(9, "k1", day(1, 9), "The twins go to swimming club at the leisure centre."),
				hit(10, "k0", day(2, 9), "The leisure centre car park is closed.")}, []int64{9}},
		{"a price chain retires the newest value", "Switched the gym to the off-peak plan: now 25 pounds a month.", "", day(20, 9),
			[]store.Hit{hit(11, "", day(1, 9), "The gym membership costs 30 pounds a month."),
				hit(12, "", day(10, 9), "The gym went up to 35 pounds a month.")}, []int64{12}},
		{"a cancellation ends what its words name", "The pottery weekend is cancelled, the kiln broke.", "p2", day(20, 9),
			[]store.Hit{hit(14, "p1", day(3, 9), "Booked the pottery weekend in Ludlow for 6 June."),
				hit(15, "p0", day(18, 9), "The weekend forecast is rain.")}, []int64{14}},
		{"a move names what moved and the kind of place, weeks later", "We've moved Hao to Sunflower Nursery now, it's closer.", "n2", day(28, 9),
			[]store.Hit{hit(25, "n1", day(1, 9), "Our son Hao goes to Little Acorns nursery on Mondays."),
				hit(26, "n0", day(2, 9), "Hao loved the soft play centre.")}, []int64{25}},
		{"a switch of the thing named whole, though no value is shared", "I've switched my contact lenses to Feel Good Contacts, half the price.", "l2", day(28, 9),
			[]store.Hit{hit(40, "l1", day(1, 9), "I order my contact lenses from LensPlus every three months."),
				hit(41, "l0", day(2, 9), "Lost a contact lens down the sink.")}, []int64{40}},
		{"a day of the month corrects the date of its session", "Actually, make that the 21st, he's away that week.", "t1", day(5, 9),
			[]store.Hit{hit(42, "t1", day(5, 8), "Booked the piano tuner for 14 October."),
				hit(43, "t0", day(4, 9), "Dinner with Lars on 2 November.")}, []int64{42}},
		{"gone back to an earlier value", "We've gone back to 7:30 bedtime for the kids now school has started.", "b2", day(28, 9),
			[]store.Hit{hit(44, "b1", day(3, 9), "The kids' bedtime is 8pm over the summer holidays."),
				hit(45, "b0", day(4, 9), "The kids built a den in the garden.")}, []int64{44}},
		{"no more, for me, ends the habit it names", "No more wine for me, the doctor says my liver numbers are up.", "w2", day(28, 9),
			[]store.Hit{hit(46, "w1", day(3, 9), "I have a glass of red wine with dinner most nights."),
				hit(47, "w0", day(4, 9), "The doctor's surgery moved its opening hours.")}, []int64{46}},
		{"is now replaces the price of the plan it names", "The April price rise hit: my Lyca plan is now 12 pounds a month.", "p9", day(28, 9),
			[]store.Hit{hit(48, "p8", day(1, 9), "My mobile contract is with Lyca, 8 pounds a month for unlimited texts."),
				hit(49, "p7", day(2, 9), "The council tax is 150 pounds a month.")}, []int64{48}},
		{"is now of another thing in the same session is not it", "Our rent is now £1,450 a month since the landlord raised it.", "w", day(28, 11),
			[]store.Hit{hit(53, "w", day(28, 10), "We live in Bristol, 14 Elm Road is the address for deliveries.")}, nil},
		{"a rise names the subject and a value of its kind, months later", "I've raised my pension contribution to 8% from this month.", "r9", day(28, 9),
			[]store.Hit{hit(54, "r1", time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), "I pay 5% of my salary into my pension."),
				hit(55, "r2", day(2, 9), "The pension statement came, 5 pages of it.")}, []int64{54}},
		{"a dose raised by another names the medicine and a dose", "The GP upped my sertraline to 100mg from today.", "d9", day(28, 9),
			[]store.Hit{hit(57, "d1", day(1, 9), "I take sertraline 50mg every morning."),
				hit(58, "d2", day(2, 9), "Picked up the sertraline prescription from the chemist.")}, []int64{57}},
		{"a cancelled membership ends being a member", "I cancelled my gym membership today, never went.", "g9", day(28, 9),
			[]store.Hit{hit(59, "g1", day(1, 9), "I'm a member of PureGym on Mill Road."),
				hit(60, "g2", day(2, 9), "Went to the gym on Mill Road with Sam.")}, []int64{59}},
		{"a rise of another thing is not it", "The council tax went up to 160 pounds a month.", "r9", day(28, 9),
			[]store.Hit{hit(56, "r1", day(1, 9), "The gym membership is 30 pounds a month.")}, nil},
		{"is now of another thing is not it", "The baby is now 3 months old.", "p9", day(28, 9),
			[]store.Hit{hit(50, "p8", day(1, 9), "The gym membership is 30 pounds a month.")}, nil},
		{"another person's move is not a correction of it", "My brother Benedikt is moving to Dundee on 12 September.", "b9", day(12, 9),
			[]store.Hit{hit(51, "b8", day(4, 9), "My wife's brother Caspian is moving to Perth on 6 June.")}, nil},
		{"the same person introduced again is", "Our cleaner Ines is moving to Thursdays from May.", "i9", day(12, 9),
			[]store.Hit{hit(52, "i8", day(4, 9), "Our cleaner Ines comes on Mondays at 9.")}, []int64{52}},
		{"a move of another thing to that kind of place is not it", "Moved the sofa to the spare room.", "m2", day(28, 9),
			[]store.Hit{hit(27, "m1", day(1, 9), "The spare room needs a new blind.")}, nil},
		{"a pronoun's visit moved to another day, days later", "She rang, she's coming Friday instead.", "k2", day(12, 18),
			[]store.Hit{hit(60, "k1", day(9, 9), "The chimney man is booked for Monday afternoon."),
				hit(61, "k0", day(1, 9), "Book club is on Friday.")}, []int64{60}},
		{"a switch to the place of the habit", "Switched to the lido by the station, it opens earlier.", "l2", day(14, 9),
			[]store.Hit{hit(62, "l1", day(10, 9), "I swim at Fairfield baths before work."),
				hit(63, "l0", day(11, 9), "Bought new goggles and a towel.")}, []int64{62}},
		{"a switch to another kind of place is not it", "Switched to the studio on Bridge Street for pottery.", "l3", day(14, 9),
			[]store.Hit{hit(64, "l1", day(10, 9), "I swim at Fairfield baths before work.")}, nil},
		{"a swap of banks retires the account's", "We swapped banks; we're with Monzo now.", "a2", day(20, 9),
			[]store.Hit{hit(65, "a1", day(1, 9), "Our savings account is with Halifax.")}, []int64{65}},
		{"upped names the subject by its rate and the person, weeks later", "Upped my rate with Harlow to £45 an hour from the start of next month.", "u2", day(25, 9),
			[]store.Hit{hit(70, "u1", day(1, 9), "I charge the Harlow agency £38 an hour for copywriting work."),
				hit(71, "u0", day(6, 9), "Sent Harlow the invoice for the spring catalogue copy.")}, []int64{70}},
		{"lowered names the subject in another form", "Hilltop lowered the dinner price to £2.40 for this term.", "d2", day(25, 9),
			[]store.Hit{hit(72, "d1", day(1, 9), "School dinners for Alfie cost £2.60 a day at Hilltop Primary."),
				hit(73, "d0", day(6, 9), "Alfie's class went to the zoo.")}, []int64{72}},
		{"changed our minds about the thing, a place after it", "Changed our minds about the reception, it's going to be at the Old Mill in Ledbury now.", "c2", day(25, 9),
			[]store.Hit{hit(74, "c1", day(1, 9), "We've put a deposit down on Hollins Barn for the wedding reception."),
				hit(75, "c0", day(6, 9), "Tasted three wedding cakes this afternoon, lemon won.")}, []int64{74}},
		{"pushed a person's visit to a time", "Bluebell have pushed Mum's morning visit to 9.30 because they're short of staff.", "p2", day(25, 9),
			[]store.Hit{hit(76, "p1", day(10, 9), "Mum's carer from Bluebell Homecare comes at 8am every weekday to help her dress."),
				hit(77, "p0", day(12, 9), "Rang Bluebell about Mum's new walking frame.")}, []int64{76}},
		// A chat turn answers the other speaker before it corrects anything:
		// the words of the sentences before the cue are not the subject.
		{"the sentences before the cue are another topic", "That sounds lovely, Priya! Having things around that remind us of good friends and times is great. Actually, I just took the kids sailing on the lake last weekend - a really fun time!", "k3", day(22, 9),
			[]store.Hit{hit(80, "k2", day(2, 9), "Lovely to hear from you, Priya! Good friends remind us of the good times, I'm so proud of you."),
				hit(81, "k2", day(2, 9), "We played board games and had good food with friends. Times like these are lovely.")}, nil},
		{"a cue naming one thing reads its subject in the sentence after it", "Actually, make it Thursday. The plumber can only do mornings.", "b3", day(20, 10),
			[]store.Hit{hit(88, "b1", day(12, 9), "The plumber is booked for Tuesday at 10am to fix the boiler."),
				hit(89, "b2", day(19, 9), "Book club read a thriller this month.")}, []int64{88}},
		{"a bare cue reads its subject in the sentence after it", "Actually, scratch that. Make the plumber Thursday.", "b2", day(14, 10),
			[]store.Hit{hit(82, "b2", day(14, 9), "The plumber is booked for Tuesday at 10am."),
				hit(83, "b1", day(13, 9), "Dinner at Mo's on Saturday.")}, []int64{82}},
		{"chat fillers are no subject", "Yeah, since I'm vegan I'm trying out oat or soy milk like everyone else instead.", "v2", day(20, 9),
			[]store.Hit{hit(84, "v2", day(20, 8), "Yeah, trying out flavours like mango, oat and lime has been so cool!")}, nil},
		// A postponement moves what is still to come, not what happened.
		{"a postponement moves the booking", "My dentist appointment got pushed back to Friday at 4pm.", "d3", day(20, 9),
			[]store.Hit{hit(85, "d2", day(5, 9), "My dentist appointment is on Wednesday at 3pm.")}, []int64{85}},
		{"a postponement moves the planned event", "My club chess tournament got pushed back, so I did some baking.", "t3", day(20, 9),
			[]store.Hit{hit(86, "t2", day(10, 9), "I'm playing in the club chess tournament next month, so excited!")}, []int64{86}},
		{"a postponement leaves an event that happened alone", "My club chess tournament got pushed back, so I did some baking.", "t3", day(20, 9),
			[]store.Hit{hit(87, "t2", day(10, 9), "I won the club chess tournament last week and my coach was thrilled!")}, nil},
		{"nothing said later is retired", "Actually, the car service is on Monday 8 June at 10am instead.", "v", day(20, 9),
			[]store.Hit{hit(13, "v", day(21, 9), "The car service is on Friday 12 June at 9am.")}, nil},
	}
	for _, c := range cases {
		m := store.Hit{Kind: "memory", ID: 100, SessionID: c.sess, Timestamp: c.at, Role: "user", Text: c.say}
		corr, ok := CorrectionIn(c.say)
		if !ok {
			t.Errorf("%s: %q is not read as a correction", c.name, c.say)
			continue
		}
		if got := Corrected(m, corr, c.hits, nil); !slices.Equal(got, c.want) {
			t.Errorf("%s: corrected = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestEchoes: the agent's turn repeating a corrected claim goes with it;
// its other turns, and the user's, stay.
func TestEchoes(t *testing.T) {
	at := time.Date(2026, 5, 4, 18, 0, 0, 0, time.UTC)
	h := func(id int64, role, text string) store.Hit {
		return store.Hit{Kind: "memory", ID: id, SessionID: "s", Timestamp: at, Role: role, Text: text}
	}
	hits := []store.Hit{h(1, "user", "The swimming lesson is on Tuesday at 4pm.")}
	around := []store.Hit{h(2, "assistant", "Noted: swimming on Tuesdays at 4pm."),
		h(3, "assistant", "Shall I order more goggles?"), h(4, "user", "Swimming is at Elm Park on Tuesday.")}
	if got := Echoes(hits, []int64{1}, around); !slices.Equal(got, []int64{2}) {
		t.Errorf("echoes = %v, want [2]", got)
	}
}

// A brand made of words holds each as its kind; a name only spelling a
// word inside it holds none.
func TestNameParts(t *testing.T) {
	for _, tc := range []struct {
		s, stem string
		want    bool
	}{
		{"I'm a member of PureGym on Mill Road.", "gym", true},
		{"Flying EasyJet to Nice.", "jet", true},
		{"Bartholomew painted the fence.", "art", false},
		{"The gym on Mill Road.", "gym", false},
	} {
		if got := slices.Contains(nameParts(tc.s), tc.stem); got != tc.want {
			t.Errorf("nameParts(%q) holds %q: %v, want %v", tc.s, tc.stem, got, tc.want)
		}
	}
}

// The check before Anaphoric's regexps lets through every text they
// match, whatever comes before a needed word (start, white space,
// punctuation, a letter that is not ASCII, a capital), and only those of
// ASCII texts that hold one opening a word.
func TestAnaphoricNeedsGuardTheRegexps(t *testing.T) {
	shapes := []string{"make it Friday", "the blue ones", "it's now at 3", "that's actually wrong", "change it to 5",
		"she's coming on Monday instead", "they are now going to Leeds instead", "it's been moved to Thursday",
		"that has changed", "it is put back a week", "that's brought forward", "shifted it to June", "pushed that back",
		"switched it forward", "he will do the school run instead"}
	var texts []string
	for _, sh := range shapes {
		for _, before := range []string{"", "Oh ", "ok,", "(", "é", "\u212a", "x", "_", "no: ", "\n"} {
			texts = append(texts, before+sh, before+strings.ToUpper(sh), strings.ReplaceAll(before+sh, " ", "\t "))
		}
	}
	for _, s := range texts {
		if (anaphoricRe().MatchString(s) || movedItRe().MatchString(s)) && !holdsAnaphoricNeed(s) {
			t.Errorf("holdsAnaphoricNeed(%q) = false, but a regexp matches", s)
		}
	}
	for s, want := range map[string]bool{"someone I know typed the input": false, "Someone knows": false,
		"someone, now": true, "Zoë knows someone": true, "Make do": true} {
		if got := holdsAnaphoricNeed(s); got != want {
			t.Errorf("holdsAnaphoricNeed(%q) = %v, want %v", s, got, want)
		}
	}
}
