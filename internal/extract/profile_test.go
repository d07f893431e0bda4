package extract

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// describeLine is a line as the golden files and table tests show it.
func describeLine(l store.ProfileLine) string {
	end := ""
	if !l.ValidTo.IsZero() {
		end = " (until " + l.ValidTo.Format(time.DateOnly) + ")"
	}
	return fmt.Sprintf("%s %s/%s=%q: %s%s", l.Category, l.Subject, l.Key, l.Value, l.Text, end)
}

func claimsOf(t *testing.T, role, content string) []string {
	t.Helper()
	m := store.Memory{ID: 1, Role: role, Content: content, Timestamp: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)}
	var out []string
	for _, l := range ProfileLines([]store.Memory{m}, nil) {
		out = append(out, describeLine(l))
	}
	return out
}

// TestProfileRules: each category's shapes, in varied wording, and the
// sentences that must yield nothing (someone else's, a one-off, a
// hypothetical, a denial, an agent's words).
func TestProfileRules(t *testing.T) {
	for _, tc := range []struct {
		say  string
		want []string
	}{
		// identity and contact
		{"My name is Jo Harper.", []string{`identity user/name="Jo Harper": The user's name is Jo Harper.`}},
		{"Call me Sam, everyone does.", []string{`identity user/name="Sam": The user's name is Sam.`}},
		{"My birthday is on 14 March.", []string{`identity user/birthday="14 March": The user's birthday is 14 March.`}},
		{"My birthday is next week.", nil},
		{"New number: 0687 123 456", []string{`contact user/phone="0687 123 456": The user's phone number is 0687 123 456.`}},
		{"My mobile number is +44 7700 900123.", []string{`contact user/phone="+44 7700 900123": The user's phone number is +44 7700 900123.`}},
		{"My email is jo@example.com.", []string{`contact user/email="jo@example.com": The user's email address is jo@example.com.`}},
		// home
		{"We moved to 14 Elm Road, Bristol.", []string{`home user/address="14 Elm Road, Bristol": The user lives at 14 Elm Road, Bristol.`}},
		{"We just moved to Lisbon.", []string{`home user/city="Lisbon": The user lives in Lisbon.`}},
		{"We've moved from Porto to Braga, closer to work.", []string{`home user/city="Braga": The user lives in Braga.`}},
		{"I live in Utrecht with two flatmates.", []string{`home user/city="Utrecht": The user lives in Utrecht.`}},
		{"I'm on CET now.", []string{`home user/timezone="CET": The user's time zone is CET.`}},
		{"I'm on IT support this week.", nil},
		{"Our rent is now £1,450 a month.", []string{`home user/rent="£1,450 a month": The user's rent is £1,450 a month.`}},
		// work
		{"I'm a structural engineer at Arup.", []string{
			`work user/job_title="structural engineer": The user is a structural engineer.`,
			`work user/employer="Arup": The user works at Arup.`}},
		{"Since I work at Siemens I'll take the early train.", []string{`work user/employer="Siemens": The user works at Siemens.`}},
		{"Because I work for Ipsos I'm always on calls.", []string{`work user/employer="Ipsos": The user works at Ipsos.`}},
		{"I work for Mott MacDonald and love it.", []string{`work user/employer="Mott MacDonald": The user works at Mott MacDonald.`}},
		{"I just left Arup for Atkins.", []string{
			`work user/employer="Arup": The user worked at Arup. (until 2026-05-04)`,
			`work user/employer="Atkins": The user works at Atkins.`}},
		{"I left Dunmore Bank and joined Pellow Labs in May.", []string{
			`work user/employer="Dunmore Bank": The user worked at Dunmore Bank. (until 2026-05-04)`,
			`work user/employer="Pellow Labs": The user works at Pellow Labs.`}},
		{"I got promoted to senior engineer today!", []string{`work user/job_title="senior engineer": The user works as a senior engineer.`}},
		{"I've been made up to team leader, eight people under me.", []string{`work user/job_title="team leader": The user works as a team leader.`}},
		{"I've just stepped up to store manager this month.", []string{`work user/job_title="store manager": The user works as a store manager.`}},
		{"My boss Priya signed off the plan.", []string{`work user/manager="Priya": Priya is the user's manager.`}},
		{"I report to Hannah Okafor now.", []string{`work user/manager="Hannah Okafor": Hannah Okafor is the user's manager.`}},
		{"my boss approved it", nil},
		{"I joined Maya for lunch.", nil},
		{"My colleague Tom is off sick.", []string{`work user/colleague="Tom": Tom is the user's colleague.`}},
		{"I don't work at Arup any more.", nil},
		// family
		{"My wife Sam is in Leeds.", []string{`family user/partner="Sam": Sam is the user's wife.`}},
		{"I'm married to Alex.", []string{`family user/partner="Alex": The user is married to Alex.`}},
		{"Dropped Maya at nursery this morning.", []string{`family user/child="Maya": Maya is the user's child; Maya goes to nursery.`}},
		{"I picked Leo up from school.", []string{`family user/child="Leo": Leo is the user's child; Leo goes to school.`}},
		{"My son Leo is five.", []string{`family user/child="Leo": Leo is the user's son.`}},
		{"My sister Ana lives in Porto.", []string{`family user/sibling="Ana": Ana is the user's sister.`}},
		{"My friend Dani is visiting.", []string{`family Dani/relation="friend": Dani is the user's friend.`}},
		{"That is not my brother Tom.", nil},
		// pets
		{"Walked Rex, our labrador, in the rain.", []string{`pets user/pet="Rex": Rex is the user's labrador (a dog).`}},
		{"Our cat Miso knocked over a glass.", []string{`pets user/pet="Miso": Miso is the user's cat.`}},
		{"My beagle Biscuit ate a sock.", []string{`pets user/pet="Biscuit": Biscuit is the user's beagle (a dog).`}},
		{"My friend Biscuit ate a sock.", []string{`family Biscuit/relation="friend": Biscuit is the user's friend.`}},
		// health
		{"I'm allergic to penicillin and latex.", []string{
			`health user/allergy="penicillin": The user is allergic to penicillin.`,
			`health user/allergy="latex": The user is allergic to latex.`}},
		{"I have a severe shellfish allergy.", []string{`health user/allergy="shellfish": The user is allergic to shellfish.`}},
		{"I have a shellfish allergy.", []string{`health user/allergy="shellfish": The user is allergic to shellfish.`}},
		{"I'm not allergic to cats.", []string{`health user/allergy="cats": The user is allergic to cats. (until 2026-05-04)`}},
		{"Turns out I'm not allergic to penicillin after all.", []string{`health user/allergy="penicillin": The user is allergic to penicillin. (until 2026-05-04)`}},
		{"I'm not allergic to anything.", nil},
		{"I'm also allergic to shellfish.", []string{`health user/allergy="shellfish": The user is allergic to shellfish.`}},
		{"Important, never forget: I'm allergic to penicillin.", []string{`health user/allergy="penicillin": The user is allergic to penicillin.`}},
		{"Good news: I'm no longer allergic to birch pollen!", []string{`health user/allergy="birch pollen": The user is allergic to birch pollen. (until 2026-05-04)`}},
		{"Maya is allergic to peanuts and sesame.", []string{
			`health Maya/allergy="peanuts": Maya is allergic to peanuts.`,
			`health Maya/allergy="sesame": Maya is allergic to sesame.`}},
		{"Since I'm allergic to sesame I always ask about the bread.", []string{`health user/allergy="sesame": The user is allergic to sesame.`}},
		{"I'm allergic to plasters, ibuprofen and wasp stings.", []string{
			`health user/allergy="plasters": The user is allergic to plasters.`,
			`health user/allergy="ibuprofen": The user is allergic to ibuprofen.`,
			`health user/allergy="wasp stings": The user is allergic to wasp stings.`}},
		{"I'm allergic to moulds, feathers, or wool.", []string{
			`health user/allergy="moulds": The user is allergic to moulds.`,
			`health user/allergy="feathers": The user is allergic to feathers.`,
			`health user/allergy="wool": The user is allergic to wool.`}},
		{"I'm allergic to codeine, which the GP and the dentist both know.", []string{`health user/allergy="codeine": The user is allergic to codeine.`}},
		// a condition named by its adjective
		{"I'm epileptic, so no strobe lights please.", []string{`health user/condition="epilepsy": The user has epilepsy.`}},
		{"Since I'm type 2 diabetic I skip dessert.", []string{`health user/condition="type 2 diabetes": The user has type 2 diabetes.`}},
		{"I'm asthmatic.", []string{`health user/condition="asthma": The user has asthma.`}},
		{"I'm celiac these days.", []string{`health user/condition="celiac disease": The user has celiac disease.`}},
		{"I'm not anaemic any more.", nil},
		{"Since I'm pescatarian I'll have the cod.", []string{`diet user/diet="pescatarian": The user is pescatarian.`}},
		{"I'm allergic to penicillin, so tell the pharmacy.", []string{`health user/allergy="penicillin": The user is allergic to penicillin.`}},
		// A list that runs on into a clause of its subject's ends there.
		{"Marisol is allergic to peanuts and carries an EpiPen everywhere.", []string{`health Marisol/allergy="peanuts": Marisol is allergic to peanuts.`}},
		{"I'm allergic to cats and have to take antihistamines.", []string{`health user/allergy="cats": The user is allergic to cats.`}},
		{"I'm allergic to penicillin and latex and always carry a card.", []string{
			`health user/allergy="penicillin": The user is allergic to penicillin.`,
			`health user/allergy="latex": The user is allergic to latex.`}},
		{"I'm allergic to kiwi and get hives.", []string{`health user/allergy="kiwi": The user is allergic to kiwi.`}},
		{"I'm allergic to bee stings and tree nuts.", []string{
			`health user/allergy="bee stings": The user is allergic to bee stings.`,
			`health user/allergy="tree nuts": The user is allergic to tree nuts.`}},
		{"I'm intolerant to lactose and get bloated.", []string{`health user/intolerance="lactose": The user is intolerant to lactose.`}},
		{"I hate coriander, keep it off the lunch orders.", []string{`preference user/preference="dislikes coriander": The user dislikes coriander.`}},
		{"I have football every Tuesday at 6, so no meetings after 5.", []string{`routine user/routine="have football every Tuesday at 6": The user has football every Tuesday at 6.`}},
		{"My phone number is 07700 900123 if the courier needs it.", []string{`contact user/phone="07700 900123": The user's phone number is 07700 900123.`}},
		{"I'm lactose intolerant so no cheese please.", []string{`health user/intolerance="lactose": The user is lactose intolerant.`}},
		{"I'm taking naproxen for my knee.", []string{`health user/medication="naproxen": The user takes naproxen.`}},
		{"I take Metformin twice a day.", []string{`health user/medication="metformin": The user takes metformin.`}},
		{"I stopped taking sertraline last month.", []string{`health user/medication="sertraline": The user no longer takes sertraline. (until 2026-05-04)`}},
		{"I'm taking Friday off.", nil},
		{"I've been diagnosed with type 2 diabetes.", []string{`health user/condition="type 2 diabetes": The user has type 2 diabetes.`}},
		{"I have asthma and hay fever.", []string{`health user/condition="asthma": The user has asthma.`}},
		{"I suffer from migraines since 2019.", []string{`health user/condition="migraines": The user has migraines.`}},
		{"I have a cold today.", nil},
		{"I have a meeting at 3.", nil},
		// diet
		{"I'm vegetarian these days.", []string{`diet user/diet="vegetarian": The user is vegetarian.`}},
		{"I'm no longer vegan.", []string{`diet user/diet="vegan": The user is no longer vegan. (until 2026-05-04)`}},
		{"I don't eat pork.", []string{`diet user/diet="no pork": The user does not eat pork.`}},
		{"We've gone vegan since the new year.", []string{`diet user/diet="vegan": The user is vegan.`}},
		{"I've cut out dairy and eggs as well, so vegan now.", []string{`diet user/diet="vegan": The user is vegan.`}},
		{"We stopped buying meat in January, so we're vegetarian.", []string{`diet user/diet="vegetarian": The user is vegetarian.`}},
		{"Tom eats fish, so pescatarian I guess.", nil},
		{"I became pescatarian and I no longer eat beef.", []string{`diet user/diet="pescatarian": The user is pescatarian.`}},
		{"I no longer eat fish.", []string{`diet user/diet="no fish": The user does not eat fish.`}},
		// work, changed
		{"I started my new job at Harlow Foods today.", []string{`work user/employer="Harlow Foods": The user works at Harlow Foods.`}},
		// vehicle
		{"Picked up the new Skoda Octavia from the dealer.", []string{`vehicle user/car="Skoda Octavia": The user drives a Skoda Octavia.`}},
		{"I drive a Golf.", []string{`vehicle user/car="Golf": The user drives a Golf.`}},
		{"Bought a new Dyson today.", nil},
		// an ownership said with a colour, a year or a size before the make
		{"I drive a battered old grey Kia Picanto.", []string{`vehicle user/car="Kia Picanto": The user drives a Kia Picanto.`}},
		{"I ride a matt black Ducati Monster to work.", []string{`vehicle user/car="Ducati Monster": The user rides a Ducati Monster.`}},
		{"We've got a 2019 Vauxhall Zafira for the school run.", []string{`vehicle user/car="Vauxhall Zafira": The user drives a Vauxhall Zafira.`}},
		{"My car's a little blue Fiat 500.", []string{`vehicle user/car="Fiat 500": The user drives a Fiat 500.`}},
		{"We've got a new Dyson hoover.", nil},
		{"I ride a horse called Biscuit.", nil},
		{"I drive a lot for Deliveroo.", nil},
		// preferences and standing rules
		{"Never book me on flights before 9am.", []string{`preference user/rule="never book the user on flights before 9am": The user's standing rule: never book the user on flights before 9am.`}},
		{"Please always copy Priya on invoices.", []string{`preference user/rule="always copy Priya on invoices": The user's standing rule: always copy Priya on invoices.`}},
		{"Don't ever schedule calls on Fridays.", []string{`preference user/rule="never schedule calls on Fridays": The user's standing rule: never schedule calls on Fridays.`}},
		{"Always fun to see you.", nil},
		{"Never had the time to go there.", nil},
		{"Always here if you need me.", nil},
		{"Never say never.", nil},
		{"Always remember to water the ferns before a trip.", []string{`preference user/rule="always remember to water the ferns before a trip": The user's standing rule: always remember to water the ferns before a trip.`}},
		{"I love your garden so much.", nil},
		{"I love the way the cake turned out.", nil},
		{"I love having you around.", nil},
		{"I love board games so much.", []string{`preference user/preference="loves board games": The user loves board games.`}},
		{"My daughter Sara's school called.", []string{`family user/child="Sara": Sara is the user's daughter.`}},
		{"My neighbour O'Brien fixed the fence.", []string{`family O'Brien/relation="neighbour": O'Brien is the user's neighbour.`}},
		{"Never mind, found it.", nil},
		{"I love hiking in the Alps.", []string{`preference user/preference="loves hiking in the Alps": The user loves hiking in the Alps.`}},
		{"I hate coriander.", []string{`preference user/preference="dislikes coriander": The user dislikes coriander.`}},
		{"I love it when you do that.", nil},
		// routines
		{"I have football every Tuesday at 6.", []string{`routine user/routine="have football every Tuesday at 6": The user has football every Tuesday at 6.`}},
		{"I go swimming on Saturdays with my brother.", []string{`routine user/routine="go swimming on Saturdays with my brother": The user goes swimming on Saturdays with their brother.`}},
		{"I had piano lessons every Monday as a kid.", nil},
		// never a profile line
		{"If I were allergic to penicillin I would know.", nil},
		{"I might start taking ibuprofen.", nil},
		{"Am I allergic to penicillin?", nil},
		{"I used to work at Arup.", nil},
	} {
		if diff := cmp.Diff(tc.want, claimsOf(t, "user", tc.say)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.say, diff)
		}
	}
}

