package engine

import (
	"strings"
	"testing"
)

// FuzzProbeBodies feeds arbitrary answers to every detection probe's
// reader: none may panic, and an answer that is not JSON names no engine.
func FuzzProbeBodies(f *testing.F) {
	f.Add([]byte(`{"model_path":"m","tp_size":1,"version":"0.5.2"}`))
	f.Add([]byte(`{"version":"0.17.4"}`))
	f.Add([]byte(`{"default_generation_settings":{},"total_slots":1}`))
	f.Add([]byte(`{"model_id":"m","router":"text-generation-router"}`))
	f.Add([]byte(`<html>`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, p := range probes {
			_, ok := p.match(body)
			if ok && !strings.Contains(string(body), "{") {
				t.Errorf("%s matched a non-object %q", p.path, body)
			}
		}
	})
}

// FuzzLaunch reads arbitrary command lines: no panic, and a GPU count is
// never negative.
func FuzzLaunch(f *testing.F) {
	f.Add("vllm serve m --tensor-parallel-size 4")
	f.Add("python3 -m sglang.launch_server --model-path m --tp-size=2 --dp")
	f.Add("env A=1 B=2")
	f.Fuzz(func(t *testing.T, line string) {
		argv := strings.Fields(line)
		if n, ok := FromArgv(argv); ok {
			l := Must(n).Launch
			_ = l.Model(argv)
			if g := l.GPUs(argv); g < 0 {
				t.Errorf("%q: %d GPUs", line, g)
			}
		}
	})
}
