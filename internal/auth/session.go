package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Sessions are the web page's sign-ins. The cookie holds a random id, never
// the token: the server keeps, by the id's SHA-256, the token's SHA-256 and
// when the session was last used. So a stolen cookie is no API token,
// signing out ends the session on the server, a session idle for Idle ends,
// and one whose token is no longer in the keyring it is checked against
// (after a reload) ends. Sessions live as long as the process.
type Sessions struct {
	Idle time.Duration    // 0: 12 hours
	Now  func() time.Time // nil: time.Now

	mu   sync.Mutex
	byID map[[sha256.Size]byte]*session
}

type session struct {
	token [sha256.Size]byte
	last  time.Time
}

// ErrNoSession is why Resolve refused a session id: unknown, ended or idle
// too long.
var ErrNoSession = errors.New("the sign-in has ended (signed out, idle too long, or the server restarted): sign in again")

const defaultIdle = 12 * time.Hour

// Start opens a session for token, which the caller has checked, and
// returns its id for the cookie.
func (s *Sessions) Start(token string) (string, error) {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("draw a session id: %w", err)
	}
	id := base64.RawURLEncoding.EncodeToString(b)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sweep()
	if s.byID == nil {
		s.byID = map[[sha256.Size]byte]*session{}
	}
	s.byID[sha256.Sum256([]byte(id))] = &session{token: sha256.Sum256([]byte(token)), last: s.now()}
	return id, nil
}

// Resolve returns the grant of session id's token in k, and counts the
// session as used now.
func (s *Sessions) Resolve(k *Keyring, id string) (*Grant, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	key := sha256.Sum256([]byte(id))
	ss, ok := s.byID[key]
	if !ok || s.expired(ss) {
		delete(s.byID, key)
		return nil, ErrNoSession
	}
	g, err := k.lookupSum(ss.token)
	if err != nil {
		delete(s.byID, key)
		return nil, ErrNoSession
	}
	ss.last = s.now()
	return g, nil
}

// End ends session id (signing out); an unknown id is no error.
func (s *Sessions) End(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.byID, sha256.Sum256([]byte(id)))
}

// sweep forgets idle sessions, so sign-ins that never sign out do not
// pile up.
func (s *Sessions) sweep() {
	for k, ss := range s.byID {
		if s.expired(ss) {
			delete(s.byID, k)
		}
	}
}

func (s *Sessions) expired(ss *session) bool {
	idle := s.Idle
	if idle <= 0 {
		idle = defaultIdle
	}
	return s.now().Sub(ss.last) >= idle
}

func (s *Sessions) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
