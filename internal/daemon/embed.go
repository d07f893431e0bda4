package daemon

import (
	"log/slog"
	"time"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/embed"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// EmbedWorker builds the background embedder of the optional semantic arm
// of recall (recall.embeddings), or nil when it is off. Its embedder is the
// one questions are embedded with too (SemanticRecall), so one circuit
// breaker keeps both from waiting on a provider that is down.
func EmbedWorker(cfg config.Config, environ []string, st *store.Store, log *slog.Logger) (*embed.Worker, error) {
	ec := cfg.Recall.Embeddings
	if !ec.Enabled {
		return nil, nil
	}
	lc := LLMConfig(cfg, environ, log)
	lc.Model, lc.Budget = ec.Model, nil // the night's budget is consolidation's
	e, err := llm.NewEmbedder(lc)
	if err != nil {
		return nil, err
	}
	return &embed.Worker{Store: st, Embedder: e, Batch: ec.Batch, Logger: log.With("component", "embed")}, nil
}

// SemanticRecall turns on eng's semantic arm with w's model, weighed as
// configured.
func SemanticRecall(cfg config.Config, eng *recall.Engine, w *embed.Worker) {
	if w == nil {
		return
	}
	eng.Semantic = embed.Query{Embedder: w.Embedder, Timeout: embed.QueryTimeout}
	eng.Tuning.Semantic = cfg.Recall.Embeddings.Weight
}

// embedEvery is how often the worker looks for memories without a vector
// when no write nudges it.
const embedEvery = 5 * time.Second
