package health

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/perfgate/perfgate/gate/result"
)

// GPUFields are the nvidia-smi --query-gpu columns ParseGPUs reads, in
// order. The clock event reasons column is called clocks_event_reasons
// since driver 535 and clocks_throttle_reasons before (LegacyReasons).
var GPUFields = []string{
	"index", "uuid", "clocks.sm", "clocks.max.sm", "temperature.gpu", "power.draw", "power.limit",
	"utilization.gpu", "clocks_event_reasons.active", "ecc.errors.uncorrected.volatile.total",
}

// LegacyReasons is the clock event reasons column of drivers before 535.
const LegacyReasons = "clocks_throttle_reasons.active"

// GPUQuery is the --query-gpu argument, with the legacy reasons column
// when legacy is set.
func GPUQuery(legacy bool) string {
	f := append([]string(nil), GPUFields...)
	if legacy {
		f[8] = LegacyReasons
	}
	return strings.Join(f, ",")
}

// AppsQuery is the --query-compute-apps argument ParseApps reads.
const AppsQuery = "pid,process_name,used_memory,gpu_uuid"

// ParseGPUs parses nvidia-smi --query-gpu=GPUQuery(...)
// --format=csv,noheader,nounits: one GPU per line. Values the GPU does not
// report ("[N/A]", "[Not Supported]") are left zero (ECC: nil).
func ParseGPUs(out []byte) ([]result.GPUSample, error) {
	r := csv.NewReader(bytes.NewReader(out))
	r.TrimLeadingSpace = true
	r.FieldsPerRecord = len(GPUFields)
	rows, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("nvidia-smi --query-gpu output: %w", err)
	}
	gpus := make([]result.GPUSample, 0, len(rows))
	for i, row := range rows {
		idx, err := strconv.Atoi(strings.TrimSpace(row[0]))
		if err != nil || idx < 0 {
			return nil, fmt.Errorf("nvidia-smi --query-gpu output line %d: GPU index %q is not a number", i+1, clip(row[0]))
		}
		g := result.GPUSample{Index: idx, UUID: oneLine(row[1])}
		for _, f := range []struct {
			dst *float64
			col int
		}{{&g.SMClockMHz, 2}, {&g.MaxSMClockMHz, 3}, {&g.TempC, 4}, {&g.PowerW, 5}, {&g.PowerLimitW, 6}, {&g.UtilPct, 7}} {
			*f.dst = number(row[f.col])
		}
		if bits, ok := parseHex(row[8]); ok {
			g.Reasons = ReasonNames(bits)
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(row[9]), 10, 64); err == nil && n >= 0 {
			g.ECCUncorrected = &n
		}
		gpus = append(gpus, g)
	}
	return gpus, nil
}

// ParseApps parses nvidia-smi --query-compute-apps=AppsQuery
// --format=csv,noheader,nounits. nvidia-smi does not quote the process
// name, so a name with commas spans several fields: the pid is the first,
// the GPU's UUID the last and the memory the one before it. Owner is left
// empty for Classify.
func ParseApps(out []byte) ([]result.GPUProcess, error) {
	var apps []result.GPUProcess
	for i, line := range strings.Split(string(out), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "No running") {
			continue
		}
		f := strings.Split(line, ",")
		if len(f) < 4 {
			return nil, fmt.Errorf("nvidia-smi --query-compute-apps output line %d: %d fields, want 4", i+1, len(f))
		}
		pid, err := strconv.Atoi(strings.TrimSpace(f[0]))
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("nvidia-smi --query-compute-apps output line %d: pid %q is not a number", i+1, clip(f[0]))
		}
		apps = append(apps, result.GPUProcess{
			PID:     pid,
			Name:    clip(oneLine(strings.Join(f[1:len(f)-2], ","))),
			UsedMiB: number(f[len(f)-2]),
			GPU:     oneLine(f[len(f)-1]),
		})
	}
	return apps, nil
}

// ParseLoadavg returns the one-minute load average of /proc/loadavg.
func ParseLoadavg(data []byte) (float64, error) {
	return firstNumber(data, "/proc/loadavg", 1e9, "load %q is not a number")
}

// firstNumber is the first field of the /proc file path as a number in
// [0, max]. bad words the error for a field that is not one, around a %q
// for the field.
func firstNumber(data []byte, path string, max float64, bad string) (float64, error) {
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0, fmt.Errorf("%s is empty", path)
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil || v < 0 || v > max {
		return 0, fmt.Errorf("%s: "+bad, path, clip(f[0]))
	}
	return v, nil
}

// CPUTimes are the aggregate "cpu" line of /proc/stat, in clock ticks:
// Total over every state, Steal the time the hypervisor gave to others.
type CPUTimes struct {
	Total, Steal uint64
	// CPUs counts the "cpuN" lines (the online CPUs).
	CPUs int
}

// ParseStat reads the aggregate cpu line of /proc/stat. Columns: user nice
// system idle iowait irq softirq steal guest guest_nice; guest time is
// already part of user, so it is not added again.
func ParseStat(data []byte) (CPUTimes, error) {
	var t CPUTimes
	found := false
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], "cpu") {
			continue
		}
		if f[0] != "cpu" {
			if _, err := strconv.Atoi(f[0][3:]); err == nil {
				t.CPUs++
			}
			continue
		}
		if len(f) < 5 {
			return CPUTimes{}, fmt.Errorf("/proc/stat: cpu line has %d columns", len(f)-1)
		}
		for i, s := range f[1:] {
			if i >= 8 {
				break // guest, guest_nice are inside user, nice
			}
			v, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return CPUTimes{}, fmt.Errorf("/proc/stat: cpu column %d %q is not a number", i+1, clip(s))
			}
			if t.Total+v < t.Total {
				return CPUTimes{}, fmt.Errorf("/proc/stat: cpu times overflow")
			}
			t.Total += v
			if i == 7 {
				t.Steal = v
			}
		}
		found = true
	}
	if !found {
		return CPUTimes{}, fmt.Errorf("/proc/stat has no cpu line")
	}
	return t, nil
}

