package web

import (
	"fmt"
	"time"

	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// The pages outside one agent: the overview of the bank, signing in,
// errors, the remember form's refusals and deleting an agent.

func writeIndex(w *pageWriter, p *page, d indexData) {
	w.put(`
<h1>Memory bank</h1>`)
	if len(d.Agents) == 0 {
		writeFirstMemory(w, d.Remember, d.Start, p.CSRF)
	}
	w.put(`
<section class="card">
  <h2>Health</h2>`)
	if d.Health != nil {
		writeHealth(w, d.Health)
	} else {
		w.put(`
  <p class="state">unknown</p><p class="muted">This server has no health monitor.</p>`)
	}
	w.put(`
</section>
`)
	if d.Health != nil && d.Health.Replication != nil {
		writeReplication(w, d.Health.Replication, d.Health.At)
	}
	writeTimers(w, d.Timers)
	writeAgentTable(w, d.Agents)
	if len(d.Agents) > 0 {
		writeAddMemory(w, d.Remember, p.CSRF)
	}
}

func writeHealth(w *pageWriter, h *health.Report) {
	w.put(`
  <p class="state state-%s">%s</p>`, h.State, h.State)
	for _, r := range h.Reasons {
		w.put(`<p class="reason">%s</p>`, r)
	}
	s := h.System
	cpu := "—"
	if s.CPUPercent != nil {
		cpu = fmt.Sprintf("%.0f%%", *s.CPUPercent)
	}
	w.put(`
  <dl class="grid">
    <dt>CPU</dt><dd>%s · load %s</dd>
    <dt>Memory</dt><dd>%s of %s`, cpu, fmt.Sprintf("%.2f %.2f %.2f", s.Load1, s.Load5, s.Load15), text.Size(s.MemUsedBytes), text.Size(s.MemTotalBytes))
	if s.SwapTotal != 0 {
		w.put(` · swap %s of %s`, text.Size(s.SwapUsedBytes), text.Size(s.SwapTotal))
	}
	temp := "no sensor"
	if s.TemperatureC != nil {
		temp = fmt.Sprintf("%.1f °C", *s.TemperatureC)
	}
	w.put(`</dd>
    <dt>Disk</dt><dd>%s of %s (%s)</dd>
    <dt>Temperature</dt><dd>%s</dd>
    <dt>Up</dt><dd>%s</dd>
  </dl>`, fmt.Sprintf("%.1f%%", s.DiskPercent), text.Size(s.DiskTotal), s.DiskPath, temp, humanDuration(time.Duration(s.UptimeSeconds)*time.Second))
	for _, e := range h.Errors {
		w.put(`<p class="reason">could not read %s</p>`, e)
	}
	w.put(`
  <p class="muted">Measured %s. The same data as <a href="/health">/health</a>.</p>`, w.when(h.At))
}

// writeReplication shows Litestream and each agent's replica, as /health
// has them: state, lag, last sync and last error, ages as of the report's
// time (now).
func writeReplication(w *pageWriter, r *health.Replication, now time.Time) {
	w.put(`
<section class="card replication">
  <h2>Replication</h2>
  <p>To <code>%s</code>: `, r.Target)
	switch {
	case r.Running:
		w.put(`<span class="badge ok">litestream running</span>`)
	case r.DownSince != nil:
		w.put(`<span class="badge bad">litestream down for %s</span>`, humanDuration(now.Sub(*r.DownSince)))
	default:
		w.put(`<span class="badge bad">litestream down</span>`)
	}
	if r.Restarts > 0 {
		w.put(` · restarted %s times`, r.Restarts)
	}
	w.put(`</p>`)
	if r.LastError != "" {
		w.put(`
  <p class="reason">Last error (%s): %s</p>`, w.whenp(r.LastErrorAt), r.LastError)
	}
	w.put(`
  <table>
    <thead><tr><th>agent</th><th>state</th><th>lag</th><th>last sync</th></tr></thead>
    <tbody>`)
	for _, a := range r.Agents {
		last := "never"
		if a.LastSync != nil {
			last = humanDuration(now.Sub(*a.LastSync)) + " ago"
		}
		w.put(`
    <tr>
      <td>%s</td><td>%s</td><td>%s</td><td>%s</td>
    </tr>`, a.Agent, a.State, fmt.Sprintf("%.1fs", a.LagSeconds), last)
		if a.LastError != "" { // a row of its own: a log line is too wide for a column on a phone
			w.put(`
    <tr><td colspan="4" class="reason">Last error: %s</td></tr>`, a.LastError)
		}
	}
	w.put(`
    </tbody>
  </table>
</section>
`)
}

func writeTimers(w *pageWriter, timers []Timer) {
	w.put(`
<section class="card">
  <h2>Timers</h2>
  <table>
    <thead><tr><th>timer</th><th>last run</th><th>next run</th></tr></thead>
    <tbody>`)
	for _, t := range timers {
		w.put(`
    <tr>
      <td>%s</td>`, t.Unit)
		switch {
		case !t.Known:
			w.put(`
      <td colspan="2" class="muted">unknown (systemd not reachable)</td>`)
		case !t.Installed:
			w.put(`
      <td colspan="2" class="muted">not installed</td>`)
		default:
			last, next := "never", "not scheduled"
			if !t.Last.IsZero() {
				last = w.when(t.Last)
			}
			if !t.Next.IsZero() {
				next = w.when(t.Next)
			}
			w.put(`
      <td>%s</td>
      <td>%s</td>`, last, next)
		}
		w.put(`
    </tr>`)
	}
	w.put(`
    </tbody>
  </table>
</section>
`)
}

func writeAgentTable(w *pageWriter, agents []agentRow) {
	w.put(`
<section class="card">
  <h2>Agents</h2>`)
	if len(agents) == 0 {
		w.put(`
  <p class="muted">No agents yet: the first memory stored for an agent creates it.</p>
</section>`)
		return
	}
	w.put(`
  <table class="agents">
    <thead><tr><th>agent</th><th>memories</th><th>waiting</th><th>consolidated</th><th class="wide">size</th></tr></thead>
    <tbody>`)
	for _, a := range agents {
		w.put(`
    <tr>
      <td><a href="/agents/%p">%s</a></td>`, a.Name, a.Name)
		if h := a.Health; h != nil {
			w.put(`
      <td>%s</td><td>%s</td>
      <td>%s`, h.Memories, h.Backlog, orWord(h.LastConsolidated, "never"))
			if f := h.LastFailure; f != nil {
				w.put(` <span class="badge bad" title="%s">failed %s</span>`, f.Error, f.Day)
			}
			w.put(`</td>
      <td class="wide">%s</td>`, text.Size(h.DBBytes))
		} else {
			w.put(`
      <td colspan="4" class="muted">—</td>`)
		}
		w.put(`
    </tr>`)
	}
	w.put(`
    </tbody>
  </table>
</section>`)
}

func writeLogin(w *pageWriter, p *page, d loginData) {
	w.put(`
<h1>Sign in</h1>
<section class="card">
  <p>This server asks for a token. Paste one that <code>dormouse token new</code> printed; the page keeps it in
  a cookie for this browser session.</p>
  <form method="post" action="/login" class="stack">
    <input type="hidden" name="csrf" value="%s">
    <input type="hidden" name="next" value="%s">
    <label>Token <input type="password" name="token" autocomplete="current-password" required></label>
    <button type="submit">Sign in</button>
  </form>
</section>`, p.CSRF, d.Next)
}

func writeError(w *pageWriter, p *page) {
	w.put(`
<h1>%s</h1>
<p><a href="/">Back to the overview</a></p>`, p.Title)
}

func writeRemember(w *pageWriter, p *page, f rememberForm) {
	w.put(`
<h1>Add a memory</h1>
<section class="card">`)
	writeRememberBox(w, f, p.CSRF)
	w.put(`
</section>`)
}

func writeDelete(w *pageWriter, p *page, d deleteData) {
	if d.Deleted != "" {
		w.put(`
<h1>Agent %s deleted</h1>
<section class="card">
  <p>Its backup is <code>%s</code>. To bring the agent back: stop the daemon, run
  <code>dormouse restore --agent %s</code>, start it again.</p>
  <p>Nothing recreates the agent meanwhile: a write to it is refused until it is created again
  (<code>dormouse agents create %s</code>).</p>
  <p><a href="/">All agents →</a></p>
</section>`, d.Deleted, d.Backup, d.Deleted, d.Deleted)
		return
	}
	a := p.Agent
	w.put(`
<h1>Delete %s</h1>`, a)
	if !d.Enabled {
		w.put(`
<p class="muted">This server keeps no backups, so it deletes no agent.</p>`)
		return
	}
	w.put(`
<section class="card">
  <p>This deletes agent %s and its files: %s memories, %s day
  records and %s facts. A verified backup is taken first, and the page says where it went.</p>
  <form method="post" action="/agents/%p/delete" class="stack">
    <input type="hidden" name="csrf" value="%s">
    <label>Type the agent's name, %s, to confirm <input name="confirm" autocomplete="off" required></label>
    <button type="submit" class="bad">Delete agent %s</button>
  </form>
</section>`, a, d.Stats.Memories, d.Stats.Consolidations, d.Stats.Facts, a, p.CSRF, a, a)
}

// orWord is s, or word when s is empty.
func orWord(s, word string) string {
	if s == "" {
		return word
	}
	return s
}
