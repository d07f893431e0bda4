package wordnet

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// The packed form (words.bin) of the lists, every number little-endian:
//
//	header   lists+2 uint32s: how many words, the vocabulary's length, each list's rests' length
//	vocab    every word of every list, end to end, the words lists name most often first
//	starts   3 bytes a word, and one more: where each word starts in vocab
//	then, for each list in List order:
//	refs     3 bytes a word: 0 when the word has no line, else 1 + where its rest starts in rests
//	rests    each distinct rest once: a uvarint count of its words, then each word's number, a uvarint
//
// The vocabulary is shared, and a rest many words have ("city metropolis
// urban center") is written once, so the three lists take about a third of
// their text; everything is read in place.

// lists is how many lists a packed file holds.
const lists = 3

// maxField is what a 3-byte field holds: a word's number, start or ref.
const maxField = 1<<24 - 1

// Pack writes the packed form of the lists' texts, given in List order:
// "word rest ..." lines, the later line counting when a word has two, as
// in a map filled line by line; a line without a space has no rest and is
// left out.
func Pack(texts [lists]string) ([]byte, error) {
	var parsed [lists][][]string // each line's words, its word first
	for i, t := range texts {
		parsed[i] = parseLines(t)
	}
	vocab := vocabulary(parsed)
	if len(vocab)+1 > maxField {
		return nil, fmt.Errorf("packing the word lists: %d words is over %d", len(vocab), maxField)
	}
	number := make(map[string]int, len(vocab))
	var words strings.Builder
	starts := make([]byte, 0, 3*(len(vocab)+1))
	for i, w := range vocab {
		number[w] = i
		starts = put24(starts, words.Len())
		words.WriteString(w)
	}
	starts = put24(starts, words.Len())
	if words.Len() > maxField {
		return nil, fmt.Errorf("packing the word lists: the vocabulary's %d bytes are over %d", words.Len(), maxField)
	}
	header := binary.LittleEndian.AppendUint32(nil, uint32(len(vocab)))
	header = binary.LittleEndian.AppendUint32(header, uint32(words.Len()))
	body := append([]byte(words.String()), starts...)
	for i, lines := range parsed {
		refs, rests, err := packList(lines, number, len(vocab))
		if err != nil {
			return nil, fmt.Errorf("packing word list %d: %w", i, err)
		}
		header = binary.LittleEndian.AppendUint32(header, uint32(len(rests)))
		body = append(append(body, refs...), rests...)
	}
	return append(header, body...), nil
}

// parseLines splits text into its lines' words, leaving out a line without
// a space.
func parseLines(text string) [][]string {
	var out [][]string
	for line := range strings.SplitSeq(text, "\n") {
		if w, rest, ok := strings.Cut(line, " "); ok {
			out = append(out, append([]string{w}, strings.Fields(rest)...))
		}
	}
	return out
}

// vocabulary is every word of the lists, those their rests name most often
// first (their numbers take the fewest bytes), then in byte order.
func vocabulary(parsed [lists][][]string) []string {
	uses := map[string]int{}
	for _, lines := range parsed {
		for _, l := range lines {
			uses[l[0]] += 0
			for _, w := range l[1:] {
				uses[w]++
			}
		}
	}
	vocab := make([]string, 0, len(uses))
	for w := range uses {
		vocab = append(vocab, w)
	}
	slices.SortFunc(vocab, func(a, b string) int {
		return cmp.Or(cmp.Compare(uses[b], uses[a]), strings.Compare(a, b))
	})
	return vocab
}

// packList writes one list's refs and rests.
func packList(lines [][]string, number map[string]int, words int) (refs, rests []byte, err error) {
	refs = make([]byte, 3*words)
	at := map[string]int{} // a rest, its words joined, → where it starts in rests
	for _, l := range lines {
		if l[0] == "" {
			return nil, nil, errors.New("a line begins with a space")
		}
		key := strings.Join(l[1:], " ")
		start, ok := at[key]
		if !ok {
			start = len(rests)
			at[key] = start
			rests = binary.AppendUvarint(rests, uint64(len(l)-1))
			for _, w := range l[1:] {
				rests = binary.AppendUvarint(rests, uint64(number[w]))
			}
		}
		if start+1 > maxField {
			return nil, nil, fmt.Errorf("its rests are over %d bytes", maxField)
		}
		j, ref := 3*number[l[0]], start+1
		refs[j], refs[j+1], refs[j+2] = byte(ref), byte(ref>>8), byte(ref>>16)
	}
	return refs, rests, nil
}

// put24 appends n's low 3 bytes to b.
func put24(b []byte, n int) []byte {
	return append(b, byte(n), byte(n>>8), byte(n>>16))
}