// StealPct is the share of CPU time stolen between two readings, in
// percent; 0 when no time passed or the counters went back.
func StealPct(before, after CPUTimes) float64 {
	if after.Total <= before.Total || after.Steal < before.Steal {
		return 0
	}
	return 100 * float64(after.Steal-before.Steal) / float64(after.Total-before.Total)
}

// ParseMeminfo returns MemAvailable and MemTotal of /proc/meminfo in MiB.
func ParseMeminfo(data []byte) (avail, total float64, err error) {
	var okA, okT bool
	for _, line := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		if len(f) == 0 || (k != "MemAvailable" && k != "MemTotal") {
			continue
		}
		kb, perr := strconv.ParseUint(f[0], 10, 64)
		if perr != nil {
			return 0, 0, fmt.Errorf("/proc/meminfo: %s %q is not a number", k, clip(f[0]))
		}
		if k == "MemAvailable" {
			avail, okA = float64(kb)/1024, true
		} else {
			total, okT = float64(kb)/1024, true
		}
	}
	if !okA || !okT {
		return 0, 0, fmt.Errorf("/proc/meminfo lacks MemAvailable or MemTotal")
	}
	return avail, total, nil
}

// Xid is one NVIDIA Xid error line of the kernel log.
type Xid struct {
	// At is the kernel timestamp in seconds since boot.
	At float64
	// Line is the message from "NVRM: Xid" on, one line, clipped.
	Line string
}

var xidRe = regexp.MustCompile(`^\[\s*([0-9]+\.[0-9]+)\].*?(NVRM: Xid.*)$`)

// ParseXid returns the Xid errors of dmesg's output (lines such as
// "[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=..., GPU has fallen
// off the bus."), in the log's order.
func ParseXid(out []byte) []Xid {
	var xs []Xid
	for _, line := range strings.Split(string(out), "\n") {
		m := xidRe.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		at, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			continue
		}
		xs = append(xs, Xid{At: at, Line: clip(oneLine(m[2]))})
	}
	return xs
}

// ProcStat is what Owner and the own-load reading (ownload.go) need of
// /proc/<pid>/stat.
type ProcStat struct {
	PPID, PGRP int
	// Start is the process's start time in clock ticks since boot; 0
	// when the line is too short to say.
	Start uint64
	// CPU is the CPU time the process used (utime + stime), Children
	// the CPU time of its children it waited for (cutime + cstime), both
	// in clock ticks; 0 when the line is too short to say.
	CPU, Children uint64
}

// ParseProcStat parses /proc/<pid>/stat: "pid (comm) state ppid pgrp ...",
// where comm may hold spaces and parentheses; the start time is field 22.
func ParseProcStat(data []byte) (ProcStat, error) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return ProcStat{}, fmt.Errorf("proc stat: no command name")
	}
	f := strings.Fields(string(data[i+1:]))
	if len(f) < 3 {
		return ProcStat{}, fmt.Errorf("proc stat: %d fields after the command name", len(f))
	}
	ppid, err1 := strconv.Atoi(f[1])
	pgrp, err2 := strconv.Atoi(f[2])
	if err1 != nil || err2 != nil {
		return ProcStat{}, fmt.Errorf("proc stat: ppid %q or pgrp %q is not a number", clip(f[1]), clip(f[2]))
	}
	st := ProcStat{PPID: ppid, PGRP: pgrp}
	if len(f) > 14 {
		// utime, stime, cutime, cstime: fields 14 to 17 of the line.
		var t [4]uint64
		for i := range t {
			// More than 2^40 ticks (348 years at 100 Hz) is no reading.
			if v, err := strconv.ParseUint(f[11+i], 10, 64); err == nil && v < 1<<40 {
				t[i] = v
			}
		}
		st.CPU, st.Children = t[0]+t[1], t[2]+t[3]
	}
	if len(f) > 19 {
		st.Start, _ = strconv.ParseUint(f[19], 10, 64)
	}
	return st, nil
}

// number parses a nvidia-smi value; "[N/A]", "[Not Supported]" and other
// non-numbers are 0.
func number(s string) float64 {
	v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || v != v || v < 0 || v > 1e12 {
		return 0
	}
	return v
}

func parseHex(s string) (uint64, bool) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return 0, false
	}
	v, err := strconv.ParseUint(s[2:], 16, 64)
	return v, err == nil
}

// oneLine replaces control characters with spaces and trims: values from
// tools end up in one-line reasons and reports.
func oneLine(s string) string {
	return strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, strings.ToValidUTF8(s, "\uFFFD")))
}

// clip bounds a quoted value at 120 bytes, on a rune boundary.
func clip(s string) string {
	const n = 120
	if len(s) <= n {
		return s
	}
	for i := n; i > 0; i-- {
		if (s[i] & 0xC0) != 0x80 {
			return s[:i] + "…"
		}
	}
	return s[:n]
}
