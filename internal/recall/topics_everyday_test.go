package recall

import (
	"strings"
	"testing"
	"time"
)

// TestEverydayRolesFindTheirMembers: the everyday roles added for issue 27
// (a vehicle asked as what we drive, an insurer, a supplier, the internet,
// a trade asked by what it fixes, a condition, a job, a cuisine, a
// dislike, a bike, a team supported, a seat, a hobby asked as spare time
// or interests, a medication that is a spray) find the memory naming a
// member, and without the topics they do not.
func TestEverydayRolesFindTheirMembers(t *testing.T) {
	mems := []string{
		"Our van is a Ford Transit Custom, bought second-hand.",
		"The buildings cover is with Zurich, renewal in March.",
		"Broadband is with Plusnet, 80Mbps on a fibre line.",
		"Our plumber is Wojtek Mazur, he sorted the boiler.",
		"I'm asthmatic and carry a blue reliever everywhere.",
		"I teach Year 2 at the village primary.",
		"I love Vietnamese, pho is my comfort food.",
		"I can't stand celery, even cooked.",
		"I ride a Dawes tourer to the station most days.",
		"I'm a lifelong Hibs fan.",
		"I always pick an aisle seat near the front.",
		"I've been collecting old maps for years.",
		"I use a steroid nasal spray every morning.",
		"Our accountant is Farah Iqbal.",
		"The loft hatch sticks in damp weather.",
	}
	for _, tc := range []struct{ ask, want string }{
		{"What do we drive?", "transit"},
		{"Who is our home insurer?", "zurich"},
		{"Who is our internet provider?", "plusnet"},
		{"Who fixes our pipes?", "wojtek"},
		{"What health conditions do I have?", "asthmatic"},
		{"What's my line of work?", "year 2"},
		{"What cuisine do I like?", "vietnamese"},
		{"What foods do I dislike?", "celery"},
		{"What bike have I got?", "dawes"},
		{"Which team do I support?", "hibs"},
		{"Where do I like to sit?", "aisle"},
		{"What do I do in my spare time?", "maps"},
		{"Am I on any medication?", "nasal spray"},
		{"Who does our taxes?", "farah"},
	} {
		var turns []turn
		for i, m := range mems {
			turns = append(turns, turn{at: day0.Add(time.Duration(i) * time.Hour), session: "s" + string(rune('a'+i)), role: "user", content: m})
		}
		a := agentWith(t, turns)
		checkTopicMember(t, a, Query{Text: tc.ask, AsOf: day0.Add(48 * time.Hour)}, tc.want, true)
	}
}

// TestEverydayTopicWords: the phrases and cues that name the new roles,
// and the words that must not ("driving" is no question of what we drive,
// "a phone bill" no list of bills, "at home" no question of the home).
func TestEverydayTopicWords(t *testing.T) {
	for _, tc := range []struct{ q, want, not string }{
		{"what do we drive?", "vehicle", ""},
		{"what do I do for work?", "job", ""},
		{"what's my line of work?", "job", ""},
		{"what do I do in my spare time?", "hobby", ""},
		{"what kind of home do we have?", "residence", ""},
		{"who is our insurer?", "insurer", ""},
		{"when does my driving licence end?", "", "vehicle"},
		{"how much is my phone bill?", "", "bill"},
		{"what's the password at home?", "", "residence"},
		{"which company do I work for?", "", "job"},
	} {
		got, _ := topicWords(tc.q, strings.Fields(strings.Trim(tc.q, "?")))
		if tc.want != "" && got[tc.want] == nil || tc.not != "" && got[tc.not] != nil || tc.not == "" && tc.want == "" && len(got) > 0 {
			t.Errorf("topicWords(%q) = %v, want %q and not %q", tc.q, got, tc.want, tc.not)
		}
	}
}

// TestSynonymIsNoSibling: a memory holding a synonym of the question's
// word ("author" asked as "writer") is about that thing, not a near-miss
// naming its sibling.
func TestSynonymIsNoSibling(t *testing.T) {
	a := agentWith(t, []turn{
		{at: day0, session: "s1", role: "user", content: "My favourite author is Tove Jansson."},
		{at: day0.Add(time.Hour), session: "s2", role: "user", content: "The loft hatch sticks in damp weather."},
	})
	res, err := (&Engine{}).Recall(t.Context(), a, Query{Text: "Who is my favourite writer?", AsOf: day0.Add(48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Found || !strings.Contains(res.Context, "Jansson") {
		t.Errorf("found=%v context=%q; want the author", res.Found, res.Context)
	}
}
