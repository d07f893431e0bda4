package doctor

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/store"
)

func TestParseListTimers(t *testing.T) {
	b, err := os.ReadFile("testdata/list-timers.txt")
	if err != nil {
		t.Fatal(err)
	}
	got := ParseListTimers(b)
	want := map[string]Timer{
		"dormouse-consolidate.timer": {Unit: "dormouse-consolidate.timer", Activates: "dormouse-consolidate.service",
			Next: "Tue 2026-12-01 00:03:12 UTC", Last: "Mon 2026-11-30 00:01:02 UTC"},
		"dormouse-backup.timer": {Unit: "dormouse-backup.timer", Activates: "dormouse-backup.service",
			Next: "Tue 2026-12-01 03:05:00 UTC"},
		"dormouse-old.timer": {Unit: "dormouse-old.timer", Activates: "dormouse-old.service",
			Last: "Sun 2026-11-29 10:00:00 CET"},
		"dormouse-na.timer": {Unit: "dormouse-na.timer", Activates: "dormouse-na.service"},
		"dormouse-long.timer": {Unit: "dormouse-long.timer", Activates: "dormouse-long.service",
			Next: "Wed 2026-12-02 03:00:00 UTC", Last: "Fri 2026-11-27 03:00:00 UTC"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
}

// fakeSystemctl answers like systemctl from canned outputs.
func fakeSystemctl(outputs map[string]string) func(ctx context.Context, name string, args ...string) ([]byte, error) {
	return func(_ context.Context, name string, args ...string) ([]byte, error) {
		key := name + " " + strings.Join(args, " ")
		for k, v := range outputs {
			if strings.HasPrefix(key, k) {
				return []byte(v), nil
			}
		}
		return nil, fmt.Errorf("%s: not faked", key)
	}
}

func find(cs []Check, name string) Check {
	for _, c := range cs {
		if c.Name == name {
			return c
		}
	}
	return Check{Name: name, Status: "missing"}
}

func TestRunHealthyInstall(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	if err := os.Chmod(cfg.DataDir, 0o750); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(t.Context(), store.Options{Dir: cfg.DataDir})
	if err != nil {
		t.Fatal(err)
	}
	if err := st.With(t.Context(), "main", true, func(a *store.Agent) error {
		_, err := a.Insert(t.Context(), []store.Memory{{SessionID: "s", Timestamp: time.Now(), Role: "user", Content: "x", ContentHash: "x"}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)
	touchAgents(t, cfg.DataDir, now.Add(-time.Hour)) // written by the clock Now says
	timers, _ := os.ReadFile("testdata/list-timers.txt")
	cs := Run(t.Context(), Options{
		Config: cfg, Store: store.Options{Dir: cfg.DataDir}, Euid: os.Geteuid(),
		Systemd: func() bool { return true },
		Run: fakeSystemctl(map[string]string{
			"timedatectl show":                     "yes\n",
			"systemctl is-active dormouse.service": "active\n",
			"systemctl list-timers":                string(timers),
		}),
		Now: func() time.Time { return now },
	})
	for _, c := range cs {
		t.Logf("%-28s %-4s %s", c.Name, c.Status, c.Detail)
	}
	if Failed(cs) {
		t.Error("a healthy install failed a check")
	}
	for _, name := range []string{"clock", "clock sync", "data directory", "agent files", "integrity main", "disk",
		"llm provider", "dormouse.service", "dormouse-consolidate.timer", "dormouse-backup.timer"} {
		if c := find(cs, name); c.Status != OK {
			t.Errorf("%s: %+v, want ok", name, c)
		}
	}
}

func TestRunFindsProblems(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.LLM.Provider = "ollama"
	agents := filepath.Join(cfg.DataDir, "agents")
	if err := os.MkdirAll(agents, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(cfg.DataDir, 0o777); err != nil {
		t.Fatal(err)
	}
	// An agent file that is not a database, and readable by everyone.
	if err := os.WriteFile(filepath.Join(agents, "broken.db"), []byte("this is not an SQLite database, just some bytes......"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(agents, "broken.db"), 0o644); err != nil { // whatever the umask
		t.Fatal(err)
	}
	timers := "Tue 2026-12-01 00:03:12 UTC 16h left - - dormouse-consolidate.timer dormouse-consolidate.service\n" +
		"- - - - dormouse-backup.timer dormouse-backup.service\n"
	cs := Run(t.Context(), Options{
		Config: cfg, Store: store.Options{Dir: cfg.DataDir}, Euid: os.Geteuid(),
		ProbeProvider:  func(context.Context) error { return errors.New("dial tcp 127.0.0.1:11434: connection refused") },
		WatchedFolders: []string{"/home/alice/notes", "/srv/shared"},
		Systemd:        func() bool { return true },
		Run: fakeSystemctl(map[string]string{
			"timedatectl show":                     "no\n",
			"systemctl is-active dormouse.service": "failed\n",
			"systemctl list-timers":                timers,
			"systemctl show dormouse.service":      "ProtectHome=yes\nBindReadOnlyPaths=\nBindPaths=\n",
		}),
		Now: func() time.Time { return time.Date(2021, 1, 1, 0, 0, 0, 0, time.UTC) },
	})
	for _, c := range cs {
		t.Logf("%-28s %-4s %s | %s", c.Name, c.Status, c.Detail, c.Fix)
	}
	if !Failed(cs) {
		t.Fatal("nothing failed")
	}
	for name, status := range map[string]string{
		"clock": Fail, "clock sync": Warn, "data directory": Fail, "agent files": Fail, "integrity broken": Fail,
		"llm provider": Fail, "dormouse.service": Warn, "dormouse-consolidate.timer": OK, "dormouse-backup.timer": Fail,
		"watched folders": Fail,
	} {
		c := find(cs, name)
		if c.Status != status {
			t.Errorf("%s: %+v, want %s", name, c, status)
		}
		if (c.Status == Fail || c.Status == Warn) && c.Fix == "" {
			t.Errorf("%s fails without saying what to do", name)
		}
	}
	w := find(cs, "watched folders")
	if !strings.Contains(w.Fix, "ProtectHome=tmpfs\nBindReadOnlyPaths=/home/alice/notes\n") || strings.Contains(w.Fix, "/srv/shared") {
		t.Errorf("watched folders fix:\n%s", w.Fix)
	}
	if !strings.Contains(find(cs, "dormouse-backup.timer").Fix, "systemctl enable --now dormouse-backup.timer") {
		t.Errorf("backup timer fix: %q", find(cs, "dormouse-backup.timer").Fix)
	}
}

func TestWatchedFoldersWithDropIn(t *testing.T) {
	o := Options{WatchedFolders: []string{"/home/alice/notes/work"}, Systemd: func() bool { return true },
		Run: fakeSystemctl(map[string]string{
			"systemctl show dormouse.service": "ProtectHome=tmpfs\nBindReadOnlyPaths=/home/alice/notes:/home/alice/notes:rbind\nBindPaths=\n",
		})}
	o.fill()
	cs := checkWatched(t.Context(), o)
	if len(cs) != 1 || cs[0].Status != OK {
		t.Errorf("%+v, want ok: the drop-in binds a parent", cs)
	}
}

func TestNoSystemd(t *testing.T) {
	o := Options{Systemd: func() bool { return false }}
	o.fill()
	if cs := checkSystemd(t.Context(), o); len(cs) != 1 || cs[0].Status != Skip {
		t.Errorf("%+v, want one skip", cs)
	}
}

// A local model server that answers but lacks a configured model is a
// warning naming the model; hosted providers are not checked.
func TestMissingModels(t *testing.T) {
	list := func(context.Context) ([]string, error) {
		return []string{"llama3.2:latest", "nomic-embed-text:latest"}, nil
	}
	for _, c := range []struct {
		provider string
		want     []string
		status   string
		missing  string
	}{
		{"ollama", []string{"llama3.2", "llama3.2"}, OK, ""},
		{"ollama", []string{"llama3.2", "llava"}, Warn, "llava"},
		{"openai", []string{"gpt-4o-mini"}, Warn, "gpt-4o-mini"},
		{"anthropic", []string{"claude-3-5-haiku-latest"}, OK, ""},
	} {
		var cfg config.Config
		cfg.LLM.Provider = c.provider
		got := checkProvider(t.Context(), Options{Config: cfg, ProbeProvider: func(context.Context) error { return nil },
			ListModels: list, WantModels: c.want})
		if got.Status != c.status || !strings.Contains(got.Detail, c.missing) || (c.status == Warn && got.Fix == "") {
			t.Errorf("%s %v: %+v, want %s naming %q", c.provider, c.want, got, c.status, c.missing)
		}
	}
}

func TestCheckAccess(t *testing.T) {
	tok := config.Token{Name: "a", SHA256: strings.Repeat("ab", 32), Agents: []string{"*"}, Access: "read"}
	for _, c := range []struct {
		listen string
		tokens []config.Token
		open   bool
		want   string
	}{
		{"127.0.0.1:7733", nil, false, OK},
		{"[::1]:7733", nil, false, OK},
		{"localhost:7733", nil, false, OK},
		{":7733", nil, false, Fail},
		{"0.0.0.0:7733", nil, true, Warn},
		{":7733", []config.Token{tok}, false, OK},
	} {
		cfg := config.Default()
		cfg.Listen, cfg.Auth.Tokens, cfg.Auth.AllowOpen = c.listen, c.tokens, c.open
		got := checkAccess(cfg)
		if got.Status != c.want || got.Status != OK && got.Fix == "" {
			t.Errorf("listen %s, %d tokens, open %v: %+v, want %s with a fix unless ok", c.listen, len(c.tokens), c.open, got, c.want)
		}
	}
}

// TestBackupDir: backups inside the data directory, a missing or a readable
// backup directory are each named with what to do; a private one apart from
// the data is fine.
func TestBackupDir(t *testing.T) {
	data, other := t.TempDir(), t.TempDir()
	private, open := filepath.Join(other, "private"), filepath.Join(other, "open")
	for _, d := range []struct {
		path string
		mode os.FileMode
	}{{private, 0o700}, {open, 0o755}} {
		if err := os.Mkdir(d.path, d.mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d.path, d.mode); err != nil { // whatever the umask
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, dir, status, fix string
	}{
		{"default, under the data", "", Warn, "/var/backups/dormouse"},
		{"apart and private", private, OK, ""},
		{"readable by others", open, Fail, "chmod 0700 " + open},
		{"missing", filepath.Join(other, "missing"), Warn, "install -d -o dormouse -g dormouse -m 0700 " + filepath.Join(other, "missing")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := config.Default()
			cfg.DataDir, cfg.Backup.Dir = data, tc.dir
			c := checkBackupDir(cfg)
			if c.Status != tc.status || !strings.Contains(c.Fix, tc.fix) || (tc.fix == "") != (c.Fix == "") {
				t.Errorf("checkBackupDir(%q) = %+v, want %s with a fix naming %q", tc.dir, c, tc.status, tc.fix)
			}
		})
	}
}

// touchAgents sets the modification time of every file in dataDir/agents.
func touchAgents(t *testing.T, dataDir string, at time.Time) {
	t.Helper()
	dir := filepath.Join(dataDir, "agents")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := os.Chtimes(filepath.Join(dir, e.Name()), at, at); err != nil {
			t.Fatal(err)
		}
	}
}

// TestClockBehindTheLastWrite: a clock set back to a plausible time (a Pi
// after a power cut, before NTP) is a warning once it is behind the agent
// files' last write by more than a minute, with the fix.
func TestClockBehindTheLastWrite(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg.DataDir, "agents"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg.DataDir, "agents", "main.db-wal"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC) // plausible, but months behind
	for _, c := range []struct {
		written time.Time
		want    string
	}{
		{now.Add(-time.Hour), OK},
		{now.Add(30 * time.Second), OK}, // two clocks a moment apart
		{now.Add(3 * time.Hour), Warn},
	} {
		touchAgents(t, cfg.DataDir, c.written)
		got := find(checkClock(Options{Config: cfg, Now: func() time.Time { return now }, Systemd: func() bool { return false }}), "clock")
		if got.Status != c.want {
			t.Errorf("last write %s after the clock: %+v, want %s", c.written.Sub(now), got, c.want)
		}
		if c.want == Warn && (!strings.Contains(got.Detail, "3h0m0s behind the last write to main.db-wal") ||
			!strings.Contains(got.Fix, "timedatectl set-ntp true")) {
			t.Errorf("behind: %+v, want how far, the file and the fix", got)
		}
	}
}

// TestTimersAreTheShippedOnes: Timers names every timer unit in systemd/,
// and only those.
func TestTimersAreTheShippedOnes(t *testing.T) {
	files, err := filepath.Glob("../../systemd/*.timer")
	if err != nil {
		t.Fatal(err)
	}
	var shipped []string
	for _, f := range files {
		shipped = append(shipped, filepath.Base(f))
	}
	got := slices.Sorted(slices.Values(Timers))
	if !slices.Equal(got, shipped) {
		t.Errorf("Timers %v, systemd/ ships %v", got, shipped)
	}
}

// TestDrillTimerOnlyWithReplication: without replication.url the drill timer
// is skipped; with it, a drill timer that is not loaded fails with a fix.
func TestDrillTimerOnlyWithReplication(t *testing.T) {
	timers, err := os.ReadFile("testdata/list-timers.txt") // has no drill timer
	if err != nil {
		t.Fatal(err)
	}
	for url, want := range map[string]string{"": Skip, "file:///mnt/nas/dormouse": Fail} {
		o := Options{Systemd: func() bool { return true }, Run: fakeSystemctl(map[string]string{
			"systemctl is-active dormouse.service": "active\n",
			"systemctl list-timers":                string(timers),
		})}
		o.Config.Replication.URL = url
		o.fill()
		c := find(checkSystemd(t.Context(), o), DrillTimer)
		if c.Status != want {
			t.Errorf("replication.url %q: %+v, want %s", url, c, want)
		}
		if want == Fail && !strings.Contains(c.Fix, "systemctl enable --now "+DrillTimer) {
			t.Errorf("replication.url %q: fix %q does not enable the timer", url, c.Fix)
		}
	}
}

// TestDiskCountsReplicaStaging: the disk check names what Litestream holds
// locally, and warns when that takes a large share of the free space (the
// store has been away a long while).
func TestDiskCountsReplicaStaging(t *testing.T) {
	cfg := config.Default()
	cfg.DataDir = t.TempDir()
	cfg.Health.DiskPercent = 100 // whatever this machine's disk holds
	small := checkDisk(t.Context(), Options{Config: cfg, ReplicaStaging: 3 << 20})
	if small.Status != OK || !strings.Contains(small.Detail, "3 MiB of it replication staging") {
		t.Errorf("3 MiB staged: %+v; want ok, naming the staging", small)
	}
	huge := checkDisk(t.Context(), Options{Config: cfg, ReplicaStaging: 1 << 60})
	if huge.Status != Warn || !strings.Contains(huge.Fix, "replica store") {
		t.Errorf("more staged than a quarter of the free space: %+v; want a warning naming the replica store", huge)
	}
	if none := checkDisk(t.Context(), Options{Config: cfg}); strings.Contains(none.Detail, "staging") {
		t.Errorf("nothing staged: %+v; want no staging in the detail", none)
	}
}
