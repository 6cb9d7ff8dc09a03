// Package github connects a finished gate run to GitHub: the sticky pull
// request comment (through go-github) and the Actions runner protocol —
// outputs, step summary, annotations (through go-githubactions). It is the
// only package that imports either library.
//
// The gate command uses it in two calls:
//
//	env, err := github.EnvFrom(os.Getenv)   // repo, PR number, API URL, token
//	pub, err := github.Publish(ctx, env, github.Report{
//		Profile:        cfg.Profile,         // selects the comment's hidden marker
//		Markdown:       md,                  // PR comment and step summary
//		Verdict:        "regression",        // the exit code's name (cli.ExitCode.String)
//		Regressed:      []string{"cx8-4000-1000-c16:tpot_ms.p50"},
//		ReportPath:     "perfgate-out/report.md",
//		ComparisonPath: "perfgate-out/comparison.json",
//		Annotations:    []github.Annotation{{Level: github.Error, Title: "TPOT p50 +7.9 %", Message: "..."}},
//	}, github.Options{Comment: github.CommentAlways, Out: os.Stdout})
//
// Outside GitHub Actions (GITHUB_ACTIONS is not "true") Publish writes no
// Actions protocol; on Buildkite it annotates the build and uploads the
// output directory (buildkite-agent), and from any CI, or none, it posts
// the comment when the repository, the PR and a token are known: from
// Buildkite's or GitLab's own variables, or given (Env.Apply: --repo, --pr,
// PERFGATE_GITHUB_REPOSITORY, PERFGATE_GITHUB_PR). Otherwise the skipped
// comment's Reason (Env.NotPosted) says what is missing. Inside Actions it sets the outputs verdict, regressed
// (comma-separated workload:metric), report-path and comparison-path,
// appends Markdown to the step summary, writes one ::error/::warning/::notice
// line per annotation, and, when Options.Comment is set and the run is for a
// pull request, upserts the comment: it lists every page of the PR's
// comments, edits the one containing Marker(profile) that the token's own
// account wrote (unchanged bodies are not rewritten; a person's comment
// quoting the marker is never touched), and creates one only when none
// exists. One comment per profile per PR, updated in place on every push.
//
// The API root is GITHUB_API_URL as the runner sets it (GitHub Enterprise
// Server: https://HOST/api/v3; a fake in tests), used as go-github's
// BaseURL verbatim. The token comes from the Action input github-token
// (INPUT_GITHUB-TOKEN), PERFGATE_GITHUB_TOKEN or GITHUB_TOKEN, in that
// order. It is held as a Token, which prints as redact.Placeholder under
// every fmt verb and encoding, and every error this package returns has the
// token text removed (gate/redact's Scrubber), including errors quoting an
// API response.
package github
