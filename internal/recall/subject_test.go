package recall

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/wordnet"
)

// A capitalised word is a person only in a person's position: not after
// an article or a possessive, nor a preposition of place (unless it owns
// something), nor an acronym or a brand; a title names nobody.
func TestPeopleNamedPositions(t *testing.T) {
	for q, want := range map[string][]string{
		"Book me a flight to Tromsø on Friday":                 nil,
		"Is the MOT due soon?":                                 nil,
		"Find a hotel in Harrogate for the 18th":               nil,
		"The broker asked about our LTV":                       nil,
		"My MacBook's screen flickers":                         nil,
		"Where can I get my iPad and PS5 fixed near Kew?":      nil,
		"When does Elif start?":                                {"elif"},
		"What did Dr. Lindqvist say?":                          {"lindqvist"},
		"Should I bring anything to Amira's barbecue?":         {"amira"},
		"Is Nkechi afraid of anything?":                        {"nkechi"},
		"Should I order the Brooks Ghost trainers?":            nil,
		"We stayed at the Grand Budapest Hotel":                nil,
		"Did Mary Okafor call?":                                {"mary", "okafor"},
		"Is my passport still valid for Marrakech?":            nil,
		"Is our tent big enough for Wychwood?":                 nil,
		"What did I buy for Tom?":                              {"tom"},
		"What do I sort out before the flights for Marrakech?": nil,
		"Is Bristol worth a weekend?":                          nil,
		"What should I get for Maria?":                         {"maria"},
		"What's Dec's new number?":                             {"dec"},
		"How much was the gas in Dec?":                         nil,
	} {
		if got := peopleNamed(q); !slices.Equal(got, want) {
			t.Errorf("peopleNamed(%q) = %q, want %q", q, got, want)
		}
	}
}

// A name matches only a whole name: Ana is not Anand, Eli not Elif; a
// title names nobody.
func TestAboutOthersWholeNames(t *testing.T) {
	for _, c := range []struct {
		subject []string
		s       string
		want    bool
	}{
		{[]string{"elif"}, "Eli starts at the bakery on Monday.", true},
		{[]string{"elif"}, "Elif starts at the council on Tuesday.", false},
		{[]string{"ana"}, "Anand Rao sent the figures.", true},
		{[]string{"ana"}, "Ana sent the figures.", false},
		{[]string{"lindqvist"}, "Dr. Okafor said my blood pressure is fine.", true},
		{[]string{"lindqvist"}, "Dr. Lindqvist wants me back in three months.", false},
		{[]string{"@sister"}, "My brother Tomas is visiting.", true},
		{[]string{"@sister"}, "Bought new curtains for the spare room.", false},
		// a role after someone's possessive is theirs, not the user's
		{[]string{"@son"}, "My neighbour Gideon's son starts at St Jude's in September.", true},
		{[]string{"@son"}, "My son starts at St Jude's in September.", false},
		{[]string{"gideon"}, "My neighbour Gideon's son starts at St Jude's in September.", false},
		// a role switched, in the plural: mine, the new one named
		{[]string{"@dentist"}, "I've switched dentists, I'm with Parkside Smiles now.", false},
		{[]string{"@doctor"}, "We changed GPs last spring, we're at Millbrook Surgery now.", false},
		{[]string{"@dentist"}, "I've switched banks, I'm with Monzo now.", true},
		{[]string{"@dentist"}, "Saw dentists at the Parkside Smiles open day.", true},
	} {
		r := &ranker{subject: c.subject}
		if got := r.aboutOthers(c.s, capture.Names(c.s)); got != c.want {
			t.Errorf("about others than %q: %q = %v", c.subject, c.s, got)
		}
	}
}

