package llm

import (
	"testing"
)

func TestExtractJSON(t *testing.T) {
	const obj = `{"summary":"a {braced} day","topics":["x"]}`
	for _, tc := range []struct {
		name, answer, want string
		wantErr            bool
	}{
		{name: "bare", answer: obj, want: obj},
		{name: "spaces around", answer: "\n  " + obj + "\n", want: obj},
		{name: "fenced json", answer: "```json\n" + obj + "\n```", want: obj},
		{name: "fenced without language", answer: "```\n" + obj + "\n```", want: obj},
		{name: "prose around", answer: "Sure! Here it is: " + obj + " Hope that helps {really}.", want: obj},
		{name: "prose with a stray brace first", answer: "Using {braces} as asked:\n" + obj, want: obj},
		{name: "fence after a broken one", answer: "```json\n{\"summary\":\n```\nfixed:\n```json\n" + obj + "\n```", want: obj},
		{name: "truncated", answer: `{"summary":"cut off`, wantErr: true},
		{name: "empty", answer: "  ", wantErr: true},
		{name: "no object", answer: "I cannot do that.", wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := extractJSON(tc.answer)
			if (err != nil) != tc.wantErr {
				t.Fatalf("extractJSON error = %v, want error %v", err, tc.wantErr)
			}
			if string(got) != tc.want {
				t.Errorf("extractJSON = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestRecordValidate(t *testing.T) {
	ok := func() Record {
		return Record{Summary: "s", KeyFacts: []KeyFact{{Entity: "Alice", FactType: "Attribute", Content: "c", MemoryIDs: []int64{1}, Confidence: 3}}}
	}
	r := ok()
	if err := r.Validate(); err != nil || r.KeyFacts[0].FactType != "attribute" || r.KeyFacts[0].Confidence != 0.7 {
		t.Errorf("Validate tidy: %v, %+v", err, r.KeyFacts[0])
	}
	for name, spoil := range map[string]func(*Record){
		"no summary":    func(r *Record) { r.Summary = " " },
		"no entity":     func(r *Record) { r.KeyFacts[0].Entity = "" },
		"no content":    func(r *Record) { r.KeyFacts[0].Content = "" },
		"no ids":        func(r *Record) { r.KeyFacts[0].MemoryIDs = nil },
		"bad type":      func(r *Record) { r.KeyFacts[0].FactType = "gossip" },
		"empty entity":  func(r *Record) { r.Entities = []Entity{{}} },
		"empty insight": func(r *Record) { r.Insights = []Insight{{}} },
	} {
		r := ok()
		spoil(&r)
		if err := r.Validate(); err == nil {
			t.Errorf("%s: Validate() = nil, want an error", name)
		}
	}
}

func TestClassify(t *testing.T) {
	for _, tc := range []struct {
		status   int
		timedOut bool
		kind     error
		retry    bool
	}{
		{0, true, ErrUnavailable, true},
		{0, false, ErrUnavailable, true},
		{200, false, ErrUnavailable, true},
		{408, false, ErrUnavailable, true},
		{429, false, ErrUnavailable, true},
		{500, false, ErrUnavailable, true},
		{529, false, ErrUnavailable, true},
		{400, false, ErrRefused, false},
		{401, false, ErrRefused, false},
		{404, false, ErrRefused, false},
	} {
		kind, _, retry := classify(tc.status, tc.timedOut)
		if kind != tc.kind || retry != tc.retry {
			t.Errorf("classify(%d, %v) = %v, %v; want %v, %v", tc.status, tc.timedOut, kind, retry, tc.kind, tc.retry)
		}
	}
}

func TestUsageOf(t *testing.T) {
	for _, tc := range []struct {
		info    map[string]any
		in, out int
		ok      bool
	}{
		{map[string]any{"PromptTokens": 10, "CompletionTokens": 5}, 10, 5, true},            // openai, ollama
		{map[string]any{"InputTokens": 10, "OutputTokens": 5}, 10, 5, true},                 // anthropic
		{map[string]any{"input_tokens": int32(10), "output_tokens": int32(5)}, 10, 5, true}, // googleai, bedrock
		{map[string]any{"PromptTokens": 0, "CompletionTokens": 0}, 0, 0, false},
		{nil, 0, 0, false},
	} {
		in, out, ok := usageOf(tc.info)
		if in != tc.in || out != tc.out || ok != tc.ok {
			t.Errorf("usageOf(%v) = %d, %d, %v; want %d, %d, %v", tc.info, in, out, ok, tc.in, tc.out, tc.ok)
		}
	}
}
