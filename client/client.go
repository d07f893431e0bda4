package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/backoff"
)

// DefaultAddr is where a daemon listens unless configured otherwise.
const DefaultAddr = "127.0.0.1:7733"

// Client calls one Dormouse daemon. It is safe for concurrent use.
type Client struct {
	base       string
	baseErr    error
	hc         *http.Client
	token      string
	retries    int
	minBackoff time.Duration
	maxBackoff time.Duration
	maxWait    time.Duration
	userAgent  string
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests through hc (its Timeout bounds each attempt;
// the context bounds the whole call, retries included).
func WithHTTPClient(hc *http.Client) Option { return func(c *Client) { c.hc = hc } }

// WithToken sends "Authorization: Bearer tok" with every request.
func WithToken(tok string) Option { return func(c *Client) { c.token = tok } }

// WithRetries sets how many times a request answered 429 or 503 is tried
// again (default 3; 0 never retries).
func WithRetries(n int) Option { return func(c *Client) { c.retries = max(n, 0) } }

// WithBackoff sets the first wait before a retry and the most any wait may
// be (defaults 200ms and 5s). The wait doubles each time, with jitter; a
// Retry-After header from the server replaces it, up to 30s or max if that
// is larger.
func WithBackoff(first, most time.Duration) Option {
	return func(c *Client) { c.minBackoff, c.maxBackoff = first, max(first, most) }
}

// WithUserAgent names the caller in the User-Agent header.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// New returns a client for the daemon at addr: "host:port" or a base URL
// ("http://pi.local:7733"). An empty addr means DefaultAddr. A malformed
// address is reported by the first call.
func New(addr string, opts ...Option) *Client {
	if addr == "" {
		addr = DefaultAddr
	}
	if !strings.Contains(addr, "://") {
		addr = "http://" + addr
	}
	c := &Client{
		base:       strings.TrimRight(addr, "/"),
		hc:         &http.Client{Timeout: 2 * time.Minute},
		retries:    3,
		minBackoff: 200 * time.Millisecond,
		maxBackoff: 5 * time.Second,
		maxWait:    30 * time.Second,
		userAgent:  "dormouse-go-client",
	}
	if u, err := url.Parse(c.base); err != nil {
		c.baseErr = fmt.Errorf("dormouse client: address %q: %w", addr, err)
	} else if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		c.baseErr = fmt.Errorf("dormouse client: address %q: want host:port or an http(s) URL", addr)
	}
	for _, o := range opts {
		o(c)
	}
	c.maxWait = max(c.maxWait, c.maxBackoff)
	return c
}

// APIError is an error the daemon answered with: the HTTP status and the
// body's {"error":{"code","message"}}.
type APIError struct {
	Method, Path string
	Status       int
	Code         string // machine-readable: not_found, invalid_request, unknown_agent, busy…
	Message      string // what went wrong, for a person
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	return fmt.Sprintf("dormouse: %s %s: %s: %s (HTTP %d)", e.Method, e.Path, e.Code, e.Message, e.Status)
}

// Temporary reports whether trying again later may succeed.
func (e *APIError) Temporary() bool {
	return e.Status == http.StatusTooManyRequests || e.Status == http.StatusServiceUnavailable ||
		e.Code == "busy" || e.Code == "model_unavailable" // an image upload while the vision model is down
}

// IsNotFound reports whether err is the daemon saying that the agent, memory
// or fact does not exist.
func IsNotFound(err error) bool {
	var ae *APIError
	return errors.As(err, &ae) && ae.Status == http.StatusNotFound
}

// maxResponse bounds a response body read into memory.
const maxResponse = 64 << 20

// Do sends one request to path (which begins with "/") with in as its JSON
// body (nil for none) and decodes a successful response into out (nil to
// discard it). Requests answered 429 or 503 are retried. It is the one way
// every method reaches the daemon, exported for endpoints newer than this
// package.
func (c *Client) Do(ctx context.Context, method, path string, in, out any) error {
	_, err := c.do(ctx, method, path, in, out, true)
	return err
}

// DoBody is Do with a body that is not JSON (a multipart upload, an export
// file), sent with its content type as is and streamed, never read whole. A
// body that is an io.Seeker is rewound to where it stood for each retry; one
// that is not is sent once. DoBody never closes body.
func (c *Client) DoBody(ctx context.Context, method, path, contentType string, body io.Reader, out any) error {
	_, err := c.send(ctx, method, path, contentType, body, out, true)
	return err
}

// do returns the final status; retry false sends the request once.
func (c *Client) do(ctx context.Context, method, path string, in, out any, retry bool) (int, error) {
	var body io.Reader
	if in != nil {
		data, err := json.Marshal(in)
		if err != nil {
			return 0, fmt.Errorf("%s %s: encode request: %w", method, path, err)
		}
		body = bytes.NewReader(data)
	}
	return c.send(ctx, method, path, "application/json", body, out, retry)
}

func (c *Client) send(ctx context.Context, method, path, contentType string, body io.Reader, out any, retry bool) (int, error) {
	rewind := rewinder(body)
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if err := rewind(); err != nil {
				return 0, fmt.Errorf("%s %s: rewind the body to retry: %w", method, path, err)
			}
		}
		status, data, hdr, err := c.once(ctx, method, path, contentType, body)
		if err != nil {
			return 0, err
		}
		if status < 400 {
			if out == nil {
				return status, nil
			}
			if err := json.Unmarshal(data, out); err != nil {
				return status, fmt.Errorf("%s %s: decode response: %w", method, path, err)
			}
			return status, nil
		}
		ae := apiError(method, path, status, data, hdr)
		if !retry || rewind == nil || attempt >= c.retries || !retryable(ae) {
			return status, ae
		}
		wait := c.backoff(attempt, ae.RetryAfter)
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return status, ae // waiting would outlast the caller
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return status, fmt.Errorf("%s %s: %w (while waiting to retry after: %v)", method, path, ctx.Err(), ae)
		case <-t.C:
		}
	}
}

