package health

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

// fakeRunner answers nvidia-smi and dmesg from fields the test changes
// between trials, and counts the calls.
type fakeRunner struct {
	mu       sync.Mutex
	noSMI    bool
	legacy   bool // reject clocks_event_reasons like a pre-535 driver
	gpus     string
	apps     string
	dmesg    string
	dmesgErr error
	smiErr   error // every nvidia-smi call fails with it
	calls    map[string]int
}

func (f *fakeRunner) run(_ context.Context, name string, args ...string) ([]byte, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.calls == nil {
		f.calls = map[string]int{}
	}
	key := name + " " + strings.Join(args, " ")
	f.calls[key]++
	switch {
	case name == "dmesg":
		return []byte(f.dmesg), f.dmesgErr
	case f.noSMI:
		return nil, fmt.Errorf("exec: %q: %w", name, ErrNotInstalled)
	case f.smiErr != nil:
		return nil, f.smiErr
	case strings.HasPrefix(args[0], "--query-gpu="):
		if f.legacy && strings.Contains(args[0], "clocks_event_reasons") {
			return nil, errors.New(`exit status 2 Field "clocks_event_reasons.active" is not a valid field to query.`)
		}
		return []byte(f.gpus), nil
	case strings.HasPrefix(args[0], "--query-compute-apps="):
		return []byte(f.apps), nil
	}
	return nil, errors.New("unexpected " + key)
}

func (f *fakeRunner) set(fn func(*fakeRunner)) {
	f.mu.Lock()
	fn(f)
	f.mu.Unlock()
}

// fakeProc serves /proc files; stat's ticks advance with every read so
// steal is 10 %: 100 of every 1000 ticks.
type fakeProc struct {
	mu    sync.Mutex
	reads int
	procs map[int]string
}

func (p *fakeProc) read(name string) ([]byte, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch name {
	case "/proc/loadavg":
		return []byte("1.50 1.00 0.50 2/300 1234\n"), nil
	case "/proc/meminfo":
		return []byte("MemTotal: 8388608 kB\nMemAvailable: 4194304 kB\n"), nil
	case "/proc/stat":
		p.reads++
		n := uint64(p.reads)
		return []byte(fmt.Sprintf("cpu %d 0 0 %d 0 0 0 %d 0 0\ncpu0 1\ncpu1 1\ncpu2 1\ncpu3 1\n", 400*n, 500*n, 100*n)), nil
	case "/proc/sys/kernel/dmesg_restrict":
		return []byte("1\n"), nil
	}
	var pid int
	if _, err := fmt.Sscanf(name, "/proc/%d/stat", &pid); err == nil {
		if s, ok := p.procs[pid]; ok {
			return []byte(s), nil
		}
	}
	return nil, os.ErrNotExist
}

func runTrial(t *testing.T, k *Hook, idx int, during func()) result.Trial {
	t.Helper()
	ctx := context.Background()
	if err := k.BeforeTrial(ctx, idx); err != nil {
		t.Fatal(err)
	}
	if during != nil {
		during()
	}
	tr := result.Trial{Index: idx, Valid: true}
	if err := k.AfterTrial(ctx, idx, &tr); err != nil {
		t.Fatal(err)
	}
	return tr
}

const cleanGPU = "0, GPU-a, 1980, 1980, 60, 500, 700, 95, 0x0000000000000000, 0\n"

// Without nvidia-smi the hook records host health only, asks for
// nvidia-smi once per run, never fails, and computes steal over the trial.
func TestHookWithoutGPU(t *testing.T) {
	run := &fakeRunner{noSMI: true}
	k := &Hook{Run: run.run, ReadFile: (&fakeProc{}).read, Interval: time.Hour}
	for i := 0; i < 2; i++ {
		tr := runTrial(t, k, i, nil)
		h := tr.Health
		if h == nil || h.GPU != "no nvidia-smi on PATH: host health only" || h.CPUs != 4 || len(h.Samples) != 2 || len(h.Samples[0].GPUs) != 0 {
			t.Fatalf("trial %d health %+v", i, h)
		}
		if h.Summary.StealPct != 10 || h.Summary.MaxLoad1 != 1.5 || h.Summary.MinMemAvailableMiB != 4096 || h.Summary.MemTotalMiB != 8192 {
			t.Errorf("trial %d summary %+v", i, h.Summary)
		}
		// 10 % steal is above 5 %: a warning, the trial stays valid.
		if !tr.Valid || len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0], "host CPU steal above 5 %") {
			t.Errorf("trial %d valid %v warnings %q", i, tr.Valid, tr.Warnings)
		}
	}
	if n := run.calls["nvidia-smi --query-gpu="+GPUQuery(false)+" --format=csv,noheader,nounits"]; n != 1 {
		t.Errorf("nvidia-smi asked %d times, want once per run", n)
	}
	if run.calls["dmesg "] != 0 {
		t.Error("dmesg read without GPUs")
	}
}

