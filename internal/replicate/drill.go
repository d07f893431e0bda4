package replicate

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/dormouse-dev/dormouse/internal/durable"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// RecoveryPoint is what replication may lag behind the live file (issue
// 28: a memory acknowledged this long ago is in the replica).
const RecoveryPoint = 10 * time.Second

// DrillOptions say which agents' replicas a drill restores.
type DrillOptions struct {
	Binary  string
	Target  Target
	Environ []string
	DataDir string
	Agents  []string
	Wait    time.Duration // between reading the live files and fetching; RecoveryPoint unless testing
}

// DrillResult is one agent's drill.
type DrillResult struct {
	Agent    string           `json:"agent"`
	At       time.Time        `json:"at"`
	OK       bool             `json:"ok"`
	Reason   string           `json:"reason,omitempty"`
	Live     store.FileCounts `json:"live"`
	Restored store.FileCounts `json:"restored"`
	Seconds  float64          `json:"seconds"`
}

// Drill restores each agent's latest replica into a temporary directory,
// checks its integrity and compares it with the live file, which it only
// reads. The recovery point is honest this way: the live files are read
// first, then the drill waits o.Wait before fetching, so every memory the
// live file had when the drill began was acknowledged at least that long
// before the fetch and must be in the replica. Memory ids only grow, so
// the restored file's last id must reach the live one's (memories forgotten
// meanwhile do not fail it, as a count would).
func Drill(ctx context.Context, o DrillOptions) []DrillResult {
	began := time.Now()
	res := make([]DrillResult, len(o.Agents))
	for i, a := range o.Agents {
		res[i] = DrillResult{Agent: a, At: began.UTC()}
		live, err := store.CountFile(ctx, filepath.Join(o.DataDir, "agents", a+".db"))
		if err != nil {
			res[i].Reason = "read the live file: " + err.Error()
		}
		res[i].Live = live
	}
	select {
	case <-time.After(o.Wait):
	case <-ctx.Done():
	}
	for i := range res {
		if res[i].Reason == "" {
			start := time.Now()
			res[i].Restored, res[i].Reason = drillOne(ctx, o, res[i].Agent, res[i].Live)
			res[i].Seconds = time.Since(start).Seconds()
		}
		res[i].OK = res[i].Reason == ""
	}
	return res
}

// drillOne fetches agent's replica into a directory of its own (0700,
// removed after) and returns its counts and why it fails, or "".
func drillOne(ctx context.Context, o DrillOptions, agent string, live store.FileCounts) (store.FileCounts, string) {
	parent := NewLayout(o.DataDir).Dir
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return store.FileCounts{}, err.Error()
	}
	dir, err := os.MkdirTemp(parent, "drill-")
	if err != nil {
		return store.FileCounts{}, err.Error()
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, agent+".db")
	if err := Fetch(ctx, o.Binary, o.Target, o.Environ, agent, out, time.Time{}); err != nil {
		return store.FileCounts{}, err.Error()
	}
	if err := store.CheckFile(ctx, out); err != nil {
		return store.FileCounts{}, err.Error()
	}
	got, err := store.CountFile(ctx, out)
	if err != nil {
		return got, err.Error()
	}
	if got.LastMemoryID < live.LastMemoryID {
		return got, fmt.Sprintf("the replica ends at memory %d, the live file had %d more than %s before: replication is behind its recovery point",
			got.LastMemoryID, live.LastMemoryID, o.Wait)
	}
	return got, ""
}

// DrillFile is where the last drill of each agent is kept, for /health.
func DrillFile(dataDir string) string { return filepath.Join(dataDir, "drill.json") }

// Drills is the content of DrillFile: the last drill per agent.
type Drills struct {
	Agents map[string]DrillResult `json:"agents"`
}

// ReadDrills reads DrillFile; no file is no drill yet.
func ReadDrills(dataDir string) (Drills, error) {
	d := Drills{Agents: map[string]DrillResult{}}
	b, err := os.ReadFile(DrillFile(dataDir))
	if errors.Is(err, fs.ErrNotExist) {
		return d, nil
	}
	if err == nil {
		err = json.Unmarshal(b, &d)
	}
	if err != nil {
		return d, fmt.Errorf("read the last drills: %w", err)
	}
	if d.Agents == nil {
		d.Agents = map[string]DrillResult{}
	}
	return d, nil
}

// RecordDrills keeps res as the last drills of their agents (replacing
// every agent's when all), atomically and 0600.
func RecordDrills(dataDir string, res []DrillResult, all bool) error {
	d, err := ReadDrills(dataDir)
	if err != nil || all {
		d = Drills{Agents: map[string]DrillResult{}}
	}
	for _, r := range res {
		d.Agents[r.Agent] = r
	}
	b, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return err
	}
	return durable.WriteFile(DrillFile(dataDir), append(b, '\n'))
}
