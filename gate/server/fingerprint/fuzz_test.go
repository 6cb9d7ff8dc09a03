package fingerprint

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
)

// FuzzNvidiaSMI feeds arbitrary nvidia-smi output (the CSV GPU query and
// the banner with the CUDA version) and /proc/cpuinfo to Collect. It must
// never panic, every recorded value is trimmed, non-empty and on one line
// (fingerprints are compared key by key and printed in reports), and a GPU
// count, when recorded, is a positive number. Keys are spelled out rather
// than taken from the constants, which may move.
func FuzzNvidiaSMI(f *testing.F) {
	f.Add([]byte("NVIDIA H100 80GB HBM3, 550.54.15, 81559, 1980, 700.00\n"), []byte("| NVIDIA-SMI 550.54.15   Driver Version: 550.54.15   CUDA Version: 12.4 |\n"), []byte("model name\t: AMD EPYC 9654\n"))
	f.Add([]byte("NVIDIA A100-SXM4-80GB, 535.1, 81920, 1410, [N/A]\nNVIDIA A100-SXM4-40GB, 535.1, 40960, 1410, 400.00\n"), []byte("CUDA Version: 12.2"), []byte(""))
	f.Add([]byte("\"a\nb\", 1, 2, 3, 4\n"), []byte("CUDA Version:\n"), []byte("model name: x\r\n"))
	f.Add([]byte("only, three, fields\n"), []byte(""), []byte("model name\t:\n"))
	f.Fuzz(func(t *testing.T, query, banner, cpuinfo []byte) {
		run := func(_ context.Context, name string, args ...string) ([]byte, error) {
			switch {
			case name == "nvidia-smi" && len(args) > 0:
				return query, nil
			case name == "nvidia-smi":
				return banner, nil
			}
			return nil, os.ErrNotExist
		}
		read := func(p string) ([]byte, error) {
			if p == "/proc/cpuinfo" {
				return cpuinfo, nil
			}
			return nil, os.ErrNotExist
		}
		fp, _ := Collect(context.Background(), Options{Run: run, ReadFile: read})
		for k, v := range fp {
			if v == "" || v != strings.TrimSpace(v) || strings.ContainsAny(v, "\r\n") {
				t.Fatalf("%s = %q (query %q)", k, v, query)
			}
		}
		if n, ok := fp["gpu.count"]; ok {
			if c, err := strconv.Atoi(n); err != nil || c <= 0 || c > bytes.Count(query, []byte("\n"))+1 {
				t.Fatalf("gpu.count = %q for query %q", n, query)
			}
		}
	})
}