// Whom a question asks about: its people, the role chain after "my" or
// "our", or the user's own.
func TestQuestionSubject(t *testing.T) {
	for _, c := range []struct {
		q    string
		keys []string
		self bool
	}{
		{"What is my sister's favourite colour?", []string{"@sister"}, false},
		{"Where did my brother's car get fixed?", []string{"@brother"}, false},
		{"Where does my sister's husband work?", []string{"@sister>partner"}, false},
		{"What does my boss need by Friday?", []string{"@boss"}, false},
		{"What did Mum say about the trip?", []string{"@mother"}, false},
		{"What did my osteopath tell me to do?", []string{"@osteopath"}, false},
		{"What did Mum's carer ask for?", []string{"@mother>carer"}, false},
		{"What did Mum say about the carer?", []string{"@mother"}, false},
		{"When is my car insurance due?", nil, true},
		{"When is the bin collection?", nil, false},
		{"Is there anything I'm allergic to?", nil, true},
		{"When's the boiler due a service, d'you know? I'd forgotten", nil, true},
	} {
		keys, self := questionSubject(c.q, peopleNamed(c.q))
		if !slices.Equal(keys, c.keys) || self != c.self {
			t.Errorf("questionSubject(%q) = %q, %v; want %q, %v", c.q, keys, self, c.keys, c.self)
		}
	}
}

// Whose a word is in a text: the possessive before it in its clause.
func TestOwners(t *testing.T) {
	for _, c := range []struct {
		s, word string
		want    []string
	}{
		{"Mum's driving licence photo needs renewing.", "licence", []string{"@mother"}},
		{"My partner Sunil's insurance runs out in July.", "insurance", []string{"sunil"}},
		{"My car insurance renews on 3 October.", "insurance", []string{selfKey}},
		{"My sister's husband's car broke down.", "car", []string{"@sister>partner"}},
		{"The Fiesta's service is due in August.", "service", nil},
		{"Blocked everyone's drives for an hour.", "drive", []string{"@other"}},
		{"The service is due, my car needs it.", "service", nil},
		{"My manager Ines wants the figures by Friday.", "want", []string{"@boss"}},
		{"My brother Teo's van failed its MOT.", "van", []string{"teo"}},
		{"My brother-in-law's van failed its MOT.", "van", []string{"@brother-in-law"}},
		{"Priya's appointment with the optician is Monday.", "optician", []string{"priya"}},
		{"Dad's follow-up at the hospital got moved.", "hospital", []string{"@father"}},
		{"My check-up at the dentist is at 3.", "dentist", []string{selfKey}},
		{"Priya is at the optician with me.", "optician", nil},
	} {
		if got := owners(toks(c.s), []string{stem(c.word)}, stem); !slices.Equal(got, c.want) {
			t.Errorf("owners(%q, %q) = %q, want %q", c.s, c.word, got, c.want)
		}
	}
}

