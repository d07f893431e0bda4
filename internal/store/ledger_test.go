package store

import (
	"bytes"
	"slices"
	"testing"
	"time"
)

// stretch is a row's value and validity as the ledger left it.
type stretch struct {
	value    string
	from, to time.Time // to zero while current
}

func factStretches(t *testing.T, a *Agent, entity, attribute string) []stretch {
	t.Helper()
	fs, err := a.Facts(t.Context(), FactFilter{Entity: entity, History: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []stretch
	for _, f := range fs {
		if f.Attribute == attribute {
			s := stretch{value: f.Value, from: f.ValidFrom}
			if f.ValidTo != nil {
				s.to = *f.ValidTo
			}
			out = append(out, s)
		}
	}
	return sortStretches(out)
}

func lineStretches(t *testing.T, a *Agent, subject, key string) []stretch {
	t.Helper()
	ls, err := a.ProfileHistory(t.Context(), subject, key)
	if err != nil {
		t.Fatal(err)
	}
	var out []stretch
	for _, l := range ls {
		out = append(out, stretch{value: l.Value, from: l.ValidFrom, to: l.ValidTo})
	}
	return sortStretches(out)
}

func sortStretches(s []stretch) []stretch {
	slices.SortFunc(s, func(x, y stretch) int { return x.from.Compare(y.from) })
	return s
}

// TestFactsAndLinesShareTheLedger: the same statements of a one-valued
// claim, some arriving late, leave a fact and a profile line with the same
// history, because both go through one decision: each value valid from
// its time until the next.
func TestFactsAndLinesShareTheLedger(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	day := func(d int) time.Time { return time.Date(2026, 4, d, 9, 0, 0, 0, time.UTC) }
	said := []struct {
		city string
		on   int
	}{{"Leeds", 1}, {"Bath", 20}, {"York", 10}, {"York", 12}, {"Hull", 5}}
	for _, s := range said {
		if _, err := a.PutFact(t.Context(), Fact{Entity: "user", Attribute: "city", Value: s.city,
			Content: "I live in " + s.city, Confidence: 0.6, ValidFrom: day(s.on)}); err != nil {
			t.Fatal(err)
		}
		putLines(t, a, ProfileLine{Category: "home", Subject: "user", Key: "city", Value: s.city,
			Text: "The user lives in " + s.city + ".", Single: true, ValidFrom: day(s.on)})
	}
	want := []stretch{{"Leeds", day(1), day(5)}, {"Hull", day(5), day(10)}, {"York", day(10), day(20)}, {"Bath", day(20), time.Time{}}}
	facts, lines := factStretches(t, a, "user", "city"), lineStretches(t, a, "user", "city")
	if !slices.Equal(facts, want) {
		t.Errorf("facts' history = %v, want %v", facts, want)
	}
	if !slices.Equal(lines, want) {
		t.Errorf("profile lines' history = %v, want %v", lines, want)
	}
}

// retireFixture stores, said on day 1, the user's diet as a fact, a
// profile line and the memory they came from, and the memory that ends it
// on day 10; it returns the two memories' ids.
func retireFixture(t *testing.T, a *Agent) (stated, ended int64) {
	t.Helper()
	ids := insertAt(t, a, map[string]time.Time{
		"I'm vegetarian these days":          retireDay(1),
		"I'm not vegetarian any more, sadly": retireDay(10),
	}, "I'm vegetarian these days", "I'm not vegetarian any more, sadly")
	stated, ended = ids["I'm vegetarian these days"], ids["I'm not vegetarian any more, sadly"]
	if _, err := a.PutFact(t.Context(), Fact{Entity: "user", Attribute: "diet", Value: "vegetarian", Content: "I'm vegetarian",
		Confidence: 0.6, SourceMemoryIDs: []int64{stated}, ValidFrom: retireDay(1)}); err != nil {
		t.Fatal(err)
	}
	putLines(t, a, ProfileLine{Category: "diet", Subject: "user", Key: "diet", Value: "vegetarian",
		Text: "The user is vegetarian.", SourceMemoryIDs: []int64{stated}, Single: true, ValidFrom: retireDay(1)})
	return stated, ended
}

func retireDay(d int) time.Time { return time.Date(2026, 4, d, 9, 0, 0, 0, time.UTC) }

func currentDiet(t *testing.T, a *Agent, asOf time.Time) (facts, lines int) {
	t.Helper()
	fs, err := a.Facts(t.Context(), FactFilter{Entity: "user", AsOf: asOf})
	if err != nil {
		t.Fatal(err)
	}
	ls, err := a.Profile(t.Context(), asOf)
	if err != nil {
		t.Fatal(err)
	}
	return len(fs), len(ls)
}

// TestRetireClaim: a correction with no successor ends the fact and the
// profile line, and with the memory that said so, the memory that stated
// the old value; an as_of before the retirement still sees all three.
func TestRetireClaim(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	stated, ended := retireFixture(t, a)
	got, err := a.RetireClaim(t.Context(), Retirement{Subject: "User", Key: "diet", At: retireDay(10), Memory: ended})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Facts) != 1 || len(got.Lines) != 1 {
		t.Fatalf("RetireClaim = %+v, want one fact and one line", got)
	}
	if f, l := currentDiet(t, a, time.Time{}); f != 0 || l != 0 {
		t.Errorf("now: %d facts and %d lines of the diet current, want none", f, l)
	}
	if f, l := currentDiet(t, a, retireDay(5)); f != 1 || l != 1 {
		t.Errorf("as of day 5: %d facts and %d lines current, want the diet in both", f, l)
	}
	m, err := a.Get(t.Context(), stated)
	if err != nil {
		t.Fatal(err)
	}
	if m.SupersededBy == nil || *m.SupersededBy != ended {
		t.Errorf("the memory stating the diet is superseded by %v, want the memory that ended it (%d)", m.SupersededBy, ended)
	}
	if hits := searchIDsUntil(t, a, "vegetarian", retireDay(5)); !slices.Contains(hits, stated) {
		t.Errorf("a search as of day 5 finds %v, want the memory stating the diet (%d)", hits, stated)
	}
	if hits := searchIDsUntil(t, a, "vegetarian", time.Time{}); slices.Contains(hits, stated) {
		t.Errorf("a search now finds %v, with the retired memory %d", hits, stated)
	}
}

// TestRetireClaimOfNothingCurrent: retiring another value, or a value
// stated only after the retirement's time, ends nothing.
func TestRetireClaimOfNothingCurrent(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	retireFixture(t, a)
	for _, r := range []Retirement{
		{Subject: "user", Key: "diet", Value: "vegan", At: retireDay(10)},
		{Subject: "user", Key: "diet", Value: "vegetarian", At: retireDay(1).Add(-time.Hour)},
		{Subject: "user", Key: "employer", At: retireDay(10)},
	} {
		got, err := a.RetireClaim(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Facts)+len(got.Lines) != 0 {
			t.Errorf("RetireClaim(%+v) = %+v, want nothing ended", r, got)
		}
	}
	if f, l := currentDiet(t, a, time.Time{}); f != 1 || l != 1 {
		t.Errorf("now: %d facts and %d lines of the diet current, want it in both", f, l)
	}
}

// TestRetireOneOfSeveralValues: a multi-valued key loses only the value
// retired.
func TestRetireOneOfSeveralValues(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	putLines(t, a, allergyLine("penicillin", profMay, 1), allergyLine("latex", profMay, 2))
	got, err := a.RetireClaim(t.Context(), Retirement{Subject: "user", Key: "allergy", Value: "Latex", At: profJune})
	if err != nil || len(got.Lines) != 1 {
		t.Fatalf("RetireClaim = %+v, %v; want one line", got, err)
	}
	if now, may := profileTexts(t, a, time.Time{}), profileTexts(t, a, profMay); len(now) != 1 || len(may) != 2 {
		t.Errorf("profile now %q, in May %q; want penicillin alone now, both in May", now, may)
	}
}

// TestRetiredClaimSurvivesExport: a retired fact and line (ended with no
// successor) export and import as they are: the same bytes, and the
// imported agent sees the claim as of before the retirement and not now.
func TestRetiredClaimSurvivesExport(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	_, ended := retireFixture(t, a)
	if _, err := a.RetireClaim(t.Context(), Retirement{Subject: "user", Key: "diet", At: retireDay(10), Memory: ended}); err != nil {
		t.Fatal(err)
	}
	first := exportOf(t, a)
	b := acquire(t, openTest(t, Options{}), "main")
	if _, err := b.Import(t.Context(), bytes.NewReader(first), ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if second := exportOf(t, b); !bytes.Equal(first, second) {
		t.Errorf("the round trip changed the export:\nfirst:\n%s\nsecond:\n%s", first, second)
	}
	if f, l := currentDiet(t, b, time.Time{}); f != 0 || l != 0 {
		t.Errorf("imported, now: %d facts and %d lines of the diet current, want none", f, l)
	}
	if f, l := currentDiet(t, b, retireDay(5)); f != 1 || l != 1 {
		t.Errorf("imported, as of day 5: %d facts and %d lines current, want the diet in both", f, l)
	}
}

// TestFactsOfManyValuedKeysAdd: facts of a key holding many values (by
// any of its names) stand side by side; a key holding one value, a
// provider or a key outside the vocabulary, keeps the newest alone.
func TestFactsOfManyValuedKeysAdd(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	said := []struct{ attribute, value string }{
		{"kids", "Ava"}, {"kids", "Leo"},
		{"allergies", "penicillin"}, {"allergies", "shellfish"},
		{"dentist", "Dr Okafor"}, {"dentist", "Dr Hale"},
		{"wifi password", "tulip42"}, {"wifi password", "crocus7"},
	}
	for i, s := range said {
		if _, err := a.PutFact(t.Context(), Fact{Entity: "user", Attribute: s.attribute, Value: s.value,
			Content: "my " + s.attribute + ": " + s.value, Confidence: 0.6, ValidFrom: retireDay(i + 1)}); err != nil {
			t.Fatal(err)
		}
	}
	for attribute, want := range map[string][]string{
		"kids": {"Ava", "Leo"}, "allergies": {"penicillin", "shellfish"}, "dentist": {"Dr Hale"}, "wifi password": {"crocus7"},
	} {
		if got := valuesAt(factStretches(t, a, "user", attribute), time.Now()); !slices.Equal(got, want) {
			t.Errorf("current %s = %q, want %q", attribute, got, want)
		}
	}
}

// TestLineRetirementEndsTheFact: a profile line saying its value ended
// ("not allergic to latex after all") ends the fact of the same claim as
// well, and no other value of it; as_of before still sees both.
func TestLineRetirementEndsTheFact(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	for i, v := range []string{"penicillin", "latex"} {
		if _, err := a.PutFact(t.Context(), Fact{Entity: "user", Attribute: "allergy", Value: v,
			Content: "I'm allergic to " + v, Confidence: 0.6, ValidFrom: retireDay(1 + i)}); err != nil {
			t.Fatal(err)
		}
	}
	putLines(t, a, ProfileLine{Category: "health", Subject: "user", Key: "allergy", Value: "latex",
		Text: "The user is allergic to latex.", ValidFrom: retireDay(10), ValidTo: retireDay(10)})
	facts := factStretches(t, a, "user", "allergy")
	if got := valuesAt(facts, time.Now()); !slices.Equal(got, []string{"penicillin"}) {
		t.Errorf("allergy facts now = %q, want penicillin alone", got)
	}
	if got := valuesAt(facts, retireDay(5)); !slices.Equal(got, []string{"latex", "penicillin"}) {
		t.Errorf("allergy facts as of day 5 = %q, want both", got)
	}
}

// TestLineRetirementRetiresItsMemories: the memory stating only the ended
// value is superseded by the memory that ended it; one that states another
// value still current stays; as_of before the end still finds both.
func TestLineRetirementRetiresItsMemories(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	const latex, cats, notLatex, lost = "I'm allergic to latex too", "We have two cats, Mochi and Pepper",
		"I'm not allergic to latex after all", "We lost Pepper last week"
	ids := insertAt(t, a, map[string]time.Time{latex: retireDay(1), cats: retireDay(2), notLatex: retireDay(10), lost: retireDay(11)},
		latex, cats, notLatex, lost)
	pet := func(v string, src int64, from time.Time) ProfileLine {
		return ProfileLine{Category: "pets", Subject: "user", Key: "pet", Value: v, Text: v + " is the user's cat.",
			SourceMemoryIDs: []int64{src}, ValidFrom: from}
	}
	putLines(t, a, allergyLine("latex", retireDay(1), ids[latex]), pet("Mochi", ids[cats], retireDay(2)), pet("Pepper", ids[cats], retireDay(2)))
	gone := allergyLine("latex", retireDay(10), ids[notLatex])
	gone.ValidTo = retireDay(10)
	lostPepper := pet("Pepper", ids[lost], retireDay(11))
	lostPepper.ValidTo = retireDay(11)
	putLines(t, a, gone, lostPepper)
	for text, want := range map[string]int64{latex: ids[notLatex], cats: 0} {
		m, err := a.Get(t.Context(), ids[text])
		if err != nil {
			t.Fatal(err)
		}
		if got := m.SupersededBy; (want == 0) != (got == nil) || (got != nil && *got != want) {
			t.Errorf("%q superseded by %v, want %d (0: none)", text, got, want)
		}
	}
	if hits := searchIDsUntil(t, a, "latex", retireDay(5)); !slices.Contains(hits, ids[latex]) {
		t.Errorf("a search as of day 5 finds %v, want the allergy's memory %d", hits, ids[latex])
	}
}

// valuesAt is the sorted values of the stretches valid at t.
func valuesAt(stretches []stretch, t time.Time) []string {
	var out []string
	for _, s := range stretches {
		if !s.from.After(t) && (s.to.IsZero() || t.Before(s.to)) {
			out = append(out, s.value)
		}
	}
	slices.Sort(out)
	return out
}
