package recall

import (
	"context"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Personal topics: a question names a role ("what pets do we have?", "how
// much do I earn?", "which painkiller should I avoid?") where the memory
// names a member of it ("our two cats", "my salary is 52,000", "ibuprofen
// gives me stomach bleeding"). WordNet links many members to their kinds,
// and the kinds index finds those (a beagle is a dog); it does not link a
// cat to a pet, a salary to earning or a tram to a commute. A topic lists,
// by hand, the everyday words a question names it by and the members
// WordNet lacks; the members are searched as words and as kinds, and an
// item holding one holds the question's word, as an item naming something
// by its kind does.

// topic is one everyday role: the words a question names it by (cues) and
// what counts as one (members). Category is the profile category it asks
// about, whose lines the question is routed to.
type topic struct {
	category string
	cues     []string
	members  []string
}

// topics are general everyday vocabulary, never the words of one scenario,
// built on first use (the binary's start allocates none of them).
var topics = sync.OnceValue(func() []topic {
	return []topic{
		{"pets", words("pet pets animal animals"),
			words("dog dogs puppy cat cats kitten hamster rabbit bunny guinea gerbil budgie parrot goldfish tortoise ferret pony horse lizard snake vet hen hens chicken chickens duck ducks fish coop hutch cage tank aquarium kennel")},
		{"diet", words("diet dietary eat eating food foods"),
			words("vegetarian vegan pescatarian intolerant intolerance allergic allergy gluten dairy lactose coeliac celiac ibs crohn crohns colitis diverticulitis fodmap reflux gout diabetic diabetes halal kosher spicy mild keto teetotal sugar low free rash hives bloated bloating indigestion heartburn reaction queasy")},
		{"preference", words("sport sports exercise exercises exercising workout workouts fitness"),
			slices.Concat(words("5k 10k"), claim.Sports, words("training trainer weights"))},
		{"work", words("nights earlies lates"), // "when am I on nights?": the rota line gives the hours
			words("rota rotas shift shifts")},
		{"work", words("shift shifts hours"),
			words("shift shifts rota earlies lates nights afternoons mornings starts start finish finishes overtime part full")},
		{"health", words("allergic allergy allergies"),
			words("hives rash rashes swelling swollen anaphylaxis anaphylactic epipen reaction reactions itchy itching wheezy wheezing sneezing intolerant intolerance")},
		{"health", words("painkiller painkillers"),
			words("ibuprofen paracetamol aspirin codeine naproxen acetaminophen tylenol advil nurofen")},
		{"health", words("medication medications medicine medicines meds tablets pills prescription prescriptions"),
			words("medication tablet tablets pill pills prescribed prescription dose inhaler capsule capsules mg spray drops cream ointment injection injections steroid steroids antibiotics antihistamine antihistamines drug drugs")},
		{"work", words("payday paydays"), // "when do I get paid?": the day, however it is called
			words("payday paid pay wages wage salary payslip")},
		{"work", words("earn earns earning income salary wage wages"),
			words("salary wage wages pay pays paid payslip income earn earnings raise bonus hourly stipend rate home")},
		{"vehicle", words("commute commuting"),
			words("tram bus train bike cycle cycling drive car walk tube metro ferry scooter carpool lift lifts motorbike take catch ride get")},
		{"contact", words("phone mobile smartphone"),
			words("phone mobile iphone pixel galaxy android samsung nokia motorola oneplus huawei xiaomi")},
		{"preference", words("hobby hobbies pastime pastimes interests"),
			slices.Concat(words("class classes club lessons lesson learning collect collecting course"), claim.Pastimes,
				words("joined practice practise rehearsal group society team league binoculars birdwatching birding twitching angling fishing woodwork woodworking carpentry embroidery quilting geocaching"))},
		{"diet", words("restaurant restaurants eatery"),
			words("dinner lunch brunch breakfast gastropub pub cafe bistro canteen diner takeaway tapas pizzeria trattoria osteria steakhouse brasserie ate")},
		{"", words("gig gigs concert concerts"),
			words("saw band bands live tour ticket tickets festival stage venue encore setlist support")},
		{"home", words("residence"),
			words("rent rented renting house flat apartment terrace bungalow cottage street road avenue lane moved postcode mortgage landlord mooring moorings moored berth marina houseboat narrowboat lodgings digs")},
		{"", words("holiday holidays vacation trip trips getaway"),
			words("flight flights flying fly booked hotel villa resort cruise airbnb hostel campsite camping abroad airport beach")},
		{"home", words("rent rented renting"),
			words("let letting lettings tenancy lease leased landlord landlady")},
		{"", words("match matches fixture fixtures"),
			words("play played playing beat beaten won lost drew draw score derby kickoff stadium league cup")},
		{"home", words("garden gardening"),
			words("lawn grass seed seeds plant plants shed pergola hedge flower flowers compost patio fence bulbs greenhouse mower hose shrub pond decking planter")},
		{"health", words("doctor gp"),
			words("dr surgery clinic practice checkup")},
		{"", words("dentist dentists"), claim.ProviderWork["dentist"]},
		{"", words("optician opticians optometrist"), claim.ProviderWork["optician"]},
		{"", words("physio physiotherapist"), claim.ProviderWork["physio"]},
		{"", words("vet vets"), claim.ProviderWork["vet"]},
		{"", words("electrician electricians"), claim.ProviderWork["electrician"]},
		{"", words("plumber plumbers"), claim.ProviderWork["plumber"]},
		{"", words("hairdresser hairdressers barber barbers stylist hairstylist"), claim.ProviderWork["hairdresser"]},
		{"", words("cleaner cleaners cleaning cleans"), claim.ProviderWork["cleaner"]},       // "who cleans for us?": "does the hoovering"
		{"", words("accountant accountants bookkeeper"), claim.ProviderWork["accountant"]},   // "who's my accountant?": "sent her my receipts for the tax return"
		{"", words("hair"), words("haircut haircuts fringe highlights balayage perm salon")}, // "who cuts my hair?": "sorted my fringe out"
		// a limb asked of by its name, the memory naming the part that hurts:
		// "what's wrong with my arm?" after "tendonitis in my elbow"
		{"health", words("arm arms"), words("elbow elbows wrist wrists forearm forearms shoulder shoulders bicep biceps tricep triceps")},
		{"health", words("leg legs"), words("knee knees kneecap ankle ankles shin shins calf calves thigh thighs hamstring hamstrings hip hips achilles groin")},
		{"health", words("hand hands"), words("finger fingers thumb thumbs knuckle knuckles palm palms wrist wrists")},
		{"health", words("foot feet"), words("toe toes heel heels ankle ankles bunion bunions verruca arch plantar")},
		{"health", words("teeth tooth toothache gums eyes eyesight glasses"),
			words("dentist dental hygienist orthodontist optician optometrist")},
		{"", words("university universities uni degree graduate graduated alma study studied"),
			words("degree graduated graduation undergraduate postgraduate alumni alumnus bachelor bachelors masters phd doctorate dissertation thesis fresher freshers campus uni university studied discipline")}, // discipline: "a 2:1 in Geography" by its kind
		{"", words("money savings budget spending"),
			words("bank savings saving save saved isa pension account budget bills debt loan mortgage deposit bonds invested investment investments shares stocks fund funds rainy")},
		{"routine", words("schedule routine timetable"),
			words("weekly daily mondays tuesdays wednesdays thursdays fridays saturdays sundays mornings evenings")},
		{"", words("walk walks walking walked ramble rambling"), // a walk told by its route
			words("loop trail trails ridge fell fells summit footpath towpath circuit ramble trek hike hiked")},
		{"", words("bake baked baking"),
			words("bread loaf cake cakes biscuit biscuits cookie cookies pastry pie tart muffin bun buns dough oven")},
		{"", words("visit visited visiting"),
			words("went popped toured trip day spent")},
		{"", words("fare fares"),
			words("train trains rail railcard flight flights fly coach bus ferry seat platform station airport")},
		{"", words("groceries grocery"),
			words("supermarket shop delivery")},
		{"", words("buy bought purchase purchased shopping"),
			words("bought got ordered picked purchased paid")},
		{"vehicle", words("vehicle vehicles"),
			words("car cars van vans motorbike motorcycle scooter moped campervan motorhome caravan hatchback estate suv pickup truck")},
		{"diet", words("cuisine cuisines"),
			words("thai italian indian chinese mexican japanese korean vietnamese greek turkish lebanese french spanish ethiopian caribbean curry sushi ramen noodles pizza pasta tacos")},
		{"preference", words("dislike dislikes hate hates loathe"),
			words("hate hates loathe detest stand bear fan keen dislike")},
		{"", words("insurer insurers insure insures insured insurance"),
			words("insurance insured insurer insurers policy premium cover renewal")},
		{"", words("supplier suppliers provider providers"),
			words("broadband fibre energy electricity gas water network insurance insurer bank mortgage lender")},
		{"", words("internet"),
			words("broadband fibre router")},
		{"", words("bank banks banking"), // "who do I bank with?": the account
			words("account accounts current savings isa overdraft sort debit")},
		{"", words("broadband wifi"), // the line asked for by its other names
			words("internet fibre router")},
		{"", words("pipe pipes plumbing leak leaks leaking"),
			words("plumber plumbers")},
		{"", words("wiring electrics fuse fuses"),
			words("electrician electricians sparky")},
		{"", words("benefits"), // a state benefit told by its name: "Universal Credit went in"
			words("allowance allowances credit credits pip esa jsa dla jobseeker jobseekers")},
		{"", words("tax taxes bookkeeping"),
			words("accountant accountants bookkeeper")},
		{"", words("hmrc irs"), // the tax offices, named by their acronyms
			words("tax taxes return returns assessment vat")},
		{"", words("loan loans repayment repayments"), // "home loan repayments": the mortgage
			words("mortgage mortgages remortgage lender")},
		{"", words("childcare"), // who minds the children: "the after-school club"
			words("nursery nurseries childminder childminders nanny nannies creche babysitter babysitters babysitting wraparound school")},
		{"", words("deadline deadlines"),
			words("due")},
		{"health", words("condition conditions illness illnesses diagnosis diagnosed health medical"),
			words("disease illness disorder syndrome diagnosed diabetic diabetes asthma asthmatic epilepsy epileptic arthritis eczema migraine migraines hypertension coeliac celiac apnoea apnea ibs crohn crohns colitis")},
		{"work", words("job jobs occupation profession"),
			words("employed freelance freelancer self-employed contractor shift shifts teach teaches teaching")},
		{"vehicle", words("bike bikes bicycle bicycles"),
			words("ride rides riding cycle cycles cycling")},
		{"preference", words("supporter"), // a fan tells of the games, the club named only by its name
			words("fan fans supporter supporters season game games end match through stadium terraces matchday derby kickoff")},
		{"vehicle", words("registration numberplate"),
			words("reg plate plates numberplate")},
		{"preference", words("sit sitting"),
			words("seat seats")},
		{"home", words("veg vegetable vegetables patch"), // "the veg patch", "my patch": the allotment
			words("allotment allotments plot plots polytunnel")},
		{"", words("tv telly television"), // a TV package told by its provider
			words("freeview freesat sky virgin youview netflix iplayer channels package satellite aerial subscription")},
		{"pets", words("horse horses pony ponies"), // what keeping one is told by, where the horse is named only by its name
			words("livery stable stables stabled mare gelding foal filly colt farrier paddock saddle bridle tack hay")},
		{"vehicle", words("fuel"),
			words("diesel petrol unleaded")},
		{"", words("volunteer volunteers volunteering voluntary"), // what is given time, never called volunteering
			words("volunteer volunteers volunteered help helps helping charity charities trustee trustees governor governors steward stewards marshal marshals befriender befriending fundraising fundraiser foodbank")},
		{"", words("streaming"),
			words("spotify netflix deezer iplayer youtube disney hulu nowtv")},
		{"", words("music"), // the music services, which WordNet does not know
			words("spotify deezer tidal soundcloud bandcamp pandora")},
		{"home", words("conveyancing conveyancer"), // who handles a house sale or purchase
			words("solicitor solicitors sale purchase buying selling completion exchange")},
		{"home", words("completion"),
			words("completion completing exchange exchanged conveyancing solicitors")},
	}
})

// topicPhrases are cues of more than one word: "how do I get to work?"
// asks of the commute, though neither word does alone.
var topicPhrases = map[string]string{
	"get to work": "commute", "go to work": "commute", "travel to work": "commute",
	"get to the office": "commute", "eat out": "restaurant", "do i live": "residence", "do we live": "residence",
	"put aside": "savings", "put away": "savings", "set aside": "savings", "save up": "savings", "put by": "savings",
	"have we saved": "savings", "have i saved": "savings", "we saved": "savings", "i saved": "savings",
	"tickets to": "fare", "ticket to": "fare",
	"are we living": "residence", "am i living": "residence",
	"kind of home": "residence", "type of home": "residence", "do i drive": "vehicle", "do we drive": "vehicle",
	"do i support": "supporter", "do we support": "supporter",
	"spare time": "hobby", "free time": "hobby", "for fun": "hobby",
	"line of work": "job", "for work": "job", "for a living": "job",
	"keep fit": "fitness", "stay active": "fitness", "keep active": "fitness", "stay fit": "fitness", "get fit": "fitness", "stay in shape": "fitness", "keep in shape": "fitness",
	"get the keys": "completion", "move in": "completion", "moving day": "completion",
	"when do i get paid": "payday", "when do we get paid": "payday", "day do i get paid": "payday", "date do i get paid": "payday",
	"when am i paid": "payday", "when are we paid": "payday", "when do my wages": "payday", "when does my salary": "payday",
	"much do i make": "earn", "much do we make": "earn", "money do i make": "earn", "money do we make": "earn", "much do i get paid": "earn", "much do i take home": "earn",
}

func words(s string) []string { return strings.Fields(s) }

// abroad is what a trip away from home is told by: a cue of no question
// word, only of a trip to a named place (tripWords), so "his semester
// abroad" asks of John's stay, not the user's rules for going away.
var abroad = topic{"", nil, words("abroad overseas foreign international")}

// tripTo is a travel word and the preposition before where to: "flying
// to", "off to", "a holiday in".
var tripTo = regexp.MustCompile(`(?i)\b(fly|flying|flight|flights|off|heading|travel|travelling|traveling|trip|holiday|going|driving|sailing|cruise)\s+(?:out\s+|over\s+|back\s+)?(?:to|in)\s+(\p{Lu}[\p{L}'’-]+)`)

// tripWords are the place and the travel word of the user's own trip the
// question tells of ("I'm flying to Ljubljana next week": ljubljana,
// flying), lowercased, or nil: a place named after a travel word, not a
// month or a day, is away from home, and what the user keeps for going
// abroad answers for it.
func tripWords(q string) []string {
	mine := inFirstPerson(toks(q))
	for _, loc := range tripTo.FindAllStringSubmatchIndex(q, -1) {
		if !mine && !elidedSubject().MatchString(q[:loc[0]]) {
			continue
		}
		if w := strings.ToLower(q[loc[4]:loc[5]]); !calendarWord(w) && !text.IsStopword(w) {
			return []string{w, strings.ToLower(q[loc[2]:loc[3]])}
		}
	}
	return nil
}

// elidedSubject is what may open a question before a trip told without
// its subject, the speaker's own: "Got a flight to Hanoi", "Booked a
// cheap trip to Porto", "Flying to Oslo".
var elidedSubject = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(?:(?:just\s+)?(?:got|booked|have|grabbed)\s+(?:a|an|the|my|our)(?:\s+\pL+)?\s+)?$`)
})

// topicByCue is each cue's topic, by the cue's stem, built on first use
// (the binary's start allocates none of it).
var topicByCue = sync.OnceValue(func() map[string]*topic {
	m := map[string]*topic{}
	ts := topics()
	for i := range ts {
		for _, c := range ts[i].cues {
			m[stem(c)] = &ts[i]
		}
	}
	return m
})

// topicVocabulary is every cue and member of the topics: everyday words,
// some WordNet lacks ("broadband", "netflix").
var topicVocabulary = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, t := range topics() {
		for _, w := range slices.Concat(t.cues, t.members) {
			m[w] = true
		}
	}
	return m
})

// everydayWord reports whether w, lowercase, is a word of the dictionary
// or of the topics' vocabulary, not a name.
func everydayWord(w string) bool { return isWord(w) || topicVocabulary()[w] }

// topicOf is the topic the question's word w names, or nil: w is one of
// its cues or a cue's regular inflection ("pet", "visited"), not another
// word of a cue's stem ("support" is no "supporter").
func topicOf(w string) *topic {
	w = strings.ToLower(w)
	t := topicByCue()[stem(w)]
	if t == nil || !slices.ContainsFunc(t.cues, func(c string) bool { return c == w || nounOrVerbBase(c) == nounOrVerbBase(w) }) {
		return nil
	}
	return t
}

// nounOrVerbBase is w less a plural's or a verb's regular ending
// ("hobbies": hobby, "visited": visit), not a comparative's ("supporter").
func nounOrVerbBase(w string) string {
	for _, in := range inflections {
		if in[0] == "er" || in[0] == "est" {
			continue
		}
		if s, ok := strings.CutSuffix(w, in[0]); ok && len(s) >= 2 && lexicon.Has(s+in[1]) {
			return s + in[1]
		}
	}
	return w
}

// topicWords are the question's words that name a topic, each with the
// members an item may hold it by. A phrase cue ("get to work") counts as
// its topic's cue word, which the question then holds.
func topicWords(q string, words []string) (map[string][]string, []string) {
	var out map[string][]string
	add := func(w string, t *topic) {
		if out == nil {
			out = map[string][]string{}
		}
		out[w] = t.members
	}
	for _, w := range words {
		if t := topicOf(w); t != nil && !(doneTo()[t] && objectNamed(q, w)) {
			add(w, t)
		}
	}
	low := " " + strings.Join(strings.Fields(strings.ToLower(q)), " ") + " "
	var extra []string
	if trip := tripWords(q); trip != nil {
		// the place, or else the travel word, is held by what says abroad:
		// a word more for every item to hold would cost the others their floor
		if i := slices.IndexFunc(trip, func(w string) bool { return slices.Contains(words, w) }); i >= 0 {
			add(trip[i], &abroad)
		} else if _, ok := out["abroad"]; !ok {
			add("abroad", &abroad)
			extra = append(extra, "abroad")
		}
	}
	for p, cue := range topicPhrases {
		if strings.Contains(low, " "+p+" ") || strings.Contains(low, " "+p+"?") {
			if _, ok := out[cue]; !ok {
				add(cue, topicOf(cue))
				extra = append(extra, cue)
			}
		}
	}
	return out, extra
}

// doneTo are the topics whose cue is a verb and whose members find what it
// was done to ("which galleries did I visit?": "went to the Tate"): a
// question naming that thing (objectNamed) asks of it, not of the topic.
var doneTo = sync.OnceValue(func() map[*topic]bool {
	return map[*topic]bool{topicOf("visit"): true, topicOf("bake"): true, topicOf("buy"): true}
})

// ownTopics are the topics whose members find only what the user tells of
// their own: "what volunteering do I do?" is answered by "I help run the
// food bank", but a chat's "what shelters does Maria volunteer at?" names
// its own words.
var ownTopics = sync.OnceValue(func() map[*topic]bool {
	return map[*topic]bool{topicOf("volunteering"): true}
})

// objectNamed reports whether q names, right after its word w, what w is
// done to: a determiner, a name or another word that is no function or
// time word ("visiting the orphanage", "visit Universal Studios", "visit art
// galleries"), also after "to" or "of" when w is a noun ("his visit to
// Ireland"; not "mention visiting to Tim"), or before the noun w after a
// determiner or possessive ("the hospital visit").
func objectNamed(q, w string) bool {
	fs := strings.FieldsFunc(q, func(r rune) bool { return !text.IsWordRune(r) && r != '\'' && r != '’' })
	for i, f := range fs {
		if stem(strings.ToLower(f)) != stem(w) {
			continue
		}
		if i > 1 && opensNoun(fs[i-2]) && isNoun(strings.ToLower(fs[i-1])) && !text.IsStopword(strings.ToLower(fs[i-1])) {
			return true // "the veteran's hospital visit": its modifier names it
		}
		if i+1 == len(fs) {
			continue
		}
		next := fs[i+1]
		noun := i > 0 && opensNoun(fs[i-1]) // "his visit", not "mention visiting"
		if low := strings.ToLower(next); noun && (low == "to" || low == "of") && i+2 < len(fs) {
			next = fs[i+2]
		}
		low := strings.ToLower(next)
		return thingBefore(low) || startsUpper(next) || !text.IsStopword(low) && !timeWord(low)
	}
	return false
}

// opensNoun reports whether f opens a noun phrase: a determiner or a
// possessive ("the", "his", "the veteran's").
func opensNoun(f string) bool {
	_, poss := cutPossessive(f)
	return poss || opensNounPhrase(f)
}

// topicMembers searches the members of the topics the question names, as
// words and as the kinds memories are indexed under ("dog": beagle), at the
// weight of a match by kind.
func (r *ranker) topicMembers(ctx context.Context) error {
	if r.t.Kind <= 0 || r.t.NoExpansion {
		return nil
	}
	var extra []string
	r.members, extra = topicWords(r.q.Text, r.words)
	if !r.self {
		maps.DeleteFunc(r.members, func(w string, _ []string) bool { return ownTopics()[topicOf(w)] })
	}
	asked := r.words // a phrase's cue is no word the question spelt: "when do I get paid?" still searches payday
	r.words = append(r.words, extra...)
	var ms []string
	for _, m := range r.members {
		ms = append(ms, m...)
	}
	if len(ms) == 0 {
		return nil
	}
	ms = withoutSpelt(dedupe(ms), asked)
	for _, byKind := range []bool{false, true} {
		o := r.narrow(ms)
		o.Kinds, o.MaxShare = byKind, relatedShare // "got" in a dense log is a stop word there
		hits, err := r.s.SearchMemories(ctx, o)
		if err != nil {
			return err
		}
		r.take(hits, func(c *cand, rel float64) {
			c.ex.ByKind = max(c.ex.ByKind, rel)
			c.member = true
		})
		if !byKind {
			if err := r.namedMembers(ctx, hits); err != nil {
				return err
			}
		}
	}
	return nil
}

// namedMembers searches, as members too, the names the members' hits give
// a member noun to: "moved Esme to Brambles Day Nursery" makes Brambles a
// nursery, so "the Brambles invoice came: £1,040 a month" holds the
// childcare asked of, though it names no nursery. Only for a question
// naming no one: "which cities did John visit?" is his, not every trip's.
func (r *ranker) namedMembers(ctx context.Context, hits []store.MemoryHit) error {
	if len(r.people) > 0 {
		return nil
	}
	var names []string
	for w, ms := range r.members {
		var mine []string
		for _, h := range hits {
			for _, n := range namesBefore(h.Text, ms) {
				if !slices.Contains(mine, n) && !slices.Contains(r.words, n) && !r.namesPerson(n) {
					mine = append(mine, n)
				}
			}
		}
		if len(mine) > 0 {
			r.members[w] = append(slices.Clone(ms), mine...)
			names = append(names, mine...)
		}
	}
	if len(names) == 0 {
		return nil
	}
	o := r.narrow(dedupe(names))
	o.MaxShare = relatedShare
	found, err := r.s.SearchMemories(ctx, o)
	if err != nil {
		return err
	}
	r.take(found, func(c *cand, rel float64) {
		c.ex.ByKind = max(c.ex.ByKind, rel)
		c.member = true
		c.things = names
	})
	return nil
}

// namesBefore are the names s gives one of members, lowercased: the first
// word of a run of capitalised words right before the member ("Brambles
// Day Nursery", "Tiddlywinks nursery"), no possessive ("Mia's dog" is
// Mia's), no pronoun, day or month, nor a sentence's first word alone.
func namesBefore(s string, members []string) []string {
	fs := strings.Fields(s)
	var out []string
	for i := 1; i < len(fs); i++ {
		w := strings.ToLower(strings.TrimRightFunc(fs[i], func(c rune) bool { return !text.IsWordRune(c) }))
		if !slices.Contains(members, w) {
			continue
		}
		j := i
		for j > 0 && startsUpper(fs[j-1]) && strings.IndexFunc(fs[j-1], func(c rune) bool { return !text.IsWordRune(c) }) < 0 {
			j--
		}
		if j == i || i-j == 1 && (j == 0 || endsSentence(fs[j-1][len(fs[j-1])-1])) {
			continue // no name, or only a sentence's first word ("… again. Going swimming")
		}
		if n := strings.ToLower(fs[j]); len(n) >= 3 && !text.IsStopword(n) && !calendarWord(n) {
			out = append(out, n)
		}
	}
	return out
}

// withMembers is have with the stem of each topic word whose member the
// item holds, by its words or its kinds: what names a member names the
// topic.
func (r *ranker) withMembers(c *cand, have stemList) stemList {
	if !c.member || len(r.members) == 0 {
		return have
	}
	kinds := r.stems(r.kindsOf(c.hit.Text))
	have = slices.Clone(have) // the text's own stems are kept for the question
	for w, ms := range r.members {
		for _, m := range ms {
			if st := stem(m); (have.has(st) || kinds.has(st)) && inSense(c.hit.Text, m) {
				have = append(have, stem(w))
				break
			}
		}
	}
	return have
}

// memberSenses are the members that name their topic only beside some
// words: "paid" is earning in "I get paid" or "it pays me", not in "paid
// off the sofa"; "rate" in "my day rate", not in an interest rate. A named
// member counts before "the" and a name: "I catch the Thames Clipper" is
// a commute by a named service, "I get the 7.42 from Didcot" one by its
// departure, "take the bins out" none.
var memberSenses = map[string]struct {
	before, after []string
	named         bool
}{
	"paid": {before: words("get gets got getting am 'm is are was were be been being"), after: words("me us")},
	"pay":  {before: words("my our his her their home the"), after: words("me us rise review slip packet day")},
	"home": {before: words("take takes took taking")}, // take-home pay
	"pays": {after: words("me us")},
	"rate": {before: words("day daily hourly hour weekly")},
	// a fan's: "my season ticket", "the home game", "the away end", "Leeds
	// through and through"; not a ticket to the ballet, the end of the day
	"ticket":  {before: words("season")},
	"game":    {before: words("home away")},
	"games":   {before: words("home away")},
	"end":     {before: words("away home")},
	"match":   {before: words("the")},
	"through": {before: words("and")},
	// "I help run the food bank", "helping out at the Scouts": a thing
	// run for others, not "helped me move house"
	"help":    {after: words("run out organise organize")},
	"helps":   {after: words("run out organise organize")},
	"helping": {after: words("run out organise organize")},
	// a state benefit's credit, not a credit card's
	"credit":  {before: words("universal pension tax")},
	"credits": {before: words("universal pension tax")},
	"take":    {named: true},
	"catch":   {named: true},
	"ride":    {named: true},
	"get":     {named: true},
}

// inSense reports whether s holds the member m in its topic's sense: any
// use of a member without senses, else a use beside one of its words.
func inSense(s, m string) bool {
	sense, ok := memberSenses[m]
	if !ok {
		return true
	}
	raw := strings.FieldsFunc(strings.ReplaceAll(s, "’", "'"), func(r rune) bool { return unicode.IsSpace(r) || r == '-' })
	ws := make([]string, len(raw))
	for i := range raw {
		raw[i] = strings.TrimFunc(raw[i], func(r rune) bool { return !text.IsWordRune(r) && r != '\'' })
		ws[i] = strings.ToLower(raw[i])
	}
	for i, w := range ws {
		switch {
		case w != m:
		case i > 0 && (slices.Contains(sense.before, ws[i-1]) || slices.Contains(sense.before, contraction(ws[i-1]))),
			i+1 < len(ws) && slices.Contains(sense.after, ws[i+1]),
			sense.named && i+2 < len(ws) && ws[i+1] == "the" && (startsUpper(raw[i+2]) || departure(raw[i+2])):
			return true
		}
	}
	return false
}

// departure reports whether w is a clock time, "7.42" or "18:05": the
// service that leaves then.
func departure(w string) bool {
	h, m, ok := strings.Cut(strings.Replace(w, ":", ".", 1), ".")
	if !ok || len(h) == 0 || len(h) > 2 || len(m) != 2 || !isNumber(h) || !isNumber(m) {
		return false
	}
	hour, _ := strconv.Atoi(h)
	return hour < 24 && m < "60"
}

// contraction is the contracted verb of w ("i'm": "'m"), or "".
func contraction(w string) string {
	if i := strings.IndexByte(w, '\''); i > 0 {
		return w[i:]
	}
	return ""
}

// suitability are the phrases that ask whether something suits the user
// ("is the Sichuan place a good idea for me?", "would I like it?"): the
// user's own likes, dislikes and limits on the topic answer them, though
// they name neither the place nor the plan.
var suitability = []string{"good idea for me", "a good idea", "good choice for me", "ok for me", "okay for me", "all right for me",
	"suit me", "right for me", "safe for me", "would i like", "will i like", "would i enjoy", "will i enjoy", "is it wise"}

// asksSuitability reports whether the question asks whether something
// suits the user.
func asksSuitability(q string) bool {
	low := strings.Join(strings.Fields(strings.ToLower(q)), " ")
	for _, p := range suitability {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}

// preferencePhrases say what the user likes, dislikes or cannot have, in
// five groups: likes and dislikes; what the user cannot do or is poor at
// ("can't cope with", "hopeless before 10am", "useless at"); what they keep
// away from; instructions never to arrange something; and time limits.
var preferencePhrases = []string{
	"hate", "loathe", "detest", "don't like", "do not like", "dislike", "love ", "prefer", "not a fan", "rather not",
	"can't ", "cannot ", "can not ", "hopeless", "useless", "rubbish at", "terrible at", "bad at", "not good at",
	"not good with", "struggle", "not a morning person", "not a night owl",
	"allergic", "intolerant", "avoid", "keep clear", "steer clear", "never eat", "don't eat", "don't drink", "only eat",
	"don't want", "do not want",
	"don't book", "never book", "do not book", "don't schedule", "never schedule", "don't arrange", "never arrange",
	"don't put me", "don't sign me",
	"nothing before", "nothing after", "not before", "not after", "no earlier than", "no later than"}

// statesPreference reports whether s is the user saying what they like,
// dislike or cannot have.
func statesPreference(s string) bool {
	low := " " + strings.ToLower(strings.ReplaceAll(s, "’", "'")) + " "
	if !strings.Contains(low, " i ") && !strings.Contains(low, " i'm ") && !strings.Contains(low, " my ") && !strings.Contains(low, " me ") {
		return false
	}
	for _, p := range preferencePhrases {
		if strings.Contains(low, p) {
			return true
		}
	}
	return false
}

// suitedCoverage: for a question asking whether something suits the user,
// a memory found by a member of the question's topic in which the user
// states a like, dislike or limit reaches the floor; so does, for the
// user's plan on a day ("should I sign up for the 8am yoga class this
// Saturday?"), one stating a limit that names the day or its part of the
// week ("I'm hopeless before 10am at weekends").
func (r *ranker) suitedCoverage(c *cand) {
	// The question first: most ask neither, and the phrases cost.
	if c.hit.Kind != "memory" || !(r.suits && c.member || r.self) || !statesPreference(c.hit.Text) {
		return
	}
	if r.suits && c.member || r.self && r.namesPlanDay(c.hit.Text) {
		c.ex.Coverage = max(c.ex.Coverage, r.t.MinCoverage)
	}
}

// namesPlanDay reports whether s names the day of the question's plan or
// the part of the week it falls in.
func (r *ranker) namesPlanDay(s string) bool {
	have := r.stems(s)
	return slices.ContainsFunc(r.planWords(), func(w string) bool { return have.has(r.stem(w)) })
}
