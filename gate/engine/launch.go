package engine

import (
	"path"
	"strconv"
	"strings"
)

// FromArgv names the engine a launch command starts ("vllm serve M",
// "python3 -m sglang.launch_server --model-path M", "llama-server -m f",
// "text-generation-launcher --model-id M", "ollama serve"), and false for
// a command perfgate does not recognise (a wrapper script: then the
// server is asked, see Detect). Leading environment assignments
// (NAME=value) and an "env" are skipped, as a shell would run them.
func FromArgv(argv []string) (Name, bool) {
	argv = program(argv)
	for _, p := range Profiles() {
		for _, prefix := range p.Launch.Programs {
			if hasPrefix(argv, prefix) {
				return p.Name, true
			}
		}
	}
	return "", false
}

// program drops what comes before the program: env, NAME=value words.
func program(argv []string) []string {
	for len(argv) > 0 {
		a := argv[0]
		if path.Base(a) == "env" || (strings.Contains(a, "=") && !strings.HasPrefix(a, "-")) {
			argv = argv[1:]
			continue
		}
		break
	}
	return argv
}

// hasPrefix matches argv against a program prefix: the program by its base
// name ("python3" and "/usr/bin/python" are "python"), the rest verbatim.
func hasPrefix(argv, prefix []string) bool {
	if len(argv) < len(prefix) || len(prefix) == 0 {
		return false
	}
	if base(argv[0]) != prefix[0] {
		return false
	}
	for i := 1; i < len(prefix); i++ {
		if argv[i] != prefix[i] {
			return false
		}
	}
	return true
}

// base is a program's name without directory and without a Python
// version suffix ("python3.11" is "python").
func base(p string) string {
	b := path.Base(p)
	if strings.HasPrefix(b, "python") {
		return "python"
	}
	return b
}

// Model returns the model the launch command serves ("" when it does not
// say, as `ollama serve` never does).
func (l Launch) Model(argv []string) string {
	argv = program(argv)
	if v := flag(argv, l.ModelFlags); v != "" {
		return v
	}
	if !l.ModelPositional {
		return ""
	}
	for _, prefix := range l.Programs {
		if hasPrefix(argv, prefix) && len(argv) > len(prefix) && !strings.HasPrefix(argv[len(prefix)], "-") {
			return argv[len(prefix)]
		}
	}
	return ""
}

// GPUs returns the GPUs the launch command asks for: its tensor-parallel
// degree times its data-parallel degree, each 1 when not given. It is 0
// when the engine takes no such flags (ollama uses what it finds) or a
// value is not a positive number.
func (l Launch) GPUs(argv []string) int {
	if len(l.TensorParallelFlags) == 0 && len(l.DataParallelFlags) == 0 {
		return 0
	}
	argv = program(argv)
	n := 1
	for _, flags := range [][]string{l.TensorParallelFlags, l.DataParallelFlags} {
		v := flag(argv, flags)
		if v == "" {
			continue
		}
		k, err := strconv.Atoi(v)
		if err != nil || k < 1 {
			return 0
		}
		n *= k
	}
	return n
}

// flag finds "--name value" or "--name=value" in argv, for the first of
// names present.
func flag(argv, names []string) string {
	for i, a := range argv {
		for _, n := range names {
			if a == n && i+1 < len(argv) {
				return argv[i+1]
			}
			if v, ok := strings.CutPrefix(a, n+"="); ok {
				return v
			}
		}
	}
	return ""
}
