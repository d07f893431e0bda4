package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

const shippedConfig = "../../configs/dormouse.yaml"

func TestMain(m *testing.M) {
	// Never read the host's /etc/dormouse/dormouse.yaml.
	defaultPath = filepath.Join("no-such-dir", "dormouse.yaml")
	os.Exit(m.Run())
}

// writeFile writes a config file into a fresh temporary directory and returns its path.
func writeFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "dormouse.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// errorKeys returns the Key of every *Error in err's tree, in order.
func errorKeys(err error) []string {
	var keys []string
	var walk func(error)
	walk = func(err error) {
		var e *Error
		switch x := err.(type) {
		case nil:
		case interface{ Unwrap() []error }:
			for _, err := range x.Unwrap() {
				walk(err)
			}
		default:
			if errors.As(err, &e) {
				keys = append(keys, e.Key)
			}
		}
	}
	walk(err)
	return keys
}

func TestDefaultIsValid(t *testing.T) {
	if err := Default().Validate(); err != nil {
		t.Errorf("Default().Validate() = %v, want nil", err)
	}
}

func TestLoadWithoutFileOrEnvironmentIsDefault(t *testing.T) {
	got, err := Load(Options{})
	if err != nil {
		t.Fatalf("Load() error: %v", err)
	}
	if diff := cmp.Diff(got, Default()); diff != "" {
		t.Errorf("Load() mismatch (-got +want):\n%s", diff)
	}
}

func TestLoadReadsDefaultPathWhenPresent(t *testing.T) {
	old := defaultPath
	defaultPath = writeFile(t, "listen: 127.0.0.1:9000\n")
	t.Cleanup(func() { defaultPath = old })

	got, err := Load(Options{})
	if err != nil {
		t.Fatalf("Load() error: %v", err)
	}
	if got.Listen != "127.0.0.1:9000" {
		t.Errorf("Listen = %q, want %q from the file at the default path", got.Listen, "127.0.0.1:9000")
	}
}

func TestStateDirectory(t *testing.T) {
	for _, tc := range []struct {
		name    string
		file    string
		environ []string
		want    string
	}{
		{name: "unset", want: "./dormouse-data"},
		{name: "empty", environ: []string{"STATE_DIRECTORY="}, want: "./dormouse-data"},
		{name: "one", environ: []string{"STATE_DIRECTORY=/var/lib/dormouse"}, want: "/var/lib/dormouse"},
		{name: "several takes the first", environ: []string{"STATE_DIRECTORY=a:b"}, want: "a"},
		{name: "later duplicate wins", environ: []string{"STATE_DIRECTORY=a", "STATE_DIRECTORY=b"}, want: "b"},
		{
			name:    "file overrides",
			file:    "data_dir: /srv/dormouse\n",
			environ: []string{"STATE_DIRECTORY=/var/lib/dormouse"},
			want:    "/srv/dormouse",
		},
		{
			name:    "environment overrides",
			environ: []string{"STATE_DIRECTORY=/var/lib/dormouse", "DORMOUSE_DATA_DIR=/srv/env"},
			want:    "/srv/env",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Environ: tc.environ}
			if tc.file != "" {
				opts.Path = writeFile(t, tc.file)
			}
			got, err := Load(opts)
			if err != nil {
				t.Fatalf("Load() error: %v", err)
			}
			if got.DataDir != tc.want {
				t.Errorf("DataDir = %q, want %q", got.DataDir, tc.want)
			}
		})
	}
}

