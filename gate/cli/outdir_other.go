//go:build !unix

package cli

import "os"

// lockFile does nothing where flock does not exist: concurrent runs into
// one output directory are then the user's to avoid.
func lockFile(*os.File) error { return nil }
