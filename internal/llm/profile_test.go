package llm

import (
	"strings"
	"testing"

	"github.com/dormouse-dev/dormouse/internal/claim"
)

// TestRecordValidateProfile: a profile entry missing a field or a citation
// is dropped and the record stays valid (the profile is the record's
// optional part); whole ones are kept as given.
func TestRecordValidateProfile(t *testing.T) {
	whole := ProfileEntry{Category: "health", Subject: "user", Key: "allergy", Value: "penicillin",
		Text: "The user is allergic to penicillin.", MemoryIDs: []int64{1}}
	r := Record{Summary: "s", Profile: []ProfileEntry{whole}}
	for _, spoil := range []func(*ProfileEntry){
		func(e *ProfileEntry) { e.Category = "" },
		func(e *ProfileEntry) { e.Subject = " " },
		func(e *ProfileEntry) { e.Key = "" },
		func(e *ProfileEntry) { e.Value = "" },
		func(e *ProfileEntry) { e.Text = "" },
		func(e *ProfileEntry) { e.MemoryIDs = nil },
	} {
		e := whole
		spoil(&e)
		r.Profile = append(r.Profile, e)
	}
	if err := r.Validate(); err != nil {
		t.Fatalf("Validate() = %v; a bad profile entry must not fail the record", err)
	}
	if len(r.Profile) != 1 || r.Profile[0].Value != "penicillin" {
		t.Errorf("profile after Validate = %+v; want only the whole entry", r.Profile)
	}
}

// TestMapPromptOffersTheProfileVocabulary: the map and reduce prompts list
// every category with its keys, so an answer can use only those.
func TestMapPromptOffersTheProfileVocabulary(t *testing.T) {
	for name, system := range map[string]string{"map": mapSystem, "reduce": reduceSystem} {
		if !strings.Contains(system, `"profile": [{`) {
			t.Errorf("%s prompt lacks the profile schema", name)
		}
		for _, c := range claim.Categories {
			if line := "  " + c.Name + ": " + strings.Join(c.Keys, ", "); !strings.Contains(system, line) {
				t.Errorf("%s prompt lacks %q", name, line)
			}
		}
	}
}
