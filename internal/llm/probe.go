package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"
)

// ErrNotProbed is Probe's answer for a provider it has no cheap request
// for (bedrock signs every request with AWS credentials).
var ErrNotProbed = errors.New("no cheap reachability probe for this provider")

// probeTimeout bounds one probe when the caller's context does not.
const probeTimeout = 10 * time.Second

// Probe asks the provider of cfg a cheap question that costs no tokens —
// ollama GET /api/tags, OpenAI-compatible GET /models, anthropic GET
// /v1/models, googleai GET /models — and returns nil when it answers 200.
// A refused API key is an error too (consolidation would fail the same
// way). The offline provider needs nothing and always passes. Keys are
// looked up as New does; they never appear in the error.
func Probe(ctx context.Context, cfg Config, hc *http.Client) error {
	_, err := probe(ctx, cfg, hc)
	return err
}

// Models lists the models the provider of cfg offers, by the same request
// as Probe: ollama's installed models ("llama3.2:latest"), the
// OpenAI-compatible and anthropic model ids, googleai's names without
// their "models/" prefix. The offline provider has none.
func Models(ctx context.Context, cfg Config, hc *http.Client) ([]string, error) {
	body, err := probe(ctx, cfg, hc)
	if err != nil || body == nil {
		return nil, err
	}
	var list struct {
		Models []struct{ Name, Model string } `json:"models"` // ollama, googleai
		Data   []struct{ ID string }          `json:"data"`   // openai, anthropic
	}
	if err := json.Unmarshal(body, &list); err != nil {
		return nil, fmt.Errorf("list %s models: %w", cfg.Provider, err)
	}
	var out []string
	for _, m := range list.Models {
		out = append(out, strings.TrimPrefix(cmp.Or(m.Name, m.Model), "models/"))
	}
	for _, m := range list.Data {
		out = append(out, m.ID)
	}
	return out, nil
}

// HasModel reports whether name is among models as a provider lists it;
// for ollama, "llava" is "llava:latest".
func HasModel(models []string, name string) bool {
	for _, m := range models {
		if m == name || m == name+":latest" {
			return true
		}
	}
	return false
}

// probe sends Probe's request and returns the body of a 200 answer (nil
// for the offline provider).
func probe(ctx context.Context, cfg Config, hc *http.Client) ([]byte, error) {
	if cfg.Provider == "offline" || cfg.Provider == "" {
		return nil, nil
	}
	if !slices.Contains(Providers, cfg.Provider) {
		return nil, fmt.Errorf("llm provider %q is not one of %s", cfg.Provider, strings.Join(Providers, ", "))
	}
	if hc == nil {
		hc = &http.Client{}
	}
	sec := lookupSecrets(cfg.Environ, keyVars[cfg.Provider]...)
	key := sec.first(keyVars[cfg.Provider]...)
	base := apiBase(cfg.Provider, cfg.BaseURL)
	header := http.Header{}
	var path string
	switch cfg.Provider {
	case "ollama":
		path = "/api/tags"
		if key != "" {
			header.Set("Authorization", "Bearer "+key)
		}
	case "openai":
		path = "/models"
		if key != "" {
			header.Set("Authorization", "Bearer "+key)
		}
	case "anthropic":
		path = "/models"
		header.Set("x-api-key", key)
		header.Set("anthropic-version", "2023-06-01")
	case "googleai":
		path = "/models"
		header.Set("x-goog-api-key", key)
	default:
		return nil, ErrNotProbed
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, probeTimeout)
		defer cancel()
	}
	url := base + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("probe %s: %w", cfg.Provider, err)
	}
	req.Header = header
	// The URL too is redacted: a base_url may carry a proxy's token.
	fail := func(why string) error {
		return errors.New(sec.redactor().Replace(fmt.Sprintf("probe %s at %s: %s", cfg.Provider, url, why)))
	}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fail(err.Error())
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	_ = resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusOK:
		return b, nil
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, fail(resp.Status + ": the API key is missing or refused")
	default:
		return nil, fail(resp.Status)
	}
}
