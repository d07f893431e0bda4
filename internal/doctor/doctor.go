// Package doctor checks a Dormouse installation the way an admin would —
// configuration, the data directory's ownership and modes, the clock, every
// agent file's integrity, the LLM provider, the disk, the systemd timers —
// and says for each failure what to do about it. `dormouse doctor` prints
// its findings.
package doctor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/dormouse-dev/dormouse/internal/when"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/shirou/gopsutil/v3/disk"

	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Results of a check, from best to worst.
const (
	OK   = "ok"
	Warn = "warn"
	Fail = "fail"
	Skip = "skip"
)

// Check is one finding.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"`
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"` // what to do, for warn and fail
}

// Options are what the checks look at. Zero funcs take the real thing.
type Options struct {
	Config config.Config
	// Store is what the integrity check opens the agent files with: the
	// daemon's options for Config (daemon.StoreOptions), as every command
	// that opens them does.
	Store   store.Options
	Environ []string
	Euid    int
	// WatchedFolders are folders the daemon must read (watched folders);
	// those under /home, /root or /run/user need a drop-in.
	WatchedFolders []string
	// ProbeProvider asks the LLM provider a free question (llm.Probe).
	ProbeProvider func(ctx context.Context) error
	NotProbed     error // ProbeProvider's "no probe for this provider"
	// ListModels lists the models the provider offers (llm.Models), and
	// WantModels are the ones the configuration uses (chat, vision): for
	// ollama and OpenAI-compatible servers a missing one is a warning.
	ListModels func(ctx context.Context) ([]string, error)
	WantModels []string
	// ProbeReplica lists the replicas at replication.url (replicate.Agents
	// after finding Litestream's binary); nil skips the check.
	// ReplicaTarget is that URL for the report, without its query.
	ProbeReplica  func(ctx context.Context) error
	ReplicaTarget string
	// ReplicaStaging is the bytes Litestream holds on this disk until the
	// store takes them (replicate.Layout.StagingBytes); counted in the
	// disk check.
	ReplicaStaging int64
	// Run runs a command and returns its standard output (systemctl).
	Run func(ctx context.Context, name string, args ...string) ([]byte, error)
	// Systemd reports whether systemd is the init system here.
	Systemd func() bool
	Now     func() time.Time
}

func (o *Options) fill() {
	if o.Run == nil {
		o.Run = func(ctx context.Context, name string, args ...string) ([]byte, error) {
			return exec.CommandContext(ctx, name, args...).Output()
		}
	}
	if o.Systemd == nil {
		o.Systemd = func() bool {
			fi, err := os.Stat("/run/systemd/system")
			_, lerr := exec.LookPath("systemctl")
			return err == nil && fi.IsDir() && lerr == nil
		}
	}
	if o.Now == nil {
		o.Now = time.Now
	}
}

// Run runs every check in order.
func Run(ctx context.Context, o Options) []Check {
	o.fill()
	var out []Check
	out = append(out, checkClock(o)...)
	out = append(out, checkAccess(o.Config))
	perms, canOpen := checkDataDir(o)
	out = append(out, perms...)
	out = append(out, checkBackupDir(o.Config))
	out = append(out, checkReplication(ctx, o)...)
	out = append(out, checkIntegrity(ctx, o, canOpen)...)
	out = append(out, checkDisk(ctx, o))
	out = append(out, checkProvider(ctx, o))
	out = append(out, checkSystemd(ctx, o)...)
	out = append(out, checkWatched(ctx, o)...)
	return out
}

// checkAccess says who can reach the API: loopback, tokens, or everyone.
func checkAccess(cfg config.Config) Check {
	c := Check{Name: "access", Status: OK}
	host, _, _ := net.SplitHostPort(cfg.Listen)
	ip := net.ParseIP(host)
	loopback := host == "localhost" || ip != nil && ip.IsLoopback()
	n := len(cfg.Auth.Tokens)
	switch {
	case n > 0:
		c.Detail = fmt.Sprintf("%s; %d token(s) in auth.tokens guard the API, /mcp and the page", cfg.Listen, n)
	case loopback:
		c.Detail = cfg.Listen + ": only this machine can connect; no token is asked for"
	case cfg.Auth.AllowOpen:
		c.Status = Warn
		c.Detail = cfg.Listen + " without tokens (auth.allow_open): anyone who can reach it can read and write every agent's memories"
		c.Fix = "add a token (dormouse token new) under auth.tokens, or listen on 127.0.0.1"
	default:
		c.Status = Fail
		c.Detail = cfg.Listen + " without tokens: the daemon refuses to start"
		c.Fix = "add a token (dormouse token new) under auth.tokens, listen on 127.0.0.1, or set auth.allow_open: true on a trusted network"
	}
	return c
}

