package command

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// sh runs script with sh -c; "$0" is the output path, "$1" the trial.
func sh(script string) Spec {
	return Spec{
		Argv:    []string{"sh", "-c", script, "{out}", "{trial}"},
		BaseEnv: []string{"PATH=" + os.Getenv("PATH")},
		Timeout: 20 * time.Second,
	}
}

func TestRunLatency(t *testing.T) {
	dir := t.TempDir()
	// A fake `vllm bench latency`: slower on trial 1, as a regression would be.
	s := sh(`echo "Avg latency: ..."; lat=1.25; [ "$1" = 1 ] && lat=1.5
cat > "$0" <<EOF
{"avg_latency": $lat, "latencies": [1.2], "percentiles": {"10": 1.1, "50": 1.2, "99": NaN}}
EOF`)
	for i, want := range []float64{1250, 1500} {
		tr, err := Run(context.Background(), s, i, dir)
		if err != nil {
			t.Fatal(err)
		}
		if !tr.Valid || tr.Index != i || tr.Values["offline_latency_ms.mean"] != want || tr.Values["offline_latency_ms.p50"] != 1200 {
			t.Errorf("trial %d = %+v", i, tr)
		}
		if len(tr.Warnings) != 1 || !strings.Contains(tr.Warnings[0], `"99"`) {
			t.Errorf("trial %d warnings = %q", i, tr.Warnings)
		}
		if tr.DurationS <= 0 {
			t.Errorf("duration %v", tr.DurationS)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "trial-01.json")); err != nil {
		t.Errorf("output file of trial 1: %v", err)
	}
}

func TestRunThroughput(t *testing.T) {
	s := sh(`printf '{"elapsed_time": 10, "num_requests": 100, "total_num_tokens": 5000, "requests_per_second": 10, "tokens_per_second": 500}' > "$0"`)
	tr, err := Run(context.Background(), s, 0, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Valid || tr.Values["offline_tokens_per_s"] != 500 || tr.Values["offline_requests_per_s"] != 10 {
		t.Errorf("trial = %+v", tr)
	}
}

// TestRunFailures: what goes wrong with the command is an invalid trial.
func TestRunFailures(t *testing.T) {
	tests := []struct {
		name, script string
		timeout      time.Duration
		reason       string
		sample       string
	}{
		{"exit", `echo "CUDA out of memory" >&2; exit 1`, 0, "command failed: exit status 1", "CUDA out of memory"},
		{"no output", `echo done`, 0, "command wrote no trial-00.json", "done"},
		{"bad json", `echo '{"avg_latency": ' > "$0"`, 0, "trial-00.json: line 2: unexpected end of file", ""},
		{"unknown json", `echo '{"answer": 42}' > "$0"`, 0, "no known key", ""},
		{"timeout", `echo started; sleep 30`, 300 * time.Millisecond, "timed out after 300ms", "started"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := sh(tt.script)
			if tt.timeout > 0 {
				s.Timeout = tt.timeout
			}
			began := time.Now()
			tr, err := Run(context.Background(), s, 0, t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			if tr.Valid || !strings.Contains(tr.InvalidReason, tt.reason) || tr.Errors["command"] != 1 {
				t.Errorf("trial = %+v, want invalid with %q", tr, tt.reason)
			}
			if tt.sample != "" && !strings.Contains(tr.ErrorSamples["command"], tt.sample) {
				t.Errorf("error sample %q lacks %q", tr.ErrorSamples["command"], tt.sample)
			}
			if time.Since(began) > 15*time.Second {
				t.Errorf("took %s", time.Since(began))
			}
		})
	}
}

func TestRunErrors(t *testing.T) {
	if _, err := Run(context.Background(), Spec{}, 0, t.TempDir()); err == nil {
		t.Error("empty argv accepted")
	}
	if _, err := Run(context.Background(), Spec{Argv: []string{"vllm", "bench", "latency"}}, 0, t.TempDir()); err == nil || !strings.Contains(err.Error(), "{out}") {
		t.Errorf("argv without {out}: %v", err)
	}
	if _, err := Run(context.Background(), Spec{Argv: []string{"/nonexistent/vllm", "{out}"}}, 0, t.TempDir()); err == nil {
		t.Error("missing program accepted")
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	if _, err := Run(ctx, sh(`sleep 30`), 0, t.TempDir()); err == nil || !strings.Contains(err.Error(), "context canceled") {
		t.Errorf("interrupted run: %v", err)
	}
}
