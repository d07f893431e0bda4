package main

// The chaos test: the real binary killed with SIGKILL in the middle of
// everything that writes (batch ingest from many clients, deletes,
// consolidation, a backup, a restore), on a full disk, next to a corrupt
// agent file, and restarted after its WAL was deleted. Afterwards every
// acknowledged memory is there and nothing whose forgetting was
// acknowledged is back. `make test` runs one round of each; `make chaos`
// runs DORMOUSE_CHAOS_ROUNDS of them.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/fulldisk"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// chaosRounds is how many times each kill is repeated: one for `make
// test`, DORMOUSE_CHAOS_ROUNDS (set by `make chaos`) for the long run.
func chaosRounds(t *testing.T) int {
	t.Helper()
	s := os.Getenv("DORMOUSE_CHAOS_ROUNDS")
	if s == "" {
		return 1
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 1000 {
		t.Fatalf("DORMOUSE_CHAOS_ROUNDS=%q: want 1 to 1000", s)
	}
	return n
}

// ledger is what the daemon acknowledged: memories stored (201), deletes
// done (200), and requests refused for want of space (507).
type ledger struct {
	mu        sync.Mutex
	acked     map[int64]string // id -> content
	forgotten map[int64]bool
	refused   map[string]bool // contents of 507 requests: none may be stored
	odd       map[string]int  // any other answer to a write: "POST 500" -> count
	claimed   map[int64]bool  // ids a client is deleting
	grew      chan struct{}   // a send after each acknowledgement
}

func newLedger() *ledger {
	return &ledger{acked: map[int64]string{}, forgotten: map[int64]bool{}, refused: map[string]bool{},
		odd: map[string]int{}, claimed: map[int64]bool{}, grew: make(chan struct{}, 1)}
}

func (l *ledger) signal() {
	select {
	case l.grew <- struct{}{}:
	default:
	}
}

func (l *ledger) ack(ids []int64, contents []string) {
	l.mu.Lock()
	for i, id := range ids {
		l.acked[id] = contents[i]
	}
	l.mu.Unlock()
	l.signal()
}

func (l *ledger) forget(id int64) {
	l.mu.Lock()
	l.forgotten[id] = true
	l.mu.Unlock()
	l.signal()
}

func (l *ledger) refuse(contents []string) {
	l.mu.Lock()
	for _, c := range contents {
		l.refused[c] = true
	}
	l.mu.Unlock()
	l.signal()
}

// oddAnswer records a write answered with neither success nor 507: with
// the daemon killed only between requests' answers, every one is a bug.
func (l *ledger) oddAnswer(method string, code int, body string) {
	l.mu.Lock()
	l.odd[fmt.Sprintf("%s %d %.200s", method, code, body)]++
	l.mu.Unlock()
}

// counts are the acknowledgements so far.
func (l *ledger) counts() (acked, forgotten, refused int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.acked), len(l.forgotten), len(l.refused)
}

// claim picks an acknowledged memory no client has deleted or is
// deleting, or 0.
func (l *ledger) claim() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	for id := range l.acked {
		if !l.claimed[id] {
			l.claimed[id] = true
			return id
		}
	}
	return 0
}

// waitUntil blocks until ok holds for the counts, failing the test after a
// minute: the traffic stalled.
func (l *ledger) waitUntil(t *testing.T, what string, ok func(acked, forgotten, refused int) bool) {
	t.Helper()
	timeout := time.After(time.Minute)
	for !ok(l.counts()) {
		select {
		case <-l.grew:
		case <-timeout:
			a, f, r := l.counts()
			l.mu.Lock()
			defer l.mu.Unlock()
			t.Fatalf("waiting for %s: stalled at %d acknowledged, %d forgotten, %d refused; other answers: %v", what, a, f, r, l.odd)
		}
	}
}

var chaosClient = &http.Client{Timeout: 30 * time.Second}

// send posts (or deletes) on the daemon; the status is 0 when the daemon
// is gone. out may be a *[]byte for the raw body.
func send(ctx context.Context, method, u, body string, out any) int {
	req, err := http.NewRequestWithContext(ctx, method, u, strings.NewReader(body))
	if err != nil {
		return 0
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := chaosClient.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0
	}
	if raw, ok := out.(*[]byte); ok {
		*raw = b
		return resp.StatusCode
	}
	if out != nil && json.Unmarshal(b, out) != nil && resp.StatusCode < 300 {
		return 0
	}
	return resp.StatusCode
}

