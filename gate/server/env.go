package server

import "strings"

// ciCredentials are the variables of the CI environment that carry
// perfgate's own credentials, never the server's: the token that may
// write to the pull request (GITHUB_TOKEN, GH_TOKEN, the github-token
// input as INPUT_GITHUB-TOKEN, PERFGATE_GITHUB_TOKEN) and the runner's
// internal tokens and endpoints (every ACTIONS_* variable:
// ACTIONS_RUNTIME_TOKEN, ACTIONS_ID_TOKEN_REQUEST_TOKEN,
// ACTIONS_ID_TOKEN_REQUEST_URL, ACTIONS_CACHE_URL, ...). The candidate
// server is code under test from a pull request: it must not inherit
// them, or a server that logs its environment puts them into the log tail
// that perfgate records and prints.
//
// This is an explicit list on purpose: it names CI credentials, not
// secrets in general (an HF_TOKEN in the environment is the server's own
// and must reach it).
var ciCredentials = []string{"GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN",
	"PERFGATE_GITHUB_TOKEN", "INPUT_GITHUB-TOKEN", "INPUT_GITHUB_TOKEN"}

// ciCredentialPrefixes are name prefixes withheld like ciCredentials.
var ciCredentialPrefixes = []string{"ACTIONS_"}

// CICredential reports whether the environment variable name is one of
// the CI credentials a launched server never inherits.
func CICredential(name string) bool {
	upper := strings.ToUpper(name)
	for _, n := range ciCredentials {
		if upper == n {
			return true
		}
	}
	for _, p := range ciCredentialPrefixes {
		if strings.HasPrefix(upper, p) {
			return true
		}
	}
	return false
}

// serverEnv is the launched server's environment: base without the CI
// credentials, then the overrides (server.env, which the user wrote and
// which win, credentials included: setting one there is a choice).
func serverEnv(base []string, overrides map[string]string) []string {
	kept := make([]string, 0, len(base))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if !CICredential(name) {
			kept = append(kept, kv)
		}
	}
	return mergeEnv(kept, overrides)
}
