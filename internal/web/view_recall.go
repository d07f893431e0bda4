package web

// The pages that recall: search, with each score's parts, and ask.

func writeSearch(w *pageWriter, p *page, d searchData) {
	a := p.Agent
	w.put(`
<h1>Search %s</h1>
<form class="search" method="get" action="/agents/%p/search" role="search">
  <label for="q" class="sr">Query</label>
  <input id="q" name="q" type="search" value="%s" placeholder="What do you want to recall?" maxlength="4096">
  <button type="submit">Search</button>
  <details class="opts"`, a, a, d.Query)
	if d.Budget != "" || d.K != "" {
		w.put(` open`)
	}
	w.put(`>
    <summary>Options</summary>
    <label>Token budget <input name="budget" inputmode="numeric" value="%s" placeholder="1000" size="6"></label>
    <label>Items <input name="k" inputmode="numeric" value="%s" placeholder="10" size="4"></label>
  </details>
</form>
<details class="scoring" id="scoring">
  <summary>How recall scores</summary>
  <p>Recall offers memories, day records and facts. With words to search for, an item's score adds up the parts
  below, each with its own weight: how well the query's words match leads, and an item that holds too few of them
  is not offered at all, so a question nothing answers gets nothing rather than a guess. Importance and recency
  only break near-ties. With no words (an empty query) the most important recent items come first. Each result
  shows the parts that counted for it.</p>
  <dl class="grid">`, d.Budget, d.K)
	for _, s := range d.Scoring {
		w.put(`<dt>%s</dt><dd>%s</dd>`, s.Label, s.About)
	}
	w.put(`
  </dl>
</details>`)
	if d.Searched {
		writeResults(w, d)
	}
}

func writeResults(w *pageWriter, d searchData) {
	w.put(`
<h2>%s · %s tokens <span class="muted">(%s)</span></h2>`, plural(len(d.Items), "item", "items"), d.Result.Tokens, d.Took)
	if d.Result.Note != "" {
		w.put(`
<p class="note" role="status" id="recall-note">%s</p>`, d.Result.Note)
	}
	w.put(`
<ol class="results">`)
	for _, it := range d.Items {
		writeResult(w, d.Top, it)
	}
	if len(d.Items) == 0 {
		w.put(`
  <li class="muted">Nothing matched.</li>`)
	}
	w.put(`
</ol>
<details>
  <summary>The context as an agent receives it</summary>
  <pre class="context">%s</pre>
</details>`, d.Result.Context)
}

func writeResult(w *pageWriter, top float64, it searchItem) {
	w.put(`
  <li class="item kind-%s">
    <div class="meta">
      `, it.Kind)
	writeItemID(w, it)
	w.put(`
      <span class="badge">%s</span>`, it.Kind)
	if it.Explain != nil && it.Explain.Pinned {
		w.put(` <span class="badge warn">pinned</span>`)
	}
	w.put(`
      <time datetime="%s">%s</time>
      `, iso(it.Timestamp), w.when(it.Timestamp))
	if it.Role != "" {
		w.put(`<span class="muted">%s</span>`, it.Role)
	}
	w.put(`
    </div>
    <p class="text">%s</p>
    <div class="score"><meter min="0" max="%s" value="%s"></meter> score %s · %s tokens`, it.Text, top, it.Score, score(it.Score), it.Tokens)
	if len(it.Parts) > 0 {
		w.put(`
      <dl class="parts">`)
		for _, pt := range it.Parts {
			w.put(`<dt`)
			if pt.About != "" {
				w.put(` title="%s"`, pt.About)
			}
			w.put(`>%s</dt><dd>%s</dd>`, pt.Label, pt.Value)
		}
		w.put(`</dl>`)
	}
	w.put(`
    </div>
  </li>`)
}

// writeItemID is a cited item's id, a link to its page where it has one.
func writeItemID(w *pageWriter, it searchItem) {
	if it.Link != "" {
		w.put(`<a href="%u">%s</a>`, it.Link, it.ID)
	} else {
		w.put(`%s`, it.ID)
	}
}

func writeAsk(w *pageWriter, p *page, d askData) {
	a := p.Agent
	w.put(`
<h1>Ask %s</h1>
<form class="search" method="post" action="/agents/%p/ask">
  <input type="hidden" name="csrf" value="%s">
  <label for="q" class="sr">Question</label>
  <input id="q" name="q" type="search" value="%s" placeholder="Ask a question, e.g. what am I allergic to?" maxlength="4096">
  <button type="submit">Ask</button>
</form>
<p class="muted">The answer comes from this agent's memories, day records and facts only, and cites each one it used;
when nothing stored answers the question, it says so rather than guess.</p>`, a, a, p.CSRF, d.Question)
	if !d.Asked {
		return
	}
	if d.Result.Abstained {
		w.put(`
<section class="card answer abstained" id="answer">
  <h2>No answer</h2>
  <p class="big">Nothing stored answers this question, so Dormouse did not answer it.</p>
  <p class="muted">Try other words, <a href="/agents/%p/search?q=%q">search</a> for what you remember, or add the memory.</p>
</section>`, a, d.Question)
	} else {
		writeAnswer(w, d)
	}
	if d.Result.Note != "" {
		w.put(`
<p class="note" role="status" id="ask-note">%s</p>`, d.Result.Note)
	}
	if len(d.Cited) > 0 {
		writeCited(w, d.Cited)
	}
}

func writeAnswer(w *pageWriter, d askData) {
	w.put(`
<section class="card answer" id="answer">
  <h2>Answer</h2>
  <p class="big">`)
	for _, part := range d.Answer {
		switch {
		case part.Cite == "":
			w.put(`%s`, part.Text)
		case part.Link != "":
			w.put(`<a class="cite" href="%u">[%s]</a>`, part.Link, part.Cite)
		default:
			w.put(`<span class="cite">[%s]</span>`, part.Cite)
		}
	}
	n := len(d.Result.Citations)
	w.put(`</p>
  <p class="muted">%s · answered by %s (%s)`, plural(n, "citation", "citations"), d.Result.Provider, d.Took)
	if dropped := len(d.Result.Dropped); dropped > 0 {
		w.put(` · %s of nothing in the context removed`, plural(dropped, "citation", "citations"))
	}
	w.put(`</p>
</section>`)
}

func writeCited(w *pageWriter, cited []searchItem) {
	w.put(`
<h2>What it cites</h2>
<ol class="results cited">`)
	for _, it := range cited {
		w.put(`
  <li class="item kind-%s" id="cite-%s">
    <div class="meta">
      `, it.Kind, it.ID)
		writeItemID(w, it)
		w.put(`
      <span class="badge">%s</span>
      <time datetime="%s">%s</time>
    </div>
    <p class="text">%s</p>
  </li>`, it.Kind, iso(it.Timestamp), w.when(it.Timestamp), it.Text)
	}
	w.put(`
</ol>`)
}
