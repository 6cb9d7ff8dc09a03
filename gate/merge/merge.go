// Package merge combines the result directories of a sharded run (a CI
// matrix where each runner ran part of the workloads, or part of the
// trials) into one set of results, one per workload cell, as if a single
// runner had produced them.
package merge

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// Source is one result file to merge and where it came from.
type Source struct {
	Path   string
	Result *result.Result
}

// Merged is the merge of every source of one cell.
type Merged struct {
	Result *result.Result
	// From lists the files that went into Result, in merge order.
	From []string
}

// Results merges sources cell by cell. A cell found in one source is kept
// as it is. A cell found in several sources must have the same workload
// hash in all of them (otherwise the shards ran different workload files
// and an error names both files); their trials are concatenated in source
// order and re-indexed 0..n-1 (each keeping the look it was added in), the
// run counts as complete only if every part was, its looks are the latest
// and largest of the parts' (result.Looks.Combine), and differences between the parts' fingerprints are recorded
// in Notes. The result is sorted by cell.
func Results(sources []Source) ([]Merged, error) {
	byCell := map[string]*Merged{}
	firstPath := map[string]string{}
	var cells []string
	for _, s := range sources {
		cell := s.Result.Workload.Cell
		m, ok := byCell[cell]
		if !ok {
			r := clone(s.Result)
			byCell[cell] = &Merged{Result: r, From: []string{s.Path}}
			firstPath[cell] = s.Path
			cells = append(cells, cell)
			continue
		}
		if m.Result.Workload.Hash != s.Result.Workload.Hash {
			return nil, fmt.Errorf("cell %q: %s has workload hash %s but %s has %s: the shards ran different workload files",
				cell, firstPath[cell], short(m.Result.Workload.Hash), s.Path, short(s.Result.Workload.Hash))
		}
		if err := add(m.Result, s.Result, s.Path); err != nil {
			return nil, fmt.Errorf("cell %q: merging %s: %w", cell, s.Path, err)
		}
		m.From = append(m.From, s.Path)
	}
	sort.Strings(cells)
	out := make([]Merged, 0, len(cells))
	for _, c := range cells {
		m := byCell[c]
		for i := range m.Result.Trials {
			m.Result.Trials[i].Index = i
		}
		out = append(out, *m)
	}
	return out, nil
}

// add appends src's trials to dst and reconciles the run-level fields.
func add(dst, src *result.Result, path string) error {
	if dst.Server.Model != src.Server.Model {
		return fmt.Errorf("model %q differs from %q in the first shard", src.Server.Model, dst.Server.Model)
	}
	dst.Trials = append(dst.Trials, cloneTrials(src.Trials)...)
	// The merged cell is judged at the smallest alpha any part was (the
	// latest look, the most looks declared), so gate --from keeps the
	// bound of the gate runs that chose the parts' extra trials.
	dst.Looks = dst.Looks.Combine(src.Looks)
	if src.StartedAt.Before(dst.StartedAt) {
		dst.StartedAt = src.StartedAt
	}
	if src.FinishedAt.After(dst.FinishedAt) {
		dst.FinishedAt = src.FinishedAt
	}
	if !src.Complete {
		reason := src.IncompleteReason
		if reason == "" {
			reason = "incomplete"
		}
		if dst.Complete {
			dst.Complete = false
			dst.IncompleteReason = fmt.Sprintf("%s: %s", filepath.Base(path), reason)
		} else {
			dst.IncompleteReason += fmt.Sprintf("; %s: %s", filepath.Base(path), reason)
		}
	}
	if src.Warmups != dst.Warmups {
		dst.Notes = append(dst.Notes, fmt.Sprintf("merged shard %s used %d warmups, the first shard %d", filepath.Base(path), src.Warmups, dst.Warmups))
	}
	if diff := fingerprintDiff(dst.Fingerprint, src.Fingerprint); len(diff) > 0 {
		dst.Notes = append(dst.Notes, fmt.Sprintf("merged shard %s has a different fingerprint: %s", filepath.Base(path), strings.Join(diff, ", ")))
	}
	// Per-request records belong to one shard's trial numbering; after
	// re-indexing they would no longer match, so the merged result does
	// not point at them.
	if dst.Detailed != "" || src.Detailed != "" {
		dst.Notes = append(dst.Notes, "per-request records stay with each shard's results: "+strings.Join(nonEmpty(dst.Detailed, src.Detailed), ", "))
		dst.Detailed = ""
	}
	dst.Notes = append(dst.Notes, src.Notes...)
	return nil
}

// fingerprintDiff lists the keys whose values differ, sorted: the keys of
// result.DiffFingerprints, the one comparison of two fingerprints.
func fingerprintDiff(a, b map[string]string) []string {
	var out []string
	for _, d := range result.DiffFingerprints(a, b, nil) {
		out = append(out, d.Key)
	}
	return out
}

// clone copies r deeply enough that merging never mutates a source.
func clone(r *result.Result) *result.Result {
	c := *r
	c.Trials = cloneTrials(r.Trials)
	c.Notes = append([]string(nil), r.Notes...)
	c.Looks = r.Looks.Combine(nil) // a copy
	if r.Fingerprint != nil {
		c.Fingerprint = make(map[string]string, len(r.Fingerprint))
		for k, v := range r.Fingerprint {
			c.Fingerprint[k] = v
		}
	}
	return &c
}

func cloneTrials(ts []result.Trial) []result.Trial {
	return append([]result.Trial(nil), ts...)
}

func nonEmpty(ss ...string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func short(hash string) string {
	if len(hash) > 12 {
		return hash[:12]
	}
	return hash
}

// ResultsDir is the folder, inside a `perfgate gate` or `perfgate run`
// output directory, that holds the result files.
const ResultsDir = "results"

// Read collects the result files named by args. An argument may be a
// result file, a directory of result files, or an output directory whose
// results/ sub-directory holds them (what a shard uploads as its artifact).
func Read(args []string) ([]Source, error) {
	if len(args) == 0 {
		return nil, errors.New("no shard directories given")
	}
	var out []Source
	seen := map[string]string{}
	for _, a := range args {
		abs, err := filepath.Abs(a)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[abs]; dup {
			return nil, fmt.Errorf("%s is given twice (also as %s): its trials would count twice", a, prev)
		}
		seen[abs] = a
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			r, err := result.Read(a)
			if err != nil {
				return nil, err
			}
			out = append(out, Source{Path: a, Result: r})
			continue
		}
		dir := a
		if sub := filepath.Join(a, ResultsDir); isDir(sub) {
			dir = sub
		}
		paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			return nil, err
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("%s: no result files (*.json)", dir)
		}
		sort.Strings(paths)
		for _, p := range paths {
			r, err := result.Read(p)
			if err != nil {
				return nil, err
			}
			out = append(out, Source{Path: p, Result: r})
		}
	}
	return out, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// Write writes each merged result to dir as one file per cell, named by
// result.FileName, atomically.
func Write(dir string, merged []Merged) ([]string, error) {
	var paths []string
	for _, m := range merged {
		p := filepath.Join(dir, result.FileName(m.Result.Workload.Cell))
		if err := result.Write(p, m.Result); err != nil {
			return paths, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
