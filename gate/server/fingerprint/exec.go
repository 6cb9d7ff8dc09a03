package fingerprint

import "context"

// Exec is the Runner Collect uses by default: a program found on PATH,
// bounded to 15 s, its error naming the program with the start of its
// stderr. The runner-health sampler runs nvidia-smi the same way.
func Exec(ctx context.Context, name string, args ...string) ([]byte, error) {
	return execRunner(ctx, name, args...)
}