// The joins a sentence states between a role and a name, or two names.
func TestBindingsIn(t *testing.T) {
	for s, want := range map[string][]binding{
		"My wife Nkechi starts her new post next week.":                       {{"@partner", "nkechi"}},
		"Oksana took over as my manager when Greg left.":                      {{"oksana", "@boss"}},
		"Femi is my landlord now.":                                            {{"femi", "@landlord"}},
		"My physiotherapist is Ruairi at Northgate.":                          {{"@physio", "ruairi"}},
		"Our daughter Alexandra, Sasha to everyone, is in Year 5.":            {{"@daughter", "alexandra"}, {"alexandra", "sasha"}},
		"We met Roberto (Bobby to his friends) at the pub.":                   {{"roberto", "bobby"}},
		"Katarzyna goes by Kasia at work.":                                    {{"katarzyna", "kasia"}},
		"My grandson Maximilian, Max to all of us, plays trumpet.":            {{"@grandson", "maximilian"}, {"maximilian", "max"}},
		"Henrietta, Hen to her mates, runs the choir.":                        {{"henrietta", "hen"}},
		"My personal trainer is Dimitri Vlahos, at the leisure centre.":       {{"@trainer", "dimitri"}, {"@trainer", "vlahos"}},
		"Our neighbour Margaret, everyone calls her Peggy, keeps bees.":       {{"@neighbour", "margaret"}, {"margaret", "peggy"}},
		"Our childminder is Bernadette, though we all call her Bernie.":       {{"@childminder", "bernadette"}, {"bernadette", "bernie"}},
		"My coach Ade said the match is off.":                                 {{"@coach", "ade"}},
		"My godmother, Auntie Pam, sends a card every birthday.":              {{"@godmother", "pam"}},
		"My osteopath is Bex Hughes, she's great with backs.":                 {{"@osteopath", "bex"}, {"@osteopath", "hughes"}},
		"Rhodri is my plumber, he did the boiler.":                            {{"rhodri", "@plumber"}},
		"My car Tesla is in the garage.":                                      nil,
		"Mum's carer is Radhika, she comes every morning.":                    {{"@mother>carer", "radhika"}},
		"Dad's nurse, Olu, rang about the tablets.":                           {{"@father>nurse", "olu"}},
		"Jo's car is Blue.":                                                   nil,
		"My daughter's teacher is Mrs Abara.":                                 {{"@daughter>teacher", "abara"}},
		"Dr. Okafor said my blood pressure is fine.":                          nil,
		"My dentist is Dr Okafor at Elm Street Dental.":                       {{"@dentist", "okafor"}},
		"Our vet is Mrs Pryce at the Riverside practice.":                     {{"@vet", "pryce"}},
		"Tom and Priya came round for dinner, Priya brought a cake.":          nil,
		"Ada's grandma's nurse, Olu, rang.":                                   {{"@grandmother>nurse", "olu"}}, // the second 's
		"Mum’s carer is Radhika.":                                             {{"@mother>carer", "radhika"}},
		"My friends call him Bo.":                                             nil,
		"Roberto, Bobby to friends, is here.":                                 {{"roberto", "bobby"}},
		"My supervisor at the depot is Kwame.":                                {{"@boss", "kwame"}},
		"Our GP at the Larches is Dr Mbeki.":                                  {{"@doctor", "mbeki"}},
		"My brother in Leeds rang.":                                           nil,
		"Chukwuemeka Obi, he says everyone calls him Emeka, fixed it.":        {{"chukwuemeka", "emeka"}, {"obi", "emeka"}},
		"Anastasia Volkova goes by Stasia.":                                   {{"anastasia", "stasia"}, {"volkova", "stasia"}},
		"Yesterday Bartholomew, everyone calls him Bart, came by.":            {{"bartholomew", "bart"}},
		"Ingrid, who goes by Inge, sings alto.":                               {{"ingrid", "inge"}},
		"The new cleaner is Agnieszka. We all call her Aga.":                  {{"agnieszka", "aga"}},
		"Our lodger is Thandiwe; she goes by Thandi.":                         {{"@lodger", "thandiwe"}, {"thandiwe", "thandi"}},
		"Our allocated health visitor from the children's centre is Siobhan.": {{"@health-visitor", "siobhan"}},
		"My usual hairdresser at the Curl Up salon is Tariq.":                 {{"@hairdresser", "tariq"}},
		"My visiting nurse is Ngozi Eze.":                                     {{"@nurse", "ngozi"}, {"@nurse", "eze"}},
		"My regular cleaner with the agency is Dorota.":                       {{"@cleaner", "dorota"}},
		"My former boss Trevor retired.":                                      nil,
		"Our neighbour Radomir (the kids call him Rado) fixed the fence.":     {{"@neighbour", "radomir"}, {"radomir", "rado"}},
		"My wedding ring is in the safe.":                                     nil,
		"Our old mate Baz (Barry really) is back from Spain.":                 {{"@mate", "baz"}, {"baz", "barry"}},
		"Bex (real name Rebecca) runs the quiz.":                              {{"bex", "rebecca"}},
		"We met Gianluca (Luca) at the pub.":                                  {{"gianluca", "luca"}},
		// the name the subject of the clause before: a verb, a place
		"My cousin Oluwadamilare works at the depot, we all call him Dami.": {{"@cousin", "oluwadamilare"}, {"oluwadamilare", "dami"}},
		"Siobhan sings with us in Galway, everyone calls her Shiv.":         {{"siobhan", "shiv"}},
		"Dad's mate drives a cab, we all call him Tiny.":                    nil, // no name before: a possessive is none
		// the nickname its bearer asks for
		"The new physio is Oyelaran Bakare; he told us to call him Laran.": {{"oyelaran", "laran"}, {"bakare", "laran"}},
		"Our childminder is Margarethe. She asked me to call her Grete.":   {{"@childminder", "margarethe"}, {"margarethe", "grete"}},
	} {
		if got := bindingsIn(s); !slices.Equal(got, want) {
			t.Errorf("bindingsIn(%q) = %v, want %v", s, got, want)
		}
	}
}

