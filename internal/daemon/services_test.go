package daemon

import (
	"errors"
	"reflect"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/store"
)

func openServices(t *testing.T, cfg config.Config, environ []string) *Services {
	t.Helper()
	cfg.DataDir = t.TempDir()
	s, err := Open(t.Context(), cfg, environ, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestServicesShareOnePart: the answerer recalls with the one recall engine
// (semantic arm and all), the API is built over the same parts, and the one
// health monitor probes the provider and reports the embedder.
func TestServicesShareOnePart(t *testing.T) {
	cfg := config.Default()
	cfg.LLM.Provider, cfg.LLM.BaseURL = "ollama", "http://127.0.0.1:1"
	cfg.Recall.Embeddings.Enabled = true
	s := openServices(t, cfg, nil)
	for _, err := range []error{s.ConsolidateErr, s.AnswerErr, s.EmbedErr, s.VisionErr} {
		if err != nil {
			t.Fatalf("a part is degraded: %v", err)
		}
	}
	if s.Answer.Recall != s.Recall || s.Answer.Model == nil {
		t.Errorf("answerer recalls with %p and model %v; want the services' engine %p and the model", s.Answer.Recall, s.Answer.Model, s.Recall)
	}
	if s.Recall.Semantic == nil || s.Recall.Tuning.Semantic != cfg.Recall.Embeddings.Weight {
		t.Errorf("recall engine without the semantic arm: %+v", s.Recall)
	}
	host, ok := s.Health.Collector.(*health.Host)
	if !ok || host.Provider == nil || host.Embeddings != s.Embedder || s.Embedder == nil {
		t.Errorf("health collector %+v; want the provider probed and the services' embedder", s.Health.Collector)
	}
	o := s.ServerOptions()
	if o.Answer != s.Answer || o.Health != s.Health || o.Consolidate != s.Consolidate || o.Files != s.Watchers.Ingester() {
		t.Errorf("server options are not the services' parts: %+v", o)
	}
	if s.Rebuilder == nil || s.Rebuilder.Engine != s.Consolidate {
		t.Errorf("rebuilder %+v; want one over the services' consolidation", s.Rebuilder)
	}
}

// TestServicesDegradeWithoutAKey: a provider without its API key leaves the
// store, recall and an extractive answerer working, and says why; the API
// then has no consolidator (not a nil engine it would call).
func TestServicesDegradeWithoutAKey(t *testing.T) {
	cfg := config.Default()
	cfg.LLM.Provider = "openai"
	s := openServices(t, cfg, []string{"PATH=/usr/bin"})
	if s.ConsolidateErr == nil || s.AnswerErr == nil || s.Consolidate != nil || s.Rebuilder != nil {
		t.Fatalf("consolidation %v (%v), answers (%v): want both to fail without a key", s.Consolidate, s.ConsolidateErr, s.AnswerErr)
	}
	if s.Answer == nil || s.Answer.Model != nil || s.Answer.Recall != s.Recall {
		t.Errorf("answerer %+v; want an extractive one over the services' engine", s.Answer)
	}
	if o := s.ServerOptions(); o.Consolidate != nil {
		t.Errorf("server options consolidate with %#v; want none", o.Consolidate)
	}
	if err := s.Store.With(t.Context(), "main", true, func(*store.Agent) error { return nil }); err != nil {
		t.Errorf("the store: %v", err)
	}
}

// TestServicesCloseInReverse: Close releases the last opened first, the
// store last, returns every error, and a second Close does nothing.
func TestServicesCloseInReverse(t *testing.T) {
	s := openServices(t, config.Default(), nil)
	var order []int
	errA, errB := errors.New("a"), errors.New("b")
	s.OnClose(func() error { order = append(order, 1); return errA })
	s.OnClose(func() error { order = append(order, 2); return nil })
	s.OnClose(func() error {
		order = append(order, 3)
		if err := s.Store.With(t.Context(), "main", true, func(*store.Agent) error { return nil }); err != nil {
			t.Errorf("the store was closed before what was opened after it: %v", err)
		}
		return errB
	})
	err := s.Close()
	if !reflect.DeepEqual(order, []int{3, 2, 1}) || !errors.Is(err, errA) || !errors.Is(err, errB) {
		t.Errorf("Close ran %v and returned %v; want 3, 2, 1 and both errors", order, err)
	}
	if err := s.Store.With(t.Context(), "main", false, func(*store.Agent) error { return nil }); !errors.Is(err, store.ErrStoreClosed) {
		t.Errorf("after Close the store answers %v; want it closed", err)
	}
	if err := s.Close(); err != nil || len(order) != 3 {
		t.Errorf("a second Close: %v, ran %v", err, order)
	}
}
