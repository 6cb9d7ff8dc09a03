package trace

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/perfgate/perfgate/gate/sim"
)

// memFiles keeps the simulator's profiles in memory.
type memFiles struct {
	mu    sync.Mutex
	files map[string]*bytes.Buffer
}

type memFile struct{ *bytes.Buffer }

func (memFile) Close() error { return nil }

func (m *memFiles) open(name string) (io.WriteCloser, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b := &bytes.Buffer{}
	m.files[name] = b
	return memFile{b}, nil
}

// profileSim profiles a simulator with cfg over four sequential requests
// (so every run has the same steps) and summarises its trace.
func profileSim(t *testing.T, cfg sim.Config) *Summary {
	t.Helper()
	files := &memFiles{files: map[string]*bytes.Buffer{}}
	s, err := sim.NewServer(cfg, sim.Options{Profiles: files.open})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	hs := httptest.NewServer(s)
	defer hs.Close()
	post := func(path, body string) {
		t.Helper()
		resp, err := http.Post(hs.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		msg, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %s %s", path, resp.Status, msg)
		}
	}
	post("/start_profile", "")
	for i := 0; i < 4; i++ {
		ids := make([]string, 64)
		for j := range ids {
			ids[j] = fmt.Sprint(1000 + 64*i + j)
		}
		post("/v1/completions", fmt.Sprintf(`{"model":%q,"prompt":[%s],"max_tokens":16,"ignore_eos":true}`, cfg.Model, strings.Join(ids, ",")))
	}
	post("/stop_profile", "")
	if len(files.files) != 1 {
		t.Fatalf("%d profiles written", len(files.files))
	}
	for name, b := range files.files {
		sum, err := Read(b, name, Limits{})
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	return nil
}

// TestSimProfileFollowsCostModel: a decode slowdown of 15 % shows in the
// simulator's traces as the decode kernels (mlp, attention) taking 15 %
// more time per step, and the others (sampling, prefill_chunk) none.
func TestSimProfileFollowsCostModel(t *testing.T) {
	base, err := sim.Preset("fast")
	if err != nil {
		t.Fatal(err)
	}
	base.JitterCV = 0
	cand := base
	cand.DecodeScale = 1.15
	b, c := profileSim(t, base), profileSim(t, cand)
	// 4 requests: a prefill step and 15 decode steps each.
	if b.Steps != 64 || c.Steps != 64 {
		t.Fatalf("steps %d and %d, want 64", b.Steps, c.Steps)
	}
	d, err := Diff(b, c)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"mlp": 15, "attention": 15, "sampling": 0, "prefill_chunk": 0}
	if len(d) != 4 || d[0].Name != "mlp" || d[1].Name != "attention" {
		t.Fatalf("diff %+v", d)
	}
	for _, ch := range d {
		// Trace times have nanosecond resolution.
		if w, ok := want[ch.Name]; !ok || math.Abs(ch.Change-w) > 0.01 {
			t.Errorf("%s: %+.3f %% per step, want %+.0f %%", ch.Name, ch.Change, w)
		}
	}
}

// TestSimProfileEndpoints: without Options.Profiles the endpoints are
// absent, as vLLM's are without VLLM_TORCH_PROFILER_DIR; stopping a
// profile that never started is refused with what to do.
func TestSimProfileEndpoints(t *testing.T) {
	cfg, _ := sim.Preset("fast")
	plain := httptest.NewServer(sim.New(cfg))
	defer plain.Close()
	resp, err := http.Post(plain.URL+"/start_profile", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("start_profile without a profile sink: %s", resp.Status)
	}
	files := &memFiles{files: map[string]*bytes.Buffer{}}
	s, _ := sim.NewServer(cfg, sim.Options{Profiles: files.open})
	defer s.Close()
	hs := httptest.NewServer(s)
	defer hs.Close()
	resp, err = http.Post(hs.URL+"/stop_profile", "application/json", nil)
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(msg), "POST /start_profile first") {
		t.Errorf("stop without start: %s %s", resp.Status, msg)
	}
	// An empty profile is still a valid trace, with no steps.
	for _, p := range []string{"/start_profile", "/stop_profile"} {
		resp, err := http.Post(hs.URL+p, "application/json", strings.NewReader(`{"num_steps":3}`))
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: %v %v", p, resp, err)
		}
		resp.Body.Close()
	}
	for name, b := range files.files {
		if sum, err := Read(b, name, Limits{}); err != nil || sum.Steps != 0 || len(sum.Ops) != 0 {
			t.Errorf("empty profile %s: %+v %v", name, sum, err)
		}
	}
}