// The joins profile lines state: a name the user's role, or the role a
// name, with or without a title.
func TestProfileBindings(t *testing.T) {
	for text, want := range map[string][]binding{
		"Nkechi is the user's wife.":                        {{"nkechi", "@partner"}},
		"Dr Hale is the user's dentist.":                    {{"hale", "@dentist"}},
		"The user's dentist is Dr Hale at Brookside.":       {{"hale", "@dentist"}},
		"The user's plumber is Rhodri, who did the boiler.": {{"rhodri", "@plumber"}},
		"The user is married to Sam.":                       {{"sam", "@partner"}},
		"The user's GP is Dr Halvorsen.":                    {{"halvorsen", "@doctor"}},
		"The user's car is a Fiat Panda.":                   nil,
	} {
		if got := profileBindings([]store.ProfileLine{{Text: text}}); !slices.Equal(got, want) {
			t.Errorf("profileBindings(%q) = %v, want %v", text, got, want)
		}
	}
}

// Through the store: a role the user named someone for, a nickname, a
// possessive chain and a near-miss that must not answer.
func TestSubjectPrecision(t *testing.T) {
	day := time.Date(2026, 9, 1, 9, 0, 0, 0, time.UTC)
	notes := []string{
		"My neighbour Wojciech, Wojtek to everyone, is lending us his ladder.",
		"Wojtek wants the ladder back by Sunday.",
		"Hannah from the choir wants the sheet music back by Sunday.",
		"My son's swimming lesson is on Tuesday at 5pm.",
		"My swimming lesson is on Thursday at 7am.",
		"My aunt's allotment has a waiting list of two years.",
		"My shoe size is 6.",
		"My cousin Idris takes a size 11 shoe.",
	}
	var turns []turn
	for i, n := range notes {
		turns = append(turns, turn{day.Add(time.Duration(i) * time.Hour), fmt.Sprint("s", i), "user", n, capture.Names(n)})
	}
	a := agentWith(t, turns)
	asOf := day.AddDate(0, 0, 3)
	for _, c := range []struct {
		q           string
		want, never []string
	}{
		{"What does my neighbour want back?", []string{"ladder back"}, []string{"sheet music"}},
		{"When does Wojciech want his ladder?", []string{"by Sunday"}, []string{"sheet music"}},
		{"When is my swimming lesson?", []string{"Thursday"}, []string{"Tuesday"}},
		{"When is my son's swimming lesson?", []string{"Tuesday"}, []string{"Thursday"}},
		{"What shoe size does Idris take?", []string{"size 11"}, []string{"size is 6"}}, // the user's "my" is not Idris's
	} {
		expectContext(t, a, Query{Text: c.q, AsOf: asOf}, c.want, c.never)
	}
	// Nothing stored is about my allotment: the aunt's is not the answer.
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "How long is the waiting list for my allotment?", AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	if res.Found || len(res.Items) > 0 {
		t.Errorf("my allotment: found %v, items %v", res.Found, res.Items)
	}
}

// A profile line about someone else is not offered for a question about a
// role the user holds another person in.
func TestProfileLineAboutOthers(t *testing.T) {
	day := time.Date(2026, 3, 5, 18, 0, 0, 0, time.UTC)
	a := agentWith(t, []turn{{day, "s", "user", "My brother Tomas is visiting from Vilnius next week.", []string{"Tomas", "Vilnius"}}})
	if _, _, err := a.PutProfileLines(t.Context(), []store.ProfileLine{{Category: "family", Subject: "user", Key: "sibling",
		Value: "Tomas", Text: "Tomas is the user's brother.", SourceMemoryIDs: []int64{1}, ValidFrom: day}}, day); err != nil {
		t.Fatal(err)
	}
	asOf := day.AddDate(0, 0, 1)
	expectContext(t, a, Query{Text: "What is my sister's favourite colour?", AsOf: asOf}, nil, []string{"Tomas"})
	expectContext(t, a, Query{Text: "When is my brother visiting?", AsOf: asOf}, []string{"Tomas"}, nil)
}

