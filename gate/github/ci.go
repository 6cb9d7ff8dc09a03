package github

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/redact"
)

// CI names the continuous-integration system a run is in, as far as the
// PR comment is concerned: where the repository, the pull request number
// and the run's page come from.
type CI string

const (
	// NoCI: none that perfgate knows (a laptop, or a CI it cannot read);
	// the comment is posted only when a repository and a PR are given.
	NoCI      CI = ""
	Actions   CI = "GitHub Actions"
	Buildkite CI = "Buildkite"
	GitLab    CI = "GitLab CI"
)

// Given is what the user said explicitly about where to comment: flags
// (--repo, --pr) or PERFGATE_GITHUB_REPOSITORY / PERFGATE_GITHUB_PR (the
// github.repository and github.pr settings). It wins over what the CI's
// own variables say.
type Given struct {
	// Repository is owner/name; PR the pull request number (0: not
	// given).
	Repository string
	PR         int
}

// readOtherCI fills e from Buildkite's or GitLab's own variables when the
// run is in one of them (and not in GitHub Actions, whose protocol EnvFrom
// reads). What the CI does not say stays empty: Given may complete it.
func (e *Env) readOtherCI(getenv func(string) string) error {
	switch {
	case getenv("BUILDKITE") == "true":
		e.CI = Buildkite
		e.SHA = getenv("BUILDKITE_COMMIT")
		e.RunURL = getenv("BUILDKITE_BUILD_URL")
		// BUILDKITE_PULL_REQUEST is the PR number, or "false" for a build
		// that is not for one.
		if pr := getenv("BUILDKITE_PULL_REQUEST"); pr != "" && pr != "false" {
			n, err := strconv.Atoi(pr)
			if err != nil || n <= 0 {
				return fmt.Errorf("BUILDKITE_PULL_REQUEST %q: want a pull request number or false", pr)
			}
			e.PR = n
		}
		// The pipeline's repository (the PR's base), not
		// BUILDKITE_PULL_REQUEST_REPO, which is the fork a PR comes from.
		if repo := getenv("BUILDKITE_REPO"); repo != "" {
			owner, name, host, ok := parseRepoURL(repo)
			if !ok {
				return fmt.Errorf("BUILDKITE_REPO %q: not a repository URL perfgate can read an owner/name from; set PERFGATE_GITHUB_REPOSITORY (or --repo)", redact.URL(repo))
			}
			if host == "github.com" {
				e.Owner, e.Repo = owner, name
			} else if e.apiFromEnv {
				// GitHub Enterprise Server: the API root was given.
				e.Owner, e.Repo = owner, name
			} else {
				e.hostNote = fmt.Sprintf("BUILDKITE_REPO is on %s, not github.com: set GITHUB_API_URL (https://%s/api/v3 for GitHub Enterprise Server)", host, host)
			}
		}
	case getenv("GITLAB_CI") == "true":
		e.CI = GitLab
		e.SHA = getenv("CI_COMMIT_SHA")
		e.RunURL = getenv("CI_PIPELINE_URL")
		// A GitLab pipeline for a GitHub pull request (CI/CD for external
		// repositories) names it; a GitLab merge request is not one.
		if pr := getenv("CI_EXTERNAL_PULL_REQUEST_IID"); pr != "" {
			n, err := strconv.Atoi(pr)
			if err != nil || n <= 0 {
				return fmt.Errorf("CI_EXTERNAL_PULL_REQUEST_IID %q: want a pull request number", pr)
			}
			e.PR = n
			if sha := getenv("CI_EXTERNAL_PULL_REQUEST_SOURCE_BRANCH_SHA"); sha != "" {
				e.SHA = sha
			}
			if repo := getenv("CI_EXTERNAL_PULL_REQUEST_TARGET_REPOSITORY"); repo != "" {
				if err := e.setRepository(repo, "CI_EXTERNAL_PULL_REQUEST_TARGET_REPOSITORY"); err != nil {
					return err
				}
			}
		} else if getenv("CI_MERGE_REQUEST_IID") != "" {
			e.hostNote = "this is a GitLab merge request, not a GitHub pull request: perfgate comments on GitHub only (the report is in the output directory)"
		}
	}
	return nil
}

// Apply sets what the user gave explicitly over what the CI said. name
// says where Given came from, for errors.
func (e *Env) Apply(g Given) error {
	if g.Repository != "" {
		if err := e.setRepository(g.Repository, "github.repository (--repo, PERFGATE_GITHUB_REPOSITORY)"); err != nil {
			return err
		}
	}
	if g.PR < 0 {
		return fmt.Errorf("github.pr (--pr, PERFGATE_GITHUB_PR) %d: want a pull request number", g.PR)
	}
	if g.PR > 0 {
		e.PR = g.PR
	}
	return nil
}

func (e *Env) setRepository(repo, what string) error {
	owner, name, ok := strings.Cut(strings.TrimSpace(repo), "/")
	if !ok || !validName(owner) || !validName(name) {
		return fmt.Errorf("%s %q: want owner/name", what, repo)
	}
	e.Owner, e.Repo = owner, name
	return nil
}

// validName: GitHub's owner and repository names are letters, digits,
// '-', '_' and '.', which keeps them safe to put in an API path.
func validName(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > 100 {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return true
}

// parseRepoURL reads owner, name and host from a clone URL as CIs give
// it: https://github.com/owner/name(.git), ssh://git@host/owner/name.git
// or the scp-like git@github.com:owner/name.git.
func parseRepoURL(s string) (owner, name, host string, ok bool) {
	var path string
	if at, rest, found := strings.Cut(s, "@"); found && !strings.Contains(at, "://") && strings.Contains(rest, ":") {
		host, path, _ = strings.Cut(rest, ":")
	} else {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return "", "", "", false
		}
		host, path = u.Hostname(), u.Path
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	owner, name, found := strings.Cut(path, "/")
	if !found || !validName(owner) || !validName(name) {
		return "", "", "", false
	}
	return owner, name, strings.ToLower(host), true
}

// NotPosted says in one line why no PR comment can be posted from this
// run, and what would make one; "" when everything needed is known.
func (e Env) NotPosted() string {
	switch {
	case e.Owner == "" && e.PR == 0 && e.CI == NoCI:
		return "not in GitHub Actions, Buildkite or GitLab CI, and no repository and pull request given: set --repo and --pr (or PERFGATE_GITHUB_REPOSITORY and PERFGATE_GITHUB_PR) and a token (PERFGATE_GITHUB_TOKEN)"
	case e.hostNote != "" && (e.Owner == "" || e.PR == 0):
		return e.hostNote
	case e.PR == 0:
		return fmt.Sprintf("%s: the run is not for a pull request (no PR number; set --pr or PERFGATE_GITHUB_PR if it is)", e.where())
	case e.Owner == "":
		return fmt.Sprintf("%s: no repository known (set --repo or PERFGATE_GITHUB_REPOSITORY to owner/name)", e.where())
	case e.Token == "":
		return fmt.Sprintf("%s: no GitHub token (set PERFGATE_GITHUB_TOKEN or GITHUB_TOKEN)", e.where())
	}
	return ""
}

func (e Env) where() string {
	if e.CI == NoCI {
		return "outside a known CI"
	}
	return string(e.CI)
}