// Failed reports whether any check failed.
func Failed(cs []Check) bool {
	for _, c := range cs {
		if c.Status == Fail {
			return true
		}
	}
	return false
}

func checkClock(o Options) []Check {
	now := o.Now()
	c := Check{Name: "clock", Status: OK, Detail: "the clock says " + now.UTC().Format(time.RFC3339)}
	switch {
	case when.CheckClock(now) != nil:
		c.Status, c.Fix = Fail, "the clock is before "+when.EarliestPlausible.Format(time.DateOnly)+
			" (a Pi has no real-time clock): enable time sync (sudo timedatectl set-ntp true) and check the network; nothing is consolidated until then"
	case now.Year() > 2100:
		c.Status, c.Fix = Fail, "the clock is far in the future: set it (sudo timedatectl set-time ...) or fix time sync"
	default:
		if behind, file := ClockBehind(o.Config.DataDir, now); behind > 0 {
			c.Status, c.Detail = Warn, fmt.Sprintf("the clock says %s, %s behind the last write to %s: "+
				"what is stored now is dated before what is already kept", now.UTC().Format(time.RFC3339), behind.Round(time.Second), file)
			c.Fix = "the clock was set back (no real-time clock, after a power cut?): enable time sync " +
				"(sudo timedatectl set-ntp true) and check the network"
		}
	}
	out := []Check{c}
	if o.Systemd() {
		if b, err := o.Run(context.Background(), "timedatectl", "show", "-p", "NTPSynchronized", "--value"); err == nil {
			s := Check{Name: "clock sync", Status: OK, Detail: "NTP synchronized"}
			if strings.TrimSpace(string(b)) != "yes" {
				s.Status, s.Detail = Warn, "the clock is not NTP synchronized"
				s.Fix = "sudo timedatectl set-ntp true, and check that the box reaches an NTP server (timedatectl timesync-status)"
			}
			out = append(out, s)
		}
	}
	return out
}

// ClockBehind is how far now is behind the newest write to the agent files
// in dataDir, and that file; 0 when it is not, or they cannot be listed.
func ClockBehind(dataDir string, now time.Time) (time.Duration, string) {
	last, file, err := store.LastWritten(filepath.Join(dataDir, "agents"))
	if err != nil {
		return 0, ""
	}
	return when.Behind(now, last), file
}

// checkDataDir checks the data directory and the agent files: private modes
// and one owner. canOpen says whether this process may open the files (as
// their owner; root in someone else's directory would leave root-owned
// -wal and -shm files the daemon cannot open).
func checkDataDir(o Options) (out []Check, canOpen bool) {
	dir := o.Config.DataDir
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return []Check{{Name: "data directory", Status: Warn, Detail: dir + " does not exist yet",
			Fix: "start the daemon once (sudo systemctl start dormouse), which creates it; or point doctor at the daemon's directory with --data (the package's is /var/lib/dormouse)"}}, false
	}
	if err != nil {
		return []Check{{Name: "data directory", Status: Fail, Detail: err.Error(),
			Fix: "run doctor as root or as the daemon's user (sudo -u dormouse dormouse doctor)"}}, false
	}
	if !fi.IsDir() {
		return []Check{{Name: "data directory", Status: Fail, Detail: dir + " is not a directory",
			Fix: "point data_dir at a directory"}}, false
	}
	owner := uid(fi)
	c := Check{Name: "data directory", Status: OK, Detail: fmt.Sprintf("%s: mode %04o, owner %s", dir, fi.Mode().Perm(), userName(owner))}
	if fi.Mode().Perm()&0o027 != 0 {
		c.Status = Fail
		c.Detail += ": group-writable or readable by others"
		c.Fix = fmt.Sprintf("sudo chmod 0750 %s (others must not read memories)", dir)
	}
	out = append(out, c)

	agents := filepath.Join(dir, "agents")
	entries, err := os.ReadDir(agents)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return out, o.Euid == owner || o.Euid != 0
	case errors.Is(err, fs.ErrPermission):
		out = append(out, Check{Name: "agent files", Status: Skip, Detail: "cannot read " + agents + " as uid " + fmt.Sprint(o.Euid),
			Fix: "run doctor as the daemon's user to check the files: sudo -u " + userName(owner) + " dormouse doctor"})
		return out, false
	case err != nil:
		out = append(out, Check{Name: "agent files", Status: Fail, Detail: err.Error()})
		return out, false
	}
	var bad []string
	check := func(p string) {
		fi, err := os.Lstat(p)
		if err != nil {
			bad = append(bad, fmt.Sprintf("%s: %v", p, err))
			return
		}
		want := fs.FileMode(0o700)
		if !fi.IsDir() {
			want = 0o600
		}
		if fi.Mode().Perm()&^want != 0 {
			bad = append(bad, fmt.Sprintf("%s is mode %04o (want %04o)", filepath.Base(p), fi.Mode().Perm(), want))
		}
		if u := uid(fi); u != owner {
			bad = append(bad, fmt.Sprintf("%s belongs to %s, not %s", filepath.Base(p), userName(u), userName(owner)))
		}
	}
	check(agents)
	n := 0
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".db") || strings.HasSuffix(e.Name(), ".db-wal") || strings.HasSuffix(e.Name(), ".db-shm") {
			check(filepath.Join(agents, e.Name()))
			n++
		}
	}
	a := Check{Name: "agent files", Status: OK, Detail: fmt.Sprintf("%d files in %s, private, owned by %s", n, agents, userName(owner))}
	if len(bad) > 0 {
		a.Status, a.Detail = Fail, strings.Join(bad, "; ")
		a.Fix = fmt.Sprintf("sudo chown -R %s: %s && sudo chmod 0700 %s && sudo chmod 0600 %s/*", userName(owner), agents, agents, agents)
	}
	out = append(out, a)
	canOpen = o.Euid == owner || (o.Euid != 0 && len(bad) == 0)
	if !canOpen {
		out = append(out, Check{Name: "integrity", Status: Skip,
			Detail: fmt.Sprintf("not opening files of %s as uid %d (it would leave files the daemon cannot open)", userName(owner), o.Euid),
			Fix:    "run as the daemon's user: sudo -u " + userName(owner) + " dormouse doctor"})
	}
	return out, canOpen
}

