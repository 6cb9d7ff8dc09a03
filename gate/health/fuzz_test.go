package health

import (
	"testing"
	"unicode/utf8"
)

// The parsers read tool output and /proc files: none may panic, and what
// they keep must be one line of valid UTF-8 (it reaches reasons and
// reports).
func FuzzParseGPUs(f *testing.F) {
	f.Add([]byte("0, GPU-aaa, 1980, 1980, 61, 512.33, 700.00, 97, 0x0000000000000008, 0\n"))
	f.Add([]byte("3, GPU-d, [N/A], [N/A], [N/A], [Not Supported], [N/A], [N/A], [N/A], [N/A]\n"))
	f.Add([]byte("\"0\n\", a, b, c, d, e, f, g, 0xffffffffffffffff, -1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		gpus, err := ParseGPUs(data)
		if err != nil {
			return
		}
		for _, g := range gpus {
			if !oneLineUTF8(g.UUID) || g.Index < 0 || g.SMClockMHz < 0 || (g.ECCUncorrected != nil && *g.ECCUncorrected < 0) {
				t.Fatalf("bad sample %+v", g)
			}
		}
	})
}

func FuzzParseApps(f *testing.F) {
	f.Add([]byte("4242, python3, 70123, GPU-aaa\n"))
	f.Add([]byte("7, /opt/my,app\x1b[31m, [N/A], GPU-b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		apps, err := ParseApps(data)
		if err != nil {
			return
		}
		for _, a := range apps {
			if a.PID <= 0 || !oneLineUTF8(a.Name) || !oneLineUTF8(a.GPU) || len(a.Name) > 130 {
				t.Fatalf("bad process %+v", a)
			}
		}
	})
}

func FuzzParseHost(f *testing.F) {
	f.Add([]byte("3.52 2.10 1.00 4/812 99123\n"))
	f.Add([]byte("cpu  100 0 50 800 10 0 5 35 20 0\ncpu0 1 2 3 4\n"))
	f.Add([]byte("MemTotal: 100 kB\nMemAvailable: 50 kB\n"))
	f.Add([]byte("4242 (py (x)) S 1 2 3\n"))
	f.Add([]byte("4242 (vllm) S 4200 4100 4100 0 -1 4194560 100 0 0 0 5 3 7 2 20 0 12 0 987654 123 45\n"))
	f.Add([]byte("12345.67 23456.78\n"))
	f.Add([]byte("123456789 987654 42\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if v, err := ParseUptime(data); err == nil && (v < 0 || v != v) {
			t.Fatalf("uptime %v", v)
		}
		if run, wait, err := ParseSchedstat(data); err == nil && run+wait < run {
			t.Fatalf("schedstat %d + %d overflows", run, wait)
		}
		if v, err := ParseLoadavg(data); err == nil && v < 0 {
			t.Fatalf("negative load %v", v)
		}
		if c, err := ParseStat(data); err == nil && c.Steal > c.Total {
			t.Fatalf("steal %d above total %d", c.Steal, c.Total)
		}
		if a, tot, err := ParseMeminfo(data); err == nil && (a < 0 || tot < 0) {
			t.Fatalf("negative memory %v %v", a, tot)
		}
		if st, err := ParseProcStat(data); err == nil && (st.CPU >= 1<<41 || st.Children >= 1<<41) {
			t.Fatalf("CPU ticks beyond any reading: %+v", st)
		}
	})
}

func FuzzParseXid(f *testing.F) {
	f.Add([]byte("[ 1234.567890] NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus.\n"))
	f.Add([]byte("[1.0] NVRM: Xid \xff\x00 \u202e\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, x := range ParseXid(data) {
			if !oneLineUTF8(x.Line) || x.At < 0 {
				t.Fatalf("bad Xid %+v", x)
			}
		}
	})
}

func oneLineUTF8(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if r < ' ' || r == 0x7f {
			return false
		}
	}
	return true
}
