package llm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/proctest"
)

var update = flag.Bool("update", false, "rewrite the request golden files in testdata")

// The keys the fake providers are given; no log line or error may hold one.
const (
	openaiKey    = "sk-test-0123456789abcdefDORMOUSEabcd"
	anthropicKey = "sk-ant-api03-test-DORMOUSE-0123456789"
	googleKey    = "AIzaSyTest-DORMOUSE-0123456789abcdef"
	awsSecret    = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYDORMOUSE"
)

var secretsUsed = []string{openaiKey, anthropicKey, googleKey, awsSecret}

// sent is what a request asked, decoded from the provider's wire format.
type sent struct {
	Model     string
	System    string
	Turns     []string // user and assistant texts, in order
	JSONMode  bool
	MaxTokens int
}

// add puts one message of a request whose messages carry their role.
func (s *sent) add(role, content string) {
	if role == "system" {
		s.System = content
	} else {
		s.Turns = append(s.Turns, role+": "+content)
	}
}

// provider describes how one provider speaks HTTP.
type provider struct {
	name    string
	environ []string
	base    func(srv string) string // llm.base_url for a server at srv
	path    string                  // the request path for llm.DefaultModel
	// refused is the status a bad key gets; errHeader the headers an error carries.
	refused   int
	errHeader func(status int) http.Header
	decode    func(t *testing.T, r recorded) sent
	authOK    func(h http.Header) bool
}

