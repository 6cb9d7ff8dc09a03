package importers

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/vllmbench"
)

// SweepFile is one file of a `vllm bench sweep serve` experiment
// directory: its path relative to that directory, and its bytes.
type SweepFile struct {
	Path string
	Data []byte
}

// sweepRun matches a combination's measured runs (run=0.json, ...); its
// warmup.json (run -1), summary.json (every run again) and
// run=N.failure.json are not trials.
var sweepRun = regexp.MustCompile(`^run=(\d+)\.json$`)

// ImportSweep imports a `vllm bench sweep serve` experiment: every
// combination directory (SERVE-<serve params>-BENCH-<bench params>) with
// measured runs becomes one cell, named after the directory (prefixed by
// opts.Name when set), its run=N.json files (vllm bench serve results with
// the sweep's overrides added) the trials in run order. Failed runs
// (run=N.failure.json) are reported in the notes, never silently dropped.
func ImportSweep(files []SweepFile, opts Options) ([]*result.Result, []string, error) {
	type run struct {
		n    int
		file SweepFile
	}
	byDir := map[string][]run{}
	var notes []string
	for _, f := range files {
		dir, base := path.Split(path.Clean(f.Path))
		dir = strings.TrimSuffix(dir, "/")
		if m := sweepRun.FindStringSubmatch(base); m != nil {
			n, err := strconv.Atoi(m[1])
			if err != nil {
				return nil, nil, fmt.Errorf("%s: run number %q", f.Path, m[1])
			}
			byDir[dir] = append(byDir[dir], run{n, f})
			continue
		}
		if strings.HasSuffix(base, ".failure.json") {
			var fail struct {
				Run   *int   `json:"run_number"`
				Type  string `json:"error_type"`
				Error string `json:"error"`
			}
			_ = json.Unmarshal(f.Data, &fail)
			notes = append(notes, fmt.Sprintf("%s: a failed run (%s: %s), not a trial: the cell has fewer trials than the sweep's --num-runs", f.Path, fail.Type, clipText(fail.Error, 300)))
		}
	}
	if len(byDir) == 0 {
		return nil, notes, fmt.Errorf("no run=N.json files: not a vllm bench sweep serve experiment directory (SERVE-...-BENCH-.../run=0.json)")
	}
	dirs := slices.Sorted(maps.Keys(byDir))
	var out []*result.Result
	for _, d := range dirs {
		runs := byDir[d]
		sort.Slice(runs, func(i, j int) bool { return runs[i].n < runs[j].n })
		benches := make([]*vllmbench.Bench, 0, len(runs))
		for _, r := range runs {
			b, err := vllmbench.Parse(r.file.Path, r.file.Data)
			if err != nil {
				return nil, notes, err
			}
			benches = append(benches, b)
		}
		cell := sweepCellName(opts.Name, d)
		res, err := vllmbench.Import(benches, vllmbench.Options{Cell: cell, GPUs: opts.GPUs, ToolVersion: opts.ToolVersion})
		if err != nil {
			return nil, notes, fmt.Errorf("%s: %w", d, err)
		}
		res.Source = "perfgate import vllm-sweep"
		out = append(out, res)
	}
	return out, notes, nil
}

// sweepCellName is the combination directory's base name, kept to the
// characters a cell name may hold.
func sweepCellName(prefix, dir string) string {
	base := path.Base(dir)
	if base == "." || base == "/" || base == "" {
		base = "sweep"
	}
	var b strings.Builder
	for _, c := range base {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
			b.WriteRune(c)
		default:
			b.WriteByte('_')
		}
	}
	if prefix != "" {
		return prefix + "-" + b.String()
	}
	return b.String()
}
