package extract

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestProviderRules: the everyday providers, by any name of their key in
// the vocabulary, said as a statement, a switch or a service, and the
// sentences that name no provider of the speaker's.
func TestProviderRules(t *testing.T) {
	for _, tc := range []struct {
		say  string
		want []string
	}{
		{"My dentist is Dr Okafor.", []string{`providers user/dentist="Dr Okafor": The user's dentist is Dr Okafor.`}},
		{"My dentist's Dr. Okafor at Ashgrove Dental.", []string{`providers user/dentist="Dr. Okafor": The user's dentist is Dr. Okafor at Ashgrove Dental.`}},
		{"Ashgrove shut, so my dentist is now Dr Varga at Parkside.", []string{`providers user/dentist="Dr Varga": The user's dentist is Dr Varga at Parkside.`}},
		{"Our new dentist is Dr Hale.", []string{`providers user/dentist="Dr Hale": The user's dentist is Dr Hale.`}},
		{"We switched dentists to Dr Hale at Brookside.", []string{`providers user/dentist="Dr Hale": The user's dentist is Dr Hale at Brookside.`}},
		{"I've changed my dentist to Dr Mensah.", []string{`providers user/dentist="Dr Mensah": The user's dentist is Dr Mensah.`}},
		{"Our vet is at Riverside.", []string{`providers user/vet="Riverside": The user's vet is at Riverside.`}},
		{"Our vets are Riverside Veterinary Clinic.", []string{`providers user/vet="Riverside Veterinary Clinic": The user's vet is Riverside Veterinary Clinic.`}},
		{"We moved vets to Oakfield last month.", []string{`providers user/vet="Oakfield": The user's vet is Oakfield.`}},
		{"The GP surgery is Parkway Medical Centre.", []string{`providers user/doctor="Parkway Medical Centre": The user's GP surgery is Parkway Medical Centre.`}},
		{"My GP is Dr Shah.", []string{`providers user/doctor="Dr Shah": The user's GP is Dr Shah.`}},
		{"My family doctor is Dr Byrne.", []string{`providers user/doctor="Dr Byrne": The user's family doctor is Dr Byrne.`}},
		{"Our plumber is Dave Rees.", []string{`providers user/plumber="Dave Rees": The user's plumber is Dave Rees.`}},
		{"Our electrician is Sparks & Co.", []string{`providers user/electrician="Sparks & Co": The user's electrician is Sparks & Co.`}},
		{"My bank is Monzo.", []string{`providers user/bank="Monzo": The user's bank is Monzo.`}},
		{"I bank with Nationwide.", []string{`providers user/bank="Nationwide": The user's bank is Nationwide.`}},
		{"We switched banks to Starling.", []string{`providers user/bank="Starling": The user's bank is Starling.`}},
		{"We're with Octopus for energy.", []string{`providers user/energy_supplier="Octopus": The user's energy supplier is Octopus.`}},
		{"We've switched to Brightwave for the internet, it's 25 a month.", []string{`providers user/broadband="Brightwave": The user's broadband is Brightwave.`}},
		{"I moved to Octopus for gas and electricity.", []string{`providers user/energy_supplier="Octopus": The user's energy supplier is Octopus.`}},
		{"Our broadband is with Zentrix Fibre.", []string{`providers user/broadband="Zentrix Fibre": The user's broadband is with Zentrix Fibre.`}},
		{"I'm now with Zen for broadband.", []string{`providers user/broadband="Zen": The user's broadband is Zen.`}},
		{"Our energy supplier is Ecotricity.", []string{`providers user/energy_supplier="Ecotricity": The user's energy supplier is Ecotricity.`}},
		{"Our broadband provider is Plusnet.", []string{`providers user/broadband="Plusnet": The user's broadband provider is Plusnet.`}},
		{"My mobile network is Giffgaff.", []string{`providers user/mobile_network="Giffgaff": The user's mobile network is Giffgaff.`}},
		{"My optician is Specsavers on the high street.", []string{`providers user/optician="Specsavers": The user's optician is Specsavers.`}},
		{"My physio is Ana Lopes.", []string{`providers user/physio="Ana Lopes": The user's physio is Ana Lopes.`}},
		{"Our dog walker is Priti.", []string{`providers user/dog_walker="Priti": The user's dog walker is Priti.`}},
		{"My hairdresser is Carla at Snips.", []string{`providers user/hairdresser="Carla": The user's hairdresser is Carla at Snips.`}},
		{"Our car mechanic is Hillside Motors.", []string{`providers user/mechanic="Hillside Motors": The user's car mechanic is Hillside Motors.`}},
		{"My accountant is Jo Pike.", []string{`providers user/accountant="Jo Pike": The user's accountant is Jo Pike.`}},
		{"Our insurer is Aviva.", []string{`providers user/insurer="Aviva": The user's insurer is Aviva.`}},
		{"Our gardener is Tom.", []string{`providers user/gardener="Tom": The user's gardener is Tom.`}},
		{"Our new plumber, Sam Ortiz, fixed the leak.", []string{`providers user/plumber="Sam Ortiz": The user's plumber is Sam Ortiz.`}},
		{"My GP Dr Rao signed me off.", []string{`providers user/doctor="Dr Rao": The user's GP is Dr Rao.`}},
		{"Our window cleaner is Pete.", []string{`providers user/window_cleaner="Pete": The user's window cleaner is Pete.`}},
		{"Our cleaner is Marta, she comes on Thursdays.", []string{`providers user/cleaner="Marta": The user's cleaner is Marta.`}},
		{"We use Greenfingers for the garden.", []string{`providers user/gardener="Greenfingers": The user's gardener is Greenfingers.`}},
		{"Our energy is with EDF.", []string{`providers user/energy_supplier="EDF": The user's energy supplier is EDF.`}},
		{"We're with Vodafone for our phones.", []string{`providers user/mobile_network="Vodafone": The user's mobile network is Vodafone.`}},
		{"I'm registered with Dr Khan at the Elms Surgery.", []string{`providers user/doctor="Dr Khan": The user's GP is Dr Khan at Elms Surgery.`}},
		{"We've registered at Oakfield Vets.", []string{`providers user/vet="Oakfield Vets": The user's vet is Oakfield Vets.`}},
		{"We changed GP to the Elms Surgery.", []string{`providers user/doctor="Elms Surgery": The user's GP is Elms Surgery.`}},
		// No provider of the speaker's, or no provider at all.
		{"My phone is with Dad.", nil},
		{"We use Slack for work.", nil},
		{"The kids' dentist is Dr Moss.", nil},
		{"My husband's dentist is Dr Moss.", nil},
		{"My dentist appointment, Monday at 3, is booked.", nil},
		{"Our dentist moved to Leeds.", nil},
		{"My dentist is on holiday.", nil},
		{"The dentist is on Monday.", nil},
		{"My dentist's receptionist is Carol.", nil},
		{"Mum's dentist is Dr Roy.", nil},
		{"My surgery is on Friday.", nil},
		{"My garage is full of boxes.", nil},
		{"My dentist is not Dr Okafor any more.", nil},
		{"I don't bank with Barclays.", nil},
		{"Our plumber is Dave's cousin.", nil},
	} {
		if diff := cmp.Diff(tc.want, claimsOf(t, "user", tc.say)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.say, diff)
		}
	}
}

