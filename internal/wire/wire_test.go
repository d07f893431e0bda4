package wire

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/dormouse-dev/dormouse/internal/store"
)

// fill sets every exported field of the value v points to, recursively, to
// a non-zero value.
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
			v.SetBytes([]byte(`{"k":1}`))
			return
		}
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0))
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k)
		fill(e)
		m.SetMapIndex(k, e)
		v.Set(m)
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

// unset names the fields of v, at any depth, left at their zero value.
func unset(path string, v reflect.Value) []string {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return []string{path}
		}
		return unset(path, v.Elem())
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			if v.Interface().(time.Time).IsZero() {
				return []string{path}
			}
			return nil
		}
		var out []string
		for i := range v.NumField() {
			out = append(out, unset(path+"."+v.Type().Field(i).Name, v.Field(i))...)
		}
		return out
	case reflect.Slice:
		if v.Len() == 0 {
			return []string{path}
		}
		return unset(path+"[0]", v.Index(0))
	default:
		if v.IsZero() {
			return []string{path}
		}
		return nil
	}
}

// convertsAll fills a value of S and checks conv carries every field of it
// into the wire type: a field added to both sides and not copied fails here.
func convertsAll[S, T any](t *testing.T, conv func(S) T) {
	t.Helper()
	var s S
	fill(reflect.ValueOf(&s).Elem())
	got := conv(s)
	if missing := unset(reflect.TypeFor[T]().Name(), reflect.ValueOf(got)); len(missing) > 0 {
		t.Errorf("%T to %T leaves unset: %v", s, got, missing)
	}
}

func TestEveryFieldIsConverted(t *testing.T) {
	convertsAll(t, Memory)
	convertsAll(t, Memories)
	convertsAll(t, Inserted)
	convertsAll(t, Facts)
	convertsAll(t, Consolidations)
	convertsAll(t, Stats)
	convertsAll(t, MemoryOrigin)
	convertsAll(t, ConsolidateResult)
	convertsAll(t, Health)
	convertsAll(t, FileOutcome)
	convertsAll(t, FailingFiles)
}

// Nil slices stay null and empty ones [] on the wire, as before.
func TestEmptyAndNilSlicesKeepTheirJSON(t *testing.T) {
	for _, tc := range []struct {
		in   []store.Memory
		want string
	}{{nil, "null"}, {[]store.Memory{}, "[]"}} {
		b, _ := json.Marshal(Memories(tc.in))
		if string(b) != tc.want {
			t.Errorf("Memories(%#v) = %s, want %s", tc.in, b, tc.want)
		}
	}
}
