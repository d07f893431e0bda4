// Package capture derives searchable fields from a memory's text at capture time, deterministically and without a model.
// It also validates what clients send and hands the result to the store.
package capture

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// Entity is something a memory names: a person or place, a handle, an
// address, an amount, a date or time, or a code.
type Entity struct {
	Text string `json:"text"`
	Type string `json:"type"` // one of: name, handle, email, url, money, date, time, code
}

// Entity types.
const (
	TypeName   = "name"
	TypeHandle = "handle"
	TypeEmail  = "email"
	TypeURL    = "url"
	TypeMoney  = "money"
	TypeDate   = "date"
	TypeTime   = "time"
	TypeCode   = "code"
)

// Derived holds the fields Extract derives from a memory's content.
type Derived struct {
	Summary    string   `json:"summary"`
	Entities   []Entity `json:"entities"`
	Topics     []string `json:"topics"`
	Importance float64  `json:"importance"` // 0..1, rounded to 2 decimals
}

// Limits on what Extract returns, so a long text cannot flood the index.
const (
	maxEntities = 20
	maxTopics   = 5
	maxSummary  = 160 // characters (runes), "…" included
)

// Extract derives a summary, entities, topics and an importance from
// content. The same content always gives the same result, and any content,
// invalid UTF-8 included, gives valid UTF-8 out. Entities and topics are
// never nil, so they encode as JSON arrays.
func Extract(content string) Derived {
	if !utf8.ValidString(content) {
		content = strings.ToValidUTF8(content, "\uFFFD")
	}
	toks, shouting := scan(content)
	e := &extractor{
		s:        content,
		toks:     toks,
		shouting: shouting,
		ents:     make([]Entity, 0, 8),
	}
	e.findEntities()
	return Derived{
		Summary:    summarize(content),
		Entities:   e.ents,
		Topics:     e.topics(),
		Importance: e.importance(),
	}
}

// ContentHash returns the hex SHA-256 of content with surrounding white
// space trimmed and every inner run of white space replaced by one space, so
// that copies differing only in spacing or line endings dedupe.
func ContentHash(content string) string {
	// One buffer and one hash call: writing field by field to a hash.Hash
	// allocates for every field.
	buf := make([]byte, 0, len(content))
	for f := range strings.FieldsSeq(content) {
		if len(buf) > 0 {
			buf = append(buf, ' ')
		}
		buf = append(buf, f...)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:])
}
