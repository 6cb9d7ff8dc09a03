package baseline

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// A v1 line, as perfgate wrote them before history lines had a schema,
// must stay readable: the history of a profile is years of commits.
const v1Line = `{"promoted_at":"2026-11-02T09:00:00Z","git_sha":"abc123","git_ref":"refs/heads/main","server_version":"0.11.0","workload_hash":"h-chat","started_at":"2026-11-02T08:00:00Z","trials":[{"tpot_ms.p50":10,"success_rate":1},{"tpot_ms.p50":12,"success_rate":0.98}]}`

func TestParseHistoryReadsV1Lines(t *testing.T) {
	h, err := ParseHistory("chat.jsonl", []byte(v1Line+"\n\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 1 || h[0].GitSHA != "abc123" || len(h[0].Trials) != 2 {
		t.Fatalf("parsed %+v", h)
	}
	s := h[0].Summary["tpot_ms.p50"]
	// Log scale for a relative metric: mean of ln 10 and ln 12.
	if s.N != 2 || math.Abs(s.Mean-(math.Log(10)+math.Log(12))/2) > 1e-12 || math.Abs(s.SD-math.Abs(math.Log(12)-math.Log(10))/math.Sqrt2) > 1e-12 {
		t.Errorf("tpot summary %+v", s)
	}
	// Raw scale for a ratio metric.
	if r := h[0].Summary["success_rate"]; math.Abs(r.Mean-0.99) > 1e-12 {
		t.Errorf("success_rate summary %+v", r)
	}
}

func TestHistoryLineRoundTrip(t *testing.T) {
	b := Promote(run("chat@c16", 4, 1), prov())
	b.Provenance.RulesHash = "sha256:x"
	b.Provenance.Warnings = []string{"noisy"}
	line := historyLine(b)
	if line.Schema != HistorySchema || line.Fingerprint["gpu.name"] != "sim" || line.Summary["tpot_ms.p50"].N != 3 {
		t.Fatalf("line %+v", line)
	}
	data, err := MarshalHistoryLine(line)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(data), "\n") != 1 {
		t.Fatalf("not one line: %q", data)
	}
	back, err := ParseHistory("x", data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back[0], line) {
		t.Errorf("round trip:\n got %+v\nwant %+v", back[0], line)
	}
}

func TestParseHistoryErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"torn", v1Line + "\n{\"promoted_at\":", "x.jsonl:2:"},
		{"future schema", `{"schema":"perfgate.history/v9","workload_hash":"h"}`, "unsupported history schema"},
		{"no hash", `{"trials":[]}`, "workload_hash is empty"},
		{"negative", `{"workload_hash":"h","trials":[{"tpot_ms.p50":-1}]}`, "non-negative"},
		{"huge", `{"workload_hash":"h","trials":[{"tpot_ms.p50":1e300}]}`, "at most 1e+15"},
	} {
		_, err := ParseHistory("x.jsonl", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestUpdateStoresRulesAndWarnings(t *testing.T) {
	s := Store{Root: t.TempDir()}
	rules := []result.Rule{{Metric: "tpot_ms.p50", Gated: true, Tolerance: 0.03}, {Metric: "e2el_ms.p50", Gated: true, Tolerance: 0.03}}
	runs := []Run{{Source: "a.json", Result: run("chat", 5, 0), Rules: rules, Warnings: []string{"kept with --accept-noisy"}}}
	if _, err := s.Update("p", runs, prov(), DefaultRequirements()); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load("p")
	if err != nil {
		t.Fatal(err)
	}
	pv := got[0].Provenance
	if len(pv.Rules) != 2 || pv.Rules[0].Metric != "e2el_ms.p50" || pv.RulesHash != RulesHash(rules) || pv.RulesHash == "" || len(pv.Warnings) != 1 {
		t.Errorf("provenance %+v", pv)
	}
	h, _ := s.ReadHistory("p", "chat")
	if h[0].RulesHash != pv.RulesHash || h[0].Warnings[0] != "kept with --accept-noisy" {
		t.Errorf("history line %+v", h[0])
	}
	if RulesHash(rules) != RulesHash([]result.Rule{rules[1], rules[0]}) {
		t.Error("rules hash depends on order")
	}
}

func FuzzHistoryRoundTrip(f *testing.F) {
	f.Add([]byte(v1Line))
	f.Add([]byte(`{"schema":"perfgate.history/v2","workload_hash":"h","trials":[{"a":1}],"summary":{"a":{"n":1,"mean":0,"sd":0}}}`))
	f.Add([]byte("\n\n{}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		h, err := ParseHistory("fuzz", data)
		if err != nil {
			return
		}
		for _, line := range h {
			out, err := MarshalHistoryLine(line)
			if err != nil {
				t.Fatalf("marshal parsed line: %v", err)
			}
			back, err := ParseHistory("again", out)
			if err != nil || len(back) != 1 {
				t.Fatalf("re-parse %q: %v", out, err)
			}
		}
	})
}
