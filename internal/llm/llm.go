// Package llm is Dormouse's only door to a language model: the providers
// (through langchaingo), the prompts, JSON repair, retries and token accounting.
package llm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tmc/langchaingo/llms"

	"github.com/dormouse-dev/dormouse/internal/backoff"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// Config says which model to call and how.
type Config struct {
	Provider      string // one of Providers
	Model         string // "": DefaultModel(Provider)
	BaseURL       string // "": the provider's endpoint
	Timeout       time.Duration
	MaxTokens     int
	Temperature   float64
	ContextWindow int
	MaxRetries    int
	Budget        *Budget // nil: no limit

	// Environ is "NAME=value" pairs where API keys and
	// CREDENTIALS_DIRECTORY are found; never the YAML.
	Environ []string
	Logger  *slog.Logger

	// Zero values are the defaults; tests make them small.
	Backoff          time.Duration // ceiling of the first retry's delay; doubles per retry
	MaxBackoff       time.Duration
	MaxRetryAfter    time.Duration // a longer Retry-After is not waited for: the call fails
	BreakerThreshold int           // failed calls in a row that open the circuit
	BreakerCooldown  time.Duration // how long an open circuit refuses calls
	Transport        http.RoundTripper
	Now              func() time.Time
}

// Defaults of Config's zero fields.
const (
	DefaultTimeout          = 2 * time.Minute
	DefaultMaxTokens        = 2048
	DefaultContextWindow    = 8192
	DefaultBackoff          = time.Second
	DefaultMaxBackoff       = 30 * time.Second
	DefaultMaxRetryAfter    = 2 * time.Minute
	DefaultBreakerThreshold = 3
	DefaultBreakerCooldown  = 2 * time.Minute
)

var (
	// ErrBudget means tonight's budget of calls or tokens is spent.
	ErrBudget = errors.New("the night's LLM budget is spent")
	// ErrUnavailable means the provider failed (timeouts, 429, 5xx, no
	// connection) after every retry, or its circuit is open.
	ErrUnavailable = errors.New("the LLM provider is unavailable")
	// ErrRefused means the provider refused the request (a 4xx other than
	// 429): a wrong key, model or URL. Retrying would not help.
	ErrRefused = errors.New("the LLM provider refused the request")
	// ErrInvalidJSON means the answer was not the JSON asked for, even after
	// a repair request.
	ErrInvalidJSON = errors.New("the model's answer is not valid JSON for the schema")
)

// Usage is what calls cost.
type Usage struct {
	Calls     int
	TokensIn  int
	TokensOut int
}

// Add sums usages.
func (u *Usage) Add(v Usage) {
	u.Calls += v.Calls
	u.TokensIn += v.TokensIn
	u.TokensOut += v.TokensOut
}

// Call is the record of one request to a model, retries included.
type Call struct {
	Provider  string
	Model     string
	TokensIn  int
	TokensOut int
	Estimated bool // the provider gave no usage; the tokens are text.EstimateTokens
	Latency   time.Duration
	Attempts  int
	Outcome   string // ok, budget, circuit_open, timeout, rate_limited, server_error, network, refused, cancelled
}

// Client calls one provider's model. It is safe for concurrent use.
type Client struct {
	cfg     Config
	model   llms.Model
	redact  *strings.Replacer
	breaker breaker
	log     *slog.Logger
	// plainJSON is set once the server refused JSON mode (some
	// OpenAI-compatible servers do): the prompt alone asks for JSON then.
	plainJSON atomic.Bool
	// OnCall, when set, sees every call's record (metrics, tests).
	OnCall func(Call)
}