func TestPrecedence(t *testing.T) {
	const file = `
listen: 127.0.0.1:8000
log_level: debug
storage:
  synchronous: normal
  busy_timeout: 1s
  read_conns: 4
api:
  max_body_bytes: 2097152
  auto_create_agents: false
  agents: [main, coder]
`
	for _, tc := range []struct {
		name    string
		file    string
		environ []string
		flags   map[string]string
		want    func(*Config)
	}{
		{
			name: "file over defaults",
			file: file,
			want: func(c *Config) {
				c.Listen = "127.0.0.1:8000"
				c.LogLevel = "debug"
				c.Storage.Synchronous = "NORMAL"
				c.Storage.BusyTimeout = Duration(time.Second)
				c.Storage.ReadConns = 4
				c.API.MaxBodyBytes = 2 << 20
				c.API.AutoCreate = false
				c.API.Agents = []string{"main", "coder"}
			},
		},
		{
			name: "environment over file",
			file: file,
			environ: []string{
				"DORMOUSE_LISTEN=0.0.0.0:8001",
				"DORMOUSE_STORAGE_SYNCHRONOUS=Full",
				"DORMOUSE_STORAGE_BUSY_TIMEOUT=250ms",
				"DORMOUSE_STORAGE_READ_CONNS=8",
				"DORMOUSE_API_MAX_BODY_BYTES=4096",
				"DORMOUSE_API_MAX_CONTENT_BYTES=4096",
				"DORMOUSE_API_AUTO_CREATE_AGENTS=yes",
				"DORMOUSE_API_AGENTS=a, b,,c",
				"DORMOUSE_LLM_PROVIDER=Ollama",
				"DORMOUSE_TIMEZONE=UTC",
			},
			want: func(c *Config) {
				c.Listen = "0.0.0.0:8001"
				c.LogLevel = "debug"
				c.Timezone = "UTC"
				c.LLM.Provider = "ollama"
				c.Storage.Synchronous = "FULL"
				c.Storage.BusyTimeout = Duration(250 * time.Millisecond)
				c.Storage.ReadConns = 8
				c.API.MaxBodyBytes = 4096
				c.API.MaxContentBytes = 4096
				c.API.AutoCreate = true
				c.API.Agents = []string{"a", "b", "c"}
			},
		},
		{
			name:    "flags over environment",
			file:    file,
			environ: []string{"DORMOUSE_LISTEN=0.0.0.0:8001", "DORMOUSE_STORAGE_READ_CONNS=8"},
			flags: map[string]string{
				"listen":                 "[::1]:8002",
				"storage.read_conns":     "16",
				"storage.busy_timeout":   "2m",
				"api.auto_create_agents": "true",
				"api.agents":             "",
				"recall.k":               "20",
			},
			want: func(c *Config) {
				c.Listen = "[::1]:8002"
				c.LogLevel = "debug"
				c.Storage.Synchronous = "NORMAL"
				c.Storage.BusyTimeout = Duration(2 * time.Minute)
				c.Storage.ReadConns = 16
				c.API.MaxBodyBytes = 2 << 20
				c.API.AutoCreate = true
				c.API.Agents = nil
				c.Recall.K = 20
			},
		},
		{
			name: "unknown and reserved variables are ignored",
			environ: []string{
				"DORMOUSE_ADDR=http://pi:7733",
				"DORMOUSE_CONFIG=/nonexistent.yaml",
				"DORMOUSE_TOKEN=secret",
				"DORMOUSE_NOT_A_SETTING=1",
				"LISTEN=nonsense",
				"=C:=C:\\",
				"NOEQUALS",
			},
			want: func(*Config) {},
		},
		{
			name: "empty values in the file keep defaults",
			file: "listen:\nstorage:\napi:\n  agents: ~\n",
			want: func(*Config) {},
		},
		{
			name: "anchors and aliases",
			file: "api:\n  read_timeout: &t 20s\n  write_timeout: *t\n",
			want: func(c *Config) {
				c.API.ReadTimeout = Duration(20 * time.Second)
				c.API.WriteTimeout = Duration(20 * time.Second)
			},
		},
		{
			name: "a list may be a comma-separated string in the file too",
			file: "api:\n  agents: main, coder\n",
			want: func(c *Config) { c.API.Agents = []string{"main", "coder"} },
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Environ: tc.environ, Flags: tc.flags}
			if tc.file != "" {
				opts.Path = writeFile(t, tc.file)
			}
			got, err := Load(opts)
			if err != nil {
				t.Fatalf("Load() error: %v", err)
			}
			want := Default()
			tc.want(&want)
			if diff := cmp.Diff(got, want); diff != "" {
				t.Errorf("Load() mismatch (-got +want):\n%s", diff)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		file     string
		environ  []string
		flags    map[string]string
		wantKeys []string
		wantMsg  string // a substring of the whole message
	}{
		// Unknown keys name the dotted key and suggest the one meant.
		{name: "unknown nested key", file: "storage:\n  synchronus: FULL\n",
			wantKeys: []string{"storage.synchronus"}, wantMsg: "did you mean storage.synchronous?"},
		{name: "unknown section", file: "stroage:\n  read_conns: 2\n",
			wantKeys: []string{"stroage"}, wantMsg: "did you mean storage?"},
		{name: "same section preferred", file: "api:\n  max_batc: 1\n",
			wantKeys: []string{"api.max_batc"}, wantMsg: "did you mean api.max_batch?"},
		{name: "misplaced key", file: "storage:\n  listen: :80\n",
			wantKeys: []string{"storage.listen"}, wantMsg: "did you mean listen?"},
		{name: "unknown key far from any", file: "recall:\n  zz: 1\n",
			wantKeys: []string{"recall.zz"}, wantMsg: "the settings under recall are budget_tokens, k,"},
		{name: "several problems at once", file: "listn: x\nstorage:\n  read_conns: many\n  foo: 1\n",
			wantKeys: []string{"listn", "storage.read_conns", "storage.foo"}},
		{name: "duplicate key", file: "listen: :1\nlisten: :2\n",
			wantKeys: []string{"listen"}, wantMsg: "set twice, first at line 1"},
		{name: "embeddings with offline", file: "recall:\n  embeddings:\n    enabled: true\n",
			wantKeys: []string{"recall.embeddings.enabled"}, wantMsg: "want llm.provider ollama or openai"},
		{name: "embeddings with anthropic", file: "llm:\n  provider: anthropic\nrecall:\n  embeddings:\n    enabled: true\n",
			wantKeys: []string{"recall.embeddings.enabled"}, wantMsg: `llm.provider is "anthropic"`},
		{name: "embeddings weight", file: "recall:\n  embeddings:\n    weight: 3\n",
			wantKeys: []string{"recall.embeddings.weight"}, wantMsg: "want more than 0 and at most 2"},
		{name: "embeddings batch", file: "recall:\n  embeddings:\n    batch: 0\n",
			wantKeys: []string{"recall.embeddings.batch"}},
		{name: "replication elsewhere", file: "replication:\n  url: https://nas.local/x\n",
			wantKeys: []string{"replication.url"}, wantMsg: "want file:///path (a mounted disk) or s3://bucket/prefix"},
		{name: "replication relative", file: "replication:\n  url: file://mnt/nas\n",
			wantKeys: []string{"replication.url"}, wantMsg: "an absolute directory"},
		{name: "replication credentials", file: "replication:\n  url: s3://key:secret@bucket/p\n",
			wantKeys: []string{"replication.url"}, wantMsg: "no user or password in the URL"},
		{name: "replication endpoint for file", file: "replication:\n  url: file:///mnt/nas\n  endpoint: http://nas:9000\n",
			wantKeys: []string{"replication.endpoint"}, wantMsg: "only with an s3:// replication.url"},
		{name: "replication interval", file: "replication:\n  sync_interval: 10ms\n",
			wantKeys: []string{"replication.sync_interval"}},
		{name: "unknown flag", flags: map[string]string{"storage.read_con": "3"},
			wantKeys: []string{"storage.read_con"}, wantMsg: "(from the command line)"},

		// Type errors name the key and the line.
		{name: "int as word", file: "storage:\n  read_conns: two\n",
			wantKeys: []string{"storage.read_conns"}, wantMsg: `want a whole number, got "two" (`},
		{name: "int as fraction", file: "recall:\n  k: 2.5\n", wantKeys: []string{"recall.k"}},
		{name: "int out of range", file: "api:\n  max_body_bytes: 99999999999999999999\n",
			wantKeys: []string{"api.max_body_bytes"}, wantMsg: "out of range"},
		{name: "bool", file: "api:\n  auto_create_agents: maybe\n",
			wantKeys: []string{"api.auto_create_agents"}, wantMsg: `want true or false, got "maybe"`},
		{name: "bare number duration", file: "storage:\n  busy_timeout: 5\n",
			wantKeys: []string{"storage.busy_timeout"}, wantMsg: "line 2"},
		{name: "list for scalar", file: "listen: [a, b]\n", wantKeys: []string{"listen"}},
		{name: "mapping for list", file: "api:\n  agents: {a: b}\n", wantKeys: []string{"api.agents"}},
		{name: "nested list in list", file: "api:\n  agents: [[a]]\n", wantKeys: []string{"api.agents"}},
		{name: "scalar for section", file: "storage: fast\n", wantKeys: []string{"storage"}},

		// Bad values, from each layer.
		{name: "listen without port", file: "listen: localhost\n", wantKeys: []string{"listen"},
			wantMsg: `got "localhost" (at `},
		{name: "listen bad port", environ: []string{"DORMOUSE_LISTEN=:http"}, wantKeys: []string{"listen"},
			wantMsg: "(from DORMOUSE_LISTEN)"},
		{name: "listen port too big", flags: map[string]string{"listen": ":70000"}, wantKeys: []string{"listen"}},
		{name: "data_dir empty", environ: []string{"DORMOUSE_DATA_DIR="}, wantKeys: []string{"data_dir"}},
		{name: "log_level", file: "log_level: verbose\n", wantKeys: []string{"log_level"},
			wantMsg: `want one of debug, info, warn, error; got "verbose"`},
		{name: "timezone unknown", file: "timezone: Mars/Olympus\n", wantKeys: []string{"timezone"}},
		{name: "timezone empty", file: `timezone: ""` + "\n", wantKeys: []string{"timezone"}},
		{name: "provider", environ: []string{"DORMOUSE_LLM_PROVIDER=gpt"}, wantKeys: []string{"llm.provider"}},
		{name: "base_url not http", file: "llm:\n  base_url: 127.0.0.1:11434\n", wantKeys: []string{"llm.base_url"}},
		{name: "base_url with a password", file: "llm:\n  base_url: https://me:sk-123@api.example.com/v1\n",
			wantKeys: []string{"llm.base_url"}, wantMsg: "$CREDENTIALS_DIRECTORY"},
		{name: "vision offline", file: "llm:\n  vision: true\n", wantKeys: []string{"llm.vision"},
			wantMsg: "the offline provider describes no images"},
		{name: "vision bedrock titan", file: "llm:\n  provider: bedrock\n  model: amazon.titan-text-express-v1\n  vision: true\n",
			wantKeys: []string{"llm.vision"}, wantMsg: "only Anthropic's Claude (anthropic.claude-…) and Amazon Nova"},
		{name: "vision bedrock titan vision_model", file: "llm:\n  provider: bedrock\n  vision: true\n  vision_model: meta.llama3-2-11b-instruct-v1:0\n",
			wantKeys: []string{"llm.vision"}, wantMsg: "set llm.vision_model"},
		{name: "vision not a bool", environ: []string{"DORMOUSE_LLM_VISION=maybe"}, wantKeys: []string{"llm.vision"}},
		{name: "temperature word", file: "llm:\n  temperature: warm\n", wantKeys: []string{"llm.temperature"},
			wantMsg: `want a number such as 0.2, got "warm"`},
		{name: "temperature NaN", environ: []string{"DORMOUSE_LLM_TEMPERATURE=NaN"}, wantKeys: []string{"llm.temperature"}},
		{name: "temperature too hot", file: "llm:\n  temperature: 2.5\n", wantKeys: []string{"llm.temperature"}},
		{name: "llm timeout", file: "llm:\n  timeout: 0s\n", wantKeys: []string{"llm.timeout"}},
		{name: "max_tokens beyond half the context", file: "llm:\n  max_tokens: 5000\n  context_window: 8192\n",
			wantKeys: []string{"llm.max_tokens"}, wantMsg: "half of llm.context_window"},
		{name: "context_window small", file: "llm:\n  context_window: 512\n", wantKeys: []string{"llm.context_window"}},
		{name: "max_retries", environ: []string{"DORMOUSE_LLM_MAX_RETRIES=50"}, wantKeys: []string{"llm.max_retries"}},
		{name: "budget negative", file: "llm:\n  budget:\n    max_calls: -1\n", wantKeys: []string{"llm.budget.max_calls"}},
		{name: "api key is not a setting", file: "llm:\n  api_key: sk-123\n", wantKeys: []string{"llm.api_key"},
			wantMsg: "secrets never go in this file"},
		{name: "synchronous", file: "storage:\n  synchronous: OFF\n", wantKeys: []string{"storage.synchronous"}},
		{name: "agents.create", file: "agents:\n  create: always\n", wantKeys: []string{"agents.create"},
			wantMsg: "explicit"},
		{name: "grant to itself", file: "agents:\n  home:\n    reads: [household, home]\n",
			wantKeys: []string{"agents.home.reads"}, wantMsg: `reads its own memories already`},
		{name: "grant twice", file: "agents:\n  home:\n    reads: [household, household]\n",
			wantKeys: []string{"agents.home.reads"}, wantMsg: `"household" twice`},
		{name: "grant bad name", file: "agents:\n  home:\n    reads: [House]\n",
			wantKeys: []string{"agents.home.reads"}, wantMsg: `got "House"`},
		{name: "grant bad reader", file: "agents:\n  Home:\n    reads: [household]\n",
			wantKeys: []string{"agents.Home"}, wantMsg: `got "Home"`},
		{name: "grant to create", file: "agents:\n  create:\n    reads: [household]\n",
			wantKeys: []string{"agents.create"}, wantMsg: "an agent named create cannot take a grant here"},
		{name: "grant not a list", file: "agents:\n  home:\n    reads: household\n",
			wantKeys: []string{"agents.home.reads"}, wantMsg: "want a list of agent names"},
		{name: "grant unknown setting", file: "agents:\n  home:\n    writes: [household]\n",
			wantKeys: []string{"agents.home.writes"}, wantMsg: "the only one is reads"},
		{name: "grant off the fixed list", file: "api:\n  auto_create_agents: false\n  agents: [home]\nagents:\n  home:\n    reads: [household]\n",
			wantKeys: []string{"agents.home.reads"}, wantMsg: "want one of api.agents (home)"},
		{name: "busy_timeout negative", file: "storage:\n  busy_timeout: -1s\n",
			wantKeys: []string{"storage.busy_timeout"}, wantMsg: "want a duration from 1ms to 10m, got -1s"},
		{name: "cache_size_kib zero", file: "storage:\n  cache_size_kib: 0\n",
			wantKeys: []string{"storage.cache_size_kib"}},
		{name: "read_conns too many", environ: []string{"DORMOUSE_STORAGE_READ_CONNS=17"},
			wantKeys: []string{"storage.read_conns"}, wantMsg: "want 1 to 16, got 17 (from DORMOUSE_STORAGE_READ_CONNS)"},
		{name: "read_conns bad env", environ: []string{"DORMOUSE_STORAGE_READ_CONNS=x"},
			wantKeys: []string{"storage.read_conns"}},
		{name: "idle_close", flags: map[string]string{"storage.idle_close": "0s"},
			wantKeys: []string{"storage.idle_close"}},
		{name: "spare_conn_idle_close", environ: []string{"DORMOUSE_STORAGE_SPARE_CONN_IDLE_CLOSE=500ms"},
			wantKeys: []string{"storage.spare_conn_idle_close"}, wantMsg: "want a duration from 1s to 168h, got 500ms (from DORMOUSE_STORAGE_SPARE_CONN_IDLE_CLOSE)"},
		{name: "max_open_agents", file: "storage:\n  max_open_agents: -3\n",
			wantKeys: []string{"storage.max_open_agents"}},
		{name: "group_commit_max", file: "storage:\n  group_commit_max: 0\n",
			wantKeys: []string{"storage.group_commit_max"}},
		{name: "group_commit_window", environ: []string{"DORMOUSE_STORAGE_GROUP_COMMIT_WINDOW=1s"},
			wantKeys: []string{"storage.group_commit_window"}, wantMsg: "want a duration from 0s to 100ms, got 1s (from DORMOUSE_STORAGE_GROUP_COMMIT_WINDOW)"},
		{name: "max_body_bytes", file: "api:\n  max_body_bytes: 10\n",
			wantKeys: []string{"api.max_body_bytes", "api.max_content_bytes"}},
		{name: "max_batch", file: "api:\n  max_batch: 0\n", wantKeys: []string{"api.max_batch"}},
		{name: "max_content_bytes", file: "api:\n  max_content_bytes: 0\n",
			wantKeys: []string{"api.max_content_bytes"}},
		{name: "content bigger than body", file: "api:\n  max_body_bytes: 2048\n  max_content_bytes: 4096\n",
			wantKeys: []string{"api.max_content_bytes"}},
		{name: "read_timeout", file: "api:\n  read_timeout: 2h\n", wantKeys: []string{"api.read_timeout"}},
		{name: "write_timeout", file: "api:\n  write_timeout: 1ms\n", wantKeys: []string{"api.write_timeout"}},
		{name: "bool bad env", environ: []string{"DORMOUSE_API_AUTO_CREATE_AGENTS=sometimes"},
			wantKeys: []string{"api.auto_create_agents"}},
		{name: "agent name", file: "api:\n  agents: [main, ../etc]\n", wantKeys: []string{"api.agents"},
			wantMsg: `got "../etc"`},
		{name: "agent name upper", environ: []string{"DORMOUSE_API_AGENTS=Main"}, wantKeys: []string{"api.agents"}},
		{name: "agent twice", file: "api:\n  agents: [main, main]\n", wantKeys: []string{"api.agents"}},
		{name: "allowed host with port", file: "api:\n  allowed_hosts: [pi.local:7733]\n", wantKeys: []string{"api.allowed_hosts"},
			wantMsg: "without scheme or port"},
		{name: "trusted proxy not an address", file: "api:\n  trusted_proxies: [proxy.lan]\n",
			wantKeys: []string{"api.trusted_proxies"}, wantMsg: "CIDR"},
		{name: "session idle too short", environ: []string{"DORMOUSE_API_SESSION_IDLE=1s"}, wantKeys: []string{"api.session_idle"}},
		{name: "fixed agents but none", file: "api:\n  auto_create_agents: false\n",
			wantKeys: []string{"api.agents"}, wantMsg: "api.auto_create_agents is false"},
		{name: "dedup_window", file: "capture:\n  dedup_window: 0s\n", wantKeys: []string{"capture.dedup_window"}},
		{name: "budget_tokens", file: "recall:\n  budget_tokens: 0\n", wantKeys: []string{"recall.budget_tokens"}},
		{name: "k", file: "recall:\n  k: 0\n", wantKeys: []string{"recall.k"}},
		{name: "max_candidates", file: "recall:\n  max_candidates: 0\n", wantKeys: []string{"recall.max_candidates"}},
		{name: "max_candidates below k", file: "recall:\n  k: 50\n  max_candidates: 20\n",
			wantKeys: []string{"recall.max_candidates"}},
		{name: "profile_tokens negative", file: "recall:\n  profile_tokens: -1\n", wantKeys: []string{"recall.profile_tokens"}},
		{name: "profile_tokens above the budget", file: "recall:\n  budget_tokens: 300\n  profile_tokens: 400\n",
			wantKeys: []string{"recall.profile_tokens"}, wantMsg: "at most recall.budget_tokens (300)"},
		{name: "recency_half_life", file: "recall:\n  recency_half_life: 1m\n",
			wantKeys: []string{"recall.recency_half_life"}},
		{name: "health thresholds", file: "health:\n  disk_percent: 120\n  backlog: 0\n  consolidation_overdue: 10m\n  temperature_c: 5\n",
			wantKeys: []string{"health.disk_percent", "health.backlog", "health.consolidation_overdue", "health.temperature_c"}},
		{name: "errors from every layer together",
			file:     "log_level: loud\n",
			environ:  []string{"DORMOUSE_RECALL_K=ten"},
			flags:    map[string]string{"nope": "1"},
			wantKeys: []string{"recall.k", "nope"}, // parse errors first; validation waits for them
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Environ: tc.environ, Flags: tc.flags}
			if tc.file != "" {
				opts.Path = writeFile(t, tc.file)
			}
			_, err := Load(opts)
			if err == nil {
				t.Fatal("Load() succeeded, want an error")
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Load() error %q (%T) is not a *config.Error", err, err)
			}
			if diff := cmp.Diff(errorKeys(err), tc.wantKeys); diff != "" {
				t.Errorf("keys of Load() error %q (-got +want):\n%s", err, diff)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("Load() error = %q, want it to contain %q", err, tc.wantMsg)
			}
		})
	}
}

