package pipeline

import (
	"context"
	"fmt"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/workload"
)

// ByKind routes each workload to the Trials of its kind: serving cells to
// the load generator, kind: command cells to the command runner, so one
// gate run mixes both and compares them the same way. A nil side is an
// error naming the cell (a serving cell with no server configured).
type ByKind struct {
	Serving Trials
	Command Trials
}

func (b ByKind) pick(m *workload.Manifest) (Trials, error) {
	if m.IsCommand() {
		if b.Command == nil {
			return nil, fmt.Errorf("workload %s: kind: command workloads cannot run here", m.Cell)
		}
		return b.Command, nil
	}
	if b.Serving == nil {
		return nil, fmt.Errorf("workload %s: a serving workload needs a server (server.url or server.command)", m.Cell)
	}
	return b.Serving, nil
}

// Prepare calls the Prepare of m's kind.
func (b ByKind) Prepare(ctx context.Context, m *workload.Manifest) (result.Server, error) {
	t, err := b.pick(m)
	if err != nil {
		return result.Server{}, err
	}
	return t.Prepare(ctx, m)
}

// NewResult calls the NewResult of m's kind. With no Trials for the kind
// (Prepare already failed) it returns a bare result for the failure to be
// recorded in.
func (b ByKind) NewResult(m *workload.Manifest, srv result.Server) *result.Result {
	t, err := b.pick(m)
	if err != nil {
		return &result.Result{Schema: result.Schema, Workload: result.Workload{Name: m.Name, Cell: m.Cell, Hash: m.Hash, Spec: m.Spec},
			Server: srv, Complete: true, Trials: []result.Trial{}}
	}
	return t.NewResult(m, srv)
}

// RunTrials calls the RunTrials of m's kind.
func (b ByKind) RunTrials(ctx context.Context, m *workload.Manifest, res *result.Result, n int) error {
	t, err := b.pick(m)
	if err != nil {
		res.Complete, res.IncompleteReason = false, err.Error()
		return err
	}
	return t.RunTrials(ctx, m, res, n)
}
