package baseline

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/result"
)

var when = time.Date(2026, 11, 2, 9, 0, 0, 0, time.UTC)

func run(cell string, trials, invalid int) *result.Result {
	r := &result.Result{
		Schema:      result.Schema,
		Workload:    result.Workload{Name: cell, Cell: cell, Hash: "h-" + cell},
		Server:      result.Server{URL: "http://127.0.0.1:8000", Model: "m", Version: "0.11.0"},
		Fingerprint: map[string]string{"gpu.name": "sim", "gpu.count": "1"},
		StartedAt:   when,
		Complete:    true,
		Detailed:    cell + ".jsonl",
	}
	for i := 0; i < trials; i++ {
		t := result.Trial{Index: i, Valid: i >= invalid, Values: map[string]float64{"tpot_ms.p50": 10 + float64(i), "output_throughput": 2000}}
		if !t.Valid {
			t.InvalidReason = "client saturated"
		}
		r.Trials = append(r.Trials, t)
	}
	return r
}

func prov() result.Provenance {
	return result.Provenance{GitSHA: "abc123", GitRef: "refs/heads/main", PromotedAt: when, How: "perfgate baseline update --from out"}
}

func TestUpdateWritesBaselinesAndHistory(t *testing.T) {
	s := Store{Root: t.TempDir()}
	runs := []Run{{Source: "out/b.json", Result: run("chat@c16", 5, 0)}, {Source: "out/a.json", Result: run("short", 4, 1)}}
	paths, err := s.Update("h100", runs, prov(), DefaultRequirements())
	if err != nil {
		t.Fatal(err)
	}
	want := []string{s.Path("h100", "chat@c16"), s.Path("h100", "short")}
	if strings.Join(paths, ",") != strings.Join(want, ",") {
		t.Errorf("paths %v, want %v", paths, want)
	}
	got, err := s.Load("h100")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Provenance == nil || got[0].Provenance.GitSHA != "abc123" || got[0].Provenance.ServerVersion != "0.11.0" || got[0].Detailed != "" {
		t.Fatalf("loaded %+v", got[0])
	}
	// Stable: promoting the same run again gives the same bytes.
	first, _ := os.ReadFile(want[0])
	if _, err := s.Update("h100", runs[:1], prov(), DefaultRequirements()); err != nil {
		t.Fatal(err)
	}
	second, _ := os.ReadFile(want[0])
	if !bytes.Equal(first, second) || !bytes.HasPrefix(first, []byte("{\n  \"schema\"")) {
		t.Errorf("baseline file not stable or not indented:\n%s", first)
	}
	h, err := s.ReadHistory("h100", "chat@c16")
	if err != nil {
		t.Fatal(err)
	}
	if len(h) != 2 || len(h[0].Trials) != 5 || h[1].WorkloadHash != "h-chat@c16" || h[0].Trials[2]["tpot_ms.p50"] != 12 {
		t.Errorf("history %+v", h)
	}
	if h, _ := s.ReadHistory("h100", "short"); len(h) != 1 || len(h[0].Trials) != 3 {
		t.Errorf("short history %+v (invalid trials must be left out)", h)
	}
	if _, err := os.Stat(filepath.Join(s.Dir("h100"), "history", "chat@c16.jsonl")); err != nil {
		t.Errorf("history file name: %v", err)
	}
}

func TestUpdateRefuses(t *testing.T) {
	incomplete := run("x", 5, 0)
	incomplete.Complete, incomplete.IncompleteReason = false, "interrupted"
	cases := []struct {
		name string
		runs []Run
		want string
	}{
		{"incomplete", []Run{{Source: "r/x.json", Result: incomplete}}, "r/x.json: workload \"x\": the run is incomplete (interrupted)"},
		{"too few trials", []Run{{Source: "r/x.json", Result: run("x", 2, 0)}}, "2 valid trial(s), a baseline needs at least 3"},
		{"too many invalid", []Run{{Source: "r/x.json", Result: run("x", 6, 2)}}, "2 of 6 trials are invalid"},
		{"duplicate cell", []Run{{Source: "r/1.json", Result: run("x", 5, 0)}, {Source: "r/2.json", Result: run("x", 5, 0)}}, "r/2.json: workload cell \"x\" is also in r/1.json"},
		{"one bad among good", []Run{{Source: "r/ok.json", Result: run("ok", 5, 0)}, {Source: "r/x.json", Result: run("x", 1, 0)}}, "r/x.json"},
		{"nothing", nil, "no result files"},
	}
	for _, tc := range cases {
		s := Store{Root: t.TempDir()}
		_, err := s.Update("p", tc.runs, prov(), DefaultRequirements())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if entries, _ := os.ReadDir(s.Root); len(entries) != 0 {
			t.Errorf("%s: refused update wrote %d entries", tc.name, len(entries))
		}
	}
}

func TestValidateProfile(t *testing.T) {
	for _, ok := range []string{"h100-llama8b", "sim_fast", "a.b"} {
		if err := ValidateProfile(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "a/b", `a\b`, "history", "x y"} {
		if err := ValidateProfile(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestLoadMissingProfile(t *testing.T) {
	s := Store{Root: t.TempDir()}
	if _, err := s.Load("nope"); err == nil || !strings.Contains(err.Error(), "perfgate baseline update") {
		t.Errorf("missing profile: %v", err)
	}
}

func TestParseHistoryErrors(t *testing.T) {
	_, err := ParseHistory("h.jsonl", []byte("{\"workload_hash\":\"h\",\"trials\":[]}\n{oops\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "h.jsonl:2:") {
		t.Errorf("error %v, want h.jsonl:2:", err)
	}
}

func FuzzParseHistory(f *testing.F) {
	f.Add([]byte(`{"promoted_at":"2026-11-02T09:00:00Z","workload_hash":"h","trials":[{"tpot_ms.p50":10}]}` + "\n"))
	f.Add([]byte("\n\n{}\n"))
	f.Add([]byte(`{"trials":[{"x":1e400}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		lines, err := ParseHistory("fuzz", data)
		if err != nil && !strings.HasPrefix(err.Error(), "fuzz:") {
			t.Errorf("error without a position: %v", err)
		}
		if err == nil && len(lines) > bytes.Count(data, []byte("\n"))+1 {
			t.Errorf("%d lines from %d newlines", len(lines), bytes.Count(data, []byte("\n")))
		}
	})
}

// Load reads every baseline of profile (the tests' reader; perfgate reads
// a store through its commands' own paths). A missing profile directory is an
// error that says how to create it.
func (s Store) Load(profile string) ([]*result.Result, error) {
	if err := ValidateProfile(profile); err != nil {
		return nil, err
	}
	dir := s.Dir(profile)
	if _, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("no baselines for profile %q (%s): %w; create them with `perfgate baseline update --from DIR --profile %s`", profile, dir, err, profile)
	}
	return result.ReadDir(dir)
}
