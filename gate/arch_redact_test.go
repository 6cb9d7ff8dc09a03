package gate_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestOnlyRedactDecidesSecrets pins issue 14's "one rule per concept" for
// secrets: gate/redact is the one home of what is a secret and how it is
// hidden. Stated precisely, over every non-test Go file of the module
// outside gate/redact:
//
//   - no function or method is named for secrets or redaction
//     ((?i)secret|redact): such a function is a second rule in the making,
//     as fingerprint.Secret, config's secretName, loadgen's redact and
//     github's scrub were;
//   - no string literal spells a redaction placeholder ("[redacted]",
//     "(redacted)"): hiding a value without gate/redact means writing one.
//
// And gate/redact imports only the standard library, so every package can
// use it without an import cycle.
func TestOnlyRedactDecidesSecrets(t *testing.T) {
	named := regexp.MustCompile(`(?i)secret|redact`)
	placeholder := regexp.MustCompile(`(?i)[\[(]redacted[\])]`)
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(path)
		if d.IsDir() {
			if name := d.Name(); rel != ".." && (strings.HasPrefix(name, ".") || name == "testdata" || rel == "../gate/redact") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if named.MatchString(n.Name.Name) {
					t.Errorf("%s: func %s decides or hides secrets outside gate/redact; use gate/redact", fset.Position(n.Pos()), n.Name.Name)
				}
			case *ast.BasicLit:
				if n.Kind == token.STRING {
					if s, err := strconv.Unquote(n.Value); err == nil && placeholder.MatchString(s) {
						t.Errorf("%s: string %s spells a redaction placeholder; use redact.Placeholder", fset.Position(n.Pos()), n.Value)
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files; is the walk rooted at the module?", checked)
	}
	for _, d := range imports(t)[mod+"gate/redact"] {
		if first, _, _ := strings.Cut(d, "/"); strings.Contains(first, ".") {
			t.Errorf("gate/redact imports %s: it must need only the standard library", d)
		}
	}
	if _, ok := imports(t)[mod+"gate/redact"]; !ok {
		t.Error("go list does not know gate/redact")
	}
}
