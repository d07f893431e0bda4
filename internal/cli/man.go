package cli

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// The man page and the bash completion script are built by walking the
// command table and asking every command (and verb) for its --help, as a
// person would: what help says is what they say, so they cannot drift.

// helpEntry is one command or verb as its --help describes it.
type helpEntry struct {
	command  string // "recall", or "watch scan" for a verb
	summary  string // the command table's line (commands only)
	synopsis string
	text     string // what --help printed when no flag set did (a verb list)
	flags    []*flag.Flag
}

// walkHelp runs every command and verb with --help and collects what each
// one's flag set holds.
func walkHelp(ctx context.Context) []helpEntry {
	var out []helpEntry
	for _, c := range commands() {
		for _, args := range helpArgs(c.name) {
			var text bytes.Buffer
			e := helpEntry{command: strings.Join(args[:len(args)-1], " ")}
			if len(args) == 2 {
				e.summary = c.summary
			}
			var seen *flag.FlagSet
			env := Env{Stdout: &text, Stderr: io.Discard, onFlags: func(fs *flag.FlagSet, synopsis string) {
				seen, e.synopsis = fs, synopsis
			}}
			_ = c.run(ctx, env, args[1:]) // --help: flag.ErrHelp, or the verb list
			if seen == nil {
				e.text = strings.TrimSpace(text.String())
			} else { // the command has defined its flags by the time it parses
				visitShown(seen, func(f *flag.Flag) { e.flags = append(e.flags, f) })
			}
			out = append(out, e)
		}
	}
	return out
}

// helpArgs are the --help invocations of a command: the command's own and,
// for a command of verbs, each verb's.
func helpArgs(name string) [][]string {
	out := [][]string{{name, "--help"}}
	for _, v := range commandVerbs[name] {
		if v != "" {
			out = append(out, []string{name, v, "--help"})
		}
	}
	return out
}

// runCompletion prints the completion script for a shell (bash, for now).
func runCompletion(ctx context.Context, env Env, args []string) error {
	shell, rest, ok, err := splitVerb(env, args, "Usage: dormouse completion bash\n\n"+
		"Prints a bash completion script: commands, verbs and flags. Packaged in\n"+
		"/usr/share/bash-completion/completions/dormouse; by hand: source <(dormouse completion bash)",
		"completion needs a shell: bash")
	if !ok {
		return err
	}
	if shell != "bash" || len(rest) > 0 {
		return usagef("completion knows bash only, got %q", args)
	}
	return writeBashCompletion(env.Stdout, walkHelp(ctx))
}

