// Package config holds Dormouse's settings: compiled-in defaults, the YAML file, DORMOUSE_* environment
// and flags, in that order of precedence, and their validation.
package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is every setting of the daemon. Each field's yaml tag is its dotted key ("storage.read_conns"),
// which also names its environment variable (DORMOUSE_STORAGE_READ_CONNS) and its flag key: adding a
// setting is adding a field here, a default in Default, a check in Validate and a comment in
// configs/dormouse.yaml (a test fails until it is there).
type Config struct {
	Listen   string  `yaml:"listen"`
	DataDir  string  `yaml:"data_dir"`
	LogLevel string  `yaml:"log_level"`
	Timezone string  `yaml:"timezone"` // the day boundaries for consolidation
	LLM      LLM     `yaml:"llm"`
	Storage  Storage `yaml:"storage"`
	API      API     `yaml:"api"`
	Agents   Agents  `yaml:"agents"`
	Capture  Capture `yaml:"capture"`
	Recall   Recall  `yaml:"recall"`

	Consolidate Consolidate `yaml:"consolidate"`
	Health      Health      `yaml:"health"`
	Retention   Retention   `yaml:"retention"`
	Backup      Backup      `yaml:"backup"`
	Replication Replication `yaml:"replication"`
	Files       Files       `yaml:"files"`

	Auth Auth `yaml:"auth"`

	Watch []WatchFolder `yaml:"watch"` // watched folders: a list, only in the file (see watch.go)
}

// Auth is who may use the API, the web page and /mcp. With no tokens every request may do everything,
// which is safe only on loopback: the daemon refuses another listen address without tokens unless
// allow_open is set.
type Auth struct {
	Tokens    []Token `yaml:"tokens"`     // a list, only in the file
	AllowOpen bool    `yaml:"allow_open"` // serve beyond loopback without tokens (a trusted network)
}

// Token is one bearer token: the file holds its SHA-256, never the token (dormouse token new prints
// both).
type Token struct {
	Name   string   `yaml:"name"`   // for logs and messages
	SHA256 string   `yaml:"sha256"` // hex
	Agents []string `yaml:"agents"` // the agents it may use; "*" is every agent
	Access string   `yaml:"access"` // read or write (write includes read)
}

// Retention prunes old raw memories once they are consolidated; day records and facts are kept.
type Retention struct {
	RawDays int `yaml:"raw_days"` // 0: keep raw memories for ever
}

// LLM chooses the model behind consolidation and how it is called. API keys are not settings: they come
// from the environment or $CREDENTIALS_DIRECTORY, never from the file.
type LLM struct {
	Provider      string   `yaml:"provider"`
	Model         string   `yaml:"model"`          // "": the provider's default
	BaseURL       string   `yaml:"base_url"`       // "": the provider's public endpoint
	Timeout       Duration `yaml:"timeout"`        // per request, each retry anew
	MaxTokens     int      `yaml:"max_tokens"`     // per answer
	Temperature   float64  `yaml:"temperature"`    // 0 to 2
	ContextWindow int      `yaml:"context_window"` // tokens the model reads and writes per call
	MaxRetries    int      `yaml:"max_retries"`    // after a timeout, 429 or 5xx
	Budget        Budget   `yaml:"budget"`
	Vision        bool     `yaml:"vision"`       // the model (or VisionModel) describes images of watched folders and uploads
	VisionModel   string   `yaml:"vision_model"` // "": Model; another model of the same provider for images
}

// Budget limits what one night of consolidation may spend on a provider; 0 is no limit.
type Budget struct {
	MaxCalls  int `yaml:"max_calls"`
	MaxTokens int `yaml:"max_tokens"` // tokens in and out
}

