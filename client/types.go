package client

import (
	"encoding/json"
	"strconv"
	"time"
)

// MemoryInput is one memory to store. Only Content is required.
type MemoryInput struct {
	Content         string          `json:"content"`
	SessionID       string          `json:"session_id,omitempty"`
	Role            string          `json:"role,omitempty"`             // user, assistant, system, tool…
	InteractionType string          `json:"interaction_type,omitempty"` // conversation, document, observation…
	Context         json.RawMessage `json:"context,omitempty"`          // any JSON object, kept as given
	Importance      *float64        `json:"importance,omitempty"`       // 0..1; derived when absent
	Source          string          `json:"source,omitempty"`
	Timestamp       time.Time       `json:"-"` // when it happened; zero means now
}

// MarshalJSON writes Timestamp as RFC 3339, and leaves it out when zero.
func (m MemoryInput) MarshalJSON() ([]byte, error) {
	type plain MemoryInput
	var ts string
	if !m.Timestamp.IsZero() {
		ts = m.Timestamp.Format(time.RFC3339Nano)
	}
	return json.Marshal(struct {
		plain
		Timestamp string `json:"timestamp,omitempty"`
	}{plain(m), ts})
}

// Inserted is the outcome of storing one memory: its id, and whether it was
// a duplicate of one already stored (then ID is the existing memory's).
type Inserted struct {
	ID        int64 `json:"id"`
	Duplicate bool  `json:"duplicate,omitempty"`
}

// Entity is a name, handle, date, amount… found in a memory.
type Entity struct {
	Text string `json:"text"`
	Type string `json:"type"`
}

// Memory is a stored memory with what capture derived from it.
type Memory struct {
	ID              int64           `json:"id"`
	SessionID       string          `json:"session_id"`
	Timestamp       time.Time       `json:"timestamp"`
	InteractionType string          `json:"interaction_type"`
	Role            string          `json:"role"`
	Content         string          `json:"content"`
	Context         json.RawMessage `json:"context,omitempty"`
	Importance      float64         `json:"importance"`
	Source          string          `json:"source"`
	ContentHash     string          `json:"content_hash"`
	Summary         string          `json:"summary"`
	Entities        []Entity        `json:"entities"`
	Topics          []string        `json:"topics"`
	Consolidated    bool            `json:"consolidated"`
	ConsolidationID *int64          `json:"consolidation_id,omitempty"`
	CreatedAt       time.Time       `json:"created_at"`
	// Flagged: it says again what the user forgot or rejected; it is kept
	// but never recalled or consolidated.
	Flagged bool `json:"flagged,omitempty"`
	// SupersededBy is the memory that stated a new value of what this one
	// stated (a new phone number): it is kept, and offered as current only
	// to questions asked before its successor.
	SupersededBy *int64 `json:"superseded_by,omitempty"`
	// SharedFrom names the memory this one is a shared copy of; nil for
	// the agent's own.
	SharedFrom *Provenance `json:"shared_from,omitempty"`
}

// Provenance names a memory in an agent: what a shared copy was made from.
type Provenance struct {
	Agent string `json:"agent"`
	ID    int64  `json:"id"`
}

// String is the provenance as a citation: "assistant/memory:12".
func (p Provenance) String() string { return p.Agent + "/memory:" + strconv.FormatInt(p.ID, 10) }

// ShareRequest is the body of POST /v1/agents/{agent}/memories/{id}/share.
type ShareRequest struct {
	To string `json:"to"` // the agent to copy the memory into
}

// Shared is a share's answer: the copy in agent Agent, the memory it was
// made from, and whether it was there already (a second share of the same
// memory to the same agent makes no new copy).
type Shared struct {
	Agent      string     `json:"agent"`
	ID         int64      `json:"id"`
	SharedFrom Provenance `json:"shared_from"`
	Existing   bool       `json:"existing"`
}

// ListOptions select a page of memories, newest first. Zero fields select
// everything; Limit 0 means the server's default (50).
type ListOptions struct {
	Since, Until time.Time
	SessionID    string // only this session's memories
	Limit        int
	Cursor       string // NextCursor of the previous page
	// Deprecated: Session is SessionID's old name (the ?session= parameter),
	// taken for one release.
	Session string
}

