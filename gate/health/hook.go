package health

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfgate/perfgate/gate/background"
	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
)

// Runner runs a program and returns its standard output. It returns an
// error wrapping ErrNotInstalled when the program is not on PATH.
type Runner func(ctx context.Context, name string, args ...string) ([]byte, error)

// ErrNotInstalled says a program is not installed (no nvidia-smi on a CPU
// runner): the caller's Runner wraps it, since this package runs nothing.
var ErrNotInstalled = errors.New("not installed")

// ErrHung says a program did not answer within the Runner's bound once
// in this run, so the Hook does not ask it again: a wedged driver hangs
// every nvidia-smi, and asking at every sample made two trials take 480 s
// (issue 20 item 6). A Runner reports a time-out of its own by wrapping
// context.DeadlineExceeded.
var ErrHung = errors.New("did not answer in time")

// Defaults of a zero Hook.
const (
	DefaultInterval   = 10 * time.Second
	DefaultMaxSamples = 12
	// maxProcesses bounds the compute processes recorded per trial.
	maxProcesses = 64
)

// Hook samples the runner's health around every trial; it satisfies
// loadgen's TrialHook. BeforeTrial takes the start sample (and the CPU
// time and kernel log readings the end is compared with) and starts
// periodic sampling in the background, off the requests' path;
// AfterTrial stops it, takes the end sample, records t.Health and applies
// the rules. Sampling failures are notes in the record, never errors: the
// health of the runner is context for the measurement, not part of it.
type Hook struct {
	// Run runs nvidia-smi and dmesg; ReadFile reads /proc files. Both are
	// required.
	Run      Runner
	ReadFile func(string) ([]byte, error)
	// ServerGroup returns the launched server's process group id, 0 when
	// perfgate did not launch it; nil means never launched.
	ServerGroup func(ctx context.Context) int
	// Pids lists the host's processes (/proc's numeric entries). With it,
	// every sample reads the load of the launched server's process tree
	// and of perfgate (/proc/<pid>/stat, /proc/self/stat, /proc/uptime
	// and schedstat through ReadFile), and the busy-host rule counts only
	// the neighbours' load (ownload.go); nil judges the whole load.
	Pids func() ([]int, error)
	// Threads lists the threads of /proc/<proc> (a pid, or "self"):
	// /proc/<proc>/task's entries. With it the own load is the time those
	// threads were runnable (schedstat), else their CPU time (ownread.go).
	Threads func(proc string) ([]int, error)
	// Now is the clock of the own-load readings; nil is time.Now.
	Now func() time.Time
	// Interval between periodic samples (DefaultInterval when zero);
	// MaxSamples bounds the samples kept per trial (DefaultMaxSamples):
	// when a long trial reaches it, every other periodic sample is dropped
	// and the interval doubles, so the samples still span the trial.
	Interval   time.Duration
	MaxSamples int
	// Limits are the host warnings' thresholds (DefaultLimits when zero).
	Limits Limits
	// RecordOnly records everything but turns invalidating findings into
	// warnings (a shared GPU where other processes are expected).
	RecordOnly bool
	// SkipGPU, when set, says why this machine's GPUs are not the
	// server's (it runs elsewhere): they are not sampled, and SkipGPU is
	// recorded as Health.GPU.
	SkipGPU string
	// Scrub hides the secrets perfgate knows in what the tools print and
	// in their errors, before anything of it is parsed, cut or recorded:
	// nvidia-smi's error text and the kernel log can quote a process's
	// command line (issue 20 item 10: the API key reached comment.md).
	// Nil hides credential-shaped values only.
	Scrub *redact.Scrubber

	mu      sync.Mutex
	hung    map[string]error // programs not asked again (ErrHung)
	legacy  bool             // the driver wants clocks_throttle_reasons
	gpuOK   bool             // nvidia-smi answered once in this run
	noGPU   string           // why GPUs are not sampled in this run, once known
	atStart map[int]bool
	own     ownState // ownread.go
	cur     *trial
	loop    background.Loop // the periodic sampler of the current trial
}

// trial is the state of the trial being sampled.
type trial struct {
	start       time.Time
	serverGroup int
	h           result.Health
	cpu0        CPUTimes
	cpuOK       bool
	xidAfter    float64
	xidOK       bool
	seen        map[string]bool // pid/GPU pairs already in h.Processes
}

