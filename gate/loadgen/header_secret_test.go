package loadgen

import (
	"context"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/workload"
)

// TestHeaderShortSecretRefused is issue 20 item 11: a header secret read
// from the environment shorter than redact.MinScrubLen was sent and never
// scrubbed, without a word. The run refuses it before any request, naming
// the header, the variable and the length, never the value.
func TestHeaderShortSecretRefused(t *testing.T) {
	ts := newFake(t, &fake{})
	m := manifest(2, 1, 0, 2)
	m.Headers = []workload.Header{{Name: "X-Tenant-Key", Env: "TENANT_KEY"}}
	lookup := func(k string) (string, bool) { return "k3y9", k == "TENANT_KEY" }
	r := newRunner(t, ts.URL, func(c *Config) { c.Warmups = 0; c.LookupEnv = lookup })
	res, err := r.Run(context.Background(), m, 1)
	if err == nil || !strings.Contains(err.Error(), "the value of header X-Tenant-Key (environment variable TENANT_KEY) has 4 character(s)") || strings.Contains(err.Error(), "k3y9") {
		t.Fatalf("err = %v", err)
	}
	if res != nil && len(res.Trials) > 0 && res.Trials[0].Completed > 0 {
		t.Errorf("requests were sent with the short secret: %+v", res.Trials[0])
	}
	errs := CheckEnvHeaders([]*workload.Manifest{m, m}, lookup)
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "has 4 character(s)") {
		t.Errorf("CheckEnvHeaders = %v, want one error", errs)
	}
	long := func(k string) (string, bool) { return "k3y9-long-enough", true }
	unset := func(string) (string, bool) { return "", false }
	if errs := CheckEnvHeaders([]*workload.Manifest{m}, long); errs != nil {
		t.Errorf("a 16-character secret: %v", errs)
	}
	if errs := CheckEnvHeaders([]*workload.Manifest{m}, unset); errs != nil {
		t.Errorf("an unset variable is the run's to report: %v", errs)
	}
}
