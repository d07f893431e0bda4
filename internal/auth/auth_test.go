package auth

import (
	"net/http/httptest"
	"strings"
	"testing"
)

func keyring(t *testing.T, rules ...Rule) *Keyring {
	t.Helper()
	k, err := New(rules)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func TestGrants(t *testing.T) {
	k := keyring(t,
		Rule{Name: "assistant", SHA256: Hash("tok-a"), Agents: []string{"assistant", "notes"}, Write: true},
		Rule{Name: "reader", SHA256: Hash("tok-r"), Agents: []string{"*"}},
		Rule{Name: "admin", SHA256: Hash("tok-admin"), Agents: []string{"*"}, Write: true},
	)
	cases := []struct {
		token, agent  string
		write, allows bool
		all           bool // AllowsAll(write)
	}{
		{"tok-a", "assistant", true, true, false},
		{"tok-a", "notes", false, true, false},
		{"tok-a", "coder", false, false, false},
		{"tok-r", "coder", false, true, true},
		{"tok-r", "coder", true, false, false},
		{"tok-admin", "coder", true, true, true},
	}
	for _, c := range cases {
		g, err := k.Lookup(c.token)
		if err != nil {
			t.Fatalf("Lookup(%q): %v", c.token, err)
		}
		if got := g.Allows(c.agent, c.write); got != c.allows {
			t.Errorf("%s.Allows(%q, write=%v) = %v, want %v", g.Name, c.agent, c.write, got, c.allows)
		}
		if got := g.AllowsAll(c.write); got != c.all {
			t.Errorf("%s.AllowsAll(write=%v) = %v, want %v", g.Name, c.write, got, c.all)
		}
	}
	for _, bad := range []string{"", "tok-", "TOK-A", "tok-a "} {
		if g, err := k.Lookup(bad); err == nil {
			t.Errorf("Lookup(%q) = %s, want an error", bad, g.Name)
		}
	}
	var none *Grant
	if none.Allows("assistant", false) || none.AllowsAll(false) {
		t.Error("a nil grant allows something")
	}
}

func TestNewRejects(t *testing.T) {
	for _, rules := range [][]Rule{
		{{Name: "short", SHA256: "abcd"}},
		{{Name: "not hex", SHA256: strings.Repeat("z", 64)}},
		{{Name: "one", SHA256: Hash("x")}, {Name: "two", SHA256: Hash("x")}},
	} {
		if _, err := New(rules); err == nil {
			t.Errorf("New(%+v) accepted", rules)
		}
	}
	if k, _ := New(nil); k.Enabled() {
		t.Error("a keyring without rules is enabled")
	}
}

func TestBearer(t *testing.T) {
	cases := []struct {
		header, cookie, want string
	}{
		{"Bearer abc", "", "abc"},
		{"bearer  abc ", "", "abc"},
		{"Basic abc", "cookie", ""},
		{"", "fromcookie", ""}, // the API never reads the page's cookie
		{"", "", ""},
	}
	for _, c := range cases {
		r := httptest.NewRequest("GET", "/v1/agents", nil)
		if c.header != "" {
			r.Header.Set("Authorization", c.header)
		}
		if c.cookie != "" {
			r.Header.Set("Cookie", CookieName+"="+c.cookie)
		}
		if got := Bearer(r); got != c.want {
			t.Errorf("header %q cookie %q: got %q, want %q", c.header, c.cookie, got, c.want)
		}
	}
}

func TestNewToken(t *testing.T) {
	a, err := NewToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewToken()
	if a == b || !strings.HasPrefix(a, Prefix) || len(a) != len(Prefix)+43 {
		t.Errorf("tokens %q and %q: want distinct, %q and 43 base64url characters", a, b, Prefix)
	}
	if len(Hash(a)) != 64 {
		t.Errorf("Hash = %q, want 64 hex digits", Hash(a))
	}
}

func TestTrusted(t *testing.T) {
	r := httptest.NewRequest("GET", "/", nil)
	if IsTrusted(r.Context()) {
		t.Fatal("a fresh request is trusted")
	}
	if !IsTrusted(Trusted(r.Context())) {
		t.Fatal("Trusted did not mark the context")
	}
}
