package cli

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

const guidellmData = "../importers/testdata/guidellm/"

// importGuideLLM imports files into dir and returns the c16 cell's file.
func importGuideLLM(t *testing.T, dir string, files ...string) string {
	t.Helper()
	args := []string{"import", "guidellm", "-o", dir, "--name", "gl"}
	for _, f := range files {
		args = append(args, guidellmData+f)
	}
	code, out, errs := runCLI(args...)
	if code != ExitPass || !strings.Contains(out, "gl-c16.json") || !strings.Contains(out, "gl-rate4.json") {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(errs, "guidellm files record no value for: client_queue_ms") {
		t.Errorf("the import does not say what the files lack:\n%s", errs)
	}
	return filepath.Join(dir, "gl-c16.json")
}

// TestImportGuideLLMCompares: GuideLLM reports imported as baseline and
// candidate gate against each other: the same server passes, one 30 %
// slower is a regression.
func TestImportGuideLLMCompares(t *testing.T) {
	dir := t.TempDir()
	base := importGuideLLM(t, filepath.Join(dir, "base"), "benchmarks.json", "benchmarks-2.json", "benchmarks-3.json")
	same := importGuideLLM(t, filepath.Join(dir, "same"), "benchmarks-3.json", "benchmarks.json", "benchmarks-2.json")
	slow := importGuideLLM(t, filepath.Join(dir, "slow"), "slow-1.json", "slow-2.json", "slow-3.json")
	if code, out, errs := runCLI("compare", "--assumed-between", "0", "--baseline", base, "--candidate", same); code != ExitPass {
		t.Errorf("same runs: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := runCLI("compare", "--assumed-between", "0", "--baseline", base, "--candidate", slow); code != ExitRegression {
		t.Errorf("30 %% slower: exit %d, want a regression\n%s\n%s", code, out, errs)
	}
	if code, out, errs := runCLI("import", "guidellm", "-o", filepath.Join(dir, "one.json"), guidellmData+"benchmarks.json"); code != ExitInvalid || !strings.Contains(errs, "give a directory") {
		t.Errorf("two load points into one file: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestImportMatchesNativeBaseline: an imported GuideLLM cell is compared
// with a perfgate-native baseline of the same workload shape (random
// 512/128 completions, 200 requests, concurrency 16, all at once), and a
// native baseline of another shape is refused naming the fields.
func TestImportMatchesNativeBaseline(t *testing.T) {
	dir := t.TempDir()
	imported := importGuideLLM(t, filepath.Join(dir, "imp"), "benchmarks.json", "benchmarks-2.json", "benchmarks-3.json")
	r, err := result.Read(imported)
	if err != nil {
		t.Fatal(err)
	}
	native := func(input int) string {
		spec := result.Spec{Kind: result.KindServing, Name: "gl", Cell: "gl-c16", API: "completions", Model: "Qwen/Qwen3-8B",
			Dataset: result.Dataset{Kind: "random", InputTokens: input, OutputTokens: 128, Seed: 0},
			Load:    result.Load{Requests: 200, Concurrency: 16, Rate: math.Inf(1), Burstiness: 1}, Sampling: result.Sampling{IgnoreEOS: true}}
		b, err := json.Marshal(spec)
		if err != nil {
			t.Fatal(err)
		}
		n := *r
		n.Workload = result.Workload{Name: "gl", Cell: "gl-c16", Hash: "native-hash", Spec: b}
		n.Source, n.Fingerprint = "perfgate run", map[string]string{result.KeyServerModel: "Qwen/Qwen3-8B"}
		return writeResult(t, filepath.Join(dir, "native", string(rune('a'+input%26))+".json"), &n)
	}
	code, out, errs := runCLI("compare", "--assumed-between", "0", "--baseline", native(512), "--candidate", imported)
	if code != ExitPass || !strings.Contains(out+errs, "matched by load shape") {
		t.Errorf("native baseline of the same shape: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs = runCLI("compare", "--assumed-between", "0", "--baseline", native(1024), "--candidate", imported)
	if code != ExitInvalid || !strings.Contains(out+errs, "input_len 1024 -> 512") {
		t.Errorf("native baseline of another shape: exit %d\n%s\n%s", code, out, errs)
	}
}