// An unknown person empties recall, unless another name the question uses
// is stored; an unknown place never does.
func TestUnknownPersonOrPlace(t *testing.T) {
	day := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	a := agentWith(t, []turn{
		{day, "s", "user", "Whenever you book me a hotel, I want a quiet room and breakfast included.", nil},
		{day.Add(time.Hour), "s", "user", "The conference in Lisbon starts on 3 July.", []string{"Lisbon"}},
	})
	asOf := day.AddDate(0, 0, 2)
	for _, c := range []struct {
		q     string
		found bool
	}{
		{"Find me a hotel in Tromsø for the 18th", true},
		{"What did Bogdan think of the hotel?", false},
		{"What did Bogdan think of the conference in Lisbon?", true},
	} {
		res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: c.q, AsOf: asOf})
		if err != nil {
			t.Fatal(err)
		}
		if res.Found != c.found {
			t.Errorf("%q: found %v, want %v (%s)", c.q, res.Found, c.found, res.Note)
		}
	}
}

// The question's words naming whom it asks about are no attribute of
// theirs: both roles of a chain ("my wife's brother") name the subject.
func TestNamesSubject(t *testing.T) {
	q := "Where is my wife's brother moving to?"
	r := &ranker{words: askedWords(q)}
	r.subject, _ = questionSubject(q, nil)
	if got, want := r.attrWords(), []string{"moving"}; !slices.Equal(got, want) {
		t.Errorf("attrWords(%q) = %q, want %q", q, got, want)
	}
}

// What the user says outright is their own is not a role's: asked of my
// son, "I bought myself a large helmet" is no answer, in a note or a day
// record; "I bought him a helmet" may be.
func TestSelfMarkedNotTheRoles(t *testing.T) {
	for s, want := range map[string]bool{
		"I bought myself a large ski helmet in the sale.": true,
		"I've got my own key to the allotment shed.":      true,
		"Booked a table for me at the Ivy.":               true,
		"I bought him a small ski helmet.":                false,
		"I bought myself and my son new helmets.":         false,
		"I bought a helmet in the sale.":                  false,
	} {
		if got := selfMarked(toks(s)); got != want {
			t.Errorf("selfMarked(%q) = %v, want %v", s, got, want)
		}
	}
	day := time.Date(2026, 3, 6, 10, 0, 0, 0, time.UTC)
	a := notesWithDay(t, day, "", "My daughter Wren needs size 2 wellies for nursery.", "I got myself size 6 wellies at the market.")
	expectContext(t, a, Query{Text: "What size wellies does my daughter need?", AsOf: day.AddDate(0, 0, 3)}, []string{"size 2"}, []string{"size 6"})
}

// Asked of a role of a role ("Mum's carer"), the person the user named
// for it answers, and a neighbour placed as a person ("Hamish next door")
// does not, in a note or a day record.
func TestRoleOfARoleAnswers(t *testing.T) {
	if got := placedName("Ilse next door asked to borrow the ladder."); !slices.Equal(got, []string{"Ilse"}) {
		t.Errorf("placedName = %q, want Ilse", got)
	}
	day := time.Date(2026, 3, 6, 10, 0, 0, 0, time.UTC)
	a := notesWithDay(t, day, "", "Dad's nurse is Temperance, she visits on Mondays.",
		"Temperance asked us to keep a log of his blood sugar.", "Ilse next door asked us to move the recycling bins.")
	expectContext(t, a, Query{Text: "What did Dad's nurse ask us to do?", AsOf: day.AddDate(0, 0, 3)}, []string{"blood sugar"}, []string{"recycling"})
	b := notesWithDay(t, day, "", "My son's coach is Mr Okonjo.", "Mr Okonjo said Ifan's passing has come on well.")
	expectContext(t, b, Query{Text: "What did my son's coach say?", AsOf: day.AddDate(0, 0, 3)}, []string{"passing"}, nil)
	// The chain's owner by the name the user gave them: "our daughter
	// Saoirse", so "Saoirse's tutor" is our daughter's tutor.
	c := notesWithDay(t, day, "", "Our daughter Saoirse has settled in at the new school.",
		"Saoirse's tutor this term is Mrs Adeyemi, very strict.", "My yoga teacher Lakshmi moved the class to Thursdays.",
		"Missed the call from the bank again.")
	expectContext(t, c, Query{Text: "What's our daughter's tutor called?", AsOf: day.AddDate(0, 0, 3)},
		[]string{"Adeyemi"}, []string{"Lakshmi"})
}

