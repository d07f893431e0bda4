package watch

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/files"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Ingester is the file pipeline shared by watched folders, uploads and `dormouse ingest --file`:
// formats → memories → the store, with the file's identity (its SHA-256) and state tracked.
type Ingester struct {
	Store           *store.Store
	MaxContentBytes int            // per memory; 0: 64 KiB
	MaxFutureSkew   time.Duration  // capture.max_future_skew; 0: capture's default
	Location        *time.Location // dates without a zone; nil: Local
	AutoCreate      bool           // create an agent that has no file yet
	RetryBase       time.Duration  // first retry after a failure; doubles per failure; 0: 30s
	RetryMax        time.Duration  // longest wait between retries; 0: 1h
	// MaxExtractedBytes and MaxParts cap what one file may give (files.Options); 0: the defaults.
	MaxExtractedBytes int
	MaxParts          int
	// PDF reads PDFs in a child process bounded in time and memory (files.Child); nil reads them in
	// this process, which a malicious PDF can wedge.
	PDF    *files.Child
	Logger *slog.Logger
	// Describe, when set, has a vision-capable model say what an image shows (files.Options.Describe):
	// its failure fails the file, which is retried. DescribedBy names the model ("provider/model").
	Describe    func(ctx context.Context, name, mime string, data []byte) (string, error)
	DescribedBy string
	// OnWrite, when set, is told of every agent that stored new memories (the backlog trigger).
	OnWrite func(agent string)
	// OnRetire, when set, is told of every agent whose memories were retired: days whose
	// consolidations cited them may wait for a rebuild (store.FileRebuildDays).
	OnRetire func(agent string)
}

// Outcome is what became of one file.
type Outcome struct {
	Path     string `json:"path"`
	Status   string `json:"status"` // ok, skipped, failed or unchanged
	Error    string `json:"error,omitempty"`
	Parts    int    `json:"parts"`
	Inserted int    `json:"inserted"`
	Reused   bool   `json:"reused,omitempty"`
	Retired  int    `json:"retired,omitempty"`
	// Refreshed counts memories rewritten in place: an image described since it was stored.
	Refreshed int `json:"refreshed,omitempty"`
	// modelDown: it failed because the vision model could not describe it; an inbox keeps it.
	modelDown bool
}

// File is one file's state as the pipeline sees it.
type File struct {
	Root, Path string // Path is relative to Root, slash-separated
	Data       []byte // nil when it could not (or need not) be read; see Err
	Size       int64
	MTime      time.Time
	Err        error // reading it failed (retried) or a *files.SkipError (too big, outside the root)
	Mirror     bool  // a change retires the memories of what the file held before
	// Refresh rewrites the memories of unchanged content (an image stored before a vision model was
	// configured, described now).
	Refresh bool
}

// UploadRoot is the root uploads and `dormouse ingest --file` are tracked under.
const UploadRoot = "upload:"

// Ingest turns f into memories of agent and records it, in one transaction.
func (in *Ingester) Ingest(ctx context.Context, agent string, f File) (Outcome, error) {
	ch, cause, err := in.prepareCause(ctx, f)
	if err != nil {
		return Outcome{}, err
	}
	outs, err := in.commit(ctx, agent, []store.FileChange{ch})
	if err != nil {
		return Outcome{}, err
	}
	outs[0].modelDown = errors.Is(cause, files.ErrDescribe)
	return outs[0], nil
}

// prepareCause parses and derives f's memories: the change to record, and the error of a file that
// failed or was skipped. It fails only when ctx ends.
func (in *Ingester) prepareCause(ctx context.Context, f File) (ch store.FileChange, cause error, err error) {
	ch = store.FileChange{Root: f.Root, Path: f.Path, Size: f.Size, MTime: f.MTime, Replace: f.Mirror, Refresh: f.Refresh}
	switch {
	case f.Err != nil && files.IsSkip(f.Err):
		ch.Status, ch.Error, cause = store.FileSkipped, f.Err.Error(), f.Err
	case f.Err != nil:
		ch.Status, ch.Error, cause = store.FileFailed, f.Err.Error(), f.Err
	default:
		sum := sha256.Sum256(f.Data)
		ch.SHA256 = hex.EncodeToString(sum[:])
		mems, err := in.memories(ctx, f)
		switch {
		case err == nil:
			ch.Status, ch.Memories = store.FileOK, mems
		case files.IsSkip(err):
			ch.Status, ch.Error, cause = store.FileSkipped, err.Error(), err
		case ctx.Err() != nil:
			return ch, nil, ctx.Err()
		default:
			ch.Status, ch.Error, cause = store.FileFailed, err.Error(), err
		}
	}
	if ch.Status == store.FileFailed {
		ch.RetryBase, ch.RetryMax = in.retryBase(), in.retryMax()
	}
	return ch, cause, nil
}