// New builds a client for cfg.Provider. API keys are read from
// cfg.Environ or $CREDENTIALS_DIRECTORY; a missing one is an error that
// says which variable to set.
func New(ctx context.Context, cfg Config) (*Client, error) {
	if !slices.Contains(Providers, cfg.Provider) {
		return nil, fmt.Errorf("llm provider %q is not one of %s", cfg.Provider, strings.Join(Providers, ", "))
	}
	if cfg.Model == "" {
		cfg.Model = DefaultModel(cfg.Provider)
	}
	if cfg.MaxTokens <= 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	if cfg.ContextWindow <= 0 {
		cfg.ContextWindow = DefaultContextWindow
	}
	cfg.fillCalls()
	names := append(slices.Clone(keyVars[cfg.Provider]), awsVars...)
	sec := lookupSecrets(cfg.Environ, names...)
	cfg.Environ = nil // the keys live only in the provider's client from here on
	c := &Client{cfg: cfg, redact: sec.redactor(), log: cfg.Logger.With("provider", cfg.Provider, "model", cfg.Model)}

	next := cfg.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	tr := transport{next: next}
	if key := sec.first(keyVars[cfg.Provider]...); cfg.Provider == "ollama" && key != "" {
		tr.header = http.Header{"Authorization": {"Bearer " + key}}
	}
	m, err := newModel(ctx, cfg, sec, &http.Client{Transport: tr})
	if err != nil {
		return nil, fmt.Errorf("set up llm provider %s: %s", cfg.Provider, c.redact.Replace(err.Error()))
	}
	c.model = m
	return c, nil
}

// fillCalls sets the defaults every client of a provider shares: the
// timeout of a call, retries, the breaker, the logger and the clock.
func (cfg *Config) fillCalls() {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	cfg.Backoff = cmpOr(cfg.Backoff, DefaultBackoff)
	cfg.MaxBackoff = cmpOr(cfg.MaxBackoff, DefaultMaxBackoff)
	cfg.MaxRetryAfter = cmpOr(cfg.MaxRetryAfter, DefaultMaxRetryAfter)
	cfg.BreakerCooldown = cmpOr(cfg.BreakerCooldown, DefaultBreakerCooldown)
	if cfg.BreakerThreshold <= 0 {
		cfg.BreakerThreshold = DefaultBreakerThreshold
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
}

func cmpOr(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// String names the client without anything secret, should it be printed.
func (c *Client) String() string { return "llm.Client(" + c.cfg.Provider + "/" + c.cfg.Model + ")" }

// LogValue keeps a logged client to its name.
func (c *Client) LogValue() slog.Value { return slog.StringValue(c.String()) }

// Provider names the provider.
func (c *Client) Provider() string { return c.cfg.Provider }

// Model names the model.
func (c *Client) Model() string { return c.cfg.Model }

// ContextWindow is the tokens a call may read and write.
func (c *Client) ContextWindow() int { return c.cfg.ContextWindow }

// MaxTokens is the most tokens an answer may have.
func (c *Client) MaxTokens() int { return c.cfg.MaxTokens }

// Request is one prompt.
type Request struct {
	System string
	Prompt string
	JSON   bool // ask for JSON mode where the provider has one
	// Images go with the prompt (before its text) to a model that can see
	// them; see DescribeImage, which prepares them for the provider.
	Images []Image
	// repair, when set, continues the conversation after a bad answer.
	repair *repair
}

type repair struct{ answer, problem string }

func (r Request) messages() []llms.MessageContent {
	msgs := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeSystem, r.System),
		llms.TextParts(llms.ChatMessageTypeHuman, r.Prompt),
	}
	if r.repair != nil {
		msgs = append(msgs,
			llms.TextParts(llms.ChatMessageTypeAI, r.repair.answer),
			llms.TextParts(llms.ChatMessageTypeHuman, repairPrompt(r.repair.problem)))
	}
	return msgs
}

// EstimateIn is the estimated tokens of the request's prompt: what a call
// is charged when the provider reports no usage, and what a plan shows.
func (r Request) EstimateIn() int {
	n := text.EstimateTokens(r.System) + text.EstimateTokens(r.Prompt)
	if r.repair != nil {
		n += text.EstimateTokens(r.repair.answer) + text.EstimateTokens(repairPrompt(r.repair.problem))
	}
	for _, img := range r.Images {
		n += imageTokens(img)
	}
	return n
}