// TestNamingVerbIsNoWord: "what is X called?" asks X's name; "called"
// elsewhere is a word.
func TestNamingVerbIsNoWord(t *testing.T) {
	for q, want := range map[string]bool{
		"What's my son's teacher called?":        false,
		"what is the new vet named":              false,
		"Who called me about the boiler?":        true,
		"When was I called in for the interview": true,
	} {
		if got := slices.Contains(askedWords(q), "called") || slices.Contains(askedWords(q), "named"); got != want {
			t.Errorf("askedWords(%q) holds the naming verb: %v, want %v (%q)", q, got, want, askedWords(q))
		}
	}
}

// A kinship word and the chain it stands for name one person, asked either
// way: "my father-in-law" is "my husband's dad, Cyprian", "my sister's
// husband" is "my brother-in-law Osei"; "my own dad" is not either.
func TestKinshipChainsAreOnePerson(t *testing.T) {
	for _, c := range []struct {
		k    string
		want []string
	}{
		{"@father-in-law", []string{"@partner>father"}},
		{"@partner>father", []string{"@father-in-law"}},
		{"@sister>partner", []string{"@brother-in-law"}},
		{"@brother>daughter", []string{"@niece"}},
		{"@grandmother", []string{"@mother>mother", "@father>mother"}},
		{"@sister", nil},
		{"cyprian", nil},
		{"@in-laws", []string{"@partner>parents", "@partner>mother", "@partner>father", "@mother-in-law", "@father-in-law", "@brother-in-law", "@sister-in-law"}},
		{"@children", []string{"@son", "@daughter", "@stepson", "@stepdaughter"}},
		{"@parents", []string{"@mother", "@father", "@stepmother", "@stepfather"}},
		{"@grandparents", []string{"@grandmother", "@grandfather"}},
	} {
		if got := kinOf(c.k); !slices.Equal(got, c.want) {
			t.Errorf("kinOf(%q) = %q, want %q", c.k, got, c.want)
		}
	}
	day := time.Date(2026, 2, 2, 10, 0, 0, 0, time.UTC)
	a := notesWithDay(t, day, "", "My own dad is having his cataract done in March.",
		"My husband's dad, Cyprian, is having his shoulder operation on 9 April.",
		"My brother-in-law Osei lent us his pressure washer.", "My cousin Femi lent us a gazebo.")
	asOf := day.AddDate(0, 0, 3)
	expectContext(t, a, Query{Text: "When is my father-in-law's operation?", AsOf: asOf}, []string{"9 April"}, []string{"cataract"})
	expectContext(t, a, Query{Text: "Which tool has my sister's husband lent us?", AsOf: asOf}, []string{"pressure washer"}, []string{"gazebo"})
}

