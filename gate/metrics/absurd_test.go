package metrics

import (
	"strings"
	"testing"
	"time"
)

// TestAbsurdValuesInvalidateTheTrial: a server whose usage claims more
// tokens than any measurement can reach must not make the result file
// unwritable (result.MaxValue): the value is dropped and the trial is
// invalid, saying why.
func TestAbsurdValuesInvalidateTheTrial(t *testing.T) {
	acc := NewAccumulator(SLO{}, 0)
	r := req(0, 0, 10, []float32{1}, 1, 2)
	r.OutputTokens, r.MaxTokens = 1<<62, 0
	acc.Add(r)
	tr := acc.Finish(time.Second, 0, Limits{})
	if _, ok := tr.Values["total_output_tokens"]; ok || tr.Valid || !strings.Contains(tr.InvalidReason, "impossible values dropped") {
		t.Fatalf("valid %v, total_output_tokens kept %v, reason %q", tr.Valid, tr.Values["total_output_tokens"], tr.InvalidReason)
	}
	if _, ok := tr.Values["ttft_ms.p50"]; !ok {
		t.Error("the trial's other values were dropped too")
	}
}
