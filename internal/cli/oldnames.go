package cli

import "flag"

// A flag is named as the API names its field (--session-id for session_id,
// --budget-tokens for budget_tokens); a flag's old name is taken for one
// release, so that scripts written against it keep working.

// oldName makes old a second name of fs's flag name. Giving both with
// different values is a usage error (see checkOldNames).
func oldName(fs *flag.FlagSet, old, name string) {
	f := fs.Lookup(name)
	current := &given{Value: f.Value}
	f.Value = current
	fs.Var(&given{Value: current.Value, of: name, twin: current}, old, "old name of --"+name+", taken for one release")
}

// given records the value a flag was given under its own name.
type given struct {
	flag.Value
	set  bool
	last string
	of   string // for an old name: the flag it names
	twin *given // for an old name: the flag's own record
}

func (g *given) Set(s string) error {
	g.set, g.last = true, s
	return g.Value.Set(s)
}

// String is also called on a zero given, for the usage text.
func (g *given) String() string {
	if g == nil || g.Value == nil {
		return ""
	}
	return g.Value.String()
}

// checkOldNames refuses a flag given under both its names with different values.
func checkOldNames(fs *flag.FlagSet) error {
	var err error
	fs.Visit(func(f *flag.Flag) {
		g, ok := f.Value.(*given)
		if ok && g.twin != nil && g.twin.set && g.twin.last != g.last && err == nil {
			err = usagef("--%s %q and its old name --%s %q differ: give --%s alone", g.of, g.twin.last, f.Name, g.last, g.of)
		}
	})
	return err
}

// givenAs is the name flag name was given under: its old name when only
// that was used, so an error speaks of what was typed.
func givenAs(fs *flag.FlagSet, name string) string {
	as := name
	fs.Visit(func(f *flag.Flag) {
		if g, ok := f.Value.(*given); ok && g.of == name {
			as = f.Name
		}
	})
	return as
}