// TestProfileSpeakers: an agent's words make no line; a named speaker's
// (a chat log's) make lines about them.
func TestProfileSpeakers(t *testing.T) {
	if got := claimsOf(t, "assistant", "I'm allergic to penicillin."); got != nil {
		t.Errorf("an agent's sentence made %q", got)
	}
	want := []string{`health Caroline/allergy="penicillin": Caroline is allergic to penicillin.`}
	if diff := cmp.Diff(want, claimsOf(t, "Caroline", "I'm allergic to penicillin.")); diff != "" {
		t.Errorf("a named speaker (-want +got):\n%s", diff)
	}
	// Between people, an imperative is advice to the other, not a standing
	// instruction to the assistant.
	if got := claimsOf(t, "Caroline", "Never book flights before 9am."); got != nil {
		t.Errorf("a named speaker's imperative made %q", got)
	}
}

// TestProfileLinesFromFacts: a fact about a person's profile key that no
// rule covered yields a line; one about a thing, or with a value of the
// wrong shape, does not; a rule's line for the same memory wins.
func TestProfileLinesFromFacts(t *testing.T) {
	at := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	mems := []store.Memory{{ID: 7, Role: "user", Content: "My phone number is 0612 345 678.", Timestamp: at}}
	facts := []store.Fact{
		{Entity: "user", EntityType: "person", Attribute: "phone number", Value: "0612 345 678", SourceMemoryIDs: []int64{7}, ValidFrom: at},
		{Entity: "user", EntityType: "person", Attribute: "email address", Value: "jo@example.org", SourceMemoryIDs: []int64{8}, ValidFrom: at},
		{Entity: "user", EntityType: "person", Attribute: "home address", Value: "somewhere nice", SourceMemoryIDs: []int64{9}, ValidFrom: at},
		{Entity: "rent", EntityType: "thing", Attribute: "amount", Value: "900", SourceMemoryIDs: []int64{10}, ValidFrom: at},
		{Entity: "user", EntityType: "person", Attribute: "partner", Value: "Julia", SourceMemoryIDs: []int64{11}, ValidFrom: at},
		{Entity: "user", EntityType: "person", Attribute: "job_title", Value: "lead designer", SourceMemoryIDs: []int64{12}, ValidFrom: at},
		{Entity: "user", EntityType: "person", Attribute: "partner", Value: "someone, she said", SourceMemoryIDs: []int64{13}, ValidFrom: at},
		{Entity: "user", EntityType: "person", Attribute: "salary", Value: "58,500 a year", SourceMemoryIDs: []int64{14}, ValidFrom: at},
		{Entity: "user", EntityType: "person", Attribute: "wage", Value: "a decent one", SourceMemoryIDs: []int64{15}, ValidFrom: at},
	}
	var got []string
	for _, l := range ProfileLines(mems, facts) {
		got = append(got, describeLine(l)+fmt.Sprint(l.SourceMemoryIDs))
	}
	want := []string{
		`contact user/phone="0612 345 678": The user's phone number is 0612 345 678.[7]`,
		`contact user/email="jo@example.org": The user's email address is jo@example.org.[8]`,
		`family user/partner="Julia": The user's partner is Julia.[11]`,
		`work user/job_title="lead designer": The user is a lead designer.[12]`,
		`work user/salary="58,500 a year": The user's salary is 58,500 a year.[14]`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

// FuzzProfileLines: whatever a person says, the rules yield only lines the
// store accepts, of the profile's vocabulary, citing the memory.
func FuzzProfileLines(f *testing.F) {
	for _, s := range []string{"I'm allergic to penicillin and latex.", "Walked Rex, our labrador.",
		"I just left Arup for Atkins.", "Never book me on flights before 9am.", "I have football every Tuesday at 6."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		m := store.Memory{ID: 3, Role: "user", Content: content, Timestamp: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)}
		for _, l := range ProfileLines([]store.Memory{m}, nil) {
			if err := store.CheckProfileLine(l); err != nil || profileCategory[l.Key] != l.Category ||
				len(l.SourceMemoryIDs) != 1 || l.SourceMemoryIDs[0] != 3 {
				t.Fatalf("line %+v (%v) of %q", l, err, content)
			}
		}
	})
}
