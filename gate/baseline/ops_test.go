package baseline

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/trace"
)

func sampleOps() *Ops {
	return &Ops{Schema: OpsSchema, Cell: "decode@c4", Hash: "abc", Requests: 32, Trace: "profiles/sim.1.pt.trace.json",
		Summary: trace.Summary{File: "sim.1.pt.trace.json", Steps: 64, Events: 300, Ops: []trace.Op{{Name: "mlp", Calls: 64, TotalUS: 6400}, {Name: "attention", Calls: 64, TotalUS: 640}}}}
}

func TestOpsRoundTrip(t *testing.T) {
	s := Store{Root: t.TempDir()}
	p := s.OpsPath("h100", "decode@c4")
	if !strings.HasSuffix(p, filepath.Join("h100", "ops", "decode@c4.json")) {
		t.Errorf("path %s", p)
	}
	if _, err := ReadOpsFile(p); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing: %v", err)
	}
	want := sampleOps()
	if err := WriteOpsFile(p, want); err != nil {
		t.Fatal(err)
	}
	got, err := ReadOpsFile(p)
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("round trip: %+v %v", got, err)
	}
}

func TestParseOpsRefuses(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{", "ops.json:1:"},
		{`{"schema":"perfgate.ops/v9","cell":"a"}`, `schema "perfgate.ops/v9"`},
		{`{"schema":"perfgate.ops/v1"}`, "names no workload cell"},
		{"{\"schema\":\"perfgate.ops/v1\",\n\"cell\":\"a\",\n\"extra\":1}", "ops.json:3: json: unknown field"},
		{`{"schema":"perfgate.ops/v1","cell":"a","summary":{"ops":[{"name":"k","calls":0,"total_us":1}]}}`, "not a kernel's total"},
		{`{"schema":"perfgate.ops/v1","cell":"a"} {}`, "data after"},
	} {
		if _, err := ParseOps("ops.json", []byte(tc.in)); err == nil || !strings.HasPrefix(err.Error(), "ops.json") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.in, err, tc.want)
		}
	}
	if _, err := MarshalOps(&Ops{Schema: OpsSchema}); err == nil {
		t.Error("marshalled an op summary without a cell")
	}
}

// FuzzParseOps: any input is an op summary that encodes again, or an
// error naming the file.
func FuzzParseOps(f *testing.F) {
	data, _ := MarshalOps(sampleOps())
	f.Add(data)
	f.Add([]byte(`{"schema":"perfgate.ops/v1","cell":"a","summary":{"ops":[]}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		o, err := ParseOps("f.json", in)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.json") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if _, err := MarshalOps(o); err != nil {
			t.Errorf("parsed but does not encode: %v", err)
		}
	})
}
