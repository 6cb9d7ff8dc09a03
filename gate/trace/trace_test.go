package trace

import (
	"bytes"
	"compress/gzip"
	"io"
	"math"
	"strings"
	"testing"
)

const small = `{"schemaVersion":1,"deviceProperties":[{"id":0,"name":"H100"}],"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"execute_model","ts":0,"dur":10},
{"ph":"X","cat":"kernel","name":"mlp","ts":0,"dur":6},
{"ph":"X","cat":"kernel","name":"attention","ts":6,"dur":3,"args":{"grid":[1,2,3]}},
{"ph":"X","cat":"cpu_op","name":"aten::mm","ts":0,"dur":50},
{"ph":"i","cat":"kernel","name":"marker","ts":1},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","ts":10,"dur":10},
{"ph":"X","cat":"Kernel","name":"mlp","ts":10,"dur":7}
],"traceName":"x"}`

func TestReadSummarises(t *testing.T) {
	s, err := Read(strings.NewReader(small), "w.json", Limits{})
	if err != nil {
		t.Fatal(err)
	}
	// Two steps; kernels only (the CPU op and the instant event are not);
	// mlp 6+7 over 2 calls first.
	if s.File != "w.json" || s.Steps != 2 || s.Events != 7 || len(s.Ops) != 2 ||
		s.Ops[0] != (Op{"mlp", 2, 13}) || s.Ops[1] != (Op{"attention", 1, 3}) {
		t.Errorf("summary %+v", s)
	}
	// A bare array is a Chrome trace too; gzip is recognised.
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, `[{"ph":"X","name":"execute_model","dur":1},{"ph":"X","cat":"kernel","name":"k","dur":2}]`)
	zw.Close()
	s, err = Read(&gz, "t.json.gz", Limits{})
	if err != nil || s.Steps != 1 || len(s.Ops) != 1 || s.Ops[0].TotalUS != 2 {
		t.Errorf("gzip array: %+v, %v", s, err)
	}
}

func TestReadRefusesBadTraces(t *testing.T) {
	big := `{"traceEvents":[{"ph":"X","cat":"kernel","name":"k","dur":1,"args":{"blob":"` + strings.Repeat("x", 5000) + `"}}]}`
	many := `{"traceEvents":[{"ph":"X","cat":"kernel","name":"a","dur":1},{"ph":"X","cat":"kernel","name":"b","dur":1},{"ph":"X","cat":"kernel","name":"c","dur":1}]}`
	for _, tc := range []struct {
		name, in string
		lim      Limits
		want     string
	}{
		{"empty", "", Limits{}, "empty file"},
		{"not json", "hello", Limits{}, "invalid character"},
		{"truncated", `{"traceEvents":[{"ph":"X"`, Limits{}, "EOF"},
		{"no events", `{"traceName":"x"}`, Limits{}, "no traceEvents array"},
		{"events not array", `{"traceEvents":{}}`, Limits{}, "traceEvents is not an array"},
		{"number", `42`, Limits{}, "not a JSON object or array"},
		{"trailing", `[] []`, Limits{}, "data after"},
		{"negative", `[{"ph":"X","cat":"kernel","name":"k","dur":-1}]`, Limits{}, "not a duration"},
		{"absurd", `[{"ph":"X","cat":"kernel","name":"k","dur":1e300},{"ph":"X","cat":"kernel","name":"k","dur":1e300}]`, Limits{}, "not a duration"},
		{"huge event", big, Limits{MaxEventBytes: 1000}, "one value is larger than 1000 bytes"},
		{"huge file", big, Limits{MaxBytes: 2000}, "larger than 2000 bytes"},
		{"too many ops", many, Limits{MaxOps: 2}, "more than 2 distinct kernel names"},
		{"bad gzip", "\x1f\x8b\x00\x00", Limits{}, "gzip"},
	} {
		_, err := Read(strings.NewReader(tc.in), "bad.json", tc.lim)
		if err == nil || !strings.HasPrefix(err.Error(), "trace bad.json: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error naming the file and %q", tc.name, err, tc.want)
		}
	}
}

