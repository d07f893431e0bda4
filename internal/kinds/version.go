package kinds

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"sync"
)

// revision stands for Of's rules, which the lists' text does not show:
// bump it when a change to Of, the stopwords it skips or WordNet's data
// changes some text's kinds.
const revision = "3"

// Version names the lexicon Of indexes with: a hash of revision and the
// hand-written lists. An agent file whose kinds index another version built
// is indexed afresh at its next open (store.Options.KindsVersion), so a
// change to the lists needs no schema migration of its own.
var Version = sync.OnceValue(func() string {
	return versionOf(revision, informalText, worldText, strings.Join(drugStems, " "), strings.Join(roleKinds, " "))
})

// versionOf hashes parts, each ended by a NUL, to 16 hex digits.
func versionOf(parts ...string) string {
	h := sha256.New()
	for _, part := range parts {
		h.Write([]byte(part))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