// yesterday is the day the traffic's memories are dated: a day that may be
// consolidated, and recent enough for any retention.
func yesterday() string { return time.Now().UTC().AddDate(0, 0, -1).Format(time.DateOnly) }

// ingest posts batches of two memories to agent until ctx ends or the
// daemon is gone.
func ingest(ctx context.Context, addr, agent, tag string, l *ledger) {
	for i := 0; ctx.Err() == nil; i++ {
		contents := []string{
			fmt.Sprintf("%s memory %d about the garden and the %s", tag, i, strings.Repeat("roses ", i%20)),
			fmt.Sprintf("%s memory %d, second, about Alice's bicycle", tag, i),
		}
		ts := yesterday() + "T10:00:00Z"
		body := fmt.Sprintf(`{"memories":[{"content":%q,"timestamp":%q},{"content":%q,"timestamp":%q}]}`,
			contents[0], ts, contents[1], ts)
		var raw []byte
		var out struct{ IDs []int64 }
		switch code := send(ctx, http.MethodPost, "http://"+addr+"/v1/agents/"+agent+"/memories", body, &raw); code {
		case http.StatusCreated:
			if json.Unmarshal(raw, &out) == nil && len(out.IDs) == 2 {
				l.ack(out.IDs, contents)
			}
		case http.StatusInsufficientStorage:
			l.refuse(contents)
		case 0:
			return
		default:
			l.oddAnswer("POST", code, string(raw))
			return
		}
	}
}

// forgetSome deletes acknowledged memories of agent until ctx ends.
func forgetSome(ctx context.Context, addr, agent string, l *ledger) {
	for ctx.Err() == nil {
		id := l.claim()
		if id == 0 {
			select {
			case <-ctx.Done():
			case <-time.After(time.Millisecond): // nothing to delete yet
			}
			continue
		}
		var raw []byte
		code := send(ctx, http.MethodDelete, fmt.Sprintf("http://%s/v1/agents/%s/memories/%d", addr, agent, id), "", &raw)
		switch code {
		case http.StatusOK:
			l.forget(id)
		case http.StatusInsufficientStorage:
		case 0:
			return
		default:
			l.oddAnswer("DELETE", code, string(raw))
			return
		}
	}
}

// consolidateLoop rebuilds yesterday over and over until ctx ends.
func consolidateLoop(ctx context.Context, addr, agent string, started chan<- struct{}) {
	once := sync.OnceFunc(func() { close(started) })
	for ctx.Err() == nil {
		once()
		if send(ctx, http.MethodPost, "http://"+addr+"/v1/agents/"+agent+"/consolidate",
			fmt.Sprintf(`{"date":%q}`, yesterday()), nil) == 0 {
			return
		}
	}
}

// traffic runs clients against the daemon and stops them when the daemon
// has been killed.
type traffic struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startTraffic(ctx context.Context, fns ...func(ctx context.Context)) *traffic {
	ctx, cancel := context.WithCancel(ctx)
	tr := &traffic{cancel: cancel}
	for _, fn := range fns {
		tr.wg.Go(func() { fn(ctx) })
	}
	return tr
}

func (tr *traffic) stop() {
	tr.cancel()
	tr.wg.Wait()
}

// kill9 kills the daemon with SIGKILL and waits for it to be gone.
func kill9(t *testing.T, d *daemonProc) {
	t.Helper()
	if err := d.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-d.exited
}

// allMemories lists every memory of agent, id -> content.
func allMemories(t *testing.T, addr, agent string) map[int64]string {
	t.Helper()
	got := map[int64]string{}
	cursor := ""
	for range 10000 {
		var page struct {
			Memories []struct {
				ID      int64
				Content string
			}
			NextCursor string `json:"next_cursor"`
		}
		u := "http://" + addr + "/v1/agents/" + agent + "/memories?limit=1000&cursor=" + url.QueryEscape(cursor)
		if code := send(t.Context(), http.MethodGet, u, "", &page); code != http.StatusOK {
			t.Fatalf("list %s's memories: status %d", agent, code)
		}
		for _, m := range page.Memories {
			got[m.ID] = m.Content
		}
		if page.NextCursor == "" {
			return got
		}
		cursor = page.NextCursor
	}
	t.Fatalf("list %s's memories: the cursor never ends", agent)
	return nil
}

