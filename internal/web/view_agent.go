package web

import (
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/text"
)

// One agent's pages: its overview, days, a day, a memory, consolidating
// and uploading.

func writeOverview(w *pageWriter, p *page, d overviewData) {
	a := p.Agent
	w.put(`
<h1>%s</h1>
<form class="search" method="get" action="/agents/%p/search" role="search">
  <label for="q" class="sr">Search this agent's memories</label>
  <input id="q" name="q" type="search" placeholder="What do you want to recall?">
  <button type="submit">Search</button>
</form>`, a, a)
	if d.Stats.Memories == 0 {
		writeFirstMemory(w, d.Remember, d.Start, p.CSRF)
	} else {
		writeAddMemory(w, d.Remember, p.CSRF)
	}
	writeCounts(w, a, d.Stats)
	writeProfile(w, a, d.Profile)
	writeActivity(w, a, d.Activity)
	w.put(`
<section class="card">
  <h2>Recent days</h2>`)
	writeDayList(w, a, d.Days)
	w.put(`
  <p><a href="/agents/%p/days">All days →</a></p>
</section>
<section class="card">
  <h2>Recent consolidation runs</h2>`, a)
	writeRuns(w, a, d.Runs)
	w.put(`
</section>
<details class="danger">
  <summary>Delete this agent…</summary>
  <p>Deleting removes the agent and its files, after a verified backup. The next page asks you to type its name.</p>
  <p><a href="/agents/%p/delete">Delete agent %s →</a></p>
</details>`, a, a)
}

func writeCounts(w *pageWriter, agent string, s store.Stats) {
	w.put(`
<section class="card">
  <h2>Counts</h2>
  <dl class="grid">
    <dt>Memories</dt><dd>%s (%s waiting for consolidation)</dd>
    <dt>Days consolidated</dt><dd>%s`, s.Memories, s.Unconsolidated, s.Consolidations)
	if s.LastConsolidated != "" {
		w.put(`, the last %s`, s.LastConsolidated)
	}
	w.put(`</dd>
    <dt>Facts</dt><dd><a href="/agents/%p/facts">%s current</a> of %s</dd>
    <dt>Span</dt><dd>%s → %s</dd>
    <dt>File</dt><dd>%s + WAL %s · schema %s</dd>
  </dl>
</section>`, agent, s.CurrentFacts, s.Facts, w.whenp(s.Oldest), w.whenp(s.Newest),
		text.Size(s.DBBytes), text.Size(s.WALBytes), s.SchemaVersion)
}

func writeDays(w *pageWriter, p *page, d daysData) {
	w.put(`
<h1>Days of %s</h1>`, p.Agent)
	writeDayList(w, p.Agent, d.Days)
	if d.Next != "" {
		w.put(`<p><a href="/agents/%p/days?before=%q">Older days →</a></p>`, p.Agent, d.Next)
	}
}

func writeDay(w *pageWriter, p *page, d dayData) {
	w.put(`
<h1>%s</h1>
<div class="split">
<section class="memories">
  <h2>Memories (%s)</h2>`, d.Day, len(d.Memories))
	if d.Shown < len(d.Memories) {
		w.put(`<p class="muted">Showing the first %s.</p>`, d.Shown)
	}
	w.put(`
  <ol class="mems">`)
	for _, m := range d.Memories[:d.Shown] {
		writeDayMemory(w, p, m)
	}
	if len(d.Memories) == 0 {
		w.put(`
    <li class="muted">No memories on this day.</li>`)
	}
	w.put(`
  </ol>
</section>
<aside class="record">
  <h2>Consolidation</h2>`)
	if d.Record != nil {
		writeRecord(w, d.Record, d.Parts)
	} else {
		w.put(`
  <p class="muted">This day has no consolidation record yet.</p>`)
	}
	if d.CanRebuild {
		verb := markup("Consolidate")
		if d.Record != nil {
			verb = "Rebuild"
		}
		w.put(`
  <form method="post" action="/agents/%p/consolidate">
    <input type="hidden" name="csrf" value="%s">
    <input type="hidden" name="date" value="%s">
    <button type="submit">%m this day</button>
  </form>`, p.Agent, p.CSRF, d.Day, verb)
	}
	w.put(`
  <h3>Runs</h3>`)
	writeRuns(w, p.Agent, d.Runs)
	w.put(`
</aside>
</div>`)
}