// packageBackupDir is backup.dir in the Debian package's configuration.
const packageBackupDir = "/var/backups/dormouse"

// checkBackupDir checks backup.dir: there, private, and
// not inside the data directory, where whatever loses or purges the data
// (`apt purge`, a dead SD card) takes the backups with it.
func checkBackupDir(cfg config.Config) Check {
	dir := cfg.BackupDir()
	c := Check{Name: "backup directory", Status: OK, Detail: dir}
	if inside(dir, cfg.DataDir) {
		c.Status, c.Detail = Warn, dir+" is inside the data directory "+cfg.DataDir+": purging or losing the data loses the backups too"
		c.Fix = "set backup.dir in the configuration to " + packageBackupDir + " (the package's default) or a directory on another disk"
	}
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if c.Status == OK {
			c.Status, c.Detail = Warn, dir+" does not exist: the backup job cannot create it inside its sandbox"
			c.Fix = "sudo install -d -o dormouse -g dormouse -m 0700 " + dir
		}
	case err != nil:
		c.Status, c.Detail, c.Fix = Fail, err.Error(), "run doctor as root or as the daemon's user (sudo -u dormouse dormouse doctor)"
	case fi.Mode().Perm()&0o077 != 0:
		c.Status, c.Detail = Fail, fmt.Sprintf("%s is mode %04o: others may read the backed-up memories", dir, fi.Mode().Perm())
		c.Fix = "sudo chmod 0700 " + dir
	case c.Status == OK:
		c.Detail = fmt.Sprintf("%s: mode %04o, owner %s", dir, fi.Mode().Perm(), userName(uid(fi)))
	}
	return c
}

// inside reports whether path is dir or below it.
func inside(path, dir string) bool {
	a, errA := filepath.Abs(path)
	b, errB := filepath.Abs(dir)
	if errA != nil || errB != nil {
		return false
	}
	rel, err := filepath.Rel(b, a)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}

// checkIntegrity runs PRAGMA integrity_check on every agent file.
func checkIntegrity(ctx context.Context, o Options, canOpen bool) []Check {
	if !canOpen {
		return nil
	}
	st, err := store.Open(ctx, o.Store)
	if err != nil {
		return []Check{{Name: "integrity", Status: Fail, Detail: err.Error()}}
	}
	defer st.Close()
	names, err := st.Agents()
	if err != nil {
		return []Check{{Name: "integrity", Status: Fail, Detail: err.Error()}}
	}
	if len(names) == 0 {
		return []Check{{Name: "integrity", Status: OK, Detail: "no agents yet"}}
	}
	var out []Check
	for _, n := range names {
		c := Check{Name: "integrity " + n, Status: OK, Detail: "PRAGMA integrity_check: ok"}
		err := st.With(ctx, n, false, func(a *store.Agent) error { return a.IntegrityCheck(ctx) })
		if err != nil {
			c.Status, c.Detail, c.Fix = Fail, err.Error(), restoreFix(o.Config, n)
		}
		out = append(out, c)
	}
	return out
}

