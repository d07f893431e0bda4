package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestWatchList(t *testing.T) {
	data := `
watch:
  - path: /srv/vault
    agent: main
    exclude: [templates/, "*.bak"]
  - path: /srv/inbox
    agent: coder
    mode: inbox
    recursive: false
    move: true
    max_file_bytes: 1000
    rescan: 1h
    settle: 200ms
`
	got, err := load([]byte(data), "w.yaml", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	vault := DefaultWatchFolder()
	vault.Path, vault.Agent, vault.Exclude = "/srv/vault", "main", []string{"templates/", "*.bak"}
	inbox := WatchFolder{Path: "/srv/inbox", Agent: "coder", Mode: "inbox", Move: true, MaxFileBytes: 1000,
		Rescan: Duration(time.Hour), Settle: Duration(200 * time.Millisecond)}
	if diff := cmp.Diff(got.Watch, []WatchFolder{vault, inbox}); diff != "" {
		t.Errorf("watch list mismatch (-got +want):\n%s", diff)
	}
}

func TestWatchListErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"not a list", "watch: /srv", `config: watch: want a list of folders`},
		{"item not a mapping", "watch: [/srv]", `config: watch[0]: want a folder's settings`},
		{"unknown key", "watch:\n  - {path: /a, agent: m, recurse: true}", `config: watch[0].recurse: not a setting of a watched folder; they are path, agent, mode`},
		{"bad bool", "watch:\n  - {path: /a, agent: m, recursive: maybe}", `config: watch[0].recursive: want true or false, got "maybe" (at w.yaml line 2)`},
		{"relative path", "watch:\n  - {path: vault, agent: m}", `config: watch[0].path: want an absolute path, such as /srv/vault; got "vault" (at w.yaml line 2)`},
		{"missing path", "watch:\n  - {agent: m}", `config: watch[0].path: want the folder's absolute path, such as /srv/vault; got nothing (in the entry at w.yaml line 2)`},
		{"bad agent", "watch:\n  - {path: /a, agent: ../x}", `config: watch[0].agent: want the agent whose memories`},
		{"bad mode", "watch:\n  - {path: /a, agent: m, mode: sync}", `config: watch[0].mode: want one of mirror, inbox; got "sync"`},
		{"move in mirror", "watch:\n  - {path: /a, agent: m, move: true}", `config: watch[0].move: want false for mode mirror`},
		{"bad glob", "watch:\n  - {path: /a, agent: m, exclude: [\"[x\"]}", `config: watch[0].exclude: want globs such as`},
		{"too small rescan", "watch:\n  - {path: /a, agent: m, rescan: 1s}", `config: watch[0].rescan: want a duration from 1m to 168h, got 1s`},
		{"overlap", "watch:\n  - {path: /a, agent: m}\n  - {path: /a/b, agent: m}", `config: watch[1].path: want folders of one agent apart; "/a/b" overlaps watch[0].path "/a"`},
		{"dup key", "watch:\n  - path: /a\n    path: /b\n    agent: m", `config: watch[0].path: set twice, first at line 2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := load([]byte(tt.data), "w.yaml", nil, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("load error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
	// Agents not created on demand must be listed.
	_, err := load([]byte("api: {auto_create_agents: false, agents: [main]}\nwatch:\n  - {path: /a, agent: other}"), "w.yaml", nil, nil)
	if err == nil || !strings.Contains(err.Error(), "watch[0].agent: want one of api.agents (main)") {
		t.Errorf("load error = %v, want the agent refused", err)
	}
}

func TestWatchListOddYAML(t *testing.T) {
	for _, data := range []string{
		"watch: [[a]]",
		"watch: [{path: [x], agent: m}]",
		"watch: [{? [a]: b}]",
		"watch:\n  - &a {path: /a, agent: m}\n  - *a",
		"watch: [{path: /a, agent: m, include: [[x]]}]",
		"watch: [~, {}]",
		"watch: {path: /a}",
	} {
		_, err := load([]byte(data), "w.yaml", nil, nil)
		if err == nil {
			t.Errorf("load(%q) succeeded, want an error", data)
		} else if !strings.Contains(err.Error(), "config: watch") {
			t.Errorf("load(%q) error %q, want it to name the watch key", data, err)
		}
	}
}