// MemoryPage is a page of memories. NextCursor is empty on the last page.
type MemoryPage struct {
	Memories   []Memory `json:"memories"`
	NextCursor string   `json:"next_cursor,omitempty"`
}

// RecallRequest asks for the context relevant to Query. Zero fields take
// the server's defaults.
type RecallRequest struct {
	Query        string    `json:"query"`
	BudgetTokens int       `json:"budget_tokens,omitempty"` // most tokens of context to return
	K            int       `json:"k,omitempty"`             // most items to return
	AsOf         time.Time `json:"-"`                       // the question's time: nothing newer is returned
	Since        time.Time `json:"-"`
	Until        time.Time `json:"-"`
	SessionID    string    `json:"session_id,omitempty"` // only this session's memories
	Role         string    `json:"role,omitempty"`       // only memories with this role
	Source       string    `json:"source,omitempty"`     // only memories from this source
	Entity       string    `json:"entity,omitempty"`     // only memories naming this entity
	Explain      bool      `json:"explain,omitempty"`    // attach each item's score parts
	// Deprecated: Session is SessionID's old name, taken for one release.
	Session string `json:"session,omitempty"`
}

// MarshalJSON writes the times as RFC 3339, leaving zero ones out.
func (r RecallRequest) MarshalJSON() ([]byte, error) {
	type plain RecallRequest
	return json.Marshal(struct {
		plain
		AsOf  string `json:"as_of,omitempty"`
		Since string `json:"since,omitempty"`
		Until string `json:"until,omitempty"`
	}{plain(r), rfc3339(r.AsOf), rfc3339(r.Since), rfc3339(r.Until)})
}

func rfc3339(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339Nano)
}

// RecallItem is one cited piece of context.
type RecallItem struct {
	ID        string    `json:"id"`              // the citation: memory:42, consolidation:3, fact:7; household/memory:42 from a granted agent
	Agent     string    `json:"agent,omitempty"` // the granted agent it comes from; "": the reader's own
	Kind      string    `json:"kind"`            // memory, consolidation or fact
	Text      string    `json:"text"`
	Score     float64   `json:"score"`
	Timestamp time.Time `json:"timestamp"`
	SessionID string    `json:"session_id,omitempty"`
	Role      string    `json:"role,omitempty"`
	Tokens    int       `json:"tokens"`
	Origin    string    `json:"origin,omitempty"`  // a shared copy's original: "assistant/memory:12"
	Explain   *Explain  `json:"explain,omitempty"` // with RecallRequest.Explain
}

// Explain is why an item ranked where it did: the parts of its score.
type Explain struct {
	Relevance   float64 `json:"relevance"`             // BM25 against the query's words, relative to the best match
	Expansion   float64 `json:"expansion,omitempty"`   // BM25 against related words (concepts, feedback)
	ByKind      float64 `json:"by_kind,omitempty"`     // BM25 of the question's words against the kinds of thing its words name
	Coverage    float64 `json:"coverage"`              // share of the query's words the item holds
	Importance  float64 `json:"importance"`            // as stored (confidence for facts)
	Use         float64 `json:"use,omitempty"`         // how often a fact was offered before: log2(1+count)/5, at most 1
	Recency     float64 `json:"recency"`               // 1 now, 0.5 one half-life ago
	Speaker     float64 `json:"speaker,omitempty"`     // the question names who said it
	Entity      float64 `json:"entity,omitempty"`      // the item names an entity the question names
	InRange     float64 `json:"in_range,omitempty"`    // inside the question's date range
	Neighbour   float64 `json:"neighbour,omitempty"`   // score passed on from an adjacent turn
	DayRecord   float64 `json:"day_record,omitempty"`  // its day's record matched the question
	Context     float64 `json:"context,omitempty"`     // relevance of the turns beside it
	Semantic    float64 `json:"semantic,omitempty"`    // similarity of its embedding to the question's (optional arm)
	Informative float64 `json:"informative,omitempty"` // how likely its text states something rather than chats (memories)
	Asks        float64 `json:"asks,omitempty"`        // 1: a turn of someone the question does not ask about that ends by asking
	Pinned      bool    `json:"pinned,omitempty"`      // offered as a critical memory
	Total       float64 `json:"total"`
}