func TestLoadFileErrors(t *testing.T) {
	for _, tc := range []struct {
		name    string
		path    string // relative paths are made absolute in a temporary directory
		file    string
		wantMsg string
	}{
		{name: "explicit missing file", path: "missing.yaml", wantMsg: "no such file"},
		{name: "syntax", file: "listen: [\n", wantMsg: "parse "},
		{name: "top level list", file: "- listen\n", wantMsg: `want settings as "key: value" lines`},
		{name: "two documents", file: "listen: :1\n---\nlisten: :2\n", wantMsg: "second YAML document"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), tc.path)
			if tc.file != "" {
				path = writeFile(t, tc.file)
			}
			_, err := Load(Options{Path: path})
			if err == nil || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("Load() error = %v, want one containing %q", err, tc.wantMsg)
			}
		})
	}
}

func TestEmptyAndCommentOnlyFilesAreDefault(t *testing.T) {
	for _, file := range []string{"", "# nothing\n", "---\n", "{}\n", "listen: :1\n---\n"} {
		got, err := Load(Options{Path: writeFile(t, file)})
		if err != nil {
			t.Errorf("Load(%q) error: %v", file, err)
			continue
		}
		want := Default()
		if strings.HasPrefix(file, "listen") {
			want.Listen = ":1"
		}
		if diff := cmp.Diff(got, want); diff != "" {
			t.Errorf("Load(%q) mismatch (-got +want):\n%s", file, diff)
		}
	}
}

