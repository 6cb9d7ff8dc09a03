package result

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func sample() *Result {
	return &Result{
		Schema:      Schema,
		Tool:        Tool{Name: "perfgate", Version: "test"},
		Workload:    Workload{Name: "w", Cell: "w@c4", Hash: "abc", Spec: []byte(`{"name":"w"}`)},
		Server:      Server{URL: "http://127.0.0.1:8000", Model: "m"},
		Fingerprint: map[string]string{"gpu.name": "H100"},
		StartedAt:   time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		FinishedAt:  time.Date(2026, 1, 2, 3, 5, 5, 0, time.UTC),
		Complete:    true,
		Trials: []Trial{{
			Index: 0, Valid: true, DurationS: 1.5, Completed: 10,
			Errors: map[string]int{"http_500": 1},
			Values: map[string]float64{"ttft_ms.p99": 12.5, "output_throughput": 900},
			Tokens: &TokenCounting{Method: "even_split", Requests: map[string]int{"even_split": 9, "one_per_chunk": 1}, TokensPerChunk: 3.4, ITLTokenApprox: true},
		}},
	}
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", FileName("w@c4"))
	want := sample()
	if err := Write(path, want); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	// Spec is raw JSON that the encoder re-indents; compare it compacted.
	var compact bytes.Buffer
	if err := json.Compact(&compact, got.Workload.Spec); err != nil || compact.String() != string(want.Workload.Spec) {
		t.Fatalf("spec changed: %s (%v)", got.Workload.Spec, err)
	}
	got.Workload.Spec = want.Workload.Spec
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip changed the result:\n got %+v\nwant %+v", got, want)
	}
	// Stable encoding: writing what was read gives the same bytes.
	a, _ := os.ReadFile(path)
	again, _ := Read(path)
	b, err := Marshal(again)
	if err != nil || string(a) != string(b) {
		t.Fatalf("re-encoding differs (err %v)", err)
	}
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".*tmp*"))
	if len(left) != 0 {
		t.Fatalf("temp files left behind: %v", left)
	}
}

func TestUnmarshalErrors(t *testing.T) {
	good, _ := Marshal(sample())
	cases := []struct {
		name, data, want string
	}{
		{"truncated", string(good[:len(good)/2]), "f.json:"},
		{"not json", "hello", "f.json: line 1"},
		{"no schema", `{"trials": []}`, "no \"schema\" key"},
		{"wrong schema", `{"schema": "perfgate.result/v9"}`, "unsupported schema"},
		{"wrong type", "{\"schema\": \"perfgate.result/v1\",\n\"trials\": 5}", "line 2"},
		{"no cell", `{"schema": "perfgate.result/v1", "workload": {"hash": "x"}}`, "workload.cell is empty"},
		{"negative", `{"schema": "perfgate.result/v1", "workload": {"cell": "c", "hash": "x"}, "trials": [{"values": {"qpm": -1}}]}`, "finite, non-negative"},
		// Issue 14, defect 16: 1.7e308 crashed report writing with +Inf.
		{"absurd", `{"schema": "perfgate.result/v1", "workload": {"cell": "c", "hash": "x"}, "trials": [{"values": {"ttft_ms.p99": 1.7e308}}]}`, `trials[0].values["ttft_ms.p99"] = 1.7e+308: metric values must be finite, non-negative and at most 1e+15`},
		// Issue 20, item 12: impossible data that used to be accepted.
		{"success rate above 1", `{"schema": "perfgate.result/v1", "workload": {"cell": "c", "hash": "x"}, "trials": [{"values": {"success_rate": 5.0}}]}`, `trials[0].values["success_rate"] = 5: a ratio is at most 1`},
		{"duplicate trial index", `{"schema": "perfgate.result/v1", "workload": {"cell": "c", "hash": "x"}, "trials": [{"index": 1, "values": {}}, {"index": 1, "values": {}}]}`, "trials[1]: index 1 repeats trials[0]"},
		{"promoted in the future", `{"schema": "perfgate.result/v1", "workload": {"cell": "c", "hash": "x"}, "provenance": {"promoted_at": "2999-01-01T00:00:00Z"}, "trials": []}`, "provenance.promoted_at 2999-01-01T00:00:00Z is in the future"},
	}
	for _, c := range cases {
		_, err := Unmarshal("f.json", []byte(c.data))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "f.json") {
			t.Errorf("%s: got %v, want error naming f.json containing %q", c.name, err, c.want)
		}
	}
}

func TestMarshalRefusesNaN(t *testing.T) {
	r := sample()
	r.Trials[0].Values["ttft_ms.p99"] = math.NaN()
	if _, err := Marshal(r); err == nil {
		t.Fatal("NaN value was written")
	}
}

func TestSamplesSkipsInvalidTrials(t *testing.T) {
	r := sample()
	r.Trials = append(r.Trials, Trial{Index: 1, Valid: false, Values: map[string]float64{"ttft_ms.p99": 99}})
	if got := r.Samples("ttft_ms.p99"); len(got) != 1 || got[0] != 12.5 {
		t.Fatalf("Samples = %v", got)
	}
}

func FuzzUnmarshal(f *testing.F) {
	good, _ := Marshal(sample())
	f.Add(good)
	f.Add([]byte(`{"schema":"perfgate.result/v1"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Unmarshal("fuzz.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json") {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if _, err := Marshal(r); err != nil {
			t.Fatalf("accepted a result it cannot write: %v", err)
		}
	})
}
