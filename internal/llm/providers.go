package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/anthropic"
	"github.com/tmc/langchaingo/llms/bedrock"
	"github.com/tmc/langchaingo/llms/ollama"
	"github.com/tmc/langchaingo/llms/openai"
)

// Providers are the names Client knows; offline is not one: it needs no model.
var Providers = []string{"ollama", "openai", "anthropic", "googleai", "bedrock"}

// DefaultModel is the model used when the configuration names none.
func DefaultModel(provider string) string {
	switch provider {
	case "ollama":
		return "llama3.2"
	case "openai":
		return "gpt-4o-mini"
	case "anthropic":
		return "claude-3-5-haiku-latest"
	case "googleai":
		return "gemini-2.0-flash"
	case "bedrock":
		return "anthropic.claude-3-haiku-20240307-v1:0"
	}
	return ""
}

// defaultBaseURL is, per provider, where its API is when llm.base_url
// names no other place.
var defaultBaseURL = map[string]string{
	"ollama":    "http://127.0.0.1:11434",
	"openai":    "https://api.openai.com/v1",
	"anthropic": "https://api.anthropic.com/v1",
	"googleai":  "https://generativelanguage.googleapis.com/v1beta",
}

// apiBase is the configured llm.base_url, else the provider's default
// API address; without a trailing slash.
func apiBase(provider, configured string) string {
	if b := strings.TrimRight(configured, "/"); b != "" {
		return b
	}
	return defaultBaseURL[provider]
}

// errOpenAIKey: OpenAI's own API needs a key; an OpenAI-compatible server
// named by base_url may not.
var errOpenAIKey = errors.New("openai needs an API key: set OPENAI_API_KEY in the service's environment or " +
	"as a credential, or set llm.base_url to an OpenAI-compatible server that needs none")

// keyVars names, per provider, the variables a secret may come from.
var keyVars = map[string][]string{
	"openai":    {"OPENAI_API_KEY"},
	"anthropic": {"ANTHROPIC_API_KEY"},
	"googleai":  {"GOOGLE_API_KEY", "GEMINI_API_KEY"},
	"ollama":    {"OLLAMA_API_KEY"}, // for an ollama behind an authenticating proxy
}

// Secrets are the values found for a provider's variables. They are looked
// up in $CREDENTIALS_DIRECTORY first (a file named like the variable, in
// upper or lower case, as LoadCredential= makes them), then in the
// environment; never in the YAML.
type secrets map[string]string

func lookupSecrets(environ []string, names ...string) secrets {
	env := map[string]string{}
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	out := secrets{}
	dir := env["CREDENTIALS_DIRECTORY"]
	for _, name := range names {
		if dir != "" {
			for _, file := range []string{name, strings.ToLower(name)} {
				if b, err := os.ReadFile(filepath.Join(dir, file)); err == nil {
					if v := strings.TrimSpace(string(b)); v != "" {
						out[name] = v
						break
					}
				}
			}
		}
		if out[name] == "" && env[name] != "" {
			out[name] = strings.TrimSpace(env[name])
		}
	}
	return out
}

func (s secrets) first(names ...string) string {
	for _, n := range names {
		if s[n] != "" {
			return s[n]
		}
	}
	return ""
}

// values lists every secret, for redaction.
func (s secrets) values() []string {
	var out []string
	for _, v := range s {
		if len(v) >= 4 { // a shorter one would redact ordinary words
			out = append(out, v)
		}
	}
	return out
}

var awsVars = []string{"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_REGION", "AWS_DEFAULT_REGION"}

