package cli

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/baseline"
	"github.com/perfgate/perfgate/gate/noise"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
	"github.com/perfgate/perfgate/gate/workload"
)

// TestCalibrateFit: per session, the valid trials of each metric form one
// group; the noise file gets every metric with a direction (not counts),
// on the verdict's scale, and the table only the gated ones. Invalid
// trials are left out, and a metric that cannot be fitted is a note.
func TestCalibrateFit(t *testing.T) {
	t.Parallel()
	m := &workload.Manifest{Cell: "chat", Hash: "h-chat", Trials: workload.TrialBudget{Min: 4, Max: 4}}
	tpot, sessions := calibrateSynthetic()
	fit := calibrateFit([]*workload.Manifest{m}, sessions, verdict.DefaultPolicy(), 0)
	cell := fit.cells["chat"]
	if cell.WorkloadHash != "h-chat" || len(cell.Metrics) != 2 {
		t.Fatalf("cell %+v, want tpot_ms.p50 and success_rate only", cell)
	}
	var groups [][]float64
	for _, vals := range tpot {
		x, _ := verdict.ToTestScale(vals, false)
		groups = append(groups, x)
	}
	want, _ := noise.OneWay(groups)
	got := cell.Metrics["tpot_ms.p50"]
	if got.Scale != "log" || math.Abs(got.WithinVar-want.WithinVar) > 1e-15 || math.Abs(got.BetweenVar-want.BetweenVar) > 1e-15 ||
		got.BetweenDF != want.BetweenDF || got.Sessions != 3 || got.Trials != 9 {
		t.Errorf("tpot_ms.p50 %+v, want the fit %+v", got, want)
	}
	if sr := cell.Metrics["success_rate"]; sr.Scale != "absolute" {
		t.Errorf("success_rate on scale %q", sr.Scale)
	}
	tb := fit.table
	if len(tb.Rows) != 2 || tb.Family != 2 || tb.Rows[0].Trials != 4 || tb.CellAlpha != 0.01/3/2 {
		t.Errorf("table: %d rows, family %d, trials %d, cell alpha %v", len(tb.Rows), tb.Family, tb.Rows[0].Trials, tb.CellAlpha)
	}
	if len(tb.Notes) != 1 || !strings.Contains(tb.Notes[0], "chat: ttft_ms.p50: session 1 has a value <= 0") {
		t.Errorf("notes %q", tb.Notes)
	}
	// --gate-trials (the configuration's trials.min) overrides the workload's trials.min.
	if fit := calibrateFit([]*workload.Manifest{m}, sessions, verdict.DefaultPolicy(), 7); fit.table.Rows[0].Trials != 7 {
		t.Errorf("gate trials %d, want 7", fit.table.Rows[0].Trials)
	}
}

// TestCalibrateDisturbed: a session whose trials spread far wider than
// every other session's in most gated metrics is named; a session that is
// merely offset (between-session noise) or wide in one metric is not.
func TestCalibrateDisturbed(t *testing.T) {
	t.Parallel()
	ids := []string{"tpot_ms.p50", "ttft_ms.p50", "e2el_ms.p50"}
	mk := func(spread [3]float64, level float64) map[string]*result.Result {
		r := &result.Result{Schema: result.Schema, Workload: result.Workload{Cell: "c", Hash: "h"}, Complete: true}
		for j, d := range []float64{-1, 0, 1} {
			v := map[string]float64{}
			for i, id := range ids {
				v[id] = level * (10 + d*spread[i])
			}
			r.Trials = append(r.Trials, result.Trial{Index: j, Valid: true, Values: v})
		}
		return map[string]*result.Result{"c": r}
	}
	calm := [3]float64{0.05, 0.1, 0.05}
	for _, tc := range []struct {
		name     string
		sessions []map[string]*result.Result
		want     string
	}{
		{"quiet", []map[string]*result.Result{mk(calm, 1), mk(calm, 1.05), mk(calm, 0.97)}, "[]"},
		{"disturbed second session", []map[string]*result.Result{mk(calm, 1), mk([3]float64{3, 4, 0.06}, 1), mk(calm, 1)}, "[2]"},
		{"offset, not wider", []map[string]*result.Result{mk(calm, 1), mk(calm, 3), mk(calm, 1)}, "[]"},
		{"wide in one metric only", []map[string]*result.Result{mk(calm, 1), mk([3]float64{3, 0.1, 0.05}, 1), mk(calm, 1)}, "[]"},
	} {
		if got := fmt.Sprint(noise.Disturbed("c", ids, tc.sessions)); got != tc.want {
			t.Errorf("%s: disturbed sessions %s, want %s", tc.name, got, tc.want)
		}
	}
}

