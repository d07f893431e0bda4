// Package auth checks bearer tokens: which agents a request may read or
// write. The daemon keeps only each token's SHA-256, never the token itself,
// so its configuration holds nothing worth stealing.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
)

// Prefix starts every token this package makes, so one is recognisable in
// a leaked file or a secret scanner.
const Prefix = "dmt_"

// CookieName is the cookie the web page keeps its session id in (see
// Sessions): never the token.
const CookieName = "dormouse_session"

// Rule is one token as configured: its name (for logs; never the token),
// the hex SHA-256 of the token, the agents it covers ("*" is every agent)
// and whether it may write or only read.
type Rule struct {
	Name   string
	SHA256 string
	Agents []string
	Write  bool
}

// Grant is what a request's token allows.
type Grant struct {
	Name   string // the rule's name
	all    bool
	agents []string
	write  bool
}

// Allows reports whether the grant covers agent for reading, or for
// writing when write is set.
func (g *Grant) Allows(agent string, write bool) bool {
	if g == nil || write && !g.write {
		return false
	}
	return g.all || slices.Contains(g.agents, agent)
}

// AllowsAll reports whether the grant covers every agent (what the
// endpoints that span agents, such as the watched folders, need).
func (g *Grant) AllowsAll(write bool) bool {
	return g != nil && g.all && (g.write || !write)
}

type entry struct {
	sum   [sha256.Size]byte
	grant Grant
}

// Keyring holds the configured tokens' hashes. The zero or nil Keyring has
// no tokens: Enabled reports false and the caller serves without them.
type Keyring struct {
	// entries is swapped whole by Replace (a reload) while requests look
	// tokens up.
	entries atomic.Pointer[[]entry]
}

// New builds the keyring from the configured rules.
func New(rules []Rule) (*Keyring, error) {
	k := &Keyring{}
	var entries []entry
	seen := map[[sha256.Size]byte]string{}
	for _, r := range rules {
		raw, err := hex.DecodeString(r.SHA256)
		if err != nil || len(raw) != sha256.Size {
			return nil, fmt.Errorf("token %q: want its SHA-256 as 64 hex digits (dormouse token new prints it)", r.Name)
		}
		var sum [sha256.Size]byte
		copy(sum[:], raw)
		if other, dup := seen[sum]; dup {
			return nil, fmt.Errorf("token %q has the same hash as token %q", r.Name, other)
		}
		seen[sum] = r.Name
		g := Grant{Name: r.Name, write: r.Write}
		for _, a := range r.Agents {
			if a == "*" {
				g.all = true
				continue
			}
			g.agents = append(g.agents, a)
		}
		entries = append(entries, entry{sum: sum, grant: g})
	}
	k.entries.Store(&entries)
	return k, nil
}

// Replace makes k's tokens those of with, at once for every request: a
// configuration reload.
func (k *Keyring) Replace(with *Keyring) { k.entries.Store(with.entries.Load()) }

func (k *Keyring) list() []entry {
	if e := k.entries.Load(); e != nil {
		return *e
	}
	return nil
}

// Enabled reports whether any token is configured.
func (k *Keyring) Enabled() bool { return k != nil && len(k.list()) > 0 }

// ErrNoToken and ErrBadToken are why Check refused a request.
var (
	ErrNoToken  = errors.New("this server wants a bearer token (Authorization: Bearer ...)")
	ErrBadToken = errors.New("the token is not one this server knows")
)

// Lookup returns the grant of token. Every configured hash is compared, in
// constant time, whether or not an earlier one matched.
func (k *Keyring) Lookup(token string) (*Grant, error) {
	if token == "" {
		return nil, ErrNoToken
	}
	return k.lookupSum(sha256.Sum256([]byte(token)))
}

// lookupSum returns the grant of the token whose SHA-256 is sum.
func (k *Keyring) lookupSum(sum [sha256.Size]byte) (*Grant, error) {
	if k == nil {
		return nil, ErrBadToken
	}
	var found *Grant
	entries := k.list()
	for i := range entries {
		if subtle.ConstantTimeCompare(sum[:], entries[i].sum[:]) == 1 {
			found = &entries[i].grant
		}
	}
	if found == nil {
		return nil, ErrBadToken
	}
	return found, nil
}

// Check returns the grant of the request's bearer token (the API, /mcp).
// The cookie is not read: a request the browser sends on its own carries
// cookies, never an Authorization header.
func (k *Keyring) Check(r *http.Request) (*Grant, error) {
	return k.Lookup(Bearer(r))
}

// Bearer returns the token of "Authorization: Bearer tok", or "".
func Bearer(r *http.Request) string {
	scheme, tok, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(tok)
}

// NewToken draws a new token: the prefix and 32 random bytes, base64url.
func NewToken() (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("draw a token: %w", err)
	}
	return Prefix + base64.RawURLEncoding.EncodeToString(b), nil
}

// Hash returns a token's SHA-256 in hex, as the configuration holds it.
func Hash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

type grantKey struct{}

// WithGrant returns ctx carrying the request's grant.
func WithGrant(ctx context.Context, g *Grant) context.Context {
	return context.WithValue(ctx, grantKey{}, g)
}

// FromContext returns the grant WithGrant put in ctx; ok is false when the
// server checks no tokens (every request may do everything).
func FromContext(ctx context.Context) (g *Grant, ok bool) {
	g, ok = ctx.Value(grantKey{}).(*Grant)
	return g, ok
}

type trustedKey struct{}

// Trusted marks ctx as a request the daemon makes of itself (the MCP tools
// calling the API in-process, after /mcp checked the caller's token).
func Trusted(ctx context.Context) context.Context { return context.WithValue(ctx, trustedKey{}, true) }

// IsTrusted reports whether ctx was marked by Trusted. No remote request can
// set it: it lives in the context, not in anything sent.
func IsTrusted(ctx context.Context) bool { v, _ := ctx.Value(trustedKey{}).(bool); return v }