// RecallResult is the ranked items and the context assembled from them, one
// line per item, each starting with its citation ("[memory:42] …").
type RecallResult struct {
	Items   []RecallItem `json:"items"`
	Context string       `json:"context"`
	Tokens  int          `json:"tokens"`
	// Found is false when nothing stored matches the question well enough
	// (Items then holds at most the pinned profile); Note says why.
	Found bool   `json:"found"`
	Note  string `json:"note,omitempty"`
}

// Fact is a claim about an entity, with where it came from and, with
// history, what it replaced or what replaced it.
type Fact struct {
	ID                     int64      `json:"id"`
	Entity                 string     `json:"entity"`
	EntityType             string     `json:"entity_type"`
	Attribute              string     `json:"attribute"`
	Value                  string     `json:"value,omitempty"`
	FactType               string     `json:"fact_type"`
	Content                string     `json:"content"`
	Confidence             float64    `json:"confidence"`
	SourceMemoryIDs        []int64    `json:"source_memory_ids"`
	SourceConsolidationIDs []int64    `json:"source_consolidation_ids"`
	ValidFrom              time.Time  `json:"valid_from"`
	ValidTo                *time.Time `json:"valid_to,omitempty"`
	SupersededBy           *int64     `json:"superseded_by,omitempty"`
	Rejected               bool       `json:"rejected"`
	CreatedAt              time.Time  `json:"created_at"`
	LastAccessed           *time.Time `json:"last_accessed,omitempty"`
	AccessCount            int64      `json:"access_count"`
}

// FactsOptions select facts. The zero value lists the current facts.
type FactsOptions struct {
	Entity  string    // only this entity's facts
	History bool      // superseded and rejected facts too
	AsOf    time.Time // the facts that held at this time
	Limit   int       // 0: the server's default (1000)
}

