// Package wire turns the store's, recall's and the pipelines' values into the
// API's JSON types, which the public client package defines: the one place
// each is converted, for the server and for the CLI's --data commands.
package wire

import (
	"strconv"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// Where a store type has the very fields of its wire type, a Go conversion
// does the copying: a field added to one and not the other stops the build.

// Memory is a stored memory as the API serves it.
func Memory(m store.Memory) client.Memory {
	return client.Memory{
		ID: m.ID, SessionID: m.SessionID, Timestamp: m.Timestamp, InteractionType: m.InteractionType,
		Role: m.Role, Content: m.Content, Context: m.Context, Importance: m.Importance, Source: m.Source,
		ContentHash: m.ContentHash, Summary: m.Summary, Entities: entities(m.Entities), Topics: m.Topics,
		Consolidated: m.Consolidated, ConsolidationID: m.ConsolidationID, CreatedAt: m.CreatedAt, Flagged: m.Flagged,
		SupersededBy: m.SupersededBy, SharedFrom: provenance(m.SharedFrom),
	}
}

func provenance(p *store.Provenance) *client.Provenance {
	if p == nil {
		return nil
	}
	return &client.Provenance{Agent: p.Agent, ID: p.ID}
}

// Shared is a share's outcome as the API serves it, the copy being in agent.
func Shared(agent string, s store.Shared) client.Shared {
	return client.Shared{Agent: agent, ID: s.ID, SharedFrom: client.Provenance(s.From), Existing: s.Existing}
}

func entities(es []store.Entity) []client.Entity {
	return each(es, func(e store.Entity) client.Entity { return client.Entity(e) })
}

// Memories converts a page of memories.
func Memories(ms []store.Memory) []client.Memory { return each(ms, Memory) }

// Inserted converts the outcomes of storing memories.
func Inserted(in []store.Inserted) []client.Inserted {
	return each(in, func(x store.Inserted) client.Inserted { return client.Inserted(x) })
}

// Fact is a stored fact as the API serves it.
func Fact(f store.Fact) client.Fact { return client.Fact(f) }

// Facts converts facts.
func Facts(fs []store.Fact) []client.Fact { return each(fs, Fact) }

// Consolidation is a day record as the API serves it.
func Consolidation(c store.Consolidation) client.Consolidation { return client.Consolidation(c) }

// Consolidations converts day records.
func Consolidations(cs []store.Consolidation) []client.Consolidation { return each(cs, Consolidation) }

// Stats converts an agent's counts.
func Stats(s store.Stats) client.Stats { return client.Stats(s) }

// MemoryOrigin converts where a memory from a file came from.
func MemoryOrigin(o store.MemoryOrigin) client.MemoryOrigin { return client.MemoryOrigin(o) }

// Runs converts consolidation runs.
func Runs(rs []store.Run) []client.Run {
	return each(rs, func(r store.Run) client.Run { return client.Run(r) })
}

// each converts every element. Nil stays nil and empty stays empty: the
// JSON says null or [] as it did before the conversion.
func each[S, T any](in []S, f func(S) T) []T {
	if in == nil {
		return nil
	}
	out := make([]T, len(in))
	for i, x := range in {
		out[i] = f(x)
	}
	return out
}

// ProfileLine is a profile line as the API serves it: its id and sources as
// citations ("profile:12", "memory:4").
func ProfileLine(l store.ProfileLine) client.ProfileLine {
	out := client.ProfileLine{
		ID: ProfileID(l.ID), Category: l.Category, Subject: l.Subject, Key: l.Key, Value: l.Value, Text: l.Text,
		Sources: make([]string, len(l.SourceMemoryIDs)), ValidFrom: l.ValidFrom, Edited: l.Edited, Removed: l.Removed,
	}
	for i, id := range l.SourceMemoryIDs {
		out.Sources[i] = "memory:" + strconv.FormatInt(id, 10)
	}
	if !l.ValidTo.IsZero() {
		out.ValidTo = &l.ValidTo
	}
	if l.SupersededBy != 0 {
		out.SupersededBy = ProfileID(l.SupersededBy)
	}
	return out
}

// ProfileLines converts profile lines.
func ProfileLines(ls []store.ProfileLine) []client.ProfileLine { return each(ls, ProfileLine) }

// ProfileID is a profile line's citation.
func ProfileID(id int64) string { return "profile:" + strconv.FormatInt(id, 10) }