// Generate sends one request, with retries on timeouts, 429 and 5xx, and
// returns the answer's text.
func (c *Client) Generate(ctx context.Context, req Request) (string, Usage, error) {
	start := time.Now()
	call := Call{Provider: c.cfg.Provider, Model: c.cfg.Model}
	out, u, err := c.generate(ctx, req, &call)
	call.Latency = time.Since(start)
	call.TokensIn, call.TokensOut = u.TokensIn, u.TokensOut
	if err == nil {
		call.Outcome = "ok"
	}
	level := slog.LevelInfo
	attrs := []any{"tokens_in", call.TokensIn, "tokens_out", call.TokensOut, "estimated", call.Estimated,
		"latency_ms", call.Latency.Milliseconds(), "attempts", call.Attempts, "outcome", call.Outcome}
	if err != nil {
		level = slog.LevelWarn
		attrs = append(attrs, "err", err)
	}
	c.log.Log(ctx, level, "llm call", attrs...)
	if c.OnCall != nil {
		c.OnCall(call)
	}
	return out, u, err
}

func (c *Client) generate(ctx context.Context, req Request, call *Call) (string, Usage, error) {
	estIn := req.EstimateIn()
	if err := c.admit(ctx, estIn, call); err != nil {
		return "", Usage{}, err
	}
	msgs := req.messages()
	if err := c.attachImages(req, msgs); err != nil {
		call.Outcome = "refused"
		c.release(estIn)
		return "", Usage{}, err
	}
	opts := c.callOptions()
	jsonMode := req.JSON && !c.plainJSON.Load()
	var last error
	for attempt := 0; attempt <= c.cfg.MaxRetries; attempt++ {
		call.Attempts = attempt + 1
		obs := &observed{}
		choice, timedOut, err := c.send(ctx, msgs, opts, jsonMode, obs)
		if err == nil {
			c.breaker.success()
			return choice.Content, c.usage(choice, estIn, call), nil
		}
		if ctx.Err() != nil {
			return "", Usage{}, c.cancelled(ctx, estIn, call)
		}
		if jsonMode && c.refusedJSONMode(ctx, obs, err) {
			jsonMode = false
			attempt--
			continue
		}
		var retry bool
		if last, retry = c.failedAttempt(ctx, obs, err, timedOut, call); !retry || attempt == c.cfg.MaxRetries {
			break
		}
		wait, err := retryWait(c.backoff(attempt), obs.retryAfter, c.cfg.Now(), c.cfg.MaxRetryAfter, last)
		if err != nil {
			last = err
			break
		}
		c.log.Debug("llm call failed; retrying", "attempt", attempt+1, "wait_ms", wait.Milliseconds(), "err", last)
		if sleep(ctx, wait) != nil {
			return "", Usage{}, c.cancelled(ctx, estIn, call)
		}
	}
	if errors.Is(last, ErrUnavailable) {
		c.breaker.failure(c.cfg.Now(), c.cfg.BreakerThreshold, c.cfg.BreakerCooldown)
	}
	c.release(estIn)
	// It was a call, though nothing says what it cost.
	return "", Usage{Calls: 1}, last
}

// admit reserves the call's estimated tokens in the budget and asks the
// breaker whether the provider may be called.
func (c *Client) admit(ctx context.Context, estIn int, call *Call) error {
	if b := c.cfg.Budget; b != nil {
		if err := b.reserve(ctx, c.cfg.Now(), estIn); err != nil {
			call.Outcome = "budget"
			return err
		}
	}
	if err := c.breaker.allow(c.cfg.Now()); err != nil {
		call.Outcome = "circuit_open"
		return err
	}
	return nil
}

