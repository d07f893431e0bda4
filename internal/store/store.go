// Package store keeps each agent's memories in its own SQLite file and is the
// only package that speaks SQL: schema, migrations, group commit and queries.
//
// Facts and profile lines are two layers of one ledger of claims
// (ledger.go): both put through putClaim, which carries out
// claim.Decide's decision, and (*Agent).RetireClaim ends a claim in both
// with no successor ("I no longer eat meat"), history kept for as_of.
package store

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Options configure a Store. Zero values take the documented defaults.
type Options struct {
	Dir            string        // data directory; agent files live in Dir/agents
	Synchronous    string        // FULL (the default) or NORMAL
	BusyTimeout    time.Duration // how long a connection waits for a lock
	CacheSizeKiB   int           // page cache per connection
	ReadConns      int           // read connections per agent
	IdleClose      time.Duration // an agent unused this long is closed
	ConnIdleClose  time.Duration // a connection unused this long is closed (the agent stays open)
	MaxOpenAgents  int           // beyond this, least recently used idle agents are closed
	GroupCommitMax int           // writes per transaction at most
	DedupWindow    time.Duration // same content and session within this window is stored once
	MaxPageCount   int           // cap on each agent file's size in pages (0: only the disk's)
	ExplicitCreate bool          // Acquire never creates an agent; only Create does (agents.create: explicit)
	// LeaveCheckpoints leaves every checkpoint to another process
	// (Litestream, internal/replicate): the store never copies the WAL
	// into the database, in the background, after a vacuum or when a
	// connection closes, so no frame reaches the file before that process
	// has read it from the WAL.
	LeaveCheckpoints bool
	Location         *time.Location
	Logger           *slog.Logger
	// Kinds names the kinds of thing a text's words name ("we drove to
	// Chicago": city), indexed with each memory so that a search by kind
	// finds it (SearchOptions.Kinds). Recall's lexicon provides it
	// (internal/kinds.Of); the store knows none of its own, and nil
	// indexes no kinds.
	Kinds func(text string) string
	// KindsVersion names Kinds' lexicon (kinds.Version): an agent whose
	// kinds index another lexicon built is indexed afresh when opened
	// (after the open on a big file). "" leaves every index as it is.
	KindsVersion string
	// ProfileAtCapture builds the profile lines of memories (the
	// consolidation's builder, extract.ProfileLines): a new memory at
	// least ProfileImportance important gets its lines as soon as it is
	// stored, not only at night. nil builds none at capture.
	ProfileAtCapture  func(mems []Memory) []ProfileLine
	ProfileImportance float64

	// GroupCommitWindow is how long the writer waits for more writes to
	// join a transaction when writers are concurrent (0: it takes only
	// those already queued). A lone writer never waits.
	GroupCommitWindow time.Duration

	// SpareConnIdleClose is ConnIdleClose for the connections an agent
	// needs least after a burst: the read connections beyond the one it
	// used last, and a writer's that wrote heavyWriterRows rows since it
	// opened. At most ConnIdleClose.
	SpareConnIdleClose time.Duration

	// Now stamps each memory's arrival (created_at), from which health
	// measures how long it has waited; nil is time.Now. Tests set it.
	Now func() time.Time

	exclusive bool          // EXCLUSIVE locking mode: see openReadOnly
	writer    bool          // the writer's connection: its page cache grows with the file (writerCacheKiB)
	sizes     *docSizes     // the agent's kept row sizes, shared by its connections (docsize.go)
	captured  *captureClock // the Store's, shared by its agents (LastCapture)
}

// writerMode is o for the writer's connection.
func (o Options) writerMode() Options {
	o.writer = true
	return o
}

// exclusiveMode is o for a connection in EXCLUSIVE locking mode.
func (o Options) exclusiveMode() Options {
	o.exclusive = true
	return o
}

