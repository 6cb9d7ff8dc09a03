package redact

import (
	"maps"
	"slices"
	"strconv"
)

// JSONCredentials returns the paths ("a.b", "x[2]", prefixed by root) of
// the string values of a decoded JSON value v (map[string]any, []any,
// string, as encoding/json decodes) that are credentials: under a key
// Name calls secret (api_key, client_secret) or shaped like one (Text
// would hide it). A caller that stores such a value verbatim, as a
// workload's extra_body is stored in the hash and every result, refuses
// it instead.
func JSONCredentials(v any, root string) []string {
	return jsonCredentials(v, "", root)
}

func jsonCredentials(v any, key, path string) []string {
	switch x := v.(type) {
	case string:
		if x != "" && (Name(key) || Text(x) != x) {
			return []string{path}
		}
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		var out []string
		for _, k := range keys {
			out = append(out, jsonCredentials(x[k], k, path+"."+k)...)
		}
		return out
	case []any:
		var out []string
		for i, e := range x {
			out = append(out, jsonCredentials(e, key, path+"["+strconv.Itoa(i)+"]")...)
		}
		return out
	}
	return nil
}
