package command

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/workload"
)

// commandManifest parses a kind: command workload running argv.
func commandManifest(t *testing.T, argv string) *workload.Manifest {
	t.Helper()
	src := "name: offline\nkind: command\ngpus: 2\ncommand:\n  argv: " + argv +
		"\n  env: {LAT: \"1.5\"}\n  timeout: 20s\ngate: [{metric: offline_latency_ms.p50, tolerance: 5%}]\n"
	f, err := workload.Parse("offline.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ms, _, err := f.Expand()
	if err != nil {
		t.Fatal(err)
	}
	return ms[0]
}

func TestTrialsRun(t *testing.T) {
	m := commandManifest(t, `[sh, -c, 'printf "{\"avg_latency\": $LAT, \"percentiles\": {\"50\": $LAT}}" > "$0"', "{out}", "{trial}"]`)
	dir := t.TempDir()
	c := &Trials{Dir: dir, BaseEnv: []string{"PATH=" + os.Getenv("PATH")}, ToolVersion: "test"}
	res, err := c.Run(context.Background(), m, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete || len(res.ValidTrials()) != 2 || res.Workload.Hash != m.Hash || res.Server.GPUs != 2 {
		t.Fatalf("result: complete=%v valid=%d hash=%q gpus=%d", res.Complete, len(res.ValidTrials()), res.Workload.Hash, res.Server.GPUs)
	}
	for i, tr := range res.Trials {
		if tr.Index != i || tr.Values["offline_latency_ms.p50"] != 1500 {
			t.Errorf("trial %d: %+v", i, tr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "offline", "trial-01.json")); err != nil {
		t.Errorf("output of trial 1: %v", err)
	}
	// More trials continue the indices (extra looks of the gate).
	if err := c.RunTrials(context.Background(), m, res, 1); err != nil || res.Trials[2].Index != 2 {
		t.Errorf("extra trial: %v, %+v", err, res.Trials)
	}
}

func TestTrialsCannotStart(t *testing.T) {
	m := commandManifest(t, `[/nonexistent/bench, "{out}"]`)
	c := &Trials{Dir: t.TempDir()}
	res, err := c.Run(context.Background(), m, 2)
	if err == nil || res == nil || res.Complete || !strings.Contains(res.IncompleteReason, "nonexistent") {
		t.Fatalf("err %v, result %+v; want an error and an incomplete result naming the command", err, res)
	}
	if _, err := c.Prepare(context.Background(), &workload.Manifest{Cell: "serving"}); err == nil {
		t.Error("Prepare accepted a serving manifest")
	}
}
