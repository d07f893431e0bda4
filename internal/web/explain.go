package web

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// What a search result's score is made of, told from recall's explain
// object (the "explain" of POST /recall with explain: true) rather than
// from the ranker's code, so the page says what the API says.

// scorePart is one named part of recall's explanation.
type scorePart struct {
	Key, Label, About string
}

// scorePartsKnown are the explain object's keys in the order the page
// lists them, each with a label and what it measures. A key recall adds
// later is shown by its name until it is named here.
var scorePartsKnown = []scorePart{
	{"relevance", "Words", "how well the query's words match (BM25), against the best match: 1 for the best"},
	{"coverage", "Words held", "the share of the query's words the item holds; one holding too few is not offered (recall.min_coverage)"},
	{"expansion", "Related words", "matches on words related to the query's (concepts, and words of the best first matches)"},
	{"by_kind", "Kind named", "the query names a kind of thing (cities, pets) and the item holds one"},
	{"speaker", "Speaker", "the query names who said it"},
	{"entity", "Names", "the item names someone or something the query names"},
	{"in_range", "In the dates", "it falls inside the dates the query speaks of (“last March”, “since Monday”)"},
	{"neighbour", "Next to a match", "a turn beside a strong match, which often holds the answer"},
	{"context", "Nearby turns", "how well the turns around it match"},
	{"day_record", "Its day matched", "its day's consolidation record matches the query"},
	{"semantic", "Meaning", "how close its meaning is to the query's (embeddings, when configured)"},
	{"informative", "States something", "how likely the memory states a fact rather than chats"},
	{"importance", "Importance", "as stored with the memory; a fact's confidence"},
	{"use", "Used before", "how often the fact was offered before"},
	{"recency", "Recency", "1 now, ½ one half-life ago (recall.recency_half_life)"},
	{"pinned", "Pinned", "offered whatever the words: a memory important enough to be part of the profile"},
	{"asks", "Only asks", "a turn of someone the query does not ask about that ends with a question: it counts against"},
}

// shownPart is a part of one item's score as the page shows it.
type shownPart struct {
	Label, About, Value string
}

// explainParts is what an item's explanation (nil: none was given) holds
// beyond its total, in the page's order, without the parts that are zero.
func explainParts(explain any) []shownPart {
	b, err := json.Marshal(explain)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil || m == nil {
		return nil
	}
	delete(m, "total") // the score itself
	var out []shownPart
	for _, k := range scorePartsKnown {
		if v, ok := m[k.Key]; ok {
			if s := partValue(v); s != "" {
				out = append(out, shownPart{k.Label, k.About, s})
			}
			delete(m, k.Key)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if s := partValue(m[k]); s != "" {
			out = append(out, shownPart{Label: k, Value: s})
		}
	}
	return out
}

// partValue shows a part's value, "" for one that adds nothing.
func partValue(v any) string {
	switch x := v.(type) {
	case float64:
		if x == 0 {
			return ""
		}
		return fmt.Sprintf("%.3g", x)
	case bool:
		if !x {
			return ""
		}
		return "yes"
	case nil:
		return ""
	default:
		j, _ := json.Marshal(x)
		return string(j)
	}
}
