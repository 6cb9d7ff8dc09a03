package baseline

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/trace"
)

// OpsSchema identifies the encoding of an Ops file.
const OpsSchema = "perfgate.ops/v1"

// maxOpsFile bounds an op summary file read back: a summary keeps at most
// trace.DefaultMaxOps kernels of at most 512-byte names.
const maxOpsFile = 16 << 20

// Ops is the op summary of one profiled trial (package trace) kept beside
// a baseline: a gate runs only the candidate, so the baseline's side of a
// kernel diff is the summary recorded when the baseline was (profiling:
// always). It lives in <profile>/ops/<cell>.json.
type Ops struct {
	Schema string `json:"schema"`
	// Cell is the workload cell profiled, and Hash its workload hash: a
	// summary of another version of the workload is not compared.
	Cell string `json:"cell"`
	Hash string `json:"hash"`
	// Requests is the length of the profiled trial (profiling.requests):
	// both sides of a diff ran the same requests.
	Requests int `json:"requests"`
	// Trace is the trace file the summary was read from, as it was named
	// where it was recorded (the run's artifact holds it).
	Trace   string        `json:"trace"`
	Summary trace.Summary `json:"summary"`
}

// OpsPath is the op summary file of cell in profile.
func (s Store) OpsPath(profile, cell string) string {
	return filepath.Join(s.Dir(profile), "ops", result.FileName(cell))
}

// WriteOpsFile validates o and writes it atomically to path.
func WriteOpsFile(path string, o *Ops) error {
	data, err := MarshalOps(o)
	if err != nil {
		return err
	}
	if err := result.WriteFileAtomic(path, data); err != nil {
		return fmt.Errorf("writing op summary %s: %w", path, err)
	}
	return nil
}

// ReadOpsFile reads an op summary file. A missing file gives an error for
// which errors.Is(err, os.ErrNotExist).
func ReadOpsFile(path string) (*Ops, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxOpsFile+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(data) > maxOpsFile {
		return nil, fmt.Errorf("%s: larger than %d bytes: not an op summary", path, maxOpsFile)
	}
	return ParseOps(path, data)
}

// MarshalOps encodes o (validated) as stable, indented JSON.
func MarshalOps(o *Ops) ([]byte, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	return result.MarshalStable(o)
}

// ParseOps decodes and validates an op summary; name is used in errors,
// which carry the line of the offending value.
func ParseOps(name string, data []byte) (*Ops, error) {
	var o Ops
	if err := decodeStrict(name, "the op summary", data, &o); err != nil {
		return nil, err
	}
	if err := o.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &o, nil
}

func (o *Ops) validate() error {
	switch {
	case o == nil:
		return errors.New("no op summary")
	case o.Schema != OpsSchema:
		return fmt.Errorf("schema %q: want %q (re-record the baseline with profiling: always)", o.Schema, OpsSchema)
	case o.Cell == "":
		return errors.New("the op summary names no workload cell")
	case o.Requests < 0 || o.Summary.Steps < 0 || o.Summary.Events < 0:
		return errors.New("negative counts")
	case len(o.Summary.Ops) > trace.DefaultMaxOps:
		return fmt.Errorf("%d kernels, more than %d", len(o.Summary.Ops), trace.DefaultMaxOps)
	}
	for _, op := range o.Summary.Ops {
		if op.Name == "" || op.Calls < 1 || op.TotalUS < 0 || math.IsNaN(op.TotalUS) || math.IsInf(op.TotalUS, 0) {
			return fmt.Errorf("kernel %q: %d calls, %g µs: not a kernel's total", op.Name, op.Calls, op.TotalUS)
		}
	}
	return nil
}
