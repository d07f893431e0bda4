package config

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// setting is one leaf of Config, found by reflection over the yaml tags so that the file, the
// environment and the flags all know a new field the moment it exists.
type setting struct {
	key   string // dotted yaml key: "storage.read_conns"
	env   string // DORMOUSE_STORAGE_READ_CONNS
	index []int  // for reflect.Value.FieldByIndex
	typ   reflect.Type
}

var (
	durationType = reflect.TypeFor[Duration]()
	stringsType  = reflect.TypeFor[[]string]()
)

// reservedEnv are DORMOUSE_* variables that belong to the CLI (where to reach the daemon, which file,
// which token); Load must never read them as settings.
var reservedEnv = []string{"DORMOUSE_ADDR", "DORMOUSE_CONFIG", "DORMOUSE_TOKEN"}

// table is the settings of Config, built once from its type.
type table struct {
	settings []setting           // sorted by key
	byKey    map[string]int      // dotted key → settings index
	byEnv    map[string]int      // variable name → settings index
	children map[string][]string // "" and each section key → the names directly under it, in field order
	lists    map[string][]int    // keys of lists of sections (watch) → their field index; file only
}

var tab = buildTable()

func buildTable() table {
	t := table{byKey: map[string]int{}, byEnv: map[string]int{}, children: map[string][]string{},
		lists: map[string][]int{}}
	var walk func(typ reflect.Type, prefix string, index []int)
	walk = func(typ reflect.Type, prefix string, index []int) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
			if name == "" || name == "-" {
				panic(fmt.Sprintf("config: field %s.%s needs a yaml tag", typ.Name(), f.Name))
			}
			key := join(prefix, name)
			t.children[prefix] = append(t.children[prefix], name)
			idx := append(slices.Clip(index), i)
			if f.Type.Kind() == reflect.Struct {
				walk(f.Type, key, idx)
				continue
			}
			if f.Type.Kind() == reflect.Map {
				continue // agents.<reader>: named sections, decoded by walker.agent; file only
			}
			if f.Type.Kind() == reflect.Slice && f.Type.Elem().Kind() == reflect.Struct {
				t.lists[key] = idx // decoded by walker.list; no environment variable or flag
				continue
			}
			if want(f.Type) == "" {
				panic(fmt.Sprintf("config: %s has type %s, which the setter cannot parse", key, f.Type))
			}
			env := "DORMOUSE_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
			if slices.Contains(reservedEnv, env) {
				panic(fmt.Sprintf("config: %s would be read from %s, which the CLI owns", key, env))
			}
			t.settings = append(t.settings, setting{key: key, env: env, index: idx, typ: f.Type})
		}
	}
	walk(reflect.TypeFor[Config](), "", nil)
	slices.SortFunc(t.settings, func(a, b setting) int { return strings.Compare(a.key, b.key) })
	for i, s := range t.settings {
		if _, dup := t.byEnv[s.env]; dup {
			panic(fmt.Sprintf("config: two settings share the variable %s", s.env))
		}
		t.byKey[s.key] = i
		t.byEnv[s.env] = i
	}
	return t
}

// Keys returns every dotted setting key, sorted.
func Keys() []string {
	keys := make([]string, len(tab.settings))
	for i, s := range tab.settings {
		keys[i] = s.key
	}
	return keys
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// want describes what a setting of type t accepts, for messages; "" means the setter cannot parse it.
func want(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[time.Duration]():
		return "" // it would read a bare number as nanoseconds; use Duration
	case durationType:
		return durationWant[len("want "):]
	case stringsType:
		return "a list such as [main, coder]"
	}
	switch t.Kind() {
	case reflect.String:
		return "a single value"
	case reflect.Int, reflect.Int64:
		return "a whole number"
	case reflect.Bool:
		return "true or false"
	case reflect.Float64:
		return "a number such as 0.2"
	}
	return ""
}

// set parses raw into this setting of c. It is the one way a value from the environment, a flag or a
// YAML scalar reaches a Config, so all three accept the same spellings. A list is comma-separated.
func (s setting) set(c *Config, raw string) error {
	return setValue(reflect.ValueOf(c).Elem().FieldByIndex(s.index), raw)
}

