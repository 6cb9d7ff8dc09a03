package benchcli

import (
	"fmt"
	"path"
	"strings"
)

// boolFlags are vllm bench serve's flags that take no value.
var boolFlags = map[string]bool{
	"--ignore-eos": true, "--trust-remote-code": true, "--save-result": true, "--save-detailed": true,
	"--disable-tqdm": true, "--profile": true, "--use-beam-search": true, "--disable-shuffle": true,
	"--append-result": true, "--request-id-prefix": false, "--no-stream": true, "--insecure": true,
	"--skip-chat-template": true, "--no-oversample": true, "--plot-timeline": true, "--ready-check-timeout-sec": false,
}

// multiFlags take several values (`--header A=1 B=2`, `--goodput ttft:1 e2el:2`).
var multiFlags = map[string]bool{"--header": true, "--goodput": true, "--metadata": true}

// Args is a parsed command line: each flag's values, in order, and the
// order flags appeared in.
type Args struct {
	values map[string][]string
	order  []string
}

func (a Args) has(flag string) bool { _, ok := a.values[flag]; return ok }

// last is the flag's last value ("" when absent).
func (a Args) last(flag string) string {
	v := a.values[flag]
	if len(v) == 0 {
		return ""
	}
	return v[len(v)-1]
}

// parseArgs reads argv after any program words (vllm bench serve, python
// benchmarks/benchmark_serving.py): --flag value, --flag=value, boolean
// flags and the multi-value ones. A value that looks like a flag is an
// error naming the flag.
func parseArgs(argv []string) (Args, error) {
	a := Args{values: map[string][]string{}}
	i := 0
	for i < len(argv) && !strings.HasPrefix(argv[i], "-") {
		i++ // program words: vllm bench serve, python x.py
	}
	if i == 0 && len(argv) > 0 && !strings.HasPrefix(argv[0], "-") {
		return a, fmt.Errorf("%q is not a vllm bench serve command line", strings.Join(argv, " "))
	}
	prog := strings.Join(argv[:i], " ")
	if i > 0 && !isBenchServe(argv[:i]) {
		return a, fmt.Errorf("%q: want `vllm bench serve --flag ...` (or benchmark_serving.py): arguments come as --flags", prog)
	}
	for i < len(argv) {
		tok := argv[i]
		i++
		if !strings.HasPrefix(tok, "--") {
			return a, fmt.Errorf("argument %q: want a --flag", tok)
		}
		name, val, eq := strings.Cut(tok, "=")
		name = strings.ReplaceAll(name, "_", "-")
		if _, seen := a.values[name]; !seen {
			a.order = append(a.order, name)
		}
		switch {
		case eq:
			a.values[name] = append(a.values[name], val)
		case boolFlags[name]:
			a.values[name] = append(a.values[name], "true")
		case multiFlags[name]:
			n := 0
			for i < len(argv) && !strings.HasPrefix(argv[i], "--") {
				a.values[name] = append(a.values[name], argv[i])
				i, n = i+1, n+1
			}
			if n == 0 {
				return a, fmt.Errorf("%s: missing value", name)
			}
		default:
			if i >= len(argv) || strings.HasPrefix(argv[i], "--") {
				return a, fmt.Errorf("%s: missing value", name)
			}
			a.values[name] = append(a.values[name], argv[i])
			i++
		}
	}
	return a, nil
}

func isBenchServe(words []string) bool {
	base := path.Base(words[0])
	switch {
	case base == "vllm":
		return len(words) == 3 && words[1] == "bench" && words[2] == "serve"
	case strings.HasPrefix(base, "python"):
		return len(words) >= 2 && strings.HasSuffix(words[len(words)-1], "benchmark_serving.py")
	case base == "benchmark_serving.py":
		return true
	}
	return false
}
