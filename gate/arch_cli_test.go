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
		"loadgen.New":      "build the load generator through session.Run",
		"server.Supervise": "launch the server through session.Run",
		"server.Launch":    "launch the server through session.Run",
		"server.FailureOf": "describe a server failure with session.Failure",
		"os.Getenv":        "read the environment through Streams (getenv)",
		"os.LookupEnv":     "read the environment through Streams (lookupEnv)",
		"os.Setenv":        "commands do not change the process environment",
		"os.Unsetenv":      "commands do not change the process environment",
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
