package loadgen

import (
	"fmt"
	"net/http"
	"strings"

	"github.com/perfgate/perfgate/gate/workload"
)

// withHeaders returns c with m's extra headers: a shallow copy sharing
// c's transport, so connections are still reused across manifests. A
// header read from the environment ({env: NAME}) is resolved here, at run
// time, through Config.LookupEnv; its value joins the scrubber, so a
// server that echoes it in an error body does not put it in a result.
// Errors name the header and the variable, never a value.
func (r *Runner) withHeaders(c *client, m *workload.Manifest) (*client, error) {
	if len(m.Headers) == 0 {
		return c, nil
	}
	h := http.Header{}
	var secrets []string
	for _, hd := range m.Headers {
		v := hd.Value
		if hd.Env != "" {
			if r.cfg.LookupEnv == nil {
				return nil, fmt.Errorf("workload %s: header %s reads environment variable %s, which this runner cannot read", m.Cell, hd.Name, hd.Env)
			}
			var ok bool
			v, ok = r.cfg.LookupEnv(hd.Env)
			if !ok || v == "" {
				return nil, fmt.Errorf("workload %s: header %s: environment variable %s is not set", m.Cell, hd.Name, hd.Env)
			}
			if strings.ContainsAny(v, "\r\n\x00") {
				return nil, fmt.Errorf("workload %s: header %s: environment variable %s holds a line break or NUL", m.Cell, hd.Name, hd.Env)
			}
			secrets = append(secrets, v)
		}
		h.Set(hd.Name, v)
	}
	cc := *c
	cc.headers = h
	cc.scrub = c.scrub.With(secrets...)
	return &cc, nil
}