func writeDayMemory(w *pageWriter, p *page, m store.Memory) {
	w.put(`
    <li id="m%s">
      <div class="meta"><a href="/agents/%p/memories/%p">memory:%s</a>
        <time datetime="%s">%s</time>
        `, m.ID, p.Agent, m.ID, m.ID, iso(m.Timestamp), w.when(m.Timestamp))
	if m.Role != "" {
		w.put(`<span class="muted">%s</span>`, m.Role)
	}
	w.put("\n        ")
	if m.SessionID != "" {
		w.put(`<span class="muted">· %s</span>`, m.SessionID)
	}
	w.put("\n        ")
	if !m.Consolidated {
		w.put(`<span class="badge warn">waiting</span>`)
	}
	if f := m.SharedFrom; f != nil {
		w.put(`<span class="muted">· shared from <a class="origin" href="/agents/%p/memories/%p">%s</a></span>`, f.Agent, f.ID, f.String())
	}
	w.put(`
      </div>
      <p class="text">%s</p>
      <details class="danger">
        <summary>Delete…</summary>
        <form method="post" action="/agents/%p/memories/%p/delete">
          <input type="hidden" name="csrf" value="%s">
          <button type="submit" class="bad">Delete memory %s</button>
        </form>
      </details>
    </li>`, m.Content, p.Agent, m.ID, p.CSRF, m.ID)
}

func writeRecord(w *pageWriter, c *store.Consolidation, parts *recordParts) {
	w.put(`
  <p class="summary">%s</p>
  <p class="muted">record %s · %s · updated %s · from %s memories</p>`, c.Summary, c.ID, c.Model, w.when(c.UpdatedAt), len(c.SourceIDs))
	if parts == nil {
		return
	}
	if len(parts.KeyFacts) > 0 {
		w.put(`
  <h3>Key facts</h3>
  <ul>`)
		for _, f := range parts.KeyFacts {
			w.put(`<li>%s <span class="muted">(%s`, f.Content, f.FactType)
			for _, s := range []string{f.Entity, f.Attribute} {
				if s != "" {
					w.put(` · %s`, s)
				}
			}
			if f.Value != "" {
				w.put(` = %s`, f.Value)
			}
			w.put(`)</span></li>`)
		}
		w.put(`</ul>`)
	}
	writeRecordLists(w, parts)
}

func writeRecordLists(w *pageWriter, parts *recordParts) {
	if len(parts.Insights) > 0 {
		w.put(`
  <h3>Insights</h3>
  <ul>`)
		for _, in := range parts.Insights {
			w.put(`<li>%s`, in.Text)
			if len(in.MemoryIDs) > 0 {
				w.put(` <span class="muted">(memories %s)</span>`, joinIDs(in.MemoryIDs))
			}
			w.put(`</li>`)
		}
		w.put(`</ul>`)
	}
	if len(parts.Entities) > 0 {
		w.put(`
  <h3>Entities</h3>
  <p class="chips">`)
		for _, e := range parts.Entities {
			w.put(`<span class="chip">%s <small>%s ×%s</small></span> `, e.Text, e.Type, e.Count)
		}
		w.put(`</p>`)
	}
	if len(parts.Topics) > 0 {
		w.put(`
  <h3>Topics</h3>
  <p class="chips">`)
		for _, t := range parts.Topics {
			w.put(`<span class="chip">%s</span> `, t)
		}
		w.put(`</p>`)
	}
	for _, raw := range parts.Raw {
		w.put(`<pre class="context">%s</pre>`, raw)
	}
}

