package capture

import (
	"slices"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/kinds"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// TestCorrectionShapesUnrestated: corrections that do not restate the
// attribute's words (a pro-form, a kind of provider, a subject named by
// "changed my mind about"), in words other than the scenarios', and the
// look-alikes that correct nothing.
func TestCorrectionShapesUnrestated(t *testing.T) {
	cases := []struct {
		say   string
		shape string // "" for no correction
		old   string
	}{
		{"The physio rang and pushed it to the 30th.", "pushed to", ""},
		{"They've bumped it to next Wednesday.", "pushed to", ""},
		{"The garage put it back a week, parts are late.", "pushed to", ""},
		{"The school brought the trip forward to Monday.", "pushed to", ""},
		{"Delayed it until the spring, money's tight.", "pushed to", ""},
		{"I pushed the pram to the park.", "", ""},
		{"Moved Esi out of Little Acorns into the school nursery.", "moved from", "Little Acorns"},
		{"We're moving out of the Leith flat into a house in Portobello.", "moved from", "the Leith flat"},
		{"I switched my savings out of Nationwide into a Premium Bonds account.", "moved from", "Nationwide"},
		{"Got the cat out of the shed into her basket.", "", ""},
		{"I've cut caffeine out completely.", "gave up", "caffeine"},
		{"We cut out takeaways after Christmas.", "gave up", "takeaways"},
		{"I ditched the gym membership, never went.", "gave up", "the gym membership"},
		{"The engine cut out on the hill.", "", ""},
		{"Cut out the coupon on page four.", "", ""},
		{"We switched gyms, the new one has a pool.", "switched kind", "gyms"},
		{"I've changed banks.", "switched kind", "banks"},
		{"We swapped dentists last month.", "switched kind", "dentists"},
		{"We switched swimming clubs and the kids love it.", "switched kind", "swimming clubs"},
		{"I changed the sheets this morning.", "", ""},
		{"We changed trains twice to get there.", "", ""},
		{"Changed my mind about the rug, the round one.", "changed my mind", "the rug"},
		{"I left Harwood Dental, I'm at the Quay practice now.", "left", "Harwood Dental"},
		{"The surgery pushed Ayo's smear test back to May.", "pushed to", ""},
		{"We've cancelled Ottilie, the kids are old enough now.", "cancelled", "Ottilie"},
		{"Cancelled the Spanish lessons.", "cancelled", "Spanish lessons"},
		{"Had to cancel the sweep, the fireplace is going.", "cancelled", "sweep"},
		{"We've called off the barbecue for Sunday.", "cancelled", "barbecue"},
		{"I've weaned myself off the sleeping pills completely.", "gave up", "sleeping pills"},
		{"I stopped taking the iron tablets in May.", "gave up", "taking the iron tablets"},
		{"The consultant took her off the steroids last week.", "gave up", "steroids"},
		{"The GP has taken me off lansoprazole, my stomach's settled.", "gave up", "lansoprazole"},
		{"I've come off the pill after ten years.", "gave up", "pill"},
		{"Took the lid off the paint tin.", "", ""},
		{"We came off the motorway at junction 9.", "", ""},
		{"Rohan's going fortnightly from now on, same price.", "from now on", ""},
		{"We've left Barclays for a building society.", "left", "Barclays"},
		{"We left Oslo at dawn and drove south.", "", ""},
		{"I've handed in my notice at Greggs, last shift is Friday.", "left", "Greggs"},
		{"Handed my notice in to the Royal Oak, too many late nights.", "left", "Royal Oak"},
		{"She handed in her notice at the bank.", "", ""},
		{"I left Tamsin a voicemail.", "", ""},
		{"We left Mum at the station.", "", ""},
		{"Our window cleaner's changed his round, he comes on the first Monday of the month now.", "changed times", ""},
		{"The library has changed its hours, it opens at ten on Saturdays now.", "changed times", ""},
		{"The bin men moved the day, it's Thursdays now.", "changed times", ""},
		{"The fish van has changed its day, it's Fridays from May.", "changed times", ""},
		{"Brownies moved their night to Wednesday.", "changed times", ""},
		{"The pharmacy's opening hours changed, it shuts at 5.30.", "changed times", ""},
		{"Zumba has a new time, 7.15 on Mondays.", "changed times", ""},
		{"The council changed the food waste collections to Tuesdays.", "changed times", ""},
		{"Ocado have changed their deliveries, we get Saturday mornings now.", "changed times", ""},
		{"The GP says stop the naproxen, it's upsetting my stomach.", "gave up", "naproxen"},
		{"Physio said to stop the evening stretches for now.", "gave up", "evening stretches"},
		{"Stop the milk from next week, we're away.", "gave up", "milk"},
		{"The vet told us to stop giving her the chews.", "gave up", "chews"},
		{"We had to stop the car on the hard shoulder.", "", ""},
		{"I couldn't stop the leak under the sink.", "", ""},
		{"Tomasz asked if we could swap, so I'm on the second Saturday from June.", "changed times", ""},
		{"Swapped shifts with Bea because of her exams, I'm doing Tuesday nights now.", "changed times", ""},
		{"I swapped with Dee so I've got the early slot on Mondays.", "changed times", ""},
		{"Swapped the summer duvet for the winter one on Sunday.", "", ""},
		{"We swapped numbers at the party on Friday.", "", ""},
		{"The kids swap stickers at break every Monday.", "", ""},
		{"The dentist can't do the 4th, it's now the 11th.", "is now", ""},
		{"Hang on, Meera says the Sunday works better.", "actually", ""},
		{"Oh wait, he can only manage the evening.", "actually", ""},
		{"Wait for me by the gate.", "", ""},
		{"I'm waiting for the plumber to call back.", "", ""},
		{"We changed our evening plans and stayed in.", "", ""},
		{"I changed the time on the oven clock.", "", ""},
		{"The clocks changed their time last night.", "", ""},
		// a day someone can no longer do, and the new one said after it
		{"Oskar can't do Tuesdays now so Portuguese is Thursday evenings.", "can't do", "Tuesdays"},
		{"Kemal can't make Wednesdays any longer, so five-a-side is on Mondays.", "can't do", "Wednesdays"},
		{"Mrs Ito can't manage Friday mornings now, we're on Saturdays at ten.", "can't do", "Friday"},
		{"The coach isn't free on Thursdays now, training is Tuesday at six.", "can't do", "Thursdays"},
		{"Bea cannot do Sunday any more, it's Saturday afternoons from next week.", "can't do", "Sunday"},
		{"I can't do Tuesdays, I've got choir.", "", ""},
		// someone the user sees is away, another covers for now
		{"Gemma's off on maternity leave, so I'm with Callum for now.", "cover", "Gemma"},
		{"Rosa's off having her knee done, so her cousin Lidia is covering.", "cover", "Rosa"},
		{"Dr Shah is away until March, I'm seeing Dr Lowe in the meantime.", "cover", "Shah"},
		{"Marcus is off sick this week, Jade is standing in.", "cover", "Marcus"},
		{"Gemma's off on maternity leave from June.", "", ""},
		{"Tom is off sick again.", "", ""},
		// a child moved up a school year
		{"Tomasz has gone up to Year 3, his teacher this year is Mr Brennan.", "moved up", ""},
		{"Lily started fifth grade this week, her teacher is Mr Dunleavy.", "moved up", ""},
		{"Aoife's moved up into P5 with Mrs Doyle.", "moved up", ""},
		{"Our eldest is in the sixth form now, doing chemistry.", "moved up", ""},
		{"Kit's gone up to secondary, she loves it.", "moved up", ""},
		{"The prices went up to silly levels.", "", ""},
		{"Started the year with a cold.", "", ""},
		{"She can't make Friday, she's away.", "", ""},
		{"I've gone back to semi-skimmed in my coffee.", "back to", ""},
		{"I went back to painting in my free time.", "", ""},
	}
	for _, c := range cases {
		got, ok := CorrectionIn(c.say)
		if c.shape == "" {
			if ok && (got.Shape == "switched kind" || got.Shape == "pushed to" || got.Shape == "left" || got.Shape == "changed times" || got.Shape == "back to" || got.Shape == "gave up" || got.Shape == "actually") {
				t.Errorf("CorrectionIn(%q) = %+v; want no correction of this shape", c.say, got)
			}
			continue
		}
		if !ok || got.Shape != c.shape || got.Old != c.old {
			t.Errorf("CorrectionIn(%q) = %+v, %v; want shape %q old %q", c.say, got, ok, c.shape, c.old)
		}
	}
}

// TestCorrectedUnrestated: which claim such a correction retires.
func TestCorrectedUnrestated(t *testing.T) {
	day := func(d int, h int) time.Time { return time.Date(2026, 6, d, h, 0, 0, 0, time.UTC) }
	hit := func(id int64, session string, at time.Time, text string) store.Hit {
		return store.Hit{Kind: "memory", ID: id, SessionID: session, Timestamp: at, Text: text, Role: "user"}
	}
	cases := []struct {
		name string
		say  string
		at   time.Time
		hits []store.Hit
		want []int64
	}{
		{"pushed it: the subject and a date", "The physio rang and pushed it to the 30th.", day(12, 9),
			[]store.Hit{hit(1, "a", day(2, 9), "Physio session is on the 16th at four."),
				hit(2, "b", day(3, 9), "Lunch with Ayo on the 18th.")}, []int64{1}},
		// a move in time goes one way: what was put back was before the new
		// day, what was brought forward after it, whatever is newer
		{"put back: the claim before the new day, not a newer one after it", "It's been put back to 19 June, the inspector's off sick.", day(10, 9),
			[]store.Hit{hit(80, "a", day(4, 9), "The gas safety inspection is on Friday 12 June."),
				hit(81, "b", day(8, 9), "Lena's barbecue is on Saturday 27 June.")}, []int64{80}},
		{"brought forward: the claim after the new day", "They've brought it forward to the 8th, there was a cancellation.", day(3, 9),
			[]store.Hit{hit(82, "a", day(1, 9), "Eye test booked for 15 June at the opticians."),
				hit(83, "b", day(2, 9), "The bike goes in for a service on 5 June.")}, []int64{82}},
		{"changed my mind about the thing it names, another day", "Changed my mind about the rug, the round one.", day(12, 9),
			[]store.Hit{hit(3, "a", day(10, 9), "For the hallway I'm ordering the striped rug."),
				hit(4, "b", day(11, 9), "The hallway light needs a new bulb.")}, []int64{3}},
		{"the thing named is no claim months later", "Changed my mind about the rug, the round one.", day(12, 9),
			[]store.Hit{hit(5, "a", time.Date(2025, 11, 1, 9, 0, 0, 0, time.UTC), "Spilt tea on the rug again.")}, nil},
		{"a pro-form takes the recent claim of its kind of value", "Changed my mind, the navy one.", day(12, 9),
			[]store.Hit{hit(6, "a", day(10, 9), "I'm buying the grey raincoat from the outdoor shop."),
				hit(7, "b", day(11, 9), "Rang the bank about the card.")}, []int64{6}},
		{"a pro-form reaches no claim of weeks ago", "Changed my mind, the navy one.", day(28, 9),
			[]store.Hit{hit(8, "a", day(2, 9), "I'm buying the grey raincoat from the outdoor shop.")}, nil},
		{"a kind of provider the old claim names", "We switched gyms, the new one has a pool.", day(20, 9),
			[]store.Hit{hit(9, "a", time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC), "I go to the gym on Mill Road three times a week."),
				hit(10, "b", day(2, 9), "Mill Road is closed for roadworks.")}, []int64{9}},
		{"a kind of provider inside the provider's name", "We switched gyms, the new one has a pool.", day(20, 9),
			[]store.Hit{hit(11, "a", day(1, 9), "My membership at FitHub Gym renews in August."),
				hit(12, "b", day(2, 9), "The pool at the lido opens in July.")}, []int64{11}},
		{"a kind of provider known by its work", "I switched dentists, I'm with Kingsmead now.", day(20, 9),
			[]store.Hit{hit(42, "a", day(1, 9), "My teeth get cleaned at Portway every six months."),
				hit(43, "b", day(2, 9), "Portway Road has new speed bumps, says Dev.")}, []int64{42}},
		{"a kind of provider no claim names: the provider of the subject", "We switched vets; the cat goes to Harbour Lane now.", day(20, 9),
			[]store.Hit{hit(13, "a", day(1, 9), "The cat has her jabs at Oakfield Veterinary."),
				hit(14, "b", day(2, 9), "The cat brought in a mouse.")}, []int64{13}},
		{"a switch of provider leaves another person's claim alone", "We switched vets; the cat goes to Harbour Lane now.", day(20, 9),
			[]store.Hit{hit(15, "a", day(1, 9), "Tobi's dog goes to Oakfield Veterinary.")}, nil},
		{"changed times without now: the subject's words and a weekday", "Brownies moved their night to Wednesday.", day(20, 9),
			[]store.Hit{hit(44, "a", day(1, 9), "Isla's Brownies are on Tuesday evenings at the scout hut."),
				hit(45, "b", day(2, 9), "Isla has a spelling test on Tuesday.")}, []int64{44}},
		{"stop the thing, said by whom the speaker heeds", "The GP says stop the naproxen, it's upsetting my stomach.", day(20, 9),
			[]store.Hit{hit(95, "a", day(1, 9), "I take naproxen twice a day for my knee."),
				hit(96, "b", day(3, 9), "The GP surgery has a new car park.")}, []int64{95}},
		{"stop the food, the pet named in the claim", "Vet says to stop the Wagg. Biscuit's on Harringtons grain-free from now on.", day(20, 9),
			[]store.Hit{hit(97, "a", day(1, 9), "Biscuit has Wagg complete, a cup morning and night."),
				hit(98, "b", day(3, 9), "Biscuit chewed the remote again.")}, []int64{97}},
		{"no longer with us: its subject ends, named as in the claim", "Biscuit is no longer with us, the vet was very kind.", day(20, 9),
			[]store.Hit{hit(103, "a", day(1, 9), "Our old cat Biscuit sleeps on the radiator all day."),
				hit(104, "b", day(3, 9), "Bought custard creams, the good biscuits.")}, []int64{103}},
		{"not with us any more: the role named as in the claim, weeks later", "Our lodger isn't with us any more, he's moved to Leeds.", day(28, 9),
			[]store.Hit{hit(105, "a", day(1, 9), "We've got a lodger now, Piotr, he pays 450 a month."),
				hit(106, "b", day(3, 9), "The spare room radiator is cold again.")}, []int64{105}},
		{"a swap with someone, the new day of the month said after it", "Ayesha wanted to swap because of her night shifts, so I'm taking the second Saturday from July.", day(20, 9),
			[]store.Hit{hit(92, "a", day(1, 9), "Signed up for the food bank rota on the last Saturday of each month, sorting tins."),
				hit(93, "b", day(3, 9), "Ayesha lent me her slow cooker.")}, []int64{92}},
		{"a swap of what the speaker owns sets no new day", "Swapped the summer duvet for the winter one on Sunday.", day(20, 9),
			[]store.Hit{hit(94, "a", day(1, 9), "Book club is at Jo's on the first Sunday of the month.")}, nil},
		{"a day someone can't do now: the claim on that day with their name", "Oskar can't do Tuesdays now so Portuguese is Thursday evenings.", day(20, 9),
			[]store.Hit{hit(110, "a", day(1, 9), "Oskar teaches me Portuguese on Tuesday evenings at his flat."),
				hit(111, "b", day(3, 9), "Bins go out on Tuesday night.")}, []int64{110}},
		{"a day someone can't make now: the claim by its subject, not another on that day", "Kemal can't make Wednesdays any longer, so five-a-side is on Mondays.", day(20, 9),
			[]store.Hit{hit(112, "a", day(1, 9), "Five-a-side with Kemal's lot is Wednesday nights at the leisure centre."),
				hit(113, "b", day(3, 9), "Book club is on Wednesday this month.")}, []int64{112}},
		{"a cover: the user's claim naming who is away", "Gemma's off on maternity leave, so I'm with Callum for now.", day(20, 9),
			[]store.Hit{hit(130, "a", day(1, 9), "My PT is Gemma, Mondays and Thursdays at the gym."),
				hit(131, "b", day(3, 9), "Gemma from the gym posted a new class timetable."),
				hit(132, "c", day(4, 9), "Callum Reid plays five-a-side with Dev.")}, []int64{130}},
		{"a cover: another person's claim naming who is away is not the user's", "Gemma's off on maternity leave, so I'm with Callum for now.", day(20, 9),
			[]store.Hit{hit(133, "a", day(1, 9), "Gemma is Tara's trainer at the gym.")}, nil},
		{"a school year moved up: the child's year and teacher", "Tomasz has gone up to Year 3, his teacher this year is Mr Brennan.", day(20, 9),
			[]store.Hit{hit(120, "a", time.Date(2025, 9, 10, 9, 0, 0, 0, time.UTC), "Tomasz is in Year 2 and his teacher is Mrs Okafor."),
				hit(121, "b", day(3, 9), "Tomasz has a dentist appointment on Friday."),
				hit(122, "c", day(4, 9), "Maja is in Year 5 with Mr Pike.")}, []int64{120}},
		{"a grade started: the child's old grade", "Lily started fifth grade this week, her teacher is Mr Dunleavy.", day(20, 9),
			[]store.Hit{hit(123, "a", time.Date(2025, 9, 10, 9, 0, 0, 0, time.UTC), "Lily is in fourth grade with Ms Carver."),
				hit(124, "b", day(3, 9), "Lily's fourth tooth came out.")}, []int64{123}},
		{"changed times without now: opening hours", "The pharmacy's opening hours changed, it shuts at 5.30.", day(20, 9),
			[]store.Hit{hit(46, "a", day(1, 9), "The pharmacy on Cole Street shuts at 6pm."),
				hit(47, "b", day(2, 9), "Picked up Dad's prescription.")}, []int64{46}},
		{"a slot changed to a time said as noon", "The dog groomer switched her slot to 2pm.", day(20, 9),
			[]store.Hit{hit(48, "a", day(1, 9), "The dog groomer comes at noon on the first Friday.")}, []int64{48}},
		{"instead, with the subject's words and a name for a name", "Change of plan for the reunion, we're meeting in Whitby instead.", day(20, 9),
			[]store.Hit{hit(16, "a", day(15, 9), "The reunion is booked for Scarborough, at the Grand."),
				hit(17, "b", day(3, 9), "Drove past Whitby on the way back.")}, []int64{16}},
		{"instead, with one word of the subject, is not it", "We're eating in Whitby instead.", day(20, 9),
			[]store.Hit{hit(18, "a", day(2, 9), "Eating at Mario's in Scarborough tonight.")}, nil},
		{"stopped, the -ing form, ends the habit in its base form", "I stopped cycling, the hills got too much.", day(20, 9),
			[]store.Hit{hit(20, "a", day(1, 9), "I cycle to the allotment every evening."),
				hit(21, "b", day(2, 9), "The cyclists' cafe has new owners.")}, []int64{20}},
		{"cut out, a phrasal verb of giving up", "I've cut biscuits out, trying to lose a bit of weight.", day(20, 9),
			[]store.Hit{hit(40, "a", day(1, 9), "I have two biscuits with my tea every afternoon."),
				hit(41, "b", day(3, 9), "The biscuit tin is in the top cupboard.")}, []int64{40}},
		{"gave up, doubled consonant", "I've given up swimming.", day(20, 9),
			[]store.Hit{hit(22, "a", day(1, 9), "I swim 40 lengths at the lido on Sundays.")}, []int64{22}},
		{"a named employer left", "I left Harwood Dental, I'm at the Quay practice now.", day(20, 9),
			[]store.Hit{hit(23, "a", day(1, 9), "I work as a hygienist at Harwood Dental."),
				hit(24, "b", day(2, 9), "The Quay car park is free after six.")}, []int64{23}},
		{"notice handed in at a named job, weeks later", "I've handed in my notice at the Red Lion, Saturdays at the car wash instead.", day(20, 9),
			[]store.Hit{hit(90, "a", day(1, 9), "Picked up weekend shifts at the Red Lion pulling pints."),
				hit(91, "b", day(3, 9), "The car wash on Hope Street has closed.")}, []int64{90}},
		{"a habit ended: the claim that the user does it, not the newer one sharing the noun", "I've given up smoking, a week clean.", day(20, 9),
			[]store.Hit{hit(25, "a", day(2, 9), "I smoke about six roll-ups a day."),
				hit(26, "b", day(18, 9), "The bonfire next door left the washing smelling of smoke.")}, []int64{25}},
		{"a choice named by a pro-form, next day", "Changed my mind, the wicker ones.", day(12, 9),
			[]store.Hit{hit(27, "a", day(11, 9), "Going with the metal chairs for the patio."),
				hit(28, "b", day(11, 12), "The patio needs sweeping.")}, []int64{27}},
		{"a named provider cancelled", "We've cancelled Ottilie, the kids are old enough now.", day(20, 9),
			[]store.Hit{hit(29, "a", day(2, 9), "Our babysitter Ottilie comes on Saturday nights."),
				hit(30, "b", day(3, 9), "Saturday nights are pizza nights.")}, []int64{29}},
		{"a thing cancelled is its own subject, weeks later", "Had to cancel the sweep, the fireplace is going.", day(28, 9),
			[]store.Hit{hit(44, "a", day(2, 9), "Booked a chimney sweep for the 3rd of October."),
				hit(45, "b", day(3, 9), "Swept the patio before the rain.")}, []int64{44}},
		{"a booking cancelled in other words, by the person it was for", "Tomasz is staying on after all, so his leaving do is cancelled.", day(10, 9),
			[]store.Hit{hit(84, "a", day(2, 9), "Booked the back room at the Anchor on 24 June for Tomasz's farewell drinks."),
				hit(85, "b", day(3, 9), "Tomasz lent me his ladder.")}, []int64{84}},
		{"a booking of a day gone is not what is cancelled", "Tomasz is staying on after all, so his leaving do is cancelled.", day(28, 9),
			[]store.Hit{hit(86, "a", day(2, 9), "Booked the back room at the Anchor on 24 June for Tomasz's farewell drinks.")}, nil},
		{"another person's booking is not what is cancelled", "Ines is staying on after all, so her leaving do is cancelled.", day(10, 9),
			[]store.Hit{hit(87, "a", day(2, 9), "Booked the back room at the Anchor on 24 June for Tomasz's farewell drinks.")}, nil},
		{"a booking called off weeks later, its time said as a holiday", "We've called off the Lisbon trip, the flights doubled in price.", day(28, 9),
			[]store.Hit{hit(99, "a", day(2, 9), "Booked an apartment in Lisbon for the Easter holidays."),
				hit(100, "b", day(3, 9), "Watched a film set in Lisbon, lovely trams.")}, []int64{99}},
		{"a plan cancelled weeks later, said with planning", "Cancelled the Whitby weekend, the car's off the road.", day(28, 9),
			[]store.Hit{hit(101, "a", day(2, 9), "We're planning a weekend in Whitby with the in-laws."),
				hit(102, "b", day(3, 9), "Whitby kippers are the best, says Dad.")}, []int64{101}},
		{"a thing cancelled was booked for a time, not only named", "Had to cancel the sweep, the fireplace is going.", day(28, 9),
			[]store.Hit{hit(53, "a", day(2, 9), "The sweep's brush is still in the hall.")}, nil},
		{"a negation whose last word the claim lacks: another word of it", "I'm not doing the bookshop shifts any more.", day(28, 9),
			[]store.Hit{hit(46, "a", day(2, 9), "I volunteer at the Oxfam bookshop on Saturday mornings."),
				hit(47, "b", day(3, 9), "My shifts at work are changing in July.")}, []int64{46}},
		{"a medicine ended by what it is for", "I've weaned myself off the sleeping pills completely.", day(28, 9),
			[]store.Hit{hit(48, "a", day(1, 9), "The GP put me on zopiclone for sleep, one most nights."),
				hit(49, "b", day(3, 9), "Bought hay fever pills at the chemist.")}, []int64{48}},
		{"from now on, a person named and how often", "Rohan's going fortnightly from now on, same price.", day(28, 9),
			[]store.Hit{hit(50, "a", day(1, 9), "The window cleaner, Rohan, comes every four weeks."),
				hit(51, "b", day(3, 9), "Rohan waved from his van.")}, []int64{50}},
		{"from now on without a shared value is no correction of it", "Rohan's going fortnightly from now on.", day(28, 9),
			[]store.Hit{hit(52, "a", day(1, 9), "Rohan cleaned the windows, twenty pounds.")}, nil},
		{"a move of the thing named to another named place, weeks later", "The darts league moved to the Feathers.", day(28, 9),
			[]store.Hit{hit(31, "a", day(2, 9), "Our darts league plays at the Swan on Mondays."),
				hit(32, "b", day(3, 9), "The Feathers has a new chef.")}, []int64{31}},
		{"a move of one named thing is not another's", "Ravi's darts team moved to the Feathers.", day(28, 9),
			[]store.Hit{hit(33, "a", day(2, 9), "Ravi plays pool at the Swan.")}, nil},
		{"a move to a new minder whose work the old claim names by its action", "We moved the boys to a new cleaner, Dana.", day(20, 9),
			[]store.Hit{hit(19, "a", day(1, 9), "The boys' room gets a cleaning from Marisol on Fridays.")}, []int64{19}},
		// someone's times changed, said with "now": the claim of their times, by
		// the subject's words and a kind of time, not another claim about them
		{"a round changed, the new day said with now", "Our window cleaner's changed his round, he comes on the first Monday of the month now.", day(28, 9),
			[]store.Hit{hit(60, "a", day(2, 9), "The window cleaner does our house every third Saturday."),
				hit(61, "b", day(3, 9), "The window cleaner is called Bryn, cash only.")}, []int64{60}},
		{"opening hours changed", "The library has changed its hours, it opens at ten on Saturdays now.", day(28, 9),
			[]store.Hit{hit(62, "a", day(1, 9), "The library opens at 9am on Saturdays."),
				hit(63, "b", day(3, 9), "Took three books back to the library.")}, []int64{62}},
		{"another thing's times are not changed", "The swimming club changed its times, the kids train at 6pm now.", day(28, 9),
			[]store.Hit{hit(64, "a", day(1, 9), "The book club meets on the first Tuesday of the month.")}, nil},
		// back to or switched to a value in the frame the old value was had in
		{"gone back to, the same frame, no old value named", "I've gone back to semi-skimmed in my coffee, the plant stuff kept splitting.", day(28, 9),
			[]store.Hit{hit(65, "a", day(10, 9), "I only have coconut milk in my coffee these days."),
				hit(66, "b", day(12, 9), "The coffee at the garden centre was awful.")}, []int64{65}},
		{"switched to, the way to work", "Switched to the train for work, the ring road is a nightmare.", day(28, 9),
			[]store.Hit{hit(67, "a", day(1, 9), "I drive to work most days, forty minutes each way."),
				hit(68, "b", day(3, 9), "Work has a new canteen.")}, []int64{67}},
		{"back to, a meal's value", "I've gone back to porridge for breakfast, the granola was too sweet.", day(28, 9),
			[]store.Hit{hit(69, "a", day(2, 9), "I have granola with yoghurt for breakfast every day.")}, []int64{69}},
		{"back to a pastime in one's free time ends no other pastime", "I've gone back to painting in my free time.", day(28, 9),
			[]store.Hit{hit(70, "a", day(1, 9), "I do yoga in my free time.")}, nil},
		{"a frame of what is grown is no value had in it", "I've switched to peat-free compost in my garden.", day(28, 9),
			[]store.Hit{hit(71, "a", day(1, 9), "I grow tomatoes in my garden.")}, nil},
		{"another frame is another value", "I've gone back to oat milk in my tea.", day(28, 9),
			[]store.Hit{hit(72, "a", day(1, 9), "I only have coconut milk in my coffee these days.")}, nil},
	}
	for _, c := range cases {
		m := store.Hit{Kind: "memory", ID: 100, SessionID: "z", Timestamp: c.at, Role: "user", Text: c.say}
		corr, ok := CorrectionIn(c.say)
		if !ok {
			if c.want != nil {
				t.Errorf("%s: %q is not read as a correction", c.name, c.say)
			}
			continue
		}
		if got := Corrected(m, corr, c.hits, nil); !slices.Equal(got, c.want) {
			t.Errorf("%s: corrected = %v (%+v), want %v", c.name, got, corr, c.want)
		}
	}
}

