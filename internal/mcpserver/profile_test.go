package mcpserver_test

import (
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
	"github.com/dormouse-dev/dormouse/internal/mcpserver"
)

// TestProfileTools reads, edits and removes profile lines from a real MCP
// client, over stdio to a real daemon.
func TestProfileTools(t *testing.T) {
	dir := daemontest.ProfileData(t, "main")
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
