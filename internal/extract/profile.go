package extract

import (
	"slices"
	"strings"
	"unicode"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// The profile builder: what a day's memories say that stays true about the
// speaker's world (who they are, where they live and work, their family and
// pets, health, diet, strong preferences, standing rules and routines),
// as short third-person lines citing the memory each came from. Precision
// over recall: a line is a durable truth, never a one-off event, so only
// first-person statements in the shapes of profileRules count, and
// hypotheticals, questions and denials never do.

// profileCategory is the profile section of each canonical claim key: the
// vocabulary the model's prompt offers, which the rules keep to as well.
var profileCategory = func() map[string]string {
	m := map[string]string{}
	for _, c := range claim.Categories {
		for _, k := range c.Keys {
			m[k] = c.Name
		}
	}
	return m
}()

// ProfileCategory is the profile section of canonical claim key key, and
// false for a key the profile does not hold.
func ProfileCategory(key string) (string, bool) {
	c, ok := profileCategory[key]
	return c, ok
}

// profileClaim is what a rule finds in a sentence: a claim about the
// speaker (subject "") or a person they name, in words.
type profileClaim struct {
	subject string // "" is the speaker
	key     string
	value   string
	text    string
	ended   bool // the sentence says the claim stopped being true
}

// ProfileLines builds the profile lines a day's memories state, in the
// memories' order: the rules over each first-person sentence, then the
// day's facts about the speaker that name a profile key and no rule
// covered. Each line is valid from its memory's time and cites it.
func ProfileLines(mems []store.Memory, facts []store.Fact) []store.ProfileLine {
	var out []store.ProfileLine
	seen := map[string]bool{}
	add := func(l store.ProfileLine) {
		k := ClaimID(l)
		if seen[k] || store.CheckProfileLine(l) != nil {
			return
		}
		seen[k] = true
		out = append(out, l)
	}
	covered := map[int64]map[string]bool{} // memory → the keys its rules stated
	for i := range mems {
		m := &mems[i]
		for _, l := range memoryProfile(m) {
			add(l)
			if covered[m.ID] == nil {
				covered[m.ID] = map[string]bool{}
			}
			covered[m.ID][l.Key] = true
		}
	}
	for _, f := range facts {
		if l, ok := factProfileLine(f); ok && !citedBy(covered, f.SourceMemoryIDs, l.Key) {
			add(l)
		}
	}
	slices.SortStableFunc(out, func(a, b store.ProfileLine) int { return a.ValidFrom.Compare(b.ValidFrom) })
	return out
}

// ClaimID tells two lines of one claim apart from all others in a batch.
func ClaimID(l store.ProfileLine) string {
	end := ""
	if !l.ValidTo.IsZero() {
		end = "\x00end"
	}
	return strings.ToLower(l.Subject) + "\x00" + l.Key + "\x00" + strings.Join(text.Words(l.Value), " ") + end
}

func citedBy(covered map[int64]map[string]bool, ids []int64, key string) bool {
	for _, id := range ids {
		if covered[id][key] {
			return true
		}
	}
	return false
}

// memoryProfile is the profile lines of one memory: none unless a person
// said it (an agent's words about the user are its guesses).
func memoryProfile(m *store.Memory) []store.ProfileLine {
	who, typ := Speaker(m)
	if typ != "person" {
		return nil
	}
	var out []store.ProfileLine
	for _, s := range capture.Sentences(m.Content) {
		for _, c := range sentenceClaims(s, m, who) {
			out = append(out, lineOf(c, m, who))
		}
	}
	return out
}

// lineOf makes claim c of memory m, said by who, a line.
func lineOf(c profileClaim, m *store.Memory, who string) store.ProfileLine {
	subject := c.subject
	if subject == "" {
		subject = who
	}
	key, single := claim.Key(c.key)
	l := store.ProfileLine{
		Category: profileCategory[key], Subject: subject, Key: key, Value: c.value, Text: c.text,
		SourceMemoryIDs: []int64{m.ID}, Single: single, ValidFrom: m.Timestamp,
	}
	if c.ended {
		l.ValidTo = m.Timestamp
	}
	return l
}

// factKeys are the profile keys a fact of the day yields a line for when
// no rule stated it: the ones whose value the shapes of KeyFacts pin down
// (an identifier, an amount, a name), each with the check its value must
// pass and the line's wording.
var factKeys = map[string]struct {
	ok   func(v string) bool
	text func(s subjectWords, v string) string
}{
	"phone":    {phoneValueRe.MatchString, func(s subjectWords, v string) string { return s.poss + " phone number is " + v + "." }},
	"email":    {emailValueRe.MatchString, func(s subjectWords, v string) string { return s.poss + " email address is " + v + "." }},
	"address":  {startsWithDigit, func(s subjectWords, v string) string { return s.name + " lives at " + v + "." }},
	"rent":     {amountWholeRe.MatchString, func(s subjectWords, v string) string { return s.poss + " rent is " + v + "." }},
	"salary":   {hasDigits, func(s subjectWords, v string) string { return s.poss + " salary is " + v + "." }},
	"birthday": {hasDigits, func(s subjectWords, v string) string { return s.poss + " birthday is " + v + "." }},
	"employer": {isProperName, func(s subjectWords, v string) string { return s.name + " works at " + v + "." }},
	// The one-valued keys a change states ("I'm seeing Julia now", "moved to
	// Lisbon", "promoted to lead designer"): their line supersedes the old
	// one, so the profile never keeps a value the facts retired.
	"partner":   {isProperName, func(s subjectWords, v string) string { return s.poss + " partner is " + v + "." }},
	"city":      {isProperName, func(s subjectWords, v string) string { return s.name + " lives in " + v + "." }},
	"timezone":  {isTimezone, func(s subjectWords, v string) string { return s.poss + " time zone is " + v + "." }},
	"manager":   {isProperName, func(s subjectWords, v string) string { return s.poss + " manager is " + v + "." }},
	"car":       {isProperName, func(s subjectWords, v string) string { return s.poss + " car is " + article(v) + " " + v + "." }},
	"job_title": {notSentence, func(s subjectWords, v string) string { return s.name + " is " + article(v) + " " + v + "." }},
}

// notSentence: a title is a few words, not a clause ("lead designer", not
// "lead designer, she said").
func notSentence(v string) bool { return !strings.ContainsAny(v, ",;:!?.") }

// factProfileLine is the line fact f makes, if it is about a person's
// profile key with a value of the right shape.
func factProfileLine(f store.Fact) (store.ProfileLine, bool) {
	key, single := claim.Key(f.Attribute)
	fk, ok := factKeys[key]
	v := strings.TrimSpace(f.Value)
	if !ok || f.EntityType != "person" || v == "" || !fk.ok(v) || len(strings.Fields(v)) > 6 {
		return store.ProfileLine{}, false
	}
	return store.ProfileLine{
		Category: profileCategory[key], Subject: f.Entity, Key: key, Value: v,
		Text: fk.text(wordsFor(f.Entity), v), SourceMemoryIDs: f.SourceMemoryIDs, Single: single, ValidFrom: f.ValidFrom,
	}, true
}

// subjectWords name a line's subject in its text.
type subjectWords struct {
	name string // "The user", "Caroline"
	poss string // "The user's", "Caroline's"
	obj  string // "the user", "Caroline"
}

func wordsFor(who string) subjectWords {
	if who == "user" {
		return subjectWords{"The user", "The user's", "the user"}
	}
	return subjectWords{who, who + "'s", who}
}

var (
	phoneValueRe = lazy(`^\+?\(?\d[\d ()-]{4,}\d$`)
	emailValueRe = lazy(`^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$`)
)

func hasDigits(v string) bool { return strings.ContainsAny(v, "0123456789") }

func startsWithDigit(v string) bool { return v != "" && v[0] >= '0' && v[0] <= '9' }

// isProperName reports whether v reads as a name: capitalised words.
func isProperName(v string) bool {
	r := []rune(v)
	return len(r) > 1 && unicode.IsUpper(r[0]) && !strings.ContainsAny(v, ",;:!?")
}
