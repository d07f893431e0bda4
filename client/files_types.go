package client

import "time"

// Answer is an answer to a question with the context it came from.
type Answer struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	// Citations are the items the answer cites ("memory:42"…), in order of
	// first use; each is one of Items.
	Citations []string `json:"citations"`
	// Dropped are citations the model wrote that named no item of the
	// context; they were removed from the answer.
	Dropped []string `json:"dropped_citations,omitempty"`
	// Abstained is true when nothing recalled addresses the question (recall
	// found nothing, or only pinned items about something else), so nothing
	// was said: Answer is "Nothing stored answers this." and Citations empty.
	Abstained bool   `json:"abstained"`
	Provider  string `json:"provider"` // "offline" or provider/model
	// Note names the granted agents whose items were left out, and why (a token that does not cover them).
	Note string `json:"note,omitempty"`
	// The recalled context, as Recall returns it.
	Items   []RecallItem `json:"items"`
	Context string       `json:"context"`
	Tokens  int          `json:"tokens"`
	// Usage is what the model calls cost; nil for an offline answer.
	Usage *AnswerUsage `json:"usage,omitempty"`
}

// AnswerUsage counts an answer's model calls and tokens.
type AnswerUsage struct {
	Calls     int `json:"Calls"`
	TokensIn  int `json:"TokensIn"`
	TokensOut int `json:"TokensOut"`
}

// FileOutcome is what the file pipeline did with one file.
type FileOutcome struct {
	Path     string `json:"path"`
	Status   string `json:"status"` // ok, skipped, failed or unchanged
	Error    string `json:"error,omitempty"`
	Parts    int    `json:"parts"`    // parts the file was split into
	Inserted int    `json:"inserted"` // new memories stored
	Reused   bool   `json:"reused,omitempty"`
	Retired  int    `json:"retired,omitempty"` // memories of the file's old content retired
	// Refreshed counts memories rewritten in place: an image described since it was stored.
	Refreshed int `json:"refreshed,omitempty"`
}

// ScanResult counts what one scan of a watched folder did.
type ScanResult struct {
	Path      string    `json:"path"`
	Agent     string    `json:"agent"`
	Started   time.Time `json:"started"`
	Duration  string    `json:"duration"`
	Seen      int       `json:"seen"`      // candidate files found
	Unchanged int       `json:"unchanged"` // already up to date
	Ingested  int       `json:"ingested"`  // files whose memories were stored or reused
	Memories  int       `json:"memories"`  // memories stored
	Skipped   int       `json:"skipped"`
	Failed    int       `json:"failed"`
	Removed   int       `json:"removed"`             // tracked files gone
	Retired   int       `json:"retired"`             // memories retired
	Described int       `json:"described,omitempty"` // images stored before a vision model, described now
}

// WatchStatus is every watched folder and every failing file.
type WatchStatus struct {
	Folders []WatchFolder `json:"folders"`
	Failing []FailingFile `json:"failing"`
}

// WatchFolder is one watched folder's state.
type WatchFolder struct {
	Path         string        `json:"path"`
	Agent        string        `json:"agent"`
	Mode         string        `json:"mode"`
	Watching     bool          `json:"watching"` // inotify events arrive (else only rescans see changes)
	WatchedDirs  int           `json:"watched_dirs"`
	WatchError   string        `json:"watch_error,omitempty"`
	Error        string        `json:"error,omitempty"` // the folder itself cannot be read
	Pending      int           `json:"pending"`
	LastScan     *ScanResult   `json:"last_scan,omitempty"`
	RescanEvery  time.Duration `json:"rescan_every_ns"`
	FilesTracked int           `json:"files_tracked"`
}

// FailingFile is a tracked file whose last attempt failed.
type FailingFile struct {
	Agent     string    `json:"agent"`
	Root      string    `json:"root"` // the watched folder, or "upload:"
	Path      string    `json:"path"`
	SHA256    string    `json:"sha256"`
	Size      int64     `json:"size"`
	MTime     time.Time `json:"mtime"`
	Status    string    `json:"status"`
	Error     string    `json:"error,omitempty"`
	Attempts  int       `json:"attempts,omitempty"`
	NextRetry time.Time `json:"next_retry,omitzero"`
	Memories  int       `json:"memories"`
	UpdatedAt time.Time `json:"updated_at"`
	// Undescribed: an image stored with its metadata only, which a vision model may now describe.
	Undescribed bool `json:"undescribed,omitempty"`
}

// MemoryOrigin is where a memory from a file came from.
type MemoryOrigin struct {
	FileHash  string     `json:"file_hash,omitempty"` // "" for a memory not from a file
	RetiredAt *time.Time `json:"retired_at,omitempty"`
	Paths     []string   `json:"paths,omitempty"` // "root/path" of every tracked file holding that content now
}
