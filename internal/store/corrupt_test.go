package store

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// seedAgent stores n memories in a new agent and closes its file, so the
// test can damage it.
func seedAgent(t *testing.T, dir, name string, n int) {
	t.Helper()
	s, err := Open(t.Context(), Options{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	// One transaction: the same file as n commits, without n fsyncs (the
	// 3000 of TestCorruptionFoundAtRuntime took 40 s under -race).
	mems := make([]Memory, n)
	for i := range mems {
		mems[i] = mem(fmt.Sprintf("memory %d of %s with words to fill pages", i, name), "s")
	}
	err = s.With(t.Context(), name, true, func(a *Agent) error {
		_, err := a.Insert(t.Context(), mems)
		return err
	})
	if err := errors.Join(err, s.Close()); err != nil {
		t.Fatal(err)
	}
}

// damage rewrites an agent file: garbage in place of the whole file, the
// first half only, or a pattern over its middle pages (page 1, the schema,
// intact, so the file opens and a query finds the damage).
func damage(t *testing.T, path, how string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	switch how {
	case "garbage":
		for i := range b {
			b[i] = byte(i*7 + 3)
		}
	case "truncated":
		b = b[:len(b)/2]
	case "middle":
		for i := len(b) / 3; i < 2*len(b)/3; i++ {
			b[i] = byte(i * 7)
		}
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestCorruptAgentIsUnavailableOthersServe damages three agents' files next
// to a good one: each damaged agent fails with an *UnavailableError that
// says how to restore, at open or at its first query, and every Acquire
// after that too; the good agent serves; Unavailable lists the three.
func TestCorruptAgentIsUnavailableOthersServe(t *testing.T) {
	dir := t.TempDir()
	bad := []string{"garbage", "truncated", "middle"}
	for _, name := range append([]string{"good"}, bad...) {
		seedAgent(t, dir, name, 300)
	}
	s := openTest(t, Options{Dir: dir})
	for _, name := range bad {
		damage(t, s.agentPath(name), name)
	}
	for _, name := range bad {
		err := s.With(t.Context(), name, false, func(a *Agent) error {
			_, err := a.Stats(t.Context())
			if err == nil {
				_, err = a.SearchMemories(t.Context(), SearchOptions{Terms: []string{"memory"}, Limit: 1000})
			}
			return err
		})
		var ue *UnavailableError
		if !errors.As(err, &ue) || !errors.Is(err, ErrUnavailable) {
			t.Errorf("agent %s: err = %v, want an UnavailableError", name, err)
			continue
		}
		if want := "dormouse restore --agent " + name; !strings.Contains(err.Error(), want) {
			t.Errorf("agent %s: error %q does not say %q", name, err, want)
		}
		if err := s.With(t.Context(), name, false, func(*Agent) error { return nil }); !errors.Is(err, ErrUnavailable) {
			t.Errorf("agent %s: a later Acquire = %v, want ErrUnavailable", name, err)
		}
	}
	err := s.With(t.Context(), "good", false, func(a *Agent) error {
		st, err := a.Stats(t.Context())
		if err == nil && st.Memories != 300 {
			err = fmt.Errorf("%d memories, want 300", st.Memories)
		}
		if err == nil {
			_, err = a.Insert(t.Context(), []Memory{mem("one more", "s")})
		}
		return err
	})
	if err != nil {
		t.Errorf("the good agent next to corrupt ones: %v", err)
	}
	var got []string
	for _, ue := range s.Unavailable() {
		got = append(got, ue.Agent)
	}
	if strings.Join(got, ",") != "garbage,middle,truncated" {
		t.Errorf("Unavailable() = %v, want garbage, middle and truncated", got)
	}
}

// TestCorruptionFoundAtRuntime damages an open, serving agent's file: the
// query that finds the damage fails with an *UnavailableError, and from
// then on the agent is refused and listed by Unavailable.
func TestCorruptionFoundAtRuntime(t *testing.T) {
	dir := t.TempDir()
	seedAgent(t, dir, "main", 3000)
	s := openTest(t, Options{Dir: dir, CacheSizeKiB: 64})
	a := acquire(t, s, "main")
	if _, err := a.Stats(t.Context()); err != nil {
		t.Fatal(err)
	}
	damage(t, s.agentPath("main"), "middle")
	_, err := a.SearchMemories(t.Context(), SearchOptions{Terms: []string{"memory"}, Limit: 10000})
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("a query over damaged pages: err = %v, want ErrUnavailable", err)
	}
	if _, err := s.Acquire(t.Context(), "main", false); !errors.Is(err, ErrUnavailable) {
		t.Errorf("Acquire after the damage was found = %v, want ErrUnavailable", err)
	}
	if u := s.Unavailable(); len(u) != 1 || u[0].Agent != "main" {
		t.Errorf("Unavailable() = %v, want main", u)
	}
}
