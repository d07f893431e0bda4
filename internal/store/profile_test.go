package store

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	profMay  = time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	profJune = time.Date(2026, 6, 10, 9, 0, 0, 0, time.UTC)
	profJuly = time.Date(2026, 7, 20, 9, 0, 0, 0, time.UTC)
	profNow  = time.Date(2026, 8, 1, 12, 0, 0, 0, time.UTC)
)

func employerLine(value, text string, from time.Time, src ...int64) ProfileLine {
	return ProfileLine{Category: "work", Subject: "user", Key: "employer", Value: value, Text: text,
		SourceMemoryIDs: src, Single: true, ValidFrom: from}
}

func allergyLine(value string, from time.Time, src ...int64) ProfileLine {
	return ProfileLine{Category: "health", Subject: "user", Key: "allergy", Value: value,
		Text: "The user is allergic to " + value + ".", SourceMemoryIDs: src, ValidFrom: from}
}

func putLines(t *testing.T, a *Agent, lines ...ProfileLine) (added, superseded int) {
	t.Helper()
	added, superseded, err := a.PutProfileLines(t.Context(), lines, profNow)
	if err != nil {
		t.Fatal(err)
	}
	return added, superseded
}

func profileTexts(t *testing.T, a *Agent, asOf time.Time) []string {
	t.Helper()
	lines, err := a.Profile(t.Context(), asOf)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range lines {
		out = append(out, l.Text)
	}
	return out
}

