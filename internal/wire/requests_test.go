package wire

import (
	"encoding/json"
	"reflect"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/recall"
)

// The server decodes requests into the types of the packages that carry
// them out (capture, recall, consolidate); the client's request types must
// be able to send every field those accept, and no other.
func TestRequestFieldsMatchTheServer(t *testing.T) {
	keys := func(v any) []string {
		fill(reflect.ValueOf(v).Elem())
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(b, &m)
		var out []string
		for k := range m {
			out = append(out, k)
		}
		slices.Sort(out)
		return out
	}
	for _, tc := range []struct {
		name           string
		server, client any
	}{
		{"MemoryInput", &capture.Input{}, &client.MemoryInput{}},
		{"RecallRequest", &recall.Request{}, &client.RecallRequest{}},
		{"ConsolidateRequest", &consolidate.Request{}, &client.ConsolidateRequest{}},
	} {
		if diff := cmp.Diff(keys(tc.client), keys(tc.server)); diff != "" {
			t.Errorf("%s fields (-client +server):\n%s", tc.name, diff)
		}
	}
}