// TestCommuteRules: how the speaker gets to work, by verb or vehicle, in
// one name per mode; a trip that is no commute, someone else's, a past or
// a denied one is none. Only the commute lines are compared: "I drive in
// on Mondays" is a routine too.
func TestCommuteRules(t *testing.T) {
	line := func(mode, how string) []string {
		return []string{`vehicle user/commute="` + mode + `": The user commutes to work ` + how + `.`}
	}
	for _, tc := range []struct {
		say  string
		want []string
	}{
		{"I take the tram to work now.", line("tram", "by tram")},
		{"I usually get the bus in.", line("bus", "by bus")},
		{"I catch the 7:40 train to the office.", line("train", "by train")},
		{"I take the ferry into work most days.", line("ferry", "by ferry")},
		{"Now I take the tube to work.", line("underground", "by underground")},
		{"I cycle in.", line("bike", "by bike")},
		{"These days I cycle in along the canal path.", line("bike", "by bike")},
		{"I cycle to work when it's dry.", line("bike", "by bike")},
		{"I ride my bike to the office.", line("bike", "by bike")},
		{"I walk to work.", line("foot", "on foot")},
		{"I walk in, it's only ten minutes.", line("foot", "on foot")},
		{"I drive to the sorting office in Kettering every morning.", line("car", "by car")},
		{"I drive in on Mondays.", line("car", "by car")},
		{"I run to work twice a week.", line("running", "on foot, running")},
		{"I'm cycling to work these days.", line("bike", "by bike")},
		{"I've started walking to work.", line("foot", "on foot")},
		{"I ride the bus to work.", line("bus", "by bus")},
		{"I commute by train.", line("train", "by train")},
		{"I get to work on the tram.", line("tram", "by tram")},
		{"I go to work by bike.", line("bike", "by bike")},
		{"My commute is a 20-minute cycle.", line("bike", "by bike")},
		{"My commute is now by bus.", line("bus", "by bus")},
		{"I use the metro to get to work.", nil}, // the mode before the place: not this shape
		{"I used to drive in, but now I take the tram to work.", line("tram", "by tram")},
		{"I used to get the bus; these days I cycle in.", line("bike", "by bike")},
		{"I used to cycle in but I might drive to work now.", nil},
		// No commute.
		{"I take the bus to Grandma's on Sundays.", nil},
		{"I drive to the coast at weekends.", nil},
		{"I walk in the park.", nil},
		{"I don't drive to work.", nil},
		{"I used to cycle in.", nil},
		{"Siobhan gets the 7:40 train from Hebden Bridge.", nil},
		{"I might cycle to work tomorrow.", nil},
	} {
		var got []string
		for _, l := range claimsOf(t, "user", tc.say) {
			if strings.HasPrefix(l, "vehicle user/commute=") {
				got = append(got, l)
			}
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.say, diff)
		}
	}
}

