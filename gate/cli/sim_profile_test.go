package cli

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

// The simulator reads the impersonated engine's profiler variable as the
// engine does, so a gate launching it with VLLM_TORCH_PROFILER_DIR in
// server.env gets traces without a simulator-only flag; without the
// variable the endpoints answer 404, as vLLM's do.
func TestSimProfileDirFromEngineEnv(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		engine  string
		env     string
		traces  bool
		started int
	}{
		{"vllm variable", "vllm", "VLLM_TORCH_PROFILER_DIR", true, http.StatusOK},
		{"sglang variable", "sglang", "SGLANG_TORCH_PROFILER_DIR", true, http.StatusOK},
		{"vllm without its variable", "vllm", "SGLANG_TORCH_PROFILER_DIR", false, http.StatusNotFound},
		{"ollama has no profiler", "ollama", "VLLM_TORCH_PROFILER_DIR", false, http.StatusNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			url, _, _ := simStartEnv(t, ctx, []string{tc.env + "=" + dir}, "--engine", tc.engine)
			post := func(path string) int {
				resp, err := http.Post(url+path, "application/json", nil)
				if err != nil {
					t.Fatal(err)
				}
				resp.Body.Close()
				return resp.StatusCode
			}
			if got := post("/start_profile"); got != tc.started {
				t.Fatalf("/start_profile answered %d, want %d", got, tc.started)
			}
			if !tc.traces {
				return
			}
			if got := post("/stop_profile"); got != http.StatusOK {
				t.Fatalf("/stop_profile answered %d", got)
			}
			files, _ := filepath.Glob(filepath.Join(dir, "*"))
			if len(files) != 1 {
				t.Fatalf("traces in %s: %v", dir, files)
			}
			if fi, err := os.Stat(files[0]); err != nil || fi.Size() == 0 {
				t.Errorf("trace %s: %v", files[0], err)
			}
		})
	}
}
