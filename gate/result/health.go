package result

// Health is what perfgate saw of the runner (the machine the server runs
// on, when it is this one) during one trial: samples of the GPUs and the
// host taken at the trial's start, end and periodically between, and the
// summary the validity rules read (package health). A trial whose GPU
// throttled for a real reason or was shared with another process measured
// the runner, not the server; one on a busy host carries a warning.
type Health struct {
	// GPU says whether the GPUs were sampled: "nvidia-smi", or why not
	// ("no nvidia-smi on PATH: host health only"). A runner without GPUs
	// is recorded as such, never an error.
	GPU string `json:"gpu"`
	// CPUs is the number of online CPUs the load average is compared with.
	CPUs int `json:"cpus,omitempty"`
	// Samples are in time order, the first at the trial's start and the
	// last at its end; long trials keep every other periodic sample.
	Samples []HealthSample `json:"samples,omitempty"`
	// Processes are the distinct GPU compute processes seen during the
	// trial, the server's own included (Owner says whose).
	Processes []GPUProcess `json:"processes,omitempty"`
	// Xid lists the NVIDIA Xid errors the kernel logged during the trial;
	// XidNote says why they could not be read, when they could not.
	Xid     []string `json:"xid,omitempty"`
	XidNote string   `json:"xid_note,omitempty"`
	// Summary condenses the samples; the rules and the report read it.
	Summary HealthSummary `json:"summary"`
	// Notes are sampling failures (a tool that failed once), kept as data.
	Notes []string `json:"notes,omitempty"`
	// OwnLoad says whose CPU use the samples' OwnLoad counts (package
	// health: the launched server's process tree and perfgate), or why
	// it was not counted (a server given by URL); empty in records from
	// before it was read, judged on the whole load average.
	OwnLoad string `json:"own_load,omitempty"`
}

// HealthSample is one look at the runner.
type HealthSample struct {
	// AtS is the time since the trial's start, in seconds.
	AtS float64 `json:"at_s"`
	// Load1 is the one-minute load average (/proc/loadavg).
	Load1 float64 `json:"load1"`
	// MemAvailableMiB and MemTotalMiB are /proc/meminfo's MemAvailable and
	// MemTotal; zero when unreadable.
	MemAvailableMiB float64     `json:"mem_available_mib,omitempty"`
	MemTotalMiB     float64     `json:"mem_total_mib,omitempty"`
	GPUs            []GPUSample `json:"gpus,omitempty"`
	// OwnLoad is the threads of the server and perfgate that were
	// runnable (or, where that is not readable, the CPUs they kept busy),
	// damped over the last minute as Load1 is, so Load1 - OwnLoad is the neighbours'
	// share of the load (Health.OwnLoad says whose; 0 when not read).
	OwnLoad float64 `json:"own_load,omitempty"`
}

// GPUSample is one GPU in one sample, as nvidia-smi --query-gpu said.
// Fields the GPU does not report ([N/A]) are left zero; ECCUncorrected is
// nil then, since zero errors is a reading.
type GPUSample struct {
	Index         int     `json:"index"`
	UUID          string  `json:"uuid,omitempty"`
	SMClockMHz    float64 `json:"sm_clock_mhz,omitempty"`
	MaxSMClockMHz float64 `json:"max_sm_clock_mhz,omitempty"`
	TempC         float64 `json:"temp_c,omitempty"`
	PowerW        float64 `json:"power_w,omitempty"`
	PowerLimitW   float64 `json:"power_limit_w,omitempty"`
	UtilPct       float64 `json:"util_pct,omitempty"`
	// Reasons are the active clock event (throttle) reasons by name, such
	// as "gpu_idle" or "hw_slowdown" (see package health).
	Reasons        []string `json:"reasons,omitempty"`
	ECCUncorrected *int64   `json:"ecc_uncorrected,omitempty"`
}

// GPUProcess is a compute process nvidia-smi listed.
type GPUProcess struct {
	PID     int     `json:"pid"`
	Name    string  `json:"name,omitempty"`
	GPU     string  `json:"gpu,omitempty"` // the GPU's UUID
	UsedMiB float64 `json:"used_mib,omitempty"`
	// Owner is "server" (the launched server's process tree), "assumed
	// server" (already on the GPU when the run began, and perfgate cannot
	// tell whose it is) or "other".
	Owner string `json:"owner"`
}

// HealthSummary condenses a trial's health samples. Figures that were not
// read are zero (MinSMClockPct, MaxTempC, ... without GPUs).
type HealthSummary struct {
	// MinSMClockPct is the lowest SM clock as a percentage of the GPU's
	// maximum over the samples in which the GPU was not idle.
	MinSMClockPct float64 `json:"min_sm_clock_pct,omitempty"`
	MaxTempC      float64 `json:"max_temp_c,omitempty"`
	MaxPowerW     float64 `json:"max_power_w,omitempty"`
	// Throttled lists the real slowdown reasons seen (hw_slowdown,
	// hw_thermal_slowdown, hw_power_brake_slowdown, sw_thermal_slowdown);
	// Reasons every reason seen, benign ones included.
	Throttled []string `json:"throttled,omitempty"`
	Reasons   []string `json:"reasons,omitempty"`
	// ECCErrors is the increase of the volatile uncorrected ECC count over
	// the trial, summed over the GPUs.
	ECCErrors int64 `json:"ecc_errors,omitempty"`
	// OtherProcesses counts the compute processes that were not the
	// server's.
	OtherProcesses int `json:"other_processes,omitempty"`
	// MaxLoad1 is the highest one-minute load average seen; StealPct the
	// share of CPU time the hypervisor stole over the trial (/proc/stat);
	// MinMemAvailableMiB the least memory available.
	MaxLoad1 float64 `json:"max_load1"`
	StealPct float64 `json:"steal_pct"`
	// MaxOtherLoad1 is the highest load average less the samples'
	// OwnLoad: the neighbours' load, which the busy-host rule reads when
	// Health.OwnLoad counted the server's own.
	MaxOtherLoad1      float64 `json:"max_other_load1,omitempty"`
	MinMemAvailableMiB float64 `json:"min_mem_available_mib,omitempty"`
	MemTotalMiB        float64 `json:"mem_total_mib,omitempty"`
}
