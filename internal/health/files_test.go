package health

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

func TestHostListsFailingFiles(t *testing.T) {
	ctx := context.Background()
	st, err := store.Open(ctx, store.Options{Dir: t.TempDir(), Location: time.UTC})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	err = st.With(ctx, "main", true, func(a *store.Agent) error {
		_, err := a.CommitFile(ctx, store.FileChange{Root: "/srv/vault", Path: "bad.json", Status: store.FileFailed,
			Error: "parse JSON: unexpected end of JSON input", RetryBase: time.Minute})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	r := (&Host{Store: st, Location: time.UTC}).Collect(ctx)
	if len(r.Agents) != 1 {
		t.Fatalf("Collect() = %+v", r)
	}
	want := []string{"/srv/vault/bad.json: parse JSON: unexpected end of JSON input"}
	if got := r.Agents[0].FailingFiles; !slices.Equal(got, want) {
		t.Errorf("FailingFiles = %q, want %q", got, want)
	}
}
