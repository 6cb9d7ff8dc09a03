package result

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// specGolden are specs as perfgate wrote them before result.Spec owned the
// encoding (serving cells, a command cell, imported cells): reading and
// writing one must give back the same bytes, since an imported cell's
// workload hash is the hash of its spec and baselines store the others.
var specGolden = []string{
	`{"name":"t-gate","cell":"t-gate","description":"2024","api":"chat","model":"Qwen/Qwen2.5-7B-Instruct","gpus":2,"dataset":{"kind":"prefix-repetition","input_tokens":20,"output_tokens":10,"range_ratio":0.5,"prefix_tokens":40,"num_prefixes":3,"seed":7},"load":{"requests":12,"concurrency":4,"rate":"inf","burstiness":"inf"},"sampling":{"temperature":0.5,"top_p":0.9,"seed":3,"min_tokens":2},"warmups":12,"trials":{"min":3,"max":10},"timeout_s":90,"slo":{"ttft_ms":500,"tpot_ms":40,"e2el_ms":2000},"gate":[{"metric":"tpot_ms.p50","tolerance":0.03},{"metric":"success_rate","tolerance":0.005},{"metric":"goodput_ratio","tolerance":0.025,"gated":true},{"metric":"ttft_ms.p99.9","gated":false}]}`,
	`{"name":"t-sharegpt","cell":"t-sharegpt","api":"completions","model":"","dataset":{"kind":"sharegpt","range_ratio":0,"seed":42,"path":"../data/sharegpt-small.json","sha256":"b4dda03f12ece144c607ff5ad31af4bb124bea2301843a85af585d30966d662f"},"load":{"requests":3,"concurrency":0,"rate":4,"burstiness":1},"sampling":{"temperature":0,"ignore_eos":true},"warmups":2,"trials":{"min":5,"max":10},"timeout_s":600,"slo":{}}`,
	`{"name":"a100-128-4","cell":"a100-128-4","api":"completions","model":"m","dataset":{"kind":"random","input_tokens":128,"output_tokens":4,"range_ratio":0,"seed":42,"token_ids":{"min":1000,"max":29999}},"load":{"requests":1000,"concurrency":0,"rate":1e+06,"burstiness":0.25},"sampling":{},"warmups":20,"trials":{"min":5,"max":10},"timeout_s":600,"slo":{}}`,
	`{"name":"t-command","cell":"t-command","description":"batch latency of the engine, no HTTP","kind":"command","gpus":2,"command":{"argv":["vllm","bench","latency","--model","Qwen/Qwen3-8B","--batch-size","8","--output-json","{out}"],"env":{"CUDA_VISIBLE_DEVICES":"0,1","VLLM_ATTENTION_BACKEND":"FLASHINFER"}},"timeout_s":1800,"trials":{"min":3,"max":6},"gate":[{"metric":"offline_latency_ms.p50","tolerance":0.05}]}`,
	`{"kind":"vllm-bench","num_prompts":64,"request_rate":"inf","burstiness":1,"max_concurrency":16,"mean_input_len":1000,"mean_output_len":300,"endpoint_type":"openai"}`,
	`{"kind":"vllm-bench","num_prompts":100,"request_rate":"inf","burstiness":1,"max_concurrency":0,"mean_input_len":214,"mean_output_len":200}`,
	`{"kind":"vllm-bench","num_prompts":10,"request_rate":"2.5","burstiness":0.5,"max_concurrency":0,"mean_input_len":100,"mean_output_len":50,"endpoint_type":"openai-chat"}`,
	`{"kind":"vllm-bench","num_prompts":10,"request_rate":"2.5","burstiness":"inf","max_concurrency":4,"mean_input_len":100,"mean_output_len":50,"ramp_up":"linear 1-\u003e10"}`,
	// Serving cells with the request options added later (sampling
	// extensions, ramp-up, extra_body, headers, metric_percentiles) and a
	// trace dataset, as the workload expander writes them.
	`{"name":"t-options","cell":"t-options","api":"chat","model":"","dataset":{"kind":"random","input_tokens":64,"output_tokens":16,"range_ratio":0,"seed":3},"load":{"requests":20,"concurrency":0,"rate":"inf","burstiness":"inf","ramp_up":{"strategy":"linear","start_rps":1,"end_rps":10}},"sampling":{"temperature":0,"ignore_eos":true,"top_k":20,"min_p":0.05,"frequency_penalty":0.5,"presence_penalty":-0.5,"repetition_penalty":1.05},"warmups":20,"trials":{"min":5,"max":10},"timeout_s":600,"slo":{},"gate":[{"metric":"tpot_ms.p75","tolerance":0.05}],"extra_body":{"chat_template_kwargs":{"enable_thinking":false},"priority":1},"headers":[{"name":"X-Route","value":"canary"},{"name":"X-Tenant-Key","env":"PERFGATE_TENANT_KEY"}],"metric_percentiles":[25,75,99]}`,
	`{"name":"t-azure","cell":"t-azure","api":"completions","model":"","dataset":{"kind":"trace","range_ratio":0,"seed":0,"path":"../data/azure.csv","sha256":"3d90fc123a52c0e6c0a2f5548294011a5a200d29674f4dbb76b627caf242f739","format":"csv","time_scale":1,"hash_block_tokens":16,"fields":{"input_length":"ContextTokens","output_length":"GeneratedTokens","timestamp":"TIMESTAMP"}},"load":{"requests":10,"concurrency":0,"rate":"inf","burstiness":1},"sampling":{"temperature":0,"ignore_eos":true},"warmups":0,"trials":{"min":5,"max":10},"timeout_s":600,"slo":{}}`,
}

