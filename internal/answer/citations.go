package answer

import (
	"regexp"
	"strconv"
	"strings"
)

// citationRe finds what may be citations: a bracketed or parenthesised group
// ("[memory:12]", "[Memory 12, fact:3]", "(fact #3)") or a bare "memory:12",
// each possibly of a granted agent ("household/memory:12").
var citationRe = regexp.MustCompile(`\[[^\[\]\n]{1,200}\]|\([^()\n]{1,200}\)|(?i:\b(?:` + agentPrefix + `)?(?:memory|fact|consolidation|profile):\d+\b)`)

// agentPrefix is a granted agent's name before a citation (recall.Cite).
const agentPrefix = `[a-z0-9][a-z0-9_-]*/` // unbounded: the valid ids bound it, and {0,63} costs start-up memory

// partRe is one citation inside a group, as models write them.
var partRe = regexp.MustCompile(`(?i)^\s*(` + agentPrefix + `)?(memory|memories|fact|facts|consolidation|consolidations|profile|profiles)\s*[:#]?\s*(\d+)\s*$`)

// partSep separates the citations of one group.
var partSep = regexp.MustCompile(`\s*(?:,|;|\band\b|\]\s*\[)\s*`)

// Validate repairs a model's citations against the items of its context
// (valid holds their ids): each citation is rewritten as [kind:N], one to a
// bracket; a citation of an item that was not in the context is removed. It
// returns the answer, the valid citations in order of first use and the
// dropped ones. Bracketed text that is not a citation is left alone.
func Validate(answer string, valid map[string]bool) (string, []string, []string) {
	var b strings.Builder
	cites := []string{}
	var dropped []string
	seen := map[string]bool{}
	last := 0
	for _, loc := range citationRe.FindAllStringIndex(answer, -1) {
		group := answer[loc[0]:loc[1]]
		ids, ok := parseGroup(group)
		if !ok {
			continue // not a citation: leave the text as it is
		}
		b.WriteString(answer[last:loc[0]])
		last = loc[1]
		var kept []string
		for _, id := range ids {
			if !valid[id] {
				dropped = append(dropped, id)
				continue
			}
			kept = append(kept, id)
			if !seen[id] {
				seen[id] = true
				cites = append(cites, id)
			}
		}
		if len(kept) == 0 {
			// Drop the space before a removed citation too.
			s := strings.TrimRight(b.String(), " \t")
			b.Reset()
			b.WriteString(s)
			continue
		}
		for _, id := range kept {
			b.WriteString("[" + id + "]")
		}
	}
	b.WriteString(answer[last:])
	out := strings.TrimSpace(b.String())
	return out, cites, dropped
}

// parseGroup reads the citations of one group; ok is false when the group
// is not (only) citations.
func parseGroup(g string) ([]string, bool) {
	inner := g
	if strings.HasPrefix(g, "[") || strings.HasPrefix(g, "(") {
		inner = g[1 : len(g)-1]
	}
	var ids []string
	for _, p := range partSep.Split(inner, -1) {
		if strings.TrimSpace(p) == "" {
			continue
		}
		m := partRe.FindStringSubmatch(p)
		if m == nil {
			return nil, false
		}
		kind := strings.TrimSuffix(strings.ToLower(m[2]), "s")
		if kind == "memorie" {
			kind = "memory"
		}
		id := strings.ToLower(m[1]) + kind + ":" + m[3] // an id beyond int64 names no item: dropped
		if n, err := strconv.ParseInt(m[3], 10, 64); err == nil {
			id = strings.ToLower(m[1]) + kind + ":" + strconv.FormatInt(n, 10)
		}
		ids = append(ids, id)
	}
	return ids, len(ids) > 0
}

// Cited returns the citations an answer holds, as written ([kind:N] only).
func Cited(answer string) []string {
	var out []string
	for _, m := range canonRe.FindAllStringSubmatch(answer, -1) {
		out = append(out, m[1])
	}
	return out
}

var canonRe = regexp.MustCompile(`\[((?:` + agentPrefix + `)?(?:memory|fact|consolidation|profile):\d+)\]`)
