// Package baseline is the baseline store: the result files a candidate is
// compared with, kept in the repository so that a change of baseline is a
// reviewed diff.
//
// Layout under the store's root (see docs/baselines.md):
//
//	<root>/<profile>/<cell file>.json            a result file plus provenance
//	<root>/<profile>/history/<cell file>.jsonl   append-only, one line per promotion
//
// where <cell file> is result.FileName(cell) without its extension. Baseline
// files are written atomically as stable, sorted, indented JSON.
package baseline

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// Store is a baselines directory.
type Store struct {
	Root string
}

// Requirements are what a run must meet to become a baseline. A baseline
// with too few trials or many invalid ones would make every later
// comparison weak or wrong, so promotion refuses rather than warns.
type Requirements struct {
	// MinTrials is the fewest valid trials per cell.
	MinTrials int
	// MaxInvalidShare is the largest share of invalid trials (0.25: at most
	// one trial in four).
	MaxInvalidShare float64
}

// Run is one result file offered for promotion; Source names it in errors.
// Rules are the gate rules in force for its cell (stored with the baseline
// as the trusted side's rules) and Warnings the caveats to record with it.
type Run struct {
	Source   string
	Result   *result.Result
	Rules    []result.Rule
	Warnings []string
}

// ValidateProfile accepts profile names that are one safe path element.
func ValidateProfile(profile string) error {
	if profile == "" {
		return errors.New("profile is empty")
	}
	if profile == "." || profile == ".." || profile == "history" {
		return fmt.Errorf("profile %q is reserved", profile)
	}
	for _, c := range profile {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '-', c == '_', c == '.':
		default:
			return fmt.Errorf("profile %q: only letters, digits, '-', '_' and '.' are allowed", profile)
		}
	}
	return nil
}

// Dir is the directory of profile's baselines.
func (s Store) Dir(profile string) string { return filepath.Join(s.Root, profile) }

// Path is the baseline file of cell in profile.
func (s Store) Path(profile, cell string) string {
	return filepath.Join(s.Dir(profile), result.FileName(cell))
}

// HistoryPath is the history file of cell in profile.
func (s Store) HistoryPath(profile, cell string) string {
	name := strings.TrimSuffix(result.FileName(cell), ".json") + ".jsonl"
	return filepath.Join(s.Dir(profile), "history", name)
}

// Check returns why r cannot become a baseline, or nil.
func Check(r *result.Result, req Requirements) error {
	if !r.Complete {
		reason := r.IncompleteReason
		if reason == "" {
			reason = "no reason recorded"
		}
		return fmt.Errorf("workload %q: the run is incomplete (%s); an incomplete run never becomes a baseline", r.Workload.Cell, reason)
	}
	valid := len(r.ValidTrials())
	invalid := len(r.Trials) - valid
	if valid < req.MinTrials {
		return fmt.Errorf("workload %q: %d valid trial(s), a baseline needs at least %d", r.Workload.Cell, valid, req.MinTrials)
	}
	if float64(invalid) > req.MaxInvalidShare*float64(len(r.Trials)) {
		return fmt.Errorf("workload %q: %d of %d trials are invalid (more than %.0f%%); fix the run before promoting it", r.Workload.Cell, invalid, len(r.Trials), 100*req.MaxInvalidShare)
	}
	return nil
}

// Update promotes runs to profile: every run is checked first and nothing
// is written unless all pass; then, under the profile's lock (Lock), each
// cell's baseline file is replaced atomically and one line is appended to
// its history. It returns the
// baseline files written, sorted.
func (s Store) Update(profile string, runs []Run, prov result.Provenance, req Requirements) ([]string, error) {
	if err := ValidateProfile(profile); err != nil {
		return nil, err
	}
	if len(runs) == 0 {
		return nil, errors.New("no result files to promote")
	}
	seen := map[string]string{}
	var errs []error
	for _, run := range runs {
		if prev, dup := seen[run.Result.Workload.Cell]; dup {
			errs = append(errs, fmt.Errorf("%s: workload cell %q is also in %s (merge shards first)", run.Source, run.Result.Workload.Cell, prev))
			continue
		}
		seen[run.Result.Workload.Cell] = run.Source
		if err := Check(run.Result, req); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", run.Source, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	unlock, err := s.Lock(profile, LockWait)
	if err != nil {
		return nil, err
	}
	defer unlock()
	var written []string
	for _, run := range runs {
		p := prov
		p.Rules, p.RulesHash = SortRules(run.Rules), RulesHash(run.Rules)
		p.Warnings = append(append([]string(nil), prov.Warnings...), run.Warnings...)
		b := Promote(run.Result, p)
		path := s.Path(profile, b.Workload.Cell)
		if err := result.Write(path, b); err != nil {
			return written, fmt.Errorf("writing baseline %s: %w", path, err)
		}
		written = append(written, path)
		if err := s.appendHistory(profile, b); err != nil {
			return written, err
		}
	}
	sort.Strings(written)
	return written, nil
}

// Promote returns a copy of r as a baseline with provenance prov. The
// per-request record file is not copied into the store, so the reference
// to it is dropped; the server version is taken from the result when prov
// lacks it.
func Promote(r *result.Result, prov result.Provenance) *result.Result {
	b := *r
	p := prov
	if p.ServerVersion == "" {
		p.ServerVersion = r.Server.Version
	}
	b.Provenance = &p
	b.Detailed = ""
	return &b
}
