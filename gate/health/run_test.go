package health

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/redact"
)

// errHang is what fingerprint.Exec returns for a tool that did not answer
// within its bound.
var errHang = fmt.Errorf("nvidia-smi: no answer within 15s: %w", context.DeadlineExceeded)

// smiCalls counts the nvidia-smi calls of run.
func smiCalls(run *fakeRunner) int {
	run.mu.Lock()
	defer run.mu.Unlock()
	n := 0
	for k, c := range run.calls {
		if strings.HasPrefix(k, "nvidia-smi ") {
			n += c
		}
	}
	return n
}

// TestHookHungToolAskedOnce is issue 20 item 6: a hanging nvidia-smi was
// asked again at every sample (and once more with the legacy column), so
// two trials took 480 s. It is asked once per run, then the trials say
// it hung.
func TestHookHungToolAskedOnce(t *testing.T) {
	// Hung from the start: host health only, and the record says why.
	run := &fakeRunner{smiErr: errHang}
	k := &Hook{Run: run.run, ReadFile: (&fakeProc{}).read, Interval: time.Millisecond}
	for i := 0; i < 2; i++ {
		tr := runTrial(t, k, i, func() { time.Sleep(20 * time.Millisecond) })
		if g := tr.Health.GPU; !strings.Contains(g, "nvidia-smi did not answer in time") || !strings.Contains(g, "not asked again in this run") {
			t.Errorf("trial %d: GPU %q", i, g)
		}
	}
	if n := smiCalls(run); n != 1 {
		t.Errorf("a hung nvidia-smi was asked %d times, want once", n)
	}

	// Hung in the middle of a run: asked once more, then each trial notes it.
	run = &fakeRunner{gpus: cleanGPU}
	k = &Hook{Run: run.run, ReadFile: (&fakeProc{}).read, Interval: time.Millisecond}
	runTrial(t, k, 0, nil)
	before := smiCalls(run)
	run.set(func(f *fakeRunner) { f.smiErr = errHang })
	for i := 1; i < 3; i++ {
		tr := runTrial(t, k, i, func() { time.Sleep(20 * time.Millisecond) })
		if !strings.Contains(strings.Join(tr.Health.Notes, "\n"), "nvidia-smi did not answer in time") {
			t.Errorf("trial %d: notes %q", i, tr.Health.Notes)
		}
	}
	if n := smiCalls(run) - before; n != 1 {
		t.Errorf("nvidia-smi asked %d times after it hung, want once", n)
	}
}

// TestHookCancelledStartsNoTool: an interrupted run (ctx ended) starts no
// tool for its last sample.
func TestHookCancelledStartsNoTool(t *testing.T) {
	run := &fakeRunner{gpus: cleanGPU}
	k := &Hook{Run: run.run, ReadFile: (&fakeProc{}).read, Interval: time.Hour}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := k.run(ctx, "nvidia-smi"); !errors.Is(err, context.Canceled) || smiCalls(run) != 0 {
		t.Errorf("err %v, %d calls", err, smiCalls(run))
	}
}

// TestHookScrubsToolText is issue 20 item 10: nvidia-smi's error text and
// kernel Xid lines reached the results and comment.md unscrubbed. Known
// values and credential shapes are hidden before anything is cut.
func TestHookScrubsToolText(t *testing.T) {
	const key = "pg-api-key-0123456789"
	const ghp = "ghp_0123456789abcdefghijABCDEFGHIJ"
	long := strings.Repeat("x", 100) // puts the key across the 120-byte clip
	run := &fakeRunner{
		smiErr: errors.New("exit status 9: Failed to initialize NVML: " + long + key + " " + ghp),
		dmesg:  "[ 1.0] NVRM: Xid (PCI:0000:3b:00): 31, pid=42, name=vllm --api-key " + key + " " + ghp + "\n",
	}
	k := &Hook{Run: run.run, ReadFile: (&fakeProc{}).read, Interval: time.Hour, Scrub: redact.NewScrubber(key)}
	tr := runTrial(t, k, 0, nil)
	// Then nvidia-smi answers and a new Xid line quotes the key.
	run.set(func(f *fakeRunner) {
		f.smiErr, f.gpus, f.apps = nil, cleanGPU, "77, python3 "+key+", 100, GPU-a\n"
	})
	k2 := &Hook{Run: run.run, ReadFile: (&fakeProc{}).read, Interval: time.Hour, Scrub: redact.NewScrubber(key)}
	tr2 := runTrial(t, k2, 0, func() {
		run.set(func(f *fakeRunner) {
			f.dmesg += "[ 9.0] NVRM: Xid (PCI:0000:3b:00): 79, " + long + key + " " + ghp + "\n"
		})
	})
	for i, trial := range [][]byte{mustJSON(t, tr), mustJSON(t, tr2)} {
		for _, secret := range []string{key, key[:12], ghp, ghp[:12]} {
			if strings.Contains(string(trial), secret) {
				t.Errorf("trial %d holds %q: %s", i, secret, trial)
			}
		}
	}
	if !strings.Contains(string(mustJSON(t, tr2)), redact.Placeholder) {
		t.Errorf("nothing was hidden in %s", mustJSON(t, tr2))
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
