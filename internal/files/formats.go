package files

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"
)

// json keeps a small document whole; an array becomes a part per element and a large object a part
// per top-level key, so that each memory says one thing.
func (d *doc) json(text string) ([]Part, error) {
	var v any
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("parse JSON: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("parse JSON: more than one value in the file (use .jsonl for one per line)")
	}
	var pieces []string
	switch x := v.(type) {
	case []any:
		if err := d.within(0, len(x)); err != nil {
			return nil, err
		}
		for _, e := range x {
			pieces = append(pieces, compact(e))
		}
	case map[string]any:
		if whole := compact(x); len(whole) <= d.o.ChunkBytes {
			pieces = []string{whole}
			break
		}
		if err := d.within(0, len(x)); err != nil {
			return nil, err
		}
		for _, k := range slices.Sorted(mapKeys(x)) {
			pieces = append(pieces, compact(map[string]any{k: x[k]}))
		}
	default:
		pieces = []string{compact(x)}
	}
	return d.records(pieces)
}

// records makes a part of each piece (a record stands alone), cutting only what is too long.
func (d *doc) records(pieces []string) ([]Part, error) {
	var parts []Part
	for _, p := range pieces {
		texts := group([]string{p}, d.o.MaxPartBytes, d.o.MaxPartBytes)
		if err := d.spend(texts, nil); err != nil {
			return nil, err
		}
		for _, t := range texts {
			parts = append(parts, Part{Content: t})
		}
	}
	return d.finish(parts, make([]fileContext, len(parts)), nil), nil
}

func compact(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // decoded from JSON: always encodable
	return strings.TrimSpace(b.String())
}

// jsonl makes a part of each line that holds a JSON value; it fails only when none does.
func (d *doc) jsonl(text string) ([]Part, error) {
	var pieces []string
	bad, firstBad := 0, 0
	for i, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !json.Valid([]byte(line)) {
			if bad == 0 {
				firstBad = i + 1
			}
			bad++
			continue
		}
		if err := d.within(0, len(pieces)+1); err != nil {
			return nil, err
		}
		pieces = append(pieces, line)
	}
	if len(pieces) == 0 && bad > 0 {
		return nil, fmt.Errorf("parse JSON Lines: no line holds valid JSON (first bad line %d)", firstBad)
	}
	return d.records(pieces)
}

// csv makes a part of each row, as "column: value" pairs named by the header row.
func (d *doc) csv(text string) ([]Part, error) {
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = false
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("parse CSV header: %w", err)
	}
	for i := range header {
		header[i] = strings.TrimSpace(header[i])
	}
	var pieces []string
	size := 0
	for {
		row, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parse CSV: %w", err)
		}
		var b strings.Builder
		for i, v := range row {
			v = strings.TrimSpace(v)
			if v == "" {
				continue
			}
			if b.Len() > 0 {
				b.WriteString("; ")
			}
			name := fmt.Sprintf("column %d", i+1)
			if i < len(header) && header[i] != "" {
				name = header[i]
			}
			b.WriteString(name + ": " + v)
		}
		if b.Len() > 0 {
			// Each value is named by its column: a wide header makes the rows many times the file.
			size += b.Len()
			if err := d.within(size, len(pieces)+1); err != nil {
				return nil, err
			}
			pieces = append(pieces, b.String())
		}
	}
	if len(pieces) == 0 { // a header alone is still what the file says
		pieces = []string{strings.Join(header, ", ")}
	}
	return d.records(pieces)
}

// yaml checks that the file parses and keeps its own text, grouped at top-level entries.
func (d *doc) yaml(text string) ([]Part, error) {
	dec := yaml.NewDecoder(strings.NewReader(text))
	for {
		var n yaml.Node
		err := dec.Decode(&n)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("parse YAML: %w", err)
		}
	}
	var pieces []string
	var cur []string
	for _, line := range strings.Split(text, "\n") {
		top := line != "" && line[0] != ' ' && line[0] != '\t' && line[0] != '-' && line[0] != '#'
		if top && len(cur) > 0 {
			pieces = append(pieces, strings.Join(cur, "\n"))
			cur = cur[:0]
		}
		if strings.TrimSpace(line) == "---" {
			continue
		}
		cur = append(cur, line)
	}
	if len(cur) > 0 {
		pieces = append(pieces, strings.Join(cur, "\n"))
	}
	return d.chunks(nil, pieces)
}
