package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Stdio is the transport of `dormouse mcp`: newline-delimited JSON-RPC over r and w, as
// mcp.IOTransport, except that a line which is not a JSON-RPC message is answered with a JSON-RPC
// error whose id is null (-32700 for a line that is not JSON, -32600 for JSON that is no message)
// and the session goes on. The SDK's transport ends the session on the first such line, so one
// stray line from a client (or a person typing) would take the server away.
func Stdio(r io.Reader, w io.Writer) mcp.Transport {
	out := &lockedWriter{w: w}
	return &mcp.IOTransport{
		Reader: io.NopCloser(&lineFilter{in: bufio.NewReader(r), out: out, max: mcp.DefaultMaxLineLength}),
		Writer: out,
	}
}

// lockedWriter serialises the SDK's messages and the filter's errors, each one Write of a whole line.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// Close leaves the underlying writer open: stdout is the process's, not the session's.
func (l *lockedWriter) Close() error { return nil }

// JSON-RPC 2.0's codes for a message that cannot be read.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
)

// lineFilter passes on the lines of in that are JSON-RPC messages and answers the others on out.
type lineFilter struct {
	in      *bufio.Reader
	out     io.Writer
	max     int    // bytes in one line
	pending []byte // an admitted line not yet read
	line    int    // lines read, for the error messages
	err     error  // in's error, returned once pending is read
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		var line []byte
		var tooLong bool
		line, tooLong, f.err = f.nextLine()
		if err := f.admit(line, tooLong); err != nil {
			return 0, err
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// nextLine reads one line, without its line ending, keeping at most max bytes of it: the rest of a
// longer line is read and dropped, and tooLong says so.
func (f *lineFilter) nextLine() (line []byte, tooLong bool, err error) {
	for {
		chunk, err := f.in.ReadSlice('\n')
		if tooLong = tooLong || len(line)+len(chunk) > f.max; tooLong {
			line = nil
		} else {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return bytes.TrimRight(line, "\r\n"), tooLong, err
		}
	}
}

// admit makes line the next one read when it is a JSON-RPC message (or a batch of them, whose
// rules the SDK applies), and otherwise answers it; blank lines are skipped, as the SDK does.
func (f *lineFilter) admit(line []byte, tooLong bool) error {
	f.line++
	msg := bytes.TrimSpace(line)
	switch {
	case tooLong:
		return f.answer(codeParseError, fmt.Sprintf("Parse error: line %d is longer than %d bytes", f.line, f.max))
	case len(msg) == 0:
		return nil
	case !json.Valid(msg):
		return f.answer(codeParseError, fmt.Sprintf("Parse error: line %d is not JSON", f.line))
	case !isMessage(msg):
		return f.answer(codeInvalidRequest, fmt.Sprintf("Invalid Request: line %d is JSON but not a JSON-RPC 2.0 message", f.line))
	}
	f.pending = append(msg, '\n')
	return nil
}

// isMessage reports whether msg, valid JSON, is a JSON-RPC message or a non-empty array of them.
func isMessage(msg []byte) bool {
	if msg[0] != '[' {
		_, err := jsonrpc.DecodeMessage(msg)
		return err == nil
	}
	var batch []json.RawMessage
	if json.Unmarshal(msg, &batch) != nil || len(batch) == 0 {
		return false
	}
	for _, m := range batch {
		if _, err := jsonrpc.DecodeMessage(m); err != nil {
			return false
		}
	}
	return true
}

// answer writes a JSON-RPC error for a line that could not be read: its id is null, since no id
// could be read from it.
func (f *lineFilter) answer(code int, msg string) error {
	type rpcError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, err := json.Marshal(struct {
		JSONRPC string   `json:"jsonrpc"`
		ID      any      `json:"id"`
		Error   rpcError `json:"error"`
	}{"2.0", nil, rpcError{code, msg}})
	if err != nil {
		return fmt.Errorf("encode the answer to line %d: %w", f.line, err)
	}
	if _, err := f.out.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("answer line %d: %w", f.line, err)
	}
	return nil
}
