package client_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/daemontest"
)

func TestAsk(t *testing.T) {
	ctx := t.Context()
	c := client.New(daemonAddr)
	const agent = "ask"
	ins, err := c.Remember(ctx, agent, client.MemoryInput{Content: "The launch moved to Friday.", Role: "user", Timestamp: day(3, 9)})
	if err != nil {
		t.Fatal(err)
	}
	a, err := c.Ask(ctx, agent, client.RecallRequest{Query: "when is the launch?", AsOf: day(4, 0)})
	if err != nil {
		t.Fatal(err)
	}
	want := "memory:" + strconv.FormatInt(ins.ID, 10)
	if a.Abstained || !strings.Contains(a.Answer, "Friday") || !slices.Contains(a.Citations, want) ||
		a.Provider != "offline" || len(a.Items) == 0 || a.Question != "when is the launch?" || a.Tokens == 0 {
		t.Errorf("Ask = %+v, want an offline answer citing %s", a, want)
	}
	// Nothing that old: the answer abstains and cites nothing.
	a, err = c.Ask(ctx, agent, client.RecallRequest{Query: "when is the launch?", AsOf: day(2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if !a.Abstained || len(a.Citations) != 0 {
		t.Errorf("Ask before anything was stored = %+v, want it to abstain", a)
	}
	var ae *client.APIError
	if _, err := c.Ask(ctx, agent, client.RecallRequest{Query: "x", BudgetTokens: 1 << 30}); !errors.As(err, &ae) || ae.Status != 400 {
		t.Errorf("Ask with an absurd budget: %v, want a 400", err)
	}
}

// TestFiles uploads files, scans a watched folder and asks where memories
// came from, against a daemon that watches a folder.
func TestFiles(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "plants.md"), []byte("# Plants\n\nWater the fern on Sundays.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d := daemontest.Start(t, func(cfg *config.Config) {
		f := config.DefaultWatchFolder()
		f.Path, f.Agent = dir, "files"
		cfg.Watch = []config.WatchFolder{f}
	})
	c := client.New(d.Addr)
	const agent = "files"

	mtime := time.Date(2026, 3, 5, 8, 0, 0, 0, time.UTC)
	out, err := c.UploadFile(ctx, agent, "notes.md", []byte("# Trip\n\nThe train to Porto leaves at 9.\n\n## Hotel\n\nThe hotel is on Rua Augusta.\n"),
		client.UploadOptions{MTime: mtime, Path: "travel/notes.md"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "ok" || out.Inserted == 0 || out.Parts == 0 || out.Path != "travel/notes.md" {
		t.Fatalf("UploadFile = %+v", out)
	}
	page, err := c.Memories(ctx, agent, client.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var fromUpload *client.Memory
	for i, m := range page.Memories {
		if strings.Contains(m.Content, "Porto") {
			fromUpload = &page.Memories[i]
		}
	}
	if fromUpload == nil || !fromUpload.Timestamp.Equal(mtime) {
		t.Fatalf("no memory of the upload dated %v in %+v", mtime, page.Memories)
	}
	orig, err := c.MemoryOrigin(ctx, agent, fromUpload.ID)
	if err != nil {
		t.Fatal(err)
	}
	if orig.FileHash == "" || orig.RetiredAt != nil || len(orig.Paths) != 1 || !strings.HasSuffix(orig.Paths[0], "travel/notes.md") {
		t.Errorf("MemoryOrigin = %+v, want the upload's path", orig)
	}

	// The same path again with new content replaces the old memories.
	out, err = c.UploadFile(ctx, agent, "notes.md", []byte("# Trip\n\nThe train to Porto leaves at 10.\n"), client.UploadOptions{Path: "travel/notes.md"})
	if err != nil {
		t.Fatal(err)
	}
	if out.Status != "ok" || out.Retired == 0 {
		t.Errorf("second upload = %+v, want the old memories retired", out)
	}
	if orig, err = c.MemoryOrigin(ctx, agent, fromUpload.ID); err != nil || orig.RetiredAt == nil {
		t.Errorf("MemoryOrigin after the replacement = %+v, %v, want it retired", orig, err)
	}
	var ae *client.APIError
	if _, err := c.UploadFile(ctx, agent, "empty.txt", nil, client.UploadOptions{}); !errors.As(err, &ae) || ae.Status != 422 || ae.Code != "invalid_file" {
		t.Errorf("an empty upload: %v, want 422 invalid_file", err)
	}
	if _, err := c.UploadFile(ctx, agent, "", []byte("x"), client.UploadOptions{}); err == nil {
		t.Error("an upload without a name was accepted")
	}
	if _, err := c.MemoryOrigin(ctx, agent, 99999); !client.IsNotFound(err) {
		t.Errorf("MemoryOrigin of no memory: %v, want not found", err)
	}

	scans, err := c.WatchScan(ctx, agent)
	if err != nil {
		t.Fatal(err)
	}
	if len(scans) != 1 || scans[0].Path != dir || scans[0].Agent != agent || scans[0].Seen != 1 || scans[0].Started.IsZero() {
		t.Errorf("WatchScan = %+v, want one scan of %s that saw plants.md", scans, dir)
	}
	if scans, err := c.WatchScan(ctx, "someone-else"); err != nil || len(scans) != 0 {
		t.Errorf("WatchScan of an agent with no folder = %+v, %v", scans, err)
	}
	st, err := c.WatchStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Folders) != 1 || st.Folders[0].Path != dir || st.Folders[0].FilesTracked != 1 || st.Folders[0].RescanEvery <= 0 {
		t.Errorf("WatchStatus = %+v", st)
	}
	if st.Failing == nil {
		t.Error("WatchStatus.Failing is nil, want an empty list")
	}
	res, err := c.Recall(ctx, agent, client.RecallRequest{Query: "fern"})
	if err != nil || !strings.Contains(res.Context, "fern") {
		t.Errorf("Recall of the watched note = %+v, %v", res, err)
	}
}