// verify checks the daemon holds every acknowledged memory, none that was
// forgotten, and nothing of a request that was refused.
func verify(t *testing.T, addr, agent string, l *ledger) {
	t.Helper()
	got := allMemories(t, addr, agent)
	l.mu.Lock()
	defer l.mu.Unlock()
	lost, returned, stored := 0, 0, 0
	for id, c := range l.acked {
		switch {
		case l.forgotten[id] && got[id] != "":
			returned++
			if returned <= 3 {
				t.Errorf("forgotten memory %d is back: %.40q", id, got[id])
			}
		case l.claimed[id] && !l.forgotten[id]:
			// a delete in flight at the kill: it may or may not have committed
		case !l.forgotten[id] && got[id] != c:
			lost++
			if lost <= 3 {
				t.Errorf("acknowledged memory %d: got %.40q, want %.40q", id, got[id], c)
			}
		}
	}
	for _, c := range got {
		if l.refused[c] {
			stored++
			if stored <= 3 {
				t.Errorf("a memory of a request refused with 507 is stored: %.40q", c)
			}
		}
	}
	for answer, n := range l.odd {
		t.Errorf("%d writes answered %s", n, answer)
	}
	if lost+returned+stored > 0 {
		t.Errorf("%d acknowledged memories lost, %d forgotten ones back, %d refused ones stored", lost, returned, stored)
	}
}

// corruptAgent writes a file of garbage as the agent "broken".
func corruptAgent(t *testing.T, data string) {
	t.Helper()
	dir := filepath.Join(data, "agents")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "broken.db"), bytes.Repeat([]byte("not a database "), 4096), 0o600); err != nil {
		t.Fatal(err)
	}
}

// startChaosDaemon starts the daemon and checks the corrupt agent next to
// the others answers 503 and does not stop them.
func startChaosDaemon(t *testing.T, data string) *daemonProc {
	t.Helper()
	d := startDaemon(t, data)
	var e struct{ Error struct{ Code string } }
	if code := send(t.Context(), http.MethodGet, "http://"+d.addr+"/v1/agents/broken/stats", "", &e); code != http.StatusServiceUnavailable || e.Error.Code != "agent_unavailable" {
		t.Errorf("the corrupt agent: status %d %q, want 503 agent_unavailable", code, e.Error.Code)
	}
	return d
}

// TestChaos kills the daemon during group commits and deletes, during
// consolidation, during a backup, and a restore during its copy; deletes a
// WAL after a kill; and keeps a corrupt agent next to them all.
func TestChaos(t *testing.T) {
	data := t.TempDir()
	corruptAgent(t, data)
	l := newLedger()
	rounds := chaosRounds(t)
	for round := range rounds {
		chaosIngest(t, data, l, round)
		chaosConsolidate(t, data, l, round)
		chaosBackup(t, data, l, round)
	}
	d := startChaosDaemon(t, data)
	verify(t, d.addr, "main", l)
	kill9(t, d)
	a, f, _ := l.counts()
	t.Logf("%d rounds: %d memories acknowledged, %d forgotten", rounds, a, f)
	for round := range rounds {
		chaosRestore(t, data, round)
		chaosDeletedWAL(t, data, round)
	}
}

// chaosIngest: eight clients post batches (grouped into shared commits)
// while two delete, and the daemon is killed among them.
func chaosIngest(t *testing.T, data string, l *ledger, round int) {
	d := startChaosDaemon(t, data)
	var fns []func(context.Context)
	for c := range 8 {
		fns = append(fns, func(ctx context.Context) { ingest(ctx, d.addr, "main", fmt.Sprintf("ingest r%d c%d", round, c), l) })
	}
	for range 2 {
		fns = append(fns, func(ctx context.Context) { forgetSome(ctx, d.addr, "main", l) })
	}
	tr := startTraffic(t.Context(), fns...)
	a0, f0, _ := l.counts()
	want := 100 + rand.IntN(300)
	l.waitUntil(t, "ingest and deletes", func(a, f, _ int) bool { return a >= a0+want && f >= f0+5 })
	kill9(t, d)
	tr.stop()
	d = startChaosDaemon(t, data)
	verify(t, d.addr, "main", l)
	kill9(t, d)
}

