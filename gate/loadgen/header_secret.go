package loadgen

import (
	"fmt"

	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/workload"
)

// checkEnvHeader refuses a header value read from the environment that is
// shorter than redact.MinScrubLen. Such a value is a secret (docs/
// workloads.md: {env: NAME} values are secrets, whatever the variable's
// name), but no scrubber can hide it: a scrubber that searched for "abc"
// would blank every word holding those letters in every log. Refusing is
// the one choice that keeps the promise that a secret never reaches a
// file (issue 20 item 11: such secrets went unscrubbed without a word);
// a credential that short is guessable anyway.
func checkEnvHeader(m *workload.Manifest, hd workload.Header, v string) error {
	if len(v) >= redact.MinScrubLen {
		return nil
	}
	// Not "header X: …": a name and a colon would read as a secret
	// assignment to redact.Text, which would hide the rest of the line.
	return fmt.Errorf("workload %s: the value of header %s (environment variable %s) has %d character(s): a header read from the environment "+
		"is a secret, and perfgate can hide only secrets of %d characters or more in logs and results, so it does not send a shorter one; "+
		"use a longer credential, or write a value that is not secret literally in the workload",
		m.Cell, hd.Name, hd.Env, len(v), redact.MinScrubLen)
}

// CheckEnvHeaders checks, through lookup, the headers of ms that are read
// from the environment, as a run will: `perfgate validate` says before a
// run what the run would refuse. Unset variables are not checked here
// (validate may run where the secrets are not); the run reports them.
func CheckEnvHeaders(ms []*workload.Manifest, lookup func(string) (string, bool)) []error {
	var errs []error
	envHeaders(ms, lookup, func(m *workload.Manifest, hd workload.Header, v string) {
		if err := checkEnvHeader(m, hd, v); err != nil {
			errs = append(errs, err)
		}
	})
	return errs
}
