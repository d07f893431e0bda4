package daemon

import (
	"context"
	"log/slog"

	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/recall"
)

// Answerer maps the configuration onto the answerer of POST /ask, which
// recalls with eng: with the offline provider extractive, otherwise the
// configured model (its own client, with its own budget counter, so answers
// and the night's consolidation do not spend each other's calls). A model
// that cannot be set up is the error, beside an extractive answerer.
func Answerer(ctx context.Context, cfg config.Config, environ []string, eng *recall.Engine, log *slog.Logger) (*answer.Answerer, error) {
	a := &answer.Answerer{Recall: eng}
	if cfg.LLM.Provider == "offline" {
		return a, nil
	}
	client, err := llm.New(ctx, LLMConfig(cfg, environ, log))
	if err != nil {
		return a, err
	}
	a.Model = client
	return a, nil
}