func TestSpecRoundTrip(t *testing.T) {
	for _, golden := range specGolden {
		var s Spec
		if err := json.Unmarshal([]byte(golden), &s); err != nil {
			t.Fatalf("%s: %v", golden, err)
		}
		got, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("%s: %v", golden, err)
		}
		if string(got) != golden {
			t.Errorf("spec changed in a round trip:\n got %s\nwant %s", got, golden)
		}
		// Inside a result file the spec is re-indented; what is read back
		// must still decode to the same spec.
		r := sample()
		r.Workload.Spec = []byte(golden)
		path := filepath.Join(t.TempDir(), "r.json")
		if err := Write(path, r); err != nil {
			t.Fatal(err)
		}
		back, err := Read(path)
		if err != nil {
			t.Fatal(err)
		}
		s2, err := back.Workload.ParseSpec()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(s, s2) {
			t.Errorf("spec read back from a result file differs:\n got %+v\nwant %+v", s2, s)
		}
	}
}

// TestSpecTyped pins what the readers see of each layout.
func TestSpecTyped(t *testing.T) {
	parse := func(raw string) Spec {
		t.Helper()
		s, err := Workload{Spec: []byte(raw)}.ParseSpec()
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return s
	}
	s := parse(specGolden[0])
	if s.Kind != KindServing || s.API != "chat" || s.Load.Concurrency != 4 || !math.IsInf(s.Load.Rate, 1) || !math.IsInf(s.Load.Burstiness, 1) ||
		len(s.Gate) != 4 || s.Gate[3].Gated == nil || *s.Gate[3].Gated || s.SLO.TPOTms != 40 || s.TimeoutS != 90 {
		t.Errorf("serving spec: %+v", s)
	}
	if l, ok := s.Shape(); !ok || l.Requests != 12 {
		t.Errorf("serving shape: %+v %v", l, ok)
	}
	c := parse(specGolden[3])
	if c.Kind != KindCommand || c.Command == nil || c.Command.Argv[0] != "vllm" || c.Gate[0].Metric != "offline_latency_ms.p50" {
		t.Errorf("command spec: %+v", c)
	}
	if _, ok := c.Shape(); ok {
		t.Error("a command cell has a load shape")
	}
	b := parse(specGolden[6])
	if b.Kind != KindBench || b.Bench == nil || b.Bench.RequestRate != 2.5 || b.Bench.Burstiness != 0.5 || b.Bench.EndpointType != "openai-chat" {
		t.Errorf("bench spec: %+v", b)
	}
	if l, ok := b.Shape(); !ok || l.Requests != 10 || l.Rate != 2.5 || l.Concurrency != 0 {
		t.Errorf("bench shape: %+v %v", l, ok)
	}
	// Partial specs (hand-written results, tests) read with the gaps
	// left zero; a bench spec without rate or burstiness has vLLM's
	// defaults.
	if p := parse(`{"gate":[{"metric":"x"}]}`); p.Kind != KindServing || len(p.Gate) != 1 {
		t.Errorf("gate-only spec: %+v", p)
	}
	if _, ok := parse(`{"gate":[]}`).Shape(); ok {
		t.Error("a spec without load has a shape")
	}
	if p := parse(`{"kind":"vllm-bench"}`); !math.IsInf(p.Bench.RequestRate, 1) || p.Bench.Burstiness != 1 {
		t.Errorf("bench defaults: %+v", p.Bench)
	}
	if s, err := (Workload{}).ParseSpec(); err != nil || s.Kind != KindServing {
		t.Errorf("empty spec: %+v %v", s, err)
	}
}

func TestSpecErrors(t *testing.T) {
	for raw, want := range map[string]string{
		`{"kind":"batch"}`:                          `unknown kind "batch"`,
		`{"gate":"tpot_ms.p50"}`:                    "cannot unmarshal",
		`{"load":{"rate":"fast"}}`:                  `"fast" is not a number`,
		`{"kind":"vllm-bench","burstiness":"-inf"}`: `"-inf" is not a number`,
		`[1]`: "cannot unmarshal",
		`{"kind":"vllm-bench","request_rate":"nan"}`: `"nan" is not a number`,
	} {
		_, err := Workload{Spec: []byte(raw)}.ParseSpec()
		if err == nil || !strings.Contains(err.Error(), want) || !strings.HasPrefix(err.Error(), "workload spec: ") {
			t.Errorf("%s: error %v, want one containing %q", raw, err, want)
		}
	}
	for _, s := range []Spec{
		{Kind: "batch"},
		{Kind: KindBench, Bench: &Bench{RequestRate: math.NaN(), Burstiness: 1}},
		{Kind: KindBench, Bench: &Bench{RequestRate: 1, Burstiness: 0}},
		{Kind: KindServing, Load: Load{Rate: math.NaN()}},
	} {
		if b, err := json.Marshal(s); err == nil {
			t.Errorf("%+v encoded as %s", s, b)
		}
	}
}

// FuzzSpec decodes arbitrary specs as read back from result files: no
// panic, and a spec that decodes and encodes decodes again to itself.
func FuzzSpec(f *testing.F) {
	for _, g := range specGolden {
		f.Add([]byte(g))
	}
	f.Add([]byte(`{"load":{"rate":"Infinity","burstiness":"1e309"}}`))
	f.Add([]byte(`{"kind":"command","command":null,"gate":[{"metric":"","gated":null}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Workload{Spec: data}.ParseSpec()
		if err != nil {
			return
		}
		enc, err := json.Marshal(s)
		if err != nil {
			return // e.g. a bench spec with a zero rate: readable, not writable
		}
		again, err := Workload{Spec: enc}.ParseSpec()
		if err != nil {
			t.Fatalf("re-encoded spec %s does not decode: %v", enc, err)
		}
		enc2, err := json.Marshal(again)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable:\n%s\n%s (%v)", enc, enc2, err)
		}
	})
}