// Storage tunes the per-agent SQLite files.
type Storage struct {
	Synchronous    string   `yaml:"synchronous"`
	BusyTimeout    Duration `yaml:"busy_timeout"`
	CacheSizeKiB   int      `yaml:"cache_size_kib"`   // per connection
	ReadConns      int      `yaml:"read_conns"`       // per open agent
	IdleClose      Duration `yaml:"idle_close"`       // an agent unused this long is closed
	ConnIdleClose  Duration `yaml:"conn_idle_close"`  // an agent's connection unused this long is closed
	MaxOpenAgents  int      `yaml:"max_open_agents"`  // least recently used agents are closed beyond this
	GroupCommitMax int      `yaml:"group_commit_max"` // requests per write transaction
	// GroupCommitWindow: how long the writer waits for concurrent writes to join a transaction.
	GroupCommitWindow Duration `yaml:"group_commit_window"`
	// SpareConnIdleClose: conn_idle_close for an agent's read connections
	// beyond the one it used last, and for its writer's once that wrote
	// 1,000 rows (a bulk load).
	SpareConnIdleClose Duration `yaml:"spare_conn_idle_close"`
}

// API limits the HTTP API and says which agents exist.
type API struct {
	MaxBodyBytes    int64    `yaml:"max_body_bytes"`
	MaxBatch        int      `yaml:"max_batch"`
	MaxContentBytes int      `yaml:"max_content_bytes"`
	MaxUploadBytes  int64    `yaml:"max_upload_bytes"` // POST /v1/agents/{agent}/files
	ReadTimeout     Duration `yaml:"read_timeout"`
	WriteTimeout    Duration `yaml:"write_timeout"`
	AutoCreate      bool     `yaml:"auto_create_agents"` // false: only the agents in Agents exist
	Agents          []string `yaml:"agents"`
	// AllowedHosts are names the Host header may carry besides localhost, loopback and the address a
	// request came in on (refused otherwise: DNS rebinding).
	AllowedHosts []string `yaml:"allowed_hosts"`
	// TrustedProxies are the addresses (IPs or CIDRs) whose X-Forwarded-Proto: https marks a request
	// as HTTPS, so the sign-in cookie is Secure behind a TLS-terminating proxy.
	TrustedProxies []string `yaml:"trusted_proxies"`
	SessionIdle    Duration `yaml:"session_idle"` // a web sign-in unused this long ends
}

// Agents says how agents come into being.
type Agents struct {
	// Create is on-write (a write to an agent that does not exist creates it) or explicit (only
	// POST /v1/agents, `dormouse agents create` and an import create one; a write to another is 404).
	Create string `yaml:"create"`
	// Reads is agents.<reader>.reads, only in the file: the agents whose memories, day records, facts
	// and profile lines each reader's recall and ask also search. Not transitive: a reader of a reader
	// reads only what it is granted itself.
	Reads map[string][]string `yaml:"<agent>"`
}

// CreateExplicit is agents.create: explicit.
const CreateExplicit = "explicit"

// Capture tunes how memories are taken in.
type Capture struct {
	DedupWindow   Duration `yaml:"dedup_window"`    // same content and session within this window is stored once
	MaxFutureSkew Duration `yaml:"max_future_skew"` // a memory dated further ahead of the clock is refused
}

// Recall tunes ranking and the default size of an answer.
type Recall struct {
	BudgetTokens    int        `yaml:"budget_tokens"`
	K               int        `yaml:"k"`
	MaxCandidates   int        `yaml:"max_candidates"` // full-text candidates ranked per query
	RecencyHalfLife Duration   `yaml:"recency_half_life"`
	MinCoverage     float64    `yaml:"min_coverage"`   // precision floor: share of the query's words an item must hold
	ProfileTokens   int        `yaml:"profile_tokens"` // of the budget, what the profile lines matching a question may take; 0: off
	Explain         bool       `yaml:"explain"`        // attach score parts to every item
	Embeddings      Embeddings `yaml:"embeddings"`
}

// Embeddings is the optional semantic arm of recall: the provider's embedding model turns each memory
// and each question into a vector, and cosine similarity joins the ranking. Off by default.
type Embeddings struct {
	Enabled bool    `yaml:"enabled"` // only with llm.provider ollama or openai
	Model   string  `yaml:"model"`   // "": nomic-embed-text (ollama), text-embedding-3-small (openai)
	Weight  float64 `yaml:"weight"`  // of cosine similarity in an item's score, 0 to 2
	Batch   int     `yaml:"batch"`   // memories embedded per request
}