func (o *Options) fill() {
	if o.Synchronous == "" {
		o.Synchronous = "FULL"
	}
	if o.BusyTimeout <= 0 {
		o.BusyTimeout = 5 * time.Second
	}
	if o.CacheSizeKiB <= 0 {
		o.CacheSizeKiB = 256
	}
	if o.ReadConns <= 0 {
		o.ReadConns = 2
	}
	if o.IdleClose <= 0 {
		o.IdleClose = 10 * time.Minute
	}
	if o.ConnIdleClose <= 0 {
		o.ConnIdleClose = DefaultConnIdleClose
	}
	if o.SpareConnIdleClose <= 0 {
		o.SpareConnIdleClose = DefaultSpareConnIdleClose
	}
	o.SpareConnIdleClose = min(o.SpareConnIdleClose, o.ConnIdleClose)
	if o.MaxOpenAgents <= 0 {
		o.MaxOpenAgents = 32
	}
	if o.GroupCommitMax <= 0 {
		o.GroupCommitMax = 256
	}
	if o.DedupWindow < 0 {
		o.DedupWindow = 0
	}
	if o.Location == nil {
		o.Location = time.Local
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
}

// Store opens agent files lazily and closes idle ones, so memory stays
// bounded however many agents exist.
type Store struct {
	opts Options
	dir  string

	openMu sync.Mutex // serialises opening files, so one agent is never opened twice at once

	mu       sync.Mutex
	agents   map[string]*Agent
	broken   map[string]*UnavailableError // agents whose file is corrupt, until restart
	deleting map[string]bool              // agents Delete is taking away
	closed   bool
	cond     *sync.Cond // signalled when an agent's refs drop to zero
	lastUsed time.Time  // when an agent was last released

	stop chan struct{}
	done chan struct{}
}

var (
	// ErrNoAgent is returned when an agent does not exist and may not be created.
	ErrNoAgent = errors.New("no such agent")
	// ErrStoreClosed is returned after Close.
	ErrStoreClosed = errors.New("store is closed")
	// ErrFull is returned when a write does not fit: the disk, or the agent
	// file's size cap, is full. Nothing of that write was stored.
	ErrFull = errors.New("storage is full")
)

var agentName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// NameError reports an agent name that is not allowed.
type NameError struct{ Name string }

func (e *NameError) Error() string {
	return fmt.Sprintf("invalid agent name %q: use 1-64 characters of a-z, 0-9, '_' and '-', starting with a letter or digit", e.Name)
}

// ValidateAgentName rejects every name that is not a plain file stem. It runs
// before any path is built from the name.
func ValidateAgentName(name string) error {
	if !agentName.MatchString(name) {
		return &NameError{Name: name}
	}
	return nil
}

// Open prepares the data directory (0700) and starts the idle-agent janitor.
func Open(ctx context.Context, o Options) (*Store, error) {
	o.fill()
	o.captured = new(captureClock)
	if o.Dir == "" {
		return nil, errors.New("open store: no data directory")
	}
	// SQLite's Go VFS creates -wal and -shm files with 0666 minus the umask,
	// and they hold the same memories as the main file: keep them private.
	syscall.Umask(syscall.Umask(0o077) | 0o077)
	dir := filepath.Join(o.Dir, "agents")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("open store: create %s: %w", dir, err)
	}
	s := &Store{
		opts:     o,
		dir:      dir,
		agents:   map[string]*Agent{},
		broken:   map[string]*UnavailableError{},
		deleting: map[string]bool{},
		stop:     make(chan struct{}),
		done:     make(chan struct{}),
	}
	s.cond = sync.NewCond(&s.mu)
	go s.janitor()
	return s, nil
}

// Dir returns the directory that holds the agent files.
func (s *Store) Dir() string { return s.dir }

func (s *Store) agentPath(name string) string { return filepath.Join(s.dir, name+".db") }

// Acquire returns the named agent, opening its file if needed. With create
// false a missing agent is ErrNoAgent; with create true it is made, unless
// it was deleted (DeletedError) or agents are created explicitly
// (NotCreatedError). Every Acquire must be paired with a Release.
func (s *Store) Acquire(ctx context.Context, name string, create bool) (*Agent, error) {
	mode := createNever
	if create {
		mode = createAllowed
	}
	return s.acquire(ctx, name, mode)
}

// createMode is what acquire does with a missing agent.
type createMode int

const (
	createNever   createMode = iota // ErrNoAgent
	createAllowed                   // create it unless mayCreate says no
	createAlways                    // create it (Create)
)

func (s *Store) acquire(ctx context.Context, name string, mode createMode) (*Agent, error) {
	if err := ValidateAgentName(name); err != nil {
		return nil, err
	}
	s.mu.Lock()
	for {
		if s.closed {
			s.mu.Unlock()
			return nil, ErrStoreClosed
		}
		if s.deleting[name] {
			s.mu.Unlock()
			return nil, fmt.Errorf("%w: %q", ErrDeleting, name)
		}
		if ue := s.broken[name]; ue != nil {
			s.mu.Unlock()
			return nil, ue
		}
		a, ok := s.agents[name]
		if !ok {
			break
		}
		if !a.closing {
			a.refs++
			a.lastUsed = time.Now()
			s.mu.Unlock()
			return a, nil
		}
		s.cond.Wait() // being closed by the janitor: wait and reopen
	}
	s.mu.Unlock()

	// Opening runs migrations and may take a while: do it without holding
	// s.mu, but one open at a time, and re-check that nobody else opened the
	// agent meanwhile.
	s.openMu.Lock()
	defer s.openMu.Unlock()
	s.mu.Lock()
	if s.deleting[name] {
		s.mu.Unlock()
		return nil, fmt.Errorf("%w: %q", ErrDeleting, name)
	}
	if a, ok := s.agents[name]; ok && !a.closing {
		a.refs++
		a.lastUsed = time.Now()
		s.mu.Unlock()
		return a, nil
	}
	s.mu.Unlock()
	path := s.agentPath(name)
	if err := s.checkMissing(name, path, mode); err != nil {
		return nil, err
	}
	a, err := s.open(ctx, name, path)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		_ = a.close()
		return nil, ErrStoreClosed
	}
	a.refs = 1
	a.lastUsed = time.Now()
	a.settle = s.settleShares
	s.agents[name] = a
	s.mu.Unlock()
	s.evictOverflow()
	return a, nil
}