func TestErrorMessage(t *testing.T) {
	got := (&Error{Key: "storage.read_conns", Msg: "want 1 to 16, got 40"}).Error()
	want := "config: storage.read_conns: want 1 to 16, got 40"
	if got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestKeys(t *testing.T) {
	got := Keys()
	if !slices.IsSorted(got) {
		t.Errorf("Keys() = %q, want sorted", got)
	}
	for _, want := range []string{"listen", "data_dir", "storage.synchronous", "api.agents", "recall.k"} {
		if !slices.Contains(got, want) {
			t.Errorf("Keys() = %q, want it to contain %q", got, want)
		}
	}
}

// TestEveryKeyHasAnEnvironmentVariable checks the one generic setter reaches every setting.
func TestEveryKeyHasAnEnvironmentVariable(t *testing.T) {
	for _, key := range Keys() {
		name := "DORMOUSE_" + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
		const junk = "[junk]"
		got, err := Load(Options{Environ: []string{name + "=" + junk}})
		if slices.Contains(errorKeys(err), key) {
			continue
		}
		field := reflect.ValueOf(got).FieldByIndex(tab.settings[tab.byKey[key]].index)
		if field.Kind() != reflect.String || field.String() != junk {
			t.Errorf("Load with %s=%s: error %v and %s = %v; want an error for %s or the value set",
				name, junk, err, key, field, key)
		}
	}
}

func TestShippedConfig(t *testing.T) {
	data, err := os.ReadFile(shippedConfig)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("loads as the defaults", func(t *testing.T) {
		got, err := Load(Options{Path: shippedConfig})
		if err != nil {
			t.Fatalf("Load(%s) error: %v", shippedConfig, err)
		}
		if diff := cmp.Diff(got, Default()); diff != "" {
			t.Errorf("Load(%s) mismatch (-got +want):\n%s", shippedConfig, diff)
		}
	})

	t.Run("STATE_DIRECTORY still applies", func(t *testing.T) {
		got, err := Load(Options{Path: shippedConfig, Environ: []string{"STATE_DIRECTORY=/var/lib/dormouse"}})
		if err != nil {
			t.Fatalf("Load(%s) error: %v", shippedConfig, err)
		}
		if got.DataDir != "/var/lib/dormouse" {
			t.Errorf("DataDir = %q, want %q: data_dir must stay commented out", got.DataDir, "/var/lib/dormouse")
		}
	})

	// Every setting is documented: present with a comment above it, or, for settings whose default is
	// computed, present as a commented-out line.
	commentedOut := map[string]bool{"data_dir": true}
	commentedKey := regexp.MustCompile(`^#\s*[a-z_]+:(\s|$)`)
	t.Run("documents every key", func(t *testing.T) {
		var doc yaml.Node
		if err := yaml.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		documented := map[string]bool{}
		var walk func(prefix string, n *yaml.Node)
		walk = func(prefix string, n *yaml.Node) {
			for i := 0; i+1 < len(n.Content); i += 2 {
				k, v := n.Content[i], n.Content[i+1]
				key := join(prefix, k.Value)
				if v.Kind == yaml.MappingNode {
					walk(key, v)
					continue
				}
				// yaml attaches a commented-out key above to the next key's comment, so look
				// at the last paragraph, and ask that it does not end in a commented-out key.
				paragraphs := strings.Split(strings.TrimSpace(k.HeadComment), "\n\n")
				lines := strings.Split(paragraphs[len(paragraphs)-1], "\n")
				if lines[0] == "" || commentedKey.MatchString(lines[len(lines)-1]) {
					t.Errorf("%s: %s has no comment above it saying what it does", shippedConfig, key)
				}
				documented[key] = true
			}
		}
		walk("", doc.Content[0])
		for _, key := range Keys() {
			switch {
			case commentedOut[key]:
				line := regexp.MustCompile(`(?m)^\s*# ` + regexp.QuoteMeta(last(key)) + `: \S`)
				if documented[key] || !line.Match(data) {
					t.Errorf("%s: %s has a computed default, want it only as a commented-out line", shippedConfig, key)
				}
			case !documented[key]:
				t.Errorf("%s does not document %s; add it with its default and a comment", shippedConfig, key)
			}
		}
	})
}

func TestMarshalRoundTrip(t *testing.T) {
	want := Default()
	want.API.Agents = []string{"main", "coder"}
	want.Storage.BusyTimeout = Duration(1500 * time.Millisecond)
	data, err := yaml.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "recency_half_life: 720h\n") {
		t.Errorf("yaml.Marshal(Config) = %s, want durations as strings such as 720h", data)
	}
	got, err := load(data, "marshalled.yaml", nil, nil)
	if err != nil {
		t.Fatalf("load(marshalled) error: %v\n%s", err, data)
	}
	if diff := cmp.Diff(got, want); diff != "" {
		t.Errorf("round trip mismatch (-got +want):\n%s", diff)
	}
}

