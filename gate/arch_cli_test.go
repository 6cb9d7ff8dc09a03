package gate_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestCLIOnlyWires keeps gate/cli a layer of wiring (docs/design.md): the
// calls that assemble a measured server session belong to gate/session,
// which every measuring command opens once, and the process environment
// is read in one place (root.go fills Streams.Environ) so every command
// takes it injected and the command tests can run in parallel.
func TestCLIOnlyWires(t *testing.T) {
	banned := map[string]string{
		"loadgen.New":        "build the load generator through session.Run",
		"server.Supervise":   "launch the server through session.Run",
		"server.Launch":      "launch the server through session.Run",
		"server.FailureOf":   "describe a server failure with session.Failure",
		"os.Getenv":          "read the environment through Streams (getenv)",
		"os.LookupEnv":       "read the environment through Streams (lookupEnv)",
		"os.Setenv":          "commands do not change the process environment",
		"os.Unsetenv":        "commands do not change the process environment",
		"os.Chdir":           "commands work in the directory they are started in",
		"history.CheckNoise": "decide what may become a baseline with trust.Screen",
		"baseline.Busy":      "decide what may become a baseline with trust.Screen",
	}
	onlyIn := map[string]string{"os.Environ": "root.go"} // read once, into Streams.Environ
	files, err := filepath.Glob("cli/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no gate/cli files: %v", err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			name := id.Name + "." + sel.Sel.Name
			if why, ok := banned[name]; ok {
				t.Errorf("%s: %s: %s", fset.Position(sel.Pos()), name, why)
			}
			if file, ok := onlyIn[name]; ok && filepath.Base(path) != file {
				t.Errorf("%s: %s outside %s: read the environment through Streams", fset.Position(sel.Pos()), name, file)
			}
			return true
		})
	}
}

// TestCLITestsTouchNoProcessState keeps the cli tests parallel: a test
// gives a command its environment as Streams.Environ (testEnviron), its
// clock as Streams.Clock and its file writers in Streams, never through
// t.Setenv or by swapping a package variable, which would hold for every
// test running at the same time. Only TestMain sets the process
// environment, once, before any test runs. (t.Chdir remains for the
// commands that work on the checkout they run in; those tests say so.)
func TestCLITestsTouchNoProcessState(t *testing.T) {
	fset := token.NewFileSet()
	files, err := filepath.Glob("cli/*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no gate/cli files: %v", err)
	}
	pkgVars := map[string]bool{}
	var tests []*ast.File
	for _, path := range files {
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(path, "_test.go") {
			tests = append(tests, f)
			continue
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.VAR {
				for _, s := range g.Specs {
					for _, n := range s.(*ast.ValueSpec).Names {
						if n.Name != "_" {
							pkgVars[n.Name] = true
						}
					}
				}
			}
		}
	}
	for _, f := range tests {
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.SelectorExpr:
					id, ok := n.X.(*ast.Ident)
					if !ok {
						return true
					}
					switch {
					case id.Name == "os" && (n.Sel.Name == "Setenv" || n.Sel.Name == "Unsetenv") && fn.Name.Name != "TestMain":
						t.Errorf("%s: os.%s outside TestMain: give the command Streams.Environ (testEnviron)", fset.Position(n.Pos()), n.Sel.Name)
					case id.Name != "os" && n.Sel.Name == "Setenv":
						t.Errorf("%s: %s.Setenv: give the command Streams.Environ (testEnviron), so the test can run in parallel", fset.Position(n.Pos()), id.Name)
					}
				case *ast.AssignStmt:
					if n.Tok != token.ASSIGN {
						return true
					}
					for _, l := range n.Lhs {
						if id, ok := l.(*ast.Ident); ok && pkgVars[id.Name] {
							t.Errorf("%s: a test assigns cli's package variable %s: inject it through Streams instead", fset.Position(id.Pos()), id.Name)
						}
					}
				}
				return true
			})
		}
	}
}
