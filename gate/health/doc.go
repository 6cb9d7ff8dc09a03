// Package health samples and judges the runner a benchmark ran on: the
// GPUs (other compute processes, SM clock against its maximum,
// temperature, power, clock event reasons, uncorrected ECC errors, Xid
// errors in the kernel log) and the host (load average against the CPUs,
// CPU steal, available memory). A trial measured on a GPU that throttled
// for a real reason or was shared with another process measured the
// runner, not the server, so it is invalid; one on a busy host carries a
// warning.
//
// The package is pure: it parses what nvidia-smi, dmesg and /proc files
// say and applies the rules. Hook, the per-trial sampler, runs commands
// and reads files only through the functions it is given, so the command
// layer decides what runs (os/exec, os.ReadFile) and tests hand it a fake
// nvidia-smi's output.
package health
