// Package gate_test holds repository-wide tests. The import-graph test keeps
// the package direction of docs/design.md honest: a rule that is only
// written down erodes with the first convenient import.
package gate_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// imports returns, for every package of the module, its direct imports.
func imports(t *testing.T) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}} {{join .Imports \" \"}}", "github.com/perfgate/perfgate/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	graph := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		if len(f) > 0 {
			graph[f[0]] = f[1:]
		}
	}
	return graph
}

const mod = "github.com/perfgate/perfgate/"

func TestImportDirection(t *testing.T) {
	graph := imports(t)
	if len(graph) == 0 {
		t.Fatal("go list found no packages")
	}
	// Each rule: packages under `from` must not import anything with a
	// prefix in `banned`. Packages not yet written simply match nothing.
	rules := []struct {
		from   string
		banned []string
		why    string
	}{
		{"gate/", []string{mod + "gate/cli"}, "nothing imports the command layer"},
		{"gate/verdict", []string{"net/http", "os/exec", mod + "gate/loadgen", mod + "gate/report"}, "verdicts are pure statistics"},
		{"gate/report", []string{"net/http", "os/exec", mod + "gate/loadgen", mod + "gate/github"}, "renderers are pure"},
		{"gate/history", []string{"os", "net/http", mod + "gate/loadgen", mod + "gate/github", mod + "gate/config"}, "history analysis is pure: it reads the lines it is given"},
		{"gate/loadgen", []string{mod + "gate/verdict", mod + "gate/report"}, "measuring never depends on judging"},
		{"gate/ready", []string{mod + "gate/loadgen", mod + "gate/server", mod + "gate/verdict", mod + "gate/report"}, "the one readiness protocol serves the load generator and the launcher alike, depending on neither"},
		{"gate/sim", []string{mod + "gate/sse", mod + "gate/loadgen"}, "the simulator shares no protocol code with the client, so each catches the other's mistakes"},
		{"gate/sse", []string{mod + "gate/sim"}, "the client shares no protocol code with the simulator"},
		{"gate/verdict", []string{mod + "gate/workload"}, "the verdict reads the result file's own vocabulary (result.Spec), not the workload parser"},
		{"gate/report", []string{mod + "gate/workload"}, "reports read the result file's own vocabulary (result.Spec)"},
		{"gate/workload", []string{mod + "gate/vllmbench"}, "metric ids live in the gate/metrics catalogue, not in an importer registered by a blank import"},
		{"gate/metrics", []string{mod + "gate/vllmbench", mod + "gate/workload", mod + "gate/verdict"}, "the catalogue is the bottom of the chain: everything names metrics through it"},
		{"gate/noise", []string{"os", "net/http", mod + "gate/baseline", mod + "gate/loadgen", mod + "gate/server"}, "the noise estimator is pure arithmetic shared by calibrate and the history; the store's files are gate/baseline's"},
		{"gate/health", []string{"os", "os/exec", "net/http", "syscall", mod + "gate/loadgen", mod + "gate/server", mod + "gate/report", mod + "gate/config"}, "runner health is parsing and rules: the command layer hands it nvidia-smi's output and /proc files"},
		{"gate/verdict", []string{mod + "gate/config"}, "the config -> policy mapping is verdict.FromConfig over plain values; the verdict never reads configuration"},
		{"gate/pipeline", []string{"os", "net/http", "os/exec", mod + "gate/config", mod + "gate/loadgen", mod + "gate/report"}, "the gate's judging step runs on what it is given (Trials, results) and does no I/O"},
		{"gate/capacity", []string{"os", "net/http", "os/exec", mod + "gate/loadgen", mod + "gate/workload", mod + "gate/verdict", mod + "gate/report", mod + "gate/config"}, "the capacity search is pure: a probe is whatever the Prober it is given does"},
		{"gate/redact", []string{strings.TrimSuffix(mod, "/")}, "the secret rule depends on nothing of the module, so every package may use it"},
		{"gate/background", []string{strings.TrimSuffix(mod, "/")}, "the per-trial sampler loop depends on nothing of the module, so the runner-health and /metrics hooks share it"},
		{"internal/ggufgen", []string{strings.TrimSuffix(mod, "/"), "net/http", "os/exec"}, "the model writer is a file format and nothing else: tests of any package may use it"},
		{"gate/engine", []string{strings.TrimSuffix(mod, "/"), "os", "os/exec"}, "engine profiles are facts plus probes sent through the caller's http.Client: no files, processes or environment, and nothing of the module, so the load generator, the launcher, the scraper and the CLI may all read them"},
		{"gate/explain", []string{"os", "net", "net/http", "os/exec", mod + "gate/loadgen", mod + "gate/server", mod + "gate/report", mod + "gate/config"}, "explaining a regression is arithmetic over the result files it is given: the verdict's data, rendered by gate/report"},
		{"gate/trace", []string{"os", "net", "net/http", "os/exec", strings.TrimSuffix(mod, "/")}, "the trace reader streams whatever reader it is given and depends on nothing of the module, so the command layer opens the files and any package may summarise a trace"},
		{"gate/profiling", []string{"os", "os/exec", mod + "gate/config", mod + "gate/report", mod + "gate/loadgen", mod + "gate/server"}, "a profiled trial is two requests to the engine around one trial of the Trials it is given: the command lists the trace directory and opens the files, the session measures"},
		{"gate/trust", []string{"os", "os/exec", "net/http", mod + "gate/config", mod + "gate/loadgen", mod + "gate/report", mod + "gate/github"}, "the trusted side is decided on what it is given: the command reads the store and asks git, so gate and compare get the same answer"},
		{"gate/benchcli", []string{"os", "net", "net/http", "os/exec", mod + "gate/loadgen", mod + "gate/workload", mod + "gate/config"}, "command-line translation is text in, text out: the command reads files and checks the result"},
		{"gate/importers", []string{"os", "net", "net/http", "os/exec", mod + "gate/loadgen", mod + "gate/config", mod + "gate/report"}, "importers map bytes they are given onto results: reading files and directories is the command's"},
		{"gate/ab", []string{"os", "net", "net/http", "os/exec", mod + "gate/loadgen", mod + "gate/server", mod + "gate/config", mod + "gate/report"}, "the paired A/B verdict is pure statistics: launching and running the arms is gate/cli's"},
		{"gate/gitstore", []string{"net/http", mod + "gate/baseline", mod + "gate/result", mod + "gate/verdict", mod + "gate/history", mod + "gate/report", mod + "gate/config"}, "the branch store moves a directory between git and the disk: what the files mean is gate/baseline's, and the command wires the two"},
		{"gate/bisect", []string{"os", "net", "net/http", "os/exec", mod + "gate/loadgen", mod + "gate/server", mod + "gate/config"}, "the bisect search is pure: building commits and running their blocks is whatever the Bench it is given does (gate/cli's)"},
		{"gate/bootstrap", []string{"os", "net", "net/http", "os/exec", mod + "gate/loadgen", mod + "gate/server", mod + "gate/config", mod + "gate/baseline"}, "init's decisions are pure: calibrating, running and writing files is gate/cli's"},
		{"gate/cli", []string{mod + "gate/health", mod + "gate/ready", mod + "gate/server/fingerprint", mod + "gate/server/scrape", mod + "gate/command", mod + "gate/capacity", mod + "gate/sse"}, "a command wires: readiness, trial hooks, fingerprints and command trials are the session's (gate/session) and the pipeline's"},
		{"gate/session", []string{mod + "gate/verdict", mod + "gate/report", mod + "gate/history", mod + "gate/baseline", mod + "gate/github", mod + "gate/ab"}, "a session measures one server; judging, reporting and publishing come after it"},
	}
	for pkg, deps := range graph {
		rel := strings.TrimPrefix(pkg, mod)
		for _, r := range rules {
			if !strings.HasPrefix(rel, r.from) {
				continue
			}
			for _, d := range deps {
				for _, b := range r.banned {
					if d == b || strings.HasPrefix(d, b+"/") {
						t.Errorf("%s imports %s: %s", rel, d, r.why)
					}
				}
			}
		}
	}
	// gate/git (a prefix rule would catch gate/github and gate/gitstore):
	// running git and the name rules sit at the bottom, the merge base, the
	// baselines branch and a bisection's range all call down into it, and
	// it knows none of them.
	for _, d := range graph[mod+"gate/git"] {
		if (strings.HasPrefix(d, mod) && d != mod+"gate/redact") || d == "net" || strings.HasPrefix(d, "net/") {
			t.Errorf("gate/git imports %s: it runs git and knows names, nothing of the module but gate/redact", d)
		}
	}
	// Library owners: only one package may use each of these.
	owners := map[string]string{
		"github.com/spf13/viper":                 "gate/config",
		"github.com/google/go-github/v60/github": "gate/github",
		"github.com/sethvargo/go-githubactions":  "gate/github",
	}
	for pkg, deps := range graph {
		rel := strings.TrimPrefix(pkg, mod)
		for _, d := range deps {
			if owner, ok := owners[d]; ok && rel != owner && !strings.HasPrefix(rel, owner+"/") {
				t.Errorf("%s imports %s; only %s may", rel, d, owner)
			}
		}
	}
}

