package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareStdoutScrubbed: a document written to stdout is scrubbed
// where it is produced (Streams.writeDocument), in every format: a secret
// of the environment inside a result's text (here its cell name) never
// reaches stdout, and the document says where it was hidden.
func TestCompareStdoutScrubbed(t *testing.T) {
	t.Parallel()
	const secret = "tok-value-known-only-from-the-env-0123"
	dir := t.TempDir()
	cell := "cell-" + secret
	writeResult(t, filepath.Join(dir, "base", "a.json"), compareTestResult(cell, 5, 1))
	writeResult(t, filepath.Join(dir, "cand", "a.json"), compareTestResult(cell, 5, 1))
	for _, format := range []string{"json", "markdown", "text"} {
		var stdout, stderr bytes.Buffer
		args := []string{"compare", "--baseline", filepath.Join(dir, "base"), "--candidate", filepath.Join(dir, "cand"), "--format", format}
		code := Main(context.Background(), args, Streams{Out: &stdout, Err: &stderr, Environ: []string{"GITHUB_TOKEN=" + secret}})
		if code == ExitInvalid {
			t.Fatalf("%s: exit %v: %s", format, code, stderr.String())
		}
		if strings.Contains(stdout.String()+stderr.String(), secret) {
			t.Errorf("%s: the secret reached the output:\n%s", format, stdout.String())
		}
		if !strings.Contains(stdout.String(), "redacted") {
			t.Errorf("%s: the document does not show where the secret was hidden:\n%s", format, stdout.String())
		}
	}
}
