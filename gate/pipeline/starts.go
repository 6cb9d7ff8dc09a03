package pipeline

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// firstLook runs every workload's first-look trials over the server starts
// asked for (Options.Restarts, else the manifests' trials.restarts): start
// k runs its share of each workload's trials, stamped with k
// (result.Trial.Start), so the verdict sees as many candidate sessions.
// It returns the context and trials of the last start (where extra looks
// run), the number of starts made, and the warnings of the comparison.
func firstLook(ctx context.Context, t Trials, manifests []*workload.Manifest, budgets []budget, o Options, out *Outcome,
	cost map[string]time.Duration, log io.Writer, now func() time.Time) (context.Context, Trials, int, []string) {
	starts, warnings := plannedStarts(manifests, budgets, o)
	for k := 1; k <= starts; k++ {
		if k > 1 {
			nctx, nt, err := o.Restart()
			if err != nil {
				out.RunErr = fmt.Errorf("server start %d of %d: %w", k, starts, err)
				return ctx, t, k - 1, warnings
			}
			ctx, t = nctx, nt
		}
		for i, m := range manifests {
			n := StartShare(budgets[i].min, starts, k)
			if n == 0 {
				continue
			}
			where := ""
			if starts > 1 {
				where = fmt.Sprintf("server start %d/%d: ", k, starts)
			}
			if at := m.BaselineRate; at != nil {
				fmt.Fprintf(log, "%s%s: %d trials at the baseline's rate of %s, %s req/s\n", where, m.Cell, n, at.Cell, result.FormatRate(at.RateRPS))
			} else {
				fmt.Fprintf(log, "%s%s: %d trials\n", where, m.Cell, n)
			}
			var res *result.Result
			srv, err := t.Prepare(ctx, m)
			if k == 1 {
				res = t.NewResult(m, srv)
				res.StartedAt = now().UTC()
				if m.BaselineRate != nil {
					res.BaselineRate = m.BaselineRate
				}
				out.Results = append(out.Results, res)
			} else {
				res = out.Results[i]
				if tr, ok := t.(interface{ Track(*result.Result) }); ok {
					tr.Track(res)
				}
			}
			if err != nil {
				res.Complete, res.IncompleteReason = false, err.Error()
				res.FinishedAt = now().UTC()
				out.RunErr = fmt.Errorf("%s: %w", m.Cell, err)
				return ctx, t, k, warnings
			}
			have := len(res.Trials)
			begin := now()
			err = t.RunTrials(ctx, m, res, n)
			cost[m.Cell] = perTrial(now().Sub(begin), n)
			StampStart(res, have, k, starts)
			if err != nil {
				out.RunErr = fmt.Errorf("%s: %w", m.Cell, err)
				return ctx, t, k, warnings
			}
		}
	}
	return ctx, t, starts, warnings
}

// plannedStarts is the number of server starts of the first look: the
// option, else the largest trials.restarts of the manifests; never more
// than the fewest first-look trials (every start needs a trial of every
// workload), and one when the server cannot be restarted.
func plannedStarts(manifests []*workload.Manifest, budgets []budget, o Options) (int, []string) {
	k := o.Restarts
	if k <= 0 {
		for _, m := range manifests {
			k = max(k, m.Trials.Restarts)
		}
	}
	if k <= 1 {
		return 1, nil
	}
	fewest := budgets[0].min
	for _, b := range budgets {
		fewest = min(fewest, b.min)
	}
	var warnings []string
	if o.Restart == nil {
		return 1, []string{fmt.Sprintf("trials.restarts asked for %d server starts, but perfgate did not launch the server (--url): the candidate was measured in one session, so its between-session noise is not averaged; launch the server with server.command (or --server-cmd) to restart it", k)}
	}
	if k > fewest {
		warnings = append(warnings, fmt.Sprintf("trials.restarts asked for %d server starts, but a workload runs %d first-look trials: %d starts, one trial each at least; raise trials.min to restart more", k, fewest, fewest))
		k = fewest
	}
	return k, warnings
}

// StartShare is start k's part of n trials over starts starts: n/starts each,
// the first n%starts starts one more.
func StartShare(n, starts, k int) int {
	s := n / starts
	if k <= n%starts {
		s++
	}
	return s
}

// StampStart records start k on the trials of res from index from on; a run
// of one start leaves them unstamped (one session, as before restarts).
func StampStart(res *result.Result, from, k, starts int) {
	if starts <= 1 {
		return
	}
	for i := from; i < len(res.Trials); i++ {
		res.Trials[i].Start = k
	}
}
