package gitstore

import (
	"path"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/git"
)

// FuzzParse pins that an accepted git: setting can never reach git as an
// option nor name a directory outside the branch's tree.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"baselines", "git:", "git:perfgate-baselines", "git:a/b:c/d", "git:-x", "git:b:../x", "git:b:/x", "git::"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		spec, ok, err := Parse(s)
		if !ok || err != nil {
			if !strings.HasPrefix(s, Prefix) && ok {
				t.Fatalf("%q: not a git: setting but ok", s)
			}
			return
		}
		if strings.HasPrefix(spec.Branch, "-") || git.ValidBranch(spec.Branch) != nil {
			t.Fatalf("%q: accepted branch %q", s, spec.Branch)
		}
		if path.IsAbs(spec.Dir) || spec.Dir == ".." || strings.HasPrefix(spec.Dir, "../") || strings.HasPrefix(spec.Dir, "-") || path.Clean(spec.Dir) != spec.Dir {
			t.Fatalf("%q: accepted directory %q", s, spec.Dir)
		}
	})
}
