package redact

import (
	"io"
	"sort"
	"strings"
)

// MinScrubLen is the shortest known value a Scrubber searches for. A
// shorter one ("1", "true", "50ms") would blank unrelated words all over a
// log; it is still hidden where a name marks it (Argv, Env).
const MinScrubLen = 6

// Scrubber removes known secret values from free text: a server's log
// tail, an error body, an error message, stderr. It also applies Text, so
// credential-shaped values it was not told about are hidden too. A
// Scrubber is immutable and safe for concurrent use; the nil Scrubber
// knows no values and applies Text only.
type Scrubber struct {
	values []string // longest first, so a value containing another goes first
}

// NewScrubber returns a Scrubber for values; values shorter than
// MinScrubLen are ignored.
func NewScrubber(values ...string) *Scrubber {
	return (*Scrubber)(nil).With(values...)
}

// ForProcess returns a Scrubber for the secrets of a process environment
// ("NAME=value" entries, as os.Environ returns them: GITHUB_TOKEN,
// ACTIONS_RUNTIME_TOKEN, HF_TOKEN, PERFGATE_API_KEY, …) and of a command
// line (the values Argv hides).
func ForProcess(environ, argv []string) *Scrubber {
	return NewScrubber(append(EnvSecrets(environ), ArgvSecrets(argv)...)...)
}

// With returns a Scrubber that also removes values.
func (s *Scrubber) With(values ...string) *Scrubber {
	seen := map[string]bool{}
	var out []string
	add := func(v string) {
		if len(v) >= MinScrubLen && !placeholderOnly(v) && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	if s != nil {
		for _, v := range s.values {
			add(v)
		}
	}
	for _, v := range values {
		if len(v) < MinScrubLen {
			continue
		}
		// The value itself and as it appears escaped: in a URL or a
		// form body, in a JSON string, in a Python repr (see forms).
		for _, f := range forms(v) {
			add(f)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return &Scrubber{values: out}
}

// Len is the number of values s searches for.
func (s *Scrubber) Len() int {
	if s == nil {
		return 0
	}
	return len(s.values)
}

// Longest is the length of the longest value s searches for, in any of
// its forms: a writer that must cut text it cannot scrub whole keeps that
// many bytes back from the cut.
func (s *Scrubber) Longest() int {
	if s == nil || len(s.values) == 0 {
		return 0
	}
	return len(s.values[0])
}

// String returns text with every known value and every credential-shaped
// value replaced by Placeholder.
//
// Scrubbing twice changes nothing more (String(String(x)) == String(x)):
// a placeholder put in can, with the text around it, spell a value again
// ("…d]" + "abc" for a value "d]abc"), so String repeats until nothing
// changes; values that are only placeholder text are never searched for
// (placeholderOnly), which is what makes the repetition end.
func (s *Scrubber) String(text string) string {
	for i := 0; i < maxPasses; i++ {
		next := s.once(text)
		if next == text {
			break
		}
		text = next
	}
	return text
}

// maxPasses bounds String's repetition. Each pass that changes the text
// replaces at least one character that was not placeholder text, and a
// real log needs one pass; the bound only stops a pathological input
// from costing more than a few passes.
const maxPasses = 8

// once is one pass of String.
func (s *Scrubber) once(text string) string {
	if s != nil {
		for _, v := range s.values {
			if strings.Contains(text, v) {
				text = strings.ReplaceAll(text, v, Placeholder)
			}
		}
	}
	return Text(text)
}

// placeholderOnly reports whether v occurs in a run of placeholders
// ("redacted", "d][redac"): searching for it would replace the
// placeholders themselves, again at every pass. Such a value cannot be
// told from the placeholders that hide everything else.
func placeholderOnly(v string) bool {
	return strings.Contains(strings.Repeat(Placeholder, len(v)/len(Placeholder)+2), v)
}

// Error returns err with a scrubbed message; errors.Is and errors.As still
// see the original through Unwrap. A nil err stays nil.
func (s *Scrubber) Error(err error) error {
	if err == nil {
		return nil
	}
	msg := s.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return &scrubbedError{msg: msg, err: err}
}

type scrubbedError struct {
	msg string
	err error
}

func (e *scrubbedError) Error() string { return e.msg }
func (e *scrubbedError) Unwrap() error { return e.err }

// Writer returns a writer that scrubs each write before passing it to w.
// Each Write is scrubbed on its own: perfgate writes whole messages per
// call (fmt.Fprintf), so a secret is never split between two writes.
func (s *Scrubber) Writer(w io.Writer) io.Writer { return &scrubWriter{s: s, w: w} }

type scrubWriter struct {
	s *Scrubber
	w io.Writer
}

// Unwrap returns the writer underneath, for callers that ask whether it
// is a terminal.
func (sw *scrubWriter) Unwrap() io.Writer { return sw.w }

func (sw *scrubWriter) Write(p []byte) (int, error) {
	in := string(p)
	out := sw.s.String(in)
	if out == in {
		return sw.w.Write(p)
	}
	if _, err := io.WriteString(sw.w, out); err != nil {
		return 0, err
	}
	return len(p), nil
}
