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
	"unicode/utf8"

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

// Upsert makes PR number pr of owner/repo carry exactly one comment with
// marker: it edits the first marked comment (preferring one written by a
// bot, in case a human quoted the marker), or creates one. body gets the
// marker appended when it lacks it; bodies over MaxCommentChars are
// refused before any request is made.
func Upsert(ctx context.Context, c *gh.Client, owner, repo string, pr int, marker, body string) (CommentResult, error) {
	if !strings.Contains(body, marker) {
		body = strings.TrimRight(body, "\n") + "\n\n" + marker + "\n"
	}
	if n := utf8.RuneCountInString(body); n > MaxCommentChars {
		return CommentResult{}, fmt.Errorf("comment is %d characters, over GitHub's limit of %d", n, MaxCommentChars)
	}
	existing, err := findMarked(ctx, c, owner, repo, pr, marker)
	if err != nil {
		return CommentResult{}, err
	}
	if existing != nil {
		if existing.GetBody() == body {
			return CommentResult{Action: Unchanged, ID: existing.GetID(), URL: existing.GetHTMLURL()}, nil
		}
		out, _, err := c.Issues.EditComment(ctx, owner, repo, existing.GetID(), &gh.IssueComment{Body: gh.String(body)})
		if err != nil {
			return CommentResult{}, fmt.Errorf("editing comment %d on %s/%s#%d: %w", existing.GetID(), owner, repo, pr, err)
		}
		return CommentResult{Action: Updated, ID: out.GetID(), URL: out.GetHTMLURL()}, nil
	}
	out, _, err := c.Issues.CreateComment(ctx, owner, repo, pr, &gh.IssueComment{Body: gh.String(body)})
	if err != nil {
		return CommentResult{}, fmt.Errorf("creating comment on %s/%s#%d: %w", owner, repo, pr, err)
	}
	return CommentResult{Action: Created, ID: out.GetID(), URL: out.GetHTMLURL()}, nil
}

// findMarked returns the comment to update, or nil, searching all pages.
func findMarked(ctx context.Context, c *gh.Client, owner, repo string, pr int, marker string) (*gh.IssueComment, error) {
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	var first *gh.IssueComment
	for pages := 0; ; pages++ {
		if pages == maxPages {
			return nil, fmt.Errorf("listing comments on %s/%s#%d: more than %d pages", owner, repo, pr, maxPages)
		}
		list, resp, err := c.Issues.ListComments(ctx, owner, repo, pr, opts)
		if err != nil {
			return nil, fmt.Errorf("listing comments on %s/%s#%d: %w", owner, repo, pr, err)
		}
		for _, cm := range list {
			if !strings.Contains(cm.GetBody(), marker) {
				continue
			}
			if cm.GetUser().GetType() == "Bot" {
				return cm, nil
			}
			if first == nil {
				first = cm
			}
		}
		if resp.NextPage == 0 {
			return first, nil
		}
		if resp.NextPage <= opts.Page {
			return nil, errors.New("listing comments: the API's next page does not advance")
		}
		opts.Page = resp.NextPage
	}
}
