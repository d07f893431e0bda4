package mcpserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
	"github.com/dormouse-dev/dormouse/internal/mcpserver"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// profileData is a data directory whose agent main has a profile: an
// employer that changed a week ago, and an allergy.
func profileData(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	st, err := store.Open(t.Context(), store.Options{Dir: dir, Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	month, week := time.Now().AddDate(0, -1, 0), time.Now().AddDate(0, 0, -7)
	err = st.With(t.Context(), "main", true, func(a *store.Agent) error {
		if _, err := a.Insert(t.Context(), []store.Memory{{Content: "I work at Arup.", Timestamp: month, ContentHash: "1"},
			{Content: "I joined Atkins; still allergic to penicillin.", Timestamp: week, ContentHash: "2"}}); err != nil {
			return err
		}
		for _, l := range []store.ProfileLine{
			{Category: "work", Subject: "user", Key: "employer", Value: "Arup", Single: true, Text: "The user works at Arup.", SourceMemoryIDs: []int64{1}, ValidFrom: month},
			{Category: "health", Subject: "user", Key: "allergy", Value: "penicillin", Text: "The user is allergic to penicillin.", SourceMemoryIDs: []int64{2}, ValidFrom: week},
			{Category: "work", Subject: "user", Key: "employer", Value: "Atkins", Single: true, Text: "The user works at Atkins.", SourceMemoryIDs: []int64{2}, ValidFrom: week},
		} {
			if _, _, err := a.PutProfileLines(t.Context(), []store.ProfileLine{l}, l.ValidFrom); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestProfileTools reads, edits and removes profile lines from a real MCP
// client, over stdio to a real daemon.
func TestProfileTools(t *testing.T) {
	dir := profileData(t)
	d := daemontest.Start(t, func(c *config.Config) { c.DataDir = dir })
	cs := overStdio(t, mcpserver.New(client.New(d.Addr), mcpserver.Options{Version: "test"}))
	with := func(kv ...any) map[string]any {
		m := map[string]any{"agent": "main"}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	got := call(t, cs, "profile", with(), false)
	mustContain(t, "profile", got, "work:\n[profile:3] The user works at Atkins. (from memory:2)", "health:\n[profile:2] The user is allergic to penicillin.")
	if strings.Contains(got, "Arup") || strings.Index(got, "work:") > strings.Index(got, "health:") {
		t.Errorf("profile = %q: a retired line, or categories out of order", got)
	}
	got = call(t, cs, "profile", with("as_of", time.Now().AddDate(0, 0, -14).UTC().Format(time.RFC3339)), false)
	if !strings.Contains(got, "Arup") || strings.Contains(got, "Atkins") {
		t.Errorf("profile as of two weeks ago = %q", got)
	}
	got = call(t, cs, "profile_edit", with("id", "profile:3", "text", "The user is a bridge engineer at Atkins."), false)
	mustContain(t, "profile_edit", got, "Replaced profile:3 with [profile:4] The user is a bridge engineer at Atkins.")
	got = call(t, cs, "profile_remove", with("id", "profile:2"), false)
	mustContain(t, "profile_remove", got, "Removed profile:2")
	got = call(t, cs, "profile", with(), false)
	if got != "work:\n[profile:4] The user is a bridge engineer at Atkins. (from memory:2)" {
		t.Errorf("profile after the edit and the removal = %q", got)
	}
	got = call(t, cs, "profile_edit", with("id", "profile:3", "text", "x"), true)
	mustContain(t, "editing a replaced line", got, "no longer current")
	got = call(t, cs, "profile_remove", with("id", "profile:2"), true)
	mustContain(t, "removing a removed line", got, "removed")
}
