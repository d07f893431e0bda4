package client

import (
	"bytes"
	"context"
	"mime/multipart"
	"net/url"
	"path/filepath"
	"time"

	"github.com/dormouse-dev/dormouse/internal/watch"
)

// UploadFile sends a file to POST /v1/agents/{agent}/files, dated mtime.
func (c *Client) UploadFile(ctx context.Context, agent, name string, data []byte, mtime time.Time) (watch.Outcome, error) {
	return c.upload(ctx, agent, name, data, mtime, "")
}

// UploadFileAt sends a file kept at path rel (relative): a new upload at the same path replaces the
// memories of the previous one, as a re-saved file in a watched folder does.
func (c *Client) UploadFileAt(ctx context.Context, agent, rel string, data []byte, mtime time.Time) (watch.Outcome, error) {
	return c.upload(ctx, agent, rel, data, mtime, rel)
}

func (c *Client) upload(ctx context.Context, agent, name string, data []byte, mtime time.Time, rel string) (watch.Outcome, error) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	part, err := mw.CreateFormFile("file", filepath.Base(name))
	if err != nil {
		return watch.Outcome{}, err
	}
	if _, err := part.Write(data); err != nil {
		return watch.Outcome{}, err
	}
	if err := mw.Close(); err != nil {
		return watch.Outcome{}, err
	}
	q := url.Values{}
	if !mtime.IsZero() {
		q.Set("mtime", mtime.UTC().Format(time.RFC3339Nano))
	}
	if rel != "" {
		q.Set("path", rel)
	}
	p := agentPath(agent, "/files")
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	var out watch.Outcome
	err = c.send(ctx, "POST", p, mw.FormDataContentType(), &b, &out)
	return out, err
}

// WatchReport is GET /v1/watch/status: each watched folder and every failing file.
type WatchReport struct {
	Folders []watch.Status      `json:"folders"`
	Failing []watch.FailingFile `json:"failing"`
}

// WatchStatus reports on the daemon's watched folders.
func (c *Client) WatchStatus(ctx context.Context) (WatchReport, error) {
	var out WatchReport
	err := c.do(ctx, "GET", "/v1/watch/status", nil, &out)
	return out, err
}

// WatchScan asks the daemon for a full scan of its watched folders (only agent's, unless "").
func (c *Client) WatchScan(ctx context.Context, agent string) ([]watch.ScanResult, string, error) {
	var out struct {
		Scans []watch.ScanResult `json:"scans"`
		Error string             `json:"error"`
	}
	p := "/v1/watch/scan"
	if agent != "" {
		p += "?agent=" + url.QueryEscape(agent)
	}
	err := c.do(ctx, "POST", p, nil, &out)
	return out.Scans, out.Error, err
}
