package workload

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/trace"
)

const profilingBase = `name: p
dataset: {kind: random, input_tokens: 16, output_tokens: 8, seed: 1}
load: {requests: 4, concurrency: 2}
`

// TestProfilingKey: profiling: reaches the manifest without changing the
// cell's hash or spec (a profile is taken beside the measurement, and
// shipped baselines stay comparable); a bad value names file:line and the
// valid values.
func TestProfilingKey(t *testing.T) {
	dir := t.TempDir()
	load := func(name, text string) ([]*Manifest, error) {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadFile(p)
	}
	plain, err := load("plain.yaml", profilingBase)
	if err != nil {
		t.Fatal(err)
	}
	prof, err := load("prof.yaml", profilingBase+"profiling: on-regression\n")
	if err != nil {
		t.Fatal(err)
	}
	if plain[0].Profiling != "" || prof[0].Profiling != trace.OnRegression {
		t.Errorf("profiling %q and %q", plain[0].Profiling, prof[0].Profiling)
	}
	if plain[0].Hash != prof[0].Hash || string(plain[0].Spec) != string(prof[0].Spec) {
		t.Errorf("profiling: changed the cell's identity: %s vs %s", plain[0].Hash, prof[0].Hash)
	}
	for _, tc := range []struct{ text, want string }{
		{"profiling: sometimes\n", `bad.yaml:4: profiling "sometimes": want on-regression, always or never`},
		{"profiling: [always]\n", "bad.yaml:4: profiling must be"},
		{"profiling: \"\"\n", "bad.yaml:4: profiling must be on-regression, always or never"},
	} {
		_, err := load("bad.yaml", profilingBase+tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.text, err, tc.want)
		}
	}
}
