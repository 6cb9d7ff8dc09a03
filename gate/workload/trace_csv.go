package workload

import (
	"encoding/csv"
	"errors"
	"io"
	"strconv"
	"strings"
)

// parseTraceCSV reads a csv trace with a header row. Columns are named
// by labels: by default BurstGPT's Timestamp (seconds from the trace's
// start), Request tokens and Response tokens; dataset.fields renames them
// (Azure's TIMESTAMP, a date, ContextTokens and GeneratedTokens). Other
// columns are ignored with one warning. Rows with 0 output tokens are
// BurstGPT's failed requests: they are skipped unless output overrides
// the length, with one warning.
func parseTraceCSV(r io.Reader, path string, output int, labels map[string]string) ([]traceEntry, []*Error, []*Error) {
	b := &traceBad{path: path}
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	need := []string{labels[FieldTimestamp], labels[FieldInputLength]}
	if output == 0 {
		need = append(need, labels[FieldOutputLength])
	}
	header, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			b.errorf(1, "empty csv trace: the first row must name the columns %s", strings.Join(need, ", "))
		} else {
			b.errorf(csvLine(err, 1), "invalid csv: %v", err)
		}
		return nil, b.errs, nil
	}
	col := map[string]int{}
	used := map[string]bool{}
	for _, name := range labels {
		used[name] = name != ""
	}
	var ignored []string
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := col[h]; dup {
			b.errorf(1, "column %q appears twice", h)
		}
		col[h] = i
		if !used[h] {
			ignored = append(ignored, h)
		}
	}
	for _, name := range need {
		if _, ok := col[name]; !ok {
			b.errorf(1, "missing column %q (the trace's columns are set by dataset.fields; the defaults are BurstGPT's)", name)
		}
	}
	if len(b.errs) > 0 {
		return nil, b.errs, nil
	}
	if len(ignored) > 0 {
		b.warnf(1, "columns ignored: %s", strings.Join(ignored, ", "))
	}
	var out []traceEntry
	failed, firstFailed, last := 0, 0, 1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			// FieldPos is only defined for a record that was read.
			b.errorf(csvLine(err, last+1), "invalid csv: %v", err)
			if !errors.Is(err, csv.ErrFieldCount) {
				break // the reader cannot resynchronise after a quoting error
			}
			continue
		}
		line, _ := cr.FieldPos(0)
		last = line
		e, ok, fail := csvEntry(b, line, rec, col, labels, output)
		if fail {
			if failed == 0 {
				firstFailed = line
			}
			failed++
		}
		if ok {
			out = append(out, e)
		}
	}
	if failed > 0 {
		b.warnf(firstFailed, "%d rows with 0 %s (failed requests) skipped", failed, labels[FieldOutputLength])
	}
	checkOrder(b, out)
	return out, b.errs, b.warnings
}

// csvEntry reads one row; failed reports a row of a failed request.
func csvEntry(b *traceBad, line int, rec []string, col map[string]int, labels map[string]string, output int) (e traceEntry, ok, failed bool) {
	cell := func(role string) (string, bool) {
		i, ok := col[labels[role]]
		if !ok || labels[role] == "" {
			return "", false
		}
		return strings.TrimSpace(rec[i]), true
	}
	e.line = line
	v, _ := cell(FieldTimestamp)
	if err := parseTimestamp(v, &e); err != nil {
		b.errorf(line, "%s: %v", labels[FieldTimestamp], err)
		return e, false, false
	}
	if p, ok := cell(FieldPrompt); ok {
		e.prompt = p
	}
	v, _ = cell(FieldInputLength)
	if e.input, ok = csvCount(b, line, labels[FieldInputLength], v); !ok {
		return e, false, false
	}
	if e.input == 0 && e.prompt == "" {
		b.errorf(line, "%s must be >= 1, got 0", labels[FieldInputLength])
		return e, false, false
	}
	if output > 0 {
		return e, true, false
	}
	v, _ = cell(FieldOutputLength)
	if e.output, ok = csvCount(b, line, labels[FieldOutputLength], v); !ok {
		return e, false, false
	}
	if e.output == 0 {
		return e, false, true
	}
	return e, true, false
}

// csvCount parses a token count cell.
func csvCount(b *traceBad, line int, name, v string) (int, bool) {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 || n > maxTraceLength {
		b.errorf(line, "%s must be an integer in [0, %d], got %q", name, maxTraceLength, v)
		return 0, false
	}
	return n, true
}

// csvLine is the line of a csv.ParseError, or fallback.
func csvLine(err error, fallback int) int {
	var pe *csv.ParseError
	if errors.As(err, &pe) && pe.Line > 0 {
		return pe.Line
	}
	return fallback
}