func (c *Client) callOptions() []llms.CallOption {
	opts := []llms.CallOption{
		llms.WithModel(c.cfg.Model), llms.WithMaxTokens(c.cfg.MaxTokens), llms.WithTemperature(c.cfg.Temperature),
	}
	if (c.cfg.Provider == "openai" && c.cfg.BaseURL != "") || c.cfg.Provider == "googleai" {
		// OpenAI-compatible servers (llama.cpp, vLLM, Gemini's endpoint)
		// know max_tokens; max_completion_tokens is OpenAI's newer name.
		opts = append(opts, llms.WithMetadata(map[string]any{"openai:use_legacy_max_tokens": true}))
	}
	return opts
}

// attachImages puts the request's images before the user's words, when
// the model can see them.
func (c *Client) attachImages(req Request, msgs []llms.MessageContent) error {
	if len(req.Images) == 0 {
		return nil
	}
	if err := VisionSupport(c.cfg.Provider, c.cfg.Model); err != nil {
		return err
	}
	parts := make([]llms.ContentPart, 0, len(req.Images)+1)
	for _, img := range req.Images {
		parts = append(parts, imagePart(c.cfg.Provider, img))
	}
	msgs[1].Parts = append(parts, msgs[1].Parts...)
	return nil
}

// send makes one attempt, within the timeout; obs gets what the transport
// saw of the answer.
func (c *Client) send(ctx context.Context, msgs []llms.MessageContent, opts []llms.CallOption, jsonMode bool, obs *observed) (*llms.ContentChoice, bool, error) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	if jsonMode {
		opts = append(slices.Clip(opts), llms.WithJSONMode())
	}
	resp, err := c.model.GenerateContent(context.WithValue(actx, observedKey{}, obs), msgs, opts...)
	timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
	if err == nil && len(resp.Choices) == 0 {
		err = errors.New("the answer has no choices")
	}
	if err != nil {
		return nil, timedOut, err
	}
	return resp.Choices[0], timedOut, nil
}

// usage is what the answer cost, as the provider says or else estimated,
// spent from the budget.
func (c *Client) usage(choice *llms.ContentChoice, estIn int, call *Call) Usage {
	u := Usage{Calls: 1}
	var ok bool
	u.TokensIn, u.TokensOut, ok = usageOf(choice.GenerationInfo)
	if !ok {
		call.Estimated = true
		u.TokensIn, u.TokensOut = estIn, text.EstimateTokens(choice.Content)
	}
	if b := c.cfg.Budget; b != nil {
		b.spend(c.cfg.Now(), u, estIn)
	}
	return u
}

func (c *Client) cancelled(ctx context.Context, estIn int, call *Call) error {
	call.Outcome = "cancelled"
	c.release(estIn)
	return fmt.Errorf("call %s: %w", c.cfg.Provider, ctx.Err())
}

// refusedJSONMode reports whether an OpenAI-compatible server refused
// response_format; if so, this call asks again, and every later one asks,
// with the prompt alone.
func (c *Client) refusedJSONMode(ctx context.Context, obs *observed, err error) bool {
	if obs.status != http.StatusBadRequest || c.cfg.Provider != "openai" || c.cfg.BaseURL == "" {
		return false
	}
	c.log.Warn("the server refused JSON mode; asking for JSON in the prompt only")
	c.logErrorBody(ctx, obs, err)
	c.plainJSON.Store(true)
	return true
}

// failedAttempt says what went wrong with an attempt, as the error the call
// returns if it is the last, and whether another may help.
func (c *Client) failedAttempt(ctx context.Context, obs *observed, err error, timedOut bool, call *Call) (error, bool) {
	kind, outcome, retry := classify(obs.status, timedOut)
	if obs.status == http.StatusOK && strings.Contains(strings.ToLower(err.Error()), "max tokens") {
		// Bedrock's client refuses an answer cut at max_tokens; the same
		// request would be cut again.
		kind, outcome, retry = ErrInvalidJSON, "truncated", false
	}
	call.Outcome = outcome
	c.logErrorBody(ctx, obs, err)
	return summary(kind, c.cfg.Provider, "", obs.status, timedOut, c.cfg.Timeout, c.redact.Replace(err.Error())), retry
}