func TestDiffPerStep(t *testing.T) {
	base := &Summary{File: "a", Steps: 10, Ops: []Op{{"mlp", 10, 1000}, {"attention", 10, 300}, {"sampling", 10, 100}, {"gone", 1, 50}}}
	// Twice the steps: per step, mlp +15 %, attention +15 %, sampling the same.
	cand := &Summary{File: "b", Steps: 20, Ops: []Op{{"mlp", 20, 2300}, {"attention", 20, 690}, {"sampling", 20, 200}, {"new", 40, 20}}}
	d, err := Diff(base, cand)
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, c := range d {
		names = append(names, c.Name)
	}
	if strings.Join(names, ",") != "mlp,attention,new,sampling,gone" {
		t.Fatalf("order %v", names)
	}
	if m := d[0]; math.Abs(m.Baseline-100) > 1e-9 || math.Abs(m.Candidate-115) > 1e-9 || math.Abs(m.Change-15) > 1e-9 || m.CandCalls != 1 {
		t.Errorf("mlp %+v", m)
	}
	if n := d[2]; n.Change != 0 || n.Candidate != 1 || n.CandCalls != 2 {
		t.Errorf("new %+v", n)
	}
	// By size either way: mlp +15, then gone -5 (attention moved +4.5).
	if top := Top(d, 2); len(top) != 2 || top[0].Name != "mlp" || top[1].Name != "gone" {
		t.Errorf("top %+v", top)
	}
	if _, err := Diff(base, &Summary{File: "c.json"}); err == nil || !strings.Contains(err.Error(), "trace c.json: no engine steps") {
		t.Errorf("no steps: %v", err)
	}
}

// FuzzRead: any input gives a summary or an error naming the file, never
// a panic, and a summary's kernels are real.
func FuzzRead(f *testing.F) {
	f.Add([]byte(small))
	f.Add([]byte(`[{"ph":"X","name":"execute_model","dur":1}]`))
	f.Add([]byte(`{"traceEvents":[],"x":[1,{"a":"b"}]}`))
	f.Add([]byte("\x1f\x8b"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Read(bytes.NewReader(data), "fuzz.json", Limits{MaxBytes: 1 << 20, MaxEventBytes: 1 << 16, MaxOps: 100})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "trace fuzz.json: ") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if s.Steps < 0 || len(s.Ops) > 100 {
			t.Errorf("summary %+v", s)
		}
		for _, op := range s.Ops {
			if op.Calls < 1 || op.TotalUS < 0 || math.IsNaN(op.TotalUS) || math.IsInf(op.TotalUS, 0) || len(op.Name) > maxName {
				t.Errorf("op %+v", op)
			}
		}
	})
}

// BenchmarkRead streams a trace of 200,000 kernel events, the memory
// per read staying that of one event plus the op table.
func BenchmarkRead(b *testing.B) {
	var buf bytes.Buffer
	buf.WriteString(`{"traceEvents":[`)
	for i := 0; i < 200000; i++ {
		if i > 0 {
			buf.WriteByte(',')
		}
		if i%4 == 0 {
			buf.WriteString(`{"ph":"X","cat":"user_annotation","name":"execute_model","ts":1,"dur":10}`)
		} else {
			buf.WriteString(`{"ph":"X","cat":"kernel","name":"ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn","ts":1,"dur":2.5,"args":{"grid":[1,2,3]}}`)
		}
	}
	buf.WriteString(`]}`)
	data := buf.Bytes()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, err := Read(bytes.NewReader(data), "bench.json", Limits{}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestMode(t *testing.T) {
	for _, tc := range []struct {
		in         string
		reg, clean bool
		err        bool
	}{
		{"", false, false, false},
		{"never", false, false, false},
		{"on-regression", true, false, false},
		{"always", true, true, false},
		{"sometimes", false, false, true},
	} {
		m, err := ParseMode(tc.in)
		if (err != nil) != tc.err || (err == nil && (m.Want(true) != tc.reg || m.Want(false) != tc.clean)) {
			t.Errorf("%q: %v %v", tc.in, m, err)
		}
	}
	if _, err := ParseMode("x"); err == nil || !strings.Contains(err.Error(), "want on-regression, always or never") {
		t.Errorf("error %v", err)
	}
}