// TestProfileSingleValuedSupersedes: a new employer ends the old line, the
// history keeps both, and an as_of between them sees the old one.
func TestProfileSingleValuedSupersedes(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	if add, sup := putLines(t, a, employerLine("Arup", "The user works at Arup.", profMay, 1)); add != 1 || sup != 0 {
		t.Errorf("first line: added %d superseded %d; want 1 0", add, sup)
	}
	if add, sup := putLines(t, a, employerLine("Atkins", "The user works at Atkins.", profJuly, 2)); add != 1 || sup != 1 {
		t.Errorf("new employer: added %d superseded %d; want 1 1", add, sup)
	}
	if diff := cmp.Diff([]string{"The user works at Atkins."}, profileTexts(t, a, time.Time{})); diff != "" {
		t.Errorf("profile now (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"The user works at Arup."}, profileTexts(t, a, profJune)); diff != "" {
		t.Errorf("profile as of June (-want +got):\n%s", diff)
	}
	if got := profileTexts(t, a, profMay.Add(-time.Hour)); len(got) != 0 {
		t.Errorf("profile before any line = %q; want none", got)
	}
	hist, err := a.ProfileHistory(t.Context(), "User", "employer")
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 2 || hist[0].Value != "Atkins" || hist[1].Value != "Arup" {
		t.Fatalf("history = %+v; want Atkins then Arup", hist)
	}
	if old := hist[1]; old.SupersededBy != hist[0].ID || !old.ValidTo.Equal(profJuly) || old.Current() {
		t.Errorf("old line = %+v; want superseded by %d at %v", old, hist[0].ID, profJuly)
	}
}

// TestProfileLateDayGoesIntoHistory: a past day consolidated after a newer
// value is stored under it, not over it.
func TestProfileLateDayGoesIntoHistory(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	putLines(t, a, employerLine("Atkins", "The user works at Atkins.", profJuly, 2))
	if add, sup := putLines(t, a, employerLine("Arup", "The user works at Arup.", profMay, 1)); add != 1 || sup != 0 {
		t.Errorf("late line: added %d superseded %d; want 1 0", add, sup)
	}
	if diff := cmp.Diff([]string{"The user works at Atkins."}, profileTexts(t, a, time.Time{})); diff != "" {
		t.Errorf("profile now (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"The user works at Arup."}, profileTexts(t, a, profJune)); diff != "" {
		t.Errorf("profile as of June (-want +got):\n%s", diff)
	}
	// A value between the two ends the older at its time and is ended by the newer.
	putLines(t, a, employerLine("Mott MacDonald", "The user works at Mott MacDonald.", profJune, 3))
	for _, tc := range []struct {
		at   time.Time
		want string
	}{{profMay.Add(time.Hour), "The user works at Arup."}, {profJune.Add(time.Hour), "The user works at Mott MacDonald."}, {profNow, "The user works at Atkins."}} {
		if diff := cmp.Diff([]string{tc.want}, profileTexts(t, a, tc.at)); diff != "" {
			t.Errorf("profile as of %v (-want +got):\n%s", tc.at, diff)
		}
	}
}

// TestProfileMultiValuedAccumulates: values of a multi-valued key stand side
// by side; the same claim again adds its sources and no line; a line with
// ValidTo ends its claim; a re-run of the same lines changes nothing.
func TestProfileMultiValuedAccumulates(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{}), "main")
	putLines(t, a, allergyLine("penicillin", profMay, 1), allergyLine("peanuts", profJune, 2))
	again := allergyLine("Penicillin.", profJuly, 3)
	again.Text = "The user has a penicillin allergy."
	if add, sup := putLines(t, a, again); add != 0 || sup != 0 {
		t.Errorf("same claim again: added %d superseded %d; want 0 0", add, sup)
	}
	if add, _ := putLines(t, a, again); add != 0 {
		t.Errorf("a re-run added %d lines", add)
	}
	lines, err := a.Profile(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 2 {
		t.Fatalf("profile = %+v; want two allergies", lines)
	}
	if diff := cmp.Diff([]int64{1, 3}, lines[0].SourceMemoryIDs); lines[0].Value != "penicillin" || diff != "" {
		t.Errorf("penicillin line = %+v; want sources 1 and 3", lines[0])
	}
	if lines[0].Text != again.Text {
		t.Errorf("penicillin line says %q; want the newer wording %q", lines[0].Text, again.Text)
	}
	end := allergyLine("peanuts", time.Time{}, 4)
	end.ValidTo = profJuly
	if add, _ := putLines(t, a, end); add != 0 {
		t.Errorf("an ended claim added %d lines", add)
	}
	if diff := cmp.Diff([]string{again.Text}, profileTexts(t, a, time.Time{})); diff != "" {
		t.Errorf("profile after peanuts ended (-want +got):\n%s", diff)
	}
	if got := profileTexts(t, a, profJune.Add(time.Hour)); len(got) != 2 {
		t.Errorf("profile as of June = %q; want both allergies", got)
	}
}

// TestProfileEdit: an edit is a new line superseding the old; a rebuild with
// the same value keeps the person's wording; a newer value supersedes it.
func TestProfileEdit(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{}), "main")
	putLines(t, a, employerLine("Arup", "The user works at Arup.", profMay, 1))
	cur, err := a.Profile(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	edited, err := a.EditProfileLine(ctx, cur[0].ID, "  Structural engineer at Arup, London office. ", profJune)
	if err != nil {
		t.Fatal(err)
	}
	if edited.ID == cur[0].ID || !edited.Edited || edited.Text != "Structural engineer at Arup, London office." ||
		edited.Value != "Arup" || !cmp.Equal(edited.SourceMemoryIDs, []int64{1}) || !edited.ValidFrom.Equal(profJune) {
		t.Errorf("edited line = %+v", edited)
	}
	old, err := a.ProfileLine(ctx, cur[0].ID)
	if err != nil || old.SupersededBy != edited.ID || old.Current() {
		t.Errorf("the edited line = %+v, %v; want superseded by %d", old, err, edited.ID)
	}
	if _, err := a.EditProfileLine(ctx, cur[0].ID, "again", profJune); !errors.Is(err, ErrProfileLineNotCurrent) {
		t.Errorf("editing a superseded line: %v; want ErrProfileLineNotCurrent", err)
	}
	putLines(t, a, employerLine("arup", "The user works at Arup.", profJuly, 5))
	got, err := a.ProfileLine(ctx, edited.ID)
	if err != nil || !got.Current() || got.Text != edited.Text || !cmp.Equal(got.SourceMemoryIDs, []int64{1, 5}) {
		t.Errorf("after a rebuild with the same value: %+v, %v; want the edit kept, sources 1 and 5", got, err)
	}
	if _, sup := putLines(t, a, employerLine("Atkins", "The user works at Atkins.", profJuly, 6)); sup != 1 {
		t.Errorf("a new value superseded %d lines; want the edited one", sup)
	}
	if diff := cmp.Diff([]string{"The user works at Atkins."}, profileTexts(t, a, time.Time{})); diff != "" {
		t.Errorf("profile (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{edited.Text}, profileTexts(t, a, profJune.Add(time.Hour))); diff != "" {
		t.Errorf("profile as of the edit (-want +got):\n%s", diff)
	}
}

// TestProfileRemovalSticks: a removed line is never current again, and the
// builder's same claim, in any wording, is not stored again; another value is.
func TestProfileRemovalSticks(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{}), "main")
	putLines(t, a, allergyLine("penicillin", profMay, 1))
	cur, err := a.Profile(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.RemoveProfileLine(ctx, cur[0].ID, profJune); err != nil {
		t.Fatal(err)
	}
	if got := profileTexts(t, a, time.Time{}); len(got) != 0 {
		t.Errorf("profile after removal = %q", got)
	}
	if got := profileTexts(t, a, profMay.Add(time.Hour)); len(got) != 0 {
		t.Errorf("profile as of before the removal = %q; a removed line is never offered", got)
	}
	if add, _ := putLines(t, a, allergyLine("Penicillin!", profJuly, 7)); add != 0 {
		t.Errorf("the removed claim was stored again (%d lines)", add)
	}
	if got := profileTexts(t, a, time.Time{}); len(got) != 0 {
		t.Errorf("profile after a rebuild = %q", got)
	}
	if add, _ := putLines(t, a, allergyLine("latex", profJuly, 8)); add != 1 {
		t.Errorf("another value added %d lines; want 1", add)
	}
	l, err := a.ProfileLine(ctx, cur[0].ID)
	if err != nil || !l.Removed || l.Current() {
		t.Errorf("removed line = %+v, %v", l, err)
	}
	if err := a.RemoveProfileLine(ctx, cur[0].ID, profJuly); !errors.Is(err, ErrProfileLineNotCurrent) {
		t.Errorf("removing it again: %v; want ErrProfileLineNotCurrent", err)
	}
	if _, err := a.EditProfileLine(ctx, cur[0].ID, "The user is not allergic.", profJuly); !errors.Is(err, ErrProfileLineNotCurrent) {
		t.Errorf("editing a removed line: %v; want ErrProfileLineNotCurrent", err)
	}
	if _, err := a.ProfileLine(ctx, 999); !errors.Is(err, ErrNotFound) {
		t.Errorf("ProfileLine(999): %v; want ErrNotFound", err)
	}
	if err := a.RemoveProfileLine(ctx, 999, profJuly); !errors.Is(err, ErrNotFound) {
		t.Errorf("RemoveProfileLine(999): %v; want ErrNotFound", err)
	}
}

