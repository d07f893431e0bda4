package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/internal/backoff"
)

// EmbeddingProviders are the providers with an embedding endpoint that
// Embedder speaks: Ollama's /api/embed and OpenAI's /v1/embeddings (which
// OpenAI-compatible servers such as llama.cpp and vLLM also serve).
var EmbeddingProviders = []string{"ollama", "openai"}

// DefaultEmbeddingModel is the embedding model used when the configuration
// names none.
func DefaultEmbeddingModel(provider string) string {
	switch provider {
	case "ollama":
		return "nomic-embed-text"
	case "openai":
		return "text-embedding-3-small"
	}
	return ""
}

// ErrBadEmbedding means the provider answered with vectors that do not fit
// the request: another count, an empty vector, or vectors of mixed length.
var ErrBadEmbedding = errors.New("the provider's embeddings do not match the request")

// maxEmbedResponse bounds the answer read: 1,024 texts of 4,096 numbers
// fit many times over.
const maxEmbedResponse = 256 << 20

// Embedder turns texts into vectors with the provider's embedding model.
// It is written against the two HTTP APIs directly (langchaingo's ollama
// embedder sends one request per text to the older /api/embeddings); it
// shares Client's secrets, redaction, retries and circuit breaker. It is
// safe for concurrent use.
type Embedder struct {
	cfg     Config
	url     string
	header  http.Header
	hc      *http.Client
	redact  *strings.Replacer
	breaker breaker
	log     *slog.Logger
}

// NewEmbedder builds an embedder for cfg.Provider (ollama or openai);
// cfg.Model is the embedding model ("": DefaultEmbeddingModel). API keys
// come from cfg.Environ or $CREDENTIALS_DIRECTORY, as for New.
func NewEmbedder(cfg Config) (*Embedder, error) {
	if DefaultEmbeddingModel(cfg.Provider) == "" {
		return nil, fmt.Errorf("llm provider %q has no embeddings here: want one of %s", cfg.Provider,
			strings.Join(EmbeddingProviders, ", "))
	}
	if cfg.Model == "" {
		cfg.Model = DefaultEmbeddingModel(cfg.Provider)
	}
	cfg.fillCalls()
	sec := lookupSecrets(cfg.Environ, keyVars[cfg.Provider]...)
	cfg.Environ = nil
	e := &Embedder{cfg: cfg, redact: sec.redactor(), header: http.Header{"Content-Type": {"application/json"}},
		log: cfg.Logger.With("provider", cfg.Provider, "model", cfg.Model)}
	key := sec.first(keyVars[cfg.Provider]...)
	switch cfg.Provider {
	case "ollama":
		e.url = apiBase("ollama", cfg.BaseURL) + "/api/embed"
	case "openai":
		if cfg.BaseURL == "" && key == "" {
			return nil, errOpenAIKey
		}
		e.url = apiBase("openai", cfg.BaseURL) + "/embeddings"
	}
	if key != "" {
		e.header.Set("Authorization", "Bearer "+key)
	}
	tr := cfg.Transport
	if tr == nil {
		tr = http.DefaultTransport
	}
	e.hc = &http.Client{Transport: tr}
	return e, nil
}

// String names the embedder without anything secret.
func (e *Embedder) String() string { return "llm.Embedder(" + e.cfg.Provider + "/" + e.cfg.Model + ")" }

// LogValue keeps a logged embedder to its name.
func (e *Embedder) LogValue() slog.Value { return slog.StringValue(e.String()) }

// Model names the embedding model: vectors of different models are not
// comparable, so stored vectors carry it.
func (e *Embedder) Model() string { return e.cfg.Model }

// Embed returns one vector per text, in order, all of one length. It
// retries timeouts, 429 and 5xx like Generate; an answer that does not fit
// the request is ErrBadEmbedding, not retried.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, Usage, error) {
	if len(texts) == 0 {
		return nil, Usage{}, nil
	}
	start := time.Now()
	vecs, u, attempts, outcome, err := e.embed(ctx, texts)
	level := slog.LevelDebug
	attrs := []any{"texts", len(texts), "tokens_in", u.TokensIn, "latency_ms", time.Since(start).Milliseconds(),
		"attempts", attempts, "outcome", outcome}
	if err != nil {
		level = slog.LevelWarn
		attrs = append(attrs, "err", err)
	}
	e.log.Log(ctx, level, "llm embed", attrs...)
	return vecs, u, err
}