// A standard short form names the person its full name does, and the
// reverse; one short form is not another, and a short form that is also a
// word ("bill") names nobody in lower case.
func TestShortFormsOfANameAreOnePerson(t *testing.T) {
	if got := otherForms("Anthony"); !slices.Equal(got, []string{"tony"}) {
		t.Errorf("otherForms(Anthony) = %q", got)
	}
	if got := otherForms("betty"); !slices.Equal(got, []string{"elizabeth"}) {
		t.Errorf("otherForms(betty) = %q", got)
	}
	day := time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)
	a := notesWithDay(t, day, "", "William Okoro runs the allotment committee.",
		"Bill says the allotment water troughs are being fixed on Friday.",
		"Paid the allotment water bill, £40.", "Horace says the allotment shed needs a new lock.")
	asOf := day.AddDate(0, 0, 3)
	expectContext(t, a, Query{Text: "What did William say about the allotment?", AsOf: asOf}, []string{"troughs"}, []string{"shed"})
	b := notesWithDay(t, day, "", "Tony says the residents' barbecue is on the green.", "Tom says the residents' barbecue was rained off last year.")
	expectContext(t, b, Query{Text: "What did Anthony say about the residents' barbecue?", AsOf: asOf}, []string{"on the green"}, []string{"rained off"})
	// told of by pronouns of two sexes, the two forms are two people
	c := notesWithDay(t, day, "", "Sam's coach gets in at 4:10 on Friday, I'll meet her at the bus station.",
		"Samuel is driving up on Friday, he'll be here by seven.")
	expectContext(t, c, Query{Text: "When do I meet Sam on Friday?", AsOf: asOf}, []string{"4:10"}, []string{"by seven"})
	d := notesWithDay(t, day, "", "Sam's coach gets in at 4:10 on Friday, I'll meet him at the bus station.",
		"Samuel is driving back on Sunday, he'll be home by seven.")
	expectContext(t, d, Query{Text: "When is Samuel driving back?", AsOf: asOf}, []string{"by seven"}, nil)
}

// sexOf reads the first pronoun after a name in each text naming it; two
// sexes told of one name tell nothing.
func TestSexOf(t *testing.T) {
	for _, c := range []struct {
		n     string
		texts []string
		want  int
	}{
		{"lou", []string{"Lou lands at six, I'll pick her up."}, 2},
		{"louis", []string{"Louis is coming by train, he gets in at 9."}, 1},
		{"lou", []string{"Lou lands at six.", "Louis says he is late."}, 0},
		{"lou", []string{"Lou lands at six, I'll pick her up.", "Lou said he would ring."}, 0},
	} {
		if got := sexOf(c.n, c.texts); got != c.want {
			t.Errorf("sexOf(%q, %q) = %d, want %d", c.n, c.texts, got, c.want)
		}
	}
}

// A text opened by "our" or "my" and a family member's name is theirs:
// "which gigs have I been to?" is not answered by "Our Kit went to see …".
func TestOpenedByAFamilyName(t *testing.T) {
	for _, c := range []struct {
		s    string
		want bool
	}{
		{"Our Kit went to see Fontaines at the Academy with his mates.", true},
		{"My Ffion has a netball match on Saturday.", true},
		{"Our Kit and I went to see Fontaines at the Academy.", false},
		{"Our Tesla needs new tyres.", false}, // a car, though capture reads a name
		{"My WFH days are Monday and Friday.", false},
		{"My sister Olwen went to the Academy.", true},
	} {
		if got := openedByOther(toks(c.s), lowerAll(capture.Names(c.s))); got != c.want {
			t.Errorf("openedByOther(%q) = %v, want %v (names %q)", c.s, got, c.want, capture.Names(c.s))
		}
	}
	day := time.Date(2026, 6, 1, 20, 0, 0, 0, time.UTC)
	a := notesWithDay(t, day, "", "Saw Blondie at the Roundhouse, brilliant gig.", "Our Kit went to see Fontaines at the Academy with his mates.")
	expectContext(t, a, Query{Text: "Which gigs have I been to?", AsOf: day.AddDate(0, 0, 5)}, []string{"Blondie"}, []string{"Fontaines"})
}

