package mcpserver

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestLineFilterDropsLongLines: a line beyond the limit is answered and skipped whole, and the
// next line is read as usual.
func TestLineFilterDropsLongLines(t *testing.T) {
	ping := `{"jsonrpc":"2.0","id":7,"method":"ping"}`
	in := strings.Repeat("x", 100) + "\n" + ping + "\n"
	var out bytes.Buffer
	f := &lineFilter{in: bufio.NewReaderSize(strings.NewReader(in), 16), out: &out, max: len(ping) + 1}
	got, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != ping+"\n" {
		t.Errorf("passed on %q, want only the ping", got)
	}
	if !strings.Contains(out.String(), `"code":-32700`) || !strings.Contains(out.String(), "line 1 is longer than") {
		t.Errorf("answered %q, want a parse error for line 1", out.String())
	}
}
