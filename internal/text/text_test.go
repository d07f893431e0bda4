package text

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
)

func TestWords(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"only punctuation", " -- ... !? ", nil},
		{"lowercases", "Alice met BOB", []string{"alice", "met", "bob"}},
		{"punctuation separates", "Hello, world! (again)", []string{"hello", "world", "again"}},
		{"apostrophes split like FTS5", "don't Alice's", []string{"don", "t", "alice", "s"}},
		{"curly apostrophe", "it’s", []string{"it", "s"}},
		{"hyphens split", "e-mail well-known", []string{"e", "mail", "well", "known"}},
		{"digits are words", "at 14:30 on 2026-02-01", []string{"at", "14", "30", "on", "2026", "02", "01"}},
		{"decimals split", "$12.50", []string{"12", "50"}},
		{"accents kept", "Zoë à Genève", []string{"zoë", "à", "genève"}},
		{"combining mark stays in word", "Zoe\u0308 x", []string{"zoe\u0308", "x"}},
		{"cyrillic", "Привет, Мир", []string{"привет", "мир"}},
		{"unsegmented script is one word", "東京で会議。明日", []string{"東京で会議", "明日"}},
		{"emoji separates", "ok👍thanks", []string{"ok", "thanks"}},
		{"invalid utf8 separates", "ab\xffcd", []string{"ab", "cd"}},
		{"underscore separates", "user_id", []string{"user", "id"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Words(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Words(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestIsStopword(t *testing.T) {
	tests := []struct {
		w    string
		want bool
	}{
		{"the", true},
		{"what", true},
		{"when", true},
		{"did", true},
		{"does", true},
		{"tell", true},
		{"me", true},
		{"about", true},
		{"don", true},
		{"don't", true},
		{"don’t", true},
		{"peanuts", false},
		{"alice", false},
		{"meeting", false},
		{"", false},
		{"The", false}, // callers lowercase first, as Words does
	}
	for _, tt := range tests {
		if got := IsStopword(tt.w); got != tt.want {
			t.Errorf("IsStopword(%q) = %v, want %v", tt.w, got, tt.want)
		}
	}
}

func TestStopwordListSize(t *testing.T) {
	// The brief for recall asks for a solid list; a short one lets question
	// words through into full-text queries.
	if n := len(stopwords); n < 200 {
		t.Errorf("len(stopwords) = %d, want at least 200", n)
	}
	for w := range stopwords {
		if w != strings.ToLower(w) || strings.TrimSpace(w) != w || w == "" {
			t.Errorf("stopword %q is not a trimmed lowercase word", w)
		}
	}
}

func TestTerms(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"only stopwords", "What did you tell me about it?", nil},
		{"question", "What did Alice tell me about the peanut allergy?", []string{"alice", "peanut", "allergy"}},
		{"dedup keeps first order", "budget Budget review BUDGET", []string{"budget", "review"}},
		{"drops one-character words", "a b c x2 Q", []string{"x2"}},
		{"contraction pieces dropped", "Don't forget Bob's keys", []string{"forget", "bob", "keys"}},
		{"numbers kept", "what happened on 1 Feb 2026", []string{"happened", "feb", "2026"}},
		{"unicode", "Où est Zoë?", []string{"où", "est", "zoë"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Terms(tt.in)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Terms(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestIsTerm(t *testing.T) {
	for w, want := range map[string]bool{"alice": true, "x2": true, "zoë": true, "the": false, "what": false, "a": false, "q": false, "é": false} {
		if got := IsTerm(w); got != want {
			t.Errorf("IsTerm(%q) = %v, want %v", w, got, want)
		}
	}
}

func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{"", 0},
		{"a", 1},
		{"abcd", 1},
		{"abcde", 2},
		{"abcdefgh", 2},
		{"abcdefghi", 3},
		{"éééé", 1},         // runes, not bytes: 8 bytes, 4 runes
		{"東京東京東", 2},        // 5 runes
		{"\xff\xfe\xfd", 1}, // each invalid byte counts as one rune
		{strings.Repeat("x", 400), 100},
	}
	for _, tt := range tests {
		if got := EstimateTokens(tt.in); got != tt.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", tt.in, got, tt.want)
		}
	}
}

func FuzzWords(f *testing.F) {
	for _, s := range []string{
		"", "Hello, world!", "don't stop", "Zoë à Genève", "東京で会議。", "ab\xffcd",
		"What did Alice tell me about the peanut allergy?", "İstanbul ΣΑΣ", "x\u0301\u0301",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		words := Words(s)
		for _, w := range words {
			if w == "" {
				t.Fatalf("Words(%q) has an empty word", s)
			}
			if !utf8.ValidString(w) {
				t.Fatalf("Words(%q) has invalid UTF-8 word %q", s, w)
			}
			for _, r := range w {
				if !IsWordRune(r) {
					t.Fatalf("Words(%q) word %q has separator %q", s, w, r)
				}
			}
			if got := strings.ToLower(w); got != w {
				t.Fatalf("Words(%q) word %q is not lowercase (%q)", s, w, got)
			}
		}
		// Splitting is by rune class, so the words of the words are the words.
		if again := Words(strings.Join(words, " ")); !cmp.Equal(again, words) {
			t.Fatalf("Words(Join(Words(%q))) = %q, want %q", s, again, words)
		}
		seen := map[string]bool{}
		for _, term := range Terms(s) {
			if IsStopword(term) || utf8.RuneCountInString(term) < 2 || seen[term] {
				t.Fatalf("Terms(%q) has %q: a stopword, a short word or a repeat", s, term)
			}
			seen[term] = true
		}
		if c := Clip(s, len(s)/2); len(c) > len(s)/2 || !strings.HasPrefix(s, c) || utf8.ValidString(s) && !utf8.ValidString(c) {
			t.Fatalf("Clip(%q, %d) = %q: not a valid prefix within the limit", s, len(s)/2, c)
		}
		if n := EstimateTokens(s); n < 0 || (s != "" && n < 1) || (s == "" && n != 0) {
			t.Fatalf("EstimateTokens(%q) = %d", s, n)
		}
	})
}

func TestNextWord(t *testing.T) {
	var got []string
	for w, rest := NextWord("  Well-known, O'Brien! "); w != ""; w, rest = NextWord(rest) {
		got = append(got, w)
	}
	if want := []string{"Well", "known", "O", "Brien"}; !cmp.Equal(got, want) {
		t.Errorf("NextWord pieces = %q, want %q (as Words splits, case kept)", got, want)
	}
}

func TestUnique(t *testing.T) {
	if got, want := Unique([]string{"b", "a", "b", "c", "a"}), []string{"b", "a", "c"}; !cmp.Equal(got, want) {
		t.Errorf("Unique = %q, want %q", got, want)
	}
	if got := Unique([]string{}); got != nil {
		t.Errorf("Unique(nil) = %q", got)
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly", 7, "exactly"},
		{"abcdef", 3, "abc"},
		{"xéé", 2, "x"}, // é is two bytes: the cut falls inside the first
		{"xéé", 3, "xé"},
		{"é", 1, ""},
		{"abc", 0, ""},
	} {
		if got := Clip(tc.s, tc.n); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestSize(t *testing.T) {
	for _, tc := range []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{4000, "3.9 KiB"},
		{20 << 20, "20.0 MiB"},
		{3 << 30, "3.0 GiB"},
		{1 << 40, "1.0 TiB"},
		{1 << 50, "1024.0 TiB"},
	} {
		if got := Size(tc.n); got != tc.want {
			t.Errorf("Size(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := Size(uint64(1536)); got != "1.5 KiB" {
		t.Errorf("Size(uint64 1536) = %q, want 1.5 KiB", got)
	}
}
