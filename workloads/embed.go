// Package workloads embeds the shipped smoke workloads, so `perfgate demo`
// runs from any directory (and from an installed binary) with the same
// files the repository reviews. The study workloads are read from disk by
// path like any user's workload; only the smoke set is the embedded default.
package workloads

import "embed"

// Smoke holds workloads/smoke/*.yaml.
//
//go:embed smoke/*.yaml
var Smoke embed.FS
