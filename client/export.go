package client

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
)

// CreatedAgent is the answer to POST /v1/agents.
type CreatedAgent struct {
	Agent   string `json:"agent"`
	Created bool   `json:"created"` // false: it existed already
}

// DeletedAgent is the answer to DELETE /v1/agents/{agent}.
type DeletedAgent struct {
	Agent       string   `json:"agent"`
	Backup      string   `json:"backup"` // the verified backup taken before anything was removed
	BackupBytes int64    `json:"backup_bytes"`
	Removed     []string `json:"removed"` // the files removed, the database last
}

// Imported is the answer to POST /v1/agents/{agent}/import.
type Imported struct {
	Agent   string         `json:"agent"`
	Created bool           `json:"created"` // the import made the agent
	Merged  bool           `json:"merged"`
	Records map[string]int `json:"records"` // per record type
}

// ExportContentType is the media type of an export and of an import's body:
// JSON lines.
const ExportContentType = "application/x-ndjson"

// ExportHeader is the first line of an export.
type ExportHeader struct {
	Type   string `json:"type"`   // "dormouse-export"
	Format int    `json:"format"` // 1
	Schema int    `json:"schema"` // the agent file's schema version
	Agent  string `json:"agent"`
}

// ExportRecord is one line of an export after the header: its type
// ("memory", "day", "fact", "profile_line", "run", "forgotten", "embedding",
// "pruned_day", "tracked_file", "rebuild_day", "sequence") and its fields, named as the
// agent file's columns are.
type ExportRecord struct {
	Type   string
	Fields map[string]json.RawMessage
}

// UnmarshalJSON reads one export line.
func (r *ExportRecord) UnmarshalJSON(b []byte) error {
	if err := json.Unmarshal(b, &r.Fields); err != nil {
		return err
	}
	if err := json.Unmarshal(r.Fields["type"], &r.Type); err != nil || r.Type == "" {
		return fmt.Errorf("export record without a type")
	}
	delete(r.Fields, "type")
	return nil
}

// CreateAgent creates the agent name (the only way to when the daemon has
// agents.create: explicit, and after the agent was deleted).
func (c *Client) CreateAgent(ctx context.Context, name string) (CreatedAgent, error) {
	var out CreatedAgent
	err := c.Do(ctx, http.MethodPost, "/v1/agents", map[string]string{"name": name}, &out)
	return out, err
}

// DeleteAgent backs up the agent, then deletes it and its files.
func (c *Client) DeleteAgent(ctx context.Context, name string) (DeletedAgent, error) {
	var out DeletedAgent
	err := c.Do(ctx, http.MethodDelete, agentPath(name), nil, &out)
	return out, err
}

// Export streams the agent's export (JSON lines) into w.
func (c *Client) Export(ctx context.Context, agent string, w io.Writer) error {
	path := agentPath(agent, "/export")
	req, err := c.request(ctx, http.MethodGet, path, "", nil)
	if err != nil {
		return err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("GET %s: %w", path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 400 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		return apiError(http.MethodGet, path, resp.StatusCode, data, resp.Header)
	}
	if _, err := io.Copy(w, resp.Body); err != nil {
		return fmt.Errorf("GET %s: read the export: %w", path, err)
	}
	return nil
}

// ImportOptions say how an import meets an agent that is not empty.
type ImportOptions struct {
	Merge bool // add to what the agent holds; without it a non-empty agent is refused
}

// Import streams an export (JSON lines) to be imported into agent, all of it
// or, on a bad record, nothing (an APIError naming the line). An export that
// is an io.Seeker (a file) is rewound for a retry; any other is sent once.
func (c *Client) Import(ctx context.Context, agent string, export io.Reader, o ImportOptions) (Imported, error) {
	path := agentPath(agent, "/import")
	if o.Merge {
		path += query("merge", "true")
	}
	var out Imported
	err := c.DoBody(ctx, http.MethodPost, path, ExportContentType, export, &out)
	return out, err
}
