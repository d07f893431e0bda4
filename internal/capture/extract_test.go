package capture

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite testdata/extract/*.golden.json from the current extractor")

func goldenInputs(t testing.TB) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join("testdata", "extract", "*.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no inputs in testdata/extract")
	}
	return paths
}

func TestExtractGolden(t *testing.T) {
	for _, path := range goldenInputs(t) {
		name := strings.TrimSuffix(filepath.Base(path), ".txt")
		t.Run(name, func(t *testing.T) {
			in, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(Extract(string(in)), "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, '\n')
			golden := strings.TrimSuffix(path, ".txt") + ".golden.json"
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if diff := cmp.Diff(string(want), string(got)); diff != "" {
				t.Errorf("Extract(%s) mismatch (-want +got):\n%s", path, diff)
			}
		})
	}
}

func TestExtractEntities(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []Entity
	}{
		{
			name: "names",
			in:   "Lunch with Alice, Bob Smith and the Bank of England team in New York.",
			want: []Entity{{"Alice", "name"}, {"Bob Smith", "name"}, {"Bank of England", "name"}, {"New York", "name"}},
		},
		{
			name: "sentence-initial common words are not names",
			in:   "The meeting moved. Today we met. Discussed pricing. Thanks Bob.",
			want: []Entity{{"Bob", "name"}},
		},
		{
			name: "pay words opening a sentence are not names",
			in:   "Payday is the 28th. Salary goes in on Friday. Wages are paid weekly.",
			want: []Entity{{"Friday", "date"}},
		},
		{
			name: "sentence-initial name with a verb after it",
			in:   "Alice prefers tea. Priya's flight lands late.",
			want: []Entity{{"Alice", "name"}, {"Priya", "name"}},
		},
		{
			name: "speaker labels",
			in:   "Alice: are we done?\nBob: yes.\nUser: thanks",
			want: []Entity{{"Alice", "name"}, {"Bob", "name"}},
		},
		{
			name: "months and weekdays are dates, not names",
			in:   "See you Monday. Mondays are busy; in May and in August we rest.",
			want: []Entity{{"Monday", "date"}, {"Mondays", "date"}, {"May", "date"}, {"August", "date"}},
		},
		{
			name: "dates",
			in:   "2026-02-01, Feb 1, 1 February 2026, March 3rd, the 3rd of March, Sept. 9, 2025, 01/02/2026, yesterday, tomorrow, next Tuesday, last week, since 2019",
			want: []Entity{
				{"2026-02-01", "date"}, {"Feb 1", "date"}, {"1 February 2026", "date"}, {"March 3rd", "date"},
				{"3rd of March", "date"}, {"Sept. 9, 2025", "date"}, {"01/02/2026", "date"}, {"yesterday", "date"},
				{"tomorrow", "date"}, {"next Tuesday", "date"}, {"last week", "date"}, {"2019", "date"},
			},
		},
		{
			name: "today is the memory's own day, not an entity",
			in:   "today and tonight",
			want: []Entity{},
		},
		{
			name: "times",
			in:   "at 14:30, 3pm, 9:15 am, 7 p.m. and noon; 10:30-11:00",
			want: []Entity{{"14:30", "time"}, {"3pm", "time"}, {"9:15 am", "time"}, {"7 p.m.", "time"}, {"noon", "time"}, {"10:30-11:00", "time"}},
		},
		{
			name: "money",
			in:   "$12.50, €30, 30 EUR, 1,200 dollars, £5k, 1.2 million euros, USD 40, 45 €",
			want: []Entity{
				{"$12.50", "money"}, {"€30", "money"}, {"30 EUR", "money"}, {"1,200 dollars", "money"},
				{"£5k", "money"}, {"1.2 million euros", "money"}, {"USD 40", "money"}, {"45 €", "money"},
			},
		},
		{
			name: "plain numbers are not money",
			in:   "we need 30 chairs and 12.5 litres",
			want: []Entity{},
		},
		{
			name: "codes",
			in:   "JIRA-123 ABC-42 v2.3.1 RFC 3339 ABC123 CVE-2024-1234 1.4.2",
			want: []Entity{
				{"JIRA-123", "code"}, {"ABC-42", "code"}, {"v2.3.1", "code"}, {"RFC 3339", "code"},
				{"ABC123", "code"}, {"CVE-2024-1234", "code"}, {"1.4.2", "code"},
			},
		},
		{
			name: "quantities are not codes",
			in:   "a 5G phone with 2FA and 10M users",
			want: []Entity{},
		},
		{
			name: "handles, emails and urls",
			in:   "(@alice) mail bob.smith@example.com or see https://example.com/a_(b), then http://x.org.",
			want: []Entity{{"@alice", "handle"}, {"bob.smith@example.com", "email"}, {"https://example.com/a_(b)", "url"}, {"http://x.org", "url"}},
		},
		{
			name: "an address is neither a name nor a handle",
			in:   "Alice.Smith@Example.com wrote from https://Example.com/Alice",
			want: []Entity{{"Alice.Smith@Example.com", "email"}, {"https://Example.com/Alice", "url"}},
		},
		{
			name: "de-duplicated case-insensitively in first-seen order",
			in:   "Bob met Alice. Later Alice's dog met BOB and bob.",
			want: []Entity{{"Bob", "name"}, {"Alice", "name"}},
		},
		{
			name: "shouting is not acronyms",
			in:   "WHY IS THE NAS DOWN AGAIN",
			want: []Entity{},
		},
		{
			name: "acronyms in normal text",
			in:   "The NAS at home runs ZFS.",
			want: []Entity{{"NAS", "name"}, {"ZFS", "name"}},
		},
		{
			name: "a date or code after a capitalised word is not swallowed into a name",
			in:   "On Jan 14 we read RFC 3339.",
			want: []Entity{{"Jan 14", "date"}, {"RFC 3339", "code"}},
		},
		{
			name: "a weekday and its date are one date",
			in:   "Weekly sync, Tuesday 3 February 2026. Demo Friday, Feb 6.",
			want: []Entity{{"Tuesday 3 February 2026", "date"}, {"Friday, Feb 6", "date"}},
		},
		{
			name: "plural nouns opening a sentence are not names",
			in:   "Timestamps must be UTC. Tests failed twice. James is late.",
			want: []Entity{{"UTC", "name"}, {"James", "name"}},
		},
		{
			name: "a speaker label after a list marker",
			in:   "- Bob: deploy on Friday\n- Cash: 200",
			want: []Entity{{"Bob", "name"}, {"Friday", "date"}},
		},
		{
			name: "contractions are not names",
			in:   "I'm sure. Don't go. I'll call.",
			want: []Entity{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Extract(tt.in).Entities
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Extract(%q).Entities mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestExtractEntitiesCapped(t *testing.T) {
	var b strings.Builder
	for i := range 30 {
		fmt.Fprintf(&b, "TICKET-%d ", i)
	}
	got := Extract(b.String()).Entities
	if len(got) != maxEntities {
		t.Fatalf("Extract(30 tickets) gave %d entities, want %d", len(got), maxEntities)
	}
	if got[0].Text != "TICKET-0" || got[maxEntities-1].Text != "TICKET-19" {
		t.Errorf("Extract(30 tickets) kept %q..%q, want the first twenty", got[0].Text, got[maxEntities-1].Text)
	}
}

func TestExtractTopics(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", []string{}},
		{"stopwords and fillers only", "ok so what did you think about it?", []string{}},
		{"repeated words first", "The dog barked. The dog slept. A mysterious stranger arrived.", []string{"dog", "mysterious", "stranger", "slept", "arrived"}},
		{"past tenses and adverbs sink", "Reportedly the committee postponed hearings", []string{"committee", "hearings", "reportedly", "postponed"}},
		{"names are not topics", "Alice loves gardening; Alice's garden has roses.", []string{"gardening", "garden", "roses"}},
		{"no dates, numbers or codes", "On Monday 3 March we paid $40 for JIRA-12 and 1234 widgets", []string{"widgets"}},
		{"hyphenated words split like the index", "well-known e-mail", []string{"known", "mail"}},
		{"ties keep first-seen order", "apple grape melon lemon", []string{"apple", "grape", "melon", "lemon"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Extract(tt.in).Topics
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Extract(%q).Topics mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestExtractSummary(t *testing.T) {
	long := strings.Repeat("word ", 60) // 300 characters
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", ""},
		{"first sentence", "Bob called. He wants the report.", "Bob called."},
		{"whole text without a full stop", "  bought   milk\tand eggs  ", "bought milk and eggs"},
		{"abbreviations do not end it", "Dr. Chen saw J. Smith at 9 a.m. today. Then lunch.", "Dr. Chen saw J. Smith at 9 a.m. today."},
		{"decimals do not end it", "It costs 12.50 now. Really.", "It costs 12.50 now."},
		{"closing quote stays", `She said "stop." Then left.`, `She said "stop."`},
		{"line break ends it", "Shopping list\nMilk, eggs", "Shopping list"},
		{"wrapped line goes on", "We moved the meeting to\nthe big room. Fine.", "We moved the meeting to the big room."},
		{"markdown markers dropped", "## Plan\n- buy milk", "Plan"},
		{"list number dropped", "1. Call the bank.", "Call the bank."},
		{"separator lines skipped", "---\n***\nReal text here.", "Real text here."},
		{"no words at all", "👍", "👍"},
		{"cut at a word boundary", long, strings.Repeat("word ", 31) + "word…"},
		{"cut inside one long word", strings.Repeat("x", 200), strings.Repeat("x", 159) + "…"},
		{"control characters become spaces", "a\x00b\x1b[31mc", "a b [31mc"},
		{"CJK full stop", "東京で会議。明日は休み。", "東京で会議。"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Extract(tt.in).Summary
			if got != tt.want {
				t.Errorf("Extract(%q).Summary = %q, want %q", tt.in, got, tt.want)
			}
			if n := utf8.RuneCountInString(got); n > maxSummary {
				t.Errorf("Extract(%q).Summary has %d characters, want at most %d", tt.in, n, maxSummary)
			}
		})
	}
}

func TestExtractImportanceOrder(t *testing.T) {
	// Each pair: the first should matter more than the second.
	tests := []struct{ higher, lower string }{
		{"I'm allergic to peanuts.", "ok thanks"},
		{"I'm allergic to peanuts.", "I like peanuts."},
		{"Remember: the wifi password is on the fridge.", "The wifi is slow today."},
		{"We decided to use Postgres.", "We talked about databases."},
		{"The report is due Friday.", "The delay was due to rain."},
		{"The plumber charged $240.", "The plumber came round."},
		{"I prefer window seats.", "I sat by the window."},
		{"Call Bob next Tuesday at 3pm.", "Call Bob sometime."},
		{"buy milk", "hi"},
		{"Good morning! Quick note: the server certificate expires soon.", "Good morning!"},
	}
	for _, tt := range tests {
		h, l := Extract(tt.higher).Importance, Extract(tt.lower).Importance
		if h <= l {
			t.Errorf("importance %q = %v, not above %q = %v", tt.higher, h, tt.lower, l)
		}
	}
}

func TestExtractImportanceBounds(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"", minImportance},
		{"👍", minImportance},
		{"ok thanks lol", minImportance},
		{"The sky is grey over the harbour.", baseImportance},
		{"IMPORTANT: I'm allergic to penicillin; never give it to me. We decided my password must change by Friday for $10, I prefer that.", maxImportance},
	}
	for _, tt := range tests {
		if got := Extract(tt.in).Importance; got != tt.want {
			t.Errorf("Extract(%q).Importance = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestContentHash(t *testing.T) {
	sum := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return hex.EncodeToString(h[:])
	}
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"empty", "", sum("")},
		{"blank", " \n\t ", sum("")},
		{"plain", "Alice likes tea", sum("Alice likes tea")},
		{"trims", "  Alice likes tea\n", sum("Alice likes tea")},
		{"collapses runs", "Alice \t likes\r\n\ntea", sum("Alice likes tea")},
		{"unicode spaces", "Alice\u00a0likes\u2003tea", sum("Alice likes tea")},
		{"case matters", "alice likes tea", sum("alice likes tea")},
		{"punctuation matters", "Alice likes tea.", sum("Alice likes tea.")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ContentHash(tt.in); got != tt.want {
				t.Errorf("ContentHash(%q) = %s, want %s", tt.in, got, tt.want)
			}
		})
	}
}

func TestExtractInvalidUTF8(t *testing.T) {
	in := "Caf\xe9 with Ren\xe9e\xff at 7pm"
	d := Extract(in)
	checkValid(t, in, d)
	// The bad bytes become U+FFFD, which separates words like any symbol.
	want := []Entity{{"Ren", "name"}, {"7pm", "time"}}
	if diff := cmp.Diff(want, d.Entities); diff != "" {
		t.Errorf("Extract(%q).Entities mismatch (-want +got):\n%s", in, diff)
	}
}

// checkValid fails t when d breaks a promise Extract makes for every input.
func checkValid(t *testing.T, in string, d Derived) {
	t.Helper()
	if !(d.Importance >= 0 && d.Importance <= 1) {
		t.Errorf("Extract(%q).Importance = %v, want within [0, 1]", in, d.Importance)
	}
	if math.Round(d.Importance*100)/100 != d.Importance {
		t.Errorf("Extract(%q).Importance = %v, want two decimals", in, d.Importance)
	}
	if len(d.Entities) > maxEntities {
		t.Errorf("Extract(%q) has %d entities, want at most %d", in, len(d.Entities), maxEntities)
	}
	if len(d.Topics) > maxTopics {
		t.Errorf("Extract(%q) has %d topics, want at most %d", in, len(d.Topics), maxTopics)
	}
	if d.Entities == nil || d.Topics == nil {
		t.Errorf("Extract(%q) has nil entities or topics, want empty slices", in)
	}
	if n := utf8.RuneCountInString(d.Summary); n > maxSummary || strings.ContainsAny(d.Summary, "\n\r\t") {
		t.Errorf("Extract(%q).Summary = %q, want one line of at most %d characters", in, d.Summary, maxSummary)
	}
	strs := []string{d.Summary}
	for _, e := range d.Entities {
		strs = append(strs, e.Text, e.Type)
		if e.Text == "" {
			t.Errorf("Extract(%q) has an empty %s entity", in, e.Type)
		}
	}
	strs = append(strs, d.Topics...)
	for _, s := range strs {
		if !utf8.ValidString(s) {
			t.Errorf("Extract(%q) output %q is not valid UTF-8", in, s)
		}
	}
}

func FuzzExtract(f *testing.F) {
	for _, path := range goldenInputs(f) {
		in, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(in))
	}
	f.Add("")
	f.Add("a\x00b\xff\xfe@@ $ € 1,,2 ::: --- http://")
	f.Fuzz(func(t *testing.T, in string) {
		d := Extract(in)
		checkValid(t, in, d)
		if again := Extract(in); !cmp.Equal(d, again) {
			t.Fatalf("Extract(%q) is not deterministic:\n%s", in, cmp.Diff(d, again))
		}
		if a, b := ContentHash(in), ContentHash(" "+in+"\n"); a != b {
			t.Fatalf("ContentHash(%q) = %s, but with white space around it %s", in, a, b)
		}
	})
}

func BenchmarkExtract(b *testing.B) {
	// About 300 bytes: a typical agent memory with most kinds of entity.
	const in = "Meeting with Alice and Bob Smith on Feb 1 at 14:30 in New York. We decided to go with Postgres; " +
		"the license costs $1,200 per year and the migration is due March 3rd. Carol joins at 3pm next Tuesday, " +
		"ping @carol or carol@example.com. Remember: JIRA-123 blocks the v2.3.1 release!"
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		Extract(in)
	}
}

func BenchmarkContentHash(b *testing.B) {
	in := strings.Repeat("Meeting with Alice and Bob Smith on Feb 1 at 14:30.\n", 6)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		ContentHash(in)
	}
}
