// Package examples embeds the example configuration and workflows, so
// `perfgate init` writes a team's workflows from the same files the
// repository reviews and lints (.ci/actionlint.sh), from any directory and
// from an installed binary.
package examples

import "embed"

// FS holds perfgate.yaml and workflows/*.yml.
//
//go:embed perfgate.yaml workflows/*.yml
var FS embed.FS
