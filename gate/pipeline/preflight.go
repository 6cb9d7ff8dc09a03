package pipeline

import (
	"context"
	"fmt"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// Preflight checks, before the first trial, what can be known without
// measuring: whether each workload still hashes like its baseline, and
// whether the fingerprint keys that must match (GPU name and count, the
// model the server serves) match the baseline's. A mismatch would make
// the comparison invalid after every trial ran; here it fails at once,
// with nothing sent but the readiness probes.
//
// It does not restate the matching rules: it runs verdict.Compare over
// results that hold no trials yet (workload identity and fingerprint
// only), so it refuses exactly what the comparison after the run would
// refuse, honouring Policy.AllowMismatch. Cells without a baseline, and
// cells whose server cannot be prepared, are left to the run, which
// reports them as before. Every error it returns is invalid input (a
// *PreflightError names the cells).
func Preflight(ctx context.Context, t Trials, ms []*workload.Manifest, baselines []*result.Result, p verdict.Policy) error {
	byCell := map[string]*result.Result{}
	for _, b := range baselines {
		byCell[b.Workload.Cell] = b
	}
	var base, cand []*result.Result
	for _, m := range ms {
		b := byCell[m.Cell]
		if b == nil {
			continue
		}
		var r *result.Result
		if b.Workload.Hash != m.Hash {
			r = t.NewResult(m, result.Server{}) // the hash alone decides
		} else {
			srv, err := t.Prepare(ctx, m)
			if err != nil {
				continue // the run reports it, with its partial results
			}
			r = t.NewResult(m, srv)
		}
		base, cand = append(base, b), append(cand, r)
	}
	if len(cand) == 0 {
		return nil
	}
	cmp, err := verdict.Compare(base, cand, p, verdict.Look{})
	if err != nil {
		return fmt.Errorf("checking the workloads against their baselines: %w", err)
	}
	var bad []string
	for _, w := range cmp.Workloads {
		if (w.Status == verdict.WorkloadChanged || w.Status == verdict.FingerprintMismatch) && !w.Allowed {
			bad = append(bad, fmt.Sprintf("  %s (%s): %s", w.Cell, w.Status, w.Message))
		}
	}
	if len(bad) == 0 {
		return nil
	}
	return &PreflightError{Cells: bad}
}

// PreflightError lists the cells that cannot be compared with their
// baselines, each as "  <cell> (<status>): <message>".
type PreflightError struct{ Cells []string }

func (e *PreflightError) Error() string {
	return fmt.Sprintf("%d workload(s) cannot be compared with their baselines, so no trial was run:\n%s", len(e.Cells), strings.Join(e.Cells, "\n"))
}