// setValue parses raw into v, a settable field of one of the types want accepts.
func setValue(v reflect.Value, raw string) error {
	typ := v.Type()
	switch typ {
	case durationType:
		var d Duration
		if err := d.UnmarshalText([]byte(strings.TrimSpace(raw))); err != nil {
			return err
		}
		v.SetInt(int64(d))
		return nil
	case stringsType:
		var items []string
		for item := range strings.SplitSeq(raw, ",") {
			items = append(items, strings.TrimSpace(item))
		}
		return setListValue(v, items)
	}
	switch typ.Kind() {
	case reflect.String:
		v.SetString(raw)
	case reflect.Int, reflect.Int64:
		n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, typ.Bits())
		if errors.Is(err, strconv.ErrRange) {
			return fmt.Errorf("want a whole number, got %q, which is out of range", raw)
		}
		if err != nil {
			return fmt.Errorf("want a whole number, got %q", raw)
		}
		v.SetInt(n)
	case reflect.Float64:
		f, err := strconv.ParseFloat(strings.TrimSpace(raw), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("want a number such as 0.2, got %q", raw)
		}
		v.SetFloat(f)
	case reflect.Bool:
		switch strings.ToLower(strings.TrimSpace(raw)) {
		case "true", "yes", "on", "1":
			v.SetBool(true)
		case "false", "no", "off", "0":
			v.SetBool(false)
		default:
			return fmt.Errorf("want true or false, got %q", raw)
		}
	}
	return nil
}

// setList sets a list setting from items, dropping empty ones so that "", "a,,b" and [] read as a
// person means them; an empty list is nil, as in Default.
func (s setting) setList(c *Config, items []string) error {
	return setListValue(reflect.ValueOf(c).Elem().FieldByIndex(s.index), items)
}

func setListValue(v reflect.Value, items []string) error {
	if v.Type() != stringsType {
		return fmt.Errorf("want %s, got a list", want(v.Type()))
	}
	var list []string
	for _, item := range items {
		if item != "" {
			list = append(list, item)
		}
	}
	v.Set(reflect.ValueOf(list))
	return nil
}

// unknown explains that key is not a setting and suggests the one probably meant.
func unknown(key string) string {
	if l := last(key); strings.Contains(l, "key") || strings.Contains(l, "token") || strings.Contains(l, "secret") ||
		strings.Contains(l, "password") {
		return "not a setting: secrets never go in this file; give API keys to the service through its " +
			"environment (OPENAI_API_KEY, ANTHROPIC_API_KEY, GOOGLE_API_KEY, AWS_*) or a file of that name under " +
			"$CREDENTIALS_DIRECTORY (systemd LoadCredential=)"
	}
	if s := suggest(key); s != "" {
		return "not a setting; did you mean " + s + "?"
	}
	parent := ""
	if i := strings.LastIndexByte(key, '.'); i >= 0 {
		parent = key[:i]
	}
	names, ok := tab.children[parent]
	switch {
	case !ok:
		return "not a setting"
	case parent == "":
		return "not a setting; the top-level names are " + strings.Join(names, ", ")
	default:
		return "not a setting; the settings under " + parent + " are " + strings.Join(names, ", ")
	}
}

// suggest returns the key or section whose last name is closest to key's, or "" if none is close: at
// most one edit per four characters typed. Comparing last names finds misplaced keys too
// ("storage.listen" suggests "listen"); on a tie, a key in the same section wins.
func suggest(key string) string {
	candidates := Keys()
	for name := range tab.children {
		if name != "" {
			candidates = append(candidates, name)
		}
	}
	slices.Sort(candidates)
	typed, parent := last(key), key[:len(key)-len(last(key))]
	best, bestScore := "", -1
	for _, c := range candidates {
		d := Distance(typed, last(c))
		if c == key || 4*d > len(typed) {
			continue
		}
		score := 2 * d
		if !strings.HasPrefix(c, parent) || strings.Contains(c[len(parent):], ".") {
			score++
		}
		if bestScore < 0 || score < bestScore {
			best, bestScore = c, score
		}
	}
	return best
}

func last(key string) string { return key[strings.LastIndexByte(key, '.')+1:] }

// Distance is the optimal string alignment distance: edits, with a swap of neighbours counted once.
// The CLI's "did you mean" for a mistyped command uses it as the configuration's does for a key.
func Distance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
