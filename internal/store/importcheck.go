package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// What an import holds each record to beyond its columns' SQL types: the
// invariants the rest of the store reads the rows by. A value that breaks
// one would be stored and then fail every later read of it (a key_facts
// that is not JSON), or every later write (an id at 2^63-1 leaves the
// AUTOINCREMENT counter nowhere to go), so the import refuses it naming
// its line.

// MaxImportID bounds every id an import holds: a number every JSON reader
// holds exactly, and far below where SQLite's AUTOINCREMENT runs out.
const MaxImportID = 1 << 53

// valueRule checks one non-null value of a column, as importValue made it.
type valueRule func(v any) error

// columnRules are the rules of each exported table's columns, by table and
// column; a column with none is held to its SQL type alone.
var columnRules = map[string]map[string]valueRule{
	"consolidated_memories": {
		"id": idValue, "date": dateValue, "key_facts": jsonArray, "entities": jsonArray, "topics": jsonArray,
		"insights": jsonArray, "source_ids": idList, "created_at": milliValue, "updated_at": milliValue,
	},
	"daily_memories": {
		"id": idValue, "ts": milliValue, "day": dateValue, "context": jsonObject, "importance": unitValue,
		"content_hash": hashValue, "entities": entityList, "topics": stringList, "consolidated": boolValue,
		"consolidation_id": idValue, "created_at": milliValue, "flagged": boolValue, "file_hash": hashValue,
		"retired_at": milliValue, "superseded_by": idValue,
	},
	"memory_embeddings": {"memory_id": idValue, "dim": positiveValue},
	"facts": {
		"id": idValue, "confidence": unitValue, "source_memory_ids": idList, "source_consolidation_ids": idList,
		"valid_from": milliValue, "valid_to": milliValue, "superseded_by": idValue, "rejected": boolValue,
		"created_at": milliValue, "last_accessed": milliValue, "access_count": countValue,
	},
	"profile_lines": {
		"id": idValue, "source_memory_ids": idList, "single": boolValue, "valid_from": milliValue,
		"valid_to": milliValue, "superseded_by": idValue, "edited": boolValue, "removed": boolValue,
		"created_at": milliValue,
	},
	"consolidation_runs": {
		"id": idValue, "day": dateValue, "started_at": milliValue, "finished_at": milliValue, "calls": countValue,
		"tokens_in": countValue, "tokens_out": countValue, "duration_ms": countValue,
		"consolidation_id": idValue, "memories": countValue, "facts": countValue,
	},
	"forgotten": {"norm_hash": hashValue, "source_id": idValue, "created_at": milliValue},
	"pruned_days": {
		"date": dateValue, "key_facts": jsonArray, "entities": jsonArray, "topics": jsonArray,
		"insights": jsonArray, "source_ids": idList, "pruned": countValue, "pruned_at": milliValue,
	},
	"tracked_files": {
		"sha256": hashOrNone, "size": countValue, "attempts": countValue, "next_retry": countValue,
		"memories": countValue, "updated_at": milliValue,
	},
	"file_rebuild_days": {"day": dateValue, "marked_at": milliValue},
	"sqlite_sequence":   {"seq": sequenceValue},
}

// checkRecord holds rec to its columns' rules and to those that tie its
// columns together.
func checkRecord(rec importRecord) error {
	rules := columnRules[rec.t.table]
	for i, col := range rec.cols {
		rule := rules[col]
		if rule == nil || rec.vals[i] == nil {
			continue
		}
		if err := rule(rec.vals[i]); err != nil {
			return fmt.Errorf("%s: %v", col, err)
		}
	}
	switch rec.t.table {
	case "daily_memories":
		return checkMemoryDay(rec)
	case "memory_embeddings":
		return checkVectorSize(rec)
	}
	return nil
}

func idValue(v any) error {
	if i, _ := v.(int64); i < 1 || i > MaxImportID {
		return fmt.Errorf("id %v is out of range: want 1 to 2^53", v)
	}
	return nil
}

func sequenceValue(v any) error {
	if i, _ := v.(int64); i < 0 || i > MaxImportID {
		return fmt.Errorf("%v is out of range: want 0 to 2^53", v)
	}
	return nil
}

func countValue(v any) error {
	if i, ok := v.(int64); !ok || i < 0 {
		return fmt.Errorf("%v is not a count: want a whole number, 0 or more", v)
	}
	return nil
}

func positiveValue(v any) error {
	if i, ok := v.(int64); !ok || i < 1 {
		return fmt.Errorf("%v is not a size: want a whole number, 1 or more", v)
	}
	return nil
}

func boolValue(v any) error {
	if i, ok := v.(int64); !ok || (i != 0 && i != 1) {
		return fmt.Errorf("%v is not a flag: want 0 or 1", v)
	}
	return nil
}