func (e *Embedder) embed(ctx context.Context, texts []string) (vecs [][]float32, u Usage, attempts int, outcome string, err error) {
	if err := e.breaker.allow(e.cfg.Now()); err != nil {
		return nil, Usage{}, 0, "circuit_open", err
	}
	body, err := json.Marshal(struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}{e.cfg.Model, texts})
	if err != nil {
		return nil, Usage{}, 0, "refused", fmt.Errorf("encode embedding request: %w", err)
	}
	var last error
	for attempt := 0; attempt <= e.cfg.MaxRetries; attempt++ {
		attempts = attempt + 1
		status, retryAfterHdr, data, timedOut, err := e.post(ctx, body)
		if err == nil && status/100 == 2 {
			vecs, u, err = e.decode(data, len(texts))
			if err != nil {
				// A lying server: the same request would get the same answer.
				return nil, Usage{Calls: 1}, attempts, "invalid", err
			}
			e.breaker.success()
			return vecs, u, attempts, "ok", nil
		}
		if ctx.Err() != nil {
			return nil, Usage{}, attempts, "cancelled", fmt.Errorf("embed with %s: %w", e.cfg.Provider, ctx.Err())
		}
		kind, out, retry := classify(status, timedOut)
		outcome = out
		detail := ""
		if err != nil {
			detail = e.redact.Replace(err.Error())
		} else {
			e.log.DebugContext(ctx, "llm provider error", "status", status, "body", e.redact.Replace(string(data[:min(len(data), errorBodyLimit)])))
		}
		last = summary(kind, e.cfg.Provider, "embeddings ", status, timedOut, e.cfg.Timeout, detail)
		if !retry || attempt == e.cfg.MaxRetries {
			break
		}
		wait, err := retryWait(backoff.Exp(e.cfg.Backoff, e.cfg.MaxBackoff, attempt), retryAfterHdr, e.cfg.Now(), e.cfg.MaxRetryAfter, last)
		if err != nil {
			last = err
			break
		}
		if sleep(ctx, wait) != nil {
			return nil, Usage{}, attempts, "cancelled", fmt.Errorf("embed with %s: %w", e.cfg.Provider, ctx.Err())
		}
	}
	if errors.Is(last, ErrUnavailable) {
		e.breaker.failure(e.cfg.Now(), e.cfg.BreakerThreshold, e.cfg.BreakerCooldown)
	}
	return nil, Usage{Calls: 1}, attempts, outcome, last
}

// post sends one attempt; status 0 is no response.
func (e *Embedder) post(ctx context.Context, body []byte) (status int, retryAfter string, data []byte, timedOut bool, err error) {
	actx, cancel := context.WithTimeout(ctx, e.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, e.url, bytes.NewReader(body))
	if err != nil {
		return 0, "", nil, false, err
	}
	req.Header = e.header.Clone()
	resp, err := e.hc.Do(req)
	if err != nil {
		return 0, "", nil, errors.Is(actx.Err(), context.DeadlineExceeded), err
	}
	defer resp.Body.Close()
	data, err = io.ReadAll(io.LimitReader(resp.Body, maxEmbedResponse+1))
	if err == nil && len(data) > maxEmbedResponse {
		err = fmt.Errorf("answer longer than %d bytes", maxEmbedResponse)
	}
	if err != nil {
		// A cut answer counts as no answer (retried).
		return 0, "", nil, errors.Is(actx.Err(), context.DeadlineExceeded), fmt.Errorf("read answer: %w", err)
	}
	return resp.StatusCode, resp.Header.Get("Retry-After"), data, false, nil
}

// decode reads the provider's answer into n vectors.
func (e *Embedder) decode(data []byte, n int) ([][]float32, Usage, error) {
	u := Usage{Calls: 1}
	var vecs [][]float32
	switch e.cfg.Provider {
	case "ollama":
		var r struct {
			Embeddings      [][]float32 `json:"embeddings"`
			PromptEvalCount int         `json:"prompt_eval_count"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, u, fmt.Errorf("%w: read ollama's answer: %v", ErrBadEmbedding, err)
		}
		vecs, u.TokensIn = r.Embeddings, r.PromptEvalCount
	case "openai":
		var r struct {
			Data []struct {
				Embedding []float32 `json:"embedding"`
				Index     int       `json:"index"`
			} `json:"data"`
			Usage struct {
				PromptTokens int `json:"prompt_tokens"`
			} `json:"usage"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, u, fmt.Errorf("%w: read openai's answer: %v", ErrBadEmbedding, err)
		}
		if len(r.Data) != n {
			return nil, u, fmt.Errorf("%w: asked for %d vectors, got %d", ErrBadEmbedding, n, len(r.Data))
		}
		vecs = make([][]float32, n)
		for _, d := range r.Data {
			if d.Index < 0 || d.Index >= n || vecs[d.Index] != nil {
				return nil, u, fmt.Errorf("%w: index %d out of place for %d texts", ErrBadEmbedding, d.Index, n)
			}
			vecs[d.Index] = d.Embedding
		}
		u.TokensIn = r.Usage.PromptTokens
	}
	if len(vecs) != n {
		return nil, u, fmt.Errorf("%w: asked for %d vectors, got %d", ErrBadEmbedding, n, len(vecs))
	}
	for i, v := range vecs {
		if len(v) == 0 {
			return nil, u, fmt.Errorf("%w: vector %d is empty", ErrBadEmbedding, i)
		}
		if len(v) != len(vecs[0]) {
			return nil, u, fmt.Errorf("%w: vector %d has %d numbers, vector 0 has %d", ErrBadEmbedding, i, len(v), len(vecs[0]))
		}
	}
	return vecs, u, nil
}