// commit records prepared changes of agent's files in one transaction.
func (in *Ingester) commit(ctx context.Context, agent string, chs []store.FileChange) ([]Outcome, error) {
	var res []store.FileResult
	err := in.Store.With(ctx, agent, in.AutoCreate, func(a *store.Agent) error {
		var err error
		res, err = a.CommitFiles(ctx, chs)
		return err
	})
	if err != nil {
		return nil, err
	}
	outs := make([]Outcome, len(chs))
	inserted, retired := 0, 0
	for i, ch := range chs {
		outs[i] = Outcome{Path: ch.Path, Status: ch.Status, Error: ch.Error, Parts: len(ch.Memories),
			Inserted: res[i].Inserted, Reused: res[i].Reused, Retired: res[i].Retired, Refreshed: res[i].Refreshed}
		inserted += res[i].Inserted + res[i].Refreshed // new text: embed it again
		retired += res[i].Retired + res[i].Refreshed   // changed text: rebuild its days
		if ch.Status == store.FileFailed && in.Logger != nil {
			in.Logger.Warn("file failed; will retry", "agent", agent, "root", ch.Root, "path", ch.Path, "err", ch.Error)
		}
	}
	if inserted > 0 && in.OnWrite != nil {
		in.OnWrite(agent)
	}
	if retired > 0 && in.OnRetire != nil {
		in.OnRetire(agent)
	}
	return outs, nil
}

func (in *Ingester) retryBase() time.Duration {
	if in.RetryBase > 0 {
		return in.RetryBase
	}
	return 30 * time.Second
}

func (in *Ingester) retryMax() time.Duration {
	if in.RetryMax > 0 {
		return in.RetryMax
	}
	return time.Hour
}

// memories parses f and derives each part's memory as capture does for any other (summary,
// entities, topics, importance), adding the note's links as entities and its tags as topics.
func (in *Ingester) memories(ctx context.Context, f File) ([]store.Memory, error) {
	maxContent := in.MaxContentBytes
	if maxContent <= 0 {
		maxContent = 64 << 10
	}
	parts, err := files.Parse(ctx, f.Path, f.Data, f.MTime, files.Options{MaxPartBytes: maxContent, Location: in.Location,
		Describe: in.Describe, DescribedBy: in.DescribedBy, MaxExtractedBytes: in.MaxExtractedBytes,
		MaxParts: in.MaxParts, PDF: in.PDF})
	if err != nil {
		return nil, err
	}
	lim := capture.Limits{MaxContent: maxContent, MaxFutureSkew: in.MaxFutureSkew}
	now := time.Now()
	ins := make([]capture.Input, len(parts))
	for i, p := range parts {
		// A file's own date is a hint, not a client's claim: one capture would refuse (a clock or a
		// front matter gone wrong) dates the part now rather than failing the file.
		if lim.CheckTime("timestamp", p.Timestamp, now) != nil {
			p.Timestamp = now
		}
		ins[i] = capture.Input{
			Content:         p.Content,
			Context:         p.Context,
			Source:          sourceLabel(f.Path),
			InteractionType: "file",
			Timestamp:       p.Timestamp.UTC().Format(time.RFC3339Nano),
		}
	}
	b, err := capture.Validate(ins, lim, now)
	if err != nil {
		return nil, fmt.Errorf("file part: %w", err)
	}
	mems := b.Memories()
	for i, p := range parts {
		m := &mems[i]
		for _, l := range p.Links {
			m.Entities = append(m.Entities, store.Entity{Text: l, Type: "link"})
		}
		if len(p.Tags) > 0 {
			m.Topics = text.Unique(append(slices.Clone(p.Tags), m.Topics...))
			m.Topics = m.Topics[:min(len(m.Topics), 10)]
		}
	}
	return mems, nil
}

