package cli

import (
	"strings"
	"testing"
)

// TestValidateShortHeaderSecret is issue 20 item 11: validate said
// nothing of a header secret too short to scrub, which a run then sent
// unscrubbed. Where the variable is set, validate refuses it as the run
// will; a long enough one passes.
func TestValidateShortHeaderSecret(t *testing.T) {
	const w = "../workload/testdata/valid/options.yaml" // X-Tenant-Key: {env: PERFGATE_TENANT_KEY}
	t.Setenv("PERFGATE_TENANT_KEY", "abc")
	code, out, errs := runCLI("validate", w)
	if code != ExitInvalid || !strings.Contains(errs, "(environment variable PERFGATE_TENANT_KEY) has 3 character(s)") || strings.Contains(out+errs, "abc\n") {
		t.Errorf("short: exit %d\n%s%s", code, out, errs)
	}
	t.Setenv("PERFGATE_TENANT_KEY", "tenant-key-0123")
	if code, out, errs := runCLI("validate", w); code != ExitPass {
		t.Errorf("long: exit %d\n%s%s", code, out, errs)
	}
}
