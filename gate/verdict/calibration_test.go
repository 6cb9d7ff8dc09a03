package verdict

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestCalibrationDriftWarned: two runs of a text-prompt cell whose prompts
// were sized for different tokenizers are compared (the hash matches) with
// a warning saying the prompts differed.
func TestCalibrationDriftWarned(t *testing.T) {
	b, c := arms(3, 1, 5, 0.02, "", 0)
	b[0].Workload.Calibration = &result.PromptCalibration{Method: "usage", TokensPerWord: 1.3, OverheadTokens: 1}
	c[0].Workload.Calibration = &result.PromptCalibration{Method: "usage", TokensPerWord: 2.6, OverheadTokens: 1}
	cmp, err := Compare(b, c, oneSession(), Look{})
	if err != nil {
		t.Fatal(err)
	}
	if len(cmp.Workloads) != 1 || !strings.Contains(strings.Join(cmp.Workloads[0].Warnings, "\n"), "sized differently") {
		t.Errorf("workload warnings %q", cmp.Workloads[0].Warnings)
	}
}
