package web

import "github.com/dormouse-dev/dormouse/internal/store"

// The pages of what consolidation concluded: the facts, one fact, one
// profile line.

func writeFacts(w *pageWriter, p *page, d factsData) {
	a := p.Agent
	w.put(`
<h1>Facts of %s</h1>
<form class="search" method="get" action="/agents/%p/facts">
  <label for="entity" class="sr">Entity</label>
  <input id="entity" name="entity" value="%s" placeholder="Entity, e.g. Alice">
  <label class="check"><input type="checkbox" name="history" value="1"`, a, a, d.Entity)
	if d.History {
		w.put(` checked`)
	}
	w.put(`> with history</label>
  <button type="submit">Show</button>
</form>
<p class="muted">%s`, plural(d.Count, "fact", "facts"))
	if d.History {
		w.put(`, current, superseded and rejected`)
	} else {
		w.put(` current`)
	}
	if d.Limited {
		w.put(` (the newest %s)`, d.Count)
	}
	w.put(`.</p>`)
	if len(d.Entities) == 0 {
		w.put(`
<p class="muted">No facts`)
		if d.Entity != "" {
			w.put(` about “%s”`, d.Entity)
		}
		w.put(`. Facts come from consolidating days.</p>`)
		return
	}
	w.put(`
<nav class="entities" aria-label="entities">`)
	for i, e := range d.Entities {
		w.put(`<a href="#entity-%q">%s</a> `, i, e.Entity)
	}
	w.put(`</nav>`)
	for i, e := range d.Entities {
		writeEntityFacts(w, a, i, e)
	}
}

func writeEntityFacts(w *pageWriter, agent string, i int, e entityFacts) {
	w.put(`
<section class="card fact-entity" id="entity-%s" aria-labelledby="entity-%s-name">
  <h2 id="entity-%s-name">%s <span class="muted">· %s</span></h2>`, i, i, i, e.Entity, plural(e.Facts, "fact", "facts"))
	for _, g := range e.Groups {
		w.put(`
  <div class="fact-group">`)
		if g.Attribute != "" {
			w.put(`<h3>%s</h3>`, g.Attribute)
		}
		w.put(`
    <ul class="facts">`)
		for _, f := range g.Facts {
			writeFactLine(w, agent, f)
		}
		w.put(`
    </ul>
  </div>`)
	}
	w.put(`
</section>`)
}

func writeFact(w *pageWriter, p *page, d factData) {
	a, f := p.Agent, d.Fact
	w.put(`
<h1>fact:%s <span class="badge %m" id="state">%s</span></h1>
<p class="text big">%s</p>
<dl class="grid">
  <dt>Entity</dt><dd><a href="/agents/%p/facts?entity=%q&amp;history=1">%s</a>`, f.ID, stateBadge(d.State, "rejected"), d.State, f.Content, a, f.Entity, f.Entity)
	if f.EntityType != "" {
		w.put(` <span class="muted">%s</span>`, f.EntityType)
	}
	w.put(`</dd>
  <dt>Attribute</dt><dd>%s`, orWord(f.Attribute, "—"))
	if f.Value != "" {
		w.put(` = <strong>%s</strong>`, f.Value)
	}
	w.put(`</dd>
  <dt>Type</dt><dd>%s</dd>
  <dt>Confidence</dt><dd>%s</dd>
  <dt>Valid</dt><dd>from %s`, orWord(f.FactType, "—"), pct(f.Confidence), w.when(f.ValidFrom))
	if f.ValidTo != nil {
		w.put(` to %s`, w.whenp(f.ValidTo))
	}
	w.put(`</dd>`)
	if f.SupersededBy != nil {
		w.put(`<dt>Superseded by</dt><dd><a href="/agents/%p/facts/%p">fact:%s</a></dd>`, a, *f.SupersededBy, *f.SupersededBy)
	}
	w.put(`
  <dt>Stored</dt><dd>%s · recalled %s times</dd>
</dl>
`, w.when(f.CreatedAt), f.AccessCount)
	writeFactSources(w, a, d)
	w.put(`

<h2>History</h2>
<ul class="facts">`)
	for _, h := range d.History {
		writeFactLine(w, a, h)
	}
	w.put(`
</ul>`)
	writeFactForms(w, p, d)
}

func writeFactSources(w *pageWriter, agent string, d factData) {
	f := d.Fact
	w.put(`
<h2>Sources</h2>`)
	if len(f.SourceMemoryIDs) == 0 && len(f.SourceConsolidationIDs) == 0 {
		w.put(`
<p class="muted">No source memories: a person entered or corrected this fact.</p>`)
		return
	}
	w.put(`
<ul class="sources">`)
	writeSources(w, agent, d.Sources)
	for _, id := range f.SourceConsolidationIDs {
		if day := d.Days[id]; day != "" {
			w.put(`
  <li><a href="/agents/%p/days/%p">the record of %s</a></li>`, agent, day, day)
		} else {
			w.put(`
  <li>consolidation:%s <span class="muted">(gone)</span></li>`, id)
		}
	}
	w.put(`
</ul>`)
}

