package importers

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// Options tune Build.
type Options struct {
	// Name is the cell name; with several load points each cell is
	// Name-<label>.
	Name string
	// GPUs adds per-GPU throughput (0: unknown).
	GPUs        int
	ToolVersion string
}

// Build turns runs into results: one cell per load shape and model, one
// trial per run, in the order given. A run without any successful request
// is an invalid trial, kept so the failure is visible.
func Build(runs []Run, opts Options) ([]*result.Result, error) {
	if len(runs) == 0 {
		return nil, errors.New("no benchmark runs to import")
	}
	if opts.Name == "" {
		return nil, errors.New("import: a cell name is required")
	}
	type group struct {
		hash string
		runs []*Run
	}
	var groups []*group
	byKey := map[string]*group{}
	for i := range runs {
		r := &runs[i]
		_, hash, err := identity(r.Shape)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", r.Source, err)
		}
		key := hash + "\x00" + r.Model
		g := byKey[key]
		if g == nil {
			g = &group{hash: hash}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.runs = append(g.runs, r)
	}
	names := map[string]bool{}
	var out []*result.Result
	for i, g := range groups {
		name := opts.Name
		if len(groups) > 1 {
			label := g.runs[0].Label
			if label == "" {
				label = fmt.Sprint(i + 1)
			}
			name = opts.Name + "-" + label
		}
		if names[name] {
			name = fmt.Sprintf("%s-%d", name, i+1)
		}
		names[name] = true
		res, err := buildCell(name, g.runs, opts)
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

func buildCell(name string, runs []*Run, opts Options) (*result.Result, error) {
	first := runs[0]
	spec, hash, err := identity(first.Shape)
	if err != nil {
		return nil, err
	}
	r := &result.Result{
		Schema:   result.Schema,
		Tool:     result.Tool{Name: "perfgate", Version: opts.ToolVersion},
		Workload: result.Workload{Name: name, Cell: name, Hash: hash, Spec: spec},
		Server:   result.Server{Model: first.Model, GPUs: max(opts.GPUs, 0)},
		Complete: true,
		Source:   "perfgate import " + first.Tool,
	}
	r.Fingerprint = map[string]string{"import.tool": first.Tool}
	if first.Model != "" {
		r.Fingerprint[result.KeyServerModel] = first.Model
	}
	lacks := map[string]bool{}
	for i, run := range runs {
		run.fromRequests()
		run.derive(opts.GPUs)
		for _, id := range run.Lacks {
			lacks[id] = true
		}
		r.Notes = append(r.Notes, run.Notes...)
		t := result.Trial{
			Index: i, Valid: run.Completed > 0, DurationS: run.DurationS,
			Completed: run.Completed, Failed: run.Failed, Values: run.Values,
			Errors: run.Errors, ErrorSamples: run.ErrorSamples,
		}
		if !t.Valid {
			t.InvalidReason = "no successful requests"
		}
		r.Trials = append(r.Trials, t)
	}
	if len(lacks) > 0 {
		ids := slices.Sorted(maps.Keys(lacks))
		r.Notes = append(r.Notes, fmt.Sprintf("%s files record no value for: %s (not gated, not compared)", first.Tool, strings.Join(ids, ", ")))
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("import %s: %w", first.Tool, err)
	}
	return r, nil
}
