package bootstrap

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// WriteTable renders the plan as init's closing table: per gated metric
// the smallest worsening the chosen PR check decides and the smallest
// tolerance an unchanged build passes at the per-metric rate (so the
// whole check passes 90 % of the time), under both
// kinds of check, then what twice the trials, twice the blocks or a week
// of nightly history would decide, then the GPU time of each check and
// the choice with its reason. It only formats what Decide computed.
func WriteTable(w io.Writer, p *Plan) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	abHead := fmt.Sprintf("A/B %d blocks", p.Blocks)
	if p.Blocks == 0 && len(p.Rows) > 0 {
		abHead = "A/B (none reaches it)"
	}
	restartsHead := "restarts (none allowed)"
	if p.Restarts > 0 {
		restartsHead = fmt.Sprintf("%d trials over %d starts", p.RestartTrials, p.Restarts)
		if !p.RestartsReach {
			restartsHead += " (none reaches it)"
		}
	}
	fmt.Fprintf(tw, "workload\tmetric\ttolerance\tstored %d trials: decides / passes at\t%s: decides / passes at\t%s: decides / passes at\t%d trials\t2x blocks\tafter %d nightlies\n",
		p.Trials, abHead, restartsHead, 2*p.Trials, p.Nightlies)
	for _, r := range p.Rows {
		a := r.Absolute
		tol := pct(r.Tolerance, a)
		for _, id := range p.Undecidable {
			if id == r.ID {
				tol += " !"
			}
		}
		rs := "-"
		if p.Restarts > 0 {
			rs = pct(r.Restarts.Decides, a) + " / " + pct(r.Restarts.PassTolerance, a)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s / %s\t%s / %s\t%s\t%s\t%s\t%s\n", r.Cell, r.Label, tol,
			pct(r.Stored.Decides, a), pct(r.Stored.PassTolerance, a), pct(r.AB.Decides, a), pct(r.AB.PassTolerance, a), rs,
			pct(r.MoreTrials.Decides, a), pct(r.MoreBlocks.Decides, a), pct(r.History.Decides, a))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, `
"decides": the smallest worsening the check calls a regression in 80 %% of runs; "passes at": the
smallest tolerance an unchanged build passes in %.1f %% of runs, so that all %s together pass it in 90 %%
(a tolerance below it is not decidable).
"over N starts": the stored check with both arms' trials spread over N server starts (trials.restarts).
"!": undecidable on this runner at any tolerance up to 50 %% or on too few calibrated sessions; gated, reported inconclusive.
The last three columns: the stored check with twice the trials, the A/B with twice the blocks,
and the stored check once the nightlies have recorded that many baseline sessions.
GPU time per PR check: stored baseline %s (1 server start + %d trials), A/B %s (%d blocks, a server start each; plus building the merge base)%s

PR check: %s. %s.
`, 100*p.PassRate, metricsText(len(p.Rows)), p.StoredGPU.Round(time.Second), p.Trials, p.ABGPU.Round(time.Second), p.ABCostBlocks, restartsGPU(p), modeText(p.Mode), p.Why)
	return err
}

func metricsText(n int) string {
	if n == 1 {
		return "the gated metric"
	}
	return fmt.Sprintf("%d gated metrics", n)
}

func modeText(m Mode) string {
	switch m {
	case AB:
		return "interleaved A/B against the merge base (perfgate ab)"
	case Widened:
		return "stored baseline at widened tolerances"
	case Restarted:
		return "stored baseline, both arms over several server starts (trials.restarts)"
	case RestartedWidened:
		return "stored baseline, both arms over several server starts (trials.restarts), at widened tolerances"
	}
	return "stored baseline"
}

// restartsGPU is the restarted check's part of the GPU-time line: its
// start-ups priced at the start-up calibration measured.
func restartsGPU(p *Plan) string {
	if p.Restarts == 0 {
		return ""
	}
	reach := ""
	if !p.RestartsReach {
		reach = ", not deciding every gated metric"
	}
	return fmt.Sprintf(", restarted stored baseline %s (%d server starts + %d trials%s)", p.RestartsGPU.Round(time.Second), p.Restarts, p.RestartTrials, reach)
}
