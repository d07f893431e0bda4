package web

import (
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestActivityPicture: the agent's page draws every day of the last weeks
// as a bar scaled to the busiest day, consolidated apart from waiting,
// marks the days a consolidation ran, and says the same in words.
func TestActivityPicture(t *testing.T) {
	f := newFixture(t, fixtureOptions{})
	consolidated(t, f) // 2026-02-08 and -09 consolidated, one memory waiting on the 10th
	f.seed("main", `{"memories":[{"content":"a","timestamp":"2026-01-20T09:00:00Z"},{"content":"b","timestamp":"2026-01-20T10:00:00Z"},
		{"content":"c","timestamp":"2026-01-20T11:00:00Z"},{"content":"d","timestamp":"2026-01-20T12:00:00Z"},
		{"content":"too old to draw","timestamp":"2025-06-01T12:00:00Z"}]}`)
	r := f.get("/agents/main")
	if r.status != http.StatusOK {
		t.Fatalf("GET /agents/main: %d", r.status)
	}
	svg := r.body[strings.Index(r.body, "<svg class=\"chart\""):strings.Index(r.body, "</svg>")]
	if n := strings.Count(svg, `<g class="day"`); n != 12*7 {
		t.Errorf("the picture has %d days, want %d", n, 12*7)
	}
	for _, w := range []string{`data-day="2025-11-19"`, `data-day="2026-02-10"`, `role="img"`, `aria-describedby="activity-summary"`} {
		if !strings.Contains(svg, w) {
			t.Errorf("the picture lacks %q", w)
		}
	}
	bar := func(day, class string) (y, h string) {
		re := regexp.MustCompile(`data-day="` + day + `">[^<]*<title>[^<]*</title><rect class="` + class + `" x="[0-9.]+" y="([0-9.]+)" width="8" height="([0-9.]+)"/>`)
		if m := re.FindStringSubmatch(svg); m != nil {
			return m[1], m[2]
		}
		return "", ""
	}
	if y, h := bar("2026-01-20", "waiting"); y != "4" || h != "96" {
		t.Errorf("the busiest day's bar (4 waiting) is at y=%q height %q, want the full 96", y, h)
	}
	if y, h := bar("2026-02-08", "done"); y != "52" || h != "48" {
		t.Errorf("2026-02-08's bar (2 consolidated) is at y=%q height %q, want half the height", y, h)
	}
	if !regexp.MustCompile(`data-day="2026-02-08">\s*<title>2026-02-08: 2 memories, 1 run</title>.*<rect class="run-ok"`).MatchString(svg) {
		t.Errorf("2026-02-08's consolidation run is not marked:\n%s", svg)
	}
	if strings.Contains(svg, "2025-06-01") {
		t.Error("the picture draws a day outside its weeks")
	}
	want := "From 2025-11-19 to 2026-02-10: 8 memories on 4 days, the busiest 2026-01-20 with 4; 5 waiting for consolidation. 2 consolidation runs. Backlog: 6 memories waiting in all."
	if !strings.Contains(r.body, `<p id="activity-summary">`+want+`</p>`) {
		t.Errorf("the picture's words: want %q in\n%s", want, r.body[strings.Index(r.body, "activity-summary"):][:400])
	}
	if !strings.Contains(r.body, `<td><a href="/agents/main/days/2026-01-20">2026-01-20</a></td><td>4</td><td>4</td><td>0</td><td>0</td>`) {
		t.Error("the table of numbers lacks 2026-01-20")
	}
	if r := f.get("/agents/main?weeks=2"); strings.Count(r.body, `<g class="day"`) != 14 || !strings.Contains(r.body, "the last 2 weeks") {
		t.Errorf("?weeks=2 draws %d days", strings.Count(r.body, `<g class="day"`))
	}
	if r := f.get("/agents/main?weeks=999"); r.status != http.StatusBadRequest || !strings.Contains(r.body, "weeks must be a whole number from 1 to 53") {
		t.Errorf("?weeks=999: %d", r.status)
	}
}