// writeMan writes dormouse(1) in roff (man macros).
func writeMan(w io.Writer, entries []helpEntry) error {
	var b strings.Builder
	fmt.Fprintf(&b, ".TH DORMOUSE 1 \"\" \"dormouse %s\" \"User Commands\"\n", roff(Version))
	b.WriteString(".SH NAME\ndormouse \\- a memory appliance for AI agents\n")
	b.WriteString(".SH SYNOPSIS\n.B dormouse\n.I COMMAND\n[flags] [args]\n")
	b.WriteString(manDescription)
	b.WriteString(".SH COMMANDS\n")
	for _, e := range entries {
		writeManEntry(&b, e)
	}
	b.WriteString(manTail)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeManEntry(b *strings.Builder, e helpEntry) {
	fmt.Fprintf(b, ".SS %s\n", roff(e.command))
	if e.summary != "" {
		fmt.Fprintf(b, "%s\n", roff(capitalise(e.summary)+"."))
	}
	if e.synopsis != "" {
		fmt.Fprintf(b, ".PP\n.B dormouse %s\n%s\n", roff(e.command), roff(e.synopsis))
	}
	if e.text != "" {
		fmt.Fprintf(b, ".PP\n.nf\n%s\n.fi\n", roff(e.text))
	}
	for _, f := range e.flags {
		term := `\fB\-\-` + roff(f.Name) + `\fR`
		if arg := flagArg(f); arg != "" {
			term += ` \fI` + roff(arg) + `\fR`
		}
		fmt.Fprintf(b, ".TP\n%s\n%s\n", term, roff(flagUsage(f)))
	}
}

const manDescription = `.SH DESCRIPTION
.B dormouse
is an always-on memory for AI agents: the daemon
.RB ( "dormouse serve" )
stores what agents tell it, recalls it with citations, and consolidates each
day into a day record and long-term facts. Every other command talks to the
daemon over HTTP at
.B \-\-addr
(default: the configured listen address, 127.0.0.1:7733), or, with
.BI \-\-data " DIR",
works on the agent files in DIR directly, without a daemon. Flags may come
before or after a command's arguments.
`

const manTail = `.SH EXIT STATUS
.TP
.B 0
Success, or help that was asked for.
.TP
.B 1
The command failed: the daemon could not be reached, a file could not be
opened, an id was not found.
.TP
.B 2
A usage or configuration mistake: an unknown command or flag, a bad value,
an invalid configuration, a listen address that is in use or not permitted.
.SH ENVIRONMENT
.TP
.B DORMOUSE_CONFIG
The configuration file (default /etc/dormouse/dormouse.yaml when it exists).
.TP
.B DORMOUSE_ADDR
The daemon's address for the client commands, as \-\-addr.
.TP
.B DORMOUSE_TOKEN
A bearer token the client commands send to the daemon.
.TP
.B DORMOUSE_*
Any configuration key, as documented with the configuration file.
.SH FILES
.TP
.I /etc/dormouse/dormouse.yaml
The configuration.
.TP
.I /var/lib/dormouse
The data directory of the packaged daemon: one SQLite file per agent.
.SH SEE ALSO
.BR systemctl (1),
.BR journalctl (1)
`

// roff escapes text for a man page: backslashes, and a leading dot or
// quote that would start a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = `\&` + l
		}
	}
	return strings.Join(lines, "\n")
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// writeBashCompletion writes a completion function for bash: commands,
// verbs, and each command's (or verb's) flags.
func writeBashCompletion(w io.Writer, entries []helpEntry) error {
	var cases strings.Builder
	var names []string
	takes := map[string]map[string]bool{"path": {}, "value": {}} // flags that take a file name, or another value
	for _, e := range entries {
		if !strings.Contains(e.command, " ") {
			names = append(names, e.command)
		}
		var flags []string
		for _, f := range e.flags {
			flags = append(flags, "--"+f.Name)
			switch flagArg(f) {
			case "":
			case "FILE", "DIR":
				takes["path"]["--"+f.Name] = true
			default:
				takes["value"]["--"+f.Name] = true
			}
		}
		fmt.Fprintf(&cases, "\t%q) flags=%q ;;\n", e.command, strings.Join(flags, " "))
	}
	var verbCases strings.Builder
	for _, name := range names {
		if vs := realVerbs(name); len(vs) > 0 {
			fmt.Fprintf(&verbCases, "\t%s) verbs=%q ;;\n", name, strings.Join(vs, " "))
		}
	}
	_, err := fmt.Fprintf(w, bashTemplate, strings.Join(names, " "), verbCases.String(), cases.String(),
		alternatives(takes["path"]), alternatives(takes["value"]))
	return err
}

// alternatives is a case pattern matching any of set's words.
func alternatives(set map[string]bool) string {
	words := slices.Sorted(maps.Keys(set))
	if len(words) == 0 {
		return "--" // matches no flag given
	}
	return strings.Join(words, "|")
}

// realVerbs are a command's verbs without the "" that stands for the
// command alone.
func realVerbs(name string) []string {
	var out []string
	for _, v := range commandVerbs[name] {
		if v != "" {
			out = append(out, v)
		}
	}
	return out
}

// bashTemplate: %[1]s the commands, %[2]s the verbs of each command, %[3]s
// the flags of each command and verb, %[4]s the flags that take a file or
// directory (completed as file names), %[5]s those that take another value
// (not completed).
const bashTemplate = `# bash completion for dormouse, generated by 'dormouse completion bash'.
_dormouse() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	if [[ $COMP_CWORD -eq 1 ]]; then
		COMPREPLY=($(compgen -W "%[1]s --help --version" -- "$cur"))
		return
	fi
	case $prev in
	%[4]s)
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	%[5]s)
		COMPREPLY=()
		return ;;
	esac
	local cmd=${COMP_WORDS[1]} verbs=""
	case $cmd in
%[2]s	esac
	if [[ -n $verbs && $COMP_CWORD -eq 2 && $cur != -* ]]; then
		COMPREPLY=($(compgen -W "$verbs" -- "$cur"))
		return
	fi
	if [[ -n $verbs && $COMP_CWORD -gt 2 && " $verbs " == *" ${COMP_WORDS[2]} "* ]]; then
		cmd="$cmd ${COMP_WORDS[2]}"
	fi
	local flags=""
	case $cmd in
%[3]s	esac
	COMPREPLY=($(compgen -W "$flags --help" -- "$cur"))
}
complete -F _dormouse dormouse
`