// A GPU runner: the legacy reasons column is found and kept, a process on
// the GPU at the run's start is assumed to be the server's, one that
// appears later and a real slowdown invalidate, and Xid lines logged
// during a trial are recorded.
func TestHookGPU(t *testing.T) {
	run := &fakeRunner{legacy: true, gpus: cleanGPU, apps: "500, vllm, 70000, GPU-a\n", dmesg: "[ 10.0] NVRM: Xid (PCI:0000:3b:00): 31, old\n"}
	k := &Hook{Run: run.run, ReadFile: (&fakeProc{}).read, Interval: time.Hour}
	tr := runTrial(t, k, 0, nil)
	h := tr.Health
	if !tr.Valid || h.GPU != "nvidia-smi" || len(h.Processes) != 1 || h.Processes[0].Owner != OwnerAssumed || len(h.Xid) != 0 || h.XidNote != "" {
		t.Fatalf("clean trial: valid %v (%s), health %+v", tr.Valid, tr.InvalidReason, h)
	}
	if run.calls["nvidia-smi --query-gpu="+GPUQuery(false)+" --format=csv,noheader,nounits"] != 1 {
		t.Errorf("the new reasons column was tried %d times, want once", run.calls["nvidia-smi --query-gpu="+GPUQuery(false)+" --format=csv,noheader,nounits"])
	}

	tr = runTrial(t, k, 1, func() {
		run.set(func(f *fakeRunner) {
			f.apps += "777, python3, 2048, GPU-a\n"
			f.gpus = "0, GPU-a, 990, 1980, 90, 500, 700, 95, 0x0000000000000008, 0\n"
			f.dmesg += "[ 20.5] NVRM: Xid (PCI:0000:3b:00): 79, GPU has fallen off the bus.\n"
		})
	})
	for _, want := range []string{"the GPU throttled during the trial: GPU 0 hw_slowdown in 1 of 2 samples", "another process used the GPU during the trial: pid 777 python3", "NVIDIA Xid error(s) during the trial, first: NVRM: Xid (PCI:0000:3b:00): 79"} {
		if tr.Valid || !strings.Contains(tr.InvalidReason, want) {
			t.Errorf("trial 1: valid %v, reason %q, want %q", tr.Valid, tr.InvalidReason, want)
		}
	}
	if tr.Health.Summary.MinSMClockPct != 50 {
		t.Errorf("min SM clock %v %%, want 50", tr.Health.Summary.MinSMClockPct)
	}
}

// The kernel log unreadable (dmesg_restrict) is a precise note, not a
// failure; a launched server's own process is "server".
func TestHookDmesgRestrictedAndServerGroup(t *testing.T) {
	run := &fakeRunner{gpus: cleanGPU, apps: "4100, vllm, 70000, GPU-a\n", dmesgErr: errors.New("dmesg: read kernel buffer failed: Operation not permitted")}
	proc := &fakeProc{procs: map[int]string{4100: "4100 (python3) S 4000 4000 4000"}}
	k := &Hook{Run: run.run, ReadFile: proc.read, Interval: time.Hour, ServerGroup: func(context.Context) int { return 4000 }}
	tr := runTrial(t, k, 0, nil)
	h := tr.Health
	if !tr.Valid || h.Processes[0].Owner != OwnerServer {
		t.Errorf("valid %v (%s), processes %+v", tr.Valid, tr.InvalidReason, h.Processes)
	}
	if want := "Xid errors not read: dmesg: read kernel buffer failed: Operation not permitted (kernel.dmesg_restrict = 1: only root or CAP_SYSLOG may read the kernel log)"; h.XidNote != want {
		t.Errorf("XidNote %q, want %q", h.XidNote, want)
	}
}

// Periodic samples stay within MaxSamples on a long trial and still span
// it: the first is the start, the last the end.
func TestHookBoundsSamples(t *testing.T) {
	run := &fakeRunner{gpus: cleanGPU}
	k := &Hook{Run: run.run, ReadFile: (&fakeProc{}).read, Interval: time.Millisecond, MaxSamples: 6}
	tr := runTrial(t, k, 0, func() { time.Sleep(150 * time.Millisecond) })
	s := tr.Health.Samples
	if len(s) < 3 || len(s) > 6 {
		t.Fatalf("%d samples, want 3..6", len(s))
	}
	if s[0].AtS > s[1].AtS || s[len(s)-1].AtS < 0.15 {
		t.Errorf("samples at %v..%v s, want from the start to the end", s[0].AtS, s[len(s)-1].AtS)
	}
	for i := 1; i < len(s); i++ {
		if s[i].AtS < s[i-1].AtS {
			t.Errorf("samples out of order at %d", i)
		}
	}
}

// A server on another machine: this machine's GPUs are not sampled at all.
func TestHookSkipGPU(t *testing.T) {
	run := &fakeRunner{gpus: cleanGPU, apps: "777, python3, 2048, GPU-a\n"}
	k := &Hook{Run: run.run, ReadFile: (&fakeProc{}).read, Interval: time.Hour, SkipGPU: "the server is not on this machine"}
	tr := runTrial(t, k, 0, nil)
	if !tr.Valid || tr.Health.GPU != "the server is not on this machine" || len(tr.Health.Processes) != 0 || len(run.calls) != 0 {
		t.Errorf("valid %v, health %+v, calls %v", tr.Valid, tr.Health, run.calls)
	}
}