func writeMemory(w *pageWriter, p *page, d memoryData) {
	a, m := p.Agent, d.Memory
	w.put(`
<h1>memory:%s</h1>
<p class="text big">%s</p>
<dl class="grid">
  <dt>When</dt><dd><time datetime="%s">%s</time> · <a href="/agents/%p/days/%p">%s</a></dd>
  <dt>Session</dt><dd>%s</dd>
  <dt>Role</dt><dd>%s`, m.ID, m.Content, iso(m.Timestamp), w.when(m.Timestamp), a, d.Day, d.Day,
		orWord(m.SessionID, "—"), orWord(m.Role, "—"))
	if m.InteractionType != "" {
		w.put(` · %s`, m.InteractionType)
	}
	w.put(`</dd>
  <dt>Source</dt><dd>%s</dd>
  <dt>Importance</dt><dd>%s</dd>
  <dt>Summary</dt><dd>%s</dd>
  <dt>Entities</dt><dd>`, orWord(m.Source, "—"), score(m.Importance), orWord(m.Summary, "—"))
	for _, e := range m.Entities {
		w.put(`<span class="chip">%s <small>%s</small></span> `, e.Text, e.Type)
	}
	if len(m.Entities) == 0 {
		w.put(`—`)
	}
	w.put(`</dd>
  <dt>Topics</dt><dd>`)
	for _, t := range m.Topics {
		w.put(`<span class="chip">%s</span> `, t)
	}
	if len(m.Topics) == 0 {
		w.put(`—`)
	}
	w.put(`</dd>
  <dt>Consolidated</dt><dd>`)
	writeConsolidated(w, m)
	w.put(`</dd>
  <dt>Stored</dt><dd>%s</dd>`, w.when(m.CreatedAt))
	if f := m.SharedFrom; f != nil {
		w.put(`
  <dt>Shared from</dt><dd><a class="origin" href="/agents/%p/memories/%p">%s</a></dd>`, f.Agent, f.ID, f.String())
	}
	w.put(`
</dl>`)
	if d.Context != "" {
		w.put(`
<h2>Context</h2>
<pre class="context">%s</pre>`, d.Context)
	}
	writeShare(w, p, d)
	w.put(`
<details class="danger">
  <summary>Delete…</summary>
  <p>Deleting removes the memory and its search entry. Day records and facts that cite it keep their text.</p>
  <form method="post" action="/agents/%p/memories/%p/delete">
    <input type="hidden" name="csrf" value="%s">
    <button type="submit" class="bad">Delete memory %s</button>
  </form>
</details>`, a, m.ID, p.CSRF, m.ID)
}

// writeShare is the memory page's Share form: a copy into another agent.
func writeShare(w *pageWriter, p *page, d memoryData) {
	w.put(`
<form method="post" action="/agents/%p/memories/%p/share" class="search share">
  <input type="hidden" name="csrf" value="%s">
  <label for="share-to">Share with agent</label>
  <input id="share-to" name="to" list="share-agents" required placeholder="household">
  <datalist id="share-agents">`, p.Agent, d.Memory.ID, p.CSRF)
	for _, n := range d.Agents {
		w.put(`<option value="%s">`, n)
	}
	w.put(`</datalist>
  <button type="submit">Share</button>
</form>`)
}

func writeConsolidated(w *pageWriter, m store.Memory) {
	if !m.Consolidated {
		w.put(`not yet`)
		return
	}
	w.put(`yes`)
	if m.ConsolidationID != nil {
		w.put(` (record %s)`, *m.ConsolidationID)
	}
}

