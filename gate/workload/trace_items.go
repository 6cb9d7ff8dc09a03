package workload

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// maxTraceSpan bounds a replay's schedule: a trace of weeks (BurstGPT
// spans two months) must be cut with max_duration, load.requests or
// time_scale rather than run for weeks.
const maxTraceSpan = 24 * time.Hour

// traceFormat is the format of a trace dataset: as written, or from the
// file's extension (.csv is csv, anything else jsonl).
func traceFormat(ds Dataset) string {
	if ds.Format != "" {
		return ds.Format
	}
	if strings.EqualFold(filepath.Ext(ds.Path), ".csv") {
		return TraceCSV
	}
	return TraceJSONL
}

// readTrace reads the trace at path and returns the items to replay: the
// first load.requests requests within max_duration of the first one, each
// at its own offset. Content is generated unless the line has a prompt;
// requests sharing a hash id share that block of their prompt, so the
// trace's prefix reuse reaches the server's cache as it did in
// production.
func (f *File) readTrace(path string) ([]item, []*Error) {
	ds := f.Dataset
	fh, err := os.Open(path)
	if err != nil {
		return nil, []*Error{{File: path, Line: 1, Msg: err.Error()}}
	}
	defer fh.Close()
	parse := parseTraceJSONL
	if traceFormat(ds) == TraceCSV {
		parse = parseTraceCSV
	}
	entries, errs, warnings := parse(fh, path, ds.OutputTokens, traceLabels(traceFormat(ds), ds.Fields))
	if len(errs) > 0 {
		return nil, errs
	}
	fail := func(line int, format string, args ...any) ([]item, []*Error) {
		return nil, []*Error{{File: f.Path, Line: max(line, 1), Msg: fmt.Sprintf(format, args...)}}
	}
	if len(entries) == 0 {
		return fail(f.lines.path, "trace %s has no requests", ds.Path)
	}
	scale := ds.TimeScale
	if scale == 0 {
		scale = 1
	}
	block := ds.HashBlockTokens
	if block == 0 {
		block = DefaultHashBlockTokens
	}
	first := entries[0]
	var items []item
	var tokens int64
	content := newStream(ds.Seed, "trace/tokens")
	blocks := map[int64]item{}
	for _, e := range entries {
		if len(items) == f.Load.Requests {
			break
		}
		off := e.offset(first) * scale
		if ds.MaxDuration > 0 && off >= ds.MaxDuration.Seconds() {
			break
		}
		if off > maxTraceSpan.Seconds() {
			return fail(f.lines.requests, "the replay of %s reaches %ss at line %d, past %s: set dataset.max_duration, lower load.requests or shrink dataset.time_scale",
				ds.Path, strconv.FormatFloat(off, 'g', 4, 64), e.line, maxTraceSpan)
		}
		it := item{at: seconds(off), input: e.input, output: e.output}
		if it.output == 0 {
			it.output = ds.OutputTokens
		}
		switch {
		case e.prompt != "":
			it.text = e.prompt
			if it.input == 0 {
				it.input = estimateTokens(e.prompt)
			}
		case len(e.hashIDs) > 0:
			if want := (e.input + block - 1) / block; len(e.hashIDs) != want {
				return nil, []*Error{{File: path, Line: e.line, Msg: fmt.Sprintf(
					"%d hash_ids for input_length %d: with hash_block_tokens %d it needs %d (set dataset.hash_block_tokens to the trace's block size)",
					len(e.hashIDs), e.input, block, want)}}
			}
			it.ids, it.text = f.blockContent(e, block, blocks)
		default:
			it.ids, it.text = f.content(e.input, content)
		}
		tokens += int64(it.input)
		if tokens > maxCellTokens {
			return fail(f.lines.requests, "the replay expands to more than %d prompt tokens by line %d of %s", maxCellTokens, e.line, ds.Path)
		}
		items = append(items, it)
	}
	if len(items) < f.Load.Requests {
		why := "the trace ends"
		if ds.MaxDuration > 0 {
			why = "max_duration ends the replay"
		}
		warnings = append(warnings, &Error{File: f.Path, Line: max(f.lines.requests, 1), Warning: true,
			Msg: fmt.Sprintf("load.requests is %d but %s after %d requests", f.Load.Requests, why, len(items))})
	}
	return items, warnings
}

// blockContent builds the prompt of a trace line from its hash ids: block
// h is hash_block_tokens tokens (words for chat) drawn from a stream of
// its own, the same in every request that names h; the last block is cut
// to the line's input_length.
func (f *File) blockContent(e traceEntry, block int, cache map[int64]item) ([]int, string) {
	var ids []int
	var parts []string
	left := e.input
	for _, h := range e.hashIDs {
		b, ok := cache[h]
		if !ok {
			b.ids, b.text = f.content(block, newStream(f.Dataset.Seed, "trace/block/"+strconv.FormatInt(h, 10)))
			cache[h] = b
		}
		n := min(block, left)
		left -= n
		if f.API == Chat {
			parts = append(parts, strings.Join(strings.Fields(b.text)[:n], " "))
		} else {
			ids = append(ids, b.ids[:n]...)
		}
	}
	if f.API == Chat {
		return nil, strings.Join(parts, " ")
	}
	return ids, ""
}

// traceArrivals returns the items' own offsets.
func traceArrivals(items []item) []time.Duration {
	out := make([]time.Duration, len(items))
	for i, it := range items {
		out[i] = it.at
	}
	return out
}

// traceNote describes a trace dataset for Manifest.Trace.
func (f *File) traceNote() string {
	ds := f.Dataset
	if ds.Kind != KindTrace {
		return ""
	}
	note := fmt.Sprintf("%s (%s), time_scale %s", ds.Path, ds.Format, ftoa(ds.TimeScale))
	if ds.MaxDuration > 0 {
		note += ", max_duration " + ds.MaxDuration.String()
	}
	return note
}
