// Package replicate keeps every agent's file replicated off the box: it runs
// Litestream (github.com/benbjohnson/litestream, pinned in
// internal/replicate/tools/litestream/go.mod) as a process of its own, restarts it when it
// dies, asks it how each replica is doing, and restores agents from their
// replicas.
//
// Litestream is never linked in: it uses modernc's SQLite and the daemon
// ncruces', and the POSIX locks of two SQLite libraries in one process do
// not see each other. Across processes both use the same locks and the
// same -shm file.
//
// Litestream owns the checkpoints. It holds a read transaction on each
// file at the WAL position it has copied, so no checkpoint can copy a frame
// it has not seen into the database; but while it is not running (before it
// starts, after a crash) any checkpoint could. So with replication on the
// store never checkpoints (store.Options.LeaveCheckpoints): no background
// checkpoint, none after a vacuum, none when a connection closes. Frames
// stay in the WAL until Litestream has copied them and checkpoints itself.
package replicate

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Target is where the replicas go: replication.* of the configuration.
type Target struct {
	URL          string // file:///dir or s3://bucket/prefix
	Endpoint     string // an S3-compatible store's URL; "" for AWS
	Region       string
	PathStyle    bool
	SyncInterval time.Duration
}

// AgentURL is the URL of one agent's replica, as Litestream reads it: the
// agent's file name under the target, with the S3 settings as its query.
// It holds no credentials (those come from the environment).
func (t Target) AgentURL(agent string) (string, error) {
	u, err := t.baseURL()
	if err != nil {
		return "", err
	}
	u.Path = path.Join("/", u.Path, agent+".db")
	return u.String(), nil
}

// baseURL is the target's URL with the S3 settings as Litestream's query
// parameters (s3/replica_client.go: endpoint, region, forcePathStyle).
func (t Target) baseURL() (*url.URL, error) {
	u, err := url.Parse(t.URL)
	if err != nil || (u.Scheme != "file" && u.Scheme != "s3") {
		return nil, fmt.Errorf("replication.url: want file:///dir or s3://bucket/prefix, got %q", t.URL)
	}
	if u.Scheme == "s3" {
		q := url.Values{}
		if t.Endpoint != "" {
			q.Set("endpoint", t.Endpoint)
		}
		if t.Region != "" {
			q.Set("region", t.Region)
		}
		if t.PathStyle {
			q.Set("forcePathStyle", "true")
		}
		u.RawQuery = q.Encode()
	}
	return u, nil
}

// Redacted is the target for logs and /health: the URL without its query.
func (t Target) Redacted() string {
	u, err := url.Parse(t.URL)
	if err != nil {
		return "(unparsable replication.url)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// Layout is where the replication's own files live under the data
// directory: Litestream's configuration, its control socket and its
// staging (the LTX files it keeps until they are shipped).
type Layout struct{ Dir string }

// NewLayout is the layout under dataDir.
func NewLayout(dataDir string) Layout { return Layout{Dir: filepath.Join(dataDir, "replication")} }

func (l Layout) Config() string { return filepath.Join(l.Dir, "litestream.yml") }
func (l Layout) Socket() string { return filepath.Join(l.Dir, "litestream.sock") }
func (l Layout) Meta() string   { return filepath.Join(l.Dir, "meta") }

// StagingBytes is the size of what Litestream keeps locally under Meta:
// while the store is away it grows with every write, and it empties once
// the store has taken them.
func (l Layout) StagingBytes() int64 {
	var n int64
	filepath.WalkDir(l.Meta(), func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// litestreamConfig is the part of Litestream's configuration file
// (cmd/litestream/main.go: Config, DBConfig, ReplicaConfig) Dormouse sets.
type litestreamConfig struct {
	// Addr is its metrics listener (Prometheus text at /metrics), where
	// the supervisor reads its counters; "" for none.
	Addr    string `yaml:"addr,omitempty"`
	Logging struct {
		Level  string `yaml:"level"`
		Type   string `yaml:"type"`
		Stderr bool   `yaml:"stderr"`
	} `yaml:"logging"`
	Socket struct {
		Enabled     bool   `yaml:"enabled"`
		Path        string `yaml:"path"`
		Permissions uint32 `yaml:"permissions"`
	} `yaml:"socket"`
	DBs []dbConfig `yaml:"dbs"`
}

type dbConfig struct {
	Dir     string `yaml:"dir"`
	Pattern string `yaml:"pattern"`
	Watch   bool   `yaml:"watch"`
	MetaDir string `yaml:"meta-dir"`
	// The checkpoints the store no longer makes: PASSIVE once the WAL
	// holds min-checkpoint-page-count pages (the store's own threshold
	// was 1,000 too) or every checkpoint-interval.
	CheckpointInterval string `yaml:"checkpoint-interval"`
	MinCheckpointPages int    `yaml:"min-checkpoint-page-count"`
	Replica            struct {
		URL          string `yaml:"url"`
		SyncInterval string `yaml:"sync-interval"`
	} `yaml:"replica"`
}

// configYAML is Litestream's configuration for every agent file in
// agentsDir: one directory entry, watched, so that agents created or
// deleted while it runs are picked up or dropped (a deleted agent's replica
// stays where it is), and its metrics served at metricsAddr.
func configYAML(t Target, agentsDir string, l Layout, metricsAddr string) ([]byte, error) {
	u, err := t.baseURL()
	if err != nil {
		return nil, err
	}
	var c litestreamConfig
	c.Addr = metricsAddr
	c.Logging.Level, c.Logging.Type, c.Logging.Stderr = "info", "text", true
	c.Socket.Enabled, c.Socket.Path, c.Socket.Permissions = true, l.Socket(), 0o600
	db := dbConfig{Dir: agentsDir, Pattern: "*.db", Watch: true, MetaDir: l.Meta(),
		CheckpointInterval: "1m", MinCheckpointPages: 1000}
	db.Replica.URL = u.String()
	db.Replica.SyncInterval = t.SyncInterval.String()
	c.DBs = []dbConfig{db}
	return yaml.Marshal(&c)
}

// writeConfig writes Litestream's configuration (0600: it names the
// bucket) and makes its directories.
func writeConfig(t Target, agentsDir string, l Layout, metricsAddr string) error {
	b, err := configYAML(t, agentsDir, l, metricsAddr)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(l.Meta(), 0o700); err != nil {
		return fmt.Errorf("replication: %w", err)
	}
	tmp := l.Config() + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return fmt.Errorf("replication: write litestream's configuration: %w", err)
	}
	return os.Rename(tmp, l.Config())
}

// SystemBinary is where the Debian package installs Litestream.
const SystemBinary = "/usr/lib/dormouse/litestream"

// FindBinary is the litestream binary to run: beside the running dormouse
// binary, else SystemBinary, else configured (replication.litestream).
func FindBinary(configured string) (string, error) {
	var tried []string
	if exe, err := os.Executable(); err == nil {
		tried = append(tried, filepath.Join(filepath.Dir(exe), "litestream"))
	}
	tried = append(tried, SystemBinary)
	if configured != "" {
		tried = append(tried, configured)
	}
	for _, p := range tried {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%w: looked for %s; build it with make build (bin/litestream) or set replication.litestream",
		ErrNoBinary, strings.Join(tried, ", "))
}

// ErrNoBinary is FindBinary's error when no litestream binary is found.
var ErrNoBinary = errors.New("no litestream binary")

// Environ is the environment given to Litestream: the daemon's, where the
// credentials are (AWS_* or LITESTREAM_*), without DORMOUSE_* settings.
func Environ(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "DORMOUSE_") {
			out = append(out, kv)
		}
	}
	return out
}
