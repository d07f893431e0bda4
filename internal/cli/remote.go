package cli

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/recall"
)

// remote is the backend of a running daemon, through the public client (one
// HTTP implementation, with its retries on 429 and 503). The requests are
// the CLI's own flags as the API takes them; the answers are the API's types.
type remote struct {
	cl *client.Client
	factAPI
}

func newRemote(addr, token string) remote {
	opts := []client.Option{client.WithHTTPClient(&http.Client{Timeout: 60 * time.Second}), client.WithUserAgent("dormouse-cli")}
	if token != "" {
		opts = append(opts, client.WithToken(token))
	}
	cl := client.New(addr, opts...)
	return remote{cl, factAPI{cl}}
}

func (remote) Close() error { return nil }

// daemonError keeps the CLI's wording of an error the daemon answered with:
// the message first, then the status and code.
type daemonError struct{ *client.APIError }

func (e daemonError) Error() string {
	code := e.Code
	if strings.HasPrefix(code, "http_") { // the body was not an error object
		code = "http"
	}
	return fmt.Sprintf("%s (HTTP %d %s)", e.Message, e.Status, code)
}

func (e daemonError) Unwrap() error { return e.APIError }

func cliError(err error) error {
	var ae *client.APIError
	if errors.As(err, &ae) {
		return daemonError{ae}
	}
	return err
}

func agentPath(agent, rest string) string { return "/v1/agents/" + url.PathEscape(agent) + rest }

func (r remote) Ingest(ctx context.Context, agent string, ins []capture.Input) ([]client.Inserted, error) {
	var out struct {
		Results []client.Inserted `json:"results"`
	}
	var body any = map[string]any{"memories": ins}
	if len(ins) == 1 {
		body = ins[0]
	}
	err := r.cl.Do(ctx, http.MethodPost, agentPath(agent, "/memories"), body, &out)
	return out.Results, cliError(err)
}

func (r remote) Recall(ctx context.Context, agent string, req recall.Request) (client.RecallResult, error) {
	var out client.RecallResult
	err := r.cl.Do(ctx, http.MethodPost, agentPath(agent, "/recall"), req, &out)
	return out, cliError(err)
}

func (r remote) Ask(ctx context.Context, agent string, req recall.Request) (client.Answer, error) {
	var out client.Answer
	err := r.cl.Do(ctx, http.MethodPost, agentPath(agent, "/ask"), req, &out)
	return out, cliError(err)
}

func (r remote) List(ctx context.Context, agent string, o client.ListOptions) ([]client.Memory, string, error) {
	page, err := r.cl.Memories(ctx, agent, o)
	return page.Memories, page.NextCursor, cliError(err)
}

func (r remote) Get(ctx context.Context, agent string, id int64) (client.Memory, error) {
	m, err := r.cl.Memory(ctx, agent, id)
	return m, cliError(err)
}

func (r remote) Delete(ctx context.Context, agent string, id int64) error {
	return cliError(r.cl.DeleteMemory(ctx, agent, id))
}

func (r remote) RejectFact(ctx context.Context, agent string, id int64) error {
	return cliError(r.cl.RejectFact(ctx, agent, id))
}

func (r remote) Stats(ctx context.Context, agent string) (client.Stats, error) {
	st, err := r.cl.Stats(ctx, agent)
	return st, cliError(err)
}

func (r remote) Agents(ctx context.Context) ([]string, error) {
	names, err := r.cl.Agents(ctx)
	return names, cliError(err)
}

func (r remote) Consolidate(ctx context.Context, agent string, req consolidate.Request) (client.ConsolidateResult, error) {
	var out client.ConsolidateResult
	err := r.cl.Do(ctx, http.MethodPost, agentPath(agent, "/consolidate"), req, &out)
	return out, cliError(err)
}

func (r remote) Health(ctx context.Context) (client.Health, error) {
	h, err := r.cl.Health(ctx)
	return h, cliError(err)
}

func (r remote) WatchStatus(ctx context.Context) (client.WatchStatus, error) {
	st, err := r.cl.WatchStatus(ctx)
	return st, cliError(err)
}

// WatchScan returns the scans, the error a scan met part way (the daemon
// reports it beside the results) and the request's own error.
func (r remote) WatchScan(ctx context.Context, agent string) ([]client.ScanResult, string, error) {
	var out struct {
		Scans []client.ScanResult `json:"scans"`
		Error string              `json:"error"`
	}
	p := "/v1/watch/scan"
	if agent != "" {
		p += "?agent=" + url.QueryEscape(agent)
	}
	err := r.cl.Do(ctx, http.MethodPost, p, nil, &out)
	return out.Scans, out.Error, cliError(err)
}

func (r remote) UploadFile(ctx context.Context, agent, name string, data []byte, mtime time.Time) (client.FileOutcome, error) {
	out, err := r.cl.UploadFile(ctx, agent, filepath.Base(name), data, client.UploadOptions{MTime: mtime})
	return out, cliError(err)
}