var providers = []provider{
	{
		name:    "openai",
		environ: []string{"OPENAI_API_KEY=" + openaiKey},
		base:    func(s string) string { return s + "/v1" },
		path:    "/v1/chat/completions",
		refused: http.StatusUnauthorized,
		authOK:  func(h http.Header) bool { return h.Get("Authorization") == "Bearer "+openaiKey },
		decode:  decodeChatCompletions,
	},
	{
		name:    "ollama",
		base:    func(s string) string { return s },
		path:    "/api/chat",
		refused: http.StatusUnauthorized,
		authOK:  func(http.Header) bool { return true },
		decode: func(t *testing.T, r recorded) sent {
			var b struct {
				Model    string `json:"model"`
				Format   string `json:"format"`
				Messages []struct {
					Role    string `json:"role"`
					Content string `json:"content"`
				} `json:"messages"`
				Options struct {
					NumPredict int `json:"num_predict"`
					NumCtx     int `json:"num_ctx"`
				} `json:"options"`
				Stream bool `json:"stream"`
			}
			mustDecode(t, r.body, &b)
			if b.Stream || b.Options.NumCtx != 8192 {
				t.Errorf("ollama request streams (%v) or has num_ctx %d, want no stream and 8192", b.Stream, b.Options.NumCtx)
			}
			s := sent{Model: b.Model, JSONMode: b.Format == "json", MaxTokens: b.Options.NumPredict}
			for _, m := range b.Messages {
				s.add(m.Role, m.Content)
			}
			return s
		},
	},
	{
		name:    "anthropic",
		environ: []string{"ANTHROPIC_API_KEY=" + anthropicKey},
		base:    func(s string) string { return s + "/v1" },
		path:    "/v1/messages",
		refused: http.StatusUnauthorized,
		authOK: func(h http.Header) bool {
			return h.Get("X-Api-Key") == anthropicKey && h.Get("Anthropic-Version") != ""
		},
		decode: func(t *testing.T, r recorded) sent {
			var b struct {
				Model     string          `json:"model"`
				System    json.RawMessage `json:"system"`
				MaxTokens int             `json:"max_tokens"`
				Messages  []struct {
					Role    string `json:"role"`
					Content []struct {
						Type string `json:"type"`
						Text string `json:"text"`
					} `json:"content"`
				} `json:"messages"`
			}
			mustDecode(t, r.body, &b)
			s := sent{Model: b.Model, MaxTokens: b.MaxTokens, System: systemText(t, b.System)}
			for _, m := range b.Messages {
				for _, c := range m.Content {
					s.Turns = append(s.Turns, m.Role+": "+c.Text)
				}
			}
			s.JSONMode = true // the Messages API has no JSON mode; the prompt asks for it
			return s
		},
	},
	{
		// Gemini through Google's OpenAI-compatible endpoint, with
		// langchaingo's openai client: llm.base_url (by default
		// https://generativelanguage.googleapis.com/v1beta) + /openai.
		// The wire format is Google's "OpenAI compatibility" guide
		// (ai.google.dev/gemini-api/docs/openai: POST
		// .../v1beta/openai/chat/completions, Authorization: Bearer
		// $GEMINI_API_KEY, OpenAI's messages, image_url parts with base64
		// data: URLs) and its chat completion answer (OpenAI's object, a
		// Gemini model name, usage in prompt_tokens/completion_tokens);
		// errors come as a one-element array of Google's error object, as
		// Google's forum shows one (discuss.ai.google.dev/t/115017).
		name:    "googleai",
		environ: []string{"GOOGLE_API_KEY=" + googleKey},
		base:    func(s string) string { return s + "/v1beta" },
		path:    "/v1beta/openai/chat/completions",
		refused: http.StatusBadRequest, // API_KEY_INVALID is a 400
		authOK:  func(h http.Header) bool { return h.Get("Authorization") == "Bearer "+googleKey },
		decode:  decodeChatCompletions,
	},
	{
		name: "bedrock",
		environ: []string{"AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE", "AWS_SECRET_ACCESS_KEY=" + awsSecret,
			"AWS_REGION=eu-central-1"},
		base:    func(s string) string { return s },
		path:    "/model/" + url.PathEscape(llm.DefaultModel("bedrock")) + "/invoke",
		refused: http.StatusForbidden,
		authOK: func(h http.Header) bool {
			a := h.Get("Authorization")
			return strings.HasPrefix(a, "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/") &&
				strings.Contains(a, "/eu-central-1/bedrock/aws4_request") && !strings.Contains(a, awsSecret)
		},
		errHeader: func(status int) http.Header {
			kind := map[int]string{429: "ThrottlingException", 500: "InternalServerException",
				403: "UnrecognizedClientException"}[status]
			return http.Header{"X-Amzn-Errortype": {kind + ":http://internal.amazon.com/coral/com.amazon.bedrock/"}}
		},
		decode: func(t *testing.T, r recorded) sent {
			var b struct {
				AnthropicVersion string `json:"anthropic_version"`
				MaxTokens        int    `json:"max_tokens"`
				System           string `json:"system"`
				Messages         []struct {
					Role    string `json:"role"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"messages"`
			}
			mustDecode(t, r.body, &b)
			if b.AnthropicVersion != "bedrock-2023-05-31" {
				t.Errorf("bedrock anthropic_version = %q", b.AnthropicVersion)
			}
			model, _ := url.PathUnescape(strings.TrimSuffix(strings.TrimPrefix(r.path, "/model/"), "/invoke"))
			s := sent{Model: model, MaxTokens: b.MaxTokens, System: b.System, JSONMode: true}
			for _, m := range b.Messages {
				for _, c := range m.Content {
					s.Turns = append(s.Turns, m.Role+": "+c.Text)
				}
			}
			return s
		},
	},
}

// decodeChatCompletions reads an OpenAI chat completions request, as
// OpenAI, OpenAI-compatible servers and Gemini's compatible endpoint take it.
func decodeChatCompletions(t *testing.T, r recorded) sent {
	var b struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		ResponseFormat *struct {
			Type string `json:"type"`
		} `json:"response_format"`
		MaxCompletionTokens int `json:"max_completion_tokens"`
		MaxTokens           int `json:"max_tokens"` // what OpenAI-compatible servers read
	}
	mustDecode(t, r.body, &b)
	s := sent{Model: b.Model, MaxTokens: max(b.MaxCompletionTokens, b.MaxTokens),
		JSONMode: b.ResponseFormat != nil && b.ResponseFormat.Type == "json_object"}
	for _, m := range b.Messages {
		s.add(m.Role, m.Content)
	}
	return s
}

func systemText(t *testing.T, raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	mustDecode(t, raw, &blocks)
	for _, b := range blocks {
		s += b.Text
	}
	return s
}

func mustDecode(t *testing.T, data []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("decode request %s: %v", data, err)
	}
}

