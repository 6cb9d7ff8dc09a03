package cli

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestGatePreflight: a workload that changed since its baseline, or a
// server whose model or GPU differs from the baseline's, fails the gate
// at once (exit 2) before the first trial: no completion request reaches
// the server. --allow-mismatch lets the fingerprint case run as before.
func TestGatePreflight(t *testing.T) {
	t.Parallel()
	g := newGateTest(t)
	target, err := url.Parse(g.url)
	if err != nil {
		t.Fatal(err)
	}
	var completions atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/completions") {
			completions.Add(1)
		}
		proxy.ServeHTTP(w, r)
	}))
	defer ts.Close()
	g.url = ts.URL
	path := filepath.Join(g.baselines, "e2e", "decode-a.json")
	orig, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		edit   func(r *result.Result)
		extra  []string
		want   []string
		allows bool // the gate runs trials
	}{
		{name: "workload changed", edit: func(r *result.Result) { r.Workload.Hash = "sha256:0000" },
			want: []string{"decode-a (workload-changed)", "re-baseline", "no trial was run"}},
		{name: "model differs", edit: func(r *result.Result) { r.Fingerprint["server.model"] = "other-model" },
			want: []string{"decode-a (fingerprint-mismatch)", "server.model", "other-model"}},
		{name: "gpu differs", edit: func(r *result.Result) { r.Fingerprint["gpu.name"] = "NVIDIA Z9000" },
			want: []string{"decode-a (fingerprint-mismatch)", "gpu.name", "NVIDIA Z9000", "--allow-mismatch"}},
		{name: "gpu differs, allowed", edit: func(r *result.Result) { r.Fingerprint["gpu.name"] = "NVIDIA Z9000" },
			extra: []string{"--allow-mismatch"}, allows: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := result.Read(path)
			if err != nil {
				t.Fatal(err)
			}
			tc.edit(b)
			if err := result.Write(path, b); err != nil {
				t.Fatal(err)
			}
			defer result.Write(path, orig)
			completions.Store(0)
			code, stdout, stderr := g.gate("cand", append([]string{"--trials", "2", "--max-trials", "2"}, tc.extra...)...)
			if tc.allows {
				if completions.Load() == 0 || code == ExitInvalid && strings.Contains(stderr, "no trial was run") {
					t.Errorf("exit %d after %d completions; want the gate to run\n%s", code, completions.Load(), stderr)
				}
				return
			}
			if code != ExitInvalid {
				t.Fatalf("exit %d, want 2\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			if n := completions.Load(); n != 0 {
				t.Errorf("%d completion requests reached the server before the mismatch was reported", n)
			}
		})
	}
}