// checkMissing refuses to go on when the agent's file does not exist and
// mode does not create it here.
func (s *Store) checkMissing(name, path string, mode createMode) error {
	if mode == createAlways {
		return nil
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if mode == createNever {
		return fmt.Errorf("%w: %q", ErrNoAgent, name)
	}
	return s.mayCreate(name)
}

// open opens an agent's file: read-only when the disk is too full to open
// it for writing (and ErrFull for a new agent, which has nothing to read),
// and a corrupt file marks the agent unavailable.
func (s *Store) open(ctx context.Context, name, path string) (*Agent, error) {
	a, err := openAgent(ctx, name, path, s.opts, s.markBroken)
	if err != nil && isFull(err, s.dir) && fileSize(path) == 0 {
		_ = os.Remove(path) // the empty file openConn created: no agent was made
		return nil, fmt.Errorf("create agent %q: %w: %v", name, ErrFull, err)
	}
	if err != nil && isFull(err, s.dir) {
		s.opts.Logger.Warn("the disk is full: agent opened read-only until space is free", "agent", name, "err", err)
		a, err = openReadOnly(ctx, name, path, s.opts, s.markBroken)
	}
	if err != nil && isCorrupt(err) {
		ue := &UnavailableError{Agent: name, Path: path, Err: err}
		s.markBroken(ue)
		return nil, ue
	}
	return a, err
}

// markBroken makes every later Acquire of the agent fail with ue.
func (s *Store) markBroken(ue *UnavailableError) {
	s.mu.Lock()
	_, known := s.broken[ue.Agent]
	if !known {
		s.broken[ue.Agent] = ue
	}
	s.mu.Unlock()
	if !known {
		s.opts.Logger.Error("agent unavailable: its file is corrupt", "agent", ue.Agent, "path", ue.Path, "err", ue.Err)
	}
}

// Unavailable lists the agents whose files were found corrupt, by name.
func (s *Store) Unavailable() []*UnavailableError {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]*UnavailableError, 0, len(s.broken))
	for _, ue := range s.broken {
		out = append(out, ue)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Agent < out[j].Agent })
	return out
}

// Release returns an agent obtained from Acquire.
func (s *Store) Release(a *Agent) {
	s.mu.Lock()
	a.refs--
	a.lastUsed = time.Now()
	s.lastUsed = a.lastUsed
	if a.refs <= 1 { // 1: Delete waits to hold the only reference
		s.cond.Broadcast()
	}
	s.mu.Unlock()
}

// LastUsed is when an agent was last released, i.e. when the store's
// latest work ended (zero before any).
func (s *Store) LastUsed() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastUsed
}

// With acquires the agent, runs fn and releases it.
func (s *Store) With(ctx context.Context, name string, create bool, fn func(*Agent) error) error {
	a, err := s.Acquire(ctx, name, create)
	if err != nil {
		return err
	}
	defer s.Release(a)
	return fn(a)
}

// Agents lists the agents that have a file, sorted by name.
func (s *Store) Agents() ([]string, error) { return AgentNames(s.dir) }

// AgentNames lists the agents that have a file in dir (DATA/agents),
// sorted by name, without opening any.
func AgentNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("list agents: %w", err)
	}
	var names []string
	for _, e := range entries {
		stem, ok := strings.CutSuffix(e.Name(), ".db")
		if !ok || !e.Type().IsRegular() || ValidateAgentName(stem) != nil {
			continue
		}
		names = append(names, stem)
	}
	sort.Strings(names)
	return names, nil
}

