package cli

import (
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/session"
	"github.com/perfgate/perfgate/gate/workload"
)

// TestBisectResumeDropsPartialBlock: an experiment stopped in block 3 (of
// ABBA, two trials a block) is read back with blocks 1-2: the block cut
// short is dropped (it runs again), the complete ones are kept and their
// results count as complete.
func TestBisectResumeDropsPartialBlock(t *testing.T) {
	t.Parallel()
	ms, err := workload.Loader{}.LoadPaths([]string{"testdata/gate/decode-a.yaml"})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	design := result.AB{Order: "ABB", Blocks: []result.Block{
		{Index: 1, Arm: "a", Trials: 2, StartedAt: start},
		{Index: 2, Arm: "b", Trials: 2, StartedAt: start.Add(time.Minute)},
		{Index: 3, Arm: "b", Trials: 2, StartedAt: start.Add(2 * time.Minute)},
	}}
	trials := map[string][]int{"a": {1, 1}, "b": {2, 2, 3}} // block 3 has one trial of two
	for _, arm := range []string{"a", "b"} {
		r := &result.Result{Schema: result.Schema, Workload: result.Workload{Name: ms[0].Name, Cell: ms[0].Cell, Hash: ms[0].Hash},
			Arm: arm, AB: &design, Complete: false, IncompleteReason: "the server died"}
		for i, bl := range trials[arm] {
			r.Trials = append(r.Trials, result.Trial{Index: i + 1, Block: bl, Valid: true, Values: map[string]float64{"tpot_ms.p50": 5}})
		}
		if err := result.Write(filepath.Join(dir, arm, result.FileName(ms[0].Cell)), r); err != nil {
			t.Fatal(err)
		}
	}
	s := &Streams{In: strings.NewReader(""), Out: io.Discard, Err: io.Discard}
	arms := [2]abArm{{name: "a", command: []string{"sim"}}, {name: "b", command: []string{"sim"}}}
	x := newABExperiment(s, ms, arms, 2, session.Options{}, dir, 0)
	if err := bisectResume(x, dir, ms); err != nil {
		t.Fatal(err)
	}
	if x.design.Order != "AB" || len(x.design.Blocks) != 2 {
		t.Fatalf("design %+v: want blocks 1-2 (AB) kept", x.design)
	}
	for i, want := range []int{2, 2} {
		r := x.results[i][0]
		if r == nil || len(r.Trials) != want || !r.Complete || r.IncompleteReason != "" {
			t.Errorf("arm %d: %+v: want %d trials, complete", i, r, want)
		}
	}

	// A workload changed since: the experiment is not read back silently.
	ms[0].Hash = "other"
	if err := bisectResume(x, dir, ms); err == nil || !strings.Contains(err.Error(), "workload changed") {
		t.Errorf("changed workload: %v", err)
	}
}
