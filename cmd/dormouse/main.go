// Command dormouse is a memory appliance for AI agents: run "dormouse serve"
// for the daemon, "dormouse help" for the other commands.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/dormouse-dev/dormouse/internal/cli"
)

func main() {
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
