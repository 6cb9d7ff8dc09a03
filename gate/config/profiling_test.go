package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/trace"
)

// TestLoadProfiling: the profiling section loads, its dir is relative to
// the file, and a bad mode names file:line and the valid values.
func TestLoadProfiling(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "sub/perfgate.yaml", "profiling:\n  when: on-regression\n  dir: traces\n  requests: 8\n")
	l, err := Load(Options{File: p})
	if err != nil {
		t.Fatal(err)
	}
	if pr := l.Config.Profiling; pr.Mode() != trace.OnRegression || pr.Dir != filepath.Join(dir, "sub", "traces") || pr.Requests != 8 {
		t.Errorf("profiling %+v", pr)
	}
	if l, err := Load(Options{}); err != nil || l.Config.Profiling.Mode() != trace.Never {
		t.Errorf("default: %+v %v", l, err)
	}
	for _, tc := range []struct{ file, want string }{
		{"profiling:\n  when: sometimes\n", `perfgate.yaml:2: profiling.when: "sometimes": want on-regression, always or never`},
		{"profiling:\n  requests: -1\n", "perfgate.yaml:2: profiling.requests: must be between 1 and 100000"},
		{"profiling: always\n", "perfgate.yaml:1: profiling: must be a section"},
	} {
		_, err := Load(Options{File: writeFile(t, dir, "perfgate.yaml", tc.file)})
		if err == nil || !strings.Contains(strings.ReplaceAll(err.Error(), dir+"/", ""), tc.want) {
			t.Errorf("%q: %v, want %q", tc.file, err, tc.want)
		}
	}
	_, err = Load(Options{Environ: []string{"PERFGATE_PROFILING_WHEN=maybe"}})
	if err == nil || !strings.Contains(err.Error(), "env PERFGATE_PROFILING_WHEN: profiling.when") {
		t.Errorf("env: %v", err)
	}
}