// milliValue is a time in Unix milliseconds, in the years JSON's RFC 3339
// can write (storedTime).
func milliValue(v any) error {
	if i, ok := v.(int64); !ok || i < minStoredMilli || i > maxStoredMilli {
		return fmt.Errorf("%v is not a time: want Unix milliseconds in the years 0 to 9999", v)
	}
	return nil
}

func unitValue(v any) error {
	f, ok := v.(float64)
	if i, isInt := v.(int64); isInt {
		f, ok = float64(i), true
	}
	if !ok || math.IsNaN(f) || f < 0 || f > 1 {
		return fmt.Errorf("%v is out of range: want 0 to 1", v)
	}
	return nil
}

// dateValue is a day that exists, as YYYY-MM-DD.
func dateValue(v any) error {
	s, _ := v.(string)
	if d, err := time.Parse(time.DateOnly, s); err != nil || d.Format(time.DateOnly) != s {
		return fmt.Errorf("%q is not a date: want YYYY-MM-DD, a day that exists", s)
	}
	return nil
}

// hashValue is a SHA-256 as the store writes them: 64 lowercase hex digits.
func hashValue(v any) error {
	s, _ := v.(string)
	ok := len(s) == 64
	for i := 0; ok && i < len(s); i++ {
		ok = '0' <= s[i] && s[i] <= '9' || 'a' <= s[i] && s[i] <= 'f'
	}
	if !ok {
		return fmt.Errorf("%q is not a SHA-256: want 64 lowercase hex digits", s)
	}
	return nil
}

// hashOrNone is hashValue or "": a file that failed or was skipped has no
// hash.
func hashOrNone(v any) error {
	if v == "" {
		return nil
	}
	return hashValue(v)
}

func jsonObject(v any) error {
	var obj map[string]json.RawMessage
	if err := decodeJSONText(v, &obj); err != nil || obj == nil {
		return errors.New("want a JSON object")
	}
	return nil
}

func jsonArray(v any) error {
	var arr []json.RawMessage
	if err := decodeJSONText(v, &arr); err != nil || arr == nil {
		return errors.New("want a JSON array")
	}
	return nil
}

func stringList(v any) error {
	var arr []string
	if err := decodeJSONText(v, &arr); err != nil || arr == nil {
		return errors.New("want a JSON array of strings")
	}
	return nil
}

func entityList(v any) error {
	var arr []*entityColumn
	err := decodeJSONText(v, &arr)
	if err == nil && arr != nil && !containsNil(arr) {
		return nil
	}
	return errors.New(`want a JSON array of {"text":...,"type":...}`)
}

func containsNil[T any](s []*T) bool {
	for _, p := range s {
		if p == nil {
			return true
		}
	}
	return false
}

// idList is a JSON array of ids, as the sources of a record, fact or line.
func idList(v any) error {
	var ids []int64
	if err := decodeJSONText(v, &ids); err != nil || ids == nil {
		return errors.New("want a JSON array of ids")
	}
	for _, id := range ids {
		if err := idValue(id); err != nil {
			return err
		}
	}
	return nil
}

func decodeJSONText(v any, into any) error {
	s, _ := v.(string)
	return json.Unmarshal([]byte(s), into)
}

// checkMemoryDay: a memory's day is the date of its timestamp where it was
// stored, which no time zone puts more than a day from the UTC date.
func checkMemoryDay(rec importRecord) error {
	ts, okTS := rec.value("ts").(int64)
	day, okDay := rec.value("day").(string)
	if !okTS || !okDay {
		return nil // missing: the insert names it
	}
	d, _ := time.Parse(time.DateOnly, day) // dateValue passed
	utc := time.UnixMilli(ts).UTC()
	utcDay := time.Date(utc.Year(), utc.Month(), utc.Day(), 0, 0, 0, 0, time.UTC)
	if diff := d.Sub(utcDay); diff < -24*time.Hour || diff > 24*time.Hour {
		return fmt.Errorf("day %s is not the date of ts %d (%s UTC) in any time zone", day, ts, utc.Format(time.DateOnly))
	}
	return nil
}

// checkVectorSize: a vector holds dim little-endian float32s.
func checkVectorSize(rec importRecord) error {
	dim, okDim := rec.value("dim").(int64)
	vec, okVec := rec.value("vec").(blob)
	if okDim && okVec && int64(len(vec)) != 4*dim {
		return fmt.Errorf("vec holds %d bytes, but dim %d float32s take %d", len(vec), dim, 4*dim)
	}
	return nil
}

// value is the record's value of column col, nil when it has none.
func (r importRecord) value(col string) any {
	for i, c := range r.cols {
		if c == col {
			return r.vals[i]
		}
	}
	return nil
}

// set gives the record's column col the value v.
func (r *importRecord) set(col string, v any) {
	for i, c := range r.cols {
		if c == col {
			r.vals[i] = v
			return
		}
	}
	r.cols = append(r.cols, col)
	r.vals = append(r.vals, v)
}
