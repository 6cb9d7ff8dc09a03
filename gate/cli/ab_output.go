package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/result"
)

// abFinish writes the comparison and the reports (the results are on disk
// already, rewritten after every block), prints the terminal report,
// publishes inside GitHub Actions as perfgate gate does, and turns the
// outcome into the exit code with gate's mapping: a failed block is 3
// whatever the partial comparison says.
func abFinish(ctx context.Context, s *Streams, p *abPlan, x *abExperiment, out *pipeline.Outcome, artifact string) error {
	dir := p.cfg.Output
	paths := newGatePaths(dir, filepath.Join(dir, "{a,b}"))
	d := &report.Data{
		Comparison: out.Comparison, Profile: p.cfg.Profile,
		Candidates: map[string]*result.Result{}, Baselines: map[string]*result.Result{},
		ResultPaths: map[string]string{}, BaselinePaths: map[string]string{},
		FullReport:    paths.report,
		OutDir:        dir, // the comment names files relative to it
		ServerFailure: reportedFailure(x.failure),
		AB:            abReported(x, p),
		Footer: fmt.Sprintf("perfgate %s · ab: %d blocks (%s), %d trial(s) per block, %d look(s)",
			Version, len(x.design.Blocks), x.design.Order, p.blockTrials, out.Looks),
	}
	for _, r := range abNonNil(x.results[0]) {
		d.Baselines[r.Workload.Cell] = r
		d.BaselinePaths[r.Workload.Cell] = filepath.Join(dir, x.arms[0].name, result.FileName(r.Workload.Cell))
	}
	for _, r := range abNonNil(x.results[1]) {
		d.Candidates[r.Workload.Cell] = r
		d.ResultPaths[r.Workload.Cell] = filepath.Join(dir, x.arms[1].name, result.FileName(r.Workload.Cell))
	}
	if out.RunErr != nil {
		d.RunError = out.RunErr.Error()
	}
	var err error
	if d.Artifact, err = gateArtifact(artifact, s.getenv); err != nil {
		return &ExitError{Code: ExitInvalid, Err: err}
	}
	paths.data = d
	paths.kernels = x.kernels
	wrote := fmt.Sprintf("%s and %s (results), %s, %s and %s",
		filepath.Join(dir, "a"), filepath.Join(dir, "b"), paths.comparison, paths.report, paths.comment)
	return finishVerdict(ctx, s, p.cfg, out, paths, nil, wrote, func(msg string) string {
		return strings.Replace(msg, "within the trial budget", "within the blocks run", 1)
	})
}

// abReported is the experiment's design as the report shows it.
func abReported(x *abExperiment, p *abPlan) *report.AB {
	return &report.AB{Order: x.design.Order, Seed: x.design.Seed, Blocks: x.design.Blocks, Resident: p.resident}
}

// abOnDisk is r as a file written during the experiment holds it: before
// the final write, a result that would say complete says incomplete, with
// why. The files are rewritten after every block, so a SIGKILLed or twice
// interrupted `perfgate ab` (no chance to mark them) left 12 of 16
// blocks saying complete, and `baseline update` promoted them (issue 20
// item 4). r itself is not changed: the experiment goes on with it.
func abOnDisk(r *result.Result, final bool) *result.Result {
	if final || !r.Complete {
		return r
	}
	c := *r
	c.Complete = false
	blocks := 0
	if r.AB != nil {
		blocks = len(r.AB.Blocks)
	}
	c.IncompleteReason = fmt.Sprintf("the A/B experiment had not finished when this file was written (after block %d): "+
		"a run that is killed or interrupted leaves it so, and half a balanced order is not a balanced order; "+
		"rerun perfgate ab to finish the design", blocks)
	return &c
}