// chaosConsolidate: the daemon is killed while it rebuilds a day that
// clients keep adding to.
func chaosConsolidate(t *testing.T, data string, l *ledger, round int) {
	d := startChaosDaemon(t, data)
	started := make(chan struct{})
	tr := startTraffic(t.Context(),
		func(ctx context.Context) { ingest(ctx, d.addr, "main", fmt.Sprintf("consolidate r%d", round), l) },
		func(ctx context.Context) { forgetSome(ctx, d.addr, "main", l) },
		func(ctx context.Context) { consolidateLoop(ctx, d.addr, "main", started) })
	<-started
	a0, _, _ := l.counts()
	want := 20 + rand.IntN(100)
	l.waitUntil(t, "ingest during consolidation", func(a, _, _ int) bool { return a >= a0+want })
	kill9(t, d)
	tr.stop()
}

// chaosBackup: `dormouse backup` copies the agents while the daemon takes
// writes; both are killed mid-way. Every backup that counts is whole.
func chaosBackup(t *testing.T, data string, l *ledger, round int) {
	d := startChaosDaemon(t, data)
	tr := startTraffic(t.Context(), func(ctx context.Context) { ingest(ctx, d.addr, "main", fmt.Sprintf("backup r%d", round), l) })
	a0, _, _ := l.counts()
	l.waitUntil(t, "ingest before the backup", func(a, _, _ int) bool { return a >= a0+20 })
	backup := exec.Command(binary, "backup", "--agent", "main", "--data", data)
	backup.Env = hermeticEnv()
	if err := backup.Start(); err != nil {
		t.Fatal(err)
	}
	killed := make(chan error, 1)
	go func() { killed <- backup.Wait() }()
	l.waitUntil(t, "ingest during the backup", func(a, _, _ int) bool { return a >= a0+20+rand.IntN(100) })
	_ = backup.Process.Signal(syscall.SIGKILL) // it may have finished: then this round's backup is whole
	<-killed
	kill9(t, d)
	tr.stop()
	checkBackups(t, filepath.Join(data, "backups", "main"))
}

// checkBackups opens every backup a restore would pick: each must be a
// whole agent file.
func checkBackups(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "main-") || !strings.HasSuffix(e.Name(), ".db") {
			continue // a half-written copy of a killed run, which no restore picks
		}
		if err := store.CheckFile(t.Context(), filepath.Join(dir, e.Name())); err != nil {
			t.Errorf("backup %s after a kill -9: %v", e.Name(), err)
		}
	}
}

// chaosRestore: agent "archive" is backed up, gains more memories, and
// `dormouse restore` is killed while it puts the backup back. The agent is
// then whole, and holds the backup's memories, or those and the later ones.
func chaosRestore(t *testing.T, data string, round int) {
	agent := fmt.Sprintf("archive%d", round)
	l := newLedger()
	d := startChaosDaemon(t, data)
	ingestN(t, d.addr, agent, "before the backup", l, 20)
	kill9(t, d)
	if _, stderr, code := run(t, nil, "", "backup", "--agent", agent, "--data", data); code != 0 {
		t.Fatalf("backup: exit %d\n%s", code, stderr)
	}
	d = startChaosDaemon(t, data)
	before := allMemories(t, d.addr, agent)
	ingestN(t, d.addr, agent, "after the backup", l, 20)
	after := allMemories(t, d.addr, agent)
	kill9(t, d)

	restore := exec.Command(binary, "restore", "--agent", agent, "--data", data, "--addr", "127.0.0.1:1")
	restore.Env = hermeticEnv()
	var stderr bytes.Buffer
	restore.Stderr = &stderr
	if err := restore.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- restore.Wait() }()
	select {
	case <-done: // finished before the kill: the agent is the backup
	case <-time.After(time.Duration(rand.IntN(40)) * time.Millisecond): // a point somewhere in its copy
		_ = restore.Process.Signal(syscall.SIGKILL)
		<-done
	}
	d = startChaosDaemon(t, data)
	defer kill9(t, d)
	got := allMemories(t, d.addr, agent)
	if !sameMemories(got, before) && !holds(got, after) {
		t.Errorf("after a killed restore agent %s holds %d memories: neither the backup's %d nor the %d before the restore\n%s",
			agent, len(got), len(before), len(after), stderr.String())
	}
}