// retryWait is how long to wait before the next attempt: wait, or the
// provider's Retry-After when longer. One longer than most is not waited
// for: the error is last, saying so.
func retryWait(wait time.Duration, retryAfter string, now time.Time, most time.Duration, last error) (time.Duration, error) {
	ra, ok := backoff.RetryAfter(retryAfter, now)
	if !ok {
		return wait, nil
	}
	if ra > most {
		return 0, fmt.Errorf("%w (it asks to wait %s, longer than %s)", last, ra.Round(time.Second), most)
	}
	return max(wait, ra), nil
}

// sleep waits d, or until ctx is done.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// logErrorBody logs, at debug and redacted, what a provider answered that
// failed the attempt: the words that summary leaves out.
func (c *Client) logErrorBody(ctx context.Context, obs *observed, err error) {
	if obs.status != 0 { // without an answer, summary keeps the error
		c.log.DebugContext(ctx, "llm provider error", "status", obs.status, "body", c.redact.Replace(string(obs.body)),
			"err", c.redact.Replace(err.Error()))
	}
}

func (c *Client) release(estIn int) {
	if b := c.cfg.Budget; b != nil {
		b.spend(c.cfg.Now(), Usage{}, estIn)
	}
}

// backoff is full jitter: a random wait up to Backoff·2^attempt, capped.
func (c *Client) backoff(attempt int) time.Duration {
	ceil := backoff.Exp(c.cfg.Backoff, c.cfg.MaxBackoff, attempt)
	return time.Duration(rand.Int64N(int64(ceil)) + 1)
}

// classify says what kind of failure a status is and whether a retry may
// help. Status 0 is no response (connection refused, reset) and 200 a
// response that could not be read (truncated): both transient.
func classify(status int, timedOut bool) (kind error, outcome string, retry bool) {
	switch {
	case timedOut:
		return ErrUnavailable, "timeout", true
	case status == http.StatusTooManyRequests:
		return ErrUnavailable, "rate_limited", true
	case status >= 500:
		return ErrUnavailable, "server_error", true
	case status == http.StatusRequestTimeout:
		return ErrUnavailable, "timeout", true
	case status >= 400:
		return ErrRefused, "refused", false
	}
	return ErrUnavailable, "network", true
}

func describe(status int, timedOut bool, timeout time.Duration) string {
	switch {
	case timedOut:
		return "gave no answer within " + timeout.String()
	case status == 0:
		return "could not be reached"
	case status < 300:
		return "sent an answer that could not be read"
	}
	return fmt.Sprintf("answered %d %s", status, http.StatusText(status))
}

// usageOf reads token counts from the provider's usage fields, as
// langchaingo reports them; ok is false when there are none.
func usageOf(info map[string]any) (in, out int, ok bool) {
	get := func(keys ...string) int {
		for _, k := range keys {
			switch v := info[k].(type) {
			case int:
				return v
			case int32:
				return int(v)
			case int64:
				return int(v)
			case float64:
				return int(v)
			}
		}
		return 0
	}
	in = get("PromptTokens", "InputTokens", "input_tokens")
	out = get("CompletionTokens", "OutputTokens", "output_tokens")
	return in, out, in > 0 || out > 0
}

// breaker stops calls to a provider that failed threshold calls in a row,
// for a cooldown; then one call is let through to try it.
type breaker struct {
	mu        sync.Mutex
	failures  int
	openUntil time.Time
}

func (b *breaker) allow(now time.Time) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if now.Before(b.openUntil) {
		return fmt.Errorf("%w: not calling it until %s after %d failures in a row", ErrUnavailable,
			b.openUntil.Format(time.TimeOnly), b.failures)
	}
	return nil
}

func (b *breaker) success() {
	b.mu.Lock()
	b.failures = 0
	b.openUntil = time.Time{}
	b.mu.Unlock()
}

func (b *breaker) failure(now time.Time, threshold int, cooldown time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.failures++
	if b.failures >= threshold {
		b.openUntil = now.Add(cooldown)
	}
}
