package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DefaultPath is the file Load reads when no path is given; the .deb installs it as a conffile.
const DefaultPath = "/etc/dormouse/dormouse.yaml"

// defaultPath is DefaultPath, a variable so that tests never read the host's file.
var defaultPath = DefaultPath

// Options says where Load finds the layers above the defaults.
type Options struct {
	// Path is the --config value. "" means DefaultPath if that file exists, else no file.
	Path string
	// Environ is os.Environ()-style "NAME=value" pairs; Load reads DORMOUSE_* and STATE_DIRECTORY
	// from here, never from the process, so that tests are hermetic.
	Environ []string
	// Flags maps dotted keys ("listen", "storage.synchronous") to values, only for flags the user set.
	Flags map[string]string
}

// Error is a bad setting: an unknown key, a value of the wrong type, or one out of bounds. Load and
// Validate return it, possibly several joined, so errors.As finds it.
type Error struct {
	Key string // dotted key, as in the file: "storage.read_conns"
	Msg string // what is allowed and what was given, and where it came from when Load knows
}

func (e *Error) Error() string { return "config: " + e.Key + ": " + e.Msg }

// Load builds the Config: Default, then data_dir from $STATE_DIRECTORY, then the file, then DORMOUSE_*
// variables, then flags, each overriding the one before, and validates the result. Every bad setting is
// reported, not just the first.
func Load(opts Options) (Config, error) {
	path, explicit := opts.Path, opts.Path != ""
	if !explicit {
		path = defaultPath
	}
	data, err := os.ReadFile(path)
	if !explicit && errors.Is(err, fs.ErrNotExist) {
		path, err = "", nil
	}
	if err != nil {
		return Config{}, fmt.Errorf("config: read settings: %w", err)
	}
	return load(data, path, opts.Environ, opts.Flags)
}

// load is Load after the file is read; path "" means there is no file.
func load(data []byte, path string, environ []string, flags map[string]string) (Config, error) {
	c := Default()
	env := parseEnviron(environ)
	if dir, _, _ := strings.Cut(env["STATE_DIRECTORY"], ":"); dir != "" {
		c.DataDir = dir // systemd's StateDirectory=; with several, the first is ours
	}

	// from says where each setting that is not a default came from, for messages.
	from := map[string]string{}
	var errs []error
	if path != "" {
		errs = append(errs, decodeFile(&c, data, path, from)...)
	}
	for _, name := range slices.Sorted(maps.Keys(env)) {
		i, ok := tab.byEnv[name]
		if !ok || slices.Contains(reservedEnv, name) {
			continue // not ours to complain about: other programs share the prefix
		}
		s := tab.settings[i]
		from[s.key] = "from " + name
		if err := s.set(&c, env[name]); err != nil {
			errs = append(errs, &Error{Key: s.key, Msg: err.Error() + " (" + from[s.key] + ")"})
		}
	}
	for _, key := range slices.Sorted(maps.Keys(flags)) {
		i, ok := tab.byKey[key]
		if !ok {
			errs = append(errs, &Error{Key: key, Msg: unknown(key) + " (from the command line)"})
			continue
		}
		s := tab.settings[i]
		from[s.key] = "from the command line"
		if err := s.set(&c, flags[key]); err != nil {
			errs = append(errs, &Error{Key: s.key, Msg: err.Error() + " (" + from[s.key] + ")"})
		}
	}
	if len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}

	c.normalise()
	if problems := c.validate(); len(problems) > 0 {
		for _, p := range problems {
			if f, ok := from[p.Key]; ok {
				p.Msg += " (" + f + ")"
			}
		}
		return Config{}, problems.join()
	}
	return c, nil
}

// parseEnviron keeps the variables Load reads; a later duplicate wins, as with os/exec.
func parseEnviron(environ []string) map[string]string {
	env := map[string]string{}
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if ok && (strings.HasPrefix(name, "DORMOUSE_") || name == "STATE_DIRECTORY") {
			env[name] = value
		}
	}
	return env
}

// normalise puts names a person may type in any case into the one spelling the rest of Dormouse
// compares against.
func (c *Config) normalise() {
	c.LogLevel = strings.ToLower(strings.TrimSpace(c.LogLevel))
	c.LLM.Provider = strings.ToLower(strings.TrimSpace(c.LLM.Provider))
	c.Storage.Synchronous = strings.ToUpper(strings.TrimSpace(c.Storage.Synchronous))
	if strings.EqualFold(c.Timezone, "Local") {
		c.Timezone = "Local"
	}
}

