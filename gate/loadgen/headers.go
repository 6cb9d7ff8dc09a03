package loadgen

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/perfgate/perfgate/gate/workload"
)

// resolveHeaders returns m's extra headers and the secret values among
// them. A header read from the environment ({env: NAME}) is resolved here,
// at run time, through Config.LookupEnv; errors name the header and the
// variable, never a value.
func (r *Runner) resolveHeaders(m *workload.Manifest) (http.Header, []string, error) {
	if len(m.Headers) == 0 {
		return nil, nil, nil
	}
	h := http.Header{}
	var secrets []string
	for _, hd := range m.Headers {
		v := hd.Value
		if hd.Env != "" {
			if r.cfg.LookupEnv == nil {
				return nil, nil, fmt.Errorf("workload %s: header %s reads environment variable %s, which this runner cannot read", m.Cell, hd.Name, hd.Env)
			}
			var ok bool
			v, ok = r.cfg.LookupEnv(hd.Env)
			if !ok || v == "" {
				return nil, nil, fmt.Errorf("workload %s: header %s: environment variable %s is not set", m.Cell, hd.Name, hd.Env)
			}
			if strings.ContainsAny(v, "\r\n\x00") {
				return nil, nil, fmt.Errorf("workload %s: header %s: environment variable %s holds a line break or NUL", m.Cell, hd.Name, hd.Env)
			}
			if err := checkEnvHeader(m, hd, v); err != nil {
				return nil, nil, err
			}
			secrets = append(secrets, v)
		}
		h.Set(hd.Name, v)
	}
	return h, secrets, nil
}

// withHeaders returns c with m's extra headers: a shallow copy sharing
// c's transport, so connections are still reused across manifests. The
// secret values join the scrubber, so a server that echoes one in an
// error body does not put it in a result.
func (r *Runner) withHeaders(c *client, m *workload.Manifest) (*client, error) {
	h, secrets, err := r.resolveHeaders(m)
	if err != nil || h == nil {
		return c, err
	}
	cc := *c
	cc.headers = h
	cc.scrub = c.scrub.With(secrets...)
	return &cc, nil
}

// headerTransport adds headers to every request it carries: the readiness
// probe's, which vLLM's benchmark also sends with --header (a gateway
// that routes by header answers /v1/models only with it).
type headerTransport struct {
	base http.RoundTripper
	h    http.Header
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context()) // a RoundTripper must not change its argument
	for k, v := range t.h {
		req.Header[k] = v
	}
	return t.base.RoundTrip(req)
}

// probeClient returns hc sending m's extra headers too, and the scrubber
// that knows their secret values.
func (r *Runner) probeClient(hc *http.Client, m *workload.Manifest) (*http.Client, []string, error) {
	h, secrets, err := r.resolveHeaders(m)
	if err != nil || h == nil {
		return hc, nil, err
	}
	base := hc.Transport
	if base == nil {
		base = http.DefaultTransport
	}
	out := *hc
	out.Transport = headerTransport{base: base, h: h}
	return &out, secrets, nil
}

// EnvHeaderValues returns the values of the headers that ms read from the
// environment ({env: NAME}), through lookup, once each. A variable's name
// need not look like a secret (MY_HEADER_VALUE) for its value to be one:
// the CLI adds these to every scrubber of a run, the launched server's log
// tail and stderr included, since a server may log the headers it gets.
// Unset variables are skipped; the run itself reports them.
func EnvHeaderValues(ms []*workload.Manifest, lookup func(string) (string, bool)) []string {
	var out []string
	envHeaders(ms, lookup, func(_ *workload.Manifest, _ workload.Header, v string) { out = append(out, v) })
	return out
}

// envHeaders calls f once per environment variable the headers of ms read
// ({env: NAME}), with the first manifest and header that read it and its
// value, for each variable lookup (nil: none) finds set and non-empty.
func envHeaders(ms []*workload.Manifest, lookup func(string) (string, bool), f func(*workload.Manifest, workload.Header, string)) {
	if lookup == nil {
		return
	}
	seen := map[string]bool{}
	for _, m := range ms {
		for _, hd := range m.Headers {
			if hd.Env == "" || seen[hd.Env] {
				continue
			}
			seen[hd.Env] = true
			if v, ok := lookup(hd.Env); ok && v != "" {
				f(m, hd, v)
			}
		}
	}
}
