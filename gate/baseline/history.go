package baseline

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// HistorySchema identifies the current history line format. Lines written
// before it existed (v1) carry no "schema" key and only promoted_at, the
// git fields, server_version, workload_hash, started_at and trials; they
// stay readable, and every summary is recomputed from their trials.
const HistorySchema = "perfgate.history/v2"

// HistoryLine is one line of a history file: the run-level summary of one
// promoted run of one cell, enough to follow a cell across sessions
// (package history) without the baseline file of that day.
type HistoryLine struct {
	Schema        string               `json:"schema,omitempty"`
	PromotedAt    time.Time            `json:"promoted_at"`
	GitSHA        string               `json:"git_sha,omitempty"`
	GitRef        string               `json:"git_ref,omitempty"`
	ServerVersion string               `json:"server_version,omitempty"`
	WorkloadHash  string               `json:"workload_hash"`
	StartedAt     time.Time            `json:"started_at"`
	Trials        []map[string]float64 `json:"trials"`
	// Fingerprint is the run's environment (gpu.name, server.argv, ...).
	Fingerprint map[string]string `json:"fingerprint,omitempty"`
	// Summary holds, per metric, the session's level and within-session
	// spread on the verdict's test scale (see Summary).
	Summary map[string]Summary `json:"summary,omitempty"`
	// RulesHash is the digest of the gate rules promoted with the run.
	RulesHash string `json:"rules_hash,omitempty"`
	// Warnings are the caveats recorded at promotion (--accept-noisy).
	Warnings []string `json:"warnings,omitempty"`
	// Accepted says why the promotion's change of level was accepted
	// (--accept-change); the drift guard's window starts at or after it.
	Accepted string `json:"accepted,omitempty"`
}

// Summary is one metric of one session: N trials, their Mean and
// within-session standard deviation SD on the verdict's test scale (the
// natural log of the value for relative metrics, the value itself for
// ratio metrics, see verdict.Absolute). On the log scale SD is close to
// the coefficient of variation.
type Summary struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

// Summarise computes the per-metric summaries of a session's trial values.
// A relative metric with a zero value in some trial has no log-scale
// summary and is left out.
func Summarise(trials []map[string]float64) map[string]Summary {
	vals := map[string][]float64{}
	skip := map[string]bool{}
	for _, t := range trials {
		for id, v := range t {
			x, ok := verdict.TestValue(id, v)
			if !ok {
				skip[id] = true
				continue
			}
			vals[id] = append(vals[id], x)
		}
	}
	out := map[string]Summary{}
	for id, x := range vals {
		if skip[id] {
			continue
		}
		m, v := verdict.MeanVar(x)
		out[id] = Summary{N: len(x), Mean: m, SD: math.Sqrt(v)}
	}
	return out
}

// historyLine builds b's history line.
func historyLine(b *result.Result) HistoryLine {
	line := HistoryLine{
		Schema:        HistorySchema,
		PromotedAt:    b.Provenance.PromotedAt,
		GitSHA:        b.Provenance.GitSHA,
		GitRef:        b.Provenance.GitRef,
		ServerVersion: b.Provenance.ServerVersion,
		WorkloadHash:  b.Workload.Hash,
		StartedAt:     b.StartedAt,
		Fingerprint:   b.Fingerprint,
		RulesHash:     b.Provenance.RulesHash,
		Warnings:      b.Provenance.Warnings,
		Accepted:      b.Provenance.Accepted,
	}
	for _, t := range b.ValidTrials() {
		line.Trials = append(line.Trials, t.Values)
	}
	line.Summary = Summarise(line.Trials)
	return line
}

// MarshalHistoryLine encodes one line: keys sorted, no HTML escaping,
// newline-terminated.
func MarshalHistoryLine(h HistoryLine) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(h); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// appendHistory appends b's line to its history file. A single write of
// one line to a file opened for appending, then fsync: a crash leaves the
// earlier lines intact.
func (s Store) appendHistory(profile string, b *result.Result) error {
	data, err := MarshalHistoryLine(historyLine(b))
	if err != nil {
		return err
	}
	path := s.HistoryPath(profile, b.Workload.Cell)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("appending to %s: %w", path, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	return f.Close()
}

// ReadHistory reads a cell's history, oldest first. Errors name the line.
func (s Store) ReadHistory(profile, cell string) ([]HistoryLine, error) {
	path := s.HistoryPath(profile, cell)
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseHistory(path, data)
}

// ParseHistory parses history lines, oldest first; name is used in
// errors, which give the line number. v1 lines (no schema) are accepted
// and get their summaries computed; a line of an unknown schema, a
// negative metric value or a line without a workload hash is an error,
// since a reader that guessed would pool sessions that are not alike.
func ParseHistory(name string, data []byte) ([]HistoryLine, error) {
	var out []HistoryLine
	for i, raw := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		var h HistoryLine
		if err := json.Unmarshal(raw, &h); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if err := h.validate(); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, i+1, err)
		}
		if h.Summary == nil {
			h.Summary = Summarise(h.Trials)
		}
		out = append(out, h)
	}
	return out, nil
}

func (h *HistoryLine) validate() error {
	if h.Schema != "" && h.Schema != HistorySchema {
		return fmt.Errorf("unsupported history schema %q (this perfgate reads %q and lines without a schema)", h.Schema, HistorySchema)
	}
	if h.WorkloadHash == "" {
		return fmt.Errorf("workload_hash is empty")
	}
	for j, t := range h.Trials {
		ids := slices.Sorted(maps.Keys(t))
		for _, id := range ids {
			if v := t[id]; v < 0 || math.IsNaN(v) || math.IsInf(v, 0) || v > result.MaxValue {
				return fmt.Errorf("trials[%d][%q] = %v: metric values must be finite, non-negative and at most %g, as in result files", j, id, v, result.MaxValue)
			}
		}
	}
	for id, s := range h.Summary {
		if s.N < 0 || s.SD < 0 || math.IsNaN(s.Mean) || math.IsNaN(s.SD) {
			return fmt.Errorf("summary[%q]: n and sd must be non-negative numbers", id)
		}
	}
	return nil
}

// Histories reads every history file of profile, keyed by workload cell:
// the cell of the baseline among baselines whose history file it is, else
// the file's name without .jsonl (names of cells are sanitised in file
// names, so a history without its baseline file keeps the sanitised
// name). A profile without a history directory has no histories.
func (s Store) Histories(profile string, baselines []*result.Result) (map[string][]HistoryLine, error) {
	dir := filepath.Join(s.Dir(profile), "history")
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, err
	}
	byPath := map[string]string{}
	for _, b := range baselines {
		byPath[s.HistoryPath(profile, b.Workload.Cell)] = b.Workload.Cell
	}
	out := map[string][]HistoryLine{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		lines, err := ParseHistory(p, data)
		if err != nil {
			return nil, err
		}
		cell, ok := byPath[p]
		if !ok {
			cell = strings.TrimSuffix(filepath.Base(p), ".jsonl")
		}
		out[cell] = lines
	}
	return out, nil
}