// step is one scripted answer of a fake provider.
type step struct {
	status     int    // 0 or 200: success with answer
	answer     string // the model's text
	noUsage    bool   // drop the usage fields
	delay      time.Duration
	truncate   bool // cut the body in half, under a Content-Length for all of it
	retryAfter string
}

type recorded struct {
	path   string
	header http.Header
	body   []byte
	at     time.Time
}

// fake is a provider's HTTP API answering from a script; after the
// script's end it repeats its last step.
type fake struct {
	t     *testing.T
	p     provider
	mu    sync.Mutex
	steps []step
	reqs  []recorded
}

func (f *fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	i := len(f.reqs)
	f.reqs = append(f.reqs, recorded{path: r.URL.Path, header: r.Header.Clone(), body: body, at: time.Now()})
	s := f.steps[min(i, len(f.steps)-1)]
	f.mu.Unlock()
	if s.delay > 0 {
		select {
		case <-time.After(s.delay):
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	if s.status != 0 && s.status != http.StatusOK {
		if f.p.errHeader != nil {
			for k, v := range f.p.errHeader(s.status) {
				w.Header()[k] = v
			}
		}
		if s.retryAfter != "" {
			w.Header().Set("Retry-After", s.retryAfter)
		}
		name := strconv.Itoa(s.status)
		if s.status == f.p.refused {
			name = "401"
		}
		w.WriteHeader(s.status)
		w.Write(f.file(name + ".json"))
		return
	}
	out := f.response(s.answer, s.noUsage)
	if s.truncate {
		w.Header().Set("Content-Length", strconv.Itoa(len(out)))
		w.WriteHeader(http.StatusOK)
		w.Write(out[:len(out)/2])
		return
	}
	w.Write(out)
}

func (f *fake) file(name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", f.p.name, name))
	if err != nil {
		f.t.Errorf("fake %s: %v", f.p.name, err)
	}
	return b
}

// response is the recorded success body with the model's text in it.
func (f *fake) response(answer string, noUsage bool) []byte {
	text, _ := json.Marshal(answer)
	b := bytes.Replace(f.file("response.json"), []byte(`"{{ANSWER}}"`), text, 1)
	if noUsage {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			f.t.Fatal(err)
		}
		objs, ok := v.([]any) // a stream of responses
		if !ok {
			objs = []any{v}
		}
		for _, o := range objs {
			for _, k := range []string{"usage", "usageMetadata", "prompt_eval_count", "eval_count"} {
				delete(o.(map[string]any), k)
			}
		}
		b, _ = json.Marshal(v)
	}
	return b
}

func (f *fake) requests() []recorded {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]recorded(nil), f.reqs...)
}

// harness is a client talking to a fake provider, with its log captured.
type harness struct {
	fake   *fake
	client *llm.Client
	log    *proctest.Buffer
	calls  []llm.Call
}

func newHarness(t *testing.T, p provider, steps []step, tune func(*llm.Config)) *harness {
	t.Helper()
	f := &fake{t: t, p: p, steps: steps}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	h := &harness{fake: f, log: &proctest.Buffer{}}
	cfg := llm.Config{
		Provider: p.name, BaseURL: p.base(srv.URL), Timeout: 2 * time.Second, MaxTokens: 1024,
		Temperature: 0.2, ContextWindow: 8192, MaxRetries: 2, Environ: p.environ,
		Logger:  slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Backoff: 5 * time.Millisecond, MaxBackoff: 20 * time.Millisecond, MaxRetryAfter: 5 * time.Second,
	}
	if tune != nil {
		tune(&cfg)
	}
	c, err := llm.New(t.Context(), cfg)
	if err != nil {
		t.Fatalf("llm.New(%s): %v", p.name, err)
	}
	var mu sync.Mutex
	c.OnCall = func(call llm.Call) {
		mu.Lock()
		h.calls = append(h.calls, call)
		mu.Unlock()
	}
	h.client = c
	t.Cleanup(func() { h.noSecrets(t) })
	return h
}

// noSecrets checks no key reached the log.
func (h *harness) noSecrets(t *testing.T) {
	t.Helper()
	for _, s := range secretsUsed {
		if strings.Contains(h.log.String(), s) {
			t.Errorf("the log holds an API key:\n%s", h.log.String())
		}
	}
}