// rewinder returns what puts body back where it stands now, for a retry: a
// no-op for no body, nil for a body that cannot be rewound.
func rewinder(body io.Reader) func() error {
	if body == nil {
		return func() error { return nil }
	}
	s, ok := body.(io.Seeker)
	if !ok {
		return nil
	}
	at, err := s.Seek(0, io.SeekCurrent)
	if err != nil {
		return nil // a pipe, say: sent once
	}
	return func() error { _, err := s.Seek(at, io.SeekStart); return err }
}

func (c *Client) once(ctx context.Context, method, path, contentType string, body io.Reader) (int, []byte, http.Header, error) {
	var r io.Reader
	switch body.(type) {
	case nil, *bytes.Reader, *bytes.Buffer, *strings.Reader: // NewRequest sets their length
		r = body
	default:
		r = struct{ io.Reader }{body} // hidden from the transport, which would close it
	}
	req, err := c.request(ctx, method, path, contentType, r)
	if err != nil {
		return 0, nil, nil, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxResponse))
	if err != nil {
		return 0, nil, nil, fmt.Errorf("%s %s: read response: %w", method, path, err)
	}
	return resp.StatusCode, data, resp.Header, nil
}

// request is a request to the daemon with the client's headers; body nil
// sends none.
func (c *Client) request(ctx context.Context, method, path, contentType string, body io.Reader) (*http.Request, error) {
	if c.baseErr != nil {
		return nil, c.baseErr
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", contentType)
	}
	req.Header.Set("Accept", "application/json")
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	return req, nil
}

func apiError(method, path string, status int, data []byte, hdr http.Header) *APIError {
	after, _ := backoff.RetryAfter(hdr.Get("Retry-After"), time.Now())
	ae := &APIError{Method: method, Path: path, Status: status, RetryAfter: after}
	var eb struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &eb) == nil && eb.Error.Message != "" {
		ae.Code, ae.Message = eb.Error.Code, eb.Error.Message
		return ae
	}
	ae.Code = "http_" + strconv.Itoa(status)
	ae.Message = strings.TrimSpace(string(data))
	if len(ae.Message) > 512 {
		ae.Message = ae.Message[:512] + "…"
	}
	if ae.Message == "" {
		ae.Message = http.StatusText(status)
	}
	return ae
}