// decodeFile applies the YAML in data to c. It walks the node tree itself rather than decoding into
// the struct, so that an unknown key or a wrong type is reported with its dotted key, and every
// scalar goes through the same setter as the environment and flags.
func decodeFile(c *Config, data []byte, path string, from map[string]string) []error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	switch err := dec.Decode(&doc); {
	case errors.Is(err, io.EOF):
		return nil // empty, or only comments
	case err != nil:
		return []error{fmt.Errorf("config: parse %s: %w", path, err)}
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil && !isNull(body(&extra)):
		return []error{fmt.Errorf("config: %s: a second YAML document starts at line %d; "+
			"put every setting in one document", path, extra.Line)}
	case err != nil && !errors.Is(err, io.EOF):
		return []error{fmt.Errorf("config: parse %s: %w", path, err)}
	}

	root := body(&doc)
	switch {
	case isNull(root):
		return nil
	case root.Kind != yaml.MappingNode:
		return []error{fmt.Errorf("config: %s: want settings as \"key: value\" lines, got %s at line %d",
			path, kind(root), root.Line)}
	}
	w := walker{c: c, path: path, from: from}
	w.mapping("", root)
	return w.errs
}

type walker struct {
	c    *Config
	path string
	from map[string]string
	errs []error
}

func (w *walker) fail(key string, line int, msg string) {
	w.errs = append(w.errs, &Error{Key: key, Msg: fmt.Sprintf("%s (at %s line %d)", msg, w.path, line)})
}

// mapping applies the keys of n, which sits at the dotted key prefix.
func (w *walker) mapping(prefix string, n *yaml.Node) {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			w.fail(join(prefix, "?"), k.Line, "want a setting name, got "+kind(k))
			continue
		}
		key := join(prefix, k.Value)
		if line, dup := seen[key]; dup {
			w.fail(key, k.Line, fmt.Sprintf("set twice, first at line %d", line))
			continue
		}
		seen[key] = k.Line

		if key == "agents.create" && v.Kind == yaml.MappingNode {
			w.fail(key, v.Line, "want on-write or explicit: agents.create is how agents come into being, so an "+
				"agent named create cannot take a grant here (agents.create.reads); give it another name")
			continue
		}
		if i, ok := tab.byKey[key]; ok {
			w.leaf(tab.settings[i], v)
			continue
		}
		if index, ok := tab.lists[key]; ok {
			w.list(key, index, v)
			continue
		}
		if prefix == "agents" {
			w.agent(key, k.Value, v)
			continue
		}
		if _, ok := tab.children[key]; !ok {
			w.fail(key, k.Line, unknown(key))
			continue
		}
		switch {
		case isNull(v): // "storage:" with nothing under it keeps the defaults
		case v.Kind == yaml.MappingNode:
			w.mapping(key, v)
		default:
			w.fail(key, v.Line, fmt.Sprintf("want the settings under %s indented below it, got %s",
				key, kind(v)))
		}
	}
}

// leaf applies one setting. An empty value ("listen:" or "listen: ~") keeps the default.
func (w *walker) leaf(s setting, v *yaml.Node) {
	var err error
	switch {
	case isNull(v):
		return
	case v.Kind == yaml.ScalarNode:
		err = s.set(w.c, v.Value)
	case v.Kind == yaml.SequenceNode && s.typ == stringsType:
		items := make([]string, 0, len(v.Content))
		for _, item := range v.Content {
			item = resolve(item)
			if item.Kind != yaml.ScalarNode {
				err = fmt.Errorf("want %s, got %s in the list", want(s.typ), kind(item))
				break
			}
			if !isNull(item) {
				items = append(items, item.Value)
			}
		}
		if err == nil {
			err = s.setList(w.c, items)
		}
	default:
		err = fmt.Errorf("want %s, got %s", want(s.typ), kind(v))
	}
	if err != nil {
		w.fail(s.key, v.Line, err.Error())
		return
	}
	w.from[s.key] = fmt.Sprintf("at %s line %d", w.path, v.Line)
}

// body is the content of a document node.
func body(doc *yaml.Node) *yaml.Node {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		return resolve(doc.Content[0])
	}
	return doc
}

// resolve follows an alias (*name) to the node it names.
func resolve(n *yaml.Node) *yaml.Node {
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == 0 || n.Kind == yaml.DocumentNode && len(n.Content) == 0 ||
		n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return fmt.Sprintf("%q", n.Value)
	}
	return "an alias"
}