// sourceLabel is a file's path as its memories' source, which capture takes only as one line of
// UTF-8 within its limit on labels: a Linux name is any bytes (not UTF-8: U+FFFD; a tab or a newline:
// a space), and a longer path keeps its end. The file is tracked under its own path still.
func sourceLabel(p string) string {
	p = strings.Map(func(r rune) rune {
		if text.IsLineControl(r) {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(p, "\uFFFD"))
	const limit = 256
	if len(p) <= limit {
		return p
	}
	cut := len(p) - limit + len("…")
	for cut < len(p) && (p[cut]&0xC0) == 0x80 {
		cut++
	}
	return "…" + p[cut:]
}

// IngestContent ingests data for agent as if it had been saved at rel (slash-separated, relative to
// root) in a mirror-mode watched folder with the given mtime: a new path is stored, a path whose
// content changed retires its old memories, the same content again is reused. It is the entry point
// for `dormouse eval`'s ingest_file event.
func (in *Ingester) IngestContent(ctx context.Context, agent, root, rel string, data []byte, mtime time.Time) (Outcome, error) {
	rel, err := cleanRel(rel)
	if err != nil {
		return Outcome{}, err
	}
	return in.Ingest(ctx, agent, File{Root: root, Path: rel, Data: data, Size: int64(len(data)), MTime: mtime, Mirror: true})
}

// Forget is IngestContent's counterpart for a deleted file: in mirror mode its memories are retired
// unless another path holds the same content.
func (in *Ingester) Forget(ctx context.Context, agent, root, rel string, mirror bool) (int, error) {
	var n int
	err := in.Store.With(ctx, agent, false, func(a *store.Agent) error {
		var err error
		n, err = a.ForgetFile(ctx, root, rel, mirror)
		return err
	})
	if n > 0 && in.OnRetire != nil {
		in.OnRetire(agent)
	}
	return n, err
}

// trackedCount counts the files tracked from folder f: none while its agent
// does not exist yet.
func (in *Ingester) trackedCount(ctx context.Context, f Folder) (int, error) {
	var n int
	err := in.Store.With(ctx, f.Agent, false, func(a *store.Agent) error {
		var err error
		n, err = a.CountTrackedFiles(ctx, f.Path)
		return err
	})
	if errors.Is(err, store.ErrNoAgent) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("status of %s: %w", f.Path, err)
	}
	return n, nil
}

// Upload ingests a file sent by a client (POST /v1/agents/{agent}/files, `dormouse ingest --file`):
// the same pipeline, tracked under UploadRoot by its base name, kept like an inbox's (a new upload
// under the same name adds to the memories rather than replacing them).
func (in *Ingester) Upload(ctx context.Context, agent, name string, data []byte, mtime time.Time) (Outcome, error) {
	base := path.Base(strings.ReplaceAll(name, "\\", "/"))
	if base == "." || base == "/" || base == ".." || strings.TrimSpace(base) == "" {
		return Outcome{}, &InputError{Msg: fmt.Sprintf("file name %q has no base name", name)}
	}
	if !files.Supported(base) {
		return Outcome{}, &InputError{Msg: fmt.Sprintf("file %q: unsupported format; want .md .txt .log .json .jsonl .csv .yaml .yml .pdf .png .jpg .jpeg .gif or .webp", base)}
	}
	if mtime.IsZero() {
		mtime = time.Now()
	}
	ch, cause, err := in.prepareCause(ctx, File{Root: UploadRoot, Path: base, Data: data, Size: int64(len(data)), MTime: mtime})
	if err != nil {
		return Outcome{}, err
	}
	// An upload that gives nothing is refused, not tracked: no watcher would ever retry it.
	if errors.Is(cause, files.ErrDescribe) {
		return Outcome{}, fmt.Errorf("file %q: %w", base, cause)
	}
	if ch.Status != store.FileOK {
		return Outcome{}, &InputError{Msg: fmt.Sprintf("file %q: %s", base, ch.Error)}
	}
	outs, err := in.commit(ctx, agent, []store.FileChange{ch})
	if err != nil {
		return Outcome{}, err
	}
	return outs[0], nil
}

// UploadAt is Upload for a client that keeps a file at a path of its own (slash-separated,
// relative): like a mirror-mode folder's file, a new upload at the same path replaces the memories of
// the previous one, and one with nothing to remember retires them. It is also what `dormouse eval`'s
// ingest_file event uses through the API (POST /v1/agents/{agent}/files?path=).
func (in *Ingester) UploadAt(ctx context.Context, agent, rel string, data []byte, mtime time.Time) (Outcome, error) {
	rel, err := cleanRel(rel)
	if err != nil {
		return Outcome{}, err
	}
	if !files.Supported(rel) {
		return Outcome{}, &InputError{Msg: fmt.Sprintf("file %q: unsupported format; want .md .txt .log .json .jsonl .csv .yaml .yml .pdf .png .jpg .jpeg .gif or .webp", rel)}
	}
	if mtime.IsZero() {
		mtime = time.Now()
	}
	ch, cause, err := in.prepareCause(ctx, File{Root: UploadRoot, Path: rel, Data: data, Size: int64(len(data)), MTime: mtime, Mirror: true})
	if err != nil {
		return Outcome{}, err
	}
	if errors.Is(cause, files.ErrDescribe) {
		return Outcome{}, fmt.Errorf("file %q: %w", rel, cause)
	}
	if ch.Status == store.FileFailed { // not tracked: no watcher would retry it
		return Outcome{}, &InputError{Msg: fmt.Sprintf("file %q: %s", rel, ch.Error)}
	}
	outs, err := in.commit(ctx, agent, []store.FileChange{ch})
	if err != nil {
		return Outcome{}, err
	}
	if outs[0].Status == store.FileSkipped {
		return outs[0], &InputError{Msg: fmt.Sprintf("file %q: %s", rel, ch.Error)}
	}
	return outs[0], nil
}

// InputError is a request the pipeline refuses as it stands.
type InputError struct{ Msg string }

func (e *InputError) Error() string { return e.Msg }

// cleanRel checks a relative path: slash-separated, inside its root.
func cleanRel(rel string) (string, error) {
	c := path.Clean(strings.ReplaceAll(rel, "\\", "/"))
	if c == "." || path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
		return "", &InputError{Msg: fmt.Sprintf("path %q is not a file path inside the folder", rel)}
	}
	return c, nil
}

// IsDescribeError reports whether err is an upload's image that the vision model could not describe
// (down, refusing, over budget): the client may send it again later.
func IsDescribeError(err error) bool { return errors.Is(err, files.ErrDescribe) }

// IsInputError reports whether err is an InputError.
func IsInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}
