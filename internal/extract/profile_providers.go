package extract

import (
	"slices"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/claim"
)

// Providers and the commute: the everyday people and firms a household
// uses (its dentist, vet, GP, plumber, bank, energy supplier: claim.Providers,
// one of each at a time) and how the speaker gets to work. A provider is
// named by any of its key's phrases in the vocabulary, so a new provider
// there is recognised here without a rule of its own.

// pRole is a provider's name as a sentence says it: up to three words
// ("dentist", "GP surgery", "energy supplier").
const pRole = `((?i:[a-z][a-z'’-]*(?: [a-z][a-z'’-]*){0,2}?))`

var (
	// providerIsRe: "my dentist is Dr Okafor", "our vet is at Riverside",
	// "the GP surgery is Parkway Medical Centre", "my new bank is Monzo".
	providerIsRe = lazy(`\b(?i:(my|our|the)) ` + pRole + `(?i: is| are| has changed to| changed to|'s|’s)(?: (?i:now|still|currently|called|named))*(?: (?i:(at|with)))? ` +
		pOrg + `(?: (?i:at|in|on) ` + pOrg + `)?`)
	// providerNamedRe: "our plumber, Sam Ortiz, fixed the leak", "my GP Dr Rao".
	providerNamedRe = lazy(`\b(?i:my|our) ` + pRole + `,? ` + pOrg)
	// providerSwitchRe: "we switched dentists to Dr Hale at Brookside",
	// "I've changed my GP to Dr Rao", "we moved banks to Nationwide".
	providerSwitchRe = lazy(`\b(?i:(?:i|we)(?:'ve|’ve| have)?(?: just| finally| recently| now)? (?:switched|changed|moved|swapped)(?: (?:our|my))?) ` +
		pRole + ` (?i:(?:over )?to(?: the)?) ` + pOrg + `(?: (?i:at|in) ` + pOrg + `)?`)
	// registeredRe: "I'm registered with Dr Khan at the Elms Surgery", "we've registered at Oakfield Vets".
	registeredRe = lazy(`\b(?i:(?:i'm|i’m|i am|we're|we’re|we are|i|we)(?:'ve|’ve| have)?(?: now| just| finally)? (?:registered|signed up) (?:with|at)(?: the)?) ` +
		pOrg + `(?: (?i:at|in)(?: (?i:the))? ` + pOrg + `)?`)
	// bankWithRe: "I bank with Monzo".
	bankWithRe = lazy(`\b(?i:(?:i|we)(?: now| still| also)? bank with) ` + pOrg)
	// withForRe: "we're with Octopus for energy", "I'm now with Zen for
	// broadband", "we've switched to Brightwave for the internet".
	withForRe = lazy(`\b(?i:(?:i'm|i’m|i am|we're|we’re|we are)(?: now| still| currently)? with|(?:i|we)(?:'ve|’ve| have)?(?: just| finally| now)? (?:switched|moved|changed|gone|gone over|signed up) (?:to|with)|(?:i|we)(?: now| still| always)? use) ` + pOrg +
		` (?i:for (?:our |my |the |your )?(` + pService + `))\b`)
)

// pService is what a provider is for: "with X for energy", "we use X for the garden".
const pService = `energy|gas|electricity|gas and electricity|power|broadband|internet|wifi|wi-fi|mobile|mobiles|phone|phones|my phone|` +
	`insurance|home insurance|car insurance|banking|garden|gardening|cleaning|windows|accounts|taxes`

// forServices are what "with X for ..." names, each the provider key it
// makes X.
var forServices = map[string]string{
	"mobiles": "mobile_network", "phones": "mobile_network", "garden": "gardener", "gardening": "gardener",
	"cleaning": "cleaner", "windows": "window_cleaner", "accounts": "accountant", "taxes": "accountant",
	"energy": "energy_supplier", "gas": "energy_supplier", "electricity": "energy_supplier",
	"gas and electricity": "energy_supplier", "power": "energy_supplier", "broadband": "broadband",
	"internet": "broadband", "wifi": "broadband", "wi-fi": "broadband", "mobile": "mobile_network",
	"phone": "mobile_network", "my phone": "mobile_network", "insurance": "insurer", "home insurance": "insurer",
	"car insurance": "insurer", "banking": "bank",
}

