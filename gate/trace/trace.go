// Package trace reads a torch-profiler trace (Chrome trace JSON, as vLLM
// and SGLang write it after /stop_profile, gzipped or not) into an op
// summary: per kernel, its calls and total time, and the engine steps the
// trace covers, so two traces compare as time per step. Traces run to
// gigabytes: the reader streams them event by event with bounded memory
// (one event, one entry per distinct kernel name) and never loads the
// whole file. A malformed or oversized trace is an error naming the file;
// what to do with it (never fail a gate over it) is the caller's call.
package trace

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
)

// Limits bound what one trace may cost. Zero fields take the defaults.
type Limits struct {
	// MaxBytes is the most (uncompressed) bytes read: 8 GiB.
	MaxBytes int64
	// MaxEventBytes is the largest single event (or other top-level
	// value) decoded at once: 16 MiB.
	MaxEventBytes int64
	// MaxOps is the most distinct kernel names kept: 20,000. A trace with
	// more is refused rather than summarised wrongly.
	MaxOps int
}

// Defaults of Limits.
const (
	DefaultMaxBytes      = 8 << 30
	DefaultMaxEventBytes = 16 << 20
	DefaultMaxOps        = 20000
)

// Op is one kernel name's total over a trace. Times are microseconds.
type Op struct {
	Name    string  `json:"name"`
	Calls   int     `json:"calls"`
	TotalUS float64 `json:"total_us"`
}

// Summary is a trace reduced to its kernels and steps.
type Summary struct {
	// File names the trace the summary came from.
	File string `json:"file"`
	// Steps counts the engine steps: "execute_model" annotations (the
	// simulator's, and vLLM's model-runner range) or torch's
	// "ProfilerStep#N".
	Steps int `json:"steps"`
	// Events counts the trace events read.
	Events int `json:"events"`
	// Ops are the kernels (category "kernel"), most total time first.
	Ops []Op `json:"ops"`
}

// event is the part of a trace event the summary reads; every other field
// is skipped by the decoder.
type event struct {
	Ph   string   `json:"ph"`
	Cat  string   `json:"cat"`
	Name string   `json:"name"`
	Dur  *float64 `json:"dur"`
}

// maxDurUS bounds one kernel's duration (a year, in microseconds): the
// sums stay finite, so the comparison that carries them still encodes.
const maxDurUS = 3.2e13

// maxName bounds a kept kernel name; longer ones (templated C++ kernel
// names) are cut, which keeps them distinct in practice.
const maxName = 512

// Read summarises the trace read from r; name is the file name used in
// errors. Gzip input is recognised by its magic bytes.
func Read(r io.Reader, name string, lim Limits) (*Summary, error) {
	if lim.MaxBytes <= 0 {
		lim.MaxBytes = DefaultMaxBytes
	}
	if lim.MaxEventBytes <= 0 {
		lim.MaxEventBytes = DefaultMaxEventBytes
	}
	if lim.MaxOps <= 0 {
		lim.MaxOps = DefaultMaxOps
	}
	fail := func(format string, args ...any) error {
		return fmt.Errorf("trace %s: %s", name, fmt.Sprintf(format, args...))
	}
	br := bufio.NewReaderSize(r, 64<<10)
	var src io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fail("gzip: %v", err)
		}
		defer zr.Close()
		src = zr
	}
	g := &guard{r: src, max: lim.MaxBytes, maxValue: lim.MaxEventBytes}
	dec := json.NewDecoder(g)
	s := &Summary{File: name}
	ops := map[string]*Op{}
	add := func(ev event) error {
		s.Events++
		if ev.Ph != "X" || ev.Dur == nil {
			return nil
		}
		switch {
		case ev.Name == "execute_model" || strings.HasPrefix(ev.Name, "ProfilerStep#"):
			s.Steps++
		case strings.EqualFold(ev.Cat, "kernel"):
			if *ev.Dur < 0 || *ev.Dur > maxDurUS {
				return fail("event %d: kernel %q lasts %g µs, not a duration", s.Events, truncate(ev.Name), *ev.Dur)
			}
			n := truncate(ev.Name)
			op, ok := ops[n]
			if !ok {
				if len(ops) >= lim.MaxOps {
					return fail("more than %d distinct kernel names", lim.MaxOps)
				}
				op = &Op{Name: n}
				ops[n] = op
			}
			op.Calls++
			op.TotalUS += *ev.Dur
		}
		return nil
	}
	err := walk(dec, g, add)
	if err != nil {
		var f *failure
		if errors.As(err, &f) {
			return nil, err
		}
		return nil, fail("%v (at byte %d)", err, dec.InputOffset())
	}
	for _, op := range ops {
		s.Ops = append(s.Ops, *op)
	}
	sort.Slice(s.Ops, func(i, j int) bool {
		if s.Ops[i].TotalUS != s.Ops[j].TotalUS {
			return s.Ops[i].TotalUS > s.Ops[j].TotalUS
		}
		return s.Ops[i].Name < s.Ops[j].Name
	})
	return s, nil
}

