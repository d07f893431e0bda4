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

// BenchmarkRender times writing pages alone, their data built beforehand:
// a day of 500 memories, a search of 50 results with their score parts,
// and a fact page with a history of 20.
// go test -run '^$' -bench Render -benchmem ./internal/web/
func BenchmarkRender(b *testing.B) {
	f := newFixture(b, fixtureOptions{})
	day := dayData{Day: "2026-02-09", CanRebuild: true}
	search := searchData{Query: "Alice budget", Searched: true, Scoring: scorePartsKnown, Top: 2.5}
	fact := factData{Fact: store.Fact{ID: 1, Entity: "Alice", Attribute: "job_title", Value: "engineer", Content: "Alice is an engineer.",
		SourceMemoryIDs: []int64{1, 2}}, State: "current", CanEdit: true}
	for i := range 500 {
		c := fmt.Sprintf("Note %d: Alice met Bob about the <budget> & the \"review\".", i)
		day.Memories = append(day.Memories, store.Memory{ID: int64(i + 1), Content: c, Timestamp: fixtureNow, Role: "user", SessionID: "chat-1"})
	}
	day.Shown = len(day.Memories)
	for i := range 50 {
		it := searchItem{Link: fmt.Sprintf("/agents/main/memories/%d", i+1),
			Parts: []shownPart{{"Words", "how well the words match", "1.000"}, {"Recency", "how recent", "0.500"}}}
		it.ID, it.Kind, it.Text, it.Score, it.Timestamp, it.Tokens = fmt.Sprintf("memory:%d", i+1), "memory", day.Memories[i].Content, 2.5-float64(i)/50, fixtureNow, 20
		search.Items = append(search.Items, it)
	}
	for i := range 20 {
		fact.History = append(fact.History, store.Fact{ID: int64(i + 1), Entity: "Alice", Value: fmt.Sprint(i), Content: "Alice is an engineer."})
		fact.Sources = append(fact.Sources, source{ID: int64(i + 1), Memory: day.Memories[i]})
	}
	for _, pg := range []struct {
		name string
		data any
	}{{"day", day}, {"search", search}, {"fact", fact}} {
		b.Run(pg.name, func(b *testing.B) {
			for b.Loop() {
				rec := newRecorder()
				f.web.render(rec, http.StatusOK, pg.name, &page{Title: pg.name, Agent: "main", Nav: pg.name, CSRF: "token", Data: pg.data})
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", pg.name, rec.Code, rec.Body)
				}
			}
		})
	}
}
