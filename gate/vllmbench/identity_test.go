package vllmbench

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/result"
)

// TestIdentityHashPinned pins the workload hashes of the testdata files as
// perfgate computed them before result.Spec took over the encoding:
// baselines imported by earlier versions must keep comparing.
func TestIdentityHashPinned(t *testing.T) {
	for name, want := range map[string]string{
		"new.json":     "49e104011fb37ea7e36716b8870433db01f5f0eda1f7e173f0b923e88bab5338",
		"old.json":     "83cfb02c4899d4eafd22c8088a1f26437c9995cabf510ae5015e2c59d2c1202f",
		"partial.json": "8a39949ccaff5203f7adbf7055dab230ed489e6e808cabcea7677263408840e4",
	} {
		r, err := Import([]*Bench{mustParse(t, name)}, Options{Cell: "rt"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Workload.Hash != want {
			t.Errorf("%s: hash %s, want %s (spec %s)", name, r.Workload.Hash, want, r.Workload.Spec)
		}
	}
}

// infinite returns new.json with burstiness Infinity, as vLLM's Python
// writes a constant-spacing benchmark, and with max_concurrency set to c.
func infinite(t *testing.T, c string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "new.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := bytes.Replace(data, []byte(`"burstiness": 1.0`), []byte(`"burstiness": Infinity`), 1)
	out = bytes.Replace(out, []byte(`"max_concurrency": 16`), []byte(`"max_concurrency": `+c), 1)
	if bytes.Equal(out, data) || !bytes.Contains(out, []byte("Infinity")) {
		t.Fatal("new.json changed: the test no longer sets burstiness or max_concurrency")
	}
	return out
}

// TestInfiniteBurstiness is defect 13: a file with "burstiness": Infinity
// hashed an empty identity (JSON cannot encode +Inf and the error was
// dropped), so unrelated benchmarks compared as one workload; and export
// wrote the setting back as 1 (Poisson). Both now round-trip.
func TestInfiniteBurstiness(t *testing.T) {
	empty := sha256.Sum256(nil)
	hashes := map[string]string{}
	for _, c := range []string{"16", "64"} {
		b, err := Parse("inf-c"+c+".json", infinite(t, c))
		if err != nil {
			t.Fatal(err)
		}
		if !math.IsInf(b.Burstiness, 1) {
			t.Fatalf("burstiness parsed as %v", b.Burstiness)
		}
		r, err := Import([]*Bench{b}, Options{Cell: "inf"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Workload.Hash == hex.EncodeToString(empty[:]) || len(r.Workload.Spec) == 0 {
			t.Fatalf("concurrency %s: the identity is empty (spec %q)", c, r.Workload.Spec)
		}
		if !strings.Contains(string(r.Workload.Spec), `"burstiness":"inf"`) {
			t.Errorf("spec %s does not record the infinite burstiness", r.Workload.Spec)
		}
		hashes[c] = r.Workload.Hash

		files, _, err := Export(r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(files[0].Data, []byte(`"burstiness": Infinity`)) {
			t.Errorf("export lost the infinite burstiness:\n%s", files[0].Data)
		}
		again, err := Parse("again.json", files[0].Data)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Import([]*Bench{again}, Options{Cell: "inf"})
		if err != nil {
			t.Fatal(err)
		}
		if back.Workload.Hash != r.Workload.Hash {
			t.Errorf("import -> export -> import changed the identity: %s vs %s", back.Workload.Spec, r.Workload.Spec)
		}
	}
	if hashes["16"] == hashes["64"] {
		t.Error("two benchmarks with different concurrency and infinite burstiness share a workload hash")
	}
}

// TestExportRunBurstiness: a perfgate run of a workload with `burstiness:
// inf` exports as vLLM writes that setting, not as Poisson.
func TestExportRunBurstiness(t *testing.T) {
	for _, c := range []struct {
		spec string
		want string
	}{
		{`{"name":"w","api":"completions","load":{"requests":4,"concurrency":2,"rate":2.5,"burstiness":"inf"}}`, `"burstiness": Infinity`},
		{`{"name":"w","api":"completions","load":{"requests":4,"concurrency":2,"rate":2.5,"burstiness":0.5}}`, `"burstiness": 0.5`},
		{`{"kind":"command","command":{"argv":["x","{out}"]}}`, `"burstiness": 1`},
	} {
		r := &result.Result{
			Schema:   result.Schema,
			Workload: result.Workload{Name: "w", Cell: "w", Hash: "h", Spec: []byte(c.spec)},
			Server:   result.Server{Model: "m"},
			Trials: []result.Trial{{Index: 0, Valid: true, DurationS: 2, Completed: 4, Values: map[string]float64{
				"ttft_ms.mean": 10, "request_throughput": 2, "duration_s": 2,
			}}},
		}
		files, _, err := Export(r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(files[0].Data, []byte(c.want)) {
			t.Errorf("spec %s: export lacks %s:\n%s", c.spec, c.want, files[0].Data)
		}
		if _, err := Parse("x.json", files[0].Data); err != nil {
			t.Errorf("exported file does not parse: %v", err)
		}
	}
}

// TestScalarKeysInCatalogue: every vLLM key maps to a metric id of the
// catalogue, so a renamed id fails here rather than importing nothing.
func TestScalarKeysInCatalogue(t *testing.T) {
	for _, s := range scalarKeys {
		if _, ok := metrics.Lookup(s.id); !ok {
			t.Errorf("vLLM key %q maps to %q, which is not in the catalogue", s.key, s.id)
		}
	}
}
