package workload

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Trace formats.
const (
	TraceJSONL = "jsonl"
	TraceCSV   = "csv"
)

// DefaultHashBlockTokens is the tokens one hash id of a trace stands for
// when the workload does not say: vLLM's --timed-trace-chunk-hash-size
// default. Mooncake's published traces use 512.
const DefaultHashBlockTokens = 16

// traceEntry is one request of a trace file before content is attached.
type traceEntry struct {
	line    int
	ts      float64 // in the file's unit; scaled by time_scale
	input   int     // 0: estimate from prompt
	output  int     // 0: dataset.output_tokens
	prompt  string
	hashIDs []int64
}

// traceRecord is one line of a jsonl trace: vLLM's timed_trace labels
// (timestamp, input_length, output_length, hash_ids), as in Mooncake's
// traces, plus an optional prompt to send instead of generated tokens.
type traceRecord struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  *int     `json:"input_length"`
	OutputLength *int     `json:"output_length"`
	HashIDs      []int64  `json:"hash_ids"`
	Prompt       *string  `json:"prompt"`
}

// traceFields are the keys of traceRecord, to name the ones ignored.
var traceFields = map[string]bool{"timestamp": true, "input_length": true, "output_length": true, "hash_ids": true, "prompt": true}

// traceBad collects a trace file's problems, capped like a workload's.
type traceBad struct {
	path     string
	errs     []*Error
	warnings []*Error
}

func (b *traceBad) errorf(line int, format string, args ...any) {
	if len(b.errs) < maxErrors {
		b.errs = append(b.errs, &Error{File: b.path, Line: max(line, 1), Msg: fmt.Sprintf(format, args...)})
	}
}

func (b *traceBad) warnf(line int, format string, args ...any) {
	b.warnings = append(b.warnings, &Error{File: b.path, Line: max(line, 1), Warning: true, Msg: fmt.Sprintf(format, args...)})
}

// maxTraceLength bounds input_length and output_length, like the
// workload's own length keys.
const maxTraceLength = 10_000_000

// parseTraceJSONL reads a jsonl trace: one object per line, blank lines
// skipped. Every line needs a timestamp, input_length or prompt, and
// output_length unless output overrides it; timestamps must not go
// backwards (a trace is replayed in file order). Unknown keys are
// ignored, as vLLM does, and reported once as a warning. Problems name
// path and line.
func parseTraceJSONL(r io.Reader, path string, output int) ([]traceEntry, []*Error, []*Error) {
	b := &traceBad{path: path}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var out []traceEntry
	ignored := map[string]int{} // key -> first line
	line := 0
	for sc.Scan() {
		line++
		raw := bytes.TrimSpace(sc.Bytes())
		if len(raw) == 0 {
			continue
		}
		var rec traceRecord
		if err := decodeLine(raw, &rec); err != nil {
			b.errorf(line, "%v", err)
			continue
		}
		noteIgnored(raw, line, traceFields, ignored)
		e := traceEntry{line: line, hashIDs: rec.HashIDs}
		switch {
		case rec.Timestamp == nil:
			b.errorf(line, "timestamp is missing")
			continue
		case rec.InputLength == nil && (rec.Prompt == nil || *rec.Prompt == ""):
			b.errorf(line, "input_length is missing (or give a prompt)")
			continue
		case rec.OutputLength == nil && output == 0:
			b.errorf(line, "output_length is missing (or set dataset.output_tokens)")
			continue
		}
		e.ts = *rec.Timestamp
		if rec.InputLength != nil {
			e.input = *rec.InputLength
			if e.input < 1 || e.input > maxTraceLength {
				b.errorf(line, "input_length must be in [1, %d], got %d", maxTraceLength, e.input)
				continue
			}
		}
		if rec.Prompt != nil {
			e.prompt = *rec.Prompt
		}
		if rec.OutputLength != nil && output == 0 {
			e.output = *rec.OutputLength
			if e.output < 1 || e.output > maxTraceLength {
				b.errorf(line, "output_length must be in [1, %d], got %d", maxTraceLength, e.output)
				continue
			}
		}
		out = append(out, e)
	}
	if err := sc.Err(); err != nil {
		b.errorf(line+1, "reading: %v", err)
	}
	if w := ignoredWarning(path, ignored, "a trace uses timestamp, input_length, output_length, hash_ids and prompt"); w != nil {
		b.warnings = append(b.warnings, w)
	}
	checkOrder(b, out)
	return out, b.errs, b.warnings
}

