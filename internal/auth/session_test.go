package auth

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestSessions: a session id is not the token and resolves to the token's
// grant; it ends when signed out, when idle for Idle (an injected clock),
// and when its token is no longer in the keyring it is checked against.
func TestSessions(t *testing.T) {
	k := keyring(t, Rule{Name: "main", SHA256: Hash("tok-main"), Agents: []string{"main"}, Write: true})
	now := time.Date(2026, 2, 10, 12, 0, 0, 0, time.UTC)
	s := &Sessions{Idle: time.Hour, Now: func() time.Time { return now }}
	start := func() string {
		t.Helper()
		id, err := s.Start("tok-main")
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	resolves := func(k *Keyring, id string) bool {
		t.Helper()
		g, err := s.Resolve(k, id)
		if err != nil && !errors.Is(err, ErrNoSession) {
			t.Fatalf("Resolve: %v, want ErrNoSession", err)
		}
		return err == nil && g.Name == "main"
	}

	id := start()
	if strings.Contains(id, "tok-main") || len(id) < 40 {
		t.Errorf("session id %q: want 32 random bytes, not the token", id)
	}
	if !resolves(k, id) || resolves(k, "tok-main") {
		t.Fatal("the session does not resolve to its token's grant, or the token passes as a session id")
	}

	now = now.Add(59 * time.Minute) // used: the idle time starts again
	if !resolves(k, id) {
		t.Error("a session used 59 minutes ago ended")
	}
	now = now.Add(time.Hour)
	if resolves(k, id) {
		t.Error("a session idle for an hour still resolves")
	}

	id = start()
	s.End(id)
	if resolves(k, id) {
		t.Error("a session resolves after End (signing out)")
	}

	id = start()
	reloaded := keyring(t, Rule{Name: "other", SHA256: Hash("tok-other"), Agents: []string{"*"}})
	if resolves(reloaded, id) {
		t.Error("a session resolves against a keyring without its token")
	}
	if resolves(k, id) {
		t.Error("a session refused once for a removed token resolves again")
	}
}
