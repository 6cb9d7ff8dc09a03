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

// gateAnnotations are report.Annotations as the Action's ::error and
// ::warning lines.
func gateAnnotations(out *pipeline.Outcome) []github.Annotation {
	runErr := ""
	if out.RunErr != nil {
		runErr = out.RunErr.Error()
	}
	var list []github.Annotation
	for _, a := range report.Annotations(out.Comparison, runErr) {
		level := github.Warning
		if a.Error {
			level = github.Error
		}
		list = append(list, github.Annotation{Level: level, Title: a.Title, Message: a.Message})
	}
	return list
}

// gatePublishFlags declares where the PR comment goes from a CI that is
// not GitHub Actions (bound to github.repository and github.pr).
func gatePublishFlags(f *pflag.FlagSet) {
	f.String("repo", "", "the GitHub repository (owner/name) whose pull request gets the comment, from any CI (default: the CI's own variables; see docs/ci.md)")
	f.Int("pr", 0, "the pull request number that gets the comment, from any CI (default: the CI's own variables)")
}
