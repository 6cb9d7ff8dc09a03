package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// importRun runs perfgate with args and returns the exit code and streams.
func importRun(t *testing.T, args ...string) (ExitCode, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(context.Background(), args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

func TestImportExportVLLMBench(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src := filepath.Join("..", "vllmbench", "testdata")
	out := filepath.Join(dir, "qwen-c16.json")
	code, stdout, stderr := importRun(t, "import", "vllm-bench", filepath.Join(src, "new.json"), filepath.Join(src, "new.json"), "-o", out, "--gpus", "8")
	if code != ExitPass {
		t.Fatalf("import: code %v, stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, `cell "qwen-c16", 2 trials`) || !strings.Contains(stderr, "std_tpot_ms") {
		t.Errorf("stdout %q stderr %q", stdout, stderr)
	}
	r, err := result.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Workload.Cell != "qwen-c16" || r.Server.GPUs != 8 || r.Trials[1].Values["output_throughput_per_gpu"] != 945.0/8 {
		t.Errorf("imported result: cell %q gpus %d values %v", r.Workload.Cell, r.Server.GPUs, r.Trials[1].Values)
	}

	exp := filepath.Join(dir, "exported")
	code, stdout, stderr = importRun(t, "export", "vllm-bench", out, "-o", exp)
	if code != ExitPass {
		t.Fatalf("export: code %v, stderr %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(exp, "*.json"))
	if len(files) != 2 || strings.Count(stdout, "\n") != 2 {
		t.Fatalf("exported %v, stdout %q", files, stdout)
	}
	again := filepath.Join(dir, "again.json")
	if code, _, stderr := importRun(t, append(append([]string{"import", "vllm-bench"}, files...), "-o", again, "--name", "qwen-c16", "--gpus", "8")...); code != ExitPass {
		t.Fatalf("re-import: %v %s", code, stderr)
	}
	r2, err := result.Read(again)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Workload.Hash != r.Workload.Hash {
		t.Errorf("round trip changed the hash")
	}
}

func TestImportExportErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte("{\n\"completed\": 1,\n\"duration\": x}"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"import", "vllm-bench", bad}, "--out (-o) is required"},
		{[]string{"import", "vllm-bench", bad, "-o", filepath.Join(dir, "o.json")}, "bad.json: line 3"},
		{[]string{"import", "vllm-bench", bad, "-o", "o.json", "--gpus", "-1"}, "--gpus -1"},
		{[]string{"import", "vllm-bench", filepath.Join(dir, "missing.json"), "-o", "o.json"}, "missing.json"},
		{[]string{"export", "vllm-bench", filepath.Join("..", "vllmbench", "testdata", "partial.json"), "-o", dir}, "not a perfgate result file"},
		{[]string{"export", "vllm-bench", bad}, "--out (-o) is required"},
	}
	for _, tt := range tests {
		code, _, stderr := importRun(t, tt.args...)
		if code != ExitInvalid || !strings.Contains(stderr, tt.want) {
			t.Errorf("%v: code %v, stderr %q; want exit 2 and %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestCompareImportedRuns: two imported `vllm bench serve` runs of the same
// benchmark compare, and a 25 % TTFT slowdown in the candidate fails the gate.
func TestCompareImportedRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "vllmbench", "testdata", "new.json"))
	if err != nil {
		t.Fatal(err)
	}
	ttft := regexp.MustCompile(`("(?:mean|median|p\d+)_ttft_ms": )([0-9.]+)`)
	write := func(arm string, scale float64) []string {
		var files []string
		for i := 0; i < 5; i++ {
			jitter := 1 + 0.004*float64(i-2) // +-0.8 % run-to-run noise
			data := ttft.ReplaceAllStringFunc(string(src), func(m string) string {
				p := ttft.FindStringSubmatch(m)
				v, _ := strconv.ParseFloat(p[2], 64)
				return p[1] + strconv.FormatFloat(v*scale*jitter, 'f', 3, 64)
			})
			f := filepath.Join(dir, fmt.Sprintf("%s-%d.json", arm, i))
			if err := os.WriteFile(f, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		return files
	}
	for arm, scale := range map[string]float64{"base": 1, "cand": 2} {
		args := append([]string{"import", "vllm-bench"}, write(arm, scale)...)
		if code, _, stderr := importRun(t, append(args, "-o", filepath.Join(dir, arm+".json"), "--name", "qwen")...); code != ExitPass {
			t.Fatalf("import %s: %v %s", arm, code, stderr)
		}
	}
	code, out, stderr := importRun(t, "compare", "--baseline", filepath.Join(dir, "base.json"), "--candidate", filepath.Join(dir, "cand.json"))
	if code != ExitRegression || !strings.Contains(out, "TTFT p50") {
		t.Errorf("compare: code %v\n%s\n%s", code, out, stderr)
	}
}
