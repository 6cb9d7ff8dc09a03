package actioncheck

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/perfgate/perfgate/gate/cli"
)

type action struct {
	Name        string                                           `yaml:"name"`
	Description string                                           `yaml:"description"`
	Author      string                                           `yaml:"author"`
	Branding    map[string]string                                `yaml:"branding"`
	Inputs      map[string]struct{ Description, Default string } `yaml:"inputs"`
	Outputs     map[string]struct{ Description, Value string }   `yaml:"outputs"`
	Runs        struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

type step struct {
	ID    string            `yaml:"id"`
	Name  string            `yaml:"name"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	With  map[string]string `yaml:"with"`
}

func load(t *testing.T) action {
	t.Helper()
	data, err := os.ReadFile("../../action.yml")
	if err != nil {
		t.Fatal(err)
	}
	var a action
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

func TestActionIsWired(t *testing.T) {
	a := load(t)
	if a.Runs.Using != "composite" {
		t.Fatalf("runs.using = %q, want composite", a.Runs.Using)
	}
	ids := map[string]bool{}
	var refs strings.Builder // everything expressions may reference inputs from
	for _, s := range a.Runs.Steps {
		if s.ID != "" {
			ids[s.ID] = true
		}
		if s.Run != "" {
			if s.Shell != "bash" {
				t.Errorf("step %q: shell %q, want bash", s.Name, s.Shell)
			}
			if strings.Contains(s.Run, "${{") {
				t.Errorf("step %q: an expression inside run: allows script injection; pass it through env:", s.Name)
			}
		}
		for k, v := range s.Env {
			refs.WriteString(v + "\n")
			// perfgate reads PERFGATE_* as settings and warns about every
			// one that is not a setting: the step's own variables need
			// other names.
			if strings.HasPrefix(k, "PERFGATE_") {
				t.Errorf("step %q: env %s would be read by perfgate as a setting; name it otherwise", s.Name, k)
			}
		}
		for _, v := range s.With {
			refs.WriteString(v + "\n")
		}
	}
	for name := range a.Inputs {
		if !strings.Contains(refs.String(), "inputs."+name+" }}") {
			t.Errorf("input %q is never passed to a step", name)
		}
	}
	outRe := regexp.MustCompile(`^\$\{\{ steps\.([a-z0-9_-]+)\.outputs\.([a-z0-9_-]+) \}\}$`)
	for _, name := range []string{"verdict", "regressed", "report-path", "comparison-path"} {
		o, ok := a.Outputs[name]
		if !ok {
			t.Errorf("output %q missing", name)
			continue
		}
		m := outRe.FindStringSubmatch(o.Value)
		if m == nil || !ids[m[1]] || m[2] != name {
			t.Errorf("output %q = %q: want ${{ steps.<id>.outputs.%s }} of an existing step", name, o.Value, name)
		}
	}
}

func TestActionScriptsParse(t *testing.T) {
	a := load(t)
	dir := t.TempDir()
	var files []string
	for i, s := range a.Runs.Steps {
		if s.Run == "" {
			continue
		}
		var sc strings.Builder
		sc.WriteString("#!/usr/bin/env bash\n")
		// Declare the step's env so ShellCheck knows the variables are set.
		keys := make([]string, 0, len(s.Env))
		for k := range s.Env {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sc.WriteString(": \"${" + k + ":?}\"\n")
		}
		sc.WriteString(s.Run)
		p := filepath.Join(dir, filepathSafe(i, s.Name)+".sh")
		if err := os.WriteFile(p, []byte(sc.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
		if out, err := exec.Command("bash", "-n", p).CombinedOutput(); err != nil {
			t.Errorf("step %q does not parse: %v\n%s", s.Name, err, out)
		}
	}
	if _, err := exec.LookPath("shellcheck"); err != nil {
		t.Log("shellcheck not on PATH; scripts only checked with bash -n")
		return
	}
	out, err := exec.Command("shellcheck", append([]string{"-s", "bash"}, files...)...).CombinedOutput()
	if err != nil {
		t.Errorf("shellcheck of action.yml's scripts:\n%s", out)
	}
}

func filepathSafe(i int, name string) string {
	return regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(strings.ToLower(name), "-") + "-" + string(rune('a'+i))
}

// TestActionFlagsExist checks every --flag the action passes against the
// perfgate command it calls, so a renamed flag breaks this test rather than
// users' workflows.
func TestActionFlagsExist(t *testing.T) {
	a := load(t)
	var script string
	for _, s := range a.Runs.Steps {
		if s.ID == "perfgate" {
			script = s.Run
		}
	}
	if script == "" {
		t.Fatal("no step with id perfgate")
	}
	root := cli.NewRoot(&cli.Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	find := func(path ...string) *cobra.Command {
		c, rest, err := root.Find(path)
		if err != nil || len(rest) > 0 || c == root {
			return nil
		}
		return c
	}
	flagRe := regexp.MustCompile(`"?(--[a-z-]+)`)
	sections := map[string][]string{ // case arm -> command path
		"gate)":     {"gate"},
		"baseline)": {"baseline", "update"},
		"ab)":       {"ab"},
	}
	for arm, path := range sections {
		i := strings.Index(script, arm)
		if i < 0 {
			t.Errorf("script has no %q arm", arm)
			continue
		}
		body := script[i:]
		if j := strings.Index(body, ";;"); j >= 0 {
			body = body[:j]
		}
		cmd := find(path...)
		if cmd == nil {
			t.Logf("perfgate %s is not built into this tree yet; its flags are not checked", strings.Join(path, " "))
			continue
		}
		for _, line := range strings.Split(body, "\n") {
			if strings.Contains(line, "config") && strings.Contains(line, "--get") {
				continue // `perfgate config` flags, checked below
			}
			for _, m := range flagRe.FindAllStringSubmatch(line, -1) {
				name := strings.TrimPrefix(m[1], "--")
				if cmd.Flags().Lookup(name) == nil {
					t.Errorf("action.yml passes %s to perfgate %s, which has no such flag", m[1], strings.Join(path, " "))
				}
			}
		}
	}
	cfg := find("config")
	if cfg == nil || cfg.Flags().Lookup("get") == nil || cfg.Flags().Lookup("config") == nil {
		t.Error("perfgate config --get/--config, used by the baseline mode, is missing")
	}
}