func TestDuration(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{500 * time.Millisecond, "500ms"},
		{10 * time.Minute, "10m"},
		{90 * time.Minute, "1h30m"},
		{720 * time.Hour, "720h"},
		{time.Hour + time.Second, "1h0m1s"},
		{-5 * time.Minute, "-5m"},
	} {
		if got := Duration(tc.d).String(); got != tc.want {
			t.Errorf("Duration(%v).String() = %q, want %q", tc.d, got, tc.want)
		}
		var back Duration
		if err := back.UnmarshalText([]byte(tc.want)); err != nil || time.Duration(back) != tc.d {
			t.Errorf("UnmarshalText(%q) = %v, %v; want %v", tc.want, back, err, tc.d)
		}
	}

	var s struct {
		D Duration `yaml:"d"`
	}
	if err := yaml.Unmarshal([]byte("d: 1h"), &s); err != nil || s.D != Duration(time.Hour) {
		t.Errorf("yaml.Unmarshal(d: 1h) = %v, %v; want 1h", s.D, err)
	}
	if err := yaml.Unmarshal([]byte("d: 60"), &s); err == nil {
		t.Errorf("yaml.Unmarshal(d: 60) succeeded, want an error for a duration without a unit")
	}
}

func TestLocation(t *testing.T) {
	for _, tc := range []struct {
		tz   string
		want string
	}{
		{"Local", time.Local.String()},
		{"UTC", "UTC"},
		{"Europe/Berlin", "Europe/Berlin"},
		{"Not/AZone", time.Local.String()},
	} {
		c := Default()
		c.Timezone = tc.tz
		if got := c.Location().String(); got != tc.want {
			t.Errorf("Config{Timezone: %q}.Location() = %q, want %q", tc.tz, got, tc.want)
		}
	}

	got, err := Load(Options{Environ: []string{"DORMOUSE_TIMEZONE=local"}})
	if err != nil || got.Timezone != "Local" {
		t.Errorf("Load with DORMOUSE_TIMEZONE=local = %q, %v; want Local", got.Timezone, err)
	}
}