func writeConsolidate(w *pageWriter, p *page, d consolidateData) {
	a := p.Agent
	w.put(`
<h1>Consolidate %s</h1>`, a)
	if len(d.Ran) > 0 {
		w.put(`
<section class="card">
  <h2>This consolidation</h2>`)
		writeRuns(w, a, d.Ran)
		w.put(`
</section>`)
	}
	if d.Plan != nil {
		writePlan(w, a, d)
	}
	if d.Enabled {
		w.put(`
<section class="card">
  <h2>Run a consolidation</h2>
  <p class="muted">Without a date: every past day with memories waiting. With a date: rebuild that day from all
  its memories (today included).</p>
  <form method="post" action="/agents/%p/consolidate" class="stack">
    <input type="hidden" name="csrf" value="%s">
    <label>Date <input type="date" name="date" value="%s"></label>
    <label class="check"><input type="checkbox" name="dry_run" value="1"> dry run: show the plan only</label>
    <button type="submit">Consolidate</button>
  </form>
</section>`, a, p.CSRF, d.Date)
	} else {
		w.put(`
<p class="muted">This server does not consolidate on request.</p>`)
	}
	w.put(`
<section class="card">
  <h2>Recent runs</h2>`)
	writeRuns(w, a, d.Runs)
	w.put(`
</section>`)
}

func writePlan(w *pageWriter, agent string, d consolidateData) {
	pl := d.Plan
	w.put(`
<section class="card">
  <h2>Plan (dry run)</h2>
  <p class="muted">%s`, pl.Provider)
	if pl.Model != "" {
		w.put(` %s`, pl.Model)
	}
	w.put(`: nothing was called or written.</p>`)
	if len(pl.Days) == 0 {
		w.put(`
  <p>No day to consolidate.</p>
</section>`)
		return
	}
	w.put(`
  <table>
    <thead><tr><th>day</th><th>memories</th><th>waiting</th><th>chunks</th><th>calls</th><th>≈ tokens</th></tr></thead>
    <tbody>`)
	for _, day := range pl.Days {
		w.put(`<tr><td><a href="/agents/%p/days/%p">%s</a></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>`,
			agent, day.Day, day.Day, day.Memories, day.Unconsolidated, day.Chunks, day.Calls, day.EstimatedTokens)
	}
	w.put(`</tbody>
  </table>
</section>`)
}

func writeUpload(w *pageWriter, p *page, d uploadData) {
	a := p.Agent
	w.put(`
<h1>Upload a file to %s</h1>`, a)
	if o := d.Outcome; o != nil {
		w.put(`
<section class="card" id="upload-result">
  <h2>%s</h2>`, d.Name)
		if o.Status == "unchanged" {
			w.put(`
  <p>Already stored: this content was uploaded before, so nothing new was added.</p>`)
		} else {
			w.put(`
  <p><span class="badge ok">%s</span> %s read, %s stored`, o.Status, plural(o.Parts, "part", "parts"),
				plural(o.Inserted, "new memory", "new memories"))
			if o.Reused {
				w.put(` (this content was already stored: its memories were reused)`)
			}
			if o.Retired != 0 {
				w.put(`; %s older memories retired`, o.Retired)
			}
			w.put(`.</p>`)
		}
		if o.Error != "" {
			w.put(`<p class="muted">%s</p>`, o.Error)
		}
		w.put(`
  <p class="muted">Kept as <code>upload:/%s</code>. <a href="/agents/%p/days">See the days</a> or <a href="/agents/%p/search">search</a> for it.</p>
</section>`, o.Path, a, a)
	}
	if d.Skipped != "" {
		w.put(`
<section class="card" id="upload-result">
  <h2>%s</h2>
  <p><span class="badge warn">skipped</span> Nothing was stored: %s</p>
</section>`, d.Name, d.Skipped)
	}
	if !d.Enabled {
		w.put(`
<p class="muted">This server does not take files.</p>`)
		return
	}
	w.put(`
<section class="card">
  <h2>Choose a file</h2>
  <p class="muted">It goes through the same pipeline as watched folders: its format (.md .txt .log .json .jsonl
  .csv .yaml .yml .pdf, or an image's metadata) decides how it is split into memories. At most %s.</p>
  <form method="post" action="/agents/%p/upload" enctype="multipart/form-data" class="stack">
    <input type="hidden" name="csrf" value="%s">
    <label>File <input type="file" name="file" required></label>
    <label>Dated <input type="date" name="date" value="%s"> <span class="muted">(default now; a date in the file wins)</span></label>
    <button type="submit">Upload</button>
  </form>
</section>`, text.Size(d.MaxBytes), a, p.CSRF, d.Date)
}
