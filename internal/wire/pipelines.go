package wire

import (
	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// ConsolidateResult is what a consolidation did (or would do).
func ConsolidateResult(r consolidate.Result) client.ConsolidateResult {
	return client.ConsolidateResult{
		Agent: r.Agent, Runs: Runs(r.Runs), Plan: r.Plan, Retention: ptrTo(r.Retention, RetentionResult),
	}
}

// RetentionResult is what pruning and vacuuming did to one agent.
func RetentionResult(r consolidate.RetentionResult) client.RetentionResult {
	out := client.RetentionResult{Agent: r.Agent}
	out.Pruned.Days, out.Pruned.Memories = r.Pruned.Days, r.Pruned.Memories
	out.Vacuum.Converted, out.Vacuum.FreedPages = r.Vacuum.Converted, r.Vacuum.FreedPages
	out.Vacuum.BytesBefore, out.Vacuum.BytesAfter = r.Vacuum.BytesBefore, r.Vacuum.BytesAfter
	return out
}

// Health is the judged health report.
func Health(r health.Report) client.Health {
	return client.Health{
		State: r.State, Reasons: r.Reasons, At: r.At, System: r.System, Agents: each(r.Agents, healthAgent),
		Provider: r.Provider, Embeddings: r.Embeddings, Replication: r.Replication, Errors: r.Errors,
	}
}

func healthAgent(a health.Agent) client.HealthAgent {
	return client.HealthAgent{
		Name: a.Name, DBBytes: a.DBBytes, WALBytes: a.WALBytes, Memories: a.Memories, Backlog: a.Backlog,
		OldestUnconsolidated: a.OldestUnconsolidated, LastConsolidated: a.LastConsolidated,
		LastSuccess: a.LastSuccess, LastSuccessAgeHours: a.LastSuccessAgeHours, LastFailure: a.LastFailure,
		Consolidation: ptrTo(a.Consolidation, func(t store.RunTotals) client.HealthRuns {
			return client.HealthRuns{ByStatus: t.ByStatus, TokensIn: t.TokensIn, TokensOut: t.TokensOut}
		}),
		FailingFiles: a.FailingFiles, Unavailable: a.Unavailable, StorageFull: a.StorageFull,
	}
}

// FileOutcome is what the file pipeline did with one file.
func FileOutcome(o watch.Outcome) client.FileOutcome {
	return client.FileOutcome{Path: o.Path, Status: o.Status, Error: o.Error, Parts: o.Parts,
		Inserted: o.Inserted, Reused: o.Reused, Retired: o.Retired, Refreshed: o.Refreshed}
}

// FailingFiles converts the tracked files whose last attempt failed.
func FailingFiles(fs []watch.FailingFile) []client.FailingFile {
	return each(fs, func(f watch.FailingFile) client.FailingFile {
		t := f.TrackedFile
		return client.FailingFile{Agent: f.Agent, Root: t.Root, Path: t.Path, SHA256: t.SHA256, Size: t.Size,
			MTime: t.MTime, Status: t.Status, Error: t.Error, Attempts: t.Attempts, NextRetry: t.NextRetry,
			Memories: t.Memories, UpdatedAt: t.UpdatedAt, Undescribed: t.Undescribed}
	})
}

// ptrTo converts what p points to, keeping nil nil.
func ptrTo[S, T any](p *S, f func(S) T) *T {
	if p == nil {
		return nil
	}
	v := f(*p)
	return &v
}
