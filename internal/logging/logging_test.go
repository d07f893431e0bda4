package logging

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/coreos/go-systemd/v22/journal"
	"github.com/google/go-cmp/cmp"
)

type entry struct {
	msg  string
	pri  journal.Priority
	vars map[string]string
}

type recorder struct{ entries []entry }

func (r *recorder) send(msg string, pri journal.Priority, vars map[string]string) error {
	r.entries = append(r.entries, entry{msg, pri, vars})
	return nil
}

func TestJournalFields(t *testing.T) {
	var rec recorder
	log := slog.New(NewJournalHandler(rec.send, nil, slog.LevelDebug))
	ctx := WithRequestID(context.Background(), "abc123")
	log.With("agent", "main").InfoContext(ctx, "consolidated", "run_id", int64(42), "day", "2026-03-01",
		slog.Group("llm", "model", "qwen2.5", "took", 1500*time.Millisecond))
	if len(rec.entries) != 1 {
		t.Fatalf("%d entries, want 1", len(rec.entries))
	}
	e := rec.entries[0]
	if e.pri != journal.PriInfo {
		t.Errorf("priority %d, want %d", e.pri, journal.PriInfo)
	}
	want := map[string]string{
		"SYSLOG_IDENTIFIER": "dormouse",
		"AGENT":             "main",
		"RUN_ID":            "42",
		"DAY":               "2026-03-01",
		"LLM_MODEL":         "qwen2.5",
		"LLM_TOOK":          "1.5s",
		"REQUEST_ID":        "abc123",
	}
	got := map[string]string{}
	for k, v := range e.vars {
		if !strings.HasPrefix(k, "CODE_") {
			got[k] = v
		}
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("fields (-want +got):\n%s", d)
	}
	if !strings.HasSuffix(e.vars["CODE_FILE"], "logging_test.go") || e.vars["CODE_LINE"] == "" {
		t.Errorf("CODE_FILE=%q CODE_LINE=%q, want this test's position", e.vars["CODE_FILE"], e.vars["CODE_LINE"])
	}
	wantMsg := "consolidated agent=main run_id=42 day=2026-03-01 llm.model=qwen2.5 llm.took=1.5s request_id=abc123"
	if e.msg != wantMsg {
		t.Errorf("MESSAGE\n got %q\nwant %q", e.msg, wantMsg)
	}
}

func TestJournalPriorities(t *testing.T) {
	tests := []struct {
		level slog.Level
		want  journal.Priority
	}{
		{slog.LevelDebug, journal.PriDebug},
		{slog.LevelDebug + 2, journal.PriDebug},
		{slog.LevelInfo, journal.PriInfo},
		{slog.LevelWarn, journal.PriWarning},
		{slog.LevelError, journal.PriErr},
		{slog.LevelError + 4, journal.PriErr},
	}
	for _, tt := range tests {
		var rec recorder
		slog.New(NewJournalHandler(rec.send, nil, slog.LevelDebug)).Log(context.Background(), tt.level, "x")
		if len(rec.entries) != 1 || rec.entries[0].pri != tt.want {
			t.Errorf("level %v: entries %+v, want priority %d", tt.level, rec.entries, tt.want)
		}
	}
}

func TestJournalLevelFilter(t *testing.T) {
	var rec recorder
	log := slog.New(NewJournalHandler(rec.send, nil, slog.LevelWarn))
	log.Info("dropped")
	log.Warn("kept")
	if len(rec.entries) != 1 || rec.entries[0].msg != "kept" {
		t.Errorf("entries %+v, want only the warning", rec.entries)
	}
}

func TestJournalWithAttrsDoesNotLeak(t *testing.T) {
	var rec recorder
	base := slog.New(NewJournalHandler(rec.send, nil, slog.LevelInfo)).With("agent", "a")
	b1 := base.With("run_id", 1)
	b2 := base.With("run_id", 2)
	b1.Info("one")
	b2.Info("two")
	base.WithGroup("g").Info("three", "k", "v")
	if rec.entries[0].vars["RUN_ID"] != "1" || rec.entries[1].vars["RUN_ID"] != "2" {
		t.Errorf("RUN_ID %q and %q, want 1 and 2", rec.entries[0].vars["RUN_ID"], rec.entries[1].vars["RUN_ID"])
	}
	if _, ok := rec.entries[2].vars["RUN_ID"]; ok || rec.entries[2].vars["G_K"] != "v" || rec.entries[2].vars["AGENT"] != "a" {
		t.Errorf("grouped entry fields %v", rec.entries[2].vars)
	}
}

func TestFieldName(t *testing.T) {
	for key, want := range map[string]string{
		"agent":                 "AGENT",
		"request_id":            "REQUEST_ID",
		"llm.model":             "LLM_MODEL",
		"took-ms":               "TOOK_MS",
		"_private":              "PRIVATE",
		"9lives":                "LIVES",
		"message":               "ATTR_MESSAGE",
		"priority":              "ATTR_PRIORITY",
		"code_file":             "ATTR_CODE_FILE",
		"é":                     "ATTR",
		"":                      "ATTR",
		strings.Repeat("k", 80): strings.Repeat("K", 64),
	} {
		if got := FieldName(key); got != want {
			t.Errorf("FieldName(%q) = %q, want %q", key, got, want)
		}
	}
}

func TestJournalFallback(t *testing.T) {
	var buf bytes.Buffer
	fail := func(string, journal.Priority, map[string]string) error { return errors.New("socket gone") }
	err := NewJournalHandler(fail, &buf, slog.LevelInfo).Handle(context.Background(),
		slog.NewRecord(time.Now(), slog.LevelWarn, "disk nearly full", 0))
	if err == nil || !strings.Contains(buf.String(), "disk nearly full") || !strings.Contains(buf.String(), "socket gone") {
		t.Errorf("err %v, fallback %q", err, buf.String())
	}
}

func TestNewChoosesText(t *testing.T) {
	var buf bytes.Buffer
	log := New(nil, &buf, "debug")
	log.DebugContext(WithRequestID(context.Background(), "r1"), "hello", "agent", "main")
	if got := buf.String(); !strings.Contains(got, "msg=hello") || !strings.Contains(got, "agent=main") || !strings.Contains(got, "request_id=r1") {
		t.Errorf("text output %q", got)
	}
	buf.Reset()
	New(nil, &buf, "warn").Info("quiet")
	if buf.Len() != 0 {
		t.Errorf("info logged at warn level: %q", buf.String())
	}
}

// TestNewJournalStream: with JOURNAL_STREAM set, New sends to the journal if
// its socket answers on this machine, and falls back to text otherwise.
func TestNewJournalStream(t *testing.T) {
	var buf bytes.Buffer
	log := New([]string{"JOURNAL_STREAM=8:12345"}, &buf, "info")
	_, isJournal := log.Handler().(*JournalHandler)
	if isJournal != journal.Enabled() {
		t.Errorf("journal handler %v, journal socket answers %v", isJournal, journal.Enabled())
	}
	if !isJournal {
		log.Info("to stderr")
		if !strings.Contains(buf.String(), "to stderr") {
			t.Errorf("text fallback wrote %q", buf.String())
		}
	}
}
