package cli

import (
	"os"

	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/workload"
)

// protectHeaders makes every scrubber of this run know the values of the
// workloads' request headers read from the environment ({env: NAME}).
// Their variable's name need not look like a secret (MY_HEADER_VALUE), so
// the process scrubber (redact.ForProcess) does not find them, yet a
// server that logs the headers it receives prints them. Called once the
// workloads are loaded: from then on stdout and stderr, the error-body
// scrubber (serveScrubber), the launched server's log tail (serveRun) and
// the fingerprint hide them. redact stays the only rule for what a secret
// is; this only adds known values.
func protectHeaders(s *Streams, ms []*workload.Manifest) {
	vals := loadgen.EnvHeaderValues(ms, os.LookupEnv)
	if len(vals) == 0 {
		return
	}
	s.secrets = append(s.secrets, vals...)
	sc := redact.NewScrubber(vals...)
	if s.Out != nil {
		s.Out = sc.Writer(s.Out)
	}
	if s.Err != nil {
		s.Err = sc.Writer(s.Err)
	}
}

// serveScrubber knows the secret values of perfgate's environment
// (GITHUB_TOKEN, HF_TOKEN, the API key, ...) and the workloads' header
// values (protectHeaders), for error bodies of a server that echoes them:
// those go into result files, where Main's scrubbing of stdout and stderr
// does not reach.
func serveScrubber(s *Streams) *redact.Scrubber {
	return redact.ForProcess(os.Environ(), nil).With(s.secrets...)
}

// headerScrubber hides only the workloads' header values, for text that
// is otherwise recorded as is (the fingerprint); nil when there are none,
// so such text stays untouched.
func headerScrubber(s *Streams) *redact.Scrubber {
	if len(s.secrets) == 0 {
		return nil
	}
	return redact.NewScrubber(s.secrets...)
}
