package result

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
)

func specWorkload(t *testing.T, hash string, s Spec) Workload {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return Workload{Name: "w", Cell: "w", Hash: hash, Spec: b}
}

func nativeSpec() Spec {
	return Spec{Kind: KindServing, Name: "w", Cell: "w", API: "completions", Model: "m",
		Dataset: Dataset{Kind: "random", InputTokens: 1000, OutputTokens: 300, Seed: 0},
		Load:    Load{Requests: 200, Rate: 4, Burstiness: 1}, Sampling: Sampling{IgnoreEOS: true}, Warmups: 2}
}

func benchSpec(mod func(*Bench)) Spec {
	b := &Bench{NumPrompts: 200, RequestRate: 4, Burstiness: 1, MeanInputLen: 999, MeanOutputLen: 300, EndpointType: "openai"}
	if mod != nil {
		mod(b)
	}
	return Spec{Kind: KindBench, Bench: b}
}

func TestSameWorkload(t *testing.T) {
	seed7 := uint64(7)
	for _, tc := range []struct {
		name      string
		a, b      Spec
		same      bool
		why, note string
	}{
		{"native vs import of the same shape", nativeSpec(), benchSpec(nil), true, "", "not compared: dataset, seed"},
		{"import vs import, other tool names dataset", benchSpec(func(b *Bench) { b.DatasetName = "random" }), benchSpec(nil), true, "", "dataset"},
		{"rate differs", nativeSpec(), benchSpec(func(b *Bench) { b.RequestRate = 8 }), false, "rate 4 -> 8", ""},
		{"lengths and concurrency differ", nativeSpec(), benchSpec(func(b *Bench) { b.MeanInputLen = 4000; b.MaxConcurrency = 16 }), false, "input_len 1000 -> 4000, concurrency unlimited -> 16", ""},
		{"all at once", func() Spec { s := nativeSpec(); s.Load.Rate = math.Inf(1); return s }(), benchSpec(func(b *Bench) { b.RequestRate = math.Inf(1) }), true, "", ""},
		{"chat vs completions", nativeSpec(), benchSpec(func(b *Bench) { b.EndpointType = "openai-chat" }), false, "endpoint completions -> chat", ""},
		{"seed differs", nativeSpec(), benchSpec(func(b *Bench) { b.Seed = &seed7 }), false, "seed 0 -> 7", ""},
		{"import without lengths", nativeSpec(), benchSpec(func(b *Bench) { b.MeanInputLen = 0 }), false, "input_len recorded on one side only", ""},
		{"native vs native lists fields", nativeSpec(), func() Spec { s := nativeSpec(); s.Dataset.InputTokens = 512; s.Load.Concurrency = 8; return s }(), false,
			"dataset.input_tokens 1000 -> 512, load.concurrency 0 -> 8", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			same, why, note := SameWorkload(specWorkload(t, "a", tc.a), specWorkload(t, "b", tc.b))
			if same != tc.same || !strings.Contains(why, tc.why) || !strings.Contains(note, tc.note) {
				t.Errorf("same %v, why %q, note %q", same, why, note)
			}
		})
	}
}
