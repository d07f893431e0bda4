package files

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// ChildArg is the hidden subcommand a Child runs its executable with: `dormouse extract-pdf`, or a
// test binary whose TestMain hands it to ServeChild.
const ChildArg = "extract-pdf"

// childEnv marks a child's environment (the only variable it gets: no secret reaches the parser). A
// child never starts one of its own, so a binary that runs its tests for ChildArg cannot recurse.
const childEnv = "DORMOUSE_EXTRACT_CHILD"

// DefaultParseTimeout is how long a child may parse one file (files.parse_timeout).
const DefaultParseTimeout = 30 * time.Second

// childMemory is the address space a child may add to what it starts with (RLIMIT_AS): a file that
// makes the reader balloon ends the child, not the daemon. With the daemon's own it stays under the
// unit's MemoryMax (768M), so the kernel never picks the daemon to kill for it.
const childMemory = 512 << 20

// Child reads PDFs in a child process of this binary: ledongthuc/pdf loops for ever on some files (a
// page tree that is its own child, a /Parent cycle) and recover cannot stop a loop, but a deadline
// can kill a process. The child runs under RLIMIT_CPU and RLIMIT_AS as well.
type Child struct {
	Command []string      // the executable and its arguments up to ChildArg: {os.Executable(), ChildArg}
	Timeout time.Duration // a parse still running this long is killed (files.parse_timeout); 0: 30 s
}

// childAnswer is what a child writes on its stdout.
type childAnswer struct {
	Pages []pdfPage `json:"pages,omitempty"`
	Error string    `json:"error,omitempty"`
	Skip  bool      `json:"skip,omitempty"` // Error is a *SkipError's reason
}

func (c *Child) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultParseTimeout
}

// readPDF has a child read the pages of data within o's caps.
func (c *Child) readPDF(ctx context.Context, data []byte, o Options) ([]pdfPage, error) {
	if len(c.Command) == 0 || os.Getenv(childEnv) != "" {
		return nil, errors.New("parse PDF: no child process to read it in")
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.timeout(), errParseTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.Command[0], append(c.Command[1:], c.flags(o)...)...)
	cmd.Env = []string{childEnv + "=1"}
	cmd.Stdin = bytes.NewReader(data)
	// JSON escapes at most sixfold what the child keeps within the caps.
	out := &cappedBuffer{max: 6*o.MaxExtractedBytes + 1<<20}
	errOut := &cappedBuffer{max: 4 << 10}
	cmd.Stdout, cmd.Stderr = out, errOut
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	switch {
	case errors.Is(context.Cause(ctx), errParseTimeout):
		return nil, fmt.Errorf("parse PDF: stopped after %s (files.parse_timeout): the file makes the reader "+
			"loop, or is too large to read in that time", c.timeout())
	case ctx.Err() != nil:
		return nil, ctx.Err()
	}
	return c.answer(out, errOut, err)
}

var errParseTimeout = errors.New("the parse timed out")

func (c *Child) flags(o Options) []string {
	return []string{"-max-bytes", strconv.Itoa(o.MaxExtractedBytes), "-max-parts", strconv.Itoa(o.MaxParts),
		"-cpu", strconv.Itoa(int(c.timeout().Seconds()) + 1)}
}

// answer reads what the child said: its pages, or why it could not give them.
func (c *Child) answer(out, errOut *cappedBuffer, runErr error) ([]pdfPage, error) {
	var a childAnswer
	if out.over {
		return nil, errors.New("parse PDF: the reader's answer is over the file's caps")
	}
	if err := json.Unmarshal(out.Bytes(), &a); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if i := strings.IndexByte(msg, '\n'); i >= 0 {
			msg = msg[:i]
		}
		if strings.Contains(msg, "out of memory") { // the same file will need as much next time
			return nil, skip("the PDF needs more than the reader's %d MiB of memory (%s)", childMemory>>20, msg)
		}
		return nil, fmt.Errorf("parse PDF: the reader ended without an answer (%v): %s", runErr, msg)
	}
	switch {
	case a.Skip:
		return nil, &SkipError{Reason: a.Error}
	case a.Error != "":
		return nil, errors.New(a.Error)
	}
	return a.Pages, nil
}

// cappedBuffer keeps the first max bytes written to it and drops the rest, noting that it did: the
// child is never blocked on a full pipe, and never costs more than max.
type cappedBuffer struct {
	bytes.Buffer
	max  int
	over bool
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); len(p) > room {
		b.over = true
		b.Buffer.Write(p[:max(room, 0)])
		return len(p), nil
	}
	return b.Buffer.Write(p)
}

// ServeChild is the child's side (`dormouse extract-pdf`): it reads a PDF on stdin and writes its
// pages' text on stdout as JSON, within the caps and CPU seconds args give, and returns the exit
// code. Call it first thing when a binary's arguments start with ChildArg.
func ServeChild(args []string, stdin io.Reader, stdout io.Writer) int {
	fs := flag.NewFlagSet(ChildArg, flag.ContinueOnError)
	maxBytes := fs.Int("max-bytes", DefaultMaxExtractedBytes, "most bytes of text")
	maxParts := fs.Int("max-parts", DefaultMaxParts, "most pages with text")
	cpu := fs.Int("cpu", int(DefaultParseTimeout.Seconds()), "most CPU seconds")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	// A sandbox that refuses prlimit (a stricter seccomp filter than the unit's) leaves the parent's
	// deadline, which alone stops a loop: read on without the limits rather than fail every PDF.
	if err := limitSelf(uint64(*cpu)); err != nil && !errors.Is(err, syscall.EPERM) {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "read the PDF:", err)
		return 1
	}
	o := Options{MaxExtractedBytes: *maxBytes, MaxParts: *maxParts}
	o.fill()
	var a childAnswer
	a.Pages, err = readPDF(context.Background(), data, o)
	if err != nil {
		a.Pages, a.Error, a.Skip = nil, err.Error(), IsSkip(err)
		if a.Skip {
			a.Error = strings.TrimPrefix(err.Error(), "skipped: ")
		}
	}
	if err := json.NewEncoder(stdout).Encode(a); err != nil {
		fmt.Fprintln(os.Stderr, "write the pages:", err)
		return 1
	}
	return 0
}

// limitSelf caps the child's CPU time and the address space it may add to what it started with; the
// Go runtime is told to collect garbage well before that.
func limitSelf(cpuSeconds uint64) error {
	if err := syscall.Setrlimit(syscall.RLIMIT_CPU, &syscall.Rlimit{Cur: cpuSeconds, Max: cpuSeconds + 1}); err != nil {
		return fmt.Errorf("limit CPU time: %w", err)
	}
	vsz, err := addressSpace()
	if err != nil {
		return err
	}
	as := vsz + childMemory
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: as, Max: as}); err != nil {
		return fmt.Errorf("limit memory: %w", err)
	}
	debug.SetMemoryLimit(childMemory / 2)
	return nil
}

// addressSpace is this process's virtual size now, in bytes (/proc/self/statm's first field).
func addressSpace() (uint64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, fmt.Errorf("read the process's size: %w", err)
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, errors.New("read the process's size: /proc/self/statm is empty")
	}
	pages, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("read the process's size: %w", err)
	}
	return pages * uint64(os.Getpagesize()), nil
}
