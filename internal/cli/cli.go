// Package cli implements the dormouse command: the daemon and the verbs that
// talk to it over HTTP or, with --data, to the agent files directly.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/logging"
)

// Version is set at build time (-ldflags -X).
var Version = "dev"

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1
	ExitUsage = 2
)

// Env is the process's outside world, passed in so tests can run commands
// in-process.
type Env struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Environ        []string
	// Euid is the effective user id (local writes refuse root in a
	// directory owned by someone else).
	Euid int
	// Notify is signal.Notify: serve asks it for SIGHUP, to reload. Nil
	// (tests) delivers nothing.
	Notify func(c chan<- os.Signal, sig ...os.Signal)
	// onFlags, when set, is shown every flag set a command makes: the man
	// page and the completion script are built from what it sees.
	onFlags func(fs *flag.FlagSet, synopsis string)
}

func (e Env) getenv(key string) string {
	for _, kv := range e.Environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}

type command struct {
	name    string
	summary string
	run     func(ctx context.Context, env Env, args []string) error
}

func commands() []command {
	return []command{
		{"serve", "run the daemon", runServe},
		{"ingest", "store a memory (text from arguments or stdin)", runIngest},
		{"recall", "print the context recalled for a query, with citations", runRecall},
		{"ask", "answer a question from memory, citing what it used", runAsk},
		{"eval", "play memory scenarios and report what memory contributes", runEval},
		{"list", "list memories, newest first", runList},
		{"show", "show one memory, fact, day record or profile line (12, fact:12, consolidation:12, profile:12)", runShow},
		{"facts", "list facts (--entity, --history); facts correct fact:ID STATEMENT", runFacts},
		{"profile", "print the profile by category (--as-of); profile edit ID TEXT; profile remove ID", runProfile},
		{"share", "copy a memory into another agent, naming where it came from: share AGENT ID --to OTHER", runShare},
		{"forget", "forget memories (ID, memory:ID) or facts (fact:ID, --fact ID)", runForget},
		{"consolidate", "turn days of memories into day records and facts", runConsolidate},
		{"status", "show agents, counts and file sizes", runStatus},
		{"agents", "list, create and delete agents: agents [list | create NAME | delete NAME --yes]", runAgentVerbs},
		{"export", "write an agent's memories out: JSON lines (lossless) or a Markdown note per day", runExport},
		{"import", "read an export back into an agent (all of it, or nothing)", runImport},
		{"backup", "write verified copies of the agent files (what the nightly timer runs)", runBackup},
		{"restore", "put an agent's file back from a backup, or from its replica with --from-replica (daemon stopped); --drill checks the replicas", runRestore},
		{"doctor", "check the installation and say how to fix what is wrong", runDoctor},
		{"watch", "watched folders: list, scan, status", runWatch},
		{"mcp", "serve the MCP tools over stdio (for Claude Code and other MCP clients)", runMCP},
		{"bench", "run a benchmark: bench locomo [--data FILE]", runBench},
		{"token", "draw a bearer token for the API: token new --name NAME --agents a,b", runToken},
		{"completion", "print a shell completion script: completion bash", runCompletion},
		{"version", "print the version", func(_ context.Context, env Env, _ []string) error {
			fmt.Fprintln(env.Stdout, "dormouse", Version)
			return nil
		}},
	}
}

// usageError marks mistakes in how a command was called: exit code 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// splitVerb reads the first argument of a command made of verbs (bench, token,
// watch). Without one, or with -h, --help or help, it prints help and ok
// is false: err is nil for help asked for, and the usage error missing
// names when no verb was given.
func splitVerb(env Env, args []string, help, missing string) (name string, rest []string, ok bool, err error) {
	if len(args) > 0 && args[0] != "-h" && args[0] != "--help" && args[0] != "help" {
		return args[0], args[1:], true, nil
	}
	fmt.Fprintln(env.Stdout, help)
	if len(args) == 0 {
		return "", nil, false, usagef("%s", missing)
	}
	return "", nil, false, nil
}

// Main runs the command line and returns the exit code.
func Main(ctx context.Context, args []string, env Env) int {
	if len(args) == 2 && args[0] == "help" && args[1] != "--man" {
		args = []string{args[1], "--help"} // help recall is recall --help
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		return runHelp(env, args)
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "-v" {
		args = []string{"version"}
	}
	for _, c := range commands() {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, env, args[1:])
		return report(env.Stderr, c.name, err)
	}
	fmt.Fprintf(env.Stderr, "dormouse: unknown command %q", args[0])
	if s := suggest(args[0], commandNames()); s != "" {
		fmt.Fprintf(env.Stderr, " — did you mean %s?", s)
	}
	fmt.Fprintln(env.Stderr, "\nRun 'dormouse help' for the commands.")
	return ExitUsage
}