// restoreFix says how to put a damaged agent's newest backup back, naming
// that backup, or that there is none to restore from.
func restoreFix(cfg config.Config, agent string) string {
	steps := fmt.Sprintf("sudo systemctl stop dormouse; sudo -u dormouse dormouse restore --agent %s; sudo systemctl start dormouse", agent)
	bs, err := backup.List(cfg.BackupDir(), agent)
	switch {
	case err != nil:
		return fmt.Sprintf("stop the daemon and restore the agent's last good backup: %s (cannot list backups: %v)", steps, err)
	case len(bs) == 0:
		return fmt.Sprintf("agent %q has no backup in %s to restore from: move its file aside to start it afresh, "+
			"or restore a copy from elsewhere with dormouse restore --agent %s --from FILE; enable dormouse-backup.timer", agent, cfg.BackupDir(), agent)
	}
	newest := bs[len(bs)-1]
	return fmt.Sprintf("stop the daemon and restore the agent's newest backup (%s, %s UTC): %s (older ones: dormouse restore --agent %s --list)",
		newest.Path, newest.Time.Format(time.DateTime), steps, agent)
}

func checkDisk(ctx context.Context, o Options) Check {
	c := Check{Name: "disk", Status: OK}
	u, err := disk.UsageWithContext(ctx, o.Config.DataDir)
	if err != nil {
		c.Status, c.Detail = Skip, fmt.Sprintf("cannot measure %s: %v", o.Config.DataDir, err)
		return c
	}
	c.Detail = fmt.Sprintf("%s: %.1f%% used, %d MiB free", u.Path, u.UsedPercent, u.Free>>20)
	if o.ReplicaStaging > 0 {
		c.Detail += fmt.Sprintf(", %d MiB of it replication staging", o.ReplicaStaging>>20)
	}
	switch {
	case u.UsedPercent > 98:
		c.Status, c.Fix = Fail, "free space now: writes fail soon (delete old backups, journal: sudo journalctl --vacuum-size=100M)"
	case u.UsedPercent > o.Config.Health.DiskPercent:
		c.Status, c.Fix = Warn, fmt.Sprintf("over health.disk_percent (%g%%): free space or move backup.dir to another disk", o.Config.Health.DiskPercent)
	case uint64(o.ReplicaStaging) > u.Free/4:
		c.Status, c.Fix = Warn, "the replica store has not taken what was written for a while (see the replication check); "+
			"the staging empties once it does, and fills the disk if it never does"
	}
	return c
}

func checkProvider(ctx context.Context, o Options) Check {
	p := o.Config.LLM.Provider
	c := Check{Name: "llm provider", Status: OK}
	if p == "offline" || o.ProbeProvider == nil {
		c.Detail = p + ": consolidation needs no network"
		return c
	}
	err := o.ProbeProvider(ctx)
	switch {
	case err == nil:
		c.Detail = p + " answers"
		if missing := missingModels(ctx, o); len(missing) > 0 {
			c.Status = Warn
			c.Detail = fmt.Sprintf("%s answers but does not offer %s", p, strings.Join(missing, ", "))
			c.Fix = "pull the model (ollama pull NAME) or set llm.model / llm.vision_model to one the server lists"
		}
	case o.NotProbed != nil && errors.Is(err, o.NotProbed):
		c.Status, c.Detail = Skip, p+": no free request to probe it with"
	default:
		c.Status, c.Detail = Fail, err.Error()
		c.Fix = "check llm.base_url in /etc/dormouse/dormouse.yaml, that the server runs and is reachable from this box, and the API key in /etc/default/dormouse"
	}
	return c
}

// missingModels returns the wanted models an ollama or OpenAI-compatible
// server does not list ("llava" is listed as "llava:latest"). Hosted
// providers answer to aliases they do not list, so they are not checked.
func missingModels(ctx context.Context, o Options) []string {
	p := o.Config.LLM.Provider
	if o.ListModels == nil || (p != "ollama" && p != "openai") {
		return nil
	}
	have, err := o.ListModels(ctx)
	if err != nil {
		return nil // the probe answered; a list it cannot read proves nothing
	}
	var missing []string
	for _, w := range o.WantModels {
		if w != "" && !slices.Contains(have, w) && !slices.Contains(have, w+":latest") && !slices.Contains(missing, w) {
			missing = append(missing, w)
		}
	}
	return missing
}