// writeSources lists the memories a fact or profile line cites.
func writeSources(w *pageWriter, agent string, sources []source) {
	for _, s := range sources {
		if s.Missing {
			w.put(`
  <li>memory:%s <span class="muted">(deleted)</span></li>`, s.ID)
			continue
		}
		w.put(`
  <li><a href="/agents/%p/memories/%p">memory:%s</a>
    <span class="muted">%s</span> %s</li>`, agent, s.ID, s.ID, w.when(s.Memory.Timestamp), s.Memory.Content)
	}
}

func writeFactForms(w *pageWriter, p *page, d factData) {
	a, f := p.Agent, d.Fact
	if d.CanEdit {
		w.put(`
<section class="card">
  <h2>Correct it</h2>
  <p class="muted">Your correction becomes the current fact and this value moves to the history.</p>
  <form method="post" action="/agents/%p/facts/%p/correct" class="stack">
    <input type="hidden" name="csrf" value="%s">
    <label>Statement <textarea name="content" rows="3" maxlength="4096" required>%s</textarea></label>`, a, f.ID, p.CSRF, d.Content)
		if f.Attribute != "" {
			w.put(`
    <label>%s <input name="value" value="%s" maxlength="4096"></label>`, f.Attribute, d.Value)
		}
		w.put(`
    <button type="submit">Save correction</button>
  </form>
</section>`)
	}
	if !f.Rejected {
		w.put(`
<details class="danger">
  <summary>Reject…</summary>
  <p>A rejected fact is kept, marked rejected: it is never offered as current again, and the same claim from a
  later consolidation stays rejected.</p>
  <form method="post" action="/agents/%p/facts/%p/reject">
    <input type="hidden" name="csrf" value="%s">
    <button type="submit" class="bad">Reject fact %s</button>
  </form>
</details>`, a, f.ID, p.CSRF, f.ID)
	}
}

func writeProfileLine(w *pageWriter, p *page, d profileLineData) {
	a, l := p.Agent, d.Line
	w.put(`
<h1>profile:%s <span class="badge %m" id="state">%s</span></h1>
<p class="text big" id="line-text">%s</p>
<dl class="grid">
  <dt>Category</dt><dd>%s</dd>
  <dt>Claim</dt><dd>%s · %s = <strong>%s</strong></dd>
  <dt>Valid</dt><dd>from %s`, l.ID, stateBadge(d.State, "removed"), d.State, l.Text, l.Category, l.Subject, l.Key, l.Value, w.when(l.ValidFrom))
	if !l.ValidTo.IsZero() {
		w.put(` to %s`, w.when(l.ValidTo))
	}
	w.put(`</dd>`)
	if l.SupersededBy != 0 {
		w.put(`<dt>Replaced by</dt><dd><a href="/agents/%p/profile/%p">profile:%s</a></dd>`, a, l.SupersededBy, l.SupersededBy)
	}
	w.put(`
  <dt>Stored</dt><dd>%s`, w.when(l.CreatedAt))
	if l.Edited {
		w.put(` · worded by a person`)
	}
	w.put(`</dd>
</dl>

<h2>Sources</h2>`)
	if len(d.Sources) > 0 {
		w.put(`
<ul class="sources">`)
		writeSources(w, a, d.Sources)
		w.put(`
</ul>`)
	} else {
		w.put(`
<p class="muted">No source memories left.</p>`)
	}
	writeProfileHistory(w, a, d.History)
	if d.State == "current" {
		writeProfileForms(w, p, d)
	}
}

func writeProfileHistory(w *pageWriter, agent string, history []store.ProfileLine) {
	w.put(`

<h2>History</h2>
<ul class="profile" id="history">`)
	for _, h := range history {
		w.put(`
  <li class="profile-line"><a href="/agents/%p/profile/%p">profile:%s</a>
    <span class="text">%s</span>
    <span class="muted">from %s`, agent, h.ID, h.ID, h.Text, w.when(h.ValidFrom))
		if !h.ValidTo.IsZero() {
			w.put(` to %s`, w.when(h.ValidTo))
		}
		switch {
		case h.Removed:
			w.put(` · removed`)
		case h.SupersededBy != 0:
			w.put(` · replaced`)
		}
		w.put(`</span></li>`)
	}
	w.put(`
</ul>`)
}

func writeProfileForms(w *pageWriter, p *page, d profileLineData) {
	a, id := p.Agent, d.Line.ID
	w.put(`
<section class="card">
  <h2>Edit it</h2>
  <p class="muted">Your wording replaces this line (which moves to the history) and cites the same memories. A later
  consolidation keeps it unless the value itself changes.</p>
  <form method="post" action="/agents/%p/profile/%p/edit" class="stack">
    <input type="hidden" name="csrf" value="%s">
    <label>Line <textarea name="text" rows="2" maxlength="4096" required>%s</textarea></label>
    <button type="submit">Save the line</button>
  </form>
</section>
<details class="danger">
  <summary>Remove…</summary>
  <p>A removed line is no longer offered, and a later consolidation does not bring the same claim back.</p>
  <form method="post" action="/agents/%p/profile/%p/remove">
    <input type="hidden" name="csrf" value="%s">
    <button type="submit" class="bad">Remove profile line %s</button>
  </form>
</details>`, a, id, p.CSRF, d.Text, a, id, p.CSRF, id)
}