func noSecret(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	for _, s := range secretsUsed {
		if strings.Contains(err.Error(), s) {
			t.Errorf("error holds an API key: %v", err)
		}
	}
}

// The model's answers the scripts use.
const (
	valid = `{"summary":"Alice became team lead of Atlas; the beta ships on Friday.",` +
		`"key_facts":[{"entity":"Alice","entity_type":"person","attribute":"role","value":"team lead",` +
		`"fact_type":"attribute","content":"Alice is the team lead of Atlas.","confidence":0.9,"memory_ids":[1]},` +
		`{"entity":"Atlas beta","entity_type":"project","fact_type":"decision",` +
		`"content":"The Atlas beta ships on Friday.","confidence":0.8,"memory_ids":[2]}],` +
		`"entities":[{"text":"Alice","type":"person","count":1},{"text":"Atlas","type":"project","count":2}],` +
		`"topics":["atlas","beta"],` +
		`"insights":[{"text":"Alice leads the project whose beta ships on Friday.","entities":["Alice","Atlas"],"memory_ids":[1,2]}]}`
	fenced  = "Here is the consolidated record:\n\n```json\n" + valid + "\n```\n\nLet me know if you need more."
	broken  = `{"summary": "Alice became team lead", "key_facts": [{"entity": "Alice", "content": `
	invalid = `{"summary":"","key_facts":[],"entities":[],"topics":[],"insights":[]}`
)

var notes = []llm.Note{
	{ID: 1, Time: time.Date(2026, 3, 2, 9, 14, 0, 0, time.UTC), Role: "user", Content: "Alice is now the team lead of Atlas."},
	{ID: 2, Time: time.Date(2026, 3, 2, 11, 30, 0, 0, time.UTC), Role: "assistant", Content: "Noted: the Atlas beta ships on Friday."},
}

