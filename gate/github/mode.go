package github

import (
	"fmt"
	"strings"
)

// CommentMode says when Publish posts the PR comment.
type CommentMode string

const (
	// CommentAlways keeps one comment per profile, edited in place on
	// every run.
	CommentAlways CommentMode = "always"
	// CommentOnChange posts a new comment (which notifies the PR's
	// subscribers) when the verdict or the set of regressed cells differs
	// from what the latest comment reported, and edits that comment in
	// place otherwise.
	CommentOnChange CommentMode = "on-change"
	// CommentNotPass comments only once a run did not pass: a passing run
	// creates no comment, but still updates one an earlier run left, so a
	// fixed regression does not stay on the PR.
	CommentNotPass CommentMode = "not-pass"
	// CommentNever turns comments off; the zero value means the same.
	CommentNever CommentMode = "never"
)

// ParseCommentMode reads a mode, accepting true and false (the input's
// old boolean values) as always and never, in any case.
func ParseCommentMode(s string) (CommentMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "always", "true":
		return CommentAlways, nil
	case "never", "false", "":
		return CommentNever, nil
	case "on-change":
		return CommentOnChange, nil
	case "not-pass":
		return CommentNotPass, nil
	}
	return "", fmt.Errorf("comment mode %q: want always, on-change, not-pass or never", s)
}
