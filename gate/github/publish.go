package github

import (
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/perfgate/perfgate/gate/redact"
)

// Report is what a gate run publishes.
type Report struct {
	// Profile selects the comment marker: one sticky comment per profile.
	Profile string
	// Markdown is the PR comment and the step summary.
	Markdown       string
	Verdict        string
	Regressed      []string // workload:metric
	ReportPath     string
	ComparisonPath string
	Annotations    []Annotation
}

// Options tune Publish.
type Options struct {
	// Comment says when to post the PR comment (pull request runs with a
	// token only); the zero value is CommentNever.
	Comment CommentMode
	// Out receives workflow commands (annotations): the step's stdout.
	Out io.Writer
	// HTTPClient is used for API calls; nil means a client with a timeout.
	HTTPClient *http.Client
	// ArtifactDir is the output directory, uploaded as the build's
	// artifacts on Buildkite ("" uploads nothing).
	ArtifactDir string
	// Agent runs buildkite-agent; nil: the binary on PATH, if any.
	Agent AgentRunner
}

// Published says what Publish did.
type Published struct {
	Comment CommentResult
	// Notes say what else was done, or not done and why (a Buildkite
	// annotation, artifacts), one line each.
	Notes []string
}

// Publish writes r to the Actions run described by env: outputs, step
// summary and annotations, then the PR comment as opts.Comment says (see
// Post). Outside Actions see publishElsewhere. Steps that fail do not stop the
// others; their errors are joined, with the token removed. A failed comment
// also leaves a ::warning:: on the run, since it is often a permission
// problem (fork PRs get a read-only token) the user must see.
func Publish(ctx context.Context, env Env, r Report, opts Options) (Published, error) {
	if !env.Actions {
		return publishElsewhere(ctx, env, r, opts)
	}
	out := opts.Out
	if out == nil {
		out = io.Discard
	}
	getenv := env.getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	// Annotations carry text from reports and API errors; the runner
	// masks registered secrets, but a token from an unusual source might
	// not be registered.
	scrub := redact.NewScrubber(env.Token.Reveal())
	run := newRunner(getenv, scrub.Writer(out))
	// The report is built from scrubbed results; the comment and summary
	// are public, so the token (and any credential shape) is checked for
	// once more.
	r.Markdown = scrub.String(r.Markdown)
	var errs []error
	errs = append(errs, run.SetOutputs(Outputs{Verdict: r.Verdict, Regressed: r.Regressed, ReportPath: r.ReportPath, ComparisonPath: r.ComparisonPath}))
	errs = append(errs, run.AddSummary(r.Markdown))
	run.Annotate(r.Annotations)

	var pub Published
	switch {
	case opts.Comment == CommentNever || opts.Comment == "":
		pub.Comment = CommentResult{Action: Skipped, Reason: "comments are turned off"}
	case env.PR == 0:
		pub.Comment = CommentResult{Action: Skipped, Reason: "the run is not for a pull request (event " + env.EventName + ")"}
	case env.Token == "":
		pub.Comment = CommentResult{Action: Skipped, Reason: "no token (set the github-token input or GITHUB_TOKEN)"}
	default:
		res, err := comment(ctx, env, r, opts.Comment, opts.HTTPClient)
		pub.Comment = res
		if err != nil {
			err = scrub.Error(err)
			run.Annotate([]Annotation{{Level: Warning, Title: "perfgate could not comment", Message: err.Error()}})
			errs = append(errs, err)
		}
	}
	return pub, scrub.Error(errors.Join(errs...))
}

func comment(ctx context.Context, env Env, r Report, mode CommentMode, hc *http.Client) (CommentResult, error) {
	marker, err := Marker(r.Profile)
	if err != nil {
		return CommentResult{}, err
	}
	c, err := NewClient(hc, env.APIURL, env.Token)
	if err != nil {
		return CommentResult{}, err
	}
	st := NewState(r.Verdict, r.Regressed)
	return Post(ctx, c, Target{Owner: env.Owner, Repo: env.Repo, PR: env.PR, Marker: marker}, r.Markdown, mode, &st)
}

// publishElsewhere publishes from any CI but GitHub Actions, or none: on
// Buildkite the annotation and artifacts, then the PR comment wherever the
// repository, the PR number and a token are known (Env.NotPosted says
// which is missing otherwise).
func publishElsewhere(ctx context.Context, env Env, r Report, opts Options) (Published, error) {
	scrub := redact.NewScrubber(env.Token.Reveal())
	r.Markdown = scrub.String(r.Markdown)
	var pub Published
	var errs []error
	if env.CI == Buildkite {
		notes, err := publishBuildkite(ctx, env, r, opts)
		pub.Notes = append(pub.Notes, notes...)
		errs = append(errs, err)
	}
	switch why := env.NotPosted(); {
	case opts.Comment == CommentNever || opts.Comment == "":
		pub.Comment = CommentResult{Action: Skipped, Reason: "comments are turned off"}
	case why != "":
		pub.Comment = CommentResult{Action: Skipped, Reason: why}
	default:
		res, err := comment(ctx, env, r, opts.Comment, opts.HTTPClient)
		pub.Comment = res
		errs = append(errs, err)
	}
	return pub, scrub.Error(errors.Join(errs...))
}
