package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
)

func runExport(ctx context.Context, env Env, args []string) error {
	fs, c := agentCommand(env, "export", "--agent NAME [--format jsonl|markdown] [--out FILE|DIR] [flags]")
	format := fs.String("format", "jsonl", "jsonl (lossless, what import reads) or markdown (a note per day, for Obsidian)")
	out := fs.String("out", "", "jsonl: the file to write (default stdout); markdown: the directory for the notes (required)")
	if err := parseNone(fs, args); err != nil {
		return err
	}
	if *format != "jsonl" && *format != "markdown" {
		return usagef("--format must be jsonl or markdown, got %q", *format)
	}
	if *format == "markdown" && *out == "" {
		return usagef("--format markdown writes one note per day: name the directory with --out DIR")
	}
	api, err := c.openAPI(ctx, env, false)
	if err != nil {
		return err
	}
	defer api.done()
	cl := api.cl
	if *format == "markdown" {
		var buf bytes.Buffer
		if err := cl.Export(ctx, c.agent, &buf); err != nil {
			return err
		}
		n, err := writeMarkdown(&buf, *out, api.loc)
		if err == nil {
			fmt.Fprintf(env.Stderr, "wrote %d day notes to %s\n", n, *out)
		}
		return err
	}
	if *out == "" {
		return cl.Export(ctx, c.agent, env.Stdout)
	}
	return exportToFile(ctx, cl, c.agent, *out)
}

// exportToFile writes the export to path (0600) by way of a temporary
// file, so a failed export never leaves a file that looks whole.
func exportToFile(ctx context.Context, cl *client.Client, agent, path string) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("export to %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	err = cl.Export(ctx, agent, tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("export to %s: %w", path, err)
	}
	return nil
}

func runImport(ctx context.Context, env Env, args []string) error {
	fs, c := hostCommand(env, "import", "[--agent NAME] [--merge] FILE   (an export; - for stdin)")
	fs.StringVar(&c.agent, "agent", "", "the agent to import into (default: the one the export names)")
	merge := fs.Bool("merge", false, "add to an agent that holds memories already (an ID it has or had fails the import)")
	pos, err := parse(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("import takes one file (an export, or - for stdin), got %d arguments", len(pos))
	}
	body, closeBody, err := openImport(env, pos[0])
	if err != nil {
		return err
	}
	defer closeBody()
	agent := c.agent
	if agent == "" {
		if agent, err = exportAgent(body); err != nil {
			return err
		}
	}
	api, err := c.openAPI(ctx, env, true)
	if err != nil {
		return err
	}
	defer api.done()
	res, err := api.cl.Import(ctx, agent, body, client.ImportOptions{Merge: *merge})
	if err != nil {
		return err
	}
	if c.json {
		return printJSON(env.Stdout, res)
	}
	fmt.Fprintf(env.Stdout, "imported into agent %s: %s\n", agent, recordCounts(res.Records))
	return nil
}

// maxHeader bounds the export's first line as exportAgent reads it.
const maxHeader = 64 << 10

// openImport is the export to stream: the file at path, which a retry can
// rewind, or stdin ("-"), sent once. Neither is read into memory.
func openImport(env Env, path string) (io.Reader, func() error, error) {
	if path == "-" {
		return bufio.NewReaderSize(env.Stdin, maxHeader), func() error { return nil }, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("read the export: %w", err)
	}
	return f, f.Close, nil
}

// exportAgent is the agent the export's header names, read without
// consuming the export: at offset 0 of a file, or peeked from stdin.
func exportAgent(body io.Reader) (string, error) {
	var head []byte
	var err error
	switch r := body.(type) {
	case *bufio.Reader:
		head, err = r.Peek(maxHeader)
	case io.ReaderAt:
		head = make([]byte, maxHeader)
		var n int
		n, err = r.ReadAt(head, 0)
		head = head[:n]
	}
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read the export: %w", err)
	}
	line, _, _ := bytes.Cut(head, []byte("\n"))
	var h client.ExportHeader
	if err := json.Unmarshal(line, &h); err != nil || h.Type != "dormouse-export" || h.Agent == "" {
		return "", usagef("the file does not start with a Dormouse export's header naming its agent: pass --agent NAME, or check the file")
	}
	return h.Agent, nil
}

func recordCounts(counts map[string]int) string {
	kinds := make([]string, 0, len(counts))
	for k := range counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	parts := make([]string, 0, len(kinds))
	for _, k := range kinds {
		parts = append(parts, fmt.Sprintf("%d %s", counts[k], k))
	}
	if len(parts) == 0 {
		return "nothing (the export was empty)"
	}
	return strings.Join(parts, ", ")
}

// noteMemory and noteDay are what a day's note shows of the export's
// memory and day records.
type noteMemory struct {
	ID        int64  `json:"id"`
	TS        int64  `json:"ts"`
	Day       string `json:"day"`
	Role      string `json:"role"`
	Content   string `json:"content"`
	Flagged   int    `json:"flagged"`
	RetiredAt *int64 `json:"retired_at"`
}

