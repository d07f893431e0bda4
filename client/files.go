package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"mime/multipart"
	"net/http"
	"time"
)

// Ask answers a question from agent's memory, citing the items of the
// context it recalled (the request is a recall request: Query, budget, as
// of…). With nothing relevant stored the answer abstains.
func (c *Client) Ask(ctx context.Context, agent string, r RecallRequest) (Answer, error) {
	var a Answer
	err := c.Do(ctx, http.MethodPost, agentPath(agent, "/ask"), r, &a)
	return a, err
}

// UploadOptions date and place an uploaded file. The zero value dates it
// now and tracks it under its name.
type UploadOptions struct {
	// MTime is when the file was last changed; its memories are dated by it.
	MTime time.Time
	// Path (relative, slash-separated) keeps the upload at that path: a new
	// upload to the same path replaces the memories of the old one.
	Path string
}

// UploadFile sends one file through the daemon's file pipeline (the one
// watched folders use): name's extension says its format (.md, .txt,
// .json, .pdf…); its parts become memories of agent. A file the pipeline
// cannot take is an *APIError with code invalid_file.
func (c *Client) UploadFile(ctx context.Context, agent, name string, data []byte, o UploadOptions) (FileOutcome, error) {
	if name == "" {
		return FileOutcome{}, errors.New("dormouse: upload a file: the file name is empty (its extension says its format)")
	}
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("file", name)
	if err != nil {
		return FileOutcome{}, fmt.Errorf("dormouse: upload %q: %w", name, err)
	}
	if _, err := fw.Write(data); err != nil {
		return FileOutcome{}, fmt.Errorf("dormouse: upload %q: %w", name, err)
	}
	if err := mw.Close(); err != nil {
		return FileOutcome{}, fmt.Errorf("dormouse: upload %q: %w", name, err)
	}
	var out FileOutcome
	err = c.DoBody(ctx, http.MethodPost, agentPath(agent, "/files", query("mtime", rfc3339(o.MTime), "path", o.Path)), mw.FormDataContentType(), bytes.NewReader(body.Bytes()), &out)
	return out, err
}

// WatchScan scans every watched folder now (only agent's when agent is not
// empty) and returns what each scan did. A scan that failed part way is
// reported with the error the daemon gave, after the results it has.
func (c *Client) WatchScan(ctx context.Context, agent string) ([]ScanResult, error) {
	var out struct {
		Scans []ScanResult `json:"scans"`
		Error string       `json:"error,omitempty"`
	}
	if err := c.Do(ctx, http.MethodPost, "/v1/watch/scan"+query("agent", agent), nil, &out); err != nil {
		return nil, err
	}
	if out.Error != "" {
		return out.Scans, fmt.Errorf("dormouse: scan watched folders: %s", out.Error)
	}
	return out.Scans, nil
}

// WatchStatus reports every watched folder and every file whose last
// attempt failed (uploads included).
func (c *Client) WatchStatus(ctx context.Context) (WatchStatus, error) {
	var st WatchStatus
	err := c.Do(ctx, http.MethodGet, "/v1/watch/status", nil, &st)
	return st, err
}

// MemoryOrigin says where a memory from a file came from: the content's
// hash, when it was retired if the file changed, and the tracked paths that
// hold that content now. A memory not from a file has an empty FileHash.
func (c *Client) MemoryOrigin(ctx context.Context, agent string, memoryID int64) (MemoryOrigin, error) {
	var o MemoryOrigin
	err := c.Do(ctx, http.MethodGet, agentPath(agent, "/memories/", id(memoryID), "/origin"), nil, &o)
	return o, err
}
