// Package locomo runs the LoCoMo retrieval benchmark through Dormouse's own
// code paths: every turn is captured as a memory, every session day is
// consolidated by the nightly engine, and every question is recalled as a
// user's request is. It scores evidence recall@k over the returned turns.
//
// The data set (snap-research/LoCoMo, CC BY-NC 4.0) is read from the path the
// caller gives (package dataset finds or downloads it); it is never copied
// into this repository or shipped.
package locomo

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Sample is one conversation with its questions.
type Sample struct {
	Index     int
	ID        string // sample_id, e.g. conv-26
	SpeakerA  string
	SpeakerB  string
	Sessions  []Session
	Questions []Question
}

// Session is one dated conversation session.
type Session struct {
	N     int
	Date  time.Time
	Turns []Turn
}

// Turn is one utterance. Text has an image's caption appended.
type Turn struct {
	DiaID   string
	Speaker string
	Text    string
}

// Question is one QA item. Evidence holds only ids that name a turn of the
// sample; Dropped counts the evidence ids that did not.
type Question struct {
	Text     string
	Category int
	Evidence []string
	Dropped  int
}

// Load reads the LoCoMo file at path. It never reads the observation,
// session_summary or event_summary fields (they are derived from the
// answers' evidence).
func Load(path string) ([]Sample, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read LoCoMo data: %w", err)
	}
	return Parse(b)
}

// Parse decodes the LoCoMo JSON, surviving the file's quirks: numeric
// answers, malformed evidence lists, evidence naming no turn and session
// dates without a session.
func Parse(b []byte) ([]Sample, error) {
	var raw []struct {
		SampleID     string                     `json:"sample_id"`
		Conversation map[string]json.RawMessage `json:"conversation"`
		QA           []struct {
			Question string          `json:"question"`
			Evidence json.RawMessage `json:"evidence"`
			Category int             `json:"category"`
		} `json:"qa"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("decode LoCoMo data: %w", err)
	}
	if len(raw) == 0 {
		return nil, fmt.Errorf("decode LoCoMo data: no samples")
	}
	out := make([]Sample, 0, len(raw))
	for i, r := range raw {
		s := Sample{Index: i, ID: r.SampleID}
		str := func(k string) string {
			var v string
			_ = json.Unmarshal(r.Conversation[k], &v)
			return v
		}
		s.SpeakerA, s.SpeakerB = str("speaker_a"), str("speaker_b")
		for k, v := range r.Conversation {
			n, ok := sessionNumber(k)
			if !ok {
				continue
			}
			var turns []struct {
				Speaker     string          `json:"speaker"`
				DiaID       string          `json:"dia_id"`
				Text        string          `json:"text"`
				BlipCaption json.RawMessage `json:"blip_caption"`
			}
			if err := json.Unmarshal(v, &turns); err != nil {
				return nil, fmt.Errorf("sample %d (%s) %s: %w", i, r.SampleID, k, err)
			}
			date, err := ParseSessionDate(str(k + "_date_time"))
			if err != nil {
				return nil, fmt.Errorf("sample %d (%s) %s: %w", i, r.SampleID, k, err)
			}
			ses := Session{N: n, Date: date}
			for _, t := range turns {
				txt := strings.TrimSpace(t.Text)
				var capt string
				_ = json.Unmarshal(t.BlipCaption, &capt)
				if capt = strings.TrimSpace(capt); capt != "" {
					txt = strings.TrimSpace(txt + " [shared an image: " + capt + "]")
				}
				if txt == "" || t.DiaID == "" {
					continue
				}
				ses.Turns = append(ses.Turns, Turn{DiaID: t.DiaID, Speaker: t.Speaker, Text: txt})
			}
			s.Sessions = append(s.Sessions, ses)
		}
		sort.Slice(s.Sessions, func(a, b int) bool { return s.Sessions[a].N < s.Sessions[b].N })
		known := map[string]bool{}
		for _, ses := range s.Sessions {
			for _, t := range ses.Turns {
				known[t.DiaID] = true
			}
		}
		for _, q := range r.QA {
			ev := evidenceIDs(q.Evidence)
			qq := Question{Text: q.Question, Category: q.Category}
			for _, id := range ev {
				if known[id] {
					qq.Evidence = append(qq.Evidence, id)
				} else {
					qq.Dropped++
				}
			}
			s.Questions = append(s.Questions, qq)
		}
		out = append(out, s)
	}
	return out, nil
}

// sessionNumber recognises "session_<n>" keys (not their date keys).
func sessionNumber(k string) (int, bool) {
	rest, ok := strings.CutPrefix(k, "session_")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil
}

var diaID = regexp.MustCompile(`D(\d+):(\d+)`)

// evidenceIDs pulls the well-formed dia_ids out of an evidence list, however
// it is broken ("D8:6; D9:17" in one string, "D", "D:11:26").
func evidenceIDs(raw json.RawMessage) []string {
	var list []string
	if json.Unmarshal(raw, &list) != nil {
		var one string
		if json.Unmarshal(raw, &one) != nil {
			return nil
		}
		list = []string{one}
	}
	seen := map[string]bool{}
	var out []string
	for _, e := range list {
		for _, m := range diaID.FindAllStringSubmatch(e, -1) {
			id := "D" + strings.TrimLeft(m[1], "0") + ":" + strings.TrimLeft(m[2], "0")
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// ParseSessionDate reads LoCoMo's "1:56 pm on 8 May, 2023" as UTC.
func ParseSessionDate(s string) (time.Time, error) {
	s = strings.Join(strings.Fields(s), " ")
	for _, layout := range []string{"3:04 pm on 2 January, 2006", "3:04 pm on 2 Jan, 2006", "3:04 PM on 2 January, 2006"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("session date %q is not like \"1:56 pm on 8 May, 2023\"", s)
}

// ParseSamples reads a selection such as "0-4", "5-9", "0,2,7" or "all".
func ParseSamples(s string, n int) ([]int, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "all" {
		out := make([]int, n)
		for i := range out {
			out[i] = i
		}
		return out, nil
	}
	seen := map[int]bool{}
	var out []int
	for _, part := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err := strconv.Atoi(strings.TrimSpace(lo))
		if err != nil {
			return nil, fmt.Errorf("samples: %q is not a number or range such as 0-4", part)
		}
		b := a
		if isRange {
			if b, err = strconv.Atoi(strings.TrimSpace(hi)); err != nil {
				return nil, fmt.Errorf("samples: %q is not a range such as 0-4", part)
			}
		}
		if a > b {
			return nil, fmt.Errorf("samples: range %q runs backwards", part)
		}
		for i := a; i <= b; i++ {
			if i < 0 || i >= n {
				return nil, fmt.Errorf("samples: %d is out of range (the file has samples 0 to %d)", i, n-1)
			}
			if !seen[i] {
				seen[i] = true
				out = append(out, i)
			}
		}
	}
	return out, nil
}

// ParseKs reads "5,10,25,50".
func ParseKs(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, part := range strings.Split(s, ",") {
		k, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || k < 1 || k > 1000 {
			return nil, fmt.Errorf("k: %q is not a number from 1 to 1000", part)
		}
		if !seen[k] {
			seen[k] = true
			out = append(out, k)
		}
	}
	sort.Ints(out)
	return out, nil
}
