package github

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	gh "github.com/google/go-github/v60/github"
)

// Target is the PR whose comment Post writes, and the marker that tells
// perfgate's comment (one per profile) apart from every other.
type Target struct {
	Owner, Repo string
	PR          int
	Marker      string
}

// Post writes body as perfgate's comment on t.PR according to mode, and
// returns what it did. Only comments written by the token's own account
// count as perfgate's (a person quoting the report is never edited; see
// whoAmI). body gets the state line (when st is not nil) and the marker
// appended; bodies over MaxCommentChars are refused before any request.
//
//   - always: edit the latest marked comment, or create one;
//   - not-pass: as always, except that a passing run with no earlier
//     comment creates none;
//   - on-change: create a comment when there is none or when st differs
//     from the state the latest one carries (a comment without a readable
//     state counts as different), edit that one in place otherwise;
//   - never: nothing.
func Post(ctx context.Context, c *gh.Client, t Target, body string, mode CommentMode, st *State) (CommentResult, error) {
	switch mode {
	case CommentAlways, CommentOnChange, CommentNotPass:
	case CommentNever, "":
		return CommentResult{Action: Skipped, Reason: "comments are turned off"}, nil
	default:
		return CommentResult{}, fmt.Errorf("comment mode %q: want always, on-change, not-pass or never", mode)
	}
	if mode != CommentAlways && st == nil {
		return CommentResult{}, fmt.Errorf("comment mode %s needs the run's state", mode)
	}
	body = strings.TrimRight(body, "\n")
	if st != nil {
		body += "\n\n" + st.Line()
	}
	if !strings.Contains(body, t.Marker) {
		body += "\n\n" + t.Marker
	}
	body += "\n"
	if n := utf8.RuneCountInString(body); n > MaxCommentChars {
		return CommentResult{}, fmt.Errorf("comment is %d characters, over GitHub's limit of %d", n, MaxCommentChars)
	}
	me, err := whoAmI(ctx, c)
	if err != nil {
		return CommentResult{}, err
	}
	existing, err := findMarked(ctx, c, t.Owner, t.Repo, t.PR, t.Marker, me)
	if err != nil {
		return CommentResult{}, err
	}
	switch {
	case existing == nil && mode == CommentNotPass && st.Verdict == "pass":
		return CommentResult{Action: Skipped, Reason: "the run passed and no earlier comment needs updating (comment: not-pass)"}, nil
	case existing == nil:
		return create(ctx, c, t, body)
	case mode == CommentOnChange:
		if prev, ok := ParseState(existing.GetBody()); !ok || prev != *st {
			return create(ctx, c, t, body)
		}
	}
	if existing.GetBody() == body {
		return CommentResult{Action: Unchanged, ID: existing.GetID(), URL: existing.GetHTMLURL()}, nil
	}
	out, _, err := c.Issues.EditComment(ctx, t.Owner, t.Repo, existing.GetID(), &gh.IssueComment{Body: gh.String(body)})
	if err != nil {
		return CommentResult{}, fmt.Errorf("editing comment %d on %s/%s#%d: %w", existing.GetID(), t.Owner, t.Repo, t.PR, err)
	}
	return CommentResult{Action: Updated, ID: out.GetID(), URL: out.GetHTMLURL()}, nil
}

func create(ctx context.Context, c *gh.Client, t Target, body string) (CommentResult, error) {
	out, _, err := c.Issues.CreateComment(ctx, t.Owner, t.Repo, t.PR, &gh.IssueComment{Body: gh.String(body)})
	if err != nil {
		return CommentResult{}, fmt.Errorf("creating comment on %s/%s#%d: %w", t.Owner, t.Repo, t.PR, err)
	}
	return CommentResult{Action: Created, ID: out.GetID(), URL: out.GetHTMLURL()}, nil
}
