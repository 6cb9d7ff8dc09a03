package workload

import (
	"strings"
	"testing"
	"time"
)

func TestCommandWorkload(t *testing.T) {
	ms, err := LoadFile("testdata/valid/command.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 1 {
		t.Fatalf("%d cells, want 1", len(ms))
	}
	m := ms[0]
	if !m.IsCommand() || m.Cell != "t-command" || m.GPUs != 2 || len(m.Requests) != 0 || m.Timeout != 30*time.Minute {
		t.Errorf("manifest: kind %q cell %q gpus %d requests %d timeout %v", m.Kind, m.Cell, m.GPUs, len(m.Requests), m.Timeout)
	}
	want := []string{"vllm", "bench", "latency", "--model", "Qwen/Qwen3-8B", "--batch-size", "8", "--output-json", "{out}"}
	if strings.Join(m.Command.Argv, " ") != strings.Join(want, " ") {
		t.Errorf("argv %q, want %q", m.Command.Argv, want)
	}
	if m.Command.Env["CUDA_VISIBLE_DEVICES"] != "0,1" || m.Trials != (TrialBudget{Min: 3, Max: 6}) || len(m.Gate) != 1 {
		t.Errorf("env %v trials %+v gate %+v", m.Command.Env, m.Trials, m.Gate)
	}
	if !strings.Contains(string(m.Spec), `"kind":"command"`) || !strings.Contains(string(m.Spec), `"argv":["vllm"`) {
		t.Errorf("spec %s", m.Spec)
	}
}

// TestCommandHash: the hash covers what runs (argv, env values) and not
// policy (timeout, trials, gate, gpus) or the order env is written in.
func TestCommandHash(t *testing.T) {
	const base = `name: h
kind: command
command:
  argv: [bench, --n, 8, "{out}"]
  env: {A: "1", B: "2"}
  timeout: 1m
trials: {min: 3}
gate: [{metric: offline_latency_ms.p50, tolerance: 5%}]
`
	hash := func(src string) string {
		t.Helper()
		f, err := Parse("h.yaml", []byte(src))
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		ms, _, err := f.Expand()
		if err != nil {
			t.Fatal(err)
		}
		return ms[0].Hash
	}
	h0 := hash(base)
	same := []string{
		strings.Replace(base, `{A: "1", B: "2"}`, `{B: "2", A: "1"}`, 1),
		strings.Replace(base, "timeout: 1m", "timeout: 2h", 1),
		strings.Replace(base, "trials: {min: 3}", "trials: {min: 5}\ngpus: 4", 1),
		strings.Replace(base, "tolerance: 5%", "tolerance: 9%", 1),
	}
	for _, s := range same {
		if hash(s) != h0 {
			t.Errorf("hash changed for a policy-only edit:\n%s", s)
		}
	}
	differ := []string{
		strings.Replace(base, "--n, 8", "--n, 16", 1),
		strings.Replace(base, `B: "2"`, `B: "3"`, 1),
		strings.Replace(base, `{A: "1", B: "2"}`, `{A: "1"}`, 1),
	}
	for _, s := range differ {
		if hash(s) == h0 {
			t.Errorf("hash unchanged although what runs changed:\n%s", s)
		}
	}
	if len(h0) != 64 {
		t.Errorf("hash %q", h0)
	}
}

// An explicit kind: serving is the default and changes nothing.
func TestServingKindExplicit(t *testing.T) {
	ms, err := LoadFile("testdata/valid/gate.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("x.yaml", []byte("kind: serving\nname: x\ndataset: {kind: random, input_tokens: 4, output_tokens: 2, seed: 1}\nload: {requests: 2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Kind != KindServing || ms[0].IsCommand() {
		t.Errorf("kind %q, gate.yaml command=%v", f.Kind, ms[0].IsCommand())
	}
}

func TestCommandPlan(t *testing.T) {
	ms, err := LoadFile("testdata/valid/command.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WritePlan(&b, ms); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"command (one run per trial", `"--output-json" "{out}"`, "CUDA_VISIBLE_DEVICES=0,1", "timeout 30m0s per trial"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("plan lacks %q:\n%s", want, b.String())
		}
	}
}
