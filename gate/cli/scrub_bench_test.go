package cli

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// BenchmarkCompareJSONStdout is `compare --format json` of 200 workloads
// written to stdout, where every byte passes the secret scrubber (issue
// #19: 1.9 s against 0.3 s with --out, the document scrubbed as text). The
// scrubbing is what it measures: --out writes the same document.
func BenchmarkCompareJSONStdout(b *testing.B) {
	dir := b.TempDir()
	for _, arm := range []string{"base", "cand"} {
		for i := range 200 {
			cell := fmt.Sprintf("cell-%03d", i)
			if err := result.Write(filepath.Join(dir, arm, cell+".json"), compareTestResult(cell, 10, 1)); err != nil {
				b.Fatal(err)
			}
		}
	}
	args := []string{"compare", "--baseline", filepath.Join(dir, "base"), "--candidate", filepath.Join(dir, "cand"), "--format", "json"}
	for _, tc := range []struct {
		name string
		out  bool
	}{{"stdout", false}, {"out-file", true}} {
		b.Run(tc.name, func(b *testing.B) {
			var size int
			for b.Loop() {
				var stdout, stderr bytes.Buffer
				a := args
				if tc.out {
					a = append(append([]string(nil), args...), "--out", filepath.Join(dir, "cmp.json"))
				}
				if code := Main(context.Background(), a, Streams{Out: &stdout, Err: &stderr, Environ: []string{"GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123"}}); code == ExitInvalid || code == ExitRunFailed {
					b.Fatalf("exit %v: %s", code, stderr.String())
				}
				size = stdout.Len()
			}
			b.ReportMetric(float64(size), "stdout-bytes")
		})
	}
}
