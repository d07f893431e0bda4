package recall

import (
	"slices"
	"strings"
	"sync"
)

// The standard English short forms of first names: "what did Elizabeth
// say?" is answered by "Betty says …", "Bob next door" is Robert. A short
// form joins its full names and a full name its short forms, never one
// short form another (Beth and Betty may be two people).

// shortForms maps a full first name to its everyday short forms, built on
// first use (the binary's start allocates none of it).
var shortForms = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"elizabeth":   {"liz", "lizzie", "lizzy", "beth", "betty", "bet", "betsy", "libby", "eliza"},
		"margaret":    {"maggie", "meg", "peggy", "madge"},
		"katherine":   {"kate", "katie", "kath", "kathy", "kat", "kitty"},
		"catherine":   {"cath", "cathy", "kate", "katie", "cat"},
		"kathryn":     {"kate", "katie", "kath", "kathy"},
		"william":     {"bill", "billy", "will", "willie", "willy"},
		"robert":      {"bob", "bobby", "rob", "robbie", "bert"},
		"richard":     {"dick", "rick", "ricky", "rich", "richie"},
		"james":       {"jim", "jimmy", "jamie"},
		"john":        {"johnny"},
		"jonathan":    {"jon", "jonny"},
		"david":       {"dave", "davey", "davy"},
		"michael":     {"mike", "mick", "micky", "mickey", "mikey"},
		"anthony":     {"tony"},
		"thomas":      {"tom", "tommy"},
		"christopher": {"chris", "kit"},
		"christine":   {"chris", "chrissie", "chrissy"},
		"joseph":      {"joe", "joey"},
		"daniel":      {"dan", "danny"},
		"matthew":     {"matt"},
		"andrew":      {"andy", "drew"},
		"nicholas":    {"nick", "nicky"},
		"samuel":      {"sam", "sammy"},
		"samantha":    {"sam", "sammy"},
		"alexander":   {"alex", "sandy"},
		"alexandra":   {"alex", "sandy"},
		"edward":      {"ed", "eddie", "ted", "teddy", "ned"},
		"benjamin":    {"ben", "benny"},
		"charles":     {"charlie", "chas", "chuck"},
		"frederick":   {"fred", "freddie", "freddy"},
		"patrick":     {"pat", "paddy"},
		"patricia":    {"pat", "patty", "trish", "tricia"},
		"peter":       {"pete"},
		"stephen":     {"steve", "stevie"},
		"steven":      {"steve", "stevie"},
		"timothy":     {"tim", "timmy"},
		"gregory":     {"greg"},
		"jennifer":    {"jen", "jenny"},
		"susan":       {"sue", "susie", "suzy"},
		"deborah":     {"deb", "debbie", "debs"},
		"rebecca":     {"becky", "becca", "bex"},
		"victoria":    {"vicky", "vicki", "tori"},
		"jacqueline":  {"jackie", "jacqui"},
		"josephine":   {"jo", "josie"},
		"judith":      {"judy", "jude"},
		"dorothy":     {"dot", "dotty", "dolly"},
		"barbara":     {"barb", "babs"},
		"pamela":      {"pam"},
		"kenneth":     {"ken", "kenny"},
		"raymond":     {"ray"},
		"ronald":      {"ron", "ronnie"},
		"donald":      {"don", "donny"},
		"gerald":      {"gerry"},
		"terence":     {"terry", "tel"},
		"lawrence":    {"larry", "laurie"},
		"leonard":     {"len", "lenny"},
		"philip":      {"phil", "pip"},
		"phillip":     {"phil"},
		"abigail":     {"abby", "abi"},
		"henry":       {"harry", "hal"},
		"harold":      {"harry"},
		"albert":      {"bert", "bertie", "al"},
		"alfred":      {"alf", "alfie"},
		"eleanor":     {"ellie", "nell", "nellie"},
		"helen":       {"nell"},
		"gillian":     {"gill", "jill"},
		"jessica":     {"jess", "jessie"},
		"rosemary":    {"rosie", "ro"},
		"wilhelmina":  {"mina", "billie"},
		"theodore":    {"theo", "ted", "teddy"},
		"nathaniel":   {"nat", "nate"},
		"nathan":      {"nate"},
		"zachary":     {"zac", "zach"},
		"penelope":    {"penny"},
		"frances":     {"fran", "fanny"},
		"francis":     {"frank"},
		"stuart":      {"stu"},
		"douglas":     {"doug", "dougie"},
		"malcolm":     {"mal"},
		"valerie":     {"val"},
		"beatrice":    {"bea", "trixie"},
		"cynthia":     {"cindy"},
		"isabella":    {"bella", "izzy"},
		"isabel":      {"izzy", "bel"},
		"georgina":    {"georgie", "gina"},
		"christina":   {"chris", "tina", "chrissie"},
		"sebastian":   {"seb"},
		"oliver":      {"ollie"},
		"gwendolyn":   {"gwen"},
		"vincent":     {"vince", "vinny"},
		"louise":      {"lou"},
		"louis":       {"lou"},
		"veronica":    {"ronnie"},
	}
})

// fullNames maps a short form to the full names it is short for.
var fullNames = sync.OnceValue(func() map[string][]string {
	m := map[string][]string{}
	for full, shorts := range shortForms() {
		for _, s := range shorts {
			m[s] = append(m[s], full)
		}
	}
	for _, fulls := range m {
		slices.Sort(fulls)
	}
	return m
})

// otherForms are the names the first name n, lowercase, also goes by: its
// short forms, or the full names it is short for.
func otherForms(n string) []string {
	n = strings.ToLower(n)
	return append(slices.Clone(shortForms()[n]), fullNames()[n]...)
}
