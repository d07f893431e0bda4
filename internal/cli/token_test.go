package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
)

// TestTokenEndToEnd: the entry `token new` prints, pasted into the
// configuration, makes the daemon take that token, for that agent only, and
// refuse requests without it.
func TestTokenEndToEnd(t *testing.T) {
	out, errOut, code := runMain(t, "", "token", "new", "--name", "assistant", "--agents", "main", "--access", "write")
	if code != ExitOK {
		t.Fatalf("token new: %d %s", code, errOut)
	}
	tok := strings.TrimSpace(out)
	if !regexp.MustCompile(`^dmt_[A-Za-z0-9_-]{43}$`).MatchString(tok) {
		t.Fatalf("token %q: want dmt_ and 43 base64url characters on stdout, alone", tok)
	}
	if strings.Contains(errOut, tok) {
		t.Error("the token is also on stderr")
	}
	_, entry, ok := strings.Cut(errOut, "then restart the service:\n\n")
	if !ok {
		t.Fatalf("no configuration entry in:\n%s", errOut)
	}
	var yaml strings.Builder
	yaml.WriteString("auth:\n  tokens:\n")
	for line := range strings.SplitSeq(strings.TrimRight(entry, "\n"), "\n") {
		yaml.WriteString("  " + line + "\n")
	}
	path := filepath.Join(t.TempDir(), "dormouse.yaml")
	if err := os.WriteFile(path, []byte(yaml.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	loaded, err := config.Load(config.Options{Path: path})
	if err != nil {
		t.Fatalf("the printed entry does not load:\n%s\n%v", yaml.String(), err)
	}
	cfg := daemontest.Config(t.TempDir())
	cfg.Auth = loaded.Auth
	d, err := daemontest.Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })

	addr := "DORMOUSE_ADDR=" + d.URL()
	with := []string{addr, "DORMOUSE_TOKEN=" + tok}
	if _, e, code := runEnv(with, "", "ingest", "--agent", "main", "The spare key is under the blue pot."); code != ExitOK {
		t.Fatalf("ingest with the token: %d %s", code, e)
	}
	if o, e, code := runEnv(with, "", "recall", "--agent", "main", "where is the spare key"); code != ExitOK || !strings.Contains(o, "blue pot") {
		t.Errorf("recall with the token: %d %s %s", code, o, e)
	}
	if _, e, code := runEnv([]string{addr}, "", "ingest", "--agent", "main", "Anyone may write?"); code == ExitOK || !strings.Contains(e, "token") {
		t.Errorf("ingest without a token: %d %s; want refused, saying a token is wanted", code, e)
	}
	if _, e, code := runEnv(with, "", "ingest", "--agent", "other", "Somewhere else."); code == ExitOK || !strings.Contains(e, `may not write agent "other"`) {
		t.Errorf("ingest for another agent: %d %s; want refused", code, e)
	}
	if strings.Contains(d.Log(), tok) {
		t.Error("the daemon logged the token")
	}
}
