// Package gate_test holds repository-wide tests. The import-graph test keeps
// the package direction of docs/design.md honest: a rule that is only
// written down erodes with the first convenient import.
package gate_test

import (
	"os/exec"
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
		{"gate/noise", []string{"os", "net/http", mod + "gate/baseline", mod + "gate/loadgen", mod + "gate/server"}, "the noise estimator is pure arithmetic shared by calibrate and the history; the store's files are gate/baseline's"},
		{"gate/verdict", []string{mod + "gate/config"}, "the config -> policy mapping is verdict.FromConfig over plain values; the verdict never reads configuration"},
		{"gate/pipeline", []string{"os", "net/http", "os/exec", mod + "gate/config", mod + "gate/loadgen", mod + "gate/report"}, "the gate's judging step runs on what it is given (Trials, results) and does no I/O"},
		{"gate/redact", []string{strings.TrimSuffix(mod, "/")}, "the secret rule depends on nothing of the module, so every package may use it"},
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
