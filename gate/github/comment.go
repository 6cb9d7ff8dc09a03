package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	gh "github.com/google/go-github/v60/github"

	"github.com/perfgate/perfgate/gate/redact"
)

// MaxCommentChars is GitHub's limit on a comment body, in characters.
const MaxCommentChars = 65536

// maxPages bounds the comment listing (100 per page): 50 pages is 5,000
// comments, far beyond any real PR, and keeps a misbehaving API from
// paging forever.
const maxPages = 50

var profileRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// Marker is the hidden HTML comment that identifies perfgate's comment for
// profile on a PR. Profiles are restricted (see gate/config) so the marker
// cannot close the HTML comment early.
func Marker(profile string) (string, error) {
	if !profileRe.MatchString(profile) {
		return "", fmt.Errorf("profile %q cannot be used in a comment marker (letters, digits, '.', '_', '-')", profile)
	}
	return "<!-- perfgate:" + profile + " -->", nil
}

// CommentAction says what Upsert did.
type CommentAction string

const (
	Created   CommentAction = "created"
	Updated   CommentAction = "updated"
	Unchanged CommentAction = "unchanged" // the marked comment already had this body
	Skipped   CommentAction = "skipped"   // not attempted; see CommentResult.Reason
)

// CommentResult describes the sticky comment after Upsert.
type CommentResult struct {
	Action CommentAction
	ID     int64
	URL    string
	Reason string // why it was skipped
}

// NewClient returns a go-github client for apiURL authenticated with
// token. apiURL is used as the BaseURL as given (GITHUB_API_URL is already
// the API root on github.com, GHES and GHE.com), rather than through
// WithEnterpriseURLs, which would append api/v3/ to roots that lack it.
// A nil httpClient gets one with a 30 s timeout.
func NewClient(httpClient *http.Client, apiURL string, token Token) (*gh.Client, error) {
	if httpClient == nil {
		httpClient = &http.Client{Timeout: 30 * time.Second}
	}
	base, err := url.Parse(strings.TrimRight(apiURL, "/") + "/")
	if err != nil || (base.Scheme != "https" && base.Scheme != "http") || base.Host == "" {
		return nil, fmt.Errorf("GitHub API URL %q is not an http(s) URL", redact.URL(apiURL))
	}
	c := gh.NewClient(httpClient)
	if token != "" {
		c = c.WithAuthToken(token.Reveal())
	}
	c.BaseURL = base
	return c, nil
}

// actionsBot is the account that the workflow's GITHUB_TOKEN writes as.
const actionsBot = "github-actions[bot]"

// account identifies who wrote a comment: the token's own account.
type account struct {
	id    int64  // 0 when unknown
	login string // GitHub logins are case-insensitive
	bot   bool   // the account must be of type Bot
}

// wrote reports whether a wrote cm.
func (a account) wrote(cm *gh.IssueComment) bool {
	u := cm.GetUser()
	if u == nil {
		return false
	}
	if a.bot && u.GetType() != "Bot" {
		return false
	}
	if a.id != 0 && u.GetID() != 0 {
		return a.id == u.GetID()
	}
	return strings.EqualFold(a.login, u.GetLogin())
}

// whoAmI returns the account the client's token belongs to. A personal
// token (or any user's token) gets its account from GET /user. The
// workflow's GITHUB_TOKEN is a GitHub App installation token, which may not
// ask: /user answers 403 "Resource not accessible by integration". Such a
// token writes as github-actions[bot], an account of type Bot that no
// person can sign in as, so a 403 stands for that account. (Another
// GitHub App's installation token is refused the same way but writes as
// its own bot: its earlier comments are then not found and a new one is
// created each run; use GITHUB_TOKEN or a personal token for the sticky
// comment.) Any other failure is an error: guessing could edit someone
// else's comment.
func whoAmI(ctx context.Context, c *gh.Client) (account, error) {
	u, resp, err := c.Users.Get(ctx, "")
	if err == nil {
		return account{id: u.GetID(), login: u.GetLogin(), bot: u.GetType() == "Bot"}, nil
	}
	if resp != nil && resp.StatusCode == http.StatusForbidden {
		return account{login: actionsBot, bot: true}, nil
	}
	return account{}, fmt.Errorf("asking GitHub who the token belongs to (GET /user), to find perfgate's own comment: %w", err)
}

// findMarked returns the latest marked comment written by me, or nil,
// searching all pages: in mode on-change earlier comments stay on the PR
// and the newest one is the one that reports the last run.
func findMarked(ctx context.Context, c *gh.Client, owner, repo string, pr int, marker string, me account) (*gh.IssueComment, error) {
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	var found *gh.IssueComment
	for pages := 0; ; pages++ {
		if pages == maxPages {
			return nil, fmt.Errorf("listing comments on %s/%s#%d: more than %d pages", owner, repo, pr, maxPages)
		}
		list, resp, err := c.Issues.ListComments(ctx, owner, repo, pr, opts)
		if err != nil {
			return nil, fmt.Errorf("listing comments on %s/%s#%d: %w", owner, repo, pr, err)
		}
		for _, cm := range list {
			if strings.Contains(cm.GetBody(), marker) && me.wrote(cm) {
				found = cm
			}
		}
		if resp.NextPage == 0 {
			return found, nil
		}
		if resp.NextPage <= opts.Page {
			return nil, errors.New("listing comments: the API's next page does not advance")
		}
		opts.Page = resp.NextPage
	}
}
