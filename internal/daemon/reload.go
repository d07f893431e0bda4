package daemon

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"reflect"

	sd "github.com/coreos/go-systemd/v22/daemon"
	"golang.org/x/sys/unix"

	"github.com/dormouse-dev/dormouse/internal/auth"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/gate"
)

// Reload is how a running daemon takes a new configuration (SIGHUP, or
// systemctl reload): Hangups delivers the requests, Load reads the
// configuration afresh as it was read at start-up. A zero Reload never
// reloads.
type Reload struct {
	Hangups <-chan os.Signal
	Load    func() (config.Config, error)
}

// reloader applies what a new configuration changes that can change live:
// the tokens and the read grants. The rest waits for a restart, and the
// log says so.
type reloader struct {
	Reload
	keys  *auth.Keyring
	reads *gate.Reads
	log   *slog.Logger
}

// run reloads on each hangup until ctx ends.
func (r reloader) run(ctx context.Context, running config.Config) {
	if r.Hangups == nil || r.Load == nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-r.Hangups:
		}
		notify(r.log, reloading())
		if next, err := r.apply(running); err != nil {
			r.log.Error("reload refused: the daemon keeps the configuration it had", "err", err)
		} else {
			running = next
		}
		notify(r.log, sd.SdNotifyReady)
	}
}

// apply loads the configuration and swaps in its tokens and read grants; a configuration
// that does not load or validate changes nothing.
func (r reloader) apply(running config.Config) (config.Config, error) {
	next, err := r.Load()
	if err != nil {
		return running, err
	}
	keys, err := Keyring(next)
	if err != nil {
		return running, err
	}
	if keys.Enabled() != r.keys.Enabled() {
		// Routes choose at start-up whether to ask for tokens at all, and the
		// listen check (no token-less listening beyond loopback) ran then.
		return running, fmt.Errorf("auth.tokens: turning tokens on or off needs a restart (systemctl restart dormouse)")
	}
	r.keys.Replace(keys)
	r.reads.Replace(next.Agents.Reads)
	for _, key := range needsRestart(running, next) {
		r.log.Warn("configuration changed but needs a restart to take effect", "key", key)
	}
	r.log.Info("reloaded", "tokens", len(next.Auth.Tokens))
	return next, nil
}

// needsRestart names the settings that differ and that only a restart
// applies: everything but auth.tokens and agents.<reader>.reads. The
// listen address, the data directory and the replica are the ones people
// change most (a new NAS); the others are lumped.
func needsRestart(running, next config.Config) []string {
	var keys []string
	if running.Listen != next.Listen {
		keys = append(keys, "listen")
	}
	if running.DataDir != next.DataDir {
		keys = append(keys, "data_dir")
	}
	if running.Replication != next.Replication {
		keys = append(keys, "replication")
	}
	running.Listen, running.DataDir, running.Replication, running.Auth.Tokens = next.Listen, next.DataDir, next.Replication, next.Auth.Tokens
	running.Agents.Reads = next.Agents.Reads
	if !reflect.DeepEqual(running, next) {
		keys = append(keys, "other settings (all but auth.tokens and agents.*.reads)")
	}
	return keys
}

// reloading is RELOADING=1 with CLOCK_MONOTONIC in microseconds, which
// systemd wants beside it to tell this reload from an earlier one.
func reloading() string {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err != nil {
		return "RELOADING=1"
	}
	return fmt.Sprintf("RELOADING=1\nMONOTONIC_USEC=%d", ts.Sec*1_000_000+ts.Nsec/1000)
}
