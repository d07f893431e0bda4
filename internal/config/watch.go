package config

import (
	"fmt"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// WatchFolder is one entry of the watch list: a folder whose files become one agent's memories. The
// list lives only in the file (no DORMOUSE_* variable or flag sets it); each entry starts from
// DefaultWatchFolder.
type WatchFolder struct {
	Path         string   `yaml:"path"`           // absolute
	Agent        string   `yaml:"agent"`          // whose memories the files become
	Mode         string   `yaml:"mode"`           // mirror: memories follow the files; inbox: ingest once
	Recursive    bool     `yaml:"recursive"`      // watch subfolders too
	Include      []string `yaml:"include"`        // globs; empty: every supported format
	Exclude      []string `yaml:"exclude"`        // globs, added to the built-in excludes
	MaxFileBytes int64    `yaml:"max_file_bytes"` // larger files are skipped with a reason
	Rescan       Duration `yaml:"rescan"`         // full scan comparing SHA-256, to catch missed events
	Settle       Duration `yaml:"settle"`         // a file is read once unchanged this long
	Move         bool     `yaml:"move"`           // inbox: move files to processed/ or failed/ after
}

// DefaultWatchFolder is what an entry of the watch list holds before its keys are read.
func DefaultWatchFolder() WatchFolder {
	return WatchFolder{
		Mode:         "mirror",
		Recursive:    true,
		MaxFileBytes: 20 << 20,
		Rescan:       Duration(30 * time.Minute),
		Settle:       Duration(time.Second),
	}
}

// listKind describes a list of sections (the watch list, auth.tokens) for the walker and its messages.
type listKind struct {
	list, item, of string               // "folders (...)", "a folder's settings (...)", "a watched folder"
	entry          func() reflect.Value // a fresh entry, holding the defaults
}

var listKinds = map[reflect.Type]listKind{
	reflect.TypeFor[WatchFolder](): {
		list: `folders ("- path: /srv/vault")`, item: "a folder's settings (path, agent, ...)", of: "a watched folder",
		entry: func() reflect.Value { e := DefaultWatchFolder(); return reflect.ValueOf(&e).Elem() },
	},
	reflect.TypeFor[Token](): {
		list: `tokens ("- name: assistant")`, item: "a token's settings (name, sha256, agents, access)", of: "a token",
		entry: func() reflect.Value { e := Token{Access: "read"}; return reflect.ValueOf(&e).Elem() },
	},
}

// sectionKeys are the keys of an entry of type t, in field order.
func sectionKeys(t reflect.Type) []string {
	var keys []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		keys = append(keys, name)
	}
	return keys
}

