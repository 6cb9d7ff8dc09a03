package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
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
	ts      float64   // in the file's unit; scaled by time_scale
	date    time.Time // the timestamp when the file writes dates (ts is then 0)
	input   int       // 0: estimate from prompt
	output  int       // 0: dataset.output_tokens
	prompt  string
	hashIDs []int64
}

// Trace fields: the roles a trace's keys (jsonl) or columns (csv) play.
// dataset.fields renames them, as vLLM's --timed-trace-label-* options do.
const (
	FieldTimestamp    = "timestamp"
	FieldInputLength  = "input_length"
	FieldOutputLength = "output_length"
	FieldHashIDs      = "hash_ids"
	FieldPrompt       = "prompt"
)

// TraceFields lists the roles in the order messages name them.
var TraceFields = []string{FieldTimestamp, FieldInputLength, FieldOutputLength, FieldHashIDs, FieldPrompt}

// defaultLabels are the key (jsonl: vLLM's timed_trace labels, as in
// Mooncake's traces) or column (csv: BurstGPT's) of each role.
func defaultLabels(format string) map[string]string {
	if format == TraceCSV {
		return map[string]string{FieldTimestamp: "Timestamp", FieldInputLength: "Request tokens", FieldOutputLength: "Response tokens",
			FieldHashIDs: "", FieldPrompt: ""}
	}
	return map[string]string{FieldTimestamp: "timestamp", FieldInputLength: "input_length", FieldOutputLength: "output_length",
		FieldHashIDs: "hash_ids", FieldPrompt: "prompt"}
}

// traceLabels resolves the label of every role: the workload's fields over
// the format's defaults.
func traceLabels(format string, fields map[string]string) map[string]string {
	l := defaultLabels(format)
	for role, name := range fields {
		l[role] = name
	}
	return l
}

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
// skipped, keys named by labels (traceLabels). Every line needs a
// timestamp (a number, or a date as a string), an input length or a
// prompt, and an output length unless output overrides it; timestamps
// must not go backwards (a trace is replayed in file order). Other keys
// are ignored, as vLLM does, and named once in a warning. Problems name
// path and line.
func parseTraceJSONL(r io.Reader, path string, output int, labels map[string]string) ([]traceEntry, []*Error, []*Error) {
	b := &traceBad{path: path}
	known := map[string]bool{}
	for _, name := range labels {
		known[name] = true
	}
	var out []traceEntry
	ignored := map[string]int{} // key -> first line
	if last, err := eachLine(r, func(line int, raw []byte) {
		var rec map[string]json.RawMessage
		if err := decodeLine(raw, &rec); err != nil {
			b.errorf(line, "%v", err)
			return
		}
		for k := range rec {
			if _, seen := ignored[k]; !known[k] && !seen {
				ignored[k] = line
			}
		}
		if e, ok := jsonlEntry(b, line, rec, labels, output); ok {
			out = append(out, e)
		}
	}); err != nil {
		b.errorf(last+1, "reading: %v", err)
	}
	if w := ignoredWarning(path, ignored, "a trace uses "+strings.Join(labelList(labels), ", ")); w != nil {
		b.warnings = append(b.warnings, w)
	}
	checkOrder(b, out)
	return out, b.errs, b.warnings
}