func TestWireFormat(t *testing.T) {
	type want struct {
		requests int
		usage    llm.Usage
		err      error
		outcome  string // of the first call
		minGap   time.Duration
	}
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			for _, tc := range []struct {
				name  string
				steps []step
				tune  func(*llm.Config)
				want  want
			}{
				{name: "success with usage", steps: []step{{answer: valid}},
					want: want{requests: 1, usage: llm.Usage{Calls: 1, TokensIn: 812, TokensOut: 164}, outcome: "ok"}},
				{name: "429 with retry-after", steps: []step{{status: 429, retryAfter: "1"}, {answer: valid}},
					want: want{requests: 2, usage: llm.Usage{Calls: 1, TokensIn: 812, TokensOut: 164}, outcome: "ok", minGap: time.Second}},
				{name: "500 then success", steps: []step{{status: 500}, {answer: valid}},
					want: want{requests: 2, usage: llm.Usage{Calls: 1, TokensIn: 812, TokensOut: 164}, outcome: "ok"}},
				{name: "timeout then success", steps: []step{{delay: 3 * time.Second, answer: valid}, {answer: valid}},
					tune: func(c *llm.Config) { c.Timeout = 300 * time.Millisecond },
					want: want{requests: 2, usage: llm.Usage{Calls: 1, TokensIn: 812, TokensOut: 164}, outcome: "ok"}},
				{name: "truncated body then success", steps: []step{{answer: valid, truncate: true}, {answer: valid}},
					want: want{requests: 2, usage: llm.Usage{Calls: 1, TokensIn: 812, TokensOut: 164}, outcome: "ok"}},
				{name: "JSON in code fences", steps: []step{{answer: fenced}},
					want: want{requests: 1, usage: llm.Usage{Calls: 1, TokensIn: 812, TokensOut: 164}, outcome: "ok"}},
				{name: "invalid JSON then valid on repair", steps: []step{{answer: broken}, {answer: valid}},
					want: want{requests: 2, usage: llm.Usage{Calls: 2, TokensIn: 2 * 812, TokensOut: 2 * 164}, outcome: "ok"}},
				{name: "empty summary then valid on repair", steps: []step{{answer: invalid}, {answer: fenced}},
					want: want{requests: 2, usage: llm.Usage{Calls: 2, TokensIn: 2 * 812, TokensOut: 2 * 164}, outcome: "ok"}},
				{name: "never valid JSON", steps: []step{{answer: broken}, {answer: "I cannot help with that."}},
					want: want{requests: 2, usage: llm.Usage{Calls: 2, TokensIn: 2 * 812, TokensOut: 2 * 164}, outcome: "ok",
						err: llm.ErrInvalidJSON}},
				{name: "always 500", steps: []step{{status: 500}},
					want: want{requests: 3, usage: llm.Usage{Calls: 1}, err: llm.ErrUnavailable, outcome: "server_error"}},
				{name: "refused key", steps: []step{{status: p.refused}},
					want: want{requests: 1, usage: llm.Usage{Calls: 1}, err: llm.ErrRefused, outcome: "refused"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					t.Parallel()
					h := newHarness(t, p, tc.steps, tc.tune)
					rec, u, err := h.client.Record(t.Context(), llm.MapRequest("2026-03-02", notes))
					noSecret(t, err)
					if !errors.Is(err, tc.want.err) || (tc.want.err == nil) != (err == nil) {
						t.Fatalf("Record() error = %v, want %v", err, tc.want.err)
					}
					reqs := h.fake.requests()
					if len(reqs) != tc.want.requests {
						t.Errorf("%d requests, want %d", len(reqs), tc.want.requests)
					}
					if u != tc.want.usage {
						t.Errorf("usage = %+v, want %+v", u, tc.want.usage)
					}
					if len(h.calls) == 0 || h.calls[0].Outcome != tc.want.outcome || h.calls[0].Provider != p.name ||
						h.calls[0].Model != llm.DefaultModel(p.name) || h.calls[0].Latency <= 0 {
						t.Errorf("calls = %+v, want the first with outcome %q", h.calls, tc.want.outcome)
					}
					if tc.want.minGap > 0 && len(reqs) >= 2 {
						if gap := reqs[1].at.Sub(reqs[0].at); gap < tc.want.minGap {
							t.Errorf("retried after %s, want at least Retry-After's %s", gap, tc.want.minGap)
						}
					}
					for i, r := range reqs {
						if r.path != p.path {
							t.Errorf("request %d to %s, want %s", i, r.path, p.path)
						}
						if !p.authOK(r.header) {
							t.Errorf("request %d lacks the provider's authentication: %v", i, r.header)
						}
					}
					if len(reqs) > 0 {
						checkSent(t, p, reqs)
					}
					if err == nil && (rec.Summary == "" || len(rec.KeyFacts) != 2 || rec.KeyFacts[0].MemoryIDs[0] != 1) {
						t.Errorf("record = %+v", rec)
					}
					if tc.name == "success with usage" {
						golden(t, p, reqs[0].body)
					}
				})
			}
		})
	}
}

// checkSent asserts the prompt's shape: model, system instructions, the
// memories with their ids, JSON mode, the answer's limit, and after a bad
// answer the repair turn that quotes it.
func checkSent(t *testing.T, p provider, reqs []recorded) {
	t.Helper()
	first := p.decode(t, reqs[0])
	if first.Model != llm.DefaultModel(p.name) {
		t.Errorf("model sent = %q, want %q", first.Model, llm.DefaultModel(p.name))
	}
	if !strings.Contains(first.System, `"key_facts"`) || !strings.Contains(first.System, "JSON") {
		t.Errorf("system prompt lacks the schema: %q", first.System)
	}
	if !first.JSONMode {
		t.Errorf("request does not ask for JSON mode")
	}
	if first.MaxTokens != 1024 {
		t.Errorf("max tokens sent = %d, want 1024", first.MaxTokens)
	}
	if len(first.Turns) != 1 || !strings.HasPrefix(first.Turns[0], "user: Day: 2026-03-02.") ||
		!strings.Contains(first.Turns[0], "[id 1] 09:14 user: Alice is now the team lead of Atlas.") {
		t.Errorf("turns = %q, want one user turn with the memories and their ids", first.Turns)
	}
	for _, r := range reqs[1:] {
		s := p.decode(t, r)
		if len(s.Turns) == 3 && (!strings.HasPrefix(s.Turns[1], "assistant: ") || !strings.Contains(s.Turns[2], "could not be used")) {
			t.Errorf("repair turns = %q, want the bad answer then the problem", s.Turns)
		}
	}
}

