package verdict

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// TestComparisonJSONRoundTrip: the JSON of a Comparison is the contract of
// reports; it must encode (no NaN or Inf anywhere) and decode to the same
// value.
func TestComparisonJSONRoundTrip(t *testing.T) {
	b, c := arms(4, 3, 5, 0.02, "tpot_ms.p50", 1.2)
	c[1].Trials = c[1].Trials[:1] // a low-confidence workload
	c[2].Trials = append(c[2].Trials, result.Trial{Index: 9, InvalidReason: "client saturated"})
	cmp, err := Compare(b, c, oneSession(), Look{Index: 2, Max: 3})
	if err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(cmp)
	if err != nil {
		t.Fatal(err)
	}
	var back Comparison
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(*cmp, back) {
		t.Errorf("round trip changed the comparison")
	}
	for _, key := range []string{`"verdict":"regression"`, `"headline":{`, `"look":{"index":2,"max":3}`, `"p_adjusted":`, `"low_confidence":true`, `"excluded":[{"arm":"candidate","trial":9,"reason":"client saturated"}]`,
		`"pass_tolerance":`, `"pass_chance":`, `"between_source":"assumed"`, `"schema":"perfgate.comparison/v2"`} {
		if !strings.Contains(string(data), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
}

func FuzzResolve(f *testing.F) {
	f.Add([]byte(`{"gate":[{"metric":"tpot_ms.p50","tolerance":0.05},{"metric":"ttft_ms.p99","gated":false}]}`))
	f.Add([]byte(`{"gate":[{"metric":"completed"}]}`))
	f.Add([]byte(`{"gate":[{"metric":"itl_ms.p99.9","tolerance":-1}]}`))
	f.Add([]byte(`{"name":"x"}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, spec []byte) {
		p := oneSession()
		rules, err := p.Resolve(spec)
		if err != nil {
			return
		}
		for id, r := range rules {
			m, ok := metrics.Lookup(id)
			if !ok || r.Metric != id || r.Tolerance <= 0 {
				t.Errorf("rule %q: %+v (known %v)", id, r, ok)
			}
			if r.Gated && m.Direction == metrics.Informational {
				t.Errorf("informational %s gated", id)
			}
		}
	})
}

// BenchmarkCompare: one gate comparison of 10 workloads x the default
// gated metrics x 5 trials per arm.
func BenchmarkCompare(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	var base, cand []*result.Result
	for w := 0; w < 10; w++ {
		cell := fmt.Sprintf("w%02d", w)
		base = append(base, simArm(rng, cell, 5, 0.02, nil))
		cand = append(cand, simArm(rng, cell, 5, 0.02, nil))
	}
	p := oneSession()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compare(base, cand, p, Look{}); err != nil {
			b.Fatal(err)
		}
	}
}
