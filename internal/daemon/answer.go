package daemon

import (
	"context"
	"log/slog"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/llm"
)

// Answerer maps the configuration onto the answerer of POST /ask: with the
// offline provider extractive, otherwise the configured model (its own
// client, with its own budget counter, so answers and the night's
// consolidation do not spend each other's calls).
func Answerer(ctx context.Context, cfg config.Config, environ []string, log *slog.Logger) (*answer.Answerer, error) {
	a := &answer.Answerer{Recall: RecallEngine(cfg)}
	a.Recall.Logger = log
	if cfg.LLM.Provider == "offline" {
		return a, nil
	}
	client, err := llm.New(ctx, LLMConfig(cfg, environ, log))
	if err != nil {
		return nil, err
	}
	a.Model = client
	return a, nil
}