// goldenFile compares a request body with testdata/<provider>/<name>.
func goldenFile(t *testing.T, p provider, name string, body []byte) {
	t.Helper()
	var got any
	mustDecode(t, body, &got)
	path := filepath.Join("testdata", p.name, name)
	if *update {
		b, _ := json.MarshalIndent(got, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to record it)", err)
	}
	var want any
	mustDecode(t, data, &want)
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("request body mismatch (-got +want):\n%s", diff)
	}
}

// golden compares a request body with testdata/<provider>/request.golden.json.
func golden(t *testing.T, p provider, body []byte) {
	t.Helper()
	goldenFile(t, p, "request.golden.json", body)
}

// TestUsageEstimatedWhenAbsent: without usage fields, a call is charged by
// the estimator a dry run uses.
func TestUsageEstimatedWhenAbsent(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			h := newHarness(t, p, []step{{answer: valid, noUsage: true}}, nil)
			req := llm.MapRequest("2026-03-02", notes)
			_, u, err := h.client.Record(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if u.TokensIn != req.EstimateIn() || u.TokensOut == 0 || !h.calls[0].Estimated {
				t.Errorf("usage = %+v, calls %+v; want tokens in %d, estimated", u, h.calls, req.EstimateIn())
			}
		})
	}
}

func TestCircuitBreaker(t *testing.T) {
	p := providers[0]
	h := newHarness(t, p, []step{{status: 500}}, func(c *llm.Config) {
		c.MaxRetries = 0
		c.BreakerThreshold = 2
		c.BreakerCooldown = time.Hour
	})
	req := llm.MapRequest("2026-03-02", notes)
	for i := range 4 {
		_, _, err := h.client.Record(t.Context(), req)
		if !errors.Is(err, llm.ErrUnavailable) {
			t.Fatalf("call %d: error %v, want ErrUnavailable", i, err)
		}
	}
	if n := len(h.fake.requests()); n != 2 {
		t.Errorf("%d requests reached a failing provider, want 2: the circuit should open", n)
	}
	if got := h.calls[3].Outcome; got != "circuit_open" {
		t.Errorf("last call outcome = %q, want circuit_open", got)
	}
}

func TestRetryAfterTooLongIsNotWaited(t *testing.T) {
	h := newHarness(t, providers[0], []step{{status: 429, retryAfter: "3600"}}, nil)
	start := time.Now()
	_, _, err := h.client.Record(t.Context(), llm.MapRequest("2026-03-02", notes))
	if !errors.Is(err, llm.ErrUnavailable) || time.Since(start) > 2*time.Second || len(h.fake.requests()) != 1 {
		t.Errorf("error %v after %s and %d requests; want a quick failure", err, time.Since(start), len(h.fake.requests()))
	}
}

func TestBudget(t *testing.T) {
	now := time.Date(2026, 3, 3, 0, 5, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	for _, tc := range []struct {
		name                string
		maxCalls, maxTokens int
		ok                  int // calls that succeed before the budget stops them
	}{
		{"calls", 2, 0, 2},
		{"tokens", 0, 2000, 2}, // 976 a call
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &llm.Budget{MaxCalls: tc.maxCalls, MaxTokens: tc.maxTokens, Location: time.UTC}
			h := newHarness(t, providers[0], []step{{answer: valid}}, func(c *llm.Config) {
				c.Budget = b
				c.Now = clock
			})
			req := llm.MapRequest("2026-03-02", notes)
			for i := range tc.ok {
				if _, _, err := h.client.Record(t.Context(), req); err != nil {
					t.Fatalf("call %d: %v", i, err)
				}
			}
			if _, _, err := h.client.Record(t.Context(), req); !errors.Is(err, llm.ErrBudget) {
				t.Fatalf("call past the budget: error %v, want ErrBudget", err)
			}
			if n := len(h.fake.requests()); n != tc.ok {
				t.Errorf("%d requests, want %d", n, tc.ok)
			}
			now = now.Add(24 * time.Hour) // the next night
			if _, _, err := h.client.Record(t.Context(), req); err != nil {
				t.Errorf("next night: %v", err)
			}
			now = now.Add(-24 * time.Hour)
		})
	}
}

