package web

import "github.com/dormouse-dev/dormouse/internal/store"

// The layout every page shares, and the parts several pages show.

func writeLayout(w *pageWriter, p *page, content func()) {
	w.put(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>%s · Dormouse</title>
<link rel="stylesheet" href="/static/style.css">
<link rel="icon" href="/static/icon.svg" type="image/svg+xml">
</head>
<body>
<header class="top">
  <a class="brand" href="/"><img src="/static/icon.svg" alt="" width="24" height="24"> Dormouse</a>`, p.Title)
	if p.Agent != "" {
		w.put(`
  <span class="crumb">/ <a href="/agents/%p">%s</a></span>`, p.Agent, p.Agent)
	}
	w.put(`
</header>`)
	if p.Agent != "" {
		writeTabs(w, p)
	}
	w.put(`
<main>`)
	if p.Flash != "" {
		w.put(`
<p class="flash" role="status">%s</p>`, p.Flash)
	}
	if p.Error != "" {
		w.put(`
<p class="error" role="alert">%s</p>`, p.Error)
	}
	w.put("\n")
	content()
	w.put(`
</main>
<footer>Dormouse memory bank · <a href="/health">/health</a> · <a href="/metrics">/metrics</a>`)
	if p.Auth {
		w.put(` · <form method="post" action="/logout" class="inline"><input type="hidden" name="csrf" value="%s"><button type="submit" class="link">Sign out</button></form>`, p.CSRF)
	}
	w.put(`</footer>
</body>
</html>`)
}

// tabs are an agent's pages; a tab is current on the pages it names.
var tabs = []struct {
	path, label markup
	navs        []string
}{
	{"", "Overview", []string{"overview"}},
	{"/search", "Search", []string{"search"}},
	{"/ask", "Ask", []string{"ask"}},
	{"/days", "Days", []string{"days", "day"}},
	{"/facts", "Facts", []string{"facts", "fact"}},
	{"/consolidate", "Consolidate", []string{"consolidate"}},
	{"/upload", "Upload", []string{"upload"}},
}

func writeTabs(w *pageWriter, p *page) {
	w.put(`
<nav class="tabs" aria-label="agent">`)
	for _, t := range tabs {
		w.put(`
  <a href="/agents/%p%m"`, p.Agent, t.path)
		for _, n := range t.navs {
			if p.Nav == n {
				w.put(` aria-current="page"`)
			}
		}
		w.put(`>%m</a>`, t.label)
	}
	w.put(`
</nav>`)
}

func writeDayList(w *pageWriter, agent string, days []store.Day) {
	if len(days) == 0 {
		w.put(`
<p class="muted">No memories yet.</p>`)
		return
	}
	w.put(`
<ul class="days">`)
	for _, d := range days {
		w.put(`
  <li><a href="/agents/%p/days/%p">%s</a>
    <span class="muted">%s</span>`, agent, d.Day, d.Day, plural(d.Memories, "memory", "memories"))
		if d.Consolidated {
			w.put(` <span class="badge ok">consolidated</span>`)
		}
		if d.Unconsolidated != 0 {
			w.put(` <span class="badge warn">%s waiting</span>`, d.Unconsolidated)
		}
		w.put(`
  </li>`)
	}
	w.put(`
</ul>`)
}

func writeRuns(w *pageWriter, agent string, runs []store.Run) {
	if len(runs) == 0 {
		w.put(`
<p class="muted">No consolidation has run yet.</p>`)
		return
	}
	w.put(`
<ul class="runs">`)
	for _, r := range runs {
		writeRun(w, agent, r)
	}
	w.put(`
</ul>`)
}

func writeRun(w *pageWriter, agent string, r store.Run) {
	badge := markup("bad")
	switch r.Status {
	case "ok":
		badge = "ok"
	case "partial":
		badge = "warn"
	}
	w.put(`
  <li class="run-%s">
    <span class="badge %m">%s</span>
    <a href="/agents/%p/days/%p">%s</a>
    <span>%s → %s</span>
    <span class="muted">run #%s · %s`, r.Status, badge, r.Status, agent, r.Day, r.Day,
		plural(r.Memories, "memory", "memories"), plural(r.Facts, "fact", "facts"), r.ID, r.Provider)
	if r.Model != "" {
		w.put(` %s`, r.Model)
	}
	w.put(` · %s ms`, r.DurationMS)
	if r.Calls != 0 {
		w.put(` · %s calls, %s + %s tokens`, r.Calls, r.TokensIn, r.TokensOut)
	}
	w.put(` · %s</span>`, w.when(r.FinishedAt))
	if r.Error != "" {
		w.put(`<p class="run-error">%s</p>`, r.Error)
	}
	w.put(`
  </li>`)
}

