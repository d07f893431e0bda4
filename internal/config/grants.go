package config

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// agent applies agents.<name> (key), one agent's own settings: reads, the agents whose memories its
// recall also searches.
func (w *walker) agent(key, name string, v *yaml.Node) {
	if isNull(v) {
		return
	}
	if v.Kind != yaml.MappingNode {
		w.fail(key, v.Line, "want an agent's settings (reads: [household]) indented below it, or create: "+
			"on-write or explicit; got "+kind(v))
		return
	}
	for i := 0; i+1 < len(v.Content); i += 2 {
		k, list := resolve(v.Content[i]), resolve(v.Content[i+1])
		if k.Kind != yaml.ScalarNode || k.Value != "reads" {
			w.fail(join(key, k.Value), k.Line, "not a setting of an agent; the only one is reads")
			continue
		}
		w.reads(join(key, "reads"), name, list)
	}
}

// reads applies agents.<name>.reads: a list of agent names.
func (w *walker) reads(key, name string, n *yaml.Node) {
	var items []string
	switch {
	case isNull(n):
	case n.Kind == yaml.SequenceNode:
		for _, it := range n.Content {
			if it = resolve(it); it.Kind != yaml.ScalarNode {
				w.fail(key, it.Line, "want agent names such as [household, team], got "+kind(it)+" in the list")
				return
			}
			items = append(items, it.Value)
		}
	default:
		w.fail(key, n.Line, "want a list of agent names such as [household, team], got "+kind(n))
		return
	}
	if _, dup := w.c.Agents.Reads[name]; dup {
		w.fail(key, n.Line, "set twice")
		return
	}
	if w.c.Agents.Reads == nil {
		w.c.Agents.Reads = map[string][]string{}
	}
	w.c.Agents.Reads[name] = items
	w.from[key] = fmt.Sprintf("at %s line %d", w.path, n.Line)
}

// grants checks agents.<reader>.reads: valid names, no agent granted itself or twice, and, with a
// fixed agent list, only agents on it.
func (p *problems) grants(reads map[string][]string, api API) {
	for _, reader := range slices.Sorted(maps.Keys(reads)) {
		key := "agents." + reader + ".reads"
		if !agentName.MatchString(reader) {
			p.add("agents."+reader, "want an agent name (1 to 64 lowercase letters, digits, _ and -, starting "+
				"with a letter or digit) or create; got %q", reader)
			continue
		}
		p.fixedAgent(key, reader, api)
		seen := map[string]bool{}
		for _, g := range reads[reader] {
			switch {
			case !agentName.MatchString(g):
				p.add(key, "want agent names (1 to 64 lowercase letters, digits, _ and -); got %q", g)
			case g == reader:
				p.add(key, "want other agents: %q reads its own memories already", g)
			case seen[g]:
				p.add(key, "want each agent once; got %q twice", g)
			default:
				p.fixedAgent(key, g, api)
			}
			seen[g] = true
		}
	}
}

// fixedAgent refuses a name off api.agents when agents are not created on demand.
func (p *problems) fixedAgent(key, name string, api API) {
	if !api.AutoCreate && !slices.Contains(api.Agents, name) {
		p.add(key, "want one of api.agents (%s), since api.auto_create_agents is false; got %q",
			strings.Join(api.Agents, ", "), name)
	}
}