// retryable: too many requests, or unavailable for a moment (starting,
// draining, storage busy) — not a clock the daemon will not trust yet.
func retryable(ae *APIError) bool {
	return ae.Status == http.StatusTooManyRequests ||
		ae.Status == http.StatusServiceUnavailable && ae.Code != "clock_implausible"
}

// backoff is the wait before retry number attempt+1: the server's
// Retry-After when given (capped), else exponential with full jitter.
func (c *Client) backoff(attempt int, after time.Duration) time.Duration {
	if after > 0 {
		return min(after, c.maxWait)
	}
	d := backoff.Exp(c.minBackoff, c.maxBackoff, attempt)
	return d/2 + rand.N(d/2+1)
}

func agentPath(agent string, rest ...string) string {
	return "/v1/agents/" + url.PathEscape(agent) + strings.Join(rest, "")
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// Agents lists the agents' names, sorted.
func (c *Client) Agents(ctx context.Context) ([]string, error) {
	var out struct {
		Agents []struct {
			Name string `json:"name"`
		} `json:"agents"`
	}
	if err := c.Do(ctx, http.MethodGet, "/v1/agents", nil, &out); err != nil {
		return nil, err
	}
	names := make([]string, len(out.Agents))
	for i, a := range out.Agents {
		names[i] = a.Name
	}
	return names, nil
}

// Remember stores one memory for agent (created on its first write when
// the daemon allows it).
func (c *Client) Remember(ctx context.Context, agent string, m MemoryInput) (Inserted, error) {
	res, err := c.remember(ctx, agent, m)
	if err != nil {
		return Inserted{}, err
	}
	if len(res) != 1 {
		return Inserted{}, fmt.Errorf("dormouse: store a memory: the daemon answered %d results for one memory", len(res))
	}
	return res[0], nil
}

// RememberBatch stores memories in one request: all or none. It returns one
// result per input, in order.
func (c *Client) RememberBatch(ctx context.Context, agent string, ms []MemoryInput) ([]Inserted, error) {
	if len(ms) == 0 {
		return nil, errors.New("dormouse: store memories: the batch is empty")
	}
	return c.remember(ctx, agent, map[string]any{"memories": ms})
}

func (c *Client) remember(ctx context.Context, agent string, body any) ([]Inserted, error) {
	var out struct {
		Results []Inserted `json:"results"`
	}
	if err := c.Do(ctx, http.MethodPost, agentPath(agent, "/memories"), body, &out); err != nil {
		return nil, err
	}
	return out.Results, nil
}

// Memories returns a page of agent's memories, newest first.
func (c *Client) Memories(ctx context.Context, agent string, o ListOptions) (MemoryPage, error) {
	q := query("since", rfc3339(o.Since), "until", rfc3339(o.Until), "session_id", o.SessionID,
		"session", o.Session, "limit", positive(o.Limit), "cursor", o.Cursor)
	var page MemoryPage
	err := c.Do(ctx, http.MethodGet, agentPath(agent, "/memories", q), nil, &page)
	return page, err
}

// query is the URL query of the given keys and values ("" when there are
// none), leaving out the keys whose value is empty.
func query(keyValues ...string) string {
	q := url.Values{}
	for i := 0; i+1 < len(keyValues); i += 2 {
		if v := keyValues[i+1]; v != "" {
			q.Set(keyValues[i], v)
		}
	}
	if len(q) == 0 {
		return ""
	}
	return "?" + q.Encode()
}

// positive is n as a query value, or "" (left out) when it is not above 0.
func positive(n int) string {
	if n <= 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// Memory returns one memory.
func (c *Client) Memory(ctx context.Context, agent string, memoryID int64) (Memory, error) {
	var m Memory
	err := c.Do(ctx, http.MethodGet, agentPath(agent, "/memories/", id(memoryID)), nil, &m)
	return m, err
}

// DeleteMemory deletes one memory for good.
func (c *Client) DeleteMemory(ctx context.Context, agent string, memoryID int64) error {
	return c.Do(ctx, http.MethodDelete, agentPath(agent, "/memories/", id(memoryID)), nil, nil)
}

// ShareMemory copies one memory of agent into agent to, naming where it
// came from; forgetting the original later forgets the copy too.
func (c *Client) ShareMemory(ctx context.Context, agent string, memoryID int64, to string) (Shared, error) {
	var out Shared
	err := c.Do(ctx, http.MethodPost, agentPath(agent, "/memories/", id(memoryID), "/share"), ShareRequest{To: to}, &out)
	return out, err
}

// Recall returns the context relevant to a query, within a token budget,
// with a citation for every item.
func (c *Client) Recall(ctx context.Context, agent string, r RecallRequest) (RecallResult, error) {
	var res RecallResult
	err := c.Do(ctx, http.MethodPost, agentPath(agent, "/recall"), r, &res)
	return res, err
}

// Facts lists agent's facts: the current ones, or with History every
// version, superseded and rejected ones included.
func (c *Client) Facts(ctx context.Context, agent string, o FactsOptions) ([]Fact, error) {
	history := "" // left out unless asked for
	if o.History {
		history = "true"
	}
	q := query("entity", o.Entity, "history", history, "as_of", rfc3339(o.AsOf), "limit", positive(o.Limit))
	var out struct {
		Facts []Fact `json:"facts"`
	}
	err := c.Do(ctx, http.MethodGet, agentPath(agent, "/facts", q), nil, &out)
	return out.Facts, err
}

// RejectFact deletes a fact as its owner: it is kept as rejected, so the
// same claim arriving again does not come back as current.
func (c *Client) RejectFact(ctx context.Context, agent string, factID int64) error {
	return c.Do(ctx, http.MethodDelete, agentPath(agent, "/facts/", id(factID)), nil, nil)
}

// Consolidations lists agent's day records, newest first.
func (c *Client) Consolidations(ctx context.Context, agent string, o ConsolidationsOptions) ([]Consolidation, error) {
	q := query("since", o.Since, "until", o.Until, "limit", positive(o.Limit))
	var out struct {
		Consolidations []Consolidation `json:"consolidations"`
	}
	err := c.Do(ctx, http.MethodGet, agentPath(agent, "/consolidations", q), nil, &out)
	return out.Consolidations, err
}

// Consolidate turns days of agent's memories into day records and facts
// now, rather than at night (or, with DryRun, says what it would do).
func (c *Client) Consolidate(ctx context.Context, agent string, r ConsolidateRequest) (ConsolidateResult, error) {
	var res ConsolidateResult
	err := c.Do(ctx, http.MethodPost, agentPath(agent, "/consolidate"), r, &res)
	return res, err
}

// Stats returns agent's counts and file sizes.
func (c *Client) Stats(ctx context.Context, agent string) (Stats, error) {
	var st Stats
	err := c.Do(ctx, http.MethodGet, agentPath(agent, "/stats"), nil, &st)
	return st, err
}

// Health returns the daemon's health report. A failing daemon answers 503
// with a report: Health returns that report and no error, so check State.
func (c *Client) Health(ctx context.Context) (Health, error) {
	var h Health
	status, data, hdr, err := c.once(ctx, http.MethodGet, "/health", "", nil)
	if err != nil {
		return h, err
	}
	if status < 400 || status == http.StatusServiceUnavailable {
		if json.Unmarshal(data, &h) == nil && h.State != "" {
			return h, nil
		}
	}
	if status < 400 {
		return h, fmt.Errorf("dormouse: GET /health: the answer is not a health report")
	}
	return h, apiError(http.MethodGet, "/health", status, data, hdr)
}

// Healthz checks that the daemon answers.
func (c *Client) Healthz(ctx context.Context) error {
	return c.Do(ctx, http.MethodGet, "/healthz", nil, nil)
}

// Ready checks that the daemon is ready to serve (it is not while starting
// or draining); it does not retry.
func (c *Client) Ready(ctx context.Context) error {
	_, err := c.do(ctx, http.MethodGet, "/readyz", nil, nil, false)
	return err
}

// Metrics returns the Prometheus text exposition of GET /metrics.
func (c *Client) Metrics(ctx context.Context) (string, error) {
	status, data, hdr, err := c.once(ctx, http.MethodGet, "/metrics", "", nil)
	if err != nil {
		return "", err
	}
	if status >= 400 {
		return "", apiError(http.MethodGet, "/metrics", status, data, hdr)
	}
	return string(data), nil
}