type noteDay struct {
	Date     string `json:"date"`
	Summary  string `json:"summary"`
	KeyFacts string `json:"key_facts"` // a JSON array of key facts, as the table keeps it
}

// dayNotes gathers an export's memories and day records by day.
type dayNotes struct {
	agent    string
	memories map[string][]noteMemory
	records  map[string]noteDay
}

func readDayNotes(r io.Reader) (*dayNotes, error) {
	d := &dayNotes{memories: map[string][]noteMemory{}, records: map[string]noteDay{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if err := d.add(sc.Bytes()); err != nil {
			return nil, fmt.Errorf("read the export: line %d: %w", n, err)
		}
	}
	return d, sc.Err()
}

func (d *dayNotes) add(line []byte) error {
	var kind struct {
		Type  string `json:"type"`
		Agent string `json:"agent"`
	}
	if err := json.Unmarshal(line, &kind); err != nil {
		return err
	}
	switch kind.Type {
	case "dormouse-export":
		d.agent = kind.Agent
	case "memory":
		var m noteMemory
		if err := json.Unmarshal(line, &m); err != nil {
			return err
		}
		if m.Flagged == 0 { // a forgotten claim said again: never recalled, not shown
			d.memories[m.Day] = append(d.memories[m.Day], m)
		}
	case "day":
		var day noteDay
		if err := json.Unmarshal(line, &day); err != nil {
			return err
		}
		d.records[day.Date] = day
	}
	return nil
}

// writeMarkdown writes one note per day (YYYY-MM-DD.md) into dir and
// returns how many. Every note is made before the first is written, so an
// export that cannot be read writes none.
func writeMarkdown(r io.Reader, dir string, loc *time.Location) (int, error) {
	d, err := readDayNotes(r)
	if err != nil {
		return 0, err
	}
	days := d.days()
	notes := make([]string, len(days))
	for i, day := range days {
		if notes[i], err = d.note(day, loc); err != nil {
			return 0, fmt.Errorf("export to %s: %w", dir, err)
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, fmt.Errorf("export to %s: %w", dir, err)
	}
	for i, day := range days {
		path := filepath.Join(dir, day+".md")
		if err := os.WriteFile(path, []byte(notes[i]), 0o600); err != nil {
			return 0, fmt.Errorf("export to %s: %w", path, err)
		}
	}
	return len(days), nil
}

func (d *dayNotes) days() []string {
	set := map[string]bool{}
	for day := range d.memories {
		set[day] = true
	}
	for day := range d.records {
		set[day] = true
	}
	days := make([]string, 0, len(set))
	for day := range set {
		days = append(days, day)
	}
	sort.Strings(days)
	return days
}

// note is the day's Markdown: front matter, the day record, then the
// memories in time order, each with its time and its citation id.
func (d *dayNotes) note(day string, loc *time.Location) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "---\ndate: %s\nagent: %s\nmemories: %d\n---\n\n# %s\n", day, d.agent, len(d.memories[day]), day)
	if rec, ok := d.records[day]; ok {
		fmt.Fprintf(&b, "\n## Day record\n\n%s\n", strings.TrimSpace(rec.Summary))
		var facts []consolidate.KeyFact
		if err := json.Unmarshal([]byte(rec.KeyFacts), &facts); err != nil {
			return "", fmt.Errorf("read the key facts of day %s: %w", day, err)
		}
		for i, f := range facts {
			if i == 0 {
				b.WriteString("\n")
			}
			b.WriteString("- " + keyFactLine(f) + "\n")
		}
	}
	mems := d.memories[day]
	sort.SliceStable(mems, func(i, j int) bool {
		return mems[i].TS < mems[j].TS || mems[i].TS == mems[j].TS && mems[i].ID < mems[j].ID
	})
	if len(mems) > 0 {
		b.WriteString("\n## Memories\n")
	}
	for _, m := range mems {
		fmt.Fprintf(&b, "\n### %s · memory:%d", time.UnixMilli(m.TS).In(loc).Format("15:04"), m.ID)
		if m.Role != "" {
			fmt.Fprintf(&b, " · %s", m.Role)
		}
		if m.RetiredAt != nil {
			b.WriteString(" · retired")
		}
		fmt.Fprintf(&b, "\n\n%s\n", strings.TrimSpace(m.Content))
	}
	return b.String(), nil
}

// keyFactLine is a key fact as a note's bullet: its statement (or entity,
// attribute and value when it has none), then the memories it came from.
func keyFactLine(f consolidate.KeyFact) string {
	line := strings.Join(strings.Fields(f.Content), " ")
	if line == "" {
		line = f.Entity + " · " + f.Attribute + ": " + f.Value
	}
	if len(f.MemoryIDs) == 0 {
		return line
	}
	cites := make([]string, len(f.MemoryIDs))
	for i, id := range f.MemoryIDs {
		cites[i] = "memory:" + strconv.FormatInt(id, 10)
	}
	return line + " (" + strings.Join(cites, ", ") + ")"
}