// BeforeTrial takes the start sample and starts periodic sampling.
func (k *Hook) BeforeTrial(ctx context.Context, idx int) error {
	k.loop.Halt()
	tr := &trial{start: time.Now(), seen: map[string]bool{}}
	if k.ServerGroup != nil {
		tr.serverGroup = k.ServerGroup(ctx)
	}
	tr.h.OwnLoad = k.ownNote(tr.serverGroup)
	if data, err := k.ReadFile("/proc/stat"); err != nil {
		tr.note("CPU steal not read: " + err.Error())
	} else if c, err := ParseStat(data); err != nil {
		tr.note(err.Error())
	} else {
		tr.cpu0, tr.cpuOK, tr.h.CPUs = c, true, c.CPUs
	}
	k.sample(ctx, tr)
	k.mu.Lock()
	gpu := k.gpuOK
	k.mu.Unlock()
	if gpu {
		tr.xidAfter, tr.xidOK = k.xidMark(ctx, tr)
	}
	k.mu.Lock()
	k.cur = tr
	k.mu.Unlock()
	k.loop.Start(ctx, func(ctx context.Context) { k.periodic(ctx, tr) })
	return nil
}

// AfterTrial stops sampling, takes the end sample and records t.Health.
func (k *Hook) AfterTrial(ctx context.Context, idx int, t *result.Trial) error {
	k.loop.Halt()
	k.mu.Lock()
	tr := k.cur
	k.cur = nil
	k.mu.Unlock()
	if tr == nil {
		return nil
	}
	k.sample(ctx, tr)
	if tr.cpuOK {
		if data, err := k.ReadFile("/proc/stat"); err == nil {
			if c, err := ParseStat(data); err == nil {
				tr.h.Summary.StealPct = StealPct(tr.cpu0, c)
			}
		}
	}
	k.mu.Lock()
	gpuOK, noGPU := k.gpuOK, k.noGPU
	k.mu.Unlock()
	switch {
	case gpuOK:
		tr.h.GPU = "nvidia-smi"
		if tr.xidOK {
			k.xidSince(ctx, tr)
		}
	case noGPU != "":
		tr.h.GPU = noGPU
	default:
		tr.h.GPU = "not sampled"
	}
	Summarize(&tr.h)
	Apply(t, &tr.h, k.Limits, k.RecordOnly)
	return nil
}

// periodic samples every interval until ctx ends.
func (k *Hook) periodic(ctx context.Context, tr *trial) {
	interval := k.Interval
	if interval <= 0 {
		interval = DefaultInterval
	}
	for {
		timer := time.NewTimer(interval)
		select {
		case <-ctx.Done():
			timer.Stop()
			return
		case <-timer.C:
		}
		if k.sample(ctx, tr) {
			interval *= 2
		}
	}
}

// sample appends one sample to tr; it reports whether the kept samples
// were thinned (the caller doubles its interval).
func (k *Hook) sample(ctx context.Context, tr *trial) (thinned bool) {
	s := result.HealthSample{}
	var notes []string
	if data, err := k.ReadFile("/proc/loadavg"); err != nil {
		notes = append(notes, "load average not read: "+err.Error())
	} else if v, err := ParseLoadavg(data); err != nil {
		notes = append(notes, err.Error())
	} else {
		s.Load1 = v
	}
	if data, err := k.ReadFile("/proc/meminfo"); err != nil {
		notes = append(notes, "available memory not read: "+err.Error())
	} else if a, t, err := ParseMeminfo(data); err != nil {
		notes = append(notes, err.Error())
	} else {
		s.MemAvailableMiB, s.MemTotalMiB = a, t
	}
	gpus, apps, gpuNotes := k.gpus(ctx)
	s.GPUs = gpus
	notes = append(notes, gpuNotes...)
	if tr.h.OwnLoad == OwnCounted {
		// A sample without it counts the whole load: the rule errs
		// towards busy.
		if own, err := k.ownSample(tr.serverGroup); err != nil {
			notes = append(notes, "own load not read, the whole load counted: "+err.Error())
		} else {
			s.OwnLoad = own
		}
	}

	k.mu.Lock()
	defer k.mu.Unlock()
	if ctx.Err() != nil && len(tr.h.Samples) > 0 {
		return false // cancelled mid-sample: its readings may be partial
	}
	s.AtS = time.Since(tr.start).Seconds()
	for _, n := range notes {
		tr.note(n)
	}
	if apps != nil && k.atStart == nil {
		k.atStart = map[int]bool{}
		for _, a := range apps {
			k.atStart[a.PID] = true
		}
	}
	for _, a := range apps {
		key := strconv.Itoa(a.PID) + "/" + a.GPU
		if tr.seen[key] || len(tr.h.Processes) >= maxProcesses {
			continue
		}
		tr.seen[key] = true
		a.Owner = Owner(a.PID, tr.serverGroup, k.procStat, k.atStart)
		tr.h.Processes = append(tr.h.Processes, a)
	}
	max := k.MaxSamples
	if max <= 0 {
		max = DefaultMaxSamples
	}
	if len(tr.h.Samples) >= max-1 { // room for the end sample
		kept := tr.h.Samples[:1]
		for i := 2; i < len(tr.h.Samples); i += 2 {
			kept = append(kept, tr.h.Samples[i])
		}
		tr.h.Samples, thinned = kept, true
	}
	tr.h.Samples = append(tr.h.Samples, s)
	return thinned
}

