package ollamae2e

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestOllama drives the perfgate binary against a real ollama serving the
// tiny random-weight model: a baseline of a chat and a completions
// workload with a launched server (--server-cmd), the detailed records'
// timing identity, an A/A gate by --url that must pass, and gates of a
// larger model and of a server that batches nothing (OLLAMA_NUM_PARALLEL=1
// at concurrency 4) that must report a regression, and an A/A of
// perfgate ab that must pass. It needs the ollama binary in PERFGATE_OLLAMA (make e2e-ollama builds v0.17.4 and sets it).
func TestOllama(t *testing.T) {
	bin := os.Getenv("PERFGATE_OLLAMA")
	if bin == "" {
		t.Skip("PERFGATE_OLLAMA is not set: it names an ollama binary; `make e2e-ollama` builds ollama v0.17.4 from the Go module proxy and runs this test with it")
	}
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("PERFGATE_OLLAMA=%s: %v", bin, err)
	}
	start := time.Now()
	h := newHarness(t, bin)
	h.register()
	t.Logf("ollama ready, model registered in %.1f s", time.Since(start).Seconds())

	// 0. Token ids, the completions default, which ollama refuses: the run
	// fails (exit 3) quoting ollama's 400 and naming the remedy.
	h.write("ids.yaml", "name: ollama-ids\nmodel: "+model+"\ndataset: {kind: random, input_tokens: 16, output_tokens: 4}\n"+
		"load: {requests: 4, concurrency: 2}\nwarmups: 0\ntrials: {min: 1, max: 1}\ntimeout: 30s\n")
	code, out := h.perfgate("run", "-w", h.path("ids.yaml"), "--url", "http://"+h.addr, "-o", h.path("ids"))
	if code != 3 || !strings.Contains(out, "cannot unmarshal array") || !strings.Contains(out, "set dataset.prompt_format: text") {
		t.Errorf("token ids on ollama: exit %d, want 3 quoting ollama's 400 and naming prompt_format: text:\n%s", code, out)
	}

	// 1. Baseline, launched by perfgate run --server-cmd, with records.
	port := freePort(t)
	args := append([]string{"run", "-w", h.path("completions.yaml"), "-w", h.path("chat.yaml"),
		"-o", h.path("base"), "--save-detailed", "--trials", "10", "--url", "http://" + port},
		h.launch("models", port, 4)...)
	if code, out := h.perfgate(args...); code != 0 {
		t.Fatalf("run (baseline) exit %d:\n%s", code, out)
	}
	for _, cell := range []string{"ollama-completions", "ollama-chat"} {
		checkResult(t, h.path("base", cell+".json"))
		checkDetailed(t, h.path("base", cell+".requests.jsonl"))
	}
	// A shared CI runner is noisier than the store's assumed 5 %; the
	// baseline is kept with that warning recorded.
	if code, out := h.perfgate("baseline", "update", "--from", h.path("base"), "--profile", "ollama-cpu", "--baselines", h.path("store"), "--accept-noisy"); code != 0 {
		t.Fatalf("baseline update exit %d:\n%s", code, out)
	}
	t.Logf("baseline recorded at %.1f s", time.Since(start).Seconds())

	// 2. A/A: the same configuration, already running, judged by --url.
	code, out = h.perfgate(h.gateArgs("aa", "--url", "http://"+h.addr)...)
	t.Logf("A/A gate: exit %d, %s (%d CPUs)\n%s", code, verdictLine(out), runtime.NumCPU(), table(out))
	checkAA(t, "A/A gate", code, out)
	t.Logf("A/A judged at %.1f s", time.Since(start).Seconds())

	// 3. Real slowdowns, launched by perfgate gate (server.command in its
	// configuration file): a model of the same name twice as wide and 1.5x
	// as deep (everything slower); and the tiny model one request at a
	// time where four were batched (OLLAMA_NUM_PARALLEL=1): requests queue,
	// so TTFT regresses while each sequence decodes faster.
	for _, slow := range []struct {
		name, store string
		parallel    int
	}{
		{"large-model", "models-large", 4},
		{"num-parallel-1", "models", 1},
	} {
		port = freePort(t)
		code, out = h.perfgate(h.gateArgs(slow.name, "--url", "http://"+port, "--config", h.launchConfig(slow.name, slow.store, port, slow.parallel))...)
		t.Logf("%s gate: exit %d, %s\n%s", slow.name, code, verdictLine(out), table(out))
		if code != 1 || !strings.Contains(out, "REGRESSION") {
			t.Errorf("%s gate exit %d, want 1 with a REGRESSION:\n%s", slow.name, code, out)
		}
	}

	// 4. perfgate ab: both arms on this runner, interleaved, each block a
	// fresh ollama; the same server twice must reach a verdict. (Its sensitivity is
	// gate/cli's TestABFindsDecodeSlowdown on the simulator; against ollama with the
	// larger model as arm B it read REGRESSION, TPOT p50 +306 %, at about
	// a minute more, so CI runs only the A/A.)
	code, out = h.perfgate(h.abArgs("ab-aa", "models")...)
	t.Logf("ab A/A: exit %d, %s (%d CPUs)\n%s", code, verdictLine(out), runtime.NumCPU(), table(out))
	checkAA(t, "ab A/A", code, out)
	t.Logf("e2e done in %.1f s", time.Since(start).Seconds())
}

