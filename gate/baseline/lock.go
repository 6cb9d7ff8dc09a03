package baseline

import (
	"fmt"
	"os"
	"time"
)

// LockWait bounds how long Update waits for another promotion to the
// same profile to finish.
var LockWait = 2 * time.Minute

// Lock takes the profile's promotion lock (an flock on its directory,
// which it creates), waiting up to wait for another holder; the returned
// function releases it. Two `baseline update` runs on one store used to
// interleave, leaving the baseline of one and the newest history line of
// the other; under the lock each promotion writes both before the next
// starts.
func (s Store) Lock(profile string, wait time.Duration) (func(), error) {
	dir := s.Dir(profile)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(wait)
	for {
		busy, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		if !busy {
			return func() { f.Close() }, nil
		}
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("another promotion holds the lock on %s (waited %v): retry when it has finished", dir, wait)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