// providerKey is the provider key role names ("dentists", "GP surgery",
// "new vet"), and false for any other word.
func providerKey(role string) (string, bool) {
	k, _ := claim.Key(role)
	return k, slices.Contains(claim.Providers, k)
}

func providerClaims(s string, sw subjectWords) []profileClaim {
	var out []profileClaim
	add := func(key, role, name, at, where string) {
		if !isOrg(name) || strings.HasSuffix(name, "'s") || strings.HasSuffix(name, "’s") {
			return
		}
		text := possCap(sw) + " " + role + " is " + name
		switch {
		case at != "":
			text = possCap(sw) + " " + role + " is " + strings.ToLower(at) + " " + name
		case where != "":
			text += " at " + where
		}
		out = append(out, profileClaim{key: key, value: name, text: text + "."})
	}
	if g := providerIsRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) {
		role, with := s[g[4]:g[5]], strings.EqualFold(span(s, g, 6), "with")
		if key, ok := providerKey(role); ok {
			add(key, roleWords(role), s[g[8]:g[9]], span(s, g, 6), span(s, g, 10))
		} else if key, ok := forServices[strings.ToLower(role)]; ok && with { // "our energy is with EDF"
			add(key, roleName(key), s[g[8]:g[9]], "", "")
		}
	}
	if g := registeredRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) {
		key := registeredKey(s[g[2]:g[3]] + " " + span(s, g, 4))
		add(key, roleName(key), s[g[2]:g[3]], "", span(s, g, 4))
	}
	if g := providerNamedRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) {
		if key, ok := providerKey(s[g[2]:g[3]]); ok {
			add(key, roleWords(s[g[2]:g[3]]), s[g[4]:g[5]], "", "")
		}
	}
	if g := providerSwitchRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) {
		if key, ok := providerKey(s[g[2]:g[3]]); ok {
			add(key, roleName(key), s[g[4]:g[5]], "", span(s, g, 6))
		}
	}
	if g := bankWithRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) {
		add("bank", "bank", s[g[2]:g[3]], "", "")
	}
	if g := withForRe.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) {
		key := forServices[strings.ToLower(s[g[4]:g[5]])]
		add(key, roleName(key), s[g[2]:g[3]], "", "")
	}
	return out
}

// registeredKey is the provider a practice's name says it is ("Elms
// Surgery", "Oakfield Vets", "Smile Dental"): the GP when it says none.
func registeredKey(names string) string {
	for _, w := range strings.Fields(strings.ToLower(names)) {
		switch w {
		case "dental", "dentist", "dentists", "orthodontics":
			return "dentist"
		case "vet", "vets", "veterinary", "animal":
			return "vet"
		case "opticians", "optician", "optometrists", "eyecare":
			return "optician"
		case "physio", "physiotherapy":
			return "physio"
		}
	}
	return "doctor"
}

// span is group i of match g in s, "" when it did not take part.
func span(s string, g []int, i int) string {
	if g[i] < 0 {
		return ""
	}
	return s[g[i]:g[i+1]]
}

// roleWords are a provider's words as said, in the singular, without the
// state words ("new dentist" is the dentist) and in the lower case a line
// uses, GP kept as it is spelt.
func roleWords(role string) string {
	words := strings.Fields(role)
	for len(words) > 1 && stateWord(strings.ToLower(words[0])) {
		words = words[1:]
	}
	for i, w := range words {
		if !strings.EqualFold(w, "gp") {
			words[i] = strings.ToLower(w)
		}
	}
	last := len(words) - 1
	if one := singular(words[last]); one != words[last] {
		if k, _ := providerKey(words[last]); k == roleKey(one) {
			words[last] = one
		}
	}
	return strings.Join(words, " ")
}

// roleKey is the provider key w names, "" for none.
func roleKey(w string) string {
	k, _ := providerKey(w)
	return k
}

// stateWord says which value is meant, not which provider.
func stateWord(w string) bool {
	switch w {
	case "new", "current", "usual", "regular", "local", "main", "own":
		return true
	}
	return false
}

// roleName is how a line names the provider of key: "dog walker",
// "energy supplier".
func roleName(key string) string {
	if key == "doctor" {
		return "GP"
	}
	return strings.ReplaceAll(key, "_", " ")
}

