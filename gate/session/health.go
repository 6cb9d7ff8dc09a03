package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	neturl "net/url"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/perfgate/perfgate/gate/health"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
	"github.com/perfgate/perfgate/gate/server/fingerprint"
	"github.com/perfgate/perfgate/gate/server/scrape"
)

// HealthEnv turns runner health off ("off") or makes its findings
// warnings only ("record"); unset or "on" samples and applies the rules.
// An environment variable rather than a flag: the setting belongs to the
// runner (a shared GPU machine), not to a workload or a command line, and
// every measuring command honours it alike (docs/run.md).
const HealthEnv = "PERFGATE_RUNNER_HEALTH"

// hooks are the trial hooks of every session: the server's /metrics
// counters and gauges go into each Trial.Server, and the client-versus-
// server TTFT warning into Trial.Warnings; a server without /metrics costs
// each trial one warning, never the run (see scrape.Hook). The runner's
// health (GPU and host) goes into each Trial.Health.
func hooks(url string, getenv func(string) string, scrub *redact.Scrubber) []loadgen.TrialHook {
	hs := []loadgen.TrialHook{&scrape.Hook{URL: url}}
	if h := healthHook(url, getenv(HealthEnv), scrub); h != nil {
		hs = append(hs, h)
	}
	return hs
}

// healthHook is the runner-health hook of a session against the server at
// url, nil when mode is "off". A server on another machine gets host
// health only: this machine's GPUs are not the server's. nvidia-smi and
// dmesg run through the fingerprint's bounded exec; /proc is read
// directly; the launched server's process group comes with the context
// server.Supervise hands the session, and its process tree's CPU use is
// told from a neighbour's load (procPids).
func healthHook(url, mode string, scrub *redact.Scrubber) loadgen.TrialHook {
	mode = strings.ToLower(strings.TrimSpace(mode))
	if mode == "off" {
		return nil
	}
	// What nvidia-smi and dmesg say can quote a command line: hide the
	// secrets of the process's environment and arguments and the API key.
	k := &health.Hook{Run: healthExec, ReadFile: os.ReadFile, ServerGroup: server.Group, Pids: procPids, Threads: procThreads, Scrub: scrub}
	if host, local := Local(url); !local {
		k.SkipGPU = fmt.Sprintf("the server (%s) is not on this machine: its GPUs are not sampled, host health of the client only", host)
	}
	switch mode {
	case "", "on":
		return k
	case "record":
		k.RecordOnly = true
		return k
	}
	return &healthWarnHook{Hook: k, warning: fmt.Sprintf("%s=%q is none of off, record, on: runner health was sampled and judged as with on", HealthEnv, mode)}
}

// healthExec runs a tool like the fingerprint does, saying "not
// installed" in health's terms (no nvidia-smi: host health only).
func healthExec(ctx context.Context, name string, args ...string) ([]byte, error) {
	out, err := fingerprint.Exec(ctx, name, args...)
	if errors.Is(err, exec.ErrNotFound) {
		return nil, fmt.Errorf("%w: %v", health.ErrNotInstalled, err)
	}
	return out, err
}

// healthWarnHook is the hook of a mistyped PERFGATE_RUNNER_HEALTH: each
// trial says so, since hooks have no other place to report to.
type healthWarnHook struct {
	*health.Hook
	warning string
}

func (h *healthWarnHook) AfterTrial(ctx context.Context, idx int, t *result.Trial) error {
	err := h.Hook.AfterTrial(ctx, idx, t)
	t.Warnings = append(t.Warnings, h.warning)
	return err
}

// Local reports whether the server at rawURL runs on this machine: a
// loopback, unspecified or local interface address, "localhost", this
// host's name, or a name resolving (within 2 s) to one of those. A URL or
// name that cannot be checked counts as local, so its GPUs are sampled.
func Local(rawURL string) (host string, local bool) {
	u, err := neturl.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return "", true
	}
	host = u.Hostname()
	if name, err := os.Hostname(); host == "localhost" || (err == nil && strings.EqualFold(host, name)) {
		return host, true
	}
	var ips []net.IP
	if ip := net.ParseIP(host); ip != nil {
		ips = []net.IP{ip}
	} else {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
		if err != nil {
			return host, true
		}
		for _, a := range addrs {
			ips = append(ips, a.IP)
		}
	}
	ifaces, err := net.InterfaceAddrs()
	if err != nil {
		return host, true
	}
	for _, ip := range ips {
		if ip.IsLoopback() || ip.IsUnspecified() {
			return host, true
		}
		for _, a := range ifaces {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return host, true
			}
		}
	}
	return host, false
}
