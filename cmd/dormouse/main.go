// Command dormouse is a memory appliance for AI agents: run "dormouse serve"
// for the daemon, "dormouse help" for the other commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/dormouse-dev/dormouse/internal/cli"
	"github.com/dormouse-dev/dormouse/internal/files"
)

func main() {
	// The PDF reader's child process (files.Child): hidden, not a command a person runs.
	if len(os.Args) > 1 && os.Args[1] == files.ChildArg {
		os.Exit(files.ServeChild(os.Args[2:], os.Stdin, os.Stdout))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Env{
		Stdin:   os.Stdin,
		Stdout:  os.Stdout,
		Stderr:  os.Stderr,
		Environ: os.Environ(),
		Euid:    os.Geteuid(),
		Notify:  signal.Notify,
	})
	stop()
	os.Exit(code)
}
