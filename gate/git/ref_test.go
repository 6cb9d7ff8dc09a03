package git

import (
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
)

// branchCases are names on either side of each git-check-ref-format rule;
// the comment says which rule. ok is git's answer (plus no leading '-').
var branchCases = []struct {
	name string
	ok   bool
}{
	{"main", true},
	{"perfgate-baselines", true},
	{"feature/ü", true},               // non-ASCII is git's to take; the old GITHUB_BASE_REF rule refused it
	{"user@host", true},               // '@' alone in a name is fine, "@{" is not
	{"release/v1.2", true},            // dots inside a component
	{"a+b_c", true},                   //
	{"", false},                       // empty
	{"@", false},                      // names HEAD
	{"-x", false},                     // an option (git itself allows it with --branch only in refs)
	{"a..b", false},                   // a range
	{"a@{1}", false},                  // reflog syntax
	{"a.", false},                     // ends with '.'
	{"a.lock", false},                 // component ends with .lock
	{"a.lock/b", false},               // the old baselines rule took this
	{"a/.b", false},                   // component starts with '.'
	{".a", false},                     // component starts with '.'
	{"a/", false},                     // trailing '/'
	{"/a", false},                     // leading '/'
	{"a//b", false},                   // empty component
	{"a b", false},                    // space
	{"a~1", false},                    // '~'
	{"a^", false},                     // '^'
	{"a:b", false},                    // ':'
	{"a?", false},                     // '?'
	{"a*", false},                     // '*'
	{"a[", false},                     // '['
	{"a\\b", false},                   // '\'
	{"a\x7f", false},                  // DEL
	{"a\tb", false},                   // control character
	{strings.Repeat("a", 256), false}, // longer than a ref line should be
}

func TestValidBranch(t *testing.T) {
	for _, c := range branchCases {
		if err := ValidBranch(c.name); (err == nil) != c.ok {
			t.Errorf("ValidBranch(%q) = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// TestValidBranchAgreesWithGit asks git itself (check-ref-format of
// refs/heads/<name>: --branch would expand "@" and "@{-1}" instead of
// checking them): every name ValidBranch accepts git accepts, and every
// name git refuses ValidBranch refuses.
func TestValidBranchAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	for _, c := range branchCases {
		if len(c.name) > 255 || c.name == "@" || c.name == "HEAD" {
			continue // perfgate's own additions, see ValidBranch
		}
		gitOK := exec.Command("git", "check-ref-format", "refs/heads/"+c.name).Run() == nil && !strings.HasPrefix(c.name, "-")
		if ours := ValidBranch(c.name) == nil; ours != gitOK {
			t.Errorf("%q: ValidBranch says %v, git check-ref-format says %v", c.name, ours, gitOK)
		}
	}
}

func TestValidRev(t *testing.T) {
	for _, c := range []struct {
		rev string
		ok  bool
	}{
		{"main", true}, {"origin/main", true}, {"refs/heads/main", true}, {"HEAD~1", true},
		{"main^2", true}, {"main@{1}", true}, {"0123abcd", true},
		{"", false}, {"-p", false}, {"--output=x", false}, {"a..b", false}, {"a...b", false},
		{"HEAD:file", false}, {"a b", false}, {"a\nb", false}, {strings.Repeat("a", 256), false},
	} {
		if err := ValidRev("--merge-base", c.rev); (err == nil) != c.ok {
			t.Errorf("ValidRev(%q) = %v, want ok %v", c.rev, err, c.ok)
		}
	}
}

// FuzzValidRev: whatever ValidRev and ValidBranch accept can never reach
// git as an option, a range or more than one argument.
func FuzzValidRev(f *testing.F) {
	for _, s := range []string{"main", "origin/main", "HEAD~1", "0123abcd", "--output=x", "-p", "a..b", "a b", "refs/heads/x@{1}", "\x00", "a.lock", "a/.b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		checks := map[string]func(string) error{
			"ValidRev":    func(v string) error { return ValidRev("--merge-base", v) },
			"ValidBranch": ValidBranch,
		}
		for name, check := range checks {
			if check(v) != nil {
				continue
			}
			if v == "" || strings.HasPrefix(v, "-") || strings.Contains(v, "..") || strings.IndexFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
				t.Errorf("%s accepted %q", name, v)
			}
		}
	})
}

// TestValidBranchAgreesWithGitOnRandomNames: 300 seeded names over the
// characters the rules turn on, each asked of git as well. The table above
// holds the cases by rule; this catches a combination it forgot.
func TestValidBranchAgreesWithGitOnRandomNames(t *testing.T) {
	if testing.Short() {
		t.Skip("300 git calls (-short)")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	const alphabet = "aab./@{}-~^:*[\\ lockxyz"
	rng := rand.New(rand.NewPCG(19, 1))
	accepted := 0
	for i := 0; i < 300; i++ {
		b := make([]byte, 1+rng.IntN(8))
		for j := range b {
			b[j] = alphabet[rng.IntN(len(alphabet))]
		}
		name := string(b)
		if name == "@" || name == "HEAD" || strings.HasPrefix(name, "-") {
			continue // perfgate's own additions, see ValidBranch
		}
		gitOK := exec.Command("git", "check-ref-format", "refs/heads/"+name).Run() == nil
		if ours := ValidBranch(name) == nil; ours != gitOK {
			t.Errorf("%q: ValidBranch says %v, git check-ref-format says %v", name, ours, gitOK)
		}
		if gitOK {
			accepted++
		}
	}
	if accepted < 30 || accepted > 270 {
		t.Errorf("git accepted %d of 300 names: the sample no longer tests both sides", accepted)
	}
}
