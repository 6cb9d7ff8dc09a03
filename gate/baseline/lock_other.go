//go:build !unix

package baseline

import "os"

// tryLock does not lock where flock is unavailable: concurrent promotions
// to one store there are the caller's to avoid (docs/baselines.md).
func tryLock(*os.File) (bool, error) { return false, nil }