func TestSameRoot(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want bool
	}{{"childminder", "childminding", true}, {"cleaner", "cleaning", true}, {"walker", "walking", true},
		{"water", "wat", false}, {"summer", "summ", false}, {"teacher", "teaching", true}, {"garden", "gardener", false}} {
		if got := sameRoot(c.a, c.b); got != c.want {
			t.Errorf("sameRoot(%q, %q) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

// TestProFormReferent: a correction by a pro-form whose recent context holds
// no claim takes the newest claim saying when alike (a single weekday only
// within the week), of the session's subject, and none when a nearer
// memory says when otherwise.
func TestProFormReferent(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 5, d, 9, 0, 0, 0, time.UTC) }
	hit := func(id int64, d int, role, text string) store.Hit {
		return store.Hit{Kind: "memory", ID: id, Timestamp: day(d), Role: role, Text: text}
	}
	cases := []struct {
		name  string
		say   string
		older []store.Hit // newest first
		want  int64
	}{
		{"a weekly day for a weekly day, three weeks back", "Heads up: it's moved to Thursdays from now on.",
			[]store.Hit{hit(3, 20, "user", "The bins were late."), hit(2, 10, "user", "Went to the cinema, good film."),
				hit(1, 2, "user", "I go to a pottery class on Tuesday evenings.")}, 1},
		{"a nearer single day leaves the referent open", "Heads up: it's moved to Thursdays from now on.",
			[]store.Hit{hit(5, 15, "user", "Met Lars for lunch on Tuesday."), hit(4, 2, "user", "Choir is on Monday nights.")}, 0},
		{"a date for a date", "Actually, make it the 16th instead, I'm away.",
			[]store.Hit{hit(7, 18, "user", "Defrosted the freezer."), hit(6, 5, "user", "The boiler service is booked for the 9th of June.")}, 6},
		{"the agent's words are not the user's claim", "Actually, make it the 16th instead.",
			[]store.Hit{hit(9, 18, "assistant", "Noted for the 3rd."), hit(8, 5, "user", "Dentist on the 9th.")}, 8},
		{"no value saying when: nothing", "Actually, make it the blue one.",
			[]store.Hit{hit(10, 5, "user", "The dentist is on the 9th.")}, 0},
		{"a single weekday a fortnight back is past: nothing", "Actually, make it Thursday instead.",
			[]store.Hit{hit(11, 14, "user", "Booked the gutter man for Tuesday.")}, 0},
		{"a single weekday this week", "Actually, make it Thursday instead.",
			[]store.Hit{hit(12, 25, "user", "Booked the gutter man for Tuesday.")}, 12},
	}
	for _, c := range cases {
		m := store.Hit{Kind: "memory", ID: 100, Timestamp: day(28), Role: "user", Text: c.say}
		if got, _ := ProFormReferent(m, c.older, nil); got != c.want {
			t.Errorf("%s: ProFormReferent(%q) = %d, want %d", c.name, c.say, got, c.want)
		}
	}
	// The session spoke of the piano tuner: the squash game is another subject.
	m := store.Hit{Kind: "memory", ID: 100, Timestamp: day(28), Role: "user", Text: "Actually, make it Friday instead."}
	older := []store.Hit{hit(14, 26, "user", "Squash with Ife on Wednesday."), hit(13, 25, "user", "The piano tuner comes on Tuesday.")}
	if got, _ := ProFormReferent(m, older, ClaimStems("Can the piano tuner come another day?")); got != 13 {
		t.Errorf("ProFormReferent in a session about the piano tuner = %d, want 13", got)
	}
}

// TestChangeRequestCorrects: a question that asks for the change corrects
// as the statement would; any other question corrects nothing.
func TestChangeRequestCorrects(t *testing.T) {
	for _, tc := range []struct {
		say  string
		want bool
	}{
		{"Actually, can we make that the Friday instead?", true},
		{"Would you make it a double room instead?", true},
		{"Sorry, could we do the 14th instead?", true},
		{"Can we go to Italy next year?", false},
		{"Could you make a note of the gas reading?", false},
		{"Did you change it to Friday?", false},
		{"Is the sweep still coming instead of the plumber?", false},
	} {
		if _, ok := CorrectionIn(tc.say); ok != tc.want {
			t.Errorf("CorrectionIn(%q) corrects = %v, want %v", tc.say, ok, tc.want)
		}
	}
}

// TestSwitchedToAnotherKindOfHead: a switch to a kind of a thing ("oat
// milk") corrects a claim of another kind of it, not the thing named
// without a kind.
func TestSwitchedToAnotherKindOfHead(t *testing.T) {
	for _, tc := range []struct {
		s, h string
		want bool
	}{
		{"I've switched to oat milk, dairy upsets me.", "I have semi-skimmed milk in my tea.", true},
		{"We moved to the fixed tariff in March.", "We're on the variable tariff with Octopus.", true},
		{"Switched to decaf coffee after lunch.", "Had a coffee with Sam in town.", false},
		{"I've switched to oat milk.", "Out of milk again, must get some.", false},
		{"Switched to the Tuesday class.", "The Thursday class is full.", true},
		{"We switched to Octopus.", "We're on the variable tariff with Bulb.", false},
	} {
		if got := otherKindOfHead(tc.s, tc.h); got != tc.want {
			t.Errorf("otherKindOfHead(%q, %q) = %v, want %v", tc.s, tc.h, got, tc.want)
		}
	}
}

// TestCancelledKindEndsItsTitle: cancelling a thing named by its kind ("the
// paper", "the magazine") ends the user's claim naming it by its title,
// not someone else's nor a claim of another kind.
func TestCancelledKindEndsItsTitle(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2026, 3, d, 9, 0, 0, 0, time.UTC) }
	ofKind := func(h store.Hit, kind string) bool { return kinds.Holds(h.Text, kind) }
	for _, tc := range []struct {
		say  string
		hits []store.Hit
		want []int64
	}{
		{"Cancelled the paper this week, we read it all online.", []store.Hit{
			{Kind: "memory", ID: 1, Timestamp: day(1), Role: "user", Text: "We get the Guardian delivered, Saturdays too."},
			{Kind: "memory", ID: 2, Timestamp: day(2), Role: "user", Text: "Wrapped the plates in newspaper for the move."}}, []int64{1}},
		{"I've cancelled the magazine, never read it.", []store.Hit{
			{Kind: "memory", ID: 3, Timestamp: day(1), Role: "user", Text: "The Spectator comes for me every Thursday."}}, []int64{3}},
		{"We've cancelled the newspaper delivery, the lad kept missing us.", []store.Hit{
			{Kind: "memory", ID: 5, Timestamp: day(1), Role: "user", Text: "The Observer comes through our door on Sundays."}}, []int64{5}},
		{"Cancelled the paper this week, we read it all online.", []store.Hit{
			{Kind: "memory", ID: 4, Timestamp: day(1), Role: "user", Text: "Auntie Jo reads the Telegraph cover to cover."}}, nil},
	} {
		m := store.Hit{Kind: "memory", ID: 100, Timestamp: day(20), Role: "user", Text: tc.say}
		c, ok := CorrectionIn(tc.say)
		if !ok {
			t.Fatalf("%q is not read as a correction", tc.say)
		}
		if got := Corrected(m, c, tc.hits, ofKind); !slices.Equal(got, tc.want) {
			t.Errorf("%q: corrected = %v, want %v", tc.say, got, tc.want)
		}
	}
}