// Consolidate tunes the nightly cycle and its early runs.
type Consolidate struct {
	CatchUp          bool     `yaml:"catch_up"`          // consolidate past days at start-up
	BacklogThreshold int      `yaml:"backlog_threshold"` // 0: off
	BacklogDebounce  Duration `yaml:"backlog_debounce"`
	ChunkTokens      int      `yaml:"chunk_tokens"` // memory tokens per model call
	LeaseTTL         Duration `yaml:"lease_ttl"`
}

// Health sets the thresholds that turn the health report from ok into degraded (or failing).
type Health struct {
	DiskPercent          float64  `yaml:"disk_percent"`          // of the data directory's filesystem
	Backlog              int      `yaml:"backlog"`               // unconsolidated memories of one agent
	ConsolidationOverdue Duration `yaml:"consolidation_overdue"` // age of the oldest unconsolidated memory
	TemperatureC         float64  `yaml:"temperature_c"`         // SoC temperature
	ReplicaLagWarn       Duration `yaml:"replica_lag_warn"`      // an agent's replica this far behind is degraded
	// PublicDetail shows agent names, per-agent series and file paths on /health and /metrics to
	// requests without a token even when tokens are configured.
	PublicDetail bool `yaml:"public_detail"`
}

// Backup says where `dormouse backup` (and the nightly dormouse-backup.timer) writes verified copies
// of the agent files, and how many it keeps.
type Backup struct {
	Dir  string `yaml:"dir"`  // "": <data_dir>/backups
	Keep int    `yaml:"keep"` // newest backups kept per agent
}

// Replication copies every agent's file off the box as it changes: Litestream, run and watched by
// `dormouse serve` (internal/replicate). Credentials come only from the environment
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: /etc/default/dormouse), never from this file.
type Replication struct {
	URL          string   `yaml:"url"`           // "": off; file:///mnt/nas/dormouse or s3://bucket/prefix
	Endpoint     string   `yaml:"endpoint"`      // an S3-compatible store's URL ("": AWS)
	Region       string   `yaml:"region"`        // the S3 region ("": the store's default)
	PathStyle    bool     `yaml:"path_style"`    // bucket in the path, not the host name
	SyncInterval Duration `yaml:"sync_interval"` // how often changes are shipped
	Litestream   string   `yaml:"litestream"`    // the binary, if neither beside dormouse nor in /usr/lib/dormouse
}

// Files bounds what one file (watched, uploaded or ingested) may cost: a file over a cap is skipped
// with the setting to raise, and a parse that runs too long is killed and the file failed.
type Files struct {
	ParseTimeout      Duration `yaml:"parse_timeout"`       // a PDF still being read this long is given up
	MaxExtractedBytes int      `yaml:"max_extracted_bytes"` // of text from one file
	MaxParts          int      `yaml:"max_parts"`           // memories from one file
}

// UploadTimeout is how long an upload may take from its headers to its answer: api.write_timeout
// (which starts with the body's read) plus files.parse_timeout, since a PDF's parse alone may take
// all of that. A parse stopped at its timeout then still answers 422 before the connection's
// deadline; without it the client would get an empty reply.
func (c Config) UploadTimeout() time.Duration {
	return time.Duration(max(c.API.ReadTimeout, c.API.WriteTimeout) + c.Files.ParseTimeout)
}

// BackupDir is backup.dir, or <data_dir>/backups when it is empty.
func (c Config) BackupDir() string {
	if c.Backup.Dir != "" {
		return c.Backup.Dir
	}
	return filepath.Join(c.DataDir, "backups")
}

// defaultDataDir is data_dir when systemd gave no $STATE_DIRECTORY: beside the binary's working
// directory, so `dormouse serve` run by hand works without root.
const defaultDataDir = "./dormouse-data"

