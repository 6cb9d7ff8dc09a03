package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/perfgate/perfgate/gate/explain"
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
	paths := gatePaths{
		dir:        dir,
		results:    filepath.Join(dir, "{a,b}"),
		comparison: filepath.Join(dir, "comparison.json"),
		report:     filepath.Join(dir, "report.md"),
		comment:    filepath.Join(dir, "comment.md"),
		text:       filepath.Join(dir, "report.txt"),
	}
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
	explain.Attach(out.Comparison, d.Baselines, d.Candidates)
	attachKernels(out.Comparison, x.kernels)
	var cmpJSON, full, comment, text bytes.Buffer
	if err := report.JSON(&cmpJSON, out.Comparison); err != nil {
		return err
	}
	if err := report.Markdown(&full, d, 0); err != nil {
		return err
	}
	if err := report.Markdown(&comment, d, report.CommentLimit); err != nil {
		return err
	}
	if err := report.Text(&text, d); err != nil {
		return err
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{paths.comparison, cmpJSON.Bytes()}, {paths.report, full.Bytes()}, {paths.comment, comment.Bytes()}, {paths.text, text.Bytes()}} {
		if err := result.WriteFileAtomic(f.path, f.data); err != nil {
			return fmt.Errorf("writing %s: %w", f.path, err)
		}
	}
	s.Out.Write(text.Bytes())
	fmt.Fprintf(s.Out, "\nwrote %s and %s (results), %s, %s and %s\n",
		filepath.Join(dir, "a"), filepath.Join(dir, "b"), paths.comparison, paths.report, paths.comment)

	code, msg := gateExit(out, p.cfg.GitHub.FailOnInconclusive)
	if err := gatePublish(ctx, s, p.cfg, out, paths, code, comment.String()); err != nil {
		fmt.Fprintf(s.Err, "perfgate: warning: publishing to GitHub: %v\n", err)
	}
	if code == ExitPass {
		if msg != "" {
			fmt.Fprintf(s.Err, "perfgate: warning: %s\n", strings.Replace(msg, "within the trial budget", "within the blocks run", 1))
		}
		return nil
	}
	if msg == "" {
		return &ExitError{Code: code}
	}
	return exitf(code, "%s", msg)
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