// Consolidation is the record of one consolidated day.
type Consolidation struct {
	ID        int64           `json:"id"`
	Date      string          `json:"date"` // YYYY-MM-DD in the server's time zone
	Summary   string          `json:"summary"`
	KeyFacts  json.RawMessage `json:"key_facts"`
	Entities  json.RawMessage `json:"entities"`
	Topics    json.RawMessage `json:"topics"`
	Insights  json.RawMessage `json:"insights"`
	SourceIDs []int64         `json:"source_ids"`
	Model     string          `json:"model"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// ConsolidationsOptions select day records by date (YYYY-MM-DD, inclusive).
type ConsolidationsOptions struct {
	Since, Until string
	Limit        int // 0: the server's default (100)
}

// ConsolidateRequest asks for a consolidation. With neither Date nor Since,
// every past day with unconsolidated memories is consolidated.
type ConsolidateRequest struct {
	Date   string `json:"date,omitempty"`  // rebuild this one day (YYYY-MM-DD)
	Since  string `json:"since,omitempty"` // the days from Since to yesterday
	DryRun bool   `json:"dry_run,omitempty"`
}

// Run is the record of one day's consolidation run.
type Run struct {
	ID              int64     `json:"id"`
	Day             string    `json:"day"`
	StartedAt       time.Time `json:"started_at"`
	FinishedAt      time.Time `json:"finished_at"`
	Provider        string    `json:"provider"`
	Model           string    `json:"model"`
	Calls           int       `json:"calls"`
	TokensIn        int       `json:"tokens_in"`
	TokensOut       int       `json:"tokens_out"`
	DurationMS      int64     `json:"duration_ms"`
	Status          string    `json:"status"`
	Error           string    `json:"error,omitempty"`
	ConsolidationID *int64    `json:"consolidation_id,omitempty"`
	Memories        int       `json:"memories"`
	Facts           int       `json:"facts"`
	Holder          string    `json:"holder,omitempty"` // the process that ran it
}

// ConsolidateResult is what a consolidation did, or with DryRun its Plan.
type ConsolidateResult struct {
	Agent string `json:"agent"`
	Runs  []Run  `json:"runs"`
	Plan  *Plan  `json:"plan,omitempty"`
	// Retention is what retention did after the runs, when it is on.
	Retention *RetentionResult `json:"retention,omitempty"`
}

// RetentionResult is what pruning old raw memories did for an agent.
type RetentionResult struct {
	Agent  string `json:"agent"`
	Pruned struct {
		Days     int `json:"days"`
		Memories int `json:"memories"`
	} `json:"pruned"`
	Vacuum struct {
		Converted   bool  `json:"converted"` // rewritten once to allow incremental vacuum
		FreedPages  int64 `json:"freed_pages"`
		BytesBefore int64 `json:"bytes_before"`
		BytesAfter  int64 `json:"bytes_after"`
	} `json:"vacuum"`
}

// Plan is what a consolidation would do.
type Plan struct {
	Provider string    `json:"provider"`
	Model    string    `json:"model"`
	Days     []DayPlan `json:"days"`
}

// DayPlan is one day of a Plan.
type DayPlan struct {
	Day             string `json:"day"`
	Memories        int    `json:"memories"`
	Unconsolidated  int    `json:"unconsolidated"`
	Chunks          int    `json:"chunks"`
	Calls           int    `json:"calls"` // model calls; the offline consolidator makes none
	EstimatedTokens int    `json:"estimated_tokens"`
}

// Stats are an agent's counts and file sizes.
type Stats struct {
	Agent            string     `json:"agent"`
	Memories         int64      `json:"memories"`
	Unconsolidated   int64      `json:"unconsolidated"`
	Consolidations   int64      `json:"consolidations"`
	Facts            int64      `json:"facts"`
	CurrentFacts     int64      `json:"current_facts"`
	Oldest           *time.Time `json:"oldest,omitempty"`
	Newest           *time.Time `json:"newest,omitempty"`
	LastConsolidated string     `json:"last_consolidated_date,omitempty"`
	DBBytes          int64      `json:"db_bytes"`
	WALBytes         int64      `json:"wal_bytes"`
	SchemaVersion    int        `json:"schema_version"`
}

// Health is the daemon's judged state ("ok", "degraded" or "failing"), why,
// and the readings it was judged on.
type Health struct {
	State   string        `json:"state"`
	Reasons []string      `json:"reasons"`
	At      time.Time     `json:"at"`
	System  HealthSystem  `json:"system"`
	Agents  []HealthAgent `json:"agents"`
	// Provider is the LLM provider's reachability, from a rate-limited probe.
	Provider *HealthProvider `json:"provider,omitempty"`
	// Embeddings is the background embedder's state; absent when semantic recall is off.
	Embeddings *HealthEmbeddings `json:"embeddings,omitempty"`
	// Replication is the agents' replicas off the box; absent when replication.url is not set.
	Replication *HealthReplication `json:"replication,omitempty"`
	Errors      []string           `json:"errors,omitempty"` // readings that could not be taken
}

// HealthReplication is Litestream, which the daemon runs to replicate every agent's file.
type HealthReplication struct {
	Target      string          `json:"target"` // the replica's URL without its query
	Running     bool            `json:"running"`
	DownSince   *time.Time      `json:"down_since,omitempty"`
	Restarts    int             `json:"restarts"`
	LastError   string          `json:"last_error,omitempty"`
	LastErrorAt *time.Time      `json:"last_error_at,omitempty"`
	Agents      []HealthReplica `json:"agents"`
}

// HealthReplica is one agent's replica.
type HealthReplica struct {
	Agent      string       `json:"agent"`
	State      string       `json:"state"`       // replicating, open, stopped, or waiting (not picked up yet)
	LagSeconds float64      `json:"lag_seconds"` // how long the oldest acknowledged write not yet shipped has waited
	LastSync   *time.Time   `json:"last_sync,omitempty"`
	LastError  string       `json:"last_error,omitempty"`
	LastDrill  *HealthDrill `json:"last_drill,omitempty"` // nil before the first restore drill
	// Litestream's counters of the agent's file since it last started; absent when they could not be read.
	SyncErrors *int64 `json:"sync_errors,omitempty"` // failed copies of the WAL into its staging
	WALBytes   *int64 `json:"wal_bytes,omitempty"`   // WAL bytes copied for the replica
}

// HealthDrill is an agent's last restore drill (dormouse restore --drill).
type HealthDrill struct {
	At     time.Time `json:"at"`
	OK     bool      `json:"ok"`
	Reason string    `json:"reason,omitempty"` // why it failed
}

// HealthEmbeddings is the background embedder of the optional semantic arm of recall.
type HealthEmbeddings struct {
	Model       string     `json:"model"`
	Backlog     int64      `json:"backlog"` // memories without a vector, every agent
	LastSuccess *time.Time `json:"last_success,omitempty"`
	Error       string     `json:"error,omitempty"` // the last pass's failure
}

// HealthSystem are the host's readings.
type HealthSystem struct {
	CPUPercent    *float64 `json:"cpu_percent"`
	Load1         float64  `json:"load1"`
	Load5         float64  `json:"load5"`
	Load15        float64  `json:"load15"`
	MemUsedBytes  uint64   `json:"mem_used_bytes"`
	MemTotalBytes uint64   `json:"mem_total_bytes"`
	SwapUsedBytes uint64   `json:"swap_used_bytes"`
	SwapTotal     uint64   `json:"swap_total_bytes"`
	DiskPath      string   `json:"disk_path"`
	DiskUsedBytes uint64   `json:"disk_used_bytes"`
	DiskTotal     uint64   `json:"disk_total_bytes"`
	DiskPercent   float64  `json:"disk_percent"`
	TemperatureC  *float64 `json:"temperature_c"`
	UptimeSeconds uint64   `json:"uptime_seconds"`
}

// HealthAgent are one agent's readings.
type HealthAgent struct {
	Name                 string         `json:"name"`
	DBBytes              int64          `json:"db_bytes"`
	WALBytes             int64          `json:"wal_bytes"`
	Memories             int64          `json:"memories"`
	Backlog              int64          `json:"backlog"` // unconsolidated memories
	OldestUnconsolidated *time.Time     `json:"oldest_unconsolidated,omitempty"`
	LastConsolidated     string         `json:"last_consolidated_date,omitempty"`
	LastSuccess          *time.Time     `json:"last_success,omitempty"`
	LastSuccessAgeHours  *float64       `json:"last_success_age_hours,omitempty"`
	LastFailure          *HealthFailure `json:"last_failure,omitempty"`
	// Consolidation sums the agent's consolidation runs.
	Consolidation *HealthRuns `json:"consolidation_runs,omitempty"`
	// FailingFiles are watched files whose last attempt failed, as "root/path: error".
	FailingFiles []string `json:"failing_files,omitempty"`
	// Unavailable says why the agent cannot be used at all (a corrupt file) and how to restore it.
	Unavailable string `json:"unavailable,omitempty"`
	// StorageFull is set while the agent's writes fail because the disk is full.
	StorageFull bool `json:"storage_full,omitempty"`
}

// HealthFailure is an agent's last failed consolidation.
type HealthFailure struct {
	Day   string    `json:"day"`
	At    time.Time `json:"at"`
	Error string    `json:"error,omitempty"`
}

// HealthProvider is the LLM provider's reachability.
type HealthProvider struct {
	Name      string    `json:"name"`
	Reachable bool      `json:"reachable"`
	NotProbed bool      `json:"not_probed,omitempty"` // no cheap probe exists for it: not judged
	Error     string    `json:"error,omitempty"`
	CheckedAt time.Time `json:"checked_at"`
}

// HealthRuns sums an agent's consolidation runs.
type HealthRuns struct {
	ByStatus  map[string]int64 `json:"by_status"` // runs per status (ok, failed, partial)
	TokensIn  int64            `json:"tokens_in"`
	TokensOut int64            `json:"tokens_out"`
}