// OpenAgents returns the names of the agents whose files are open now.
func (s *Store) OpenAgents() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	names := make([]string, 0, len(s.agents))
	for n := range s.agents {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DefaultConnIdleClose is how long a connection may stand unused before it
// is closed. After the dense load (BenchmarkDenseRSS) each holds 0.7-1 MiB;
// the first recall after the close costs ~5 ms more CPU, to open a
// connection and prepare its statements again (BenchmarkFirstAfterIdleClose).
const DefaultConnIdleClose = 30 * time.Second

// DefaultSpareConnIdleClose is Options.SpareConnIdleClose's default. After
// a burst (the dense load of BenchmarkDenseRSS) the spare connections of 5
// agents hold ~7 MiB; closing them a few seconds after it costs a reopen
// (~5 ms CPU) only when concurrency or a bulk write comes back.
const DefaultSpareConnIdleClose = 2 * time.Second

func (s *Store) janitor() {
	defer close(s.done)
	every := min(s.opts.IdleClose/2, s.opts.SpareConnIdleClose/2, time.Minute)
	t := time.NewTicker(max(every, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-t.C:
			now := time.Now()
			s.closeIdle(now.Add(-s.opts.IdleClose))
			s.closeIdleConns(idleCutoffs{now.Add(-s.opts.ConnIdleClose), now.Add(-s.opts.SpareConnIdleClose)})
		}
	}
}

// idleCutoffs say which connections closeIdleConns closes: those unused
// since kept, and the spare ones unused since spare.
type idleCutoffs struct{ kept, spare time.Time }

// closeIdleConns closes, in every open agent, the connections unused
// since their cutoff.
func (s *Store) closeIdleConns(cutoff idleCutoffs) {
	s.mu.Lock()
	open := make([]*Agent, 0, len(s.agents))
	for _, a := range s.agents {
		if !a.closing {
			open = append(open, a)
		}
	}
	s.mu.Unlock()
	for _, a := range open {
		a.closeIdleConns(cutoff)
	}
}

// closeIdle closes every unused agent last used before cutoff.
func (s *Store) closeIdle(cutoff time.Time) {
	s.mu.Lock()
	var victims []*Agent
	for _, a := range s.agents {
		if a.refs == 0 && !a.closing && a.lastUsed.Before(cutoff) {
			a.closing = true
			victims = append(victims, a)
		}
	}
	s.mu.Unlock()
	s.finish(victims)
}

// evictOverflow closes least recently used idle agents beyond MaxOpenAgents.
func (s *Store) evictOverflow() {
	s.mu.Lock()
	var idle []*Agent
	open := 0
	for _, a := range s.agents {
		if a.closing {
			continue
		}
		open++
		if a.refs == 0 {
			idle = append(idle, a)
		}
	}
	var victims []*Agent
	if over := open - s.opts.MaxOpenAgents; over > 0 {
		sort.Slice(idle, func(i, j int) bool { return idle[i].lastUsed.Before(idle[j].lastUsed) })
		for _, a := range idle[:min(over, len(idle))] {
			a.closing = true
			victims = append(victims, a)
		}
	}
	s.mu.Unlock()
	s.finish(victims)
}

func (s *Store) finish(victims []*Agent) {
	for _, a := range victims {
		if err := a.close(); err != nil {
			s.opts.Logger.Warn("close idle agent", "agent", a.name, "err", err)
		}
		s.mu.Lock()
		if s.agents[a.name] == a {
			delete(s.agents, a.name)
		}
		s.cond.Broadcast()
		s.mu.Unlock()
	}
}

// Close waits for in-flight work on every agent, commits queued writes,
// checkpoints each WAL and closes all files.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	close(s.stop)
	<-s.done

	s.mu.Lock()
	for {
		busy := false
		for _, a := range s.agents {
			if a.refs > 0 || a.closing {
				busy = true
			}
		}
		if !busy {
			break
		}
		s.cond.Wait()
	}
	agents := make([]*Agent, 0, len(s.agents))
	for _, a := range s.agents {
		agents = append(agents, a)
	}
	s.agents = map[string]*Agent{}
	s.mu.Unlock()

	var errs []error
	for _, a := range agents {
		errs = append(errs, a.close())
	}
	return errors.Join(errs...)
}

// LastWritten is the newest modification time of the agent files in dir
// (DATA/agents) and their WALs, and the file it belongs to; zero when there
// are none. It is the time of the last write by this device's clock, which
// a clock set back is behind (when.Behind).
func LastWritten(dir string) (time.Time, string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return time.Time{}, "", fmt.Errorf("list agent files: %w", err)
	}
	var last time.Time
	var name string
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".db") && !strings.HasSuffix(e.Name(), ".db-wal") {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() && fi.ModTime().After(last) {
			last, name = fi.ModTime(), e.Name()
		}
	}
	return last, name, nil
}
