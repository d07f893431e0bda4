package watch

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// TestFileNameNotALabel is FuzzParse's find on the watched-folder path: a Linux file name is any
// bytes (not UTF-8, a tab, a newline), and the name is each memory's source, which capture refuses
// unless it is one line of UTF-8. The note is stored, its source naming the file as text, not failed
// and retried for ever.
func TestFileNameNotALabel(t *testing.T) {
	for _, c := range []struct{ name, source string }{
		{"notes/caf\xe9.md", "notes/caf\uFFFD.md"},
		{"tab\there.md", "tab here.md"},
		{"two\nlines.txt", "two lines.txt"},
	} {
		e := newEnv(t)
		e.write(c.name, "The okapi sleeps standing up.\n")
		if _, err := NewWatcher(e.folder(), e.ing, nil).ScanOnce(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := e.trackedFiles()[c.name]; got.Status != "ok" {
			t.Errorf("%q: tracked %s (%s), want ok", c.name, got.Status, got.Error)
			continue
		}
		_, sources := e.found("okapi")
		if len(sources) != 1 || sources[0] != c.source {
			t.Errorf("%q: sources %q, want [%q]", c.name, sources, c.source)
		}
	}
}

// TestSourceLabelIsALabel: whatever the path, the source is one line of UTF-8 within capture's limit.
func TestSourceLabelIsALabel(t *testing.T) {
	long := strings.Repeat("\xe9\u00e9\n", 200) + "end.md"
	for _, p := range []string{"a.md", "caf\xe9.md", "x\u202ey.md", long} {
		s := sourceLabel(p)
		if !utf8.ValidString(s) || strings.ContainsFunc(s, text.IsLineControl) || len(s) > 256 {
			t.Errorf("sourceLabel(%q) = %q (%d bytes), want one line of UTF-8 within 256 bytes", p, s, len(s))
		}
	}
	if got := sourceLabel(long); !strings.HasSuffix(got, "end.md") {
		t.Errorf("a long path's label %q lost its end", got)
	}
}

// TestExportWithFileNameNotUTF8: an agent tracking a file whose name is not UTF-8 exports (an
// export is JSON, which holds only UTF-8, so the tracked path is written with U+FFFD), and once
// imported elsewhere a scan of the same folder stores the note under its own name again without
// a second memory of it.
func TestExportWithFileNameNotUTF8(t *testing.T) {
	e := newEnv(t)
	e.write("caf\xe9.md", "The okapi sleeps standing up.\n")
	if _, err := NewWatcher(e.folder(), e.ing, nil).ScanOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	var export bytes.Buffer
	e.agent(func(a *store.Agent) error { return a.Export(context.Background(), &export) })
	if !utf8.Valid(export.Bytes()) || !bytes.Contains(export.Bytes(), []byte("caf\uFFFD.md")) {
		t.Fatalf("export %q: want UTF-8 naming the file with U+FFFD", export.String())
	}
	other := newEnv(t)
	other.root = e.root
	if _, err := other.st.Import(context.Background(), "main", &export, store.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewWatcher(other.folder(), other.ing, nil).ScanOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := other.trackedFiles(); len(got) != 1 || got["caf\xe9.md"].Status != "ok" {
		t.Errorf("after import and scan, tracked %v; want caf\\xe9.md alone", got)
	}
	if ids, _ := other.found("okapi"); len(ids) != 1 {
		t.Errorf("after import and scan, okapi memories %v; want the one", ids)
	}
}