// TestOneMetricCatalogue keeps gate/metrics the only home of metric ids:
// it exports no registration function, and no init function elsewhere
// touches the catalogue (an id registered as a side effect of an import
// is known in one binary and unknown in the next package's tests).
func TestOneMetricCatalogue(t *testing.T) {
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "testdata" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		inMetrics := filepath.ToSlash(filepath.Dir(path)) == "metrics"
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if inMetrics && fn.Recv == nil && fn.Name.IsExported() && strings.HasPrefix(fn.Name.Name, "Register") {
				t.Errorf("%s: metrics.%s: the catalogue is fixed; add the metric to gate/metrics instead", path, fn.Name.Name)
			}
			if inMetrics || fn.Recv != nil || fn.Name.Name != "init" || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && id.Name == "metrics" {
						t.Errorf("%s: init uses metrics.%s: metric ids live in gate/metrics, not in another package's init", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestOnlyGitPackageRunsGit keeps gate/git the one place that runs git
// (issue 19): a call of exec.Command or exec.CommandContext naming "git"
// in any non-test file elsewhere is a second git runner, without the
// timeout, bounded output and redacted errors gate/git gives every call.
func TestOnlyGitPackageRunsGit(t *testing.T) {
	fset := token.NewFileSet()
	calls := 0
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(path)
		if d.IsDir() {
			if name := d.Name(); rel != ".." && (strings.HasPrefix(name, ".") || name == "testdata") {
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
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok || (sel.Sel.Name != "Command" && sel.Sel.Name != "CommandContext") {
				return true
			}
			for _, a := range call.Args {
				if lit, ok := a.(*ast.BasicLit); ok && lit.Kind == token.STRING && lit.Value == `"git"` {
					if filepath.ToSlash(filepath.Dir(path)) == "../gate/git" {
						calls++
					} else {
						t.Errorf("%s: runs git itself; call gate/git (git.Repo.Run) instead", fset.Position(call.Pos()))
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
	if calls == 0 {
		t.Error("found no git call in gate/git: the rule checks nothing")
	}
}