// decodeLine decodes one JSON object of a jsonl line into v, refusing
// trailing data and values of the wrong type.
func decodeLine(raw []byte, v any) error {
	if raw[0] != '{' {
		return errors.New("each line must be a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("invalid JSON line: %v", err)
	}
	if dec.More() {
		return errors.New("one JSON object per line: found more after it")
	}
	return nil
}

// BurstGPT's column names (https://github.com/HPMLL/BurstGPT): Timestamp
// in seconds from the trace's start, then the request's and response's
// token counts. Its other columns (Model, Total tokens, Log Type) are
// ignored.
const (
	csvTimestamp = "Timestamp"
	csvRequest   = "Request tokens"
	csvResponse  = "Response tokens"
)

// parseTraceCSV reads a csv trace with a header row naming at least
// Timestamp, Request tokens and Response tokens (BurstGPT's layout).
// Rows with 0 response tokens are BurstGPT's failed requests: they are
// skipped unless output overrides the length, with one warning.
func parseTraceCSV(r io.Reader, path string, output int) ([]traceEntry, []*Error, []*Error) {
	b := &traceBad{path: path}
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		if err == io.EOF {
			b.errorf(1, "empty csv trace: the first row must name the columns %s, %s and %s", csvTimestamp, csvRequest, csvResponse)
		} else {
			b.errorf(csvLine(err, 1), "invalid csv: %v", err)
		}
		return nil, b.errs, nil
	}
	col := map[string]int{}
	var ignored []string
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := col[h]; dup {
			b.errorf(1, "column %q appears twice", h)
		}
		col[h] = i
		if h != csvTimestamp && h != csvRequest && h != csvResponse {
			ignored = append(ignored, h)
		}
	}
	for _, need := range []string{csvTimestamp, csvRequest, csvResponse} {
		if _, ok := col[need]; !ok {
			b.errorf(1, "missing column %q (a csv trace needs %s, %s and %s, as BurstGPT writes them)", need, csvTimestamp, csvRequest, csvResponse)
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
		cell := func(name string) string { return strings.TrimSpace(rec[col[name]]) }
		ts, err := strconv.ParseFloat(cell(csvTimestamp), 64)
		if err != nil || math.IsNaN(ts) || math.IsInf(ts, 0) {
			b.errorf(line, "%s: %q is not a number", csvTimestamp, cell(csvTimestamp))
			continue
		}
		in, ok := csvCount(b, line, csvRequest, cell(csvRequest))
		if !ok {
			continue
		}
		outTok, ok := csvCount(b, line, csvResponse, cell(csvResponse))
		if !ok {
			continue
		}
		if in == 0 {
			b.errorf(line, "%s must be >= 1, got 0", csvRequest)
			continue
		}
		if outTok == 0 && output == 0 {
			if failed == 0 {
				firstFailed = line
			}
			failed++
			continue
		}
		e := traceEntry{line: line, ts: ts, input: in}
		if output == 0 {
			e.output = outTok
		}
		out = append(out, e)
	}
	if failed > 0 {
		b.warnf(firstFailed, "%d rows with 0 %s (failed requests) skipped", failed, csvResponse)
	}
	checkOrder(b, out)
	return out, b.errs, b.warnings
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

// checkOrder refuses timestamps that go backwards: the trace is replayed
// in file order, and sorting it silently would replay another trace.
func checkOrder(b *traceBad, es []traceEntry) {
	for i := 1; i < len(es); i++ {
		if es[i].ts < es[i-1].ts {
			b.errorf(es[i].line, "timestamp %s is before the previous request's %s (line %d): a trace must be in time order",
				ftoa(es[i].ts), ftoa(es[i-1].ts), es[i-1].line)
			return
		}
	}
}