// gpus queries nvidia-smi for the GPUs and their compute processes. apps
// is nil when the processes were not read.
func (k *Hook) gpus(ctx context.Context) (gpus []result.GPUSample, apps []result.GPUProcess, notes []string) {
	k.mu.Lock()
	if k.SkipGPU != "" && k.noGPU == "" {
		k.noGPU = k.SkipGPU
	}
	skip, legacy, seenOK := k.noGPU != "", k.legacy, k.gpuOK
	k.mu.Unlock()
	if skip {
		return nil, nil, nil
	}
	out, err := k.run(ctx, "nvidia-smi", "--query-gpu="+GPUQuery(legacy), "--format=csv,noheader,nounits")
	if err != nil && !legacy && !errors.Is(err, ErrNotInstalled) && !errors.Is(err, ErrHung) {
		// Drivers before 535 know the reasons column by its old name.
		if o2, err2 := k.run(ctx, "nvidia-smi", "--query-gpu="+GPUQuery(true), "--format=csv,noheader,nounits"); err2 == nil {
			out, err, legacy = o2, nil, true
		}
	}
	if err == nil {
		gpus, err = ParseGPUs(out)
	}
	switch {
	case errors.Is(err, ErrNotInstalled):
		k.setNoGPU("no nvidia-smi on PATH: host health only")
		return nil, nil, nil
	case errors.Is(err, ErrHung) && !seenOK:
		k.setNoGPU(err.Error() + ": host health only")
		return nil, nil, nil
	case errors.Is(err, ErrHung):
		return nil, nil, []string{err.Error()}
	case err != nil && !seenOK:
		// Installed but failing from the start (no driver loaded): a CPU
		// runner with the tools, host health only.
		k.setNoGPU("nvidia-smi failed, host health only: " + clip(oneLine(err.Error())))
		return nil, nil, nil
	case err != nil:
		return nil, nil, []string{"nvidia-smi failed: " + clip(oneLine(err.Error()))}
	}
	k.mu.Lock()
	k.gpuOK, k.legacy = true, legacy
	k.mu.Unlock()
	out, err = k.run(ctx, "nvidia-smi", "--query-compute-apps="+AppsQuery, "--format=csv,noheader,nounits")
	if err == nil {
		apps, err = ParseApps(out)
	}
	if err != nil {
		return gpus, nil, []string{"GPU processes not read: " + clip(oneLine(err.Error()))}
	}
	if apps == nil {
		apps = []result.GPUProcess{}
	}
	return gpus, apps, nil
}

func (k *Hook) setNoGPU(why string) {
	k.mu.Lock()
	k.noGPU = why
	k.mu.Unlock()
}

// procStat reads /proc/<pid>/stat for Owner.
func (k *Hook) procStat(pid int) (ProcStat, bool) {
	data, err := k.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ProcStat{}, false
	}
	st, err := ParseProcStat(data)
	return st, err == nil
}

// dmesgNote explains an unreadable kernel log; kernel.dmesg_restrict = 1
// (Debian's and Ubuntu's default) lets only root or CAP_SYSLOG read it.
func (k *Hook) dmesgNote(err error) string {
	if errors.Is(err, ErrNotInstalled) {
		return "Xid errors not read: no dmesg on PATH"
	}
	msg := "Xid errors not read: " + clip(oneLine(err.Error()))
	if data, rerr := k.ReadFile("/proc/sys/kernel/dmesg_restrict"); rerr == nil && strings.TrimSpace(string(data)) == "1" {
		msg += " (kernel.dmesg_restrict = 1: only root or CAP_SYSLOG may read the kernel log)"
	}
	return msg
}

// xidMark reads the kernel log at the trial's start: the time of its last
// Xid, after which the end's reading looks.
func (k *Hook) xidMark(ctx context.Context, tr *trial) (float64, bool) {
	out, err := k.run(ctx, "dmesg")
	if err != nil {
		tr.h.XidNote = k.dmesgNote(err)
		return 0, false
	}
	last := 0.0
	for _, x := range ParseXid(out) {
		last = max(last, x.At)
	}
	return last, true
}

// xidSince records the Xid errors logged after the start's mark.
func (k *Hook) xidSince(ctx context.Context, tr *trial) {
	out, err := k.run(ctx, "dmesg")
	if err != nil {
		tr.h.XidNote = k.dmesgNote(err)
		return
	}
	for _, x := range ParseXid(out) {
		if x.At > tr.xidAfter && len(tr.h.Xid) < 16 {
			tr.h.Xid = append(tr.h.Xid, x.Line)
		}
	}
}

// note records a sampling failure once per trial.
func (tr *trial) note(n string) {
	for _, have := range tr.h.Notes {
		if have == n {
			return
		}
	}
	if len(tr.h.Notes) < 16 {
		tr.h.Notes = append(tr.h.Notes, n)
	}
}
