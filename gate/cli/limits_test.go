package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/perfgate/perfgate/gate/metrics"
)

// TestLimitFlagsStartFromTheDefaults: a command's limits are the defaults
// until a flag says otherwise. run built its limits from its two flags
// alone, so MaxTokensPerChunk was 0 and its rule never applied to a run.
func TestLimitFlagsStartFromTheDefaults(t *testing.T) {
	t.Parallel()
	var lim metrics.Limits
	f := pflag.NewFlagSet("x", pflag.ContinueOnError)
	limitFlags(f, &lim)
	if lim != metrics.DefaultLimits {
		t.Fatalf("limits %+v, want the defaults %+v", lim, metrics.DefaultLimits)
	}
	if err := f.Parse([]string{"--max-dispatch-lag-ms", "250"}); err != nil {
		t.Fatal(err)
	}
	want := metrics.DefaultLimits
	want.DispatchLagMs = 250
	if lim != want {
		t.Fatalf("limits %+v, want %+v", lim, want)
	}
}

// TestLimitFlagsChecked: every measuring command refuses an impossible
// limit before it measures, naming the flag and the value (run names
// itself; the configured commands also name the setting the flag sets,
// limits.*).
func TestLimitFlagsChecked(t *testing.T) {
	t.Parallel()
	for _, cmd := range [][]string{
		{"run", "-w", "testdata/gate/decode-a.yaml", "-o", "OUT", "--url", "http://127.0.0.1:1"},
		{"gate", "--workloads", "testdata/gate/decode-a.yaml", "-o", "OUT", "--url", "http://127.0.0.1:1"},
		{"calibrate", "--workloads", "testdata/gate/decode-a.yaml", "-o", "OUT"},
		{"ab", "-w", "testdata/gate/decode-a.yaml", "-o", "OUT", "--a-url", "http://127.0.0.1:1", "--b-url", "http://127.0.0.1:2"},
	} {
		for _, bad := range [][]string{{"--max-dispatch-lag-ms", "0"}, {"--max-failure-share", "2"}, {"--max-tokens-per-chunk", "-1"}} {
			args := append([]string{}, cmd...)
			for i, a := range args {
				if a == "OUT" {
					args[i] = t.TempDir()
				}
			}
			args = append(args, bad...)
			var out, errs bytes.Buffer
			code := Main(context.Background(), args, Streams{Out: &out, Err: &errs})
			want := "flag " + bad[0] + ": limits.max_" + strings.ReplaceAll(strings.TrimPrefix(bad[0], "--max-"), "-", "_") + ": " + bad[1] + ": must"
			if cmd[0] == "run" {
				want = "run: " + bad[0] + " " + bad[1] + ": must"
			}
			if code != ExitInvalid || !strings.Contains(errs.String(), want) {
				t.Errorf("%s %s: exit %v, stderr %q; want 2 naming %q", cmd[0], strings.Join(bad, " "), code, errs.String(), want)
			}
		}
	}
}

// TestLimitsFromTheConfiguration: gate, calibrate, ab and bisect read
// perfgate.yaml's limits section (what the Action and a shared runner
// set), so an impossible limit there stops them before they measure,
// naming the file's line and the setting.
func TestLimitsFromTheConfiguration(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "perfgate.yaml")
	if err := os.WriteFile(cfg, []byte("limits:\n  max_dispatch_lag_ms: 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cmd := range [][]string{
		{"gate", "--workloads", "testdata/gate/decode-a.yaml", "--url", "http://127.0.0.1:1"},
		{"calibrate", "--workloads", "testdata/gate/decode-a.yaml"},
		{"ab", "-w", "testdata/gate/decode-a.yaml", "--a-url", "http://127.0.0.1:1", "--b-url", "http://127.0.0.1:2"},
		{"bisect", "-w", "testdata/gate/decode-a.yaml", "--good", "a", "--bad", "b", "--server-cmd", "true {sha}"},
	} {
		args := append(append([]string{}, cmd...), "--config", cfg, "-o", t.TempDir())
		var out, errs bytes.Buffer
		code := Main(context.Background(), args, Streams{Out: &out, Err: &errs})
		if want := "perfgate.yaml:2: limits.max_dispatch_lag_ms: 0: must be"; code != ExitInvalid || !strings.Contains(errs.String(), want) {
			t.Errorf("%s: exit %v, stderr %q; want 2 naming %q", cmd[0], code, errs.String(), want)
		}
	}
}