// TestProfileForgettingAMemory: a line citing only a deleted memory goes
// (the value it superseded is current again) and its claim is not stored
// again; a line citing others too loses only that source.
func TestProfileForgettingAMemory(t *testing.T) {
	ctx := t.Context()
	a := acquire(t, openTest(t, Options{}), "main")
	ins, err := a.Insert(ctx, []Memory{mem("I work at Arup", "s"), mem("Started at Atkins today", "s"), mem("Still allergic to penicillin", "s")})
	if err != nil {
		t.Fatal(err)
	}
	m0, m1, m2 := ins[0].ID, ins[1].ID, ins[2].ID
	putLines(t, a, employerLine("Arup", "The user works at Arup.", profMay, m0), allergyLine("penicillin", profMay, m0, m2))
	putLines(t, a, employerLine("Atkins", "The user works at Atkins.", profJuly, m1))
	if err := a.Delete(ctx, m1); err != nil {
		t.Fatal(err)
	}
	want := []string{"The user works at Arup.", "The user is allergic to penicillin."}
	if diff := cmp.Diff(want, profileTexts(t, a, time.Time{})); diff != "" {
		t.Errorf("profile after forgetting the new employer (-want +got):\n%s", diff)
	}
	if add, _ := putLines(t, a, employerLine("Atkins", "The user is employed by Atkins.", profJuly)); add != 0 {
		t.Errorf("the forgotten claim was stored again")
	}
	if err := a.Delete(ctx, m0); err != nil {
		t.Fatal(err)
	}
	lines, err := a.Profile(ctx, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 1 || lines[0].Key != "allergy" || !cmp.Equal(lines[0].SourceMemoryIDs, []int64{m2}) {
		t.Errorf("profile after forgetting memory %d = %+v; want the allergy citing only %d", m0, lines, m2)
	}
}

// TestProfileOrder: by category in claim.Categories' order, the user
// first within one, then subjects alphabetically.
func TestProfileOrder(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	putLines(t, a,
		ProfileLine{Category: "pets", Subject: "user", Key: "pet", Value: "Rex (labrador)", Text: "Rex is the user's labrador.", ValidFrom: profMay},
		ProfileLine{Category: "family", Subject: "Maya", Key: "relation", Value: "daughter", Text: "Maya is the user's daughter.", ValidFrom: profMay},
		ProfileLine{Category: "family", Subject: "user", Key: "partner", Value: "Sam", Text: "The user's partner is Sam.", Single: true, ValidFrom: profJune},
		ProfileLine{Category: "family", Subject: "Leo", Key: "relation", Value: "son", Text: "Leo is the user's son.", ValidFrom: profJune},
		ProfileLine{Category: "identity", Subject: "user", Key: "name", Value: "Jo", Text: "The user is called Jo.", Single: true, ValidFrom: profJuly},
	)
	want := []string{"The user is called Jo.", "The user's partner is Sam.", "Leo is the user's son.", "Maya is the user's daughter.", "Rex is the user's labrador."}
	if diff := cmp.Diff(want, profileTexts(t, a, time.Time{})); diff != "" {
		t.Errorf("profile order (-want +got):\n%s", diff)
	}
}

// TestPutProfileLinesRefusesBadLines: a bad line is named, and nothing of
// the batch is stored.
func TestPutProfileLinesRefusesBadLines(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	good := allergyLine("penicillin", profMay, 1)
	for name, bad := range map[string]func(*ProfileLine){
		"category": func(l *ProfileLine) { l.Category = "hobbies" },
		"subject":  func(l *ProfileLine) { l.Subject = " " },
		"key":      func(l *ProfileLine) { l.Key = "" },
		"value":    func(l *ProfileLine) { l.Value = "..." },
		"text":     func(l *ProfileLine) { l.Text = "" },
		"utf8":     func(l *ProfileLine) { l.Text = "bad \xff" },
	} {
		l := good
		bad(&l)
		_, _, err := a.PutProfileLines(t.Context(), []ProfileLine{good, l}, profNow)
		var pe *ProfileLineError
		if !errors.As(err, &pe) {
			t.Errorf("%s: err = %v; want a ProfileLineError", name, err)
		}
	}
	if got := profileTexts(t, a, time.Time{}); len(got) != 0 {
		t.Errorf("a refused batch stored %q", got)
	}
	if _, err := a.EditProfileLine(t.Context(), 1, " ", profNow); err == nil {
		t.Error("an empty edit was accepted")
	}
}

// TestProfileAtCapture: new memories at least ProfileImportance important
// go to the builder once stored, with their ids; ordinary ones, duplicates
// and a forgotten memory said again do not; a build the store refuses
// fails nothing of the capture.
func TestProfileAtCapture(t *testing.T) {
	ctx := t.Context()
	var got [][]string
	bad := false
	build := func(ms []Memory) []ProfileLine {
		var contents []string
		var out []ProfileLine
		for _, m := range ms {
			contents = append(contents, m.Content)
			l := allergyLine(m.Content, m.Timestamp, m.ID)
			if bad {
				l.Category = "hobbies"
			}
			out = append(out, l)
		}
		got = append(got, contents)
		return out
	}
	a := acquire(t, openTest(t, Options{ProfileAtCapture: build, ProfileImportance: 0.9, DedupWindow: time.Hour}), "main")
	important := func(content string) Memory {
		m := mem(content, "s")
		m.Importance = 0.95
		return m
	}
	ins, err := a.Insert(ctx, []Memory{important("penicillin"), mem("latex", "s")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Insert(ctx, []Memory{important("penicillin")}); err != nil { // a duplicate
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"penicillin"}}, got); diff != "" {
		t.Errorf("memories built at capture (-want +got):\n%s", diff)
	}
	lines, err := a.Profile(ctx, time.Time{})
	if err != nil || len(lines) != 1 || !cmp.Equal(lines[0].SourceMemoryIDs, []int64{ins[0].ID}) {
		t.Errorf("profile = %+v, %v; want the penicillin line citing memory %d", lines, err, ins[0].ID)
	}
	forgot, err := a.Insert(ctx, []Memory{important("sesame")})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Delete(ctx, forgot[0].ID); err != nil {
		t.Fatal(err)
	}
	got = nil
	if _, err := a.Insert(ctx, []Memory{important("sesame")}); err != nil {
		t.Fatal(err)
	}
	if got != nil {
		t.Errorf("a forgotten memory said again was built: %q", got)
	}
	bad = true
	if _, err := a.Insert(ctx, []Memory{important("bees")}); err != nil {
		t.Errorf("a refused build failed the capture: %v", err)
	}
	if texts := profileTexts(t, a, time.Time{}); len(texts) != 1 {
		t.Errorf("profile after a refused build = %q; want only penicillin", texts)
	}
	bad, got = false, nil
	chunks := make(chan []Memory, 2)
	chunks <- []Memory{mem("nettles", "s"), important("wasps")}
	chunks <- []Memory{important("hornets")}
	close(chunks)
	if _, err := a.InsertChunks(ctx, chunks); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([][]string{{"wasps", "hornets"}}, got); diff != "" {
		t.Errorf("a streamed batch built at capture (-want +got):\n%s", diff)
	}
}

// TestProfileRetiredFileMemory: a line citing only a watched file's memory
// goes when the file changes, but is not remembered as forgotten: the file
// may say it again, and then the line comes back.
func TestProfileRetiredFileMemory(t *testing.T) {
	a := acquire(t, openTest(t, Options{}), "main")
	commit(t, a, FileChange{Path: "me.md", SHA256: "h1", Size: 10, Memories: fileMems("me.md", "I'm allergic to penicillin")})
	ids := searchIDs(t, a, "penicillin")
	putLines(t, a, allergyLine("penicillin", profMay, ids...))
	commit(t, a, FileChange{Path: "me.md", SHA256: "h2", Size: 10, Memories: fileMems("me.md", "Nothing to note")})
	if got := profileTexts(t, a, time.Time{}); len(got) != 0 {
		t.Errorf("profile after the file changed = %q; want the line gone with its memory", got)
	}
	if add, _ := putLines(t, a, allergyLine("penicillin", profJuly, 9)); add != 1 {
		t.Errorf("the claim said again added %d lines; a retired memory's claim is not forgotten", add)
	}
}

// TestProfileSupersedesTheMemoriesOfTheOldValue: a newer value of a
// one-valued line marks the memories that stated the old one superseded by
// the memory stating the new one, in whichever order the days arrive.
func TestProfileSupersedesTheMemoriesOfTheOldValue(t *testing.T) {
	for _, lateDay := range []bool{false, true} {
		a := acquire(t, openTest(t, Options{}), "main")
		ins, err := a.Insert(t.Context(), []Memory{
			{Content: "I'm a junior designer at Pixelworks.", Timestamp: profMay, Importance: 0.5, ContentHash: "a"},
			{Content: "I got promoted to lead designer.", Timestamp: profJuly, Importance: 0.5, ContentHash: "b"},
		})
		if err != nil {
			t.Fatal(err)
		}
		ids := []int64{ins[0].ID, ins[1].ID}
		old := employerLine("junior designer", "The user is a junior designer.", profMay, ids[0])
		newer := employerLine("lead designer", "The user is a lead designer.", profJuly, ids[1])
		if lateDay {
			putLines(t, a, newer)
			putLines(t, a, old)
		} else {
			putLines(t, a, old)
			putLines(t, a, newer)
		}
		m, err := a.Get(t.Context(), ids[0])
		if err != nil {
			t.Fatal(err)
		}
		if m.SupersededBy == nil || *m.SupersededBy != ids[1] {
			t.Errorf("late day %v: the old title's memory is superseded by %v, want memory %d", lateDay, m.SupersededBy, ids[1])
		}
		if m, _ := a.Get(t.Context(), ids[1]); m.SupersededBy != nil {
			t.Errorf("late day %v: the new title's memory is superseded by %d", lateDay, *m.SupersededBy)
		}
	}
}
