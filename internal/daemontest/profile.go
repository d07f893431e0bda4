package daemontest

import (
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// ProfileData is a data directory whose agent holds two memories and a
// profile drawn from them, ids in this order: profile:1 "The user works at
// Arup." (a month ago, memory:1), profile:2 "The user is allergic to
// penicillin." and profile:3 "The user works at Atkins." (a week ago,
// memory:2; Atkins replaced Arup).
func ProfileData(tb testing.TB, agent string) string {
	tb.Helper()
	dir := tb.TempDir()
	st, err := store.Open(tb.Context(), store.Options{Dir: dir, Location: time.UTC})
	if err != nil {
		tb.Fatal(err)
	}
	defer st.Close()
	month, week := time.Now().AddDate(0, -1, 0), time.Now().AddDate(0, 0, -7)
	err = st.With(tb.Context(), agent, true, func(a *store.Agent) error {
		if _, err := a.Insert(tb.Context(), []store.Memory{
			{Content: "I'm a structural engineer at Arup.", Timestamp: month, ContentHash: "1"},
			{Content: "Started at Atkins today; still allergic to penicillin.", Timestamp: week, ContentHash: "2"},
		}); err != nil {
			return err
		}
		for _, l := range []store.ProfileLine{
			{Category: "work", Subject: "user", Key: "employer", Value: "Arup", Single: true, Text: "The user works at Arup.", SourceMemoryIDs: []int64{1}, ValidFrom: month},
			{Category: "health", Subject: "user", Key: "allergy", Value: "penicillin", Text: "The user is allergic to penicillin.", SourceMemoryIDs: []int64{2}, ValidFrom: week},
			{Category: "work", Subject: "user", Key: "employer", Value: "Atkins", Single: true, Text: "The user works at Atkins.", SourceMemoryIDs: []int64{2}, ValidFrom: week},
		} {
			if _, _, err := a.PutProfileLines(tb.Context(), []store.ProfileLine{l}, l.ValidFrom); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return dir
}
