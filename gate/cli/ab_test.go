package cli

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/ab"
	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/sim"
	"github.com/perfgate/perfgate/gate/workload"
)

// TestABArms: how the configuration's arms become what runs, and the
// arm combinations that are refused before anything starts.
func TestABArms(t *testing.T) {
	t.Parallel()
	srv := config.Server{Command: config.Argv{"vllm", "serve", "m"}, Env: []string{"CUDA_VISIBLE_DEVICES=0"}, URL: "http://127.0.0.1:8000"}
	tests := []struct {
		name     string
		ab       config.AB
		srv      config.Server
		commands bool
		want     [2]abArm
		err      string
	}{
		{name: "one server command with overlays: args appended, env added after server.env",
			ab:  config.AB{A: config.ABArm{Env: []string{"NCCL_P2P_DISABLE=1"}}, B: config.ABArm{Env: []string{"NCCL_P2P_DISABLE=0"}, Args: config.Argv{"--max-num-batched-tokens", "4096"}}},
			srv: srv,
			want: [2]abArm{
				{name: "a", command: []string{"vllm", "serve", "m"}, env: []string{"CUDA_VISIBLE_DEVICES=0", "NCCL_P2P_DISABLE=1"}, url: "http://127.0.0.1:8000"},
				{name: "b", command: []string{"vllm", "serve", "m", "--max-num-batched-tokens", "4096"}, env: []string{"CUDA_VISIBLE_DEVICES=0", "NCCL_P2P_DISABLE=0"}, url: "http://127.0.0.1:8000"},
			}},
		{name: "two commands, each measured where it serves",
			ab:   config.AB{A: config.ABArm{Command: config.Argv{"main-build"}, URL: "http://127.0.0.1:9000"}, B: config.ABArm{Command: config.Argv{"pr-build"}}},
			want: [2]abArm{{name: "a", command: []string{"main-build"}, url: "http://127.0.0.1:9000"}, {name: "b", command: []string{"pr-build"}}}},
		{name: "two servers already up",
			ab:   config.AB{A: config.ABArm{URL: "http://127.0.0.1:8001"}, B: config.ABArm{URL: "http://127.0.0.1:8002"}},
			want: [2]abArm{{name: "a", url: "http://127.0.0.1:8001"}, {name: "b", url: "http://127.0.0.1:8002"}}},
		{name: "one launched arm and one resident", ab: config.AB{A: config.ABArm{Command: config.Argv{"x"}}, B: config.ABArm{URL: "http://127.0.0.1:8002"}},
			err: "both arms must be launched"},
		{name: "an overlay on a server already up", ab: config.AB{A: config.ABArm{URL: "http://127.0.0.1:8001"}, B: config.ABArm{URL: "http://127.0.0.1:8002", Env: []string{"X=1"}}},
			err: "arm b: --b-env and --b-args change a command perfgate launches"},
		{name: "no server at all", ab: config.AB{B: config.ABArm{Command: config.Argv{"x"}}},
			err: "arm a has no server: give --a-cmd, --server-cmd"},
		{name: "bad env overlay", srv: srv, ab: config.AB{A: config.ABArm{Env: []string{"NOEQUALS"}}}, err: "arm a: --a-env"},
		{name: "benchmark overlays", commands: true,
			ab:   config.AB{A: config.ABArm{Env: []string{"SCALE=1"}}, B: config.ABArm{Command: config.Argv{"bench", "--out", "{out}"}, Args: config.Argv{"--fast"}}},
			want: [2]abArm{{name: "a", bench: abBench{env: map[string]string{"SCALE": "1"}}}, {name: "b", bench: abBench{argv: []string{"bench", "--out", "{out}"}, args: []string{"--fast"}}}}},
		{name: "benchmark command without {out}", commands: true, ab: config.AB{B: config.ABArm{Command: config.Argv{"bench"}}},
			err: "--b-cmd replaces the workload's benchmark command and must hold the {out} placeholder"},
		{name: "benchmark arm with a URL", commands: true, ab: config.AB{A: config.ABArm{URL: "http://127.0.0.1:1"}}, err: "--a-url: kind: command workloads"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := abArms(config.Config{AB: tt.ab, Server: tt.srv}, tt.commands)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("arms\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// TestABArmManifest: a benchmark arm runs a copy of the workload with its
// overlay; the workload itself, its cell and hash are untouched, so both
// arms' results are of one cell.
func TestABArmManifest(t *testing.T) {
	t.Parallel()
	m := &workload.Manifest{Cell: "lat", Hash: "h", Kind: workload.KindCommand,
		Command: &workload.Command{Argv: []string{"bench", "{out}"}, Env: map[string]string{"KEEP": "1", "SCALE": "1"}}}
	arm := abArm{name: "b", bench: abBench{args: []string{"--tp", "2"}, env: map[string]string{"SCALE": "1.3"}}}
	got := arm.manifest(m)
	if got.Cell != "lat" || got.Hash != "h" {
		t.Errorf("cell %q hash %q", got.Cell, got.Hash)
	}
	if want := []string{"bench", "{out}", "--tp", "2"}; !reflect.DeepEqual(got.Command.Argv, want) {
		t.Errorf("argv %v, want %v", got.Command.Argv, want)
	}
	if want := map[string]string{"KEEP": "1", "SCALE": "1.3"}; !reflect.DeepEqual(got.Command.Env, want) {
		t.Errorf("env %v, want %v", got.Command.Env, want)
	}
	if m.Command.Env["SCALE"] != "1" || len(m.Command.Argv) != 2 {
		t.Errorf("the workload itself changed: %+v", m.Command)
	}
	serving := &workload.Manifest{Cell: "s"}
	if arm.manifest(serving) != serving {
		t.Error("a serving workload is not the arm's to change")
	}
}

// TestABBadInput: usage errors exit 2 naming the flag or setting, before
// any server starts.
func TestABBadInput(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--a-url", "http://127.0.0.1:1", "--b-url", "http://127.0.0.1:2"}, "-w FILE|DIR is required"},
		{[]string{"-w", "testdata/gate/decode-a.yaml", "--a-url", "http://127.0.0.1:1", "--b-url", "http://127.0.0.1:2", "--blocks", "5"}, "flag --blocks: ab.blocks: must be an even number"},
		{[]string{"-w", "testdata/gate/decode-a.yaml", "--a-url", "127.0.0.1:1", "--b-url", "http://127.0.0.1:2"}, "flag --a-url: ab.a.url: 127.0.0.1:1: missing scheme"},
		{[]string{"-w", "testdata/gate/decode-a.yaml", "--a-args", "--x > log", "--server-cmd", "s"}, "flag --a-args"},
		{[]string{"-w", "testdata/gate/decode-a.yaml", "--b-url", "http://127.0.0.1:2"}, "arm a has no server"},
		{[]string{"-w", "testdata/gate/decode-a.yaml", "-w", commandWorkload, "--server-cmd", "s"}, "serving and kind: command workloads cannot share one experiment"},
		{[]string{"-w", "testdata/gate/decode-a.yaml", "--server-cmd", "s", "--blocks", "4", "--max-blocks", "2"}, "ab.max_blocks: must be 0 (no extra blocks) or between ab.blocks (4) and 1000"},
		{[]string{"-w", "testdata/gate/decode-a.yaml", "--server-cmd", "s", "--warmups", "-2"}, "--warmups -2"},
	} {
		args := append([]string{"-o", t.TempDir()}, tt.args...)
		code, _, errs := abMainArgs(context.Background(), args...)
		if code != ExitInvalid || !strings.Contains(errs, tt.want) {
			t.Errorf("%v: exit %v, stderr %q; want 2 with %q", tt.args, code, errs, tt.want)
		}
	}
}

// TestABResidentLooks: two servers already up alternate one trial at a
// time; a first look of two pairs cannot decide, so the order is extended
// (balanced, four blocks a look) up to --max-blocks while the cell stays
// undecided, the extra trials tagged with their look.
func TestABResidentLooks(t *testing.T) {
	t.Parallel()
	// B 20 % slower in decode, both with a noisy step (jitter CV 50 %),
	// one gated metric at a tolerance of 0.1 % and no between-session
	// term: on the first look's two pairs (one degree of freedom) a pass
	// would need the interval below +0.1 % and a regression a t of about
	// 95, so the cell needs blocks, on a quiet machine or a loaded one.
	var urls []string
	for i := range 2 {
		cfg, err := sim.Preset("fast")
		if err != nil {
			t.Fatal(err)
		}
		cfg.JitterCV, cfg.DecodeScale = 0.5, 1+0.2*float64(i)
		srv := sim.New(cfg)
		ts := httptest.NewServer(srv)
		t.Cleanup(func() { ts.Close(); srv.Close() })
		urls = append(urls, ts.URL)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "perfgate.yaml")
	if err := os.WriteFile(file, []byte("policy:\n  gated: [tpot_ms.p50]\n  tolerances: {tpot_ms.p50: 0.1%}\n  assumed_between: {\"*\": 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := abMainArgs(context.Background(), "-w", "testdata/gate/decode-a.yaml", "-o", filepath.Join(dir, "out"), "--config", file,
		"--a-url", urls[0], "--b-url", urls[1], "--blocks", "4", "--max-blocks", "12", "--budget", "1m", "--max-dispatch-lag-ms", "1000")
	dir = filepath.Join(dir, "out")
	if code != ExitPass && code != ExitRegression {
		t.Fatalf("exit %v\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	r, err := result.Read(filepath.Join(dir, "b", "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := ab.Check(r.AB.Order); err != nil || len(r.AB.Order) <= 4 {
		t.Fatalf("order %q after the looks: %v\n%s\n%s", r.AB.Order, err, out, errs)
	}
	if n := len(r.AB.Order); r.Looks == nil || r.Looks.Max != 3 || n != 4+4*(r.Looks.Index-1) || r.AB.Order != "ABBABAABABBA"[:n] {
		t.Errorf("order %q, looks %+v: want 4 blocks more per look, of at most 3\n%s\n%s", r.AB.Order, r.Looks, out, errs)
	}
	looks := map[int]int{}
	for _, tr := range r.Trials {
		looks[tr.Look]++
	}
	if looks[0] != 2 || looks[1] == 0 {
		t.Errorf("trials by look %v: want two in the first look's blocks and more after", looks)
	}
	for _, bl := range r.AB.Blocks {
		if bl.StartupS != 0 || bl.Trials != 1 {
			t.Errorf("block %+v: resident servers start nothing, one trial a block", bl)
		}
	}
	if !strings.Contains(errs, "ab: inconclusive: look 2/3") {
		t.Errorf("stderr does not say the look was extended:\n%s", errs)
	}
}

// TestABConfigFile: the arms and the design come from perfgate.yaml's ab
// section; a flag overrides the file.
func TestABConfigFile(t *testing.T) {
	t.Parallel()
	a, b := runSim(t), runSim(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "perfgate.yaml")
	yaml := "workloads: [" + filepath.Join(mustAbs(t, "testdata/gate"), "decode-a.yaml") + "]\n" +
		"ab:\n  a: {url: " + a.URL + "}\n  b: {url: " + b.URL + "}\n  blocks: 8\n  block_trials: 2\n  seed: 7\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := abMainArgs(context.Background(), "--config", file, "-o", filepath.Join(dir, "out"), "--blocks", "4", "--max-dispatch-lag-ms", "1000")
	if code == ExitInvalid || code == ExitRunFailed {
		t.Fatalf("exit %v\nstdout:\n%s\nstderr:\n%s", code, out, errs)
	}
	r, err := result.Read(filepath.Join(dir, "out", "a", "decode-a.json"))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := ab.Order(4, 7)
	if r.AB.Order != want || r.AB.Seed != 7 || len(r.Trials) != 4 || r.Server.URL != a.URL {
		t.Errorf("order %q seed %d, %d trials at %s; want %q from seed 7 (the flag's 4 blocks), 2 blocks of 2 at %s",
			r.AB.Order, r.AB.Seed, len(r.Trials), r.Server.URL, want, a.URL)
	}
}

func mustAbs(t *testing.T, p string) string {
	t.Helper()
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// TestABWorkloadFlags: -w and --workloads add up, and either replaces the
// file's workloads.
func TestABWorkloadFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "perfgate.yaml")
	if err := os.WriteFile(file, []byte("workloads: [nope.yaml]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Two serving cells and a command cell: the mix is refused, which
	// proves all three were read (and the file's nope.yaml was not).
	code, _, errs := abMainArgs(context.Background(), "--config", file, "-o", dir, "-w", "testdata/gate/decode-a.yaml",
		"--workloads", "testdata/gate/decode-b.yaml,"+commandWorkload, "--server-cmd", "s")
	if code != ExitInvalid || !strings.Contains(errs, "serving and kind: command workloads cannot share") || strings.Contains(errs, "nope.yaml") {
		t.Errorf("exit %v, stderr %q", code, errs)
	}
}
