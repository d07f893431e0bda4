package cli

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// TestListMoreKeepsItsFlags pages through another agent than main: the
// "more:" line, run as printed, continues that agent's list.
func TestListMoreKeepsItsFlags(t *testing.T) {
	data := t.TempDir()
	for _, text := range []string{"one", "two", "three"} {
		if _, errOut, code := runMain(t, "", "ingest", "--data", data, "--agent", "home", "note "+text); code != ExitOK {
			t.Fatalf("ingest: exit %d: %s", code, errOut)
		}
	}
	runMain(t, "", "ingest", "--data", data, "--agent", "main", "main's own note")
	out, errOut, code := runMain(t, "", "list", "--data", data, "--agent", "home", "--limit", "2")
	_, more, ok := strings.Cut(out, "more: dormouse ")
	if code != ExitOK || !ok {
		t.Fatalf("list: exit %d, %q %q; want a more: line", code, out, errOut)
	}
	args := strings.Fields(more)
	out, errOut, code = runMain(t, "", args...)
	if code != ExitOK || !strings.Contains(out, "note one") || strings.Contains(out, "main's own") || strings.Contains(out, "more:") {
		t.Errorf("the more: line %q printed exit %d, %q %q; want home's last memory and no more", more, code, out, errOut)
	}
}

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{"home": "home", "/var/lib/x": "/var/lib/x", "a b": "'a b'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestIngestFromAPipeDropsTheTrailingNewline(t *testing.T) {
	data := t.TempDir()
	for stdin, want := range map[string]string{"hi\n": "hi", "first line\nsecond line\n": "first line\nsecond line", "crlf\r\n": "crlf", "two\n\n": "two"} {
		out, errOut, code := runMain(t, stdin, "ingest", "--data", data, "--json")
		var res struct {
			Results []struct{ ID int64 } `json:"results"`
		}
		if err := json.Unmarshal([]byte(out), &res); code != ExitOK || err != nil || len(res.Results) != 1 {
			t.Fatalf("ingest %q: exit %d, %q %q", stdin, code, out, errOut)
		}
		out, _, _ = runMain(t, "", "show", "--data", data, "--json", fmt.Sprintf("memory:%d", res.Results[0].ID))
		var m struct{ Content string }
		if err := json.Unmarshal([]byte(out), &m); err != nil || m.Content != want {
			t.Errorf("ingest %q stored %q (%v), want %q", stdin, m.Content, err, want)
		}
	}
}
