package main

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
)

// TestCorrectionEndToEnd runs the real binary: a habit and a home stated
// one week are corrected the next, once by a negation with no successor and
// once by a move from the old city to the new. After the nightly cycle
// the old values are retired in every layer (recall, facts, profile, ask),
// and the profile as of the first week still holds them.
func TestCorrectionEndToEnd(t *testing.T) {
	d := startDaemon(t, t.TempDir())
	ctx := t.Context()
	cl := client.New(d.addr)
	for _, m := range []client.MemoryInput{
		{Content: "I drink black coffee every morning before work.", Timestamp: noon(12)},
		{Content: "I live in Leeds, near the university.", Timestamp: noon(12).Add(time.Hour)},
		{Content: "I don't drink coffee any more, it was wrecking my sleep.", Timestamp: noon(4)},
		{Content: "We've moved from Leeds to York, the new flat is by the river.", Timestamp: noon(4).Add(time.Hour)},
	} {
		if _, err := cl.Remember(ctx, "main", m); err != nil {
			t.Fatal(err)
		}
	}
	consolidateAll(t, cl)

	before := profileTexts(t, cl, client.ProfileOptions{AsOf: noon(8)})
	if !strings.Contains(before, "coffee") || !strings.Contains(before, "Leeds") {
		t.Errorf("profile as of the first week = %q: want the coffee and Leeds", before)
	}
	now := profileTexts(t, cl, client.ProfileOptions{})
	if strings.Contains(now, "black coffee") || strings.Contains(now, "Leeds") {
		t.Errorf("profile now = %q: still holds a corrected value", now)
	}
	if !strings.Contains(now, "York") {
		t.Errorf("profile now = %q: want York", now)
	}

	facts, err := cl.Facts(ctx, "main", client.FactsOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range facts {
		if strings.Contains(f.Content, "black coffee") || strings.Contains(f.Content, "in Leeds") {
			t.Errorf("current fact %d %q: a corrected value", f.ID, f.Content)
		}
	}

	for q, stale := range map[string]string{
		"Do I drink coffee?": "black coffee every morning",
		"Where do I live?":   "live in Leeds",
	} {
		res, err := cl.Recall(ctx, "main", client.RecallRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(res.Context, stale) {
			t.Errorf("recall %q offers the stale %q: %s", q, stale, res.Context)
		}
		ans, err := cl.Ask(ctx, "main", client.RecallRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(ans.Answer, stale) {
			t.Errorf("ask %q answers with the stale %q: %s", q, stale, ans.Answer)
		}
	}
	res, err := cl.Recall(ctx, "main", client.RecallRequest{Query: "Where do I live?"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Context, "York") {
		t.Errorf("recall of the home misses York: %s", res.Context)
	}
}
