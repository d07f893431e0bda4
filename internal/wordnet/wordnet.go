// Package wordnet holds the word lists lexgen derives from WordNet 3.0
// (licence: LEXICON-LICENSE), "word rest ..." a line: kinds.txt, a noun's
// kinds ("lasagna dish food"); definitions.txt, the nouns a word's
// definition names and their first kinds ("steakhouse restaurant steak
// eating house cut meat"); lexicon.txt, a word's related words (synonyms
// and broader concepts). The .txt files are the lists as lexgen writes
// them, to review; the binary embeds only words.bin, the three packed
// with one shared vocabulary and each distinct rest once (format in
// pack.go), a third of their size, and looks them up in place: nothing
// is unpacked, so the lists cost the binary's pages and one index of
// their words, not a heap of strings.
package wordnet

import (
	_ "embed"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"iter"
	"math/bits"
	"slices"
	"strings"
	"sync"
)

// kinds.txt first: definitions.txt reads it; words.bin packs all three.
//
//go:generate go run ../recall/lexgen -categories -dict /usr/share/wordnet -out kinds.txt -max 6
//go:generate go run ../recall/lexgen -dict /usr/share/wordnet -definitions kinds.txt -out definitions.txt -max 3
//go:generate go run ../recall/lexgen -dict /usr/share/wordnet -out lexicon.txt -max 4
//go:generate go run ../recall/lexgen -pack -out words.bin kinds.txt definitions.txt lexicon.txt
//go:embed words.bin
var packed string

// List is one of the word lists.
type List int

// The lists, in the order words.bin packs them.
const (
	Kinds       List = iota // kinds.txt
	Definitions             // definitions.txt
	Concepts                // lexicon.txt
)

// lexicon is the packed lists, read in place, and an index of their
// vocabulary.
type lexicon struct {
	vocab, starts string
	refs, rests   [lists]string
	slots         []uint32 // open addressing; a slot is (word's number + 1) | tag<<numBits, 0 empty
	mask          uint32
	// numBits is how many low bits of a slot hold the word's number; the
	// rest hold the top bits of the word's hash, so a probe that cannot
	// match never reads the vocabulary.
	numBits uint
}

var seed = maphash.MakeSeed()

// open indexes words.bin once, on first use; every caller shares it.
var open = sync.OnceValue(func() *lexicon { return unpack(packed) })

// unpack slices p into its parts and indexes its vocabulary. p is the
// embedded words.bin, which a test reads whole: a malformed one is a
// broken build, so it panics.
func unpack(p string) *lexicon {
	var sizes [2 + lists]int // words, the vocabulary's bytes, each list's rests' bytes
	for i := range sizes {
		var n string
		n, p = cut(p, 4)
		sizes[i] = int(binary.LittleEndian.Uint32([]byte(n)))
	}
	x := &lexicon{numBits: uint(bits.Len(uint(sizes[0])))}
	x.vocab, p = cut(p, sizes[1])
	x.starts, p = cut(p, 3*(sizes[0]+1))
	for l := range lists {
		x.refs[l], p = cut(p, 3*sizes[0])
		x.rests[l], p = cut(p, sizes[2+l])
	}
	if p != "" {
		panic(fmt.Sprintf("wordnet: words.bin has %d bytes beyond its lists", len(p)))
	}
	size := 1 << bits.Len(uint(sizes[0]+sizes[0]/2))
	x.slots, x.mask = make([]uint32, size), uint32(size-1)
	for n := range sizes[0] {
		x.put(n)
	}
	return x
}

// cut splits n bytes off the front of p.
func cut(p string, n int) (string, string) {
	if n > len(p) {
		panic(fmt.Sprintf("wordnet: words.bin ends %d bytes short", n-len(p)))
	}
	return p[:n], p[n:]
}

// put indexes word n.
func (x *lexicon) put(n int) {
	w := x.word(n)
	h := maphash.String(seed, w)
	for i := uint32(h) & x.mask; ; i = (i + 1) & x.mask {
		if x.slots[i] == 0 {
			x.slots[i] = uint32(n+1) | x.tag(h)
			return
		}
	}
}

// number returns w's number in the vocabulary.
func (x *lexicon) number(w string) (int, bool) {
	h := maphash.String(seed, w)
	tag, low := x.tag(h), uint32(1)<<x.numBits-1
	for i := uint32(h) & x.mask; x.slots[i] != 0; i = (i + 1) & x.mask {
		if s := x.slots[i]; s&^low == tag && x.word(int(s&low)-1) == w {
			return int(s&low) - 1, true
		}
	}
	return 0, false
}

func (x *lexicon) tag(h uint64) uint32 { return uint32(h>>32) << x.numBits }

// word returns word n of the vocabulary.
func (x *lexicon) word(n int) string {
	return x.vocab[get24(x.starts, 3*n):get24(x.starts, 3*n+3)]
}

// get24 reads the 3-byte number at s[i:].
func get24(s string, i int) int {
	return int(s[i]) | int(s[i+1])<<8 | int(s[i+2])<<16
}

// Lookup returns the rest of w's line: the words after w.
func (l List) Lookup(w string) (Words, bool) {
	x := open()
	n, ok := x.number(w)
	if !ok {
		return Words{}, false
	}
	return x.rest(l, n)
}

// Has reports whether w has a line.
func (l List) Has(w string) bool {
	_, ok := l.Lookup(w)
	return ok
}

// rest returns word n's rest in l.
func (x *lexicon) rest(l List, n int) (Words, bool) {
	ref := get24(x.refs[l], 3*n)
	if ref == 0 {
		return Words{}, false
	}
	return Words{x: x, rec: x.rests[l][ref-1:]}, true
}

// All yields every word with a line in l and its rest, in no particular
// order.
func (l List) All() iter.Seq2[string, Words] {
	return func(yield func(string, Words) bool) {
		x := open()
		for n := range len(x.starts)/3 - 1 {
			if ws, ok := x.rest(l, n); ok && !yield(x.word(n), ws) {
				return
			}
		}
	}
}

// Words is a line's rest, read in place: its words, in order.
type Words struct {
	x   *lexicon
	rec string // the rest's record and whatever follows it
}

// Len returns how many words there are.
func (ws Words) Len() int {
	n, _ := uvarint(ws.rec)
	return n
}

// All yields the words in order.
func (ws Words) All() iter.Seq[string] {
	return func(yield func(string) bool) {
		n, rec := uvarint(ws.rec)
		for ; n > 0; n-- {
			var w int
			w, rec = uvarint(rec)
			if !yield(ws.x.word(w)) {
				return
			}
		}
	}
}

// String returns the words joined by single spaces, as lexgen writes them.
func (ws Words) String() string { return strings.Join(slices.Collect(ws.All()), " ") }

// uvarint reads the uvarint at the front of s and returns it and what
// follows.
func uvarint(s string) (int, string) {
	n := 0
	for i := 0; i < len(s); i++ {
		n |= int(s[i]&0x7f) << (7 * i)
		if s[i] < 0x80 {
			return n, s[i+1:]
		}
	}
	return 0, ""
}