// jsonlEntry reads the roles of one decoded line.
func jsonlEntry(b *traceBad, line int, rec map[string]json.RawMessage, labels map[string]string, output int) (traceEntry, bool) {
	e := traceEntry{line: line}
	get := func(role string) (json.RawMessage, bool) {
		v, ok := rec[labels[role]]
		if !ok || labels[role] == "" || string(v) == "null" {
			return nil, false
		}
		return v, true
	}
	bad := func(role, want string, v json.RawMessage) (traceEntry, bool) {
		b.errorf(line, "%s must be %s, got %s", labels[role], want, clip(string(v), 40))
		return traceEntry{}, false
	}
	ts, ok := get(FieldTimestamp)
	if !ok {
		b.errorf(line, "%s is missing", labels[FieldTimestamp])
		return e, false
	}
	var s string
	if json.Unmarshal(ts, &e.ts) != nil {
		if json.Unmarshal(ts, &s) != nil {
			return bad(FieldTimestamp, "a number or a date", ts)
		}
		t, err := parseDate(s)
		if err != nil {
			return bad(FieldTimestamp, "a number or a date", ts)
		}
		e.date = t
	}
	if v, ok := get(FieldPrompt); ok {
		if json.Unmarshal(v, &e.prompt) != nil {
			return bad(FieldPrompt, "a string", v)
		}
	}
	if v, ok := get(FieldInputLength); ok {
		if json.Unmarshal(v, &e.input) != nil || e.input < 1 || e.input > maxTraceLength {
			return bad(FieldInputLength, fmt.Sprintf("an integer in [1, %d]", maxTraceLength), v)
		}
	} else if e.prompt == "" {
		b.errorf(line, "%s is missing (or give a %s)", labels[FieldInputLength], orRole(labels, FieldPrompt))
		return e, false
	}
	if v, ok := get(FieldOutputLength); ok && output == 0 {
		if json.Unmarshal(v, &e.output) != nil || e.output < 1 || e.output > maxTraceLength {
			return bad(FieldOutputLength, fmt.Sprintf("an integer in [1, %d]", maxTraceLength), v)
		}
	} else if output == 0 {
		b.errorf(line, "%s is missing (or set dataset.output_tokens)", labels[FieldOutputLength])
		return e, false
	}
	if v, ok := get(FieldHashIDs); ok {
		if json.Unmarshal(v, &e.hashIDs) != nil {
			return bad(FieldHashIDs, "a list of integers", v)
		}
	}
	return e, true
}

// orRole names a role's label, or the role itself when it has none.
func orRole(labels map[string]string, role string) string {
	if labels[role] != "" {
		return labels[role]
	}
	return role
}

// labelList is the labels in use, in role order.
func labelList(labels map[string]string) []string {
	var out []string
	for _, role := range TraceFields {
		if labels[role] != "" {
			out = append(out, labels[role])
		}
	}
	return out
}

// clip shortens a value quoted in a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// dateLayouts are the date forms a trace timestamp may take: RFC 3339 and
// the "2023-11-16 18:15:46.6805900" of Azure's LLM inference traces.
var dateLayouts = []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999"}

// parseDate reads a date. Dates stay time.Time, not float seconds since
// the epoch, whose 0.2 us steps would blur the offsets between requests.
func parseDate(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	for _, layout := range dateLayouts {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a number or a date", s)
}

// parseTimestamp reads a csv timestamp cell into e: a number, or a date.
func parseTimestamp(s string, e *traceEntry) error {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		e.ts = v
		return nil
	}
	e.date, err = parseDate(s)
	return err
}

// offset is e's time after first in seconds, before time_scale.
func (e traceEntry) offset(first traceEntry) float64 {
	if !e.date.IsZero() {
		return e.date.Sub(first.date).Seconds()
	}
	return e.ts - first.ts
}

// stamp writes e's timestamp as the file did.
func (e traceEntry) stamp() string {
	if !e.date.IsZero() {
		return e.date.Format(time.RFC3339Nano)
	}
	return ftoa(e.ts)
}

// checkOrder refuses timestamps that go backwards, and a file that mixes
// dates and numbers: the trace is replayed in file order, and sorting it
// silently would replay another trace.
func checkOrder(b *traceBad, es []traceEntry) {
	for i := 1; i < len(es); i++ {
		prev, e := es[i-1], es[i]
		if prev.date.IsZero() != e.date.IsZero() {
			b.errorf(e.line, "timestamp %s is a %s but line %d's is a %s: write every timestamp the same way",
				e.stamp(), dateOrNumber(e), prev.line, dateOrNumber(prev))
			return
		}
		if e.offset(prev) < 0 {
			b.errorf(e.line, "timestamp %s is before the previous request's %s (line %d): a trace must be in time order",
				e.stamp(), prev.stamp(), prev.line)
			return
		}
	}
}

func dateOrNumber(e traceEntry) string {
	if e.date.IsZero() {
		return "number"
	}
	return "date"
}

// eachLine calls f with each non-blank line of a jsonl file, trimmed, and
// its 1-based number; lines may be up to 64 MiB (a long prompt). It
// returns the number of the last line read and the read error, which the
// caller reports at the line after it.
func eachLine(r io.Reader, f func(line int, raw []byte)) (int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		if raw := bytes.TrimSpace(sc.Bytes()); len(raw) > 0 {
			f(line, raw)
		}
	}
	return line, sc.Err()
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
