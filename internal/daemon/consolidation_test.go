package daemon

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/store"
)

func TestConsolidationEngineChoosesTheProvider(t *testing.T) {
	st, err := store.Open(t.Context(), store.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	log := slog.New(slog.DiscardHandler)

	cfg := config.Default()
	e, err := ConsolidationEngine(t.Context(), cfg, nil, st, log)
	if err != nil || e.Consolidator.Provider() != "offline" || e.ChunkTokens != cfg.Consolidate.ChunkTokens {
		t.Errorf("offline: %+v, %v", e, err)
	}

	cfg.LLM.Provider, cfg.LLM.BaseURL, cfg.LLM.ContextWindow, cfg.LLM.MaxTokens = "ollama", "http://127.0.0.1:1", 4096, 1024
	e, err = ConsolidationEngine(t.Context(), cfg, nil, st, log)
	if err != nil {
		t.Fatal(err)
	}
	c, ok := e.Consolidator.(consolidate.LLM)
	if !ok || c.Provider() != "ollama" || c.Model() != "llama3.2" {
		t.Fatalf("ollama: consolidator %#v", e.Consolidator)
	}
	if e.ChunkTokens != c.ChunkTokens() || e.ChunkTokens >= 4096-1024 || e.ChunkTokens < 1000 {
		t.Errorf("chunk tokens = %d, want what fits a 4096-token context beside a 1024-token answer", e.ChunkTokens)
	}

	cfg.LLM.Provider, cfg.LLM.BaseURL = "anthropic", ""
	if _, err := ConsolidationEngine(t.Context(), cfg, []string{"OPENAI_API_KEY=sk-x"}, st, log); err == nil ||
		!strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Errorf("anthropic without a key: error %v, want one naming ANTHROPIC_API_KEY", err)
	}
}
