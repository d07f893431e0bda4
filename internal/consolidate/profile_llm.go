package consolidate

import (
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/claim"
	"github.com/dormouse-dev/dormouse/internal/extract"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Limits on what a model may put in a profile line: a line is a short
// statement, and a longer one is not what was asked for.
const (
	maxProfileTextRunes  = 240
	maxProfileValueRunes = 120
)

// dayProfile is the day's profile lines: the model's statements that pass
// modelLines' checks, then the rules' lines (extract.ProfileLines) of claims the
// model did not state.
func dayProfile(mems []store.Memory, facts []store.Fact, offered []llm.ProfileEntry) []store.ProfileLine {
	out := modelLines(offered, mems)
	seen := map[string]bool{}
	for _, l := range out {
		seen[extract.ClaimID(l)] = true
	}
	for _, l := range extract.ProfileLines(mems, facts) {
		if !seen[extract.ClaimID(l)] {
			out = append(out, l)
		}
	}
	slices.SortStableFunc(out, func(a, b store.ProfileLine) int { return a.ValidFrom.Compare(b.ValidFrom) })
	return out
}

// modelLines turns a model's profile entries into lines, keeping only the
// ones that are right by what Dormouse knows: a key of the profile's
// vocabulary in its own category, citing only memories of the day that a
// person said, short, and a line the store accepts. A lying or careless
// answer loses its entries, never adds a wrong one.
func modelLines(es []llm.ProfileEntry, mems []store.Memory) []store.ProfileLine {
	said := map[int64]time.Time{} // memory → when, for the memories a person said
	for i := range mems {
		if _, typ := extract.Speaker(&mems[i]); typ == "person" {
			said[mems[i].ID] = mems[i].Timestamp
		}
	}
	var out []store.ProfileLine
	for _, e := range es {
		if l, ok := modelLine(e, said); ok && store.CheckProfileLine(l) == nil {
			out = append(out, l)
		}
	}
	return out
}

// modelLine is entry e as a line, and false when it is not one to keep.
func modelLine(e llm.ProfileEntry, said map[int64]time.Time) (store.ProfileLine, bool) {
	key := strings.ToLower(strings.TrimSpace(e.Key))
	cat, ok := extract.ProfileCategory(key)
	if !ok || cat != strings.ToLower(strings.TrimSpace(e.Category)) ||
		utf8.RuneCountInString(e.Text) > maxProfileTextRunes || utf8.RuneCountInString(e.Value) > maxProfileValueRunes {
		return store.ProfileLine{}, false
	}
	var from time.Time
	for _, id := range e.MemoryIDs {
		t, ok := said[id]
		if !ok {
			return store.ProfileLine{}, false // an id not given, or an agent's words
		}
		if from.IsZero() || t.Before(from) {
			from = t
		}
	}
	if from.IsZero() {
		return store.ProfileLine{}, false
	}
	_, single := claim.Key(key)
	l := store.ProfileLine{
		Category: cat, Subject: modelSubject(e.Subject), Key: key, Value: strings.TrimSpace(e.Value),
		Text: strings.TrimSpace(e.Text), SourceMemoryIDs: slices.Clone(e.MemoryIDs), Single: single, ValidFrom: from,
	}
	if e.Ended {
		l.ValidTo = from
	}
	return l, true
}

// modelSubject is the subject a model named, with its ways of naming the
// user ("the user", "User", "me") made the one the profile uses.
func modelSubject(s string) string {
	s = strings.TrimSpace(s)
	switch strings.ToLower(s) {
	case "user", "the user", "me", "i", "myself":
		return "user"
	}
	return s
}