func FuzzLoadYAML(f *testing.F) {
	for _, seed := range shippedSections(f) {
		f.Add(seed)
	}
	for _, seed := range []string{
		"",
		"listen: :1\n",
		"storage: {read_conns: 3, busy_timeout: 1s}\napi: {agents: [a, b], auto_create_agents: no}\n",
		"a: &x [*x]\n",
		"api:\n  agents: &l [x]\n  read_timeout: *l\n",
		"<<: {listen: :1}\n",
		"? [a]\n: b\n",
		"listen: [\n",
		"---\n---\n",
		"recall: {k: 0x10, max_candidates: 1e3}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := load(data, "fuzz.yaml", nil, nil)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("load succeeded with an invalid config: %v", err)
		}
		out, err := yaml.Marshal(c)
		if err != nil {
			t.Fatalf("yaml.Marshal(loaded config): %v", err)
		}
		back, err := load(out, "marshalled.yaml", nil, nil)
		if err != nil {
			t.Fatalf("loading the marshalled config: %v\n%s", err, out)
		}
		if diff := cmp.Diff(back, c); diff != "" {
			t.Fatalf("marshal round trip mismatch (-got +want):\n%s", diff)
		}
	})
}

// shippedSections are the shipped config's top-level settings and sections, one document each and
// without comments: every key, each seed a few hundred bytes rather than one of 21 KB. The fuzzer
// grows its inputs from the seeds, and minimises each input that finds new code by running it
// again for every byte it tries to drop; the parser costs ~160 ns a byte, so from the whole
// commented file a worker spent its time minimising (15 inputs run in 30 s).
func shippedSections(tb testing.TB) [][]byte {
	tb.Helper()
	data, err := os.ReadFile(shippedConfig)
	if err != nil {
		tb.Fatal(err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		tb.Fatal(err)
	}
	var strip func(n *yaml.Node)
	strip = func(n *yaml.Node) {
		n.HeadComment, n.LineComment, n.FootComment = "", "", ""
		for _, c := range n.Content {
			strip(c)
		}
	}
	strip(&doc)
	var out [][]byte
	root := doc.Content[0]
	for i := 0; i+1 < len(root.Content); i += 2 {
		b, err := yaml.Marshal(&yaml.Node{Kind: yaml.MappingNode, Content: root.Content[i : i+2]})
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// TestShippedSectionsSeedEveryKey: FuzzLoadYAML's seeds from the shipped config are each small
// enough to minimise quickly, and together they hold every key and value of the shipped file.
func TestShippedSectionsSeedEveryKey(t *testing.T) {
	data, err := os.ReadFile(shippedConfig)
	if err != nil {
		t.Fatal(err)
	}
	var want, got map[string]any
	if err := yaml.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, seed := range shippedSections(t) {
		if len(seed) > 512 {
			t.Errorf("a seed of %d bytes, want at most 512:\n%s", len(seed), seed)
		}
		all = append(all, seed...)
	}
	if err := yaml.Unmarshal(all, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(got, want); diff != "" || len(want) == 0 {
		t.Errorf("the sections together (-got +want):\n%s", diff)
	}
}

func TestLLMSettings(t *testing.T) {
	got, err := load([]byte("llm:\n  provider: Ollama\n  base_url: http://pi.local:11434\n  temperature: 0.5\n"+
		"  budget:\n    max_tokens: 200000\n"), "dormouse.yaml",
		[]string{"DORMOUSE_LLM_TEMPERATURE=0.7", "DORMOUSE_LLM_BUDGET_MAX_CALLS=40"}, map[string]string{"llm.model": "qwen2.5:3b"})
	if err != nil {
		t.Fatal(err)
	}
	want := Default().LLM
	want.Provider, want.BaseURL, want.Model, want.Temperature = "ollama", "http://pi.local:11434", "qwen2.5:3b", 0.7
	want.Budget = Budget{MaxCalls: 40, MaxTokens: 200000}
	if diff := cmp.Diff(got.LLM, want); diff != "" {
		t.Errorf("llm settings mismatch (-got +want):\n%s", diff)
	}
}

func TestEmbeddingsSettings(t *testing.T) {
	for _, provider := range []string{"ollama", "openai"} {
		got, err := load([]byte("llm:\n  provider: "+provider+"\nrecall:\n  embeddings:\n    enabled: true\n    model: m\n"),
			"dormouse.yaml", []string{"DORMOUSE_RECALL_EMBEDDINGS_WEIGHT=0.5"}, map[string]string{"recall.embeddings.batch": "8"})
		if err != nil {
			t.Fatalf("%s: %v", provider, err)
		}
		want := Embeddings{Enabled: true, Model: "m", Weight: 0.5, Batch: 8}
		if diff := cmp.Diff(got.Recall.Embeddings, want); diff != "" {
			t.Errorf("%s: embeddings mismatch (-got +want):\n%s", provider, diff)
		}
	}
}

func TestAgentsReads(t *testing.T) {
	file := "agents:\n  create: explicit\n  home:\n    reads: [household, team]\n  coder:\n    reads: [team]\n  team:\n"
	c, err := load([]byte(file), "dormouse.yaml", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"home": {"household", "team"}, "coder": {"team"}}
	if diff := cmp.Diff(want, c.Agents.Reads); diff != "" || c.Agents.Create != CreateExplicit {
		t.Errorf("reads (-want +got):\n%s; create %q", diff, c.Agents.Create)
	}
}