// runHelp prints the command list: asked for (help, --help) it succeeds,
// as the answer to no command at all it is a usage error. The hidden help
// --man prints the man page (make man).
func runHelp(env Env, args []string) int {
	if len(args) == 2 && args[0] == "help" && args[1] == "--man" {
		return report(env.Stderr, "help", writeMan(env.Stdout, walkHelp(context.Background())))
	}
	printUsage(env.Stdout)
	if len(args) == 0 {
		return ExitUsage
	}
	return ExitOK
}

func commandNames() []string {
	var names []string
	for _, c := range commands() {
		names = append(names, c.name)
	}
	return names
}

func report(w io.Writer, name string, err error) int {
	var ue *usageError
	var ce *config.Error
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, &ue):
		fmt.Fprintf(w, "dormouse %s: %s\nRun 'dormouse %s --help' for its flags.\n", name, ue.msg, name)
		return ExitUsage
	case errors.As(err, &ce):
		fmt.Fprintf(w, "dormouse %s: %s\n", name, err)
		return ExitUsage
	}
	if msg, code, ok := explain(name, err); ok {
		fmt.Fprintf(w, "dormouse %s: %s\n", name, msg)
		return code
	}
	fmt.Fprintf(w, "dormouse %s: %s\n", name, err)
	return ExitError
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "dormouse — a memory appliance for AI agents")
	fmt.Fprintln(w, "\nUsage: dormouse COMMAND [flags] [args]\n\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun 'dormouse help COMMAND' or 'dormouse COMMAND --help' for a command's flags.")
}

// newFlags returns a flag set that reports errors (not exits) and prints
// its usage to env.Stdout when --help asks for it, and only then: a
// mistyped flag gets the error and one hint, not every flag.
func newFlags(env Env, name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() { printCommandHelp(env.Stdout, fs, synopsis) }
	if env.onFlags != nil {
		env.onFlags(fs, synopsis)
	}
	return fs
}

// parseNone parses the flags of a command that takes no arguments.
func parseNone(fs *flag.FlagSet, args []string) error {
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("%s takes no arguments, got %q", fs.Name(), pos)
	}
	return nil
}

// parse accepts flags before and after positional arguments ("recall 'what
// did Bob say' --json") and returns the positional ones.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	help := fs.Usage
	fs.Usage = func() {} // the flag package calls it on every error too
	defer func() { fs.Usage = help }()
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				help()
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, checkOldNames(fs)
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

// common are the flags every client command shares.
type common struct {
	configPath string
	addr       string
	data       string
	agent      string
	json       bool
}

// agentCommand starts the flags of a command about one agent: the common
// flags and --agent.
func agentCommand(env Env, name, synopsis string) (*flag.FlagSet, *common) {
	fs, c := newFlags(env, name, synopsis), &common{}
	c.register(fs, true)
	return fs, c
}

// hostCommand starts the flags of a command about the host or every agent:
// the common flags without --agent.
func hostCommand(env Env, name, synopsis string) (*flag.FlagSet, *common) {
	fs, c := newFlags(env, name, synopsis), &common{}
	c.register(fs, false)
	return fs, c
}

func (c *common) register(fs *flag.FlagSet, withAgent bool) {
	fs.StringVar(&c.configPath, "config", "", "configuration file (default "+config.DefaultPath+" if it exists; env DORMOUSE_CONFIG)")
	fs.StringVar(&c.addr, "addr", "", "daemon address host:port (env DORMOUSE_ADDR; default: the configured listen address)")
	fs.StringVar(&c.data, "data", "", "work on the agent files in this data directory directly, without a daemon")
	if withAgent {
		fs.StringVar(&c.agent, "agent", "main", "agent name")
	}
	fs.BoolVar(&c.json, "json", false, "print JSON")
}

// loadConfig applies the layered configuration. flags maps dotted keys to
// values of the flags the user set.
func loadConfig(env Env, path string, flags map[string]string) (config.Config, error) {
	if path == "" {
		path = env.getenv("DORMOUSE_CONFIG")
	}
	return config.Load(config.Options{Path: path, Environ: env.Environ, Flags: flags})
}

func newLogger(w io.Writer, level string) *slog.Logger {
	return logging.Text(w, logging.ParseLevel(level))
}

// envLogger logs to journald when systemd connected stderr to the journal
// (the daemon and the nightly jobs), to stderr as text otherwise.
func envLogger(env Env, level string) *slog.Logger {
	return logging.New(env.Environ, env.Stderr, level)
}
