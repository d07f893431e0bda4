package health

import "time"

// Embeddings is the state of the background embedder (the optional semantic
// arm of recall): how many memories still wait for a vector, and the last
// failure of the provider, if it is failing.
type Embeddings struct {
	Model       string     `json:"model"`
	Backlog     int64      `json:"backlog"` // memories without a vector, every agent
	LastSuccess *time.Time `json:"last_success,omitempty"`
	Error       string     `json:"error,omitempty"` // the last pass's failure; "" once one succeeds
}