// abArgs are the arguments of a perfgate ab run of both workloads: one
// server command, arm A on the tiny model's store, arm B on bStore, eight
// blocks of one trial, writing to the output directory named dir.
func (h *harness) abArgs(dir, bStore string) []string {
	port := freePort(h.t)
	args := []string{"ab", "-w", h.path("completions.yaml"), "-w", h.path("chat.yaml"), "-o", h.path(dir),
		"--server-cmd", h.ollama + " serve", "--a-url", "http://" + port, "--b-url", "http://" + port,
		"--blocks", "8", "--block-trials", "1", "--comment=never",
		"--a-env", "OLLAMA_MODELS=" + h.path("models"), "--b-env", "OLLAMA_MODELS=" + h.path(bStore)}
	for _, e := range h.env("models", port, 4) {
		if !strings.HasPrefix(e, "OLLAMA_MODELS=") {
			args = append(args, "--server-env", e)
		}
	}
	return args
}

// checkAA fails the test when an A/A did not reach a verdict: exit 2
// (the comparison was invalid) or 3 (the run failed). Which verdict two
// sessions of an unchanged server get is a rate, and a shared runner's
// neighbours move it (issue 11 saw "TTFT p50 +338 %" for an unchanged
// server): the false-alarm rates are pinned by the seeded simulations of
// gate/verdict and gate/ab, and the real slowdowns above must still be
// found. The verdict is logged, with the runner health the trials record.
func checkAA(t *testing.T, what string, code int, out string) {
	t.Helper()
	if code == 2 || code == 3 {
		t.Errorf("%s exit %d, want a verdict (0, 1 or 4):\n%s", what, code, out)
	}
}

// gateArgs are the arguments of perfgate gate against the baseline store,
// writing to the output directory named dir.
func (h *harness) gateArgs(dir string, extra ...string) []string {
	return append([]string{"gate", "--workloads", h.path("completions.yaml"), "--workloads", h.path("chat.yaml"),
		"--baselines", h.path("store"), "--profile", "ollama-cpu", "-o", h.path(dir), "--comment=never"}, extra...)
}

// verdictLine returns the first line of out that states a verdict.
func verdictLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		for _, w := range []string{"PASS", "REGRESSION", "INCONCLUSIVE", "pass", "regress"} {
			if strings.Contains(l, w) {
				return strings.TrimSpace(l)
			}
		}
	}
	return "(no verdict line)"
}

// table returns the rows of the verdict table in out, for the log.
func table(out string) string {
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 2 && strings.HasPrefix(f[0], "ollama-") && strings.Contains(l, " %") {
			rows = append(rows, "  "+strings.TrimSpace(l))
		}
	}
	return strings.Join(rows, "\n")
}

