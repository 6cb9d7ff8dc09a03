package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/verdict"
)

// TestReportShowsSettingsHidesSecrets: the PR comment's server arguments
// and fingerprint differences show the setting that changed (the latency
// flags of a simulator, a batching knob) and never a secret, also for
// results recorded by an older perfgate that stored them unredacted.
func TestReportShowsSettingsHidesSecrets(t *testing.T) {
	d := loadFixture(t, "regression")
	const secret = "hunter22-key"
	argv := func(ttft string) string {
		return "perfgate sim --time-to-first-token " + ttft + " --inter-token-latency 10ms --max-num-batched-tokens 8192 --api-key " + secret
	}
	for cell, r := range d.Baselines {
		r.Fingerprint["server.argv"] = argv("40ms")
		r.Fingerprint["env.HF_TOKEN"] = secret
		if c := d.Candidates[cell]; c != nil {
			c.Fingerprint["server.argv"] = argv("50ms")
			c.Fingerprint["env.HF_TOKEN"] = secret
		}
	}
	for i := range d.Comparison.Workloads {
		w := &d.Comparison.Workloads[i]
		w.Fingerprint = append(w.Fingerprint,
			verdict.FingerprintDiff{Key: "server.argv", Baseline: argv("40ms"), Candidate: argv("50ms")},
			verdict.FingerprintDiff{Key: "env.HF_TOKEN", Baseline: secret, Candidate: secret + "x"})
	}
	var b bytes.Buffer
	if err := Markdown(&b, d, 0); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if strings.Contains(md, secret) {
		t.Errorf("the comment shows the secret %q", secret)
	}
	for _, want := range []string{"time-to-first-token 50ms", "time-to-first-token 40ms", "inter-token-latency 10ms", "max-num-batched-tokens 8192"} {
		if !strings.Contains(md, want) {
			t.Errorf("the comment lacks %q", want)
		}
	}
}
