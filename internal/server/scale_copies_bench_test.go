package server

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/backup"
	"github.com/dormouse-dev/dormouse/internal/benchdata"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/store"
)

// BenchmarkScaleCopies grows one agent of dense memories as BenchmarkScale
// does and, at 100k and 1M (DORMOUSE_SCALE_MAX stops earlier), times what
// the CLI's copies do below HTTP: a backup (backup.Of: VACUUM INTO and
// integrity_check), an export to a file (Agent.Export, what GET …/export
// streams), an import of that file into a new agent (Store.Import, what
// POST …/import runs, with capture's checks) and a restore of the backup
// into an empty data directory (backup.Restore: verify, copy, verify).
// Each is reported in seconds and in MB/s of what it reads (the agent file
// for the backup, the backup for the restore, the export for the import)
// or writes (the export).
func BenchmarkScaleCopies(b *testing.B) {
	sizes := sizesToRun()
	mems := benchdata.Dense(sizes[len(sizes)-1], benchEnd, benchdata.WithoutSession)
	for b.Loop() {
		dir := b.TempDir()
		st, a := benchAgent(b, dir)
		stored := 0
		for _, n := range sizes {
			growTo(b, a, mems, &stored, n)
			if n < 100_000 {
				continue
			}
			copies(b, st, a, count(n))
		}
	}
}

// copies times a backup, an export, an import and a restore of a.
func copies(b *testing.B, st *store.Store, a *store.Agent, size string) {
	work := b.TempDir()
	start := time.Now()
	bk, err := backup.Of(b.Context(), a, backup.Options{Dir: filepath.Join(work, "backups")})
	if err != nil {
		b.Fatal(err)
	}
	report(b, "backup-"+size, time.Since(start), bk.Bytes)

	export := filepath.Join(work, "main.jsonl")
	start = time.Now()
	exportTo(b, a, export)
	report(b, "export-"+size, time.Since(start), fileBytes(b, export))

	start = time.Now()
	importFrom(b, st, "copy-"+strings.ToLower(size), export)
	report(b, "import-"+size, time.Since(start), fileBytes(b, export))

	start = time.Now()
	if _, err := backup.Restore(b.Context(), backup.RestoreOptions{DataDir: filepath.Join(work, "restored"), Agent: "main", From: bk.Path}); err != nil {
		b.Fatal(err)
	}
	report(b, "restore-"+size, time.Since(start), bk.Bytes)
}

func exportTo(b *testing.B, a *store.Agent, path string) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<16)
	err = a.Export(b.Context(), w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		b.Fatal(err)
	}
}

func importFrom(b *testing.B, st *store.Store, agent, path string) {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	limits := capture.Limits{MaxContent: 64 << 10}
	res, err := st.Import(b.Context(), agent, bufio.NewReaderSize(f, 1<<16), store.ImportOptions{
		CheckMemory: func(m store.Memory) error { return limits.CheckImported(m, benchEnd) }})
	if err != nil {
		b.Fatal(err)
	}
	if !res.Created || res.Records["memory"] == 0 {
		b.Fatalf("import made no agent of memories: %+v", res)
	}
}

// report reports how long one copy took and its rate over bytes.
func report(b *testing.B, name string, took time.Duration, bytes int64) {
	b.ReportMetric(took.Seconds(), name+"-s")
	b.ReportMetric(float64(bytes)/1e6/took.Seconds(), name+"-MB/s")
}

func fileBytes(b *testing.B, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	return fi.Size()
}
