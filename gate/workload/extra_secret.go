package workload

import (
	"sort"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/redact"
)

// extraSecrets returns the paths (extra_body.a.b, extra_body.x[2]) of the
// string values of an extra_body value v that are credentials: under a
// key named like one (api_key, client_secret, by redact.Name) or shaped
// like one (sk-…, a JWT, by redact.Text). extra_body is public: it is
// stored verbatim in the hash and the spec of every result, and sent in
// every request body, so a credential there would be in every file a run
// writes (issue 20 item 11); a secret belongs in a header read from the
// environment, which perfgate never records.
func extraSecrets(v any, key, path string) []string {
	switch x := v.(type) {
	case string:
		if x != "" && (redact.Name(key) || redact.Text(x) != x) {
			return []string{path}
		}
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			out = append(out, extraSecrets(x[k], k, path+"."+k)...)
		}
		return out
	case []any:
		var out []string
		for i, e := range x {
			out = append(out, extraSecrets(e, key, path+"["+strconv.Itoa(i)+"]")...)
		}
		return out
	}
	return nil
}

// extraSecretError is the message for the paths extraSecrets found.
func extraSecretError(paths []string) string {
	return strings.Join(paths, ", ") + ": looks like a credential (by its key or its shape), and extra_body is stored verbatim " +
		"in the hash and every result: send a secret as a header read from the environment " +
		"(headers: {X-Name: {env: VARIABLE}}), which no file records"
}
