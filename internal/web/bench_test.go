package web

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// BenchmarkPagesAt100k times the pages a person works in over an agent of
// 100,000 memories (a year and a half of 180 a day): the overview with its
// activity picture, search, ask and facts must stay bounded queries.
// go test -run '^$' -bench PagesAt100k -benchtime 20x ./internal/web/
func BenchmarkPagesAt100k(b *testing.B) {
	f := newFixture(b, fixtureOptions{})
	const n, perDay = 100_000, 180
	words := []string{"Atlas", "proxy", "budget", "coffee", "Alice", "Bob", "review", "timeout", "garden", "train"}
	f.seed("main", `{"content":"The agent exists."}`)
	f.agent("main", func(a *store.Agent) {
		batch := make([]store.Memory, 0, 1000)
		for i := range n {
			ts := fixtureNow.Add(-time.Duration(n-i) * 24 * time.Hour / perDay)
			c := fmt.Sprintf("Note %d: %s met %s about the %s.", i, words[i%10], words[(i/10)%10], words[(i/100)%10])
			batch = append(batch, store.Memory{Content: c, ContentHash: c, Timestamp: ts, Importance: 0.5, Role: "user"})
			if len(batch) == cap(batch) {
				if _, err := a.Insert(b.Context(), batch); err != nil {
					b.Fatal(err)
				}
				batch = batch[:0]
			}
		}
	})
	for _, pg := range []struct{ name, path, ask string }{{"overview", "/agents/main", ""}, {"search", "/agents/main/search?q=Alice+budget", ""},
		{"ask", "/agents/main/ask", "What did Bob discuss?"}, {"facts", "/agents/main/facts", ""}, {"index", "/", ""}} {
		b.Run(pg.name, func(b *testing.B) {
			for b.Loop() {
				var r response
				if pg.ask != "" {
					r = f.ask("main", pg.ask) // the box's page, then its POST
				} else {
					r = f.get(pg.path)
				}
				if r.status != http.StatusOK {
					b.Fatalf("%s: %d", pg.path, r.status)
				}
			}
		})
	}
}
