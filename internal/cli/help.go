package cli

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// commandVerbs lists the verbs of the commands made of verbs ("" for the
// command alone, when it does something without one), for the help walk
// the man page and the completion script are built from (a test checks
// every command either has flags of its own or is listed here).
var commandVerbs = map[string][]string{
	"watch":   {"list", "scan", "status"},
	"token":   {"new"},
	"bench":   {"locomo"},
	"facts":   {"", "correct"},
	"profile": {"", "edit", "remove"},
}

// printCommandHelp prints a command's usage with its flags as the README
// writes them: --addr, never -addr.
func printCommandHelp(w io.Writer, fs *flag.FlagSet, synopsis string) {
	fmt.Fprintf(w, "Usage: dormouse %s %s\n", fs.Name(), synopsis)
	if !hasFlags(fs) {
		return
	}
	fmt.Fprint(w, "\nFlags:\n")
	visitShown(fs, func(f *flag.Flag) {
		fmt.Fprintf(w, "  %s\n    \t%s\n", flagTerm(f), flagUsage(f))
	})
}

// visitShown visits the flags help shows: not the old names, which work for
// one release but are no longer taught (help, the man page, completion).
func visitShown(fs *flag.FlagSet, fn func(*flag.Flag)) {
	fs.VisitAll(func(f *flag.Flag) {
		if _, old := f.Value.(*oldValue); !old {
			fn(f)
		}
	})
}

func hasFlags(fs *flag.FlagSet) bool {
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	return n > 0
}

// flagTerm is "--name ARG", or "--name" for a switch.
func flagTerm(f *flag.Flag) string {
	if arg := flagArg(f); arg != "" {
		return "--" + f.Name + " " + arg
	}
	return "--" + f.Name
}

// flagArgs names the argument of the common flags; others take their
// flag's name, numbers N.
var flagArgs = map[string]string{
	"addr": "HOST:PORT", "data": "DIR", "config": "FILE", "file": "FILE", "agent": "NAME",
	"at": "TIME", "since": "TIME", "until": "TIME", "as-of": "TIME",
}

func flagArg(f *flag.Flag) string {
	kind, _ := flag.UnquoteUsage(f)
	switch {
	case kind == "":
		return "" // a bool: a switch
	case kind == "int" || kind == "uint" || kind == "float" || kind == "int64" || kind == "uint64":
		return "N"
	case flagArgs[f.Name] != "":
		return flagArgs[f.Name]
	}
	return strings.ToUpper(f.Name)
}

// flagUsage is the flag's text with its default when that is not the zero
// value.
func flagUsage(f *flag.Flag) string {
	_, usage := flag.UnquoteUsage(f)
	switch f.DefValue {
	case "", "0", "false":
		return usage
	}
	if kind, _ := flag.UnquoteUsage(f); kind == "string" {
		return fmt.Sprintf("%s (default %q)", usage, f.DefValue)
	}
	return fmt.Sprintf("%s (default %s)", usage, f.DefValue)
}

// rerun is the command line that runs fs's command again with the flags it
// was given, flag name set to value: the next page of a list, say, of the
// same agent through the same daemon or files.
func rerun(fs *flag.FlagSet, name, value string) string {
	words := []string{"dormouse", fs.Name()}
	fs.Visit(func(f *flag.Flag) {
		switch {
		case f.Name == name:
		case flagArg(f) == "" && f.Value.String() == "true":
			words = append(words, "--"+f.Name)
		case flagArg(f) == "":
			words = append(words, "--"+f.Name+"="+f.Value.String())
		default:
			words = append(words, "--"+f.Name, shellWord(f.Value.String()))
		}
	})
	return strings.Join(append(words, "--"+name, shellWord(value)), " ")
}

// shellWord quotes s for a POSIX shell when it needs quoting.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,@+%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
