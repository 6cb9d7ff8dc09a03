package github

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/perfgate/perfgate/gate/redact"
)

// Token is a GitHub API token. It formats as redact.Placeholder so it
// cannot be printed by accident; Reveal returns the secret for the HTTP
// header.
type Token string

// Format implements fmt.Formatter for every verb.
func (t Token) Format(f fmt.State, _ rune) {
	if t == "" {
		fmt.Fprint(f, "[none]")
		return
	}
	fmt.Fprint(f, redact.Placeholder)
}

// MarshalText keeps tokens out of JSON, YAML and other encodings.
func (t Token) MarshalText() ([]byte, error) { return []byte(redact.Placeholder), nil }

// Reveal returns the token's text.
func (t Token) Reveal() string { return string(t) }

// DefaultAPIURL is the API root of github.com.
const DefaultAPIURL = "https://api.github.com"

// Env is what perfgate needs to know about the GitHub Actions run it is in.
type Env struct {
	// Actions is true inside a GitHub Actions step (GITHUB_ACTIONS=true).
	Actions bool
	// APIURL is the REST API root (GITHUB_API_URL).
	APIURL string
	// Owner and Repo come from GITHUB_REPOSITORY.
	Owner, Repo string
	// EventName is GITHUB_EVENT_NAME.
	EventName string
	// PR is the pull request number, 0 when the run is not for one.
	PR int
	// SHA is the commit under test: the PR head for pull request events,
	// GITHUB_SHA otherwise.
	SHA string
	// RunURL links to the workflow run, for reports ("" outside Actions).
	RunURL string
	// Token authenticates API calls; empty means comments are skipped.
	Token Token
	// CI is the system the run is in (Actions, Buildkite, GitLab CI or
	// none): outside Actions, Owner, Repo, PR, SHA and RunURL come from
	// its own variables (see readOtherCI) and Apply.
	CI CI

	getenv func(string) string
	// apiFromEnv: GITHUB_API_URL was set (a GitHub Enterprise Server
	// repository elsewhere than github.com can then be commented on).
	apiFromEnv bool
	// hostNote says why a repository the CI named was not taken.
	hostNote string
}

// EnvFrom reads the Actions environment through getenv (os.Getenv in the
// CLI, a map in tests) and the event payload at GITHUB_EVENT_PATH.
// Outside Actions it returns an Env with Actions false, filled from
// Buildkite's or GitLab's variables when the run is in one of them; Apply
// adds what the user gave explicitly.
func EnvFrom(getenv func(string) string) (Env, error) {
	a := githubactions.New(githubactions.WithGetenv(getenv))
	e := Env{
		Actions:   getenv("GITHUB_ACTIONS") == "true",
		APIURL:    strings.TrimRight(getenv("GITHUB_API_URL"), "/"),
		EventName: getenv("GITHUB_EVENT_NAME"),
		SHA:       getenv("GITHUB_SHA"),
		getenv:    getenv,
	}
	e.apiFromEnv = e.APIURL != ""
	for _, tok := range []string{a.GetInput("github-token"), getenv("PERFGATE_GITHUB_TOKEN"), getenv("GITHUB_TOKEN"), getenv("GH_TOKEN")} {
		if tok = strings.TrimSpace(tok); tok != "" {
			e.Token = Token(tok)
			break
		}
	}
	if e.APIURL == "" {
		e.APIURL = DefaultAPIURL
	}
	if u, err := url.Parse(e.APIURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return Env{}, fmt.Errorf("GITHUB_API_URL %q: want an http(s) URL without user info", redact.URL(e.APIURL))
	}
	if !e.Actions {
		err := e.readOtherCI(getenv)
		return e, err
	}
	e.CI = Actions
	repo := getenv("GITHUB_REPOSITORY")
	owner, name, ok := strings.Cut(repo, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return Env{}, fmt.Errorf("GITHUB_REPOSITORY %q: want owner/name", repo)
	}
	e.Owner, e.Repo = owner, name
	if server, run := getenv("GITHUB_SERVER_URL"), getenv("GITHUB_RUN_ID"); server != "" && run != "" {
		e.RunURL = fmt.Sprintf("%s/%s/actions/runs/%s", strings.TrimRight(server, "/"), repo, run)
	}
	if path := getenv("GITHUB_EVENT_PATH"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return Env{}, fmt.Errorf("GITHUB_EVENT_PATH: %w", err)
		}
		if err := e.readEvent(data); err != nil {
			return Env{}, fmt.Errorf("GITHUB_EVENT_PATH %s: %w", path, err)
		}
	}
	return e, nil
}

// event is the part of a webhook payload that identifies a pull request.
type event struct {
	Number      int `json:"number"`
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
	} `json:"pull_request"`
	Issue *struct {
		Number      int              `json:"number"`
		PullRequest *json.RawMessage `json:"pull_request"`
	} `json:"issue"`
}

// readEvent sets PR (and the PR head SHA) from a pull_request,
// pull_request_target or pull-request issue_comment payload.
func (e *Env) readEvent(data []byte) error {
	var ev event
	if err := json.Unmarshal(data, &ev); err != nil {
		return fmt.Errorf("not a JSON event payload: %w", err)
	}
	switch {
	case ev.PullRequest != nil:
		e.PR = ev.PullRequest.Number
		if e.PR == 0 {
			e.PR = ev.Number
		}
		if ev.PullRequest.Head.SHA != "" {
			e.SHA = ev.PullRequest.Head.SHA
		}
	case ev.Issue != nil && ev.Issue.PullRequest != nil:
		e.PR = ev.Issue.Number
	}
	if e.PR < 0 {
		return errors.New("negative pull request number")
	}
	return nil
}