// TestKeysNeverLogged: the key reaches the provider and nothing else, even
// in the errors of a server that cannot be reached.
func TestKeysNeverLogged(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			var log proctest.Buffer
			base := "http://127.0.0.1:1/"
			for _, kv := range p.environ { // a key in the URL must not leak through the errors that quote it
				if _, v, _ := strings.Cut(kv, "="); slices.Contains(secretsUsed, v) {
					base += url.PathEscape(v)
				}
			}
			c, err := llm.New(t.Context(), llm.Config{
				Provider: p.name, BaseURL: base, Timeout: time.Second, MaxRetries: 1,
				Environ: p.environ, Backoff: time.Millisecond,
				Logger: slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug})),
			})
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = c.Record(t.Context(), llm.MapRequest("2026-03-02", notes))
			if !errors.Is(err, llm.ErrUnavailable) {
				t.Errorf("error %v, want ErrUnavailable", err)
			}
			noSecret(t, err)
			for _, s := range secretsUsed {
				if strings.Contains(log.String(), s) || strings.Contains(fmt.Sprint(c), s) {
					t.Errorf("log or client holds a key:\n%s", log.String())
				}
			}
		})
	}
}

func TestCredentialsDirectory(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "anthropic_api_key"), []byte(anthropicKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p := providers[2]
	p.environ = []string{"CREDENTIALS_DIRECTORY=" + dir}
	h := newHarness(t, p, []step{{answer: valid}}, nil)
	if _, _, err := h.client.Record(t.Context(), llm.MapRequest("2026-03-02", notes)); err != nil {
		t.Fatal(err)
	}
	if r := h.fake.requests(); !p.authOK(r[0].header) {
		t.Errorf("the key from $CREDENTIALS_DIRECTORY was not sent: %v", r[0].header)
	}
}

func TestMissingKeySaysWhichVariable(t *testing.T) {
	for _, tc := range []struct{ provider, variable string }{
		{"openai", "OPENAI_API_KEY"}, {"anthropic", "ANTHROPIC_API_KEY"}, {"googleai", "GOOGLE_API_KEY"},
	} {
		_, err := llm.New(context.Background(), llm.Config{Provider: tc.provider})
		if err == nil || !strings.Contains(err.Error(), tc.variable) {
			t.Errorf("New(%s) without a key: error %v, want one naming %s", tc.provider, err, tc.variable)
		}
	}
}

// TestServerWithoutJSONMode: an OpenAI-compatible server that refuses
// response_format is asked again without it, and not sent it again.
func TestServerWithoutJSONMode(t *testing.T) {
	f := &fake{t: t, p: providers[0], steps: []step{{answer: fenced}}}
	var refused, asked int
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		mu.Lock()
		asked++
		mu.Unlock()
		if bytes.Contains(body, []byte(`"response_format"`)) {
			mu.Lock()
			refused++
			mu.Unlock()
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"error":{"message":"'response_format.type' must be 'json_schema'","type":"invalid_request_error"}}`)
			return
		}
		f.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	c, err := llm.New(t.Context(), llm.Config{Provider: "openai", BaseURL: srv.URL + "/v1", MaxRetries: 0})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, _, err := c.Record(t.Context(), llm.MapRequest("2026-03-02", notes)); err != nil {
			t.Fatal(err)
		}
	}
	if refused != 1 || asked != 3 {
		t.Errorf("%d requests, %d refused; want JSON mode tried once, then left out", asked, refused)
	}
}

func TestOllamaBehindAProxySendsItsKey(t *testing.T) {
	p := providers[1]
	p.environ = []string{"OLLAMA_API_KEY=proxy-token-DORMOUSE"}
	h := newHarness(t, p, []step{{answer: valid}}, nil)
	if _, _, err := h.client.Record(t.Context(), llm.MapRequest("2026-03-02", notes)); err != nil {
		t.Fatal(err)
	}
	if got := h.fake.requests()[0].header.Get("Authorization"); got != "Bearer proxy-token-DORMOUSE" {
		t.Errorf("Authorization = %q", got)
	}
	if strings.Contains(h.log.String(), "proxy-token-DORMOUSE") {
		t.Errorf("the log holds the key")
	}
}