// checkResult reads a result file: every trial valid but those a busy
// host saturated (at least half valid), the engine detected as ollama,
// and for the text prompts a calibration by usage (ollama has no
// /tokenize).
func checkResult(t *testing.T, path string) {
	t.Helper()
	var r struct {
		Workload struct {
			Calibration *struct {
				Method        string  `json:"method"`
				TokensPerWord float64 `json:"tokens_per_word"`
				Overhead      float64 `json:"overhead_tokens"`
			} `json:"prompt_calibration"`
		} `json:"workload"`
		Server map[string]any `json:"server"`
		Trials []struct {
			Valid         bool   `json:"valid"`
			InvalidReason string `json:"invalid_reason"`
		} `json:"trials"`
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	valid := 0
	for i, tr := range r.Trials {
		switch {
		case tr.Valid:
			valid++
		case strings.Contains(tr.InvalidReason, "client saturated"):
			// perfgate waited for a CPU to send: the host's, recorded as such.
			t.Logf("%s: trial %d invalid: %s", filepath.Base(path), i, tr.InvalidReason)
		default:
			t.Errorf("%s: trial %d invalid: %s", path, i, tr.InvalidReason)
		}
	}
	if valid < len(r.Trials)/2 {
		t.Errorf("%s: %d of %d trials valid", path, valid, len(r.Trials))
	}
	c := r.Workload.Calibration
	if c == nil || c.Method != "usage" || !(c.TokensPerWord > 1) {
		t.Errorf("%s: prompt calibration %+v, want one by usage with more than a token a word (the tiny vocabulary spells most words in letters)", path, c)
	} else {
		t.Logf("%s: %.3f tokens a word, %.1f per request (%s)", filepath.Base(path), c.TokensPerWord, c.Overhead, c.Method)
	}
}

// checkDetailed checks the timing identity of every successful request:
// TTFT plus the gaps between its chunks is the E2E latency the client
// measured, and that lies within the exchange (sent to done). The gaps are
// float32, so the sum may differ in the last microseconds.
func checkDetailed(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	n, worst := 0, 0.0
	for sc.Scan() {
		var d struct {
			Trial, Index int
			Success      bool      `json:"success"`
			SentMs       float64   `json:"sent_ms"`
			DoneMs       float64   `json:"done_ms"`
			TTFTMs       float64   `json:"ttft_ms"`
			E2ELMs       float64   `json:"e2el_ms"`
			OutputTokens int       `json:"output_tokens"`
			MaxTokens    int       `json:"max_tokens"`
			Chunks       int       `json:"chunks"`
			ITLMs        []float64 `json:"itl_ms"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !d.Success {
			t.Errorf("%s: trial %d request %d failed", path, d.Trial, d.Index)
			continue
		}
		n++
		sum := d.TTFTMs
		for _, g := range d.ITLMs {
			sum += g
		}
		diff := math.Abs(sum - d.E2ELMs)
		worst = max(worst, diff)
		if diff > 0.01+1e-5*d.E2ELMs {
			t.Errorf("%s: trial %d request %d: TTFT %.3f + %d gaps = %.3f ms, E2E latency %.3f ms", path, d.Trial, d.Index, d.TTFTMs, len(d.ITLMs), sum, d.E2ELMs)
		}
		if len(d.ITLMs) != d.Chunks-1 {
			t.Errorf("%s: request %d: %d gaps for %d chunks", path, d.Index, len(d.ITLMs), d.Chunks)
		}
		if d.E2ELMs > d.DoneMs-d.SentMs+0.001 {
			t.Errorf("%s: request %d: E2E latency %.3f ms exceeds the exchange (%.3f ms)", path, d.Index, d.E2ELMs, d.DoneMs-d.SentMs)
		}
		if d.OutputTokens != d.MaxTokens {
			t.Errorf("%s: request %d: %d tokens for max_tokens %d (the model never ends a sequence)", path, d.Index, d.OutputTokens, d.MaxTokens)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n == 0 {
		t.Fatalf("%s: no successful requests", path)
	}
	t.Logf("%s: %d requests, TTFT + gaps within %.4f ms of E2E latency", filepath.Base(path), n, worst)
}