func writeFactLine(w *pageWriter, agent string, f store.Fact) {
	state := factState(f)
	w.put(`
<li class="fact state-%s">
  <a href="/agents/%p/facts/%p">fact:%s</a>
  <span class="badge %m">%s</span>
  <span class="text">%s</span>`, state, agent, f.ID, f.ID, stateBadge(state, "rejected"), state, f.Content)
	if f.Value != "" {
		w.put(` <span class="value">= %s</span>`, f.Value)
	}
	w.put(`
  <span class="muted">%s · from %s`, pct(f.Confidence), w.when(f.ValidFrom))
	if f.ValidTo != nil {
		w.put(` to %s`, w.whenp(f.ValidTo))
	}
	w.put(`</span>
</li>`)
}

// stateBadge is the badge class of a fact's or profile line's state: ok
// when current, bad when it is bad (rejected, removed), old otherwise.
func stateBadge(state, bad string) markup {
	switch state {
	case "current":
		return "ok"
	case bad:
		return "bad"
	}
	return "old"
}

func writeProfile(w *pageWriter, agent string, cats []profileCategory) {
	w.put(`
<section class="card" aria-labelledby="profile-title" id="profile">
  <h2 id="profile-title">Profile</h2>`)
	if len(cats) == 0 {
		w.put(`
  <p class="muted">No profile yet: consolidation builds it from the memories of days that ended (the user's work, home,
  family, pets, health, diet and standing rules).</p>
</section>`)
		return
	}
	w.put(`
  <p class="muted">What consolidation knows of the user, each line citing the memories it came from. Recall offers the
  lines a question touches first.</p>`)
	for _, c := range cats {
		w.put(`
  <h3>%s</h3>
  <ul class="profile">`, c.Name)
		for _, l := range c.Lines {
			w.put(`
    <li class="profile-line"><a href="/agents/%p/profile/%p">profile:%s</a>
      <span class="text">%s</span>`, agent, l.ID, l.ID, l.Text)
			if l.Edited {
				w.put(` <span class="badge">edited</span>`)
			}
			w.put(`
      <span class="muted">from`)
			for _, id := range l.SourceMemoryIDs {
				w.put(` <a href="/agents/%p/memories/%p">memory:%s</a>`, agent, id, id)
			}
			w.put(`</span></li>`)
		}
		w.put(`
  </ul>`)
	}
	w.put(`
</section>`)
}

func writeRememberBox(w *pageWriter, f rememberForm, csrf string) {
	w.put(`
<form class="stack remember" method="post" action="/memories" id="remember">
  <input type="hidden" name="csrf" value="%s">`, csrf)
	if f.Fixed {
		w.put(`
  <input type="hidden" name="agent" value="%s"><input type="hidden" name="fixed" value="1">`, f.Agent)
	} else {
		w.put(`
  <label>Agent <input name="agent" value="%s" list="agent-names" required maxlength="64" autocapitalize="none" spellcheck="false"></label>
  <datalist id="agent-names">`, f.Agent)
		for _, n := range f.Agents {
			w.put(`<option value="%s">`, n)
		}
		w.put(`</datalist>`)
	}
	w.put(`
  <label>Memory <textarea name="content" rows="3" required placeholder="I am allergic to penicillin.">%s</textarea></label>
  <details class="opts"`, f.Content)
	if f.Role != "" || f.Session != "" {
		w.put(` open`)
	}
	w.put(`>
    <summary>Role and session (optional)</summary>
    <label>Role <input name="role" value="%s" placeholder="user" size="10" maxlength="64"></label>
    <label>Session <input name="session_id" value="%s" placeholder="chat-1" size="14" maxlength="256"></label>
  </details>
  <button type="submit">Remember</button>
</form>`, f.Role, f.Session)
}

