package health

import (
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

func i64(v int64) *int64 { return &v }

func TestParseGPUs(t *testing.T) {
	out := "0, GPU-aaa, 1980, 1980, 61, 512.33, 700.00, 97, 0x0000000000000000, 0\n" +
		"1, GPU-bbb, 1410, 1980, 88, 698.10, 700.00, 100, 0x0000000000000048, 2\n" +
		"2, GPU-ccc, 210, 1980, 35, 71.2, 700.00, 0, 0x0000000000000001, [N/A]\n" +
		"3, GPU-ddd, [N/A], [N/A], [N/A], [Not Supported], [N/A], [N/A], [N/A], [Not Supported]\n"
	got, err := ParseGPUs([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := []result.GPUSample{
		{Index: 0, UUID: "GPU-aaa", SMClockMHz: 1980, MaxSMClockMHz: 1980, TempC: 61, PowerW: 512.33, PowerLimitW: 700, UtilPct: 97, ECCUncorrected: i64(0)},
		{Index: 1, UUID: "GPU-bbb", SMClockMHz: 1410, MaxSMClockMHz: 1980, TempC: 88, PowerW: 698.1, PowerLimitW: 700, UtilPct: 100,
			Reasons: []string{"hw_slowdown", "hw_thermal_slowdown"}, ECCUncorrected: i64(2)},
		{Index: 2, UUID: "GPU-ccc", SMClockMHz: 210, MaxSMClockMHz: 1980, TempC: 35, PowerW: 71.2, PowerLimitW: 700, Reasons: []string{"gpu_idle"}},
		{Index: 3, UUID: "GPU-ddd"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseGPUs:\n got %+v\nwant %+v", got, want)
	}
	for _, bad := range []string{
		"0, GPU-aaa, 1980\n", // too few columns
		"x, GPU-aaa, 1980, 1980, 61, 512, 700, 97, 0x0, 0\n",        // no index
		"0, GPU-aaa, 1980, 1980, 61, 512, 700, 97, 0x0, 0, extra\n", // too many
	} {
		if _, err := ParseGPUs([]byte(bad)); err == nil || !strings.Contains(err.Error(), "nvidia-smi") {
			t.Errorf("ParseGPUs(%q) error %v, want one naming nvidia-smi", bad, err)
		}
	}
}

func TestParseApps(t *testing.T) {
	tests := []struct {
		name, out string
		want      []result.GPUProcess
		err       bool
	}{
		{"none", "", nil, false},
		{"one", "4242, python3, 70123, GPU-aaa\n", []result.GPUProcess{{PID: 4242, Name: "python3", UsedMiB: 70123, GPU: "GPU-aaa"}}, false},
		// nvidia-smi does not quote: a comma in the name spans fields.
		{"comma in name", "7, /opt/my,app --x, [N/A], GPU-b\n", []result.GPUProcess{{PID: 7, Name: "/opt/my,app --x", GPU: "GPU-b"}}, false},
		{"no processes text", "No running processes found\n", nil, false},
		{"short", "4242, python3\n", nil, true},
		{"bad pid", "abc, python3, 1, GPU-a\n", nil, true},
	}
	for _, tt := range tests {
		got, err := ParseApps([]byte(tt.out))
		if (err != nil) != tt.err || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: ParseApps = %+v, %v; want %+v (error %v)", tt.name, got, err, tt.want, tt.err)
		}
	}
}

// TestParseFirstNumber pins what ParseLoadavg and ParseUptime answer
// through their shared firstNumber, errors to the letter: they reach the
// trial's health notes.
func TestParseFirstNumber(t *testing.T) {
	for _, tt := range []struct {
		name, data string
		parse      func([]byte) (float64, error)
		want       float64
		err        string
	}{
		{"loadavg", "3.52 2.10 1.00 4/812 99123\n", ParseLoadavg, 3.52, ""},
		{"loadavg empty", " \n", ParseLoadavg, 0, "/proc/loadavg is empty"},
		{"loadavg negative", "-1 0 0", ParseLoadavg, 0, `/proc/loadavg: load "-1" is not a number`},
		{"loadavg beyond 1e9", "2e9 0 0", ParseLoadavg, 0, `/proc/loadavg: load "2e9" is not a number`},
		{"uptime", "12345.67 40000.00\n", ParseUptime, 12345.67, ""},
		{"uptime empty", "", ParseUptime, 0, "/proc/uptime is empty"},
		{"uptime text", "up 3", ParseUptime, 0, `/proc/uptime: "up" is not a number of seconds`},
		{"uptime beyond 1e12", "2e12 0", ParseUptime, 0, `/proc/uptime: "2e12" is not a number of seconds`},
	} {
		v, err := tt.parse([]byte(tt.data))
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if v != tt.want || msg != tt.err {
			t.Errorf("%s: got %v, %q; want %v, %q", tt.name, v, msg, tt.want, tt.err)
		}
	}
}

func TestParseHost(t *testing.T) {
	if v, err := ParseLoadavg([]byte("3.52 2.10 1.00 4/812 99123\n")); err != nil || v != 3.52 {
		t.Errorf("ParseLoadavg = %v, %v", v, err)
	}
	for _, bad := range []string{"", "x 1 2", "-1 0 0"} {
		if _, err := ParseLoadavg([]byte(bad)); err == nil {
			t.Errorf("ParseLoadavg(%q): no error", bad)
		}
	}
	stat := "cpu  100 0 50 800 10 0 5 35 20 0\ncpu0 50 0 25 400 5 0 2 18 10 0\ncpu1 50 0 25 400 5 0 3 17 10 0\nintr 1 2\ncpufreq x\n"
	c, err := ParseStat([]byte(stat))
	if err != nil || c != (CPUTimes{Total: 1000, Steal: 35, CPUs: 2}) {
		t.Errorf("ParseStat = %+v, %v", c, err)
	}
	// Steal over an interval: 35 -> 95 ticks of 1000 -> 2000.
	if got := StealPct(c, CPUTimes{Total: 2000, Steal: 95}); got != 6 {
		t.Errorf("StealPct = %v, want 6", got)
	}
	if got := StealPct(c, c); got != 0 {
		t.Errorf("StealPct over no time = %v", got)
	}
	for _, bad := range []string{"", "cpu 1 2\n", "cpu 1 x 3 4 5\n"} {
		if _, err := ParseStat([]byte(bad)); err == nil {
			t.Errorf("ParseStat(%q): no error", bad)
		}
	}
	a, tot, err := ParseMeminfo([]byte("MemTotal:       65536000 kB\nMemFree:  1000 kB\nMemAvailable:    3276800 kB\n"))
	if err != nil || a != 3200 || tot != 64000 {
		t.Errorf("ParseMeminfo = %v, %v, %v", a, tot, err)
	}
	if _, _, err := ParseMeminfo([]byte("MemTotal: 1 kB\n")); err == nil {
		t.Error("ParseMeminfo without MemAvailable: no error")
	}
}

func TestParseXid(t *testing.T) {
	log := "[    1.000000] Linux version 6.8\n" +
		"[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python3, GPU has fallen off the bus.\n" +
		"[ 1300.000001] nvidia-nvswitch0: ok\r\n" +
		"[ 1400.5] NVRM: Xid (PCI:0000:3c:00): 48, An uncorrectable double bit error\r\n"
	got := ParseXid([]byte(log))
	want := []Xid{
		{At: 1234.56789, Line: "NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, name=python3, GPU has fallen off the bus."},
		{At: 1400.5, Line: "NVRM: Xid (PCI:0000:3c:00): 48, An uncorrectable double bit error"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseXid = %+v", got)
	}
}

func TestParseProcStat(t *testing.T) {
	st, err := ParseProcStat([]byte("4242 (python3 (vllm) x) S 4200 4100 4100 0 -1 ...\n"))
	if err != nil || st != (ProcStat{PPID: 4200, PGRP: 4100}) {
		t.Errorf("ParseProcStat = %+v, %v", st, err)
	}
	// A full line: the start time is field 22.
	st, err = ParseProcStat([]byte("4242 (vllm) S 4200 4100 4100 0 -1 4194560 100 0 0 0 5 3 7 2 20 0 12 0 987654 123 45\n"))
	if err != nil || st != (ProcStat{PPID: 4200, PGRP: 4100, Start: 987654, CPU: 8, Children: 9}) {
		t.Errorf("ParseProcStat = %+v, %v", st, err)
	}
	for _, bad := range []string{"", "1 (x S", "1 (x) S a b"} {
		if _, err := ParseProcStat([]byte(bad)); err == nil {
			t.Errorf("ParseProcStat(%q): no error", bad)
		}
	}
}

func TestReasonNames(t *testing.T) {
	tests := []struct {
		mask uint64
		want []string
		real bool
	}{
		{0, nil, false},
		{0x1, []string{"gpu_idle"}, false},
		{0x2, []string{"applications_clocks_setting"}, false},
		{0x4, []string{"sw_power_cap"}, false},
		{0x8, []string{"hw_slowdown"}, true},
		{0x20, []string{"sw_thermal_slowdown"}, true},
		{0x88, []string{"hw_slowdown", "hw_power_brake_slowdown"}, true},
		{0x101, []string{"gpu_idle", "display_clock_setting"}, false},
		{0x1000, []string{"bit_12"}, false},
	}
	for _, tt := range tests {
		got := ReasonNames(tt.mask)
		real := false
		for _, n := range got {
			real = real || Real(n)
		}
		if !reflect.DeepEqual(got, tt.want) || real != tt.real {
			t.Errorf("ReasonNames(%#x) = %q (real %v), want %q (real %v)", tt.mask, got, real, tt.want, tt.real)
		}
	}
}
