package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"
)

// Marshal encodes r as stable, indented JSON (map keys sorted by
// encoding/json) ending in a newline, so files review well in a PR.
func Marshal(r *Result) ([]byte, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return MarshalStable(r)
}

// MarshalStable is the encoding of every file perfgate keeps for review
// (result files, baselines, the noise file): indented, map keys sorted,
// no HTML escaping, ending in a newline.
func MarshalStable(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Unmarshal decodes and validates a result. name is used in errors.
func Unmarshal(name string, data []byte) (*Result, error) {
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("%s: %w", name, describeJSONError(data, err))
	}
	if head.Schema == nil {
		return nil, fmt.Errorf("%s: not a perfgate result file (no \"schema\" key)", name)
	}
	if *head.Schema != Schema {
		return nil, fmt.Errorf("%s: unsupported schema %q (this perfgate reads %q)", name, *head.Schema, Schema)
	}
	var r Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, describeJSONError(data, err))
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &r, nil
}

// describeJSONError adds a line number to encoding/json's byte offsets.
func describeJSONError(data []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return err
	}
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	return fmt.Errorf("line %d: %w", line, err)
}

// MaxValue bounds every metric value a result file may hold. No
// measurement comes near it (a year is 3.2e10 ms; 1e15 tokens/s is absurd),
// while values near the float64 limit (1.7e308, from a corrupted or hostile
// file) overflow to +Inf in the first mean or ratio and used to crash report
// writing with "json: unsupported value: +Inf". Such a file is invalid data.
const MaxValue = 1e15

// MaxClockSkew is how far in the future a promotion date may lie before
// the file is refused: clocks of CI runners disagree by seconds, not days.
const MaxClockSkew = 24 * time.Hour

// ratioMetric reports whether id is a share bounded by 1 (success_rate,
// goodput_ratio and their statistics). This package sits below the metric
// catalogue, so it names the ratio distributions itself; gate/metrics'
// tests pin the list against the catalogue's "ratio" unit.
func ratioMetric(id string) bool {
	name, _, _ := strings.Cut(id, ".")
	for _, r := range RatioMetrics {
		if name == r {
			return true
		}
	}
	return false
}

// RatioMetrics are the metric names whose values are shares in [0, 1].
var RatioMetrics = []string{"success_rate", "goodput_ratio"}

// Validate checks the invariants every reader relies on: the schema, a cell
// name and hash, and finite, non-negative metric values of at most
// MaxValue.
func (r *Result) Validate() error {
	if r.Schema != Schema {
		return fmt.Errorf("schema is %q, want %q", r.Schema, Schema)
	}
	if r.Workload.Cell == "" {
		return errors.New("workload.cell is empty")
	}
	if r.Workload.Hash == "" {
		return fmt.Errorf("workload %q: hash is empty", r.Workload.Cell)
	}
	if err := r.Looks.validate(); err != nil {
		return err
	}
	if p := r.Provenance; p != nil && p.PromotedAt.After(time.Now().Add(MaxClockSkew)) {
		// A promotion dated in the future would stay "the newest baseline"
		// and outlive every real one in the reference window.
		return fmt.Errorf("provenance.promoted_at %s is in the future", p.PromotedAt.UTC().Format(time.RFC3339))
	}
	type trialKey struct{ block, index int }
	seen := make(map[trialKey]int, len(r.Trials))
	for i, t := range r.Trials {
		if t.Look < 0 {
			return fmt.Errorf("trials[%d]: look %d is negative", i, t.Look)
		}
		if t.Index < 0 {
			return fmt.Errorf("trials[%d]: index %d is negative", i, t.Index)
		}
		k := trialKey{t.Block, t.Index}
		if prev, dup := seen[k]; dup {
			// One trial counted twice narrows every interval as if it had
			// been measured twice.
			return fmt.Errorf("trials[%d]: index %d repeats trials[%d] (block %d)", i, t.Index, prev, t.Block)
		}
		seen[k] = i
		ids := slices.Sorted(maps.Keys(t.Values))
		for _, id := range ids {
			v := t.Values[id]
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxValue {
				return fmt.Errorf("trials[%d].values[%q] = %v: metric values must be finite, non-negative and at most %g", i, id, v, MaxValue)
			}
			if ratioMetric(id) && v > 1 {
				return fmt.Errorf("trials[%d].values[%q] = %v: a ratio is at most 1", i, id, v)
			}
		}
		if t.Completed < 0 || t.Failed < 0 {
			return fmt.Errorf("trials[%d]: negative request counts", i)
		}
	}
	return nil
}

// Read reads and validates the result file at path.
func Read(path string) (*Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Unmarshal(path, data)
}

// Write writes r to path atomically: a temp file in the same directory,
// synced, then renamed over path.
func Write(path string, r *Result) error {
	data, err := Marshal(r)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return WriteFileAtomic(path, data)
}

// WriteFileAtomic writes data to path via a synced temp file and a rename,
// so readers see the old file or the new one, never a torn one.
func WriteFileAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // no-op after a successful rename
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// FileName is the conventional file name for a cell's result: the cell
// name with characters unsafe in file names replaced.
func FileName(cell string) string {
	var b strings.Builder
	for _, c := range cell {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.', c == '@':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	return b.String() + ".json"
}

// ReadDir reads every *.json result file directly in dir, sorted by name.
// Files that are not result files are errors: a results directory holds
// nothing else (detailed records are *.jsonl).
func ReadDir(dir string) ([]*Result, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var out []*Result
	for _, p := range paths {
		r, err := Read(p)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}
