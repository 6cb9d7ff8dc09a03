// Package redact is the one place that decides what is a secret and how a
// secret is hidden. Every writer of anything perfgate records or prints
// (result files, stderr, the PR comment, `perfgate config`) goes through
// it, so the rule cannot drift between copies: once it lived in four
// packages that disagreed, hiding `--max-num-batched-tokens 8192` in one
// place while printing `--auth X` in another.
//
// There are three independent rules, each fail-closed on its own:
//
//   - Names (Name): an environment variable, flag, JSON key or header
//     whose words say it holds a credential (HF_TOKEN, --api-key,
//     NCCL_IB_PASSWORD, Authorization). The words of LLM serving that
//     contain "token" (--max-num-batched-tokens, --time-to-first-token,
//     --inter-token-latency, max_tokens) are not secrets.
//   - Shapes: values that look like a credential whatever they are
//     called (sk-…, ghs_…, github_pat_…, hf_…, a JWT, "Bearer …", the
//     user info of a URL), so `-k sk-…` is hidden although -k says
//     nothing.
//   - Known values (Scrubber): the values of secret variables in the
//     environment and of secret flags, searched for in free text such as
//     a server's log tail or an error body, where no name marks them, as
//     they are and in the escaped forms such text holds them in (JSON
//     strings, Python reprs, URLs: see forms).
//
// Every rule is idempotent: redacting redacted text changes nothing.
//
// The package imports only the standard library, so any package of the
// module may use it.
package redact

// Placeholder replaces every hidden value.
const Placeholder = "[redacted]"
