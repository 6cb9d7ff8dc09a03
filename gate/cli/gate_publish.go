package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/github"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/verdict"
)

// gatePublish hands the outcome to the CI: inside Actions outputs, step
// summary and annotations; on Buildkite an annotation and the output
// directory as artifacts; from any CI (or none) the sticky PR comment when
// the repository, the PR and a token are known (docs/ci.md). What it did
// not post, and why, is one line on stderr. A publishing failure is a
// warning, never a change of the verdict.
func gatePublish(ctx context.Context, s *Streams, cfg config.Config, out *pipeline.Outcome, p gatePaths, code ExitCode, comment string) error {
	env, err := github.EnvFrom(s.getenv)
	if err != nil {
		return err
	}
	if err := env.Apply(github.Given{Repository: cfg.GitHub.Repository, PR: cfg.GitHub.PR}); err != nil {
		return err
	}
	if cfg.GitHub.Token != "" {
		env.Token = github.Token(cfg.GitHub.Token)
	}
	r := github.Report{
		Profile:        cfg.Profile,
		Markdown:       comment,
		Verdict:        gateVerdictName(out, code),
		ReportPath:     p.report,
		ComparisonPath: p.comparison,
		Annotations:    gateAnnotations(out),
	}
	for _, c := range out.Comparison.Cells {
		if c.Gated && c.Outcome == verdict.Regression {
			r.Regressed = append(r.Regressed, c.Workload+":"+c.Metric)
		}
	}
	mode, err := github.ParseCommentMode(string(cfg.GitHub.Comment))
	if err != nil {
		return fmt.Errorf("github.comment: %w", err) // config.Load checked it already
	}
	pub, err := github.Publish(ctx, env, r, github.Options{Comment: mode, Out: s.Out, ArtifactDir: p.dir})
	for _, n := range pub.Notes {
		fmt.Fprintf(s.Err, "perfgate: %s\n", n)
	}
	switch {
	case pub.Comment.Action != "" && pub.Comment.Action != github.Skipped:
		fmt.Fprintf(s.Err, "perfgate: PR comment %s: %s\n", pub.Comment.Action, pub.Comment.URL)
	case pub.Comment.Action == github.Skipped && mode != github.CommentNever:
		fmt.Fprintf(s.Err, "perfgate: no PR comment posted: %s\n", pub.Comment.Reason)
	}
	return err
}

// gateArtifact is what the report says about the uploaded output
// directory: the artifact's name (--artifact, set by the Action) and the
// workflow run page that lists it, from the runner's environment. Outside
// Actions there is no run page, so there is nothing to link.
func gateArtifact(name string, getenv func(string) string) (report.Artifact, error) {
	if name == "" {
		return report.Artifact{}, nil
	}
	env, err := github.EnvFrom(getenv)
	if err != nil || !env.Actions {
		return report.Artifact{}, err
	}
	return report.Artifact{Name: name, URL: env.RunURL}, nil
}

// gateVerdictName is the Action's `verdict` output: the comparison's
// verdict (so an inconclusive run says so even when it does not fail the
// step), or run-failed.
func gateVerdictName(out *pipeline.Outcome, code ExitCode) string {
	if out.RunErr != nil || out.Comparison == nil {
		return code.String()
	}
	return string(out.Comparison.Verdict)
}

// gateAnnotations turns regressions, undecided cells and a failed run into
// ::error / ::warning lines on the workflow run.
func gateAnnotations(out *pipeline.Outcome) []github.Annotation {
	var list []github.Annotation
	if out.RunErr != nil {
		list = append(list, github.Annotation{Level: github.Error, Title: "perfgate: run failed", Message: out.RunErr.Error()})
	}
	for i := range out.Comparison.Cells {
		c := &out.Comparison.Cells[i]
		if !c.Gated {
			continue
		}
		msg := fmt.Sprintf("%s %s (interval %s, tolerance %s), %d vs %d trials", c.Label, report.Change(c), report.Interval(c), report.Tolerance(c), c.Baseline.N, c.Candidate.N)
		switch c.Outcome {
		case verdict.Regression:
			list = append(list, github.Annotation{Level: github.Error, Title: "perfgate: regression in " + c.Workload, Message: msg})
		case verdict.Inconclusive:
			list = append(list, github.Annotation{Level: github.Warning, Title: "perfgate: undecided in " + c.Workload, Message: msg})
		}
	}
	for _, w := range out.Comparison.Workloads {
		if w.Status != verdict.Compared && !w.Allowed {
			list = append(list, github.Annotation{Level: github.Error, Title: "perfgate: " + w.Cell + " not compared", Message: w.Message})
		}
	}
	// Keep the run page readable: GitHub shows at most 10 errors and 10
	// warnings per step anyway.
	if len(list) > 20 {
		list = list[:20]
	}
	return list
}

// gatePublishFlags declares where the PR comment goes from a CI that is
// not GitHub Actions (bound to github.repository and github.pr).
func gatePublishFlags(f *pflag.FlagSet) {
	f.String("repo", "", "the GitHub repository (owner/name) whose pull request gets the comment, from any CI (default: the CI's own variables; see docs/ci.md)")
	f.Int("pr", 0, "the pull request number that gets the comment, from any CI (default: the CI's own variables)")
}
