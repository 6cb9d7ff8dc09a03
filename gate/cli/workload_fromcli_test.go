package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkloadFromCLIAndBack: from-cli writes a valid workload naming what
// it ignored and could not express, and plan --as-vllm-cli prints a line
// that from-cli turns into a workload of the same hash.
func TestWorkloadFromCLIAndBack(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "rb.yaml")
	code, stdout, errs := runCLI("workload", "from-cli", "-o", out, "--", "vllm", "bench", "serve", "--model", "m", "--dataset-name", "random",
		"--random-input-len", "256", "--random-output-len", "32", "--num-prompts", "50", "--request-rate", "4", "--seed", "3",
		"--base-url", "http://127.0.0.1:8000", "--use-beam-search")
	if code != ExitPass || !strings.Contains(stdout, "wrote "+out) || !strings.Contains(errs, "ignored: --base-url") || !strings.Contains(errs, "unsupported: --use-beam-search") {
		t.Fatalf("from-cli: exit %d\n%s\n%s", code, stdout, errs)
	}
	code, plan, errs := runCLI("plan", "-w", out)
	if code != ExitPass {
		t.Fatalf("plan: exit %d %s", code, errs)
	}
	code, line, errs := runCLI("plan", "--as-vllm-cli", "-w", out)
	if code != ExitPass || !strings.Contains(line, "--request-rate 4") {
		t.Fatalf("plan --as-vllm-cli: exit %d\n%s\n%s", code, line, errs)
	}
	var argv []string
	for _, l := range strings.Split(line, "\n") {
		if strings.HasPrefix(l, "vllm ") {
			argv = strings.Fields(l)
		}
	}
	back := filepath.Join(dir, "rb2.yaml")
	if code, _, errs := runCLI(append([]string{"workload", "from-cli", "--name", "rb", "-o", back, "--"}, argv...)...); code != ExitPass {
		t.Fatalf("from-cli of the printed line: exit %d %s", code, errs)
	}
	code, plan2, _ := runCLI("plan", "-w", back)
	hash := func(p string) string {
		for _, f := range strings.Fields(p) {
			if len(f) >= 12 && strings.Trim(f, "0123456789abcdef") == "" {
				return f
			}
		}
		return ""
	}
	if code != ExitPass || hash(plan) == "" || hash(plan) != hash(plan2) {
		t.Errorf("hashes differ after the round trip:\n%s\n%s", plan, plan2)
	}
	if _, err := os.Stat(back); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := runCLI("workload", "from-cli", "--name", "x", "--", "vllm", "bench", "serve", "--num-prompts", "zero"); code != ExitInvalid || !strings.Contains(errs, "--num-prompts") {
		t.Errorf("bad flag: exit %d %s", code, errs)
	}
}
