package daemon

import (
	"log/slog"
	"slices"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/gate"
)

func withTokens(tokens ...string) config.Config {
	var cfg config.Config
	for _, t := range tokens {
		cfg.Auth.Tokens = append(cfg.Auth.Tokens, config.Token{Name: t, SHA256: auth.Hash(t), Agents: []string{"*"}, Access: "write"})
	}
	return cfg
}

// TestReloadKeepsTokensOnOrOff: a reload swaps one token list for another,
// but cannot switch tokens off (the routes would stop asking for one only
// after a restart, and every request would be refused meanwhile) or on.
func TestReloadKeepsTokensOnOrOff(t *testing.T) {
	for _, tc := range []struct {
		name          string
		running, next config.Config
		refused       bool
		oldOK, newOK  bool
	}{
		{"swap", withTokens("dmt_old"), withTokens("dmt_new"), false, false, true},
		{"off", withTokens("dmt_old"), withTokens(), true, true, false},
		{"on", withTokens(), withTokens("dmt_new"), true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			keys, err := Keyring(tc.running)
			if err != nil {
				t.Fatal(err)
			}
			r := reloader{Reload: Reload{Load: func() (config.Config, error) { return tc.next, nil }}, keys: keys,
				reads: gate.NewReads(nil), log: slog.New(slog.DiscardHandler)}
			_, err = r.apply(tc.running)
			if (err != nil) != tc.refused {
				t.Fatalf("apply: err = %v, want refused %v", err, tc.refused)
			}
			if _, err := keys.Lookup("dmt_old"); (err == nil) != tc.oldOK {
				t.Errorf("old token accepted = %v, want %v", err == nil, tc.oldOK)
			}
			if _, err := keys.Lookup("dmt_new"); (err == nil) != tc.newOK {
				t.Errorf("new token accepted = %v, want %v", err == nil, tc.newOK)
			}
		})
	}
}

// TestNeedsRestartNamesTheReplica: a reload that changes replication.*
// names it among the settings a restart applies; tokens alone need none.
func TestNeedsRestartNamesTheReplica(t *testing.T) {
	running := config.Default()
	next := running
	next.Auth.Tokens = append(next.Auth.Tokens, config.Token{Name: "new"})
	if keys := needsRestart(running, next); len(keys) != 0 {
		t.Errorf("tokens changed: %v; want nothing that needs a restart", keys)
	}
	next.Replication.URL = "file:///mnt/nas/dormouse"
	if keys := needsRestart(running, next); !slices.Equal(keys, []string{"replication"}) {
		t.Errorf("replication.url changed: %v; want [replication]", keys)
	}
	next.Recall.K = 3
	if keys := needsRestart(running, next); !slices.Equal(keys, []string{"replication", "other settings (all but auth.tokens and agents.*.reads)"}) {
		t.Errorf("replication.url and recall changed: %v", keys)
	}
}

// TestReloadSwapsReadGrants: a reload applies agents.<reader>.reads at
// once, as it does the tokens, and does not ask for a restart for them.
func TestReloadSwapsReadGrants(t *testing.T) {
	running := withTokens("dmt_old")
	next := withTokens("dmt_old")
	next.Agents.Reads = map[string][]string{"home": {"household"}}
	keys, err := Keyring(running)
	if err != nil {
		t.Fatal(err)
	}
	reads := gate.NewReads(running.Agents.Reads)
	r := reloader{Reload: Reload{Load: func() (config.Config, error) { return next, nil }}, keys: keys,
		reads: reads, log: slog.New(slog.DiscardHandler)}
	if _, err := r.apply(running); err != nil {
		t.Fatal(err)
	}
	if got := reads.Of("home"); len(got) != 1 || got[0] != "household" {
		t.Errorf("home reads %v after the reload, want [household]", got)
	}
	if got := needsRestart(running, next); len(got) != 0 {
		t.Errorf("needsRestart = %v, want nothing for a change of grants", got)
	}
}