// Default returns the compiled-in defaults. Load starts from these and, before reading the file, sets
// data_dir from $STATE_DIRECTORY when systemd provides it.
func Default() Config {
	return Config{
		Listen:   "127.0.0.1:7733",
		DataDir:  defaultDataDir,
		LogLevel: "info",
		Timezone: "Local",
		LLM: LLM{
			Provider:      "offline",
			Timeout:       Duration(2 * time.Minute),
			MaxTokens:     2048,
			Temperature:   0.2,
			ContextWindow: 8192,
			MaxRetries:    3,
		},
		Storage: Storage{
			Synchronous:    "FULL",
			BusyTimeout:    Duration(5 * time.Second),
			CacheSizeKiB:   256,
			ReadConns:      2,
			IdleClose:      Duration(10 * time.Minute),
			ConnIdleClose:  Duration(30 * time.Second),
			MaxOpenAgents:  32,
			GroupCommitMax: 256,

			GroupCommitWindow:  Duration(time.Millisecond),
			SpareConnIdleClose: Duration(2 * time.Second),
		},
		API: API{
			MaxBodyBytes:    1 << 20,
			MaxBatch:        1000,
			MaxContentBytes: 64 << 10,
			MaxUploadBytes:  20 << 20,
			ReadTimeout:     Duration(15 * time.Second),
			WriteTimeout:    Duration(30 * time.Second),
			AutoCreate:      true,
			SessionIdle:     Duration(12 * time.Hour),
		},
		Agents:  Agents{Create: "on-write"},
		Capture: Capture{DedupWindow: Duration(24 * time.Hour), MaxFutureSkew: Duration(24 * time.Hour)},
		Recall: Recall{
			BudgetTokens:    1000,
			K:               10,
			MaxCandidates:   400,
			RecencyHalfLife: Duration(720 * time.Hour),
			MinCoverage:     0.2,
			ProfileTokens:   200,
			Embeddings:      Embeddings{Weight: 0.3, Batch: 32},
		},
		Consolidate: Consolidate{
			CatchUp:          true,
			BacklogThreshold: 50,
			BacklogDebounce:  Duration(time.Minute),
			ChunkTokens:      6000,
			LeaseTTL:         Duration(10 * time.Minute),
		},
		Health: Health{
			DiskPercent:          90,
			Backlog:              500,
			ConsolidationOverdue: Duration(36 * time.Hour),
			TemperatureC:         80,
			ReplicaLagWarn:       Duration(30 * time.Second),
		},
		Backup:      Backup{Keep: 7},
		Replication: Replication{SyncInterval: Duration(time.Second)},
		Files:       Files{ParseTimeout: Duration(30 * time.Second), MaxExtractedBytes: 8 << 20, MaxParts: 2000},
	}
}

// Location returns the time zone named by Timezone. It falls back to the host's zone for a name that
// does not load, which Validate has already refused for a loaded Config.
func (c Config) Location() *time.Location {
	loc, err := time.LoadLocation(c.Timezone)
	if err != nil || c.Timezone == "" {
		return time.Local
	}
	return loc
}

// Duration is a time.Duration written in files and the environment as a Go duration string ("500ms",
// "24h"), never a bare number, whose unit nobody could guess.
type Duration time.Duration

// String is time.Duration's form without zero trailing units: "10m", not "10m0s".
func (d Duration) String() string {
	s := time.Duration(d).String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}

// MarshalYAML writes the duration as a string so that a marshalled Config loads back.
func (d Duration) MarshalYAML() (any, error) { return d.String(), nil }

// UnmarshalYAML reads a duration string. Load does not go through it (it reports errors with the
// setting's key); it is here for anyone decoding a Config with yaml directly.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: %s", n.Line, durationWant)
	}
	return d.UnmarshalText([]byte(n.Value))
}

// MarshalText makes a Duration a string in JSON too.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("%s, got %q", durationWant, b)
	}
	*d = Duration(v)
	return nil
}

const durationWant = "want a duration such as 500ms, 5s, 10m or 24h"
