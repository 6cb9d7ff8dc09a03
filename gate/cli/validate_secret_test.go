package cli

import (
	"context"
	"strings"
	"testing"
)

// TestValidateShortHeaderSecret is issue 20 item 11: validate said
// nothing of a header secret too short to scrub, which a run then sent
// unscrubbed. Where the variable is set, validate refuses it as the run
// will; a long enough one passes.
func TestValidateShortHeaderSecret(t *testing.T) {
	const w = "../workload/testdata/valid/options.yaml" // X-Tenant-Key: {env: PERFGATE_TENANT_KEY}
	t.Parallel()
	code, out, errs := mainIn(context.Background(), testEnviron("PERFGATE_TENANT_KEY=abc"), "validate", w)
	if code != ExitInvalid || !strings.Contains(errs, "(environment variable PERFGATE_TENANT_KEY) has 3 character(s)") || strings.Contains(out+errs, "abc\n") {
		t.Errorf("short: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := mainIn(context.Background(), testEnviron("PERFGATE_TENANT_KEY=tenant-key-0123"), "validate", w); code != ExitPass {
		t.Errorf("long: exit %d\n%s%s", code, out, errs)
	}
}
