package cli

import (
	"bytes"
	"context"
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
// limit before it measures, naming itself and the flag.
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
			if code != ExitInvalid || !strings.Contains(errs.String(), cmd[0]+": "+bad[0]+" "+bad[1]) {
				t.Errorf("%s %s: exit %v, stderr %q; want 2 naming %q", cmd[0], strings.Join(bad, " "), code, errs.String(), cmd[0]+": "+bad[0])
			}
		}
	}
}
