package cli

import (
	"bytes"
	"io"

	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/workload"
)

// protectHeaders makes every scrubber of this run know the values of the
// workloads' request headers read from the environment ({env: NAME}).
// Their variable's name need not look like a secret (MY_HEADER_VALUE), so
// the process scrubber (redact.ForProcess) does not find them, yet a
// server that logs the headers it receives prints them. Called once the
// workloads are loaded: from then on stdout and stderr, and through
// Streams.measure the session's error-body scrubber, the launched
// server's log tail and the fingerprint hide them. redact stays the only
// rule for what a secret is; this only adds known values.
func protectHeaders(s *Streams, ms []*workload.Manifest) {
	vals := loadgen.EnvHeaderValues(ms, s.lookupEnv)
	if len(vals) == 0 {
		return
	}
	s.secrets = append(s.secrets, vals...)
	s.scrub = s.scrub.With(vals...)
	sc := redact.NewScrubber(vals...)
	if s.Out != nil {
		s.Out = sc.Writer(s.Out)
	}
	if s.Err != nil {
		s.Err = sc.Writer(s.Err)
	}
}

// writeDocument writes a document perfgate rendered to stdout, scrubbed
// where it is produced: render receives data after every string in it was
// scrubbed once (redact.Scrubber.Value), and its bytes go to stdout without
// passing the stream scrubber again. Scrubbing a rendered document as text
// costs its size (megabytes of JSON numbers, issue #19); its strings are
// what can hold a secret.
func (s *Streams) writeDocument(data any, render func(io.Writer) error) error {
	out := s.rawOut
	if out == nil || s.scrub == nil {
		out = s.Out // not through Main: whatever Out does
	} else {
		s.scrub.Value(data)
	}
	var buf bytes.Buffer
	if err := render(&buf); err != nil {
		return err
	}
	_, err := out.Write(buf.Bytes())
	return err
}