// newModel builds the langchaingo model for cfg. Every provider's HTTP goes
// through hc, so that the retry loop sees status codes and Retry-After.
func newModel(ctx context.Context, cfg Config, sec secrets, hc *http.Client) (llms.Model, error) {
	switch cfg.Provider {
	case "ollama":
		return ollama.New(ollama.WithModel(cfg.Model), ollama.WithServerURL(apiBase("ollama", cfg.BaseURL)), ollama.WithHTTPClient(hc),
			ollama.WithRunnerNumCtx(cfg.ContextWindow))
	case "openai":
		key := sec.first(keyVars["openai"]...)
		switch {
		case cfg.BaseURL == "" && key == "":
			return nil, errOpenAIKey
		case key == "":
			key = "none" // local servers ignore it, the client insists on one
		}
		return openai.New(openai.WithToken(key), openai.WithModel(cfg.Model), openai.WithBaseURL(apiBase("openai", cfg.BaseURL)),
			openai.WithHTTPClient(hc))
	case "anthropic":
		key := sec.first(keyVars["anthropic"]...)
		if key == "" {
			return nil, fmt.Errorf("anthropic needs an API key: set ANTHROPIC_API_KEY in the service's environment or as a credential")
		}
		return anthropic.New(anthropic.WithToken(key), anthropic.WithModel(cfg.Model), anthropic.WithBaseURL(apiBase("anthropic", cfg.BaseURL)),
			anthropic.WithHTTPClient(hc))
	case "googleai":
		return newGemini(cfg, sec, hc)
	case "bedrock":
		return newBedrock(ctx, cfg, sec, hc)
	}
	return nil, fmt.Errorf("llm provider %q is not one of %s", cfg.Provider, strings.Join(Providers, ", "))
}

// newGemini reaches Gemini through Google's OpenAI-compatible endpoint
// (llm.base_url, by default the Gemini API's root, + /openai) with
// langchaingo's openai client and the key as a Bearer token. Google's own
// SDK, which langchaingo's googleai package wraps, links its genai, Vertex,
// gRPC and OpenTelemetry stack: ~15 MB of the Pi's binary for one provider.
func newGemini(cfg Config, sec secrets, hc *http.Client) (llms.Model, error) {
	key := sec.first(keyVars["googleai"]...)
	if key == "" {
		return nil, fmt.Errorf("googleai needs an API key: set GOOGLE_API_KEY in the service's environment or as a credential")
	}
	return openai.New(openai.WithToken(key), openai.WithModel(cfg.Model),
		openai.WithBaseURL(apiBase("googleai", cfg.BaseURL)+"/openai"), openai.WithHTTPClient(hc))
}

// newBedrock builds a Bedrock runtime client on our HTTP client, with the
// SDK's own retries off (ours apply) and, with base_url, a custom endpoint.
// Static keys come from the environment or credentials; without them the
// SDK's default chain (instance role, ~/.aws) applies.
func newBedrock(ctx context.Context, cfg Config, sec secrets, hc *http.Client) (llms.Model, error) {
	region := sec.first("AWS_REGION", "AWS_DEFAULT_REGION")
	if region == "" {
		region = "us-east-1"
	}
	var awsCfg aws.Config
	if id, key := sec["AWS_ACCESS_KEY_ID"], sec["AWS_SECRET_ACCESS_KEY"]; id != "" && key != "" {
		awsCfg = aws.Config{
			Region:      region,
			Credentials: credentials.NewStaticCredentialsProvider(id, key, sec["AWS_SESSION_TOKEN"]),
		}
	} else {
		var err error
		awsCfg, err = awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion(region))
		if err != nil {
			return nil, fmt.Errorf("load AWS configuration: %w", err)
		}
	}
	awsCfg.HTTPClient = hc
	awsCfg.Retryer = func() aws.Retryer { return aws.NopRetryer{} }
	rt := bedrockruntime.NewFromConfig(awsCfg, func(o *bedrockruntime.Options) {
		if cfg.BaseURL != "" {
			o.BaseEndpoint = aws.String(cfg.BaseURL)
		}
	})
	return bedrock.New(bedrock.WithClient(rt), bedrock.WithModel(cfg.Model))
}

// observed is what the transport saw of one attempt's response.
type observed struct {
	status     int
	retryAfter string
	body       []byte // the start of an error answer; only for the debug log
}

type observedKey struct{}

// transport records each response's status and Retry-After in the
// attempt's context, and adds headers a provider's client would not send
// (the key of an ollama behind an authenticating proxy).
type transport struct {
	next   http.RoundTripper
	header http.Header
}

func (t transport) RoundTrip(r *http.Request) (*http.Response, error) {
	if len(t.header) > 0 {
		r = r.Clone(r.Context())
		for k, vs := range t.header {
			r.Header[k] = vs
		}
	}
	resp, err := t.next.RoundTrip(r)
	if o, ok := r.Context().Value(observedKey{}).(*observed); ok && resp != nil {
		o.status = resp.StatusCode
		o.retryAfter = resp.Header.Get("Retry-After")
		keepErrorBody(resp, o)
	}
	return resp, err
}