// toks reads each word as a slice of its text; it splits as reading the
// text rune by rune does (toksByRune): in capitals, lower case, accented,
// with marks, digits, apostrophes, possessives, breaks and bytes that are
// not UTF-8.
func TestToksSplitAsByRune(t *testing.T) {
	for _, s := range append(slices.Clone(fuzzLife), "", "'s", "’", "Sunil's", "WFH, ok?", "A", "OK", "ÉCOLE école",
		"Zoë’s café (the one on Rue d’Éte) — 3rd", "e\u0301te\u0301 NAÏVE", "au pair Wilhelmina's; the Dog Walker.",
		"bad \xff\xfebytes's and \xc3 here", "we're 'quoted' ’s’", "x2 2X 42's ΣΊΣΥΦΟΣ σίσυφος", "İstanbul ǅemal") {
		got, want := toks(s), joinPairRoles(toksByRune(s))
		if !slices.Equal(got, want) {
			t.Errorf("toks(%q) =\n %+v, want\n %+v", s, got, want)
		}
	}
}

// toksByRune is toks as first written: each word gathered rune by rune.
func toksByRune(s string) []tok {
	var out []tok
	brk := true
	var cur []rune
	flush := func() {
		if len(cur) == 0 {
			return
		}
		w := string(cur)
		t := tok{upper: unicode.IsUpper(cur[0]), caps: len(cur) > 1 && !slices.ContainsFunc(cur, unicode.IsLower), brk: brk}
		for _, suf := range []string{"'s", "’s", "'", "’"} {
			if strings.HasSuffix(w, suf) && len(w) > len(suf) {
				w, t.poss = strings.TrimSuffix(w, suf), suf == "'s" || suf == "’s"
				break
			}
		}
		t.low = strings.ToLower(w)
		out = append(out, t)
		cur, brk = nil, false
	}
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || (r == '\'' || r == '’') && len(cur) > 0:
			cur = append(cur, r)
		default:
			flush()
			if strings.ContainsRune(",;.!?:()—–", r) {
				brk = true
			}
		}
	}
	flush()
	return out
}

// occupation's set is every word whose kinds in the lexicon hold the
// occupation mark, and no other.
func TestOccupationIsTheLexiconsMark(t *testing.T) {
	marked := func(w string) bool {
		ks, _ := wordnet.Kinds.Lookup(w)
		return slices.Contains(slices.Collect(ks.All()), "=role")
	}
	n := 0
	for w := range wordnet.Kinds.All() {
		if occupation(w) != marked(w) {
			t.Errorf("occupation(%q) = %v, the lexicon says %v", w, occupation(w), marked(w))
		}
		n++
	}
	for _, w := range []string{"osteopath", "plumber", "nurse", "Plumber", "plumbers", "", "=role", "xyzzy"} {
		if occupation(w) != marked(w) {
			t.Errorf("occupation(%q) = %v, the lexicon says %v", w, occupation(w), marked(w))
		}
	}
	if !occupation("osteopath") || n < 10000 {
		t.Errorf("osteopath an occupation: %v; %d words read", occupation("osteopath"), n)
	}
}

// Asked what one of two people said, the speaker is whom it asks of: the
// other one's other news is not the answer.
func TestSpeakerAsked(t *testing.T) {
	people := []string{"fenella", "oscar"}
	for q, want := range map[string][]string{
		"What did Fenella say Oscar needs for school?": {"fenella"},
		"What does Fenella think of Oscar's new coat?": {"fenella"},
		"What did Fenella and Oscar buy?":              {"fenella", "oscar"},
		"What did Fenella's son Oscar say?":            {"fenella", "oscar"},
		"When did Fenella take Oscar to the dentist?":  {"fenella", "oscar"},
	} {
		if got := speakerAsked(q, people, people); !slices.Equal(got, want) {
			t.Errorf("speakerAsked(%q) = %v, want %v", q, got, want)
		}
	}
	a := agentWith(t, []turn{
		{day0, "s1", "user", "Fenella says Oscar needs new PE shoes, size 2.", []string{"Fenella", "Oscar"}},
		{day0.Add(time.Hour), "s2", "user", "Mrs Hart, Oscar's teacher, said he needs a recorder for music.", []string{"Hart", "Oscar"}},
	})
	expectContext(t, a, Query{Text: "What did Fenella say Oscar needs?", AsOf: day0.AddDate(0, 0, 2)}, []string{"PE shoes"}, []string{"recorder"})
}
