package cli

import "flag"

// A flag is named as the API names its field (--session-id for session_id,
// --budget-tokens for budget_tokens); a flag's old name is taken for one
// release, so that scripts written against it keep working.

// oldName makes old a second name of fs's flag name. What old is given is
// applied to name once the flags are parsed (checkOldNames), unless name was
// given too: the same value is fine, another is a usage error.
func oldName(fs *flag.FlagSet, old, name string) {
	fs.Var(&oldValue{of: fs.Lookup(name)}, old, "old name of --`"+name+"`, taken for one release")
}

// oldValue holds what a flag's old name was given.
type oldValue struct {
	of   *flag.Flag
	set  bool
	last string
}

func (o *oldValue) Set(s string) error {
	o.set, o.last = true, s
	return nil
}

// String is also called on a zero oldValue, for the usage text.
func (o *oldValue) String() string {
	if o == nil {
		return ""
	}
	return o.last
}

// IsBoolFlag keeps a boolean flag's -flag (without =true) working under its old name.
func (o *oldValue) IsBoolFlag() bool {
	b, ok := o.of.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// checkOldNames applies the flags given by their old names, and refuses one
// given under both names with different values.
func checkOldNames(fs *flag.FlagSet) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		o, ok := f.Value.(*oldValue)
		switch {
		case !ok || !o.set || err != nil:
		case !set[o.of.Name]:
			if serr := o.of.Value.Set(o.last); serr != nil {
				err = usagef("invalid value %q for flag -%s: %v", o.last, f.Name, serr)
			}
		case o.of.Value.String() != o.last:
			err = usagef("--%s %q and its old name --%s %q differ: give --%s alone", o.of.Name, o.of.Value.String(), f.Name, o.last, o.of.Name)
		}
	})
	return err
}

// givenAs is the name flag name was given under: its old name when only
// that was used, so an error speaks of what was typed.
func givenAs(fs *flag.FlagSet, name string) string {
	as := name
	fs.Visit(func(f *flag.Flag) {
		if o, ok := f.Value.(*oldValue); ok && o.of.Name == name {
			as = f.Name
		}
	})
	return as
}