// failure marks an error already worded with the file name.
type failure struct{ msg string }

func (f *failure) Error() string { return f.msg }

// walk reads the top level: either {"traceEvents": [...], ...} or a bare
// array of events (both are Chrome trace formats). Other keys' values are
// skipped without being kept.
func walk(dec *json.Decoder, g *guard, add func(event) error) error {
	tok, err := dec.Token()
	if err != nil {
		return emptyOr(err)
	}
	switch tok {
	case json.Delim('['):
		if err := events(dec, g, add); err != nil {
			return err
		}
	case json.Delim('{'):
		found := false
		for dec.More() {
			key, err := dec.Token()
			if err != nil {
				return err
			}
			if k, _ := key.(string); k == "traceEvents" {
				t, err := dec.Token()
				if err != nil {
					return err
				}
				if t != json.Delim('[') {
					return errors.New("traceEvents is not an array")
				}
				if err := events(dec, g, add); err != nil {
					return err
				}
				found = true
				continue
			}
			g.mark(dec.InputOffset())
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		if !found {
			return errors.New("no traceEvents array: not a Chrome trace")
		}
	default:
		return fmt.Errorf("starts with %v, not a JSON object or array", tok)
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the trace's closing bracket")
	}
	return nil
}

// events reads the elements of an events array up to its closing bracket.
func events(dec *json.Decoder, g *guard, add func(event) error) error {
	for dec.More() {
		g.mark(dec.InputOffset())
		var ev event
		if err := dec.Decode(&ev); err != nil {
			return err
		}
		if err := add(ev); err != nil {
			return &failure{err.Error()}
		}
	}
	_, err := dec.Token() // ']'
	return err
}

func emptyOr(err error) error {
	if err == io.EOF {
		return errors.New("empty file")
	}
	return err
}

func truncate(s string) string {
	if len(s) > maxName {
		return s[:maxName]
	}
	return s
}

// guard bounds the bytes read in all and the bytes read for one value:
// the decoder reads ahead only while a value is unfinished, so a value
// larger than maxValue makes it read past the mark by more than that.
type guard struct {
	r        io.Reader
	n, start int64
	max      int64
	maxValue int64
}

// mark notes where the decoder starts the next value (its input offset).
func (g *guard) mark(offset int64) { g.start = offset }

func (g *guard) Read(p []byte) (int, error) {
	if g.n >= g.max {
		return 0, fmt.Errorf("larger than %d bytes", g.max)
	}
	if g.n-g.start > g.maxValue {
		return 0, fmt.Errorf("one value is larger than %d bytes", g.maxValue)
	}
	if rem := g.max - g.n; int64(len(p)) > rem {
		p = p[:rem]
	}
	n, err := g.r.Read(p)
	g.n += int64(n)
	return n, err
}
