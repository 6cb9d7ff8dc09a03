package baseline

import (
	"bytes"
	"errors"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/verdict"
)

func sampleNoise() *Noise {
	return &Noise{
		Schema: NoiseSchema, Profile: "sim-fast", CreatedAt: when,
		Tool:     result.Tool{Name: "perfgate", Version: "test"},
		Restarts: 3, TrialsPerRestart: 3,
		Fingerprint: map[string]string{"gpu.name": "sim", "server.argv": "perfgate sim"},
		Cells: map[string]NoiseCell{
			"chat@c16": {WorkloadHash: "h-chat", Metrics: map[string]NoiseMetric{
				"tpot_ms.p50":  {Scale: ScaleLog, WithinVar: 1e-4, WithinDF: 6, BetweenVar: 9e-4, RawBetweenVar: 9e-4, BetweenDF: 1.7, Sessions: 3, Trials: 9},
				"success_rate": {Scale: ScaleAbsolute, WithinVar: 1e-6, WithinDF: 6, BetweenVar: 0, RawBetweenVar: -2e-7, BetweenDF: 2, Truncated: true, Sessions: 3, Trials: 9},
			}},
			"short": {WorkloadHash: "h-short", Metrics: map[string]NoiseMetric{
				"ttft_ms.p99": {Scale: ScaleLog, WithinVar: 4e-4, WithinDF: 5, BetweenVar: 1e-4, RawBetweenVar: 1e-4, BetweenDF: 0.8, Sessions: 3, Trials: 8},
			}},
		},
	}
}

func TestNoiseRoundTrip(t *testing.T) {
	s := Store{Root: t.TempDir()}
	n := sampleNoise()
	path, err := s.WriteNoise("sim-fast", n)
	if err != nil {
		t.Fatal(err)
	}
	if path != s.NoisePath("sim-fast") || !strings.HasSuffix(path, "sim-fast/calibration/noise.json") {
		t.Errorf("path %s", path)
	}
	got, err := s.ReadNoise("sim-fast")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, n) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, n)
	}
	// Stable bytes, and the baselines beside it still load: the noise
	// file is not a *.json of the profile directory.
	first, _ := os.ReadFile(path)
	if _, err := s.WriteNoise("sim-fast", got); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(path)
	if !bytes.Equal(first, second) {
		t.Error("rewriting the same noise changed the bytes")
	}
	if _, err := s.Update("sim-fast", []Run{{Source: "out/a.json", Result: run("short", 4, 0)}}, prov(), DefaultRequirements()); err != nil {
		t.Fatal(err)
	}
	if rs, err := s.Load("sim-fast"); err != nil || len(rs) != 1 {
		t.Errorf("baselines beside the noise file: %d, %v", len(rs), err)
	}
	if _, err := s.ReadNoise("never-calibrated"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing noise file: %v, want os.ErrNotExist", err)
	}
}

func TestNoisePriors(t *testing.T) {
	n := sampleNoise()
	p, stale := n.Priors(nil)
	want := verdict.Prior{WithinVar: 1e-4, WithinDF: 6, BetweenVar: 9e-4, BetweenDF: 1.7, Source: "calibration", Sessions: 3}
	if got, ok := p.Lookup("chat@c16", "tpot_ms.p50"); !ok || got != want || len(stale) != 0 || len(p) != 2 {
		t.Errorf("priors %+v, stale %v", p, stale)
	}
	// A changed workload's noise is not used; a cell not compared is not
	// listed.
	p, stale = n.Priors(map[string]string{"chat@c16": "h-other", "new": "h-new"})
	if len(p) != 0 || !reflect.DeepEqual(stale, []string{"chat@c16"}) {
		t.Errorf("priors %+v, stale %v", p, stale)
	}
	p, _ = n.Priors(map[string]string{"short": "h-short"})
	if _, ok := p.Lookup("short", "ttft_ms.p99"); !ok || len(p) != 1 {
		t.Errorf("priors %+v", p)
	}
}

