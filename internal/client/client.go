// Package client talks to a running Dormouse daemon over its HTTP API.
package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	pub "github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Client is safe for concurrent use. Its requests go through the public
// client (github.com/dormouse-dev/dormouse/client): one HTTP implementation,
// with its retries on 429 and 503.
type Client struct {
	base  string
	http  *http.Client
	token string
	pub   *pub.Client
}

// New returns a client for the daemon at addr ("host:port" or a URL).
func New(addr string, hc *http.Client) *Client {
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	if hc == nil {
		hc = &http.Client{Timeout: 60 * time.Second}
	}
	c := &Client{base: strings.TrimRight(addr, "/"), http: hc}
	c.pub = c.public()
	return c
}

func (c *Client) public() *pub.Client {
	opts := []pub.Option{pub.WithHTTPClient(c.http), pub.WithUserAgent("dormouse-cli")}
	if c.token != "" {
		opts = append(opts, pub.WithToken(c.token))
	}
	return pub.New(c.base, opts...)
}

// WithToken returns a copy that sends a bearer token.
func (c *Client) WithToken(tok string) *Client {
	cc := *c
	cc.token = tok
	cc.pub = cc.public()
	return &cc
}

// APIError is an error response from the daemon.
type APIError struct {
	Status  int
	Code    string
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s (HTTP %d %s)", e.Message, e.Status, e.Code)
}

func (c *Client) do(ctx context.Context, method, path string, in, out any) error {
	return apiErr(c.pub.Do(ctx, method, path, in, out))
}

// apiErr turns the public client's API errors into this package's.
func apiErr(err error) error {
	var ae *pub.APIError
	if errors.As(err, &ae) {
		code := ae.Code
		if strings.HasPrefix(code, "http_") { // the body was not an error object
			code = "http"
		}
		return &APIError{Status: ae.Status, Code: code, Message: ae.Message}
	}
	return err
}

// send makes a request with a body of any type (an upload) and decodes the
// JSON answer into out.
func (c *Client) send(ctx context.Context, method, path, contentType string, body io.Reader, out any) error {
	data, err := io.ReadAll(body)
	if err != nil {
		return fmt.Errorf("%s %s: read request body: %w", method, path, err)
	}
	return apiErr(c.pub.DoBody(ctx, method, path, contentType, data, out))
}

func agentPath(agent string, rest ...string) string {
	return "/v1/agents/" + url.PathEscape(agent) + strings.Join(rest, "")
}

// Ingest stores memories; it returns one result per input, in order.
func (c *Client) Ingest(ctx context.Context, agent string, ins []capture.Input) ([]store.Inserted, error) {
	var out struct {
		Results []store.Inserted `json:"results"`
	}
	var body any = map[string]any{"memories": ins}
	if len(ins) == 1 {
		body = ins[0]
	}
	if err := c.do(ctx, http.MethodPost, agentPath(agent, "/memories"), body, &out); err != nil {
		return nil, err
	}
	return out.Results, nil
}

// Recall asks for context.
func (c *Client) Recall(ctx context.Context, agent string, req recall.Request) (recall.Result, error) {
	var out recall.Result
	err := c.do(ctx, http.MethodPost, agentPath(agent, "/recall"), req, &out)
	return out, err
}

// ListOptions select a page of memories.
type ListOptions struct {
	Since, Until time.Time
	Session      string
	Limit        int
	Cursor       string
}

// List returns a page of memories, newest first, and the next cursor.
func (c *Client) List(ctx context.Context, agent string, o ListOptions) ([]store.Memory, string, error) {
	q := url.Values{}
	if !o.Since.IsZero() {
		q.Set("since", o.Since.Format(time.RFC3339Nano))
	}
	if !o.Until.IsZero() {
		q.Set("until", o.Until.Format(time.RFC3339Nano))
	}
	if o.Session != "" {
		q.Set("session", o.Session)
	}
	if o.Limit > 0 {
		q.Set("limit", strconv.Itoa(o.Limit))
	}
	if o.Cursor != "" {
		q.Set("cursor", o.Cursor)
	}
	var out struct {
		Memories   []store.Memory `json:"memories"`
		NextCursor string         `json:"next_cursor"`
	}
	err := c.do(ctx, http.MethodGet, agentPath(agent, "/memories?", q.Encode()), nil, &out)
	return out.Memories, out.NextCursor, err
}

// Get returns one memory.
func (c *Client) Get(ctx context.Context, agent string, id int64) (store.Memory, error) {
	var m store.Memory
	err := c.do(ctx, http.MethodGet, agentPath(agent, "/memories/", strconv.FormatInt(id, 10)), nil, &m)
	return m, err
}

// Delete removes one memory.
func (c *Client) Delete(ctx context.Context, agent string, id int64) error {
	return c.do(ctx, http.MethodDelete, agentPath(agent, "/memories/", strconv.FormatInt(id, 10)), nil, nil)
}

// Stats returns an agent's counts and file sizes.
func (c *Client) Stats(ctx context.Context, agent string) (store.Stats, error) {
	var st store.Stats
	err := c.do(ctx, http.MethodGet, agentPath(agent, "/stats"), nil, &st)
	return st, err
}

// Agents lists agent names.
func (c *Client) Agents(ctx context.Context) ([]string, error) {
	var out struct {
		Agents []struct {
			Name string `json:"name"`
		} `json:"agents"`
	}
	if err := c.do(ctx, http.MethodGet, "/v1/agents", nil, &out); err != nil {
		return nil, err
	}
	names := make([]string, len(out.Agents))
	for i, a := range out.Agents {
		names[i] = a.Name
	}
	return names, nil
}

// Consolidate asks the daemon to consolidate (or, with DryRun, to plan).
func (c *Client) Consolidate(ctx context.Context, agent string, req consolidate.Request) (consolidate.Result, error) {
	var out consolidate.Result
	err := c.do(ctx, http.MethodPost, agentPath(agent, "/consolidate"), req, &out)
	return out, err
}

// RejectFact deletes a fact as the user: it is kept as rejected.
func (c *Client) RejectFact(ctx context.Context, agent string, id int64) error {
	return c.do(ctx, http.MethodDelete, agentPath(agent, "/facts/", strconv.FormatInt(id, 10)), nil, nil)
}

// Healthz checks the daemon answers.
func (c *Client) Healthz(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/healthz", nil, nil)
}
