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
	t.Parallel()
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

// nativeOf writes a copy of the imported result at path as a
// perfgate-native result of the serving workload spec describes (same
// cell, same values): what perfgate would have recorded for that workload.
func nativeOf(t *testing.T, path, out string, spec result.Spec) string {
	t.Helper()
	r, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	spec.Kind, spec.Name, spec.Cell = result.KindServing, r.Workload.Name, r.Workload.Cell
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	n := *r
	n.Workload = result.Workload{Name: r.Workload.Name, Cell: r.Workload.Cell, Hash: "native-" + r.Workload.Cell, Spec: b}
	n.Source = "perfgate run"
	return writeResult(t, out, &n)
}

// randomC16 is the native workload the c16 fixtures ran: random 512/128
// completions, 200 requests, concurrency 16, all at once.
var randomC16 = result.Spec{API: "completions", Dataset: result.Dataset{Kind: "random", InputTokens: 512, OutputTokens: 128},
	Load: result.Load{Requests: 200, Concurrency: 16, Rate: math.Inf(1), Burstiness: 1}, Sampling: result.Sampling{IgnoreEOS: true}}

// TestImportMatchesNativeBaseline: an imported GuideLLM cell is compared
// with a perfgate-native baseline of the same workload shape (random
// 512/128 completions, 200 requests, concurrency 16, all at once), and a
// native baseline of another shape is refused naming the fields.
func TestImportMatchesNativeBaseline(t *testing.T) {
	t.Parallel()
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

// TestImportProfileExportsCompare: AIPerf exports gate against each other
// (the same server passes, 30 % slower regresses), and a GenAI-Perf export
// of the same load point is the same workload to compare.
func TestImportProfileExportsCompare(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	imp := func(tool, out string, files ...string) string {
		t.Helper()
		args := []string{"import", tool, "-o", filepath.Join(dir, out+".json"), "--name", "pe"}
		for _, f := range files {
			args = append(args, "../importers/testdata/"+tool+"/"+f)
		}
		if code, stdout, errs := runCLI(args...); code != ExitPass {
			t.Fatalf("import %s: exit %d\n%s\n%s", tool, code, stdout, errs)
		}
		return filepath.Join(dir, out+".json")
	}
	ai := func(p string) string { return p + "-profile_export_aiperf.json" }
	gp := func(p string) string { return "run-" + p + "/profile_export_genai_perf.json" }
	base := imp("aiperf", "base", ai("1"), ai("2"), ai("3"))
	native := nativeOf(t, base, filepath.Join(dir, "native.json"), randomC16)
	same := imp("aiperf", "same", ai("3"), ai("1"), ai("2"))
	slow := imp("aiperf", "slow", ai("slow-1"), ai("slow-2"), ai("slow-3"))
	genai := imp("genai-perf", "genai", gp("1"), gp("2"), gp("3"))
	for _, tc := range []struct {
		name, cand string
		want       ExitCode
		base       string
	}{{"same", same, ExitPass, base}, {"slow", slow, ExitRegression, base}, {"genai-perf of the same shape", genai, ExitPass, base},
		{"native baseline, aiperf candidate", same, ExitPass, native}, {"native baseline, slow aiperf candidate", slow, ExitRegression, native}} {
		code, out, errs := runCLI("compare", "--assumed-between", "0", "--baseline", tc.base, "--candidate", tc.cand)
		if code != tc.want {
			t.Errorf("%s: exit %d, want %d\n%s\n%s", tc.name, code, tc.want, out, errs)
		}
	}
}

// TestImportSweepCompares: vllm bench sweep experiments import as one cell
// per combination; a slower experiment regresses against the first, and
// the first matches a native baseline of the c16 combination's workload.
func TestImportSweepCompares(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	imp := func(exp, out string) string {
		t.Helper()
		code, stdout, errs := runCLI("import", "vllm-sweep", "../importers/testdata/vllm-sweep/"+exp, "-o", filepath.Join(dir, out))
		if code != ExitPass || strings.Count(stdout, "wrote ") != 2 || !strings.Contains(errs, "run=2.failure.json") {
			t.Fatalf("import %s: exit %d\n%s\n%s", exp, code, stdout, errs)
		}
		return filepath.Join(dir, out, "SERVE-max_num_seqs_64-BENCH-max_concurrency_16.json")
	}
	base, slow := imp("20261201_100000", "base"), imp("20261202_100000", "slow")
	if code, out, errs := runCLI("compare", "--assumed-between", "0", "--baseline", base, "--candidate", slow); code != ExitRegression {
		t.Errorf("30 %% slower sweep: exit %d\n%s\n%s", code, out, errs)
	}
	native := nativeOf(t, base, filepath.Join(dir, "native.json"), randomC16)
	if code, out, errs := runCLI("compare", "--assumed-between", "0", "--baseline", native, "--candidate", base); code != ExitPass || !strings.Contains(out+errs, "matched by load shape") {
		t.Errorf("native baseline: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestImportInferencePerfCompares: inference-perf stage reports gate
// against each other, and against a native baseline of the same shape
// (random 512/128 completions, 240 requests, Poisson at 4 req/s).
func TestImportInferencePerfCompares(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	imp := func(out string, runs ...string) string {
		t.Helper()
		args := []string{"import", "inference-perf", "-o", filepath.Join(dir, out+".json"), "--name", "ip"}
		for _, r := range runs {
			args = append(args, "../importers/testdata/inference-perf/"+r+"/stage_0_lifecycle_metrics.json")
		}
		if code, stdout, errs := runCLI(args...); code != ExitPass {
			t.Fatalf("import: exit %d\n%s\n%s", code, stdout, errs)
		}
		return filepath.Join(dir, out+".json")
	}
	base := imp("base", "run-1", "run-2", "run-3")
	slow := imp("slow", "slow-1", "slow-2", "slow-3")
	same := imp("same", "run-3", "run-1", "run-2")
	if code, out, errs := runCLI("compare", "--assumed-between", "0", "--baseline", base, "--candidate", same); code != ExitPass {
		t.Errorf("same: exit %d\n%s\n%s", code, out, errs)
	}
	if code, out, errs := runCLI("compare", "--assumed-between", "0", "--baseline", base, "--candidate", slow); code != ExitRegression {
		t.Errorf("slow: exit %d\n%s\n%s", code, out, errs)
	}
	r, err := result.Read(base)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := json.Marshal(result.Spec{Kind: result.KindServing, Name: "ip", Cell: "ip", API: "completions", Model: "Qwen/Qwen3-8B",
		Dataset: result.Dataset{Kind: "random", InputTokens: 512, OutputTokens: 128},
		Load:    result.Load{Requests: 240, Rate: 4, Burstiness: 1}})
	n := *r
	n.Workload = result.Workload{Name: "ip", Cell: "ip", Hash: "native", Spec: spec}
	native := writeResult(t, filepath.Join(dir, "native.json"), &n)
	if code, out, errs := runCLI("compare", "--assumed-between", "0", "--baseline", native, "--candidate", same); code != ExitPass || !strings.Contains(out+errs, "matched by load shape") {
		t.Errorf("native baseline: exit %d\n%s\n%s", code, out, errs)
	}
}

// TestExportedNativeImportsAsSameWorkload: a perfgate-native result
// exported as vllm bench serve files and imported again is the same
// workload as the native baseline (issue 25's `workload-changed ... hash
// 1a01e812c0da -> 4e822c2891ed` when nothing had changed).
func TestExportedNativeImportsAsSameWorkload(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	imported := importGuideLLM(t, filepath.Join(dir, "imp"), "benchmarks.json", "benchmarks-2.json", "benchmarks-3.json")
	native := nativeOf(t, imported, filepath.Join(dir, "native", "gl-c16.json"), randomC16)
	if code, out, errs := runCLI("export", "vllm-bench", native, "-o", filepath.Join(dir, "exported")); code != ExitPass {
		t.Fatalf("export: exit %d\n%s\n%s", code, out, errs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "exported", "*.json"))
	if len(files) != 3 {
		t.Fatalf("exported %v", files)
	}
	back := filepath.Join(dir, "back", "gl-c16.json")
	if code, out, errs := runCLI(append([]string{"import", "vllm-bench", "-o", back, "--name", "gl-c16"}, files...)...); code != ExitPass {
		t.Fatalf("import: exit %d\n%s\n%s", code, out, errs)
	}
	code, out, errs := runCLI("compare", "--assumed-between", "0", "--baseline", native, "--candidate", back)
	if code != ExitPass || !strings.Contains(out+errs, "matched by load shape") || strings.Contains(out+errs, "workload-changed") {
		t.Errorf("native baseline against its own export, imported: exit %d\n%s\n%s", code, out, errs)
	}
}
