package consolidate

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/extract"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/store"
)

var llmDay = []store.Memory{
	{ID: 4, Role: "user", Content: "I'm a nurse at St Mary's.", Timestamp: time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)},
	{ID: 5, Role: "assistant", Content: "You mentioned you are vegan.", Timestamp: time.Date(2026, 5, 4, 9, 1, 0, 0, time.UTC)},
	{ID: 6, Role: "user", Content: "I stopped taking sertraline.", Timestamp: time.Date(2026, 5, 4, 10, 0, 0, 0, time.UTC)},
}

// TestModelLines: what a model offers is kept only when it is right by the
// vocabulary and the day's memories.
func TestModelLines(t *testing.T) {
	good := llm.ProfileEntry{Category: "work", Subject: "The user", Key: "job_title", Value: "nurse",
		Text: "The user is a nurse.", MemoryIDs: []int64{4}}
	for _, tc := range []struct {
		name  string
		spoil func(*llm.ProfileEntry)
		keep  bool
	}{
		{"as given", func(*llm.ProfileEntry) {}, true},
		{"key and category in other case", func(e *llm.ProfileEntry) { e.Key, e.Category = "Job_Title", "WORK" }, true},
		{"a key outside the vocabulary", func(e *llm.ProfileEntry) { e.Key = "shoe_size" }, false},
		{"a key of another category", func(e *llm.ProfileEntry) { e.Category = "health" }, false},
		{"an unknown category", func(e *llm.ProfileEntry) { e.Category = "hobbies" }, false},
		{"an id not given", func(e *llm.ProfileEntry) { e.MemoryIDs = []int64{4, 77} }, false},
		{"an agent's words as evidence", func(e *llm.ProfileEntry) {
			e.Key, e.Category, e.Value, e.MemoryIDs = "diet", "diet", "vegan", []int64{5}
		}, false},
		{"no citation", func(e *llm.ProfileEntry) { e.MemoryIDs = nil }, false},
		{"a text too long", func(e *llm.ProfileEntry) { e.Text = string(make([]byte, 300)) }, false},
		{"a value with no words", func(e *llm.ProfileEntry) { e.Value = "—" }, false},
	} {
		e := good
		tc.spoil(&e)
		got := modelLines([]llm.ProfileEntry{e}, llmDay)
		if (len(got) == 1) != tc.keep {
			t.Errorf("%s: %+v; keep = %v", tc.name, got, tc.keep)
		}
		if len(got) == 1 && (got[0].Subject != "user" || got[0].Key != "job_title" || !got[0].Single || !got[0].ValidFrom.Equal(llmDay[0].Timestamp)) {
			t.Errorf("%s: line %+v", tc.name, got[0])
		}
	}
	ended := modelLines([]llm.ProfileEntry{{Category: "health", Subject: "user", Key: "medication", Value: "sertraline",
		Text: "The user no longer takes sertraline.", Ended: true, MemoryIDs: []int64{6}}}, llmDay)
	if len(ended) != 1 || !ended[0].ValidTo.Equal(llmDay[2].Timestamp) || ended[0].Single {
		t.Errorf("an ended claim = %+v; want it ending at its memory", ended)
	}
}

// TestDayProfileMergesModelAndRules: the model's line and the rules' line
// of one claim are one line (the model's wording); a claim only the rules
// found is kept too.
func TestDayProfileMergesModelAndRules(t *testing.T) {
	offered := []llm.ProfileEntry{{Category: "work", Subject: "user", Key: "employer", Value: "St Mary's",
		Text: "The user works at St Mary's hospital.", MemoryIDs: []int64{4}}}
	var got []string
	for _, l := range dayProfile(llmDay, nil, offered) {
		got = append(got, describeLine(l))
	}
	want := []string{
		`work user/employer="St Mary's": The user works at St Mary's hospital.`,
		`work user/job_title="nurse": The user is a nurse.`,
		`health user/medication="sertraline": The user no longer takes sertraline. (until 2026-05-04)`,
	}
	if !slices.Equal(want, got) {
		t.Errorf("day profile = %q\nwant %q", got, want)
	}
}

// FuzzProfileAnswer: whatever a model answers, the record's check and
// modelLines yield only lines of the vocabulary, citing memories a person
// said, that the store accepts.
func FuzzProfileAnswer(f *testing.F) {
	f.Add([]byte(`{"summary":"s","profile":[{"category":"work","subject":"user","key":"job_title","value":"nurse","text":"The user is a nurse.","memory_ids":[4]}]}`))
	f.Add([]byte(`{"summary":"s","profile":[{"category":"diet","subject":"","key":"diet","value":"vegan","text":"x","memory_ids":[5,5]}]}`))
	f.Add([]byte(`{"summary":"s","profile":null}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		var r llm.Record
		if json.Unmarshal(raw, &r) != nil || r.Validate() != nil {
			return
		}
		for _, l := range modelLines(r.Profile, llmDay) {
			if err := store.CheckProfileLine(l); err != nil {
				t.Fatalf("a line the store refuses: %+v: %v", l, err)
			}
			if c, _ := extract.ProfileCategory(l.Key); c != l.Category {
				t.Fatalf("a line outside the vocabulary: %+v", l)
			}
			for _, id := range l.SourceMemoryIDs {
				if id != 4 && id != 6 {
					t.Fatalf("a line citing memory %d, which no person said that day: %+v", id, l)
				}
			}
		}
	})
}
