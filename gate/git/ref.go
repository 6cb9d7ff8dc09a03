package git

import (
	"fmt"
	"regexp"
	"strings"
)

// The name rules. There were two branch rules (one for GITHUB_BASE_REF,
// one for the baselines branch) that disagreed both ways: one refused
// names git takes (anything outside [A-Za-z0-9_./+-], such as
// "feature/ü" or "user@host") and accepted names git refuses ("a.lock",
// "a/", "a//b", "a/.b", "a."); the other accepted "a.lock/b" and "a/.b".
// git-check-ref-format is the authority, so ValidBranch is its rules for a
// branch (refs/heads/<name>), plus what git branch itself refuses ("HEAD",
// and "@", which git reads as HEAD in a rev), no leading '-' so that a
// name never reads as an option, and at most 255 bytes.

// ValidBranch accepts exactly the branch names git accepts
// (git check-ref-format --branch) that cannot be read as an option:
//   - not empty, not "@" or "HEAD", not starting with '-', at most 255 bytes;
//   - no component that starts with '.' or ends with ".lock", no empty
//     component (no leading or trailing '/', no "//");
//   - not ending with '.'; no ".." and no "@{";
//   - no control character, space, '~', '^', ':', '?', '*', '[' or '\'.
func ValidBranch(b string) error {
	if reason := branchFault(b); reason != "" {
		return fmt.Errorf("branch %q is not a valid branch name: %s", b, reason)
	}
	return nil
}

func branchFault(b string) string {
	switch {
	case b == "":
		return "it is empty"
	case b == "@", b == "HEAD":
		return "git reads it as HEAD"
	case strings.HasPrefix(b, "-"):
		return "it starts with '-'"
	case len(b) > 255:
		return "it is longer than 255 bytes"
	case strings.Contains(b, ".."):
		return `it contains ".."`
	case strings.Contains(b, "@{"):
		return `it contains "@{"`
	case strings.HasSuffix(b, "."):
		return "it ends with '.'"
	}
	for _, c := range []byte(b) {
		if c < 0x20 || c == 0x7f || strings.IndexByte(" ~^:?*[\\", c) >= 0 {
			return fmt.Sprintf("it contains %q", rune(c))
		}
	}
	for _, comp := range strings.Split(b, "/") {
		switch {
		case comp == "":
			return "it has an empty component (a leading, trailing or double '/')"
		case strings.HasPrefix(comp, "."):
			return fmt.Sprintf("component %q starts with '.'", comp)
		case strings.HasSuffix(comp, ".lock"):
			return fmt.Sprintf("component %q ends with \".lock\"", comp)
		}
	}
	return ""
}

// revPattern is what a commit given by flag or environment may look like:
// a sha or a ref name with git's suffixes (origin/main, refs/heads/main,
// HEAD~1, main^2, main@{1}). Its first character is never '-', so the
// value cannot reach git as an option, and ':' (a path in a tree) and
// whitespace cannot occur.
var revPattern = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_./@{}^~+-]*$`)

// shaPattern is a full or abbreviated commit sha (SHA-1 or SHA-256), as
// history files record.
var shaPattern = regexp.MustCompile(`^[0-9a-fA-F]{4,64}$`)

// ValidRev checks a commit named by a flag or the environment (what names
// it in the error) before git sees it: a sha or a ref name such as
// origin/main or HEAD~1; never a range ("a..b"), an option or a path.
func ValidRev(what, v string) error {
	if !revPattern.MatchString(v) || strings.Contains(v, "..") || len(v) > 255 {
		return fmt.Errorf("%s %q: not a commit: want a sha or a ref name such as origin/main", what, v)
	}
	return nil
}

// IsSHA reports whether s looks like a full or abbreviated commit sha.
func IsSHA(s string) bool { return shaPattern.MatchString(s) }