// ingestN stores at least n batches in agent, each acknowledged.
func ingestN(t *testing.T, addr, agent, tag string, l *ledger, n int) {
	t.Helper()
	a0, _, _ := l.counts()
	tr := startTraffic(t.Context(), func(ctx context.Context) { ingest(ctx, addr, agent, tag, l) })
	defer tr.stop() // no request of it still in flight when this returns
	l.waitUntil(t, tag, func(a, _, _ int) bool { return a >= a0+2*n })
}

func sameMemories(a, b map[int64]string) bool { return len(a) == len(b) && holds(a, b) }

// holds reports whether got has every memory of want (and perhaps more: a
// write whose client gave up may still have committed).
func holds(got, want map[int64]string) bool {
	for id, c := range want {
		if got[id] != c {
			return false
		}
	}
	return true
}

// chaosDeletedWAL: agent "walless" is stopped cleanly (its WAL folded into
// the file), takes more writes, is killed, and its -wal file deleted. The
// daemon starts; the agent serves everything stored before the clean stop
// and takes writes, or, if the deletion tore a checkpoint, it is reported
// unavailable (503), never a crash or wrong answers. What was only in the
// deleted WAL is gone: that is what deleting it means.
func chaosDeletedWAL(t *testing.T, data string, round int) {
	agent := fmt.Sprintf("walless%d", round)
	l := newLedger()
	d := startChaosDaemon(t, data)
	ingestN(t, d.addr, agent, "before the clean stop", l, 30)
	if err := d.stop(t, syscall.SIGTERM); err != nil {
		t.Fatalf("clean stop: %v\n%s", err, d.stderr.String())
	}
	d = startChaosDaemon(t, data)
	before := allMemories(t, d.addr, agent)
	ingestN(t, d.addr, agent, "only in the WAL", l, 30)
	kill9(t, d)
	if err := os.Remove(filepath.Join(data, "agents", agent+".db-wal")); err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	d = startChaosDaemon(t, data)
	defer kill9(t, d)
	var e struct{ Error struct{ Code string } }
	if code := send(t.Context(), http.MethodGet, "http://"+d.addr+"/v1/agents/"+agent+"/stats", "", &e); code == http.StatusServiceUnavailable {
		if e.Error.Code != "agent_unavailable" {
			t.Errorf("after a deleted WAL: 503 %q, want agent_unavailable", e.Error.Code)
		}
		return
	}
	got := allMemories(t, d.addr, agent)
	for id, c := range before {
		if got[id] != c {
			t.Errorf("after a deleted WAL memory %d stored before the clean stop: got %.40q, want %.40q", id, got[id], c)
		}
	}
	ingestN(t, d.addr, agent, "after the deleted WAL", l, 1)
}

// TestChaosFullDisk fills the data directory's file system (a small tmpfs)
// under concurrent ingest and deletes and kills the daemon once writes are
// refused: it starts again on the full disk and serves every acknowledged
// memory, stores nothing of a request answered 507, and writes again once
// space is free.
func TestChaosFullDisk(t *testing.T) {
	data := fulldisk.Mount(t, 24<<20)
	corruptAgent(t, data)
	l := newLedger()
	for round := range chaosRounds(t) {
		d := startChaosDaemon(t, data)
		ingestN(t, d.addr, "main", fmt.Sprintf("full r%d before filling", round), l, 5)
		free := fulldisk.Fill(t, data)
		var fns []func(context.Context)
		for c := range 6 {
			fns = append(fns, func(ctx context.Context) { ingest(ctx, d.addr, "main", fmt.Sprintf("full r%d c%d", round, c), l) })
		}
		fns = append(fns, func(ctx context.Context) { forgetSome(ctx, d.addr, "main", l) })
		tr := startTraffic(t.Context(), fns...)
		_, _, r0 := l.counts()
		l.waitUntil(t, "507s", func(_, _, r int) bool { return r >= r0+2*(1+rand.IntN(20)) })
		kill9(t, d)
		tr.stop()

		d = startChaosDaemon(t, data) // still full
		verify(t, d.addr, "main", l)
		free()
		ingestN(t, d.addr, "main", fmt.Sprintf("full r%d after freeing", round), l, 1)
		kill9(t, d)
	}
	d := startChaosDaemon(t, data)
	defer kill9(t, d)
	verify(t, d.addr, "main", l)
	a, f, r := l.counts()
	t.Logf("%d memories acknowledged, %d forgotten, %d refused with 507", a, f, r)
}