// Timers are the timer units the package ships (systemd/*.timer): doctor
// expects each enabled with a next run, and the page shows their runs.
var Timers = []string{"dormouse-consolidate.timer", "dormouse-backup.timer", DrillTimer}

// DrillTimer starts the weekly restore drill, which has nothing to restore
// without replication.url.
const DrillTimer = "dormouse-drill.timer"

func checkSystemd(ctx context.Context, o Options) []Check {
	if !o.Systemd() {
		return []Check{{Name: "timers", Status: Skip, Detail: "systemd is not running here"}}
	}
	var out []Check
	b, _ := o.Run(ctx, "systemctl", "is-active", "dormouse.service")
	s := Check{Name: "dormouse.service", Status: OK, Detail: "active"}
	if st := strings.TrimSpace(string(b)); st != "active" {
		s.Status, s.Detail = Warn, "dormouse.service is "+st
		s.Fix = "sudo systemctl enable --now dormouse; see journalctl -u dormouse"
	}
	out = append(out, s)
	b, err := o.Run(ctx, "systemctl", "list-timers", "--all", "--no-pager", "--no-legend", "dormouse*")
	if err != nil {
		return append(out, Check{Name: "timers", Status: Fail, Detail: "systemctl list-timers: " + err.Error()})
	}
	timers := ParseListTimers(b)
	for _, name := range Timers {
		c := Check{Name: name, Status: OK}
		t, ok := timers[name]
		switch {
		case name == DrillTimer && o.Config.Replication.URL == "":
			c.Status, c.Detail = Skip, "replication.url is not set: there is no replica to drill"
		case !ok:
			c.Status, c.Detail = Fail, "not loaded"
			c.Fix = "reinstall the package (sudo apt install --reinstall dormouse), then sudo systemctl enable --now " + name
		case t.Next == "":
			c.Status, c.Detail = Fail, "loaded but has no next run (disabled or stopped)"
			c.Fix = "sudo systemctl enable --now " + name
		default:
			c.Detail = "next run " + t.Next
			if t.Last != "" {
				c.Detail += ", last " + t.Last
			}
		}
		out = append(out, c)
	}
	return out
}

// Timer is one row of systemctl list-timers.
type Timer struct {
	Unit, Activates string
	Next, Last      string // "" when there is none ("-" or "n/a")
}

// ParseListTimers reads `systemctl list-timers --all --no-legend` output:
// NEXT LEFT LAST PASSED UNIT ACTIVATES, where a time is "Tue 2026-12-01
// 00:03:12 UTC", a distance "16h left" or "1 day 2h ago", and a missing one
// a lone "-" (or "n/a" in older systemd). The unit is the field that ends in
// ".timer".
func ParseListTimers(out []byte) map[string]Timer {
	timers := map[string]Timer{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		u := slices.IndexFunc(f, func(w string) bool { return strings.HasSuffix(w, ".timer") })
		if u < 0 {
			continue
		}
		t := Timer{Unit: f[u]}
		if u+1 < len(f) {
			t.Activates = f[u+1]
		}
		cols := f[:u]
		var i int
		t.Next, i = readTime(cols, 0, "left")
		t.Last, _ = readTime(cols, i, "ago")
		timers[t.Unit] = t
	}
	return timers
}

func lone(w string) bool { return w == "-" || w == "n/a" }

// readTime reads a time column and its distance column from cols[i:]: it
// returns the time ("" when missing) and where the next column starts.
func readTime(cols []string, i int, distanceEnd string) (string, int) {
	if i >= len(cols) {
		return "", i
	}
	if lone(cols[i]) {
		i++
		if i < len(cols) && lone(cols[i]) { // the distance is missing too
			i++
		}
		return "", i
	}
	// Weekday, date, time, and a time zone unless the distance starts.
	n := min(3, len(cols)-i)
	if i+n < len(cols) && !strings.ContainsAny(cols[i+n][:1], "0123456789-") {
		n++
	}
	when := strings.Join(cols[i:i+n], " ")
	i += n
	for i < len(cols) {
		w := cols[i]
		i++
		if w == distanceEnd || lone(w) {
			break
		}
	}
	return when, i
}

func uid(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// userName is the name of uid from /etc/passwd, or the number.
func userName(u int) string {
	b, err := os.ReadFile("/etc/passwd")
	if err == nil {
		for _, l := range bytes.Split(b, []byte("\n")) {
			f := strings.Split(string(l), ":")
			if len(f) > 2 && f[2] == fmt.Sprint(u) {
				return f[0]
			}
		}
	}
	return fmt.Sprint(u)
}
