package report

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

// TestDecidesRunnerBusy: a cell the verdict held because the runner was
// busy (verdict.LimitRunner) says so in the "Decides it" column, rather
// than "see the notes" or more trials that a busy runner would spoil too.
func TestDecidesRunnerBusy(t *testing.T) {
	c := &verdict.Comparison{Look: verdict.Look{Index: 1, Max: 3}}
	cell := &verdict.Cell{Limit: verdict.LimitRunner, Baseline: verdict.Arm{N: 5}, Candidate: verdict.Arm{N: 5}}
	if got := decides(c, cell); !strings.Contains(got, "runner busy") || !strings.Contains(got, "idle runner") {
		t.Errorf("decides = %q", got)
	}
}
