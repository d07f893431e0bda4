package watch

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

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