// TestParseNoiseErrors: each bad file is refused with the file name, the
// line of the problem and what is wrong.
func TestParseNoiseErrors(t *testing.T) {
	good, err := MarshalNoise(sampleNoise())
	if err != nil {
		t.Fatal(err)
	}
	line := func(sub string) int {
		i := bytes.Index(good, []byte(sub))
		if i < 0 {
			t.Fatalf("%q not in the sample", sub)
		}
		return 1 + bytes.Count(good[:i], []byte("\n"))
	}
	edit := func(old, repl string) []byte { return bytes.Replace(good, []byte(old), []byte(repl), 1) }
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"syntax", edit(`"restarts": 3,`, `"restarts": 3,,`), "noise.json:" + itoa(line(`"restarts"`)) + ":"},
		{"type", edit(`"restarts": 3`, `"restarts": "3"`), "noise.json:" + itoa(line(`"restarts"`)) + ":"},
		{"unknown key", edit(`"restarts": 3`, `"restart": 3`), "noise.json:" + itoa(line(`"restarts"`)) + `: json: unknown field "restart"`},
		{"schema", edit(NoiseSchema, "perfgate.noise/v9"), "noise.json:" + itoa(line(`"schema"`)) + `: schema is "perfgate.noise/v9"`},
		{"one restart", edit(`"restarts": 3`, `"restarts": 1`), "restarts is 1"},
		{"negative variance", edit(`"within_var": 0.0004`, `"within_var": -0.0004`), "noise.json:" + itoa(line(`"ttft_ms.p99"`)) + `: cells["short"].metrics["ttft_ms.p99"]: within_var is -0.0004`},
		{"wrong scale", edit(`"scale": "absolute"`, `"scale": "log"`), `metrics["success_rate"]: scale is "log", but the verdict tests success_rate on the "absolute" scale`},
		{"df above sessions", edit(`"between_df": 1.7`, `"between_df": 2.5`), "between_df 2.5 exceeds sessions-1 = 2"},
		{"trailing data", append(append([]byte{}, good...), []byte("{}")...), "data after the noise object"},
		{"raw and truncated disagree", edit(`"raw_between_var": -2e-7`, `"raw_between_var": 2e-7`), `metrics["success_rate"]: between_var 0 and truncated true do not follow from raw_between_var 2e-07`},
		{"no cells", []byte(`{"schema":"perfgate.noise/v1","profile":"p","restarts":3,"trials_per_restart":3,"cells":{}}`), "noise.json:1: cells is empty"},
		{"empty hash", edit(`"workload_hash": "h-short"`, `"workload_hash": ""`), `cells["short"]: workload_hash is empty`},
	} {
		_, err := ParseNoise("noise.json", tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
	n := sampleNoise()
	n.Cells["short"].Metrics["ttft_ms.p99"] = NoiseMetric{Scale: ScaleLog, WithinVar: math.NaN(), Sessions: 3, Trials: 3}
	if _, err := MarshalNoise(n); err == nil || !strings.Contains(err.Error(), "within_var is NaN") {
		t.Errorf("NaN written: %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

// FuzzParseNoise: any input is refused with an error or parses into a
// noise file that survives a round trip unchanged.
func FuzzParseNoise(f *testing.F) {
	good, _ := MarshalNoise(sampleNoise())
	f.Add(good)
	f.Add([]byte(`{"schema":"perfgate.noise/v1"}`))
	f.Add([]byte(`{"schema":"perfgate.noise/v1","profile":"p","restarts":2,"trials_per_restart":1,"cells":{"c":{"workload_hash":"h","metrics":{"x":{"scale":"log","sessions":2,"trials":2}}}}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		n, err := ParseNoise("fuzz.json", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.json:") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		out, err := MarshalNoise(n)
		if err != nil {
			t.Fatalf("parsed but cannot be written: %v", err)
		}
		again, err := ParseNoise("again.json", out)
		if err != nil || !reflect.DeepEqual(again, n) {
			t.Fatalf("round trip: %v\n%+v\n%+v", err, n, again)
		}
	})
}

func TestCalibrationPriors(t *testing.T) {
	s := Store{Root: t.TempDir()}
	if p, stale, path, err := s.CalibrationPriors("sim-fast", nil); p != nil || stale != nil || path != "" || err != nil {
		t.Errorf("uncalibrated: %v %v %q %v, want nothing and no error", p, stale, path, err)
	}
	if _, err := s.WriteNoise("sim-fast", sampleNoise()); err != nil {
		t.Fatal(err)
	}
	p, stale, path, err := s.CalibrationPriors("sim-fast", map[string]string{"short": "h-short", "chat@c16": "changed"})
	if err != nil || path != s.NoisePath("sim-fast") || len(p) != 1 || !reflect.DeepEqual(stale, []string{"chat@c16"}) {
		t.Errorf("priors %v stale %v path %q err %v", p, stale, path, err)
	}
	if err := os.WriteFile(s.NoisePath("sim-fast"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := s.CalibrationPriors("sim-fast", nil); err == nil || !strings.Contains(err.Error(), "noise.json:1:") {
		t.Errorf("broken file: %v", err)
	}
}
