package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/explain"
	"github.com/perfgate/perfgate/gate/merge"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

// gatePaths are the files a gate run writes.
type gatePaths struct {
	dir, results, comparison, report, comment, text string
	data                                            *report.Data
	// kernels is the kernel profile's section (profile.go), nil without.
	kernels *verdict.KernelDiff
}

// newGatePaths names the files of an output directory; results is where
// the result files go (what the closing line calls them).
func newGatePaths(dir, results string) gatePaths {
	return gatePaths{
		dir:        dir,
		results:    results,
		comparison: filepath.Join(dir, "comparison.json"),
		report:     filepath.Join(dir, "report.md"),
		comment:    filepath.Join(dir, "comment.md"),
		text:       filepath.Join(dir, "report.txt"),
	}
}

// gateReportPaths lays out the output directory and the report's view of
// it (where each raw result and baseline file is).
func gateReportPaths(cfg config.Config, baseDir string, out *pipeline.Outcome, getenv func(string) string) gatePaths {
	dir := cfg.Output
	p := newGatePaths(dir, filepath.Join(dir, merge.ResultsDir))
	d := &report.Data{
		Comparison: out.Comparison, Profile: cfg.Profile,
		Candidates: map[string]*result.Result{}, Baselines: map[string]*result.Result{},
		ResultPaths: map[string]string{}, BaselinePaths: map[string]string{},
		FullReport: p.report,
		Footer:     fmt.Sprintf("perfgate %s · %d look(s), %d extra trial(s)", Version, out.Looks, out.ExtraTrials),
		// The header's head commit and runner, as GitHub Actions names them;
		// files are named relative to the output directory (the artifact).
		Head:   report.Revision{Commit: getenv("GITHUB_SHA"), Ref: getenv("GITHUB_HEAD_REF")},
		Runner: getenv("RUNNER_NAME"),
		OutDir: dir,
	}
	for _, r := range out.Results {
		d.Candidates[r.Workload.Cell] = r
		d.ResultPaths[r.Workload.Cell] = filepath.Join(p.results, result.FileName(r.Workload.Cell))
	}
	for _, w := range out.Comparison.Workloads {
		if w.Status != verdict.MissingBaseline {
			d.BaselinePaths[w.Cell] = filepath.Join(baseDir, result.FileName(w.Cell))
		}
	}
	// A comparison at the baseline's rate reads the share cell's file.
	for _, r := range out.Results {
		if at := r.BaselineRate; at != nil && d.BaselinePaths[r.Workload.Cell] != "" {
			d.BaselinePaths[r.Workload.Cell] = filepath.Join(baseDir, result.FileName(at.Cell))
		}
	}
	if out.RunErr != nil {
		d.RunError = out.RunErr.Error()
	}
	p.data = d
	return p
}

// gateAttachBaselines gives the report the baseline results for the
// serving-benchmark facts.
func gateAttachBaselines(d *report.Data, baselines []*result.Result) {
	for _, b := range baselines {
		d.Baselines[b.Workload.Cell] = b
	}
}

// gateFinish writes the results, then the comparison and the reports
// (finishVerdict).
func gateFinish(ctx context.Context, s *Streams, cfg config.Config, out *pipeline.Outcome, p gatePaths) error {
	var writeErrs []error
	for _, r := range out.Results {
		if err := s.putResult(p.data.ResultPaths[r.Workload.Cell], r); err != nil {
			writeErrs = append(writeErrs, fmt.Errorf("writing results: %w", err))
		}
	}
	wrote := fmt.Sprintf("%s, %s, %s and %s", p.results, p.comparison, p.report, p.comment)
	return finishVerdict(ctx, s, cfg, out, p, writeErrs, wrote, nil)
}

// finishVerdict is how gate and ab end: attach the explanation, write
// the comparison and the reports, print the terminal report, publish
// inside GitHub Actions, and turn the outcome into the exit code. wrote
// names the files for the closing line; passNote, when set, rewords the
// warning of a pass.
//
// Everything is rendered before anything is written, and a write that
// fails (a full disk) is reported after the verdict is printed: the
// verdict is known, and losing it with the files helps no one. writeErrs
// are the caller's own failed writes (the results).
func finishVerdict(ctx context.Context, s *Streams, cfg config.Config, out *pipeline.Outcome, p gatePaths, writeErrs []error, wrote string, passNote func(string) string) error {
	explain.Attach(out.Comparison, p.data.Baselines, p.data.Candidates, p.kernels)
	r, err := report.Render(p.data)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		path string
		data []byte
	}{{p.comparison, r.JSON}, {p.report, r.Full}, {p.comment, r.Comment}, {p.text, r.Text}} {
		if err := s.putFile(f.path, f.data); err != nil {
			writeErrs = append(writeErrs, fmt.Errorf("writing %s: %w", f.path, err))
		}
	}
	s.Out.Write(r.Text)
	if len(writeErrs) == 0 {
		fmt.Fprintf(s.Out, "\nwrote %s\n", wrote)
	}
	for _, err := range writeErrs {
		fmt.Fprintf(s.Err, "perfgate: error: %v\n", err)
	}

	code, msg := gateExit(out, cfg.GitHub.FailOnInconclusive)
	if err := gatePublish(ctx, s, cfg, out, p, code, string(r.Comment)); err != nil {
		fmt.Fprintf(s.Err, "perfgate: warning: publishing to GitHub: %v\n", err)
	}
	if len(writeErrs) > 0 && code == ExitPass {
		// A pass whose record was lost is not a pass CI may rely on.
		return exitf(ExitInvalid, "the verdict above is %s, but %d output file(s) could not be written: free space for %s and run the gate again", out.Comparison.Verdict, len(writeErrs), cfg.Output)
	}
	if code == ExitPass {
		if msg != "" && passNote != nil {
			msg = passNote(msg)
		}
		if msg != "" {
			fmt.Fprintf(s.Err, "perfgate: warning: %s\n", msg)
		}
		return nil
	}
	if msg == "" {
		return &ExitError{Code: code}
	}
	return exitf(code, "%s", msg)
}

// gateExit maps the outcome to the exit code: a failed run is 3 whatever
// the partial comparison says; otherwise the verdict decides, with an
// inconclusive verdict failing only when asked to.
func gateExit(out *pipeline.Outcome, failOnInconclusive bool) (ExitCode, string) {
	if out.RunErr != nil {
		return ExitRunFailed, "the run failed: " + out.RunErr.Error() + " (partial results written; they never pass)"
	}
	switch out.Comparison.Verdict {
	case verdict.Regression:
		return ExitRegression, ""
	case verdict.Invalid:
		return ExitInvalid, "some workloads could not be compared (see the report)"
	case verdict.Inconclusive:
		if failOnInconclusive {
			return ExitInconclusive, ""
		}
		return ExitPass, "the verdict is inconclusive within the trial budget; passing because --fail-on-inconclusive is off"
	}
	return ExitPass, ""
}
