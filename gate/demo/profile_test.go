package demo

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/trace"
	"github.com/perfgate/perfgate/gate/workload"
)

// TestDemoProfiles: the demo profiles one trial of the worst regressed
// workload on each arm (profile: always, so a verdict that a loaded
// machine left undecided still profiles one), and the comment lists the
// decode kernels whose time per step grew, from the traces the simulator
// wrote: mlp (weight reads) first, attention (KV reads, tiny at these
// context lengths) +15 % too, sampling (the step's fixed part) unchanged.
func TestDemoProfiles(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator")
	}
	ms, err := workload.LoadPaths([]string{"testdata/profile"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	cfg.StepBase *= 5
	cfg.DecodeFixed *= 5
	dir := t.TempDir()
	var w, progress bytes.Buffer
	out, err := Run(context.Background(), &w, Options{Manifests: ms, Dir: dir, Sim: &cfg, Progress: &progress, Profile: trace.Always, Limits: laxLimits})
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	e := out.Comparison.Explanation
	if e == nil || e.Kernels == nil || e.Kernels.Error != "" || len(e.Kernels.Ops) < 2 {
		t.Fatalf("no kernel diff (verdict %s): %+v\n%s\n%s", out.Comparison.Verdict, e, progress.String(), w.String())
	}
	k := e.Kernels
	change := map[string]float64{}
	for _, op := range k.Ops {
		change[op.Name] = op.Change
	}
	if k.Ops[0].Name != "mlp" || change["mlp"] < 5 || change["attention"] < 5 || change["sampling"] > 3 || change["sampling"] < -3 {
		t.Errorf("kernels %+v", k.Ops)
	}
	for _, p := range []string{k.BaselineTrace, k.CandidateTrace} {
		if _, err := os.Stat(p); err != nil || !strings.HasPrefix(p, dir+"/profiles/") {
			t.Errorf("trace %s: %v", p, err)
		}
	}
	comment, err := os.ReadFile(out.CommentPath)
	if err != nil || !strings.Contains(string(comment), "**Kernels per engine step** in "+k.Workload) {
		t.Errorf("the comment lacks the kernels: %v\n%.2000s", err, comment)
	}
}
