package workload

import "strings"

// extraCredentialError is the message for extra_body values that are
// credentials (redact.JSONCredentials found them at paths). extra_body is
// public: it is stored verbatim in the hash and the spec of every result,
// and sent in every request body, so a credential there would be in every
// file a run writes (issue 20 item 11); a secret belongs in a header read
// from the environment, which perfgate never records.
func extraCredentialError(paths []string) string {
	return strings.Join(paths, ", ") + ": looks like a credential (by its key or its shape), and extra_body is stored verbatim " +
		"in the hash and every result: send a secret as a header read from the environment " +
		"(headers: {X-Name: {env: VARIABLE}}), which no file records"
}
