package recall

import (
	"context"
	"slices"
	"strings"
)

// The last stages: entities, then the floor an item must pass to be offered.

// markEntities marks the candidates naming an entity the question names.
func (r *ranker) markEntities(context.Context) error {
	for _, c := range r.cands {
		for _, n := range r.names {
			if containsFold(c.entities.Texts(), n) || c.fact != nil && strings.EqualFold(c.fact.Entity, n) ||
				namesAny(strings.Join(c.standsFor, " "), []string{n}) { // the successor of what named them: "actually, make it Friday"
				c.ex.Entity = 1
			}
		}
	}
	return nil
}

// floor turns the candidates into items, best first: those outside the
// question's time (strictRange), those about someone else than the person
// it asks about or theirs (othersOut) and those below the precision floor are left
// out; found reports whether any item reached the floor.
func (r *ranker) floor() (items []Item, found bool) {
	strict := r.strictRange()
	selects := r.wordsSelect()
	kept := func(c *cand) bool { return strict == nil || strict(c) }
	reaches := func(c *cand) bool { return r.reaches(c, selects) }
	others, notAnswer := r.othersOut(kept, reaches)
	items = make([]Item, 0, len(r.cands))
	for id, c := range r.cands {
		// Whose an item is, asked last: of the few the other tests keep.
		if !kept(c) || r.lexical() && c.ex.Neighbour == 0 && !reaches(c) || others != nil && others(c) ||
			r.self && c.ex.Neighbour > 0 && !reaches(c) && r.namesAnotherThing(c.hit.Text) {
			continue
		}
		found = found || reaches(c) && !r.nearMiss(c) && !notAnswer(c) // a near-miss is offered beside an answer, never as one
		items = append(items, r.item(id, c))
	}
	sortItems(items)
	return items, found
}

// reaches reports whether c reaches the precision floor: it holds enough
// of the question's words, is inside its date range (and, where the words
// select, holds them) or is similar in meaning.
func (r *ranker) reaches(c *cand, selects bool) bool {
	inRange := c.ex.InRange > 0 && (!selects || c.hit.Kind != "memory" ||
		c.ex.Relevance > 0 || c.ex.Expansion > 0)
	similar := c.ex.Semantic > 0 // above MinSimilarity: a match without the words
	return c.ex.Coverage >= r.t.MinCoverage || inRange || similar
}

// wordsSelect: within the question's date range, its other words select
// when they select anything: "how many times did I go climbing in May" is
// not answered by May's lunch, but "what happened on Feb 1" (no memory says
// "happened") is answered by all of that day.
func (r *ranker) wordsSelect() bool {
	for _, c := range r.cands {
		if c.hit.Kind == "memory" && c.ex.InRange > 0 && (c.ex.Relevance > 0 || c.ex.Expansion > 0) {
			return true
		}
	}
	return false
}

// item is the candidate c as offered, its score rounded.
func (r *ranker) item(id string, c *cand) Item {
	ex := c.ex
	ex.Total = round4(ex.Total)
	it := Item{
		ID: id, Kind: c.hit.Kind, Text: c.hit.Text, Score: ex.Total, Timestamp: c.hit.Timestamp,
		SessionID: c.hit.SessionID, Role: c.hit.Role, Origin: c.hit.Origin,
	}
	if r.q.Explain || r.e.Explain {
		roundExplain(&ex)
		it.Explain = &ex
	}
	return it
}

// namesAnotherThing reports whether s names a thing (a shop, a brand, a
// place: no person, no day) by another name than the question's and not
// the question's own: "the Wickes delivery is booked for Monday", the turn
// after the Toolstation order asked of, is another shop's. Only the user's
// own are read so: in a chat between two people the next turn is the reply.
func (r *ranker) namesAnotherThing(s string) bool {
	things := slices.DeleteFunc(slices.Clone(r.names), func(n string) bool { return slices.Contains(r.people, n) })
	if len(things) == 0 || namesAny(s, things) {
		return false
	}
	people := peopleNamed(s)
	return slices.ContainsFunc(properNames(s), func(n string) bool {
		return !slices.Contains(r.names, n) && !slices.Contains(people, n) && !calendarWord(n)
	})
}
