package server

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

func TestFilesAndWatchAPI(t *testing.T) {
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	vault := t.TempDir()
	if err := os.WriteFile(filepath.Join(vault, "n.md"), []byte("# N\n\nThe vault mentions a heron.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(vault, "bad.json"), []byte(`{"broken":`), 0o600); err != nil {
		t.Fatal(err)
	}
	ing := &watch.Ingester{Store: st, AutoCreate: true, Location: time.UTC}
	m := watch.NewManager([]watch.Folder{{Path: vault, Agent: "main", Recursive: true}}, ing, nil)
	srv := New(st, &recall.Engine{}, Options{AutoCreate: true, Files: ing, Watch: m, MaxUploadBytes: 4096, MaxBodyBytes: 2048})
	ts := httptest.NewServer(srv)
	defer ts.Close()
	cl := client.New(ts.URL)
	ctx := t.Context()

	var apiErr *client.APIError
	// Upload: stored, then the same content again is reused.
	mtime := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	out, err := cl.UploadFile(ctx, "main", "/some/where/trip.md", []byte("# Trip\n\nWe saw a kingfisher at the lake.\n"), client.UploadOptions{MTime: mtime})
	if err != nil || out.Status != store.FileOK || out.Inserted != 1 || out.Path != "trip.md" {
		t.Fatalf("UploadFile = %+v, %v", out, err)
	}
	page, err := cl.Memories(ctx, "main", client.ListOptions{})
	mems := page.Memories
	if err != nil || len(mems) != 1 || !mems[0].Timestamp.Equal(mtime) || mems[0].Source != "trip.md" {
		t.Fatalf("after upload: %+v, %v", mems, err)
	}
	resp, err := http.Get(fmt.Sprintf("%s/v1/agents/main/memories/%d/origin", ts.URL, mems[0].ID))
	if err != nil {
		t.Fatal(err)
	}
	var origin client.MemoryOrigin
	if err := json.NewDecoder(resp.Body).Decode(&origin); err != nil || resp.StatusCode != 200 ||
		len(origin.FileHash) != 64 || origin.RetiredAt != nil || len(origin.Paths) != 1 || origin.Paths[0] != "upload:/trip.md" {
		t.Errorf("origin = %d %+v, %v", resp.StatusCode, origin, err)
	}
	resp.Body.Close()
	out, err = cl.UploadFile(ctx, "main", "copy.md", []byte("# Trip\n\nWe saw a kingfisher at the lake.\n"), client.UploadOptions{MTime: mtime})
	if err != nil || !out.Reused || out.Inserted != 0 {
		t.Errorf("same content uploaded again = %+v, %v; want reused", out, err)
	}

	// Kept at a path: a new version replaces the old one's memories.
	v1 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)
	if out, err := cl.UploadFile(ctx, "main", "building.md", []byte("Building entrance: the gate code is 1234#."), client.UploadOptions{MTime: v1, Path: "notes/building.md"}); err != nil || out.Inserted != 1 {
		t.Fatalf("UploadFileAt v1 = %+v, %v", out, err)
	}
	out, err = cl.UploadFile(ctx, "main", "building.md", []byte("Building entrance: the gate code is 5678#."), client.UploadOptions{MTime: v1.Add(24 * time.Hour), Path: "notes/building.md"})
	if err != nil || out.Inserted != 1 || out.Retired != 1 || out.Path != "notes/building.md" {
		t.Fatalf("UploadFileAt v2 = %+v, %v", out, err)
	}
	res, err := cl.Recall(ctx, "main", client.RecallRequest{Query: "gate code"})
	if err != nil || !strings.Contains(res.Context, "5678") || strings.Contains(res.Context, "1234") {
		t.Errorf("recall after the re-upload: %q, %v; want only the new code", res.Context, err)
	}
	_, err = cl.UploadFile(ctx, "main", "escape.md", []byte("x"), client.UploadOptions{MTime: v1, Path: "../escape.md"})
	if !errors.As(err, &apiErr) || apiErr.Status != 422 || !strings.Contains(apiErr.Message, "not a file path inside") {
		t.Errorf("upload at ../escape.md: %v, want 422", err)
	}

	// Refusals: unsupported, binary, too large, not multipart, bad agent.
	_, err = cl.UploadFile(ctx, "main", "x.exe", []byte("MZ"), client.UploadOptions{MTime: mtime})
	if !errors.As(err, &apiErr) || apiErr.Status != 422 || !strings.Contains(apiErr.Message, "unsupported format") {
		t.Errorf("upload of x.exe: %v, want 422 unsupported format", err)
	}
	_, err = cl.UploadFile(ctx, "main", "bin.txt", []byte("a\x00b"), client.UploadOptions{MTime: mtime})
	if !errors.As(err, &apiErr) || apiErr.Status != 422 || !strings.Contains(apiErr.Message, "binary") {
		t.Errorf("upload of a binary .txt: %v, want 422 binary", err)
	}
	_, err = cl.UploadFile(ctx, "main", "big.txt", bytes.Repeat([]byte("word "), 2000), client.UploadOptions{MTime: mtime})
	if !errors.As(err, &apiErr) || apiErr.Status != 413 {
		t.Errorf("upload over max_upload_bytes: %v, want 413", err)
	}
	resp, err = http.Post(ts.URL+"/v1/agents/main/files", "application/json", strings.NewReader(`{}`))
	if err != nil || resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Errorf("JSON to /files: %v %v, want 415", resp.StatusCode, err)
	}
	resp.Body.Close()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("note", "no file here")
	mw.Close()
	resp, err = http.Post(ts.URL+"/v1/agents/main/files", mw.FormDataContentType(), &b)
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Errorf("multipart without a file: %v %v, want 400", resp.StatusCode, err)
	}
	resp.Body.Close()
	_, err = cl.UploadFile(ctx, "Bad..Name", "a.md", []byte("x"), client.UploadOptions{MTime: mtime})
	if !errors.As(err, &apiErr) || apiErr.Status != 400 {
		t.Errorf("upload to a bad agent name: %v, want 400", err)
	}
	if failing, err := watch.FailingFiles(ctx, st, nil); err != nil || len(failing) != 0 {
		t.Errorf("refused uploads left failing files: %+v, %v", failing, err)
	}

	// Scan and status.
	scans, err := cl.WatchScan(ctx, "")
	if err != nil || len(scans) != 1 || scans[0].Ingested != 1 || scans[0].Failed != 1 {
		t.Fatalf("WatchScan = %+v, %v", scans, err)
	}
	rep, err := cl.WatchStatus(ctx)
	if err != nil || len(rep.Folders) != 1 || rep.Folders[0].Path != vault || rep.Folders[0].LastScan == nil {
		t.Fatalf("WatchStatus = %+v, %v", rep, err)
	}
	if len(rep.Failing) != 1 || rep.Failing[0].Path != "bad.json" || !strings.Contains(rep.Failing[0].Error, "parse JSON") {
		t.Errorf("failing files = %+v, want bad.json", rep.Failing)
	}
	// The body limit of other routes is unchanged.
	resp, err = http.Post(ts.URL+"/v1/agents/main/memories", "application/json",
		strings.NewReader(`{"content":"`+strings.Repeat("x", 3000)+`"}`))
	if err != nil || resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Errorf("memory over max_body_bytes: %v %v, want 413", resp.StatusCode, err)
	}
	resp.Body.Close()
}

func TestWatchRoutesWithoutWatcher(t *testing.T) {
	f := newFixture(t, Options{AutoCreate: true})
	for _, p := range []string{"/v1/watch/scan", "/v1/agents/main/files"} {
		if code := f.do("POST", p, strings.NewReader(""), nil); code != http.StatusNotImplemented {
			t.Errorf("POST %s = %d, want 501", p, code)
		}
	}
	if code := f.do("GET", "/v1/watch/status", nil, nil); code != http.StatusNotImplemented {
		t.Errorf("GET /v1/watch/status = %d, want 501", code)
	}
}