// TestManyValuedRules: several values of a many-valued key said at once
// each make a line; an explicit end names the one value it retires.
func TestManyValuedRules(t *testing.T) {
	for _, tc := range []struct {
		say  string
		want []string
	}{
		{"We have two cats, Mochi and Pepper.", []string{
			`pets user/pet="Mochi": Mochi is the user's cat.`, `pets user/pet="Pepper": Pepper is the user's cat.`}},
		{"We've got a dog called Rex and a cat called Mochi.", []string{
			`pets user/pet="Rex": Rex is the user's dog.`, `pets user/pet="Mochi": Mochi is the user's cat.`}},
		{"Our cats are Mochi, Pepper and Miso.", []string{
			`pets user/pet="Mochi": Mochi is the user's cat.`, `pets user/pet="Pepper": Pepper is the user's cat.`,
			`pets user/pet="Miso": Miso is the user's cat.`}},
		{"We adopted a rescue greyhound called Biscuit.", []string{`pets user/pet="Biscuit": Biscuit is the user's greyhound (a dog).`}},
		{"I have a hamster named Nibbles.", []string{`pets user/pet="Nibbles": Nibbles is the user's hamster.`}},
		{"Our two rabbits, Flopsy and Mopsy, live in the garden.", []string{
			`pets user/pet="Flopsy": Flopsy is the user's rabbit.`, `pets user/pet="Mopsy": Mopsy is the user's rabbit.`}},
		{"My kids are Ava and Leo.", []string{
			`family user/child="Ava": Ava is the user's child.`, `family user/child="Leo": Leo is the user's child.`}},
		{"I have two kids, Ava and Leo.", []string{
			`family user/child="Ava": Ava is the user's child.`, `family user/child="Leo": Leo is the user's child.`}},
		{"We have a son called Leo and a daughter called Ava.", []string{
			`family user/child="Leo": Leo is the user's son.`, `family user/child="Ava": Ava is the user's daughter.`}},
		{"My sisters are Jo and Kim.", []string{
			`family user/sibling="Jo": Jo is the user's sister.`, `family user/sibling="Kim": Kim is the user's sister.`}},
		{"My parents, Ruth and Dev, live in Leeds.", []string{
			`family user/parent="Ruth": Ruth is the user's parent.`, `family user/parent="Dev": Dev is the user's parent.`}},
		{"We have a dog, Rex, and my sister has a cat called Tig.", []string{`pets user/pet="Rex": Rex is the user's dog.`}},
		{"My neighbour has two cats, Salt and Vinegar.", nil},
		{"We have three kids: Ava, Leo and Mia.", []string{
			`family user/child="Ava": Ava is the user's child.`, `family user/child="Leo": Leo is the user's child.`,
			`family user/child="Mia": Mia is the user's child.`}},
		{"I've got two dogs, Bramble and Sloe.", []string{
			`pets user/pet="Bramble": Bramble is the user's dog.`, `pets user/pet="Sloe": Sloe is the user's dog.`}},
		{"We've got chickens: Hetty, Dot and Mabel.", []string{
			`pets user/pet="Hetty": Hetty is the user's chicken.`, `pets user/pet="Dot": Dot is the user's chicken.`,
			`pets user/pet="Mabel": Mabel is the user's chicken.`}},
		{"My children are Ava and Leo.", []string{
			`family user/child="Ava": Ava is the user's child.`, `family user/child="Leo": Leo is the user's child.`}},
		{"Our grandkids, Ruby and Sid, visit on Sundays.", []string{
			`family Ruby/relation="grandchild": Ruby is the user's grandchild.`, `family Sid/relation="grandchild": Sid is the user's grandchild.`}},
		{"We have meetings, Monday and Tuesday.", nil},
		{"I speak English, Hindi and a little Gujarati.", []string{
			`identity user/language="English": The user speaks English.`, `identity user/language="Hindi": The user speaks Hindi.`,
			`identity user/language="Gujarati": The user speaks Gujarati.`}},
		{"I speak a bit of Italian.", []string{`identity user/language="Italian": The user speaks Italian.`}},
		{"We don't have a dog called Rex.", nil},
		{"I speak French and Spanish.", []string{
			`identity user/language="French": The user speaks French.`, `identity user/language="Spanish": The user speaks Spanish.`}},
		{"I also speak Welsh.", []string{`identity user/language="Welsh": The user speaks Welsh.`}},
		{"I'm fluent in Portuguese, Italian and German.", []string{
			`identity user/language="Portuguese": The user speaks Portuguese.`, `identity user/language="Italian": The user speaks Italian.`,
			`identity user/language="German": The user speaks German.`}},
		{"I speak to Mary every day.", nil},
		{"My hobbies are climbing and pottery.", []string{
			`preference user/hobby="climbing": One of the user's hobbies is climbing.`,
			`preference user/hobby="pottery": One of the user's hobbies is pottery.`}},
		{"My hobby is bell ringing.", []string{`preference user/hobby="bell ringing": One of the user's hobbies is bell ringing.`}},
		{"I took up fencing last year.", []string{`preference user/hobby="fencing": One of the user's hobbies is fencing.`}},
		{"I took up bouldering and love it.", []string{`preference user/hobby="bouldering": One of the user's hobbies is bouldering.`}},
		// An explicit end retires that value alone.
		{"We lost Pepper last week.", []string{`pets user/pet="Pepper": Pepper was the user's pet. (until 2026-05-04)`}},
		{"Sadly Mochi died in May.", []string{`pets user/pet="Mochi": Mochi was the user's pet. (until 2026-05-04)`}},
		{"We had to put Rex down.", []string{`pets user/pet="Rex": Rex was the user's pet. (until 2026-05-04)`}},
		{"We rehomed Bella.", []string{`pets user/pet="Bella": Bella was the user's pet. (until 2026-05-04)`}},
		{"We lost Pepper in the park for an hour.", nil},
		{"I gave up climbing.", []string{`preference user/hobby="climbing": One of the user's hobbies is climbing. (until 2026-05-04)`}},
		{"I gave up smoking.", nil},
		{"I gave up on him.", nil},
	} {
		if diff := cmp.Diff(tc.want, claimsOf(t, "user", tc.say)); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tc.say, diff)
		}
	}
}