// writeAddMemory is the remember box in its own card, once agents exist.
func writeAddMemory(w *pageWriter, f rememberForm, csrf string) {
	w.put(`
<section class="card" aria-labelledby="add-title">
  <h2 id="add-title">Add a memory</h2>`)
	writeRememberBox(w, f, csrf)
	w.put(`
</section>`)
}

func writeFirstMemory(w *pageWriter, f rememberForm, start startLines, csrf string) {
	w.put(`
<section class="card first" id="first-memory" aria-labelledby="first-title">
  <h2 id="first-title">Add the first memory</h2>
  <p>Nothing is stored yet. Type a memory here, the way an agent would store it:</p>`)
	writeRememberBox(w, f, csrf)
	w.put(`
  <p>or from a shell, with the CLI:</p>
  <pre class="context"><code>%s</code></pre>
  <p>or over HTTP, as an agent does:</p>
  <pre class="context"><code>%s</code></pre>
</section>`, start.CLI, start.HTTP)
}

func writeActivity(w *pageWriter, agent string, p activityPicture) {
	w.put(`
<section class="card activity" id="activity" aria-labelledby="activity-title">
  <h2 id="activity-title">Activity, the last %s weeks</h2>
  <p id="activity-summary">%s</p>
  <svg class="chart" viewBox="0 0 %s %s" width="100%%" preserveAspectRatio="none" role="img" aria-labelledby="activity-svg-title" aria-describedby="activity-summary" xmlns="http://www.w3.org/2000/svg">
    <title id="activity-svg-title">Memories per day from %s to %s, with consolidation runs</title>
    <line class="axis" x1="0" y1="100" x2="%s" y2="100"/>`, p.Weeks, p.Summary(), p.Width, p.Height, p.From, p.To, p.Width)
	for _, d := range p.Days {
		writeActivityDay(w, d)
	}
	w.put(`
  </svg>
  <p class="legend muted"><span class="key done"></span> consolidated <span class="key waiting"></span> waiting
    <span class="key run-ok"></span> consolidation run <span class="key run-failed"></span> a run failed
    <span class="range">%s → %s</span></p>
  <details>
    <summary>The numbers, day by day</summary>
    <table class="activity-table">
      <thead><tr><th>day</th><th>memories</th><th>waiting</th><th>runs</th><th>failed</th></tr></thead>
      <tbody>`, p.From, p.To)
	for _, d := range p.Days {
		if d.Memories != 0 || d.Runs != 0 {
			w.put(`
      <tr><td><a href="/agents/%p/days/%p">%s</a></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>`,
				agent, d.Day, d.Day, d.Memories, d.Waiting, d.Runs, d.Failed)
		}
	}
	w.put(`
      </tbody>
    </table>
  </details>
</section>`)
}

func writeActivityDay(w *pageWriter, d activityDay) {
	w.put(`
    <g class="day" data-day="%s">
      <title>%s: %s`, d.Day, d.Day, plural(d.Memories, "memory", "memories"))
	if d.Waiting != 0 {
		w.put(`, %s waiting`, d.Waiting)
	}
	if d.Runs != 0 {
		w.put(`, %s`, plural(d.Runs, "run", "runs"))
		if d.Failed != 0 {
			w.put(` (%s failed)`, d.Failed)
		}
	}
	w.put(`</title>`)
	if d.DoneH != 0 {
		w.put(`<rect class="done" x="%s" y="%s" width="8" height="%s"/>`, d.X, d.DoneY, d.DoneH)
	}
	if d.WaitH != 0 {
		w.put(`<rect class="waiting" x="%s" y="%s" width="8" height="%s"/>`, d.X, d.WaitY, d.WaitH)
	}
	if d.Mark != "" {
		w.put(`<rect class="run-%s" x="%s" y="108" width="8" height="8"/>`, d.Mark, d.X)
	}
	w.put(`
    </g>`)
}