// calibrateSynthetic is three sessions of cell "chat" (3 valid trials and
// one invalid each), with TPOT values tpot, a TTFT of 0 in the first
// trial (no log), a success rate and a count.
func calibrateSynthetic() (tpot [][]float64, sessions []map[string]*result.Result) {
	tpot = [][]float64{{10, 10.2, 9.9}, {11, 11.1, 10.8}, {9.5, 9.6, 9.4}}
	for i, vals := range tpot {
		r := &result.Result{Schema: result.Schema, Complete: true,
			Workload: result.Workload{Name: "chat", Cell: "chat", Hash: "h-chat", Spec: []byte(`{"trials":{"min":4,"max":4}}`)}}
		for j, v := range vals {
			ttft := 50.0
			if i == 0 && j == 0 {
				ttft = 0 // no log: the metric is not fitted
			}
			r.Trials = append(r.Trials, result.Trial{Index: j, Valid: true, Values: map[string]float64{
				"tpot_ms.p50": v, "ttft_ms.p50": ttft, "success_rate": 1 - 0.001*float64(i+j), "completed": 16}})
		}
		// An invalid trial's wild value never enters the fit.
		r.Trials = append(r.Trials, result.Trial{Index: 3, Valid: false, Values: map[string]float64{"tpot_ms.p50": 1000}})
		sessions = append(sessions, map[string]*result.Result{"chat": r})
	}
	return tpot, sessions
}

// TestCalibrateFrom: --from fits the session directories of an earlier
// calibration again, without a server; a removed session is left out, and
// too few sessions or a workload that changed between them are refused.
func TestCalibrateFrom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	from, base := filepath.Join(dir, "calib"), filepath.Join(dir, "baselines")
	_, sessions := calibrateSynthetic()
	for k, sess := range sessions {
		if err := result.Write(filepath.Join(from, fmt.Sprintf("session-%02d", k+1), "chat.json"), sess["chat"]); err != nil {
			t.Fatal(err)
		}
	}
	run := func() (ExitCode, string, string) {
		var stdout, stderr bytes.Buffer
		code := Main(context.Background(), []string{"calibrate", "--from", from, "--profile", "p", "--baselines", base}, Streams{Out: &stdout, Err: &stderr})
		return code, stdout.String(), stderr.String()
	}
	code, out, errs := run()
	if code != ExitPass {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
	n, err := baseline.Store{Root: base}.ReadNoise("p")
	if err != nil {
		t.Fatal(err)
	}
	want := calibrateFit([]*workload.Manifest{{Cell: "chat", Hash: "h-chat", Trials: workload.TrialBudget{Min: 4}}}, sessions, verdict.DefaultPolicy(), 0)
	if n.Restarts != 3 || n.TrialsPerRestart != 4 || !reflect.DeepEqual(n.Cells, want.cells) {
		t.Errorf("noise file %+v, want the fit %+v", n, want.cells)
	}
	if !strings.Contains(out, "calibration: 3 server starts x 4 trials each") || !strings.Contains(out, "chat ") {
		t.Errorf("table:\n%s", out)
	}
	// An incomplete session is refused, naming it (issue #20 item 8: it
	// was fitted without a word).
	cut := *sessions[1]["chat"]
	cut.Complete, cut.IncompleteReason = false, "server died during trial 2"
	if err := result.Write(filepath.Join(from, "session-02", "chat.json"), &cut); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(); code != ExitInvalid || !strings.Contains(errs, filepath.Join("session-02", "chat.json")+": the session is incomplete (server died during trial 2)") || !strings.Contains(errs, "remove "+filepath.Join(from, "session-02")) {
		t.Errorf("incomplete session: exit %d, %s", code, errs)
	}
	if err := result.Write(filepath.Join(from, "session-02", "chat.json"), sessions[1]["chat"]); err != nil {
		t.Fatal(err)
	}
	// A changed workload between sessions is refused.
	changed := *sessions[2]["chat"]
	changed.Workload.Hash = "h-other"
	if err := result.Write(filepath.Join(from, "session-03", "chat.json"), &changed); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(); code != ExitInvalid || !strings.Contains(errs, "the sessions measured different workloads") {
		t.Errorf("changed workload: exit %d, %s", code, errs)
	}
	// Two sessions left are too few.
	if err := os.RemoveAll(filepath.Join(from, "session-03")); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := run(); code != ExitInvalid || !strings.Contains(errs, "2 session directories with results") {
		t.Errorf("two sessions: exit %d, %s", code, errs)
	}
}