// The commute. A mode is said by its verb ("I cycle in") or its vehicle
// ("I take the tram to work", "I commute by train"); either way the line
// holds it by the mode's one name.
const (
	pVehicle = `(tram|bus|train|tube|metro|subway|underground|overground|ferry|boat|coach|shuttle|light rail|park and ride|bike|bicycle|motorbike|scooter|car|van)`
	// pWorkplace is where a commute goes: work, the office or a place of work.
	pWorkplace = `(?:work|my job|the office|my office|the (?:[a-z]+ ){1,2}office|the (?:lab|studio|depot|site|factory|warehouse|hospital|yard|plant)|campus|uni|college)`
	// pIn is "in", as in "I cycle in": to work, then a pause or what says how.
	pIn = `in(?:\s*[,.;!]|\s*$|\s+(?:along|via|through|over|across|by|on|every|most|each|now|these|when|unless|if|and|but|from|with|daily|usually|most)\b)`
	// pWhen are the words between the subject and the verb of a habit.
	pWhen = `(?:(?:now|usually|normally|always|still|mostly|generally|just|then|also|tend to|have started to|started to|prefer to|try to) )*`
)

var (
	// commuteVerbRe: "I cycle in along the canal", "I walk to work", "I drive to the sorting office".
	commuteVerbRe = lazy(`\b(?i:(?:i ` + pWhen + `|(?:i'm|i’m|i am|i've been|i’ve been|i have been|i've started|i’ve started|i have started|i started|i've taken to|i’ve taken to)(?: now| mostly| usually)? )` +
		`(cycle|bike|walk|drive|run|jog|scoot|ride my bike|ride my motorbike|ride my scooter|cycling|biking|walking|driving|running|jogging|scooting)(?: (?:it|there))? (?:(?:to|into) ` + pWorkplace + `\b|` + pIn + `))`)
	// commuteTakeRe: "I take the tram to work now", "I get the bus in", "I catch the 7:40 train to the office".
	commuteTakeRe = lazy(`\b(?i:i ` + pWhen + `(?:take|get|catch|ride|use|hop on|jump on) (?:the|a|my) (?:[\d:.]+(?: ?[ap]m)? |[a-z]+ )?` + pVehicle + `(?: \d+)? (?:(?:to|into) ` + pWorkplace + `\b|` + pIn + `))`)
	// commuteByRe: "I commute by train", "I get to work on the tram", "my commute is a 20-minute cycle".
	commuteByRe = lazy(`\b(?i:(?:i ` + pWhen + `(?:commute|get to work|go to work|go into work|get into work|travel to work|go in|get in)|my commute is(?: now)?)(?: (?:by|on))?(?: (?:the|a|an|my))?(?: [\d]+[- ]minutes?)? (` +
		`tram|bus|train|tube|metro|subway|underground|ferry|boat|coach|bike|bicycle|motorbike|scooter|car|foot|cycle|walk|drive|bike ride))\b`)
)

// commuteModes are the one name of each way to get to work a rule finds.
var commuteModes = map[string]string{
	"cycling": "bike", "biking": "bike", "walking": "foot", "driving": "car", "running": "running", "jogging": "running",
	"scooting": "scooter", "cycle": "bike", "bike": "bike", "bicycle": "bike", "ride my bike": "bike", "bike ride": "bike",
	"walk": "foot", "foot": "foot", "run": "running", "jog": "running",
	"drive": "car", "car": "car", "van": "car", "scoot": "scooter", "ride my scooter": "scooter",
	"ride my motorbike": "motorbike", "tube": "underground", "subway": "underground",
}

func commuteClaims(s string, sw subjectWords) []profileClaim {
	for _, re := range []*lazyRegexp{commuteVerbRe, commuteTakeRe, commuteByRe} {
		if g := re.FindStringSubmatchIndex(s); g != nil && !denied(s, g[0]) {
			mode := strings.ToLower(s[g[2]:g[3]])
			if m, ok := commuteModes[mode]; ok {
				mode = m
			}
			return []profileClaim{{key: "commute", value: mode, text: sw.name + " commutes to work " + modePhrase(mode) + "."}}
		}
	}
	return nil
}

// modePhrase is how a line says a mode: "by tram", "on foot".
func modePhrase(mode string) string {
	switch mode {
	case "foot":
		return "on foot"
	case "running":
		return "on foot, running"
	}
	return "by " + mode
}
