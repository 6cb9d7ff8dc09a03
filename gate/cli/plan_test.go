package cli

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var planCX8 = filepath.Join("..", "..", "workloads", "cx8-4000-1000-c16.yaml")

func TestPlanText(t *testing.T) {
	t.Parallel()
	code, out, stderr := validateRun("plan", "-w", planCX8)
	if code != ExitPass {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{
		"cell          cx8-4000-1000-c16\n",
		"requests      64 measured, 20 warmups\n",
		"input tokens  min 4000, mean 4000.0, max 4000\n",
		"max tokens    min 1000, mean 1000.0, max 1000\n",
		"load          concurrency 16, rate inf req/s, burstiness 1\n",
		"arrivals      0s .. 0s\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan lacks %q:\n%s", want, out)
		}
	}
	hash := regexp.MustCompile(`hash +([0-9a-f]{64})\n`).FindStringSubmatch(out)
	_, again, _ := validateRun("plan", "-w", planCX8)
	if hash == nil || again != out {
		t.Errorf("no hash, or a second plan differs")
	}
}

func TestPlanJSON(t *testing.T) {
	t.Parallel()
	code, out, stderr := validateRun("plan", "-w", planCX8, "--json")
	if code != ExitPass {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var plan struct {
		Cells []struct {
			Name     string `json:"name"`
			Hash     string `json:"hash"`
			Requests []struct {
				InputTokens *int     `json:"input_tokens"`
				MaxTokens   *int     `json:"max_tokens"`
				ArrivalS    *float64 `json:"arrival_s"`
			} `json:"requests"`
		} `json:"cells"`
	}
	if err := json.Unmarshal([]byte(out), &plan); err != nil {
		t.Fatal(err)
	}
	if len(plan.Cells) != 1 || plan.Cells[0].Name != "cx8-4000-1000-c16" || len(plan.Cells[0].Requests) != 64 {
		t.Fatalf("plan = %+v", plan)
	}
	_, text, _ := validateRun("plan", "-w", planCX8)
	if !strings.Contains(text, plan.Cells[0].Hash) {
		t.Errorf("JSON hash %s not in the text plan", plan.Cells[0].Hash)
	}
	for i, r := range plan.Cells[0].Requests {
		if r.InputTokens == nil || *r.InputTokens != 4000 || *r.MaxTokens != 1000 || *r.ArrivalS != 0 {
			t.Errorf("request %d = %+v", i, r)
		}
	}
}

func TestPlanErrors(t *testing.T) {
	t.Parallel()
	if code, _, _ := validateRun("plan"); code != ExitInvalid {
		t.Errorf("no -w: exit %d", code)
	}
	code, _, stderr := validateRun("plan", "-w", filepath.Join("..", "..", "workloads", "a100-sharegpt-1000.yaml"))
	if code != ExitInvalid || !strings.Contains(stderr, "warning: dataset file") || !strings.Contains(stderr, "no cells to plan") {
		t.Errorf("missing optional dataset: exit %d, stderr %s", code, stderr)
	}
	code, _, stderr = validateRun("plan", "-w", filepath.Join("..", "workload", "testdata", "invalid", "rate-zero.yaml"))
	if code != ExitInvalid || !strings.Contains(stderr, "rate-zero.yaml:10: load.rate") {
		t.Errorf("invalid file: exit %d, stderr %s", code, stderr)
	}
}
