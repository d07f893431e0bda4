package main

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
)

// TestProfileEndToEnd runs the real binary: memories of two days are
// consolidated into a profile, served over HTTP now and as of between the
// days; a person's edit and removal stick when the days are consolidated
// again; recall offers the line a paraphrase touches, citing it.
func TestProfileEndToEnd(t *testing.T) {
	d := startDaemon(t, t.TempDir())
	ctx := t.Context()
	cl := client.New(d.addr)
	for _, m := range []client.MemoryInput{
		{Content: "I work at Arup on footbridges.", Timestamp: noon(10)},
		{Content: "I'm allergic to penicillin.", Timestamp: noon(10).Add(time.Hour)},
		{Content: "I'm allergic to latex.", Timestamp: noon(10).Add(2 * time.Hour)},
		{Content: "I just joined Atkins, a big change.", Timestamp: noon(3)},
	} {
		if _, err := cl.Remember(ctx, "main", m); err != nil {
			t.Fatal(err)
		}
	}
	consolidateAll(t, cl)
	now := profileTexts(t, cl, client.ProfileOptions{})
	for _, want := range []string{"Atkins", "penicillin", "latex"} {
		if !strings.Contains(now, want) {
			t.Errorf("profile = %q, want %s", now, want)
		}
	}
	if strings.Contains(now, "Arup") {
		t.Errorf("profile = %q, holds the employer the user left", now)
	}
	if then := profileTexts(t, cl, client.ProfileOptions{AsOf: noon(6)}); !strings.Contains(then, "Arup") || strings.Contains(then, "Atkins") {
		t.Errorf("profile as of six days ago = %q, want Arup, not Atkins", then)
	}

	lines, err := cl.Profile(ctx, "main", client.ProfileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	penicillin, latex := lineWith(t, lines, "penicillin"), lineWith(t, lines, "latex")
	const edited = "The user is allergic to penicillin (hives)."
	if _, err := cl.EditProfileLine(ctx, "main", penicillin, edited); err != nil {
		t.Fatal(err)
	}
	if err := cl.RemoveProfileLine(ctx, "main", latex); err != nil {
		t.Fatal(err)
	}
	consolidateAll(t, cl, noon(10).Format(time.DateOnly), noon(3).Format(time.DateOnly))
	after := profileTexts(t, cl, client.ProfileOptions{})
	if !strings.Contains(after, edited) || strings.Contains(after, "latex") {
		t.Errorf("profile after consolidating the days again = %q: want the edit kept and latex still removed", after)
	}

	res, err := cl.Recall(ctx, "main", client.RecallRequest{Query: "Is there any medicine I should avoid?"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Items) == 0 || res.Items[0].Kind != "profile" || res.Items[0].Text != edited || !res.Found {
		t.Errorf("recall = %+v: want the edited allergy line first, found", res)
	}
}

// consolidateAll consolidates every pending past day, then each of dates
// again, and fails on a run that did not end well.
func consolidateAll(t *testing.T, cl *client.Client, dates ...string) {
	t.Helper()
	reqs := []client.ConsolidateRequest{{}}
	for _, d := range dates {
		reqs = append(reqs, client.ConsolidateRequest{Date: d})
	}
	for _, req := range reqs {
		res, err := cl.Consolidate(context.WithoutCancel(t.Context()), "main", req)
		if err != nil {
			t.Fatalf("consolidate %+v: %v", req, err)
		}
		for _, r := range res.Runs {
			if r.Status != "ok" {
				t.Fatalf("consolidate %s: %s %s", r.Day, r.Status, r.Error)
			}
		}
	}
}

func profileTexts(t *testing.T, cl *client.Client, o client.ProfileOptions) string {
	t.Helper()
	lines, err := cl.Profile(t.Context(), "main", o)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, l := range lines {
		out = append(out, l.Text)
	}
	return strings.Join(out, " | ")
}

// lineWith is the id of the line whose value holds v.
func lineWith(t *testing.T, lines []client.ProfileLine, v string) int64 {
	t.Helper()
	i := slices.IndexFunc(lines, func(l client.ProfileLine) bool { return strings.Contains(l.Value, v) })
	if i < 0 {
		t.Fatalf("no profile line of %q in %+v", v, lines)
	}
	id, err := strconv.ParseInt(strings.TrimPrefix(lines[i].ID, "profile:"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// noon is midday, local time, daysAgo days before today.
func noon(daysAgo int) time.Time {
	t := time.Now().AddDate(0, 0, -daysAgo)
	return time.Date(t.Year(), t.Month(), t.Day(), 12, 0, 0, 0, time.Local)
}