// list applies a list of sections (the watch list, auth.tokens) at key. Each item's keys are checked and
// parsed like any setting, and named in errors as key[i].name.
func (w *walker) list(key string, index []int, n *yaml.Node) {
	field := reflect.ValueOf(w.c).Elem().FieldByIndex(index)
	if isNull(n) {
		return
	}
	lk := listKinds[field.Type().Elem()]
	keys := sectionKeys(field.Type().Elem())
	if n.Kind != yaml.SequenceNode {
		w.fail(key, n.Line, fmt.Sprintf("want a list of %s, got %s", lk.list, kind(n)))
		return
	}
	out := reflect.MakeSlice(field.Type(), 0, len(n.Content))
	for i, item := range n.Content {
		item = resolve(item)
		ikey := fmt.Sprintf("%s[%d]", key, i)
		if item.Kind != yaml.MappingNode {
			w.fail(ikey, item.Line, "want "+lk.item+", got "+kind(item))
			continue
		}
		for _, name := range keys { // a missing key's problem points at the entry
			w.from[ikey+"."+name] = fmt.Sprintf("in the entry at %s line %d", w.path, item.Line)
		}
		ev := lk.entry()
		seen := map[string]int{}
		for j := 0; j+1 < len(item.Content); j += 2 {
			k, v := resolve(item.Content[j]), resolve(item.Content[j+1])
			name := k.Value
			fkey := ikey + "." + name
			if line, dup := seen[name]; dup {
				w.fail(fkey, k.Line, fmt.Sprintf("set twice, first at line %d", line))
				continue
			}
			seen[name] = k.Line
			fi := slices.Index(keys, name)
			if k.Kind != yaml.ScalarNode || fi < 0 {
				w.fail(fkey, k.Line, "not a setting of "+lk.of+"; they are "+strings.Join(keys, ", "))
				continue
			}
			fv := ev.Field(fi)
			var err error
			switch {
			case isNull(v):
			case v.Kind == yaml.ScalarNode:
				err = setValue(fv, v.Value)
			case v.Kind == yaml.SequenceNode && fv.Type() == stringsType:
				var items []string
				for _, it := range v.Content {
					it = resolve(it)
					if it.Kind != yaml.ScalarNode {
						err = fmt.Errorf("want %s, got %s in the list", want(fv.Type()), kind(it))
						break
					}
					items = append(items, it.Value)
				}
				if err == nil {
					err = setListValue(fv, items)
				}
			default:
				err = fmt.Errorf("want %s, got %s", want(fv.Type()), kind(v))
			}
			if err != nil {
				w.fail(fkey, v.Line, err.Error())
				continue
			}
			w.from[fkey] = fmt.Sprintf("at %s line %d", w.path, v.Line)
		}
		out = reflect.Append(out, ev)
	}
	if out.Len() > 0 {
		field.Set(out)
	}
}

// watch checks the watch list: each folder absolute, each agent a valid name (and a configured one
// when agents are not created on demand), globs that parse, and no folder watched twice for one agent.
func (p *problems) watch(list []WatchFolder, api API) {
	for i, f := range list {
		key := fmt.Sprintf("watch[%d]", i)
		switch {
		case f.Path == "":
			p.add(key+".path", "want the folder's absolute path, such as /srv/vault; got nothing")
		case !filepath.IsAbs(f.Path):
			p.add(key+".path", "want an absolute path, such as /srv/vault; got %q", f.Path)
		}
		switch {
		case !agentName.MatchString(f.Agent):
			p.add(key+".agent", "want the agent whose memories these files become: 1 to 64 lowercase letters, "+
				"digits, _ and -, starting with a letter or digit; got %q", f.Agent)
		case !api.AutoCreate && !slices.Contains(api.Agents, f.Agent):
			p.add(key+".agent", "want one of api.agents (%s), since api.auto_create_agents is false; got %q",
				strings.Join(api.Agents, ", "), f.Agent)
		}
		p.oneOf(key+".mode", f.Mode, "mirror", "inbox")
		if f.Move && f.Mode != "inbox" {
			p.add(key+".move", "want false for mode mirror: only an inbox's files are moved once ingested")
		}
		for _, g := range [][]string{f.Include, f.Exclude} {
			for _, pat := range g {
				if _, err := path.Match(strings.ReplaceAll(strings.TrimSuffix(pat, "/"), "**", "*"), ""); err != nil || pat == "" {
					name := "include"
					if slices.Contains(f.Exclude, pat) {
						name = "exclude"
					}
					p.add(key+"."+name, "want globs such as *.md, notes/** or .git/ (a trailing / matches a folder); got %q", pat)
				}
			}
		}
		p.number(key+".max_file_bytes", f.MaxFileBytes, 1, 1<<30)
		p.duration(key+".rescan", f.Rescan, time.Minute, 7*24*time.Hour)
		p.duration(key+".settle", f.Settle, 10*time.Millisecond, time.Minute)
		for j, g := range list[:i] {
			if g.Agent != f.Agent || f.Path == "" || g.Path == "" {
				continue
			}
			a, b := filepath.Clean(g.Path), filepath.Clean(f.Path)
			if a == b || strings.HasPrefix(b, a+string(filepath.Separator)) || strings.HasPrefix(a, b+string(filepath.Separator)) {
				p.add(key+".path", "want folders of one agent apart; %q overlaps watch[%d].path %q", f.Path, j, g.Path)
			}
		}
	}
}
