package client_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/dormouse-dev/dormouse/client"
	"github.com/dormouse-dev/dormouse/internal/answer"
	"github.com/dormouse-dev/dormouse/internal/capture"
	"github.com/dormouse-dev/dormouse/internal/consolidate"
	"github.com/dormouse-dev/dormouse/internal/health"
	"github.com/dormouse-dev/dormouse/internal/recall"
	"github.com/dormouse-dev/dormouse/internal/store"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// fill sets every field of the value v points to, recursively, to a
// non-zero value, so that a field one side lacks shows in the JSON.
func fill(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i))
			}
		}
	case reflect.Slice:
		if v.Type() == reflect.TypeFor[json.RawMessage]() {
			v.SetBytes([]byte(`{"k":[1,"two"]}`))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0))
		v.Set(s)
	case reflect.String:
		v.SetString("s")
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64, reflect.Int32:
		v.SetInt(3)
	case reflect.Uint, reflect.Uint64, reflect.Uint32:
		v.SetUint(4)
	case reflect.Float64:
		v.SetFloat(0.5)
	}
}

// roundTrip encodes a filled from, decodes it strictly into to and encodes
// that again: the two encodings must be the same JSON.
func roundTrip(t *testing.T, name string, from, to any) {
	t.Helper()
	fill(reflect.ValueOf(from).Elem())
	a, err := json.Marshal(from)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(a))
	dec.DisallowUnknownFields()
	if err := dec.Decode(to); err != nil {
		t.Errorf("%s: %v\n%s", name, err, a)
		return
	}
	b, err := json.Marshal(to)
	if err != nil {
		t.Fatal(err)
	}
	var ja, jb any
	json.Unmarshal(a, &ja)
	json.Unmarshal(b, &jb)
	if diff := cmp.Diff(jb, ja); diff != "" {
		t.Errorf("%s: JSON differs after the round trip (-client +server):\n%s", name, diff)
	}
}

// TestTypesMatchTheServer keeps the public types in step with the server's:
// a field added on one side and not the other fails here.
func TestTypesMatchTheServer(t *testing.T) {
	// Responses: the server's type into the client's.
	roundTrip(t, "Memory", &store.Memory{}, &client.Memory{})
	roundTrip(t, "Inserted", &store.Inserted{}, &client.Inserted{})
	roundTrip(t, "RecallResult", &recall.Result{}, &client.RecallResult{})
	roundTrip(t, "Fact", &store.Fact{}, &client.Fact{})
	roundTrip(t, "Consolidation", &store.Consolidation{}, &client.Consolidation{})
	roundTrip(t, "ConsolidateResult", &consolidate.Result{}, &client.ConsolidateResult{})
	roundTrip(t, "Stats", &store.Stats{}, &client.Stats{})
	roundTrip(t, "Health", &health.Report{}, &client.Health{})
	roundTrip(t, "Answer", &answer.Result{}, &client.Answer{})
	roundTrip(t, "FileOutcome", &watch.Outcome{}, &client.FileOutcome{})
	roundTrip(t, "ScanResult", &watch.ScanResult{}, &client.ScanResult{})
	roundTrip(t, "WatchFolder", &watch.Status{}, &client.WatchFolder{})
	roundTrip(t, "FailingFile", &watch.FailingFile{}, &client.FailingFile{})
	roundTrip(t, "MemoryOrigin", &store.MemoryOrigin{}, &client.MemoryOrigin{})
	// Requests: the client's type into the server's.
	roundTrip(t, "MemoryInput", &client.MemoryInput{}, &capture.Input{})
	roundTrip(t, "RecallRequest", &client.RecallRequest{}, &recall.Request{})
	roundTrip(t, "ConsolidateRequest", &client.ConsolidateRequest{}, &consolidate.Request{})
}

// TestRequestFieldsMatchTheServer checks that the client can send every
// field the server's request types accept.
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
