package cli

import (
	"errors"
	"testing"

	"github.com/perfgate/perfgate/gate/github"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/verdict"
)

// TestGateAnnotations: the report's errors and warnings reach the Action
// as ::error and ::warning, a failed run first.
func TestGateAnnotations(t *testing.T) {
	t.Parallel()
	out := &pipeline.Outcome{RunErr: errors.New("server died"), Comparison: &verdict.Comparison{Cells: []verdict.Cell{
		{Workload: "a", Gated: true, Outcome: verdict.Inconclusive},
	}}}
	got := gateAnnotations(out)
	if len(got) != 2 || got[0].Level != github.Error || got[0].Message != "server died" || got[1].Level != github.Warning || got[1].Title != "perfgate: undecided in a" {
		t.Errorf("annotations %+v", got)
	}
}
