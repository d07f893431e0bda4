package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"

	pub "github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/config"
)

// The mistakes a new user makes first, each turned into one line that says
// what to do: the daemon is not running, the data directory belongs to
// another user, the listen address is taken, a command name is mistyped.

// explain returns the message for err and its exit code, or ok false when
// err is none of the mistakes explained here.
func explain(name string, err error) (msg string, code int, ok bool) {
	if addr, reason, ok := dialFailure(err); ok {
		return fmt.Sprintf("cannot reach the daemon at %s — start it (`systemctl start dormouse`, `make run`) or pass --data DIR (%s)", addr, reason), ExitError, true
	}
	if addr, reason, ok := listenFailure(err); ok {
		return fmt.Sprintf("cannot listen on %s: %s: set listen in the configuration or pass --addr HOST:PORT", addr, reason), ExitUsage, true
	}
	if path, ok := permissionFailure(err); ok {
		return permissionMessage(name, path), ExitError, true
	}
	var ae *pub.APIError
	if errors.As(err, &ae) { // the daemon's own words, not the request that drew them
		msg := fmt.Sprintf("%s (HTTP %d %s)", ae.Message, ae.Status, ae.Code)
		if ae.Status == http.StatusUnauthorized { // the CLI sends the token of DORMOUSE_TOKEN, and only that
			msg += ": set DORMOUSE_TOKEN to one of this daemon's tokens (dormouse token new draws one), or pass --data DIR to work on the files"
		}
		return msg, ExitError, true
	}
	return "", 0, false
}

// dialFailure reports a connection to the daemon that could not be made,
// with the address dialled and why.
func dialFailure(err error) (addr, reason string, ok bool) {
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "dial" {
		return "", "", false
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil {
			addr = u.Host
		}
	}
	if addr == "" && oe.Addr != nil {
		addr = oe.Addr.String()
	}
	return addr, rootCause(oe.Err), true
}

// listenFailure reports a listen address the system refused: a
// configuration mistake, not a failure of the daemon.
func listenFailure(err error) (addr, reason string, ok bool) {
	var oe *net.OpError
	if !errors.As(err, &oe) || oe.Op != "listen" {
		return "", "", false
	}
	if oe.Addr != nil {
		addr = oe.Addr.String()
	}
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		reason = "the address is already in use (another dormouse, or another program, listens there)"
	case errors.Is(err, syscall.EACCES):
		reason = "not permitted (ports below 1024 need root or CAP_NET_BIND_SERVICE)"
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		reason = "no network interface of this machine has that address"
	default:
		reason = rootCause(oe.Err)
	}
	return addr, reason, true
}

// rootCause is the innermost error's text: "connection refused" rather
// than the chain of operations around it.
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// permissionFailure reports a file or directory the system would not let
// this user touch.
func permissionFailure(err error) (path string, ok bool) {
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrPermission) || !errors.As(err, &pe) {
		return "", false
	}
	return pe.Path, true
}

// permissionMessage names the nearest path that can be looked at, who owns
// it, and how to run as that user instead.
func permissionMessage(name, path string) string {
	fi, err := os.Stat(path)
	for err != nil && filepath.Dir(path) != path {
		path = filepath.Dir(path)
		fi, err = os.Stat(path)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if err != nil || !ok {
		return fmt.Sprintf("permission denied on %s: run as the user who owns it, or pass --data DIR", path)
	}
	uid := strconv.FormatUint(uint64(st.Uid), 10)
	who := uid
	if u, err := user.LookupId(uid); err == nil {
		who = u.Username
	}
	return fmt.Sprintf("permission denied on %s, owned by %s (uid %s), mode %s: run as the %s user: sudo -u %s dormouse %s …, or pass --data DIR",
		path, who, uid, fi.Mode(), who, who, name)
}

// suggest returns the name nearest to typo within a couple of edits, or ""
// for none: "recal" suggests recall.
func suggest(typo string, names []string) string {
	best, bestD := "", 1+len(typo)/4
	for _, n := range names {
		if d := config.Distance(typo, n); d <= bestD && (best == "" || d < bestD) {
			best, bestD = n, d
		}
	}
	return best
}
