package extract

import (
	"strings"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Restates reports whether newer, said by role, states again every claim
// older states (the same subject, key and value) and older states one: a
// correction that repeats a claim ("since I'm lactose intolerant I'm
// trying oat milk instead" after "I'm lactose intolerant") reinforces it
// and retires only a claim whose value it changes.
func Restates(newer, older, role string) bool {
	theirs := statedClaims(older, role)
	if len(theirs) == 0 {
		return false
	}
	mine := statedClaims(newer, role)
	for k := range theirs {
		if ended, ok := mine[k]; !ok || ended {
			return false // a value older states that newer does not, or ends
		}
	}
	return true
}

// statedClaims are the claims content states, by the facts' shapes and the
// profile rules, each with whether the text says it ended.
func statedClaims(content, role string) map[string]bool {
	m := &store.Memory{Content: content, Role: role}
	who, _ := Speaker(m)
	out := map[string]bool{}
	put := func(subject, key, value string, ended bool) {
		k := strings.ToLower(subject + "\x00" + key + "\x00" + value)
		out[k] = out[k] || ended
	}
	for _, s := range capture.Sentences(content) {
		for _, f := range KeyFacts(s, m) {
			put(strings.TrimPrefix(f.Entity, who), f.Attribute, f.Value, false)
		}
		for _, c := range sentenceClaims(s, m, who) {
			put(c.subject, c.key, c.value, c.ended)
		}
	}
	return out
}
