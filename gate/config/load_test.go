package config

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const fullFile = `profile: h100-llama
workloads: [workloads/a.yaml, "workloads/b/*.yaml"]
baselines: base
output: out
server:
  url: http://127.0.0.1:8000
  command: [vllm, serve, m, --port, "8000"]
  env: [CUDA_VISIBLE_DEVICES=0, HF_TOKEN=hf_secret]
  workdir: /srv
  ready_timeout: 90s
  log: /tmp/server.log
policy:
  alpha: 0.01
  tolerances:
    tpot_ms.p50: 0.03
    ttft_ms.p99: 0.08
  gated: [tpot_ms.p50, output_throughput]
trials:
  min: 6
  max: 12
  budget: 45m
github:
  comment: false
  fail_on_inconclusive: true
calibrate:
  restarts: 4
  trials: 2
ab:
  a: {env: [NCCL_P2P_DISABLE=1]}
  b:
    env: [NCCL_P2P_DISABLE=0, HF_TOKEN=hf_secret]
    args: --max-num-batched-tokens 4096
  blocks: 6
  block_trials: 2
  seed: 7
  max_blocks: 10
`

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "perfgate.yaml", fullFile)
	l, err := Load(Options{File: file})
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Profile:   "h100-llama",
		Workloads: []string{filepath.Join(dir, "workloads/a.yaml"), filepath.Join(dir, "workloads/b/*.yaml")},
		Baselines: filepath.Join(dir, "base"),
		Output:    filepath.Join(dir, "out"),
		Server: Server{
			URL:          "http://127.0.0.1:8000",
			Command:      Argv{"vllm", "serve", "m", "--port", "8000"},
			Env:          []string{"CUDA_VISIBLE_DEVICES=0", "HF_TOKEN=hf_secret"},
			Workdir:      "/srv",
			ReadyTimeout: 90 * time.Second,
			Log:          "/tmp/server.log",
		},
		Policy: Policy{
			Alpha:      0.01,
			Tolerances: map[string]float64{"tpot_ms.p50": 0.03, "ttft_ms.p99": 0.08},
			Gated:      []string{"tpot_ms.p50", "output_throughput"},
		},
		Trials:    Trials{Min: 6, Max: 12, Budget: 45 * time.Minute},
		GitHub:    GitHub{Comment: CommentNever, FailOnInconclusive: true},
		Calibrate: Calibrate{Restarts: 4, Trials: 2},
		History:   History{ReferenceDays: 30, ReferenceRuns: 3},
		Limits:    defaultLimits(),
		AB: AB{
			A:      ABArm{Env: []string{"NCCL_P2P_DISABLE=1"}},
			B:      ABArm{Env: []string{"NCCL_P2P_DISABLE=0", "HF_TOKEN=hf_secret"}, Args: Argv{"--max-num-batched-tokens", "4096"}},
			Blocks: 6, BlockTrials: 2, Seed: 7, MaxBlocks: 10,
		},
	}
	if !reflect.DeepEqual(l.Config, want) {
		t.Errorf("Load:\n got %+v\nwant %+v", l.Config, want)
	}
	if got := l.Source("policy.alpha"); got != file+":13" {
		t.Errorf("Source(policy.alpha) = %q, want %s:13", got, file)
	}
	if got := l.Source("github.token"); got != "default" {
		t.Errorf("Source(github.token) = %q, want default", got)
	}
}

func TestLoadDefaultsWithoutFile(t *testing.T) {
	// No File and no perfgate.yaml in the test's working directory.
	l, err := Load(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(l.Config, Default()) || l.File != "" {
		t.Errorf("Load() = %+v (file %q), want Default()", l.Config, l.File)
	}
}

func TestLoadPrecedence(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "perfgate.yaml", "profile: from-file\nserver:\n  url: http://file:1\ntrials:\n  max: 7\n")
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("url", "http://flag-default:9", "")
	fs.String("profile", "flag-default", "")
	fs.Int("trials", 99, "")
	fs.StringSlice("workloads", nil, "")
	fs.String("server-cmd", "", "")
	if err := fs.Parse([]string{"--profile", "from-flag", "--workloads", "a.yaml,b.yaml", "--server-cmd", "vllm serve 'my model'"}); err != nil {
		t.Fatal(err)
	}
	l, err := Load(Options{
		File: file,
		Environ: []string{
			"PERFGATE_PROFILE=from-env",
			"PERFGATE_SERVER_URL=http://env:2",
			"PERFGATE_POLICY_ALPHA=0.02",
			"PERFGATE_POLICY_TOLERANCES=tpot_ms.p50=0.04, itl_ms.p99=0.1",
			"PERFGATE_TRIALS_BUDGET=", // empty: an Action input left out
			"PERFGATE_GITHUB_TOKEN=ghs_abc",
			"PERFGATE_SERVER_ENV=A=1,B=2",
			"PERFGATE_NOPE=1",
			"HOME=/root",
		},
		Flags: fs,
		FlagKeys: map[string]string{
			"url": "server.url", "profile": "profile", "trials": "trials.max",
			"workloads": "workloads", "server-cmd": "server.command",
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := l.Config
	checks := []struct {
		key  string
		got  any
		want any
		src  string
	}{
		{"profile", c.Profile, "from-flag", "flag --profile"},
		{"server.url", c.Server.URL, "http://env:2", "env PERFGATE_SERVER_URL"},
		// An unchanged flag's default does not hide the file's value.
		{"trials.max", c.Trials.Max, 7, file + ":5"},
		{"trials.budget", c.Trials.Budget, 30 * time.Minute, "default"},
		{"policy.alpha", c.Policy.Alpha, 0.02, "env PERFGATE_POLICY_ALPHA"},
		{"policy.tolerances", c.Policy.Tolerances, map[string]float64{"tpot_ms.p50": 0.04, "itl_ms.p99": 0.1}, "env PERFGATE_POLICY_TOLERANCES"},
		{"github.token", c.GitHub.Token, "ghs_abc", "env PERFGATE_GITHUB_TOKEN"},
		{"server.env", c.Server.Env, []string{"A=1", "B=2"}, "env PERFGATE_SERVER_ENV"},
		{"workloads", c.Workloads, []string{"a.yaml", "b.yaml"}, "flag --workloads"},
		{"server.command", c.Server.Command, Argv{"vllm", "serve", "my model"}, "flag --server-cmd"},
	}
	for _, ck := range checks {
		if !reflect.DeepEqual(ck.got, ck.want) {
			t.Errorf("%s = %#v, want %#v", ck.key, ck.got, ck.want)
		}
		if src := l.Source(ck.key); src != ck.src {
			t.Errorf("Source(%s) = %q, want %q", ck.key, src, ck.src)
		}
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "PERFGATE_NOPE") {
		t.Errorf("Warnings = %q, want one about PERFGATE_NOPE", l.Warnings)
	}
}

func TestLoadEnvOverridesFileCommandString(t *testing.T) {
	dir := t.TempDir()
	file := writeFile(t, dir, "p.yaml", "server:\n  command: \"python -m sim --decode-scale '1.3'\"\n")
	l, err := Load(Options{File: file})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Argv{"python", "-m", "sim", "--decode-scale", "1.3"}); !reflect.DeepEqual(l.Config.Server.Command, want) {
		t.Errorf("command = %q, want %q", l.Config.Server.Command, want)
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name    string
		file    string // "" = no file
		environ []string
		args    []string
		want    []string // substrings of the error
	}{
		{name: "unknown top key", file: "profile: x\nservr:\n  url: http://a\n",
			want: []string{"perfgate.yaml:2: servr: unknown key (did you mean \"server\"?)"}},
		{name: "unknown nested key", file: "server:\n  url: http://a\n  urll: http://b\n",
			want: []string{"perfgate.yaml:3: server.urll: unknown key (did you mean \"server.url\"?)"}},
		{name: "two errors at once", file: "bogus: 1\npolicy:\n  alpha: lots\n",
			want: []string{"perfgate.yaml:1: bogus: unknown key", `perfgate.yaml:3: policy.alpha: "lots" is not a number`}},
		{name: "duplicate key", file: "profile: a\nprofile: b\n", want: []string{"perfgate.yaml:2: profile: set twice"}},
		{name: "wrong shape", file: "server: http://a\n", want: []string{"perfgate.yaml:1: server: must be a section"}},
		{name: "list expected", file: "workloads:\n  a: b\n", want: []string{"perfgate.yaml:2: workloads: must be a list"}},
		{name: "bad duration", file: "trials:\n  budget: 10\n", want: []string{`perfgate.yaml:2: trials.budget: "10" is not a duration`}},
		{name: "bad tolerance value", file: "policy:\n  tolerances:\n    tpot_ms.p50: [1]\n", want: []string{"perfgate.yaml:3: policy.tolerances.tpot_ms.p50: must be a tolerance such as 3%"}},
		// Issue 14, defect 16: a key holding viper's "::" delimiter used to
		// fail in viper's decoding, with no line.
		{name: "tolerance key shape", file: "policy: {tolerances: {0::: 0}}\n", want: []string{`perfgate.yaml:1: policy.tolerances: key "0::" is not a metric id`}},
		{name: "tolerance unknown metric has a line", file: "policy:\n  tolerances:\n    tpot_ms.p75x: 3%\n", want: []string{`perfgate.yaml:3: policy.tolerances.tpot_ms.p75x: unknown metric id`}},
		{name: "bare tolerance of 1 or more", file: "policy:\n  tolerances:\n    tpot_ms.p50: 3\n", want: []string{"perfgate.yaml:3: policy.tolerances.tpot_ms.p50: 3: a bare tolerance is a fraction below 1", "write 3%"}},
		{name: "percent on a ratio metric", file: "policy:\n  tolerances:\n    success_rate: 1%\n", want: []string{"perfgate.yaml:3: policy.tolerances.success_rate: 1%: the metric is a ratio"}},
		{name: "zero tolerance", file: "policy:\n  tolerances:\n    tpot_ms.p50: 0\n", want: []string{"perfgate.yaml:3: policy.tolerances.tpot_ms.p50: 0: a tolerance must be above 0"}},
		{name: "env tolerance form", environ: []string{"PERFGATE_POLICY_TOLERANCES=tpot_ms.p50=1pp"},
			want: []string{"env PERFGATE_POLICY_TOLERANCES: policy.tolerances: tpot_ms.p50: 1pp: percentage points are for ratio metrics"}},
		{name: "bad assumed_between", file: "policy:\n  assumed_between: {tpot_ms.pmax: 0.02, \"*\": 1.5}\n",
			want: []string{`perfgate.yaml:2: policy.assumed_between.tpot_ms.pmax: unknown metric id "tpot_ms.pmax"`, "perfgate.yaml:2: policy.assumed_between.*: 1.5: a between-session CV is at least 0 and below 1"}},
		{name: "env assumed_between", environ: []string{"PERFGATE_POLICY_ASSUMED_BETWEEN=*=x"},
			want: []string{"env PERFGATE_POLICY_ASSUMED_BETWEEN: policy.assumed_between: *: \"x\" is not a CV"}},
		{name: "unquoted redirect", file: "server:\n  command: vllm serve m > log\n", want: []string{"perfgate.yaml:2: server.command: command has an unquoted '>'"}},
		{name: "not a mapping", file: "- a\n", want: []string{"perfgate.yaml:1: the file must be a mapping"}},
		{name: "yaml syntax", file: "a: [\n", want: []string{"perfgate.yaml: yaml:"}},
		{name: "invalid value from file names line", file: "profile: ok\npolicy:\n  alpha: 0.9\n",
			want: []string{"perfgate.yaml:3: policy.alpha: must be in (0, 0.5], got 0.9"}},
		{name: "invalid value from env names variable", environ: []string{"PERFGATE_TRIALS_MIN=1"},
			want: []string{"env PERFGATE_TRIALS_MIN: trials.min: must be at least 2"}},
		{name: "renamed key from env names the new one", environ: []string{"PERFGATE_POLICY_MIN_TRIALS=5"},
			want: []string{"env PERFGATE_POLICY_MIN_TRIALS: policy.min_trials: renamed to trials.min", "PERFGATE_TRIALS_MIN"}},
		{name: "ab unknown arm key", file: "ab:\n  a:\n    cmd: vllm serve m\n",
			want: []string{`perfgate.yaml:3: ab.a.cmd: unknown key`}},
		{name: "ab odd blocks", file: "ab:\n  blocks: 5\n",
			want: []string{"perfgate.yaml:2: ab.blocks: must be an even number of blocks between 2 and 1000 (or 0: the default), got 5"}},
		{name: "ab max_blocks below blocks", file: "ab:\n  blocks: 8\n  max_blocks: 4\n",
			want: []string{"perfgate.yaml:3: ab.max_blocks: must be 0 (no extra blocks) or between ab.blocks (8) and 1000, got 4"}},
		{name: "ab bad arm url and env", file: "ab:\n  b:\n    url: 127.0.0.1:8001\n    env: [NOEQUALS]\n",
			want: []string{"perfgate.yaml:3: ab.b.url: 127.0.0.1:8001: missing scheme", "perfgate.yaml:4: ab.b.env: entry 1 must be NAME=value"}},
		{name: "ab negative seed from env", environ: []string{"PERFGATE_AB_SEED=-1"},
			want: []string{"env PERFGATE_AB_SEED: ab.seed: must be 0"}},
		{name: "ab args redirect", file: "ab:\n  a:\n    args: --x > log\n",
			want: []string{"perfgate.yaml:3: ab.a.args: command has an unquoted '>'"}},
		{name: "too few restarts", file: "calibrate:\n  restarts: 2\n",
			want: []string{"perfgate.yaml:2: calibrate.restarts: must be between 3 and 1000"}},
		{name: "one trial per start", environ: []string{"PERFGATE_CALIBRATE_TRIALS=1"},
			want: []string{"env PERFGATE_CALIBRATE_TRIALS: calibrate.trials: must be between 2 and 1000"}},
		{name: "unparsable env", environ: []string{"PERFGATE_TRIALS_MAX=ten"},
			want: []string{"env PERFGATE_TRIALS_MAX: trials.max:"}},
		{name: "invalid value from flag", args: []string{"--profile", "../etc"},
			want: []string{"flag --profile: profile:"}},
		{name: "unknown metric", file: "policy:\n  gated: [tpot_ms.pmax, completed]\n",
			want: []string{`perfgate.yaml:2: policy.gated: unknown metric id "tpot_ms.pmax"`, `"completed" is informational`}},
		{name: "bad url hides password", environ: []string{"PERFGATE_SERVER_URL=ftp://user:hunter2@host/"},
			want: []string{"env PERFGATE_SERVER_URL: server.url: ftp://[redacted]@host/: scheme must be http or https"}},
		{name: "url without scheme", environ: []string{"PERFGATE_SERVER_URL=127.0.0.1:8000"},
			want: []string{"env PERFGATE_SERVER_URL: server.url: 127.0.0.1:8000: missing scheme: write http://127.0.0.1:8000"}},
		{name: "bad env entry", file: "server:\n  env: [HF_TOKEN hf_secret]\n",
			want: []string{"perfgate.yaml:2: server.env: entry 1 must be NAME=value"}},
		{name: "negative gpus", environ: []string{"PERFGATE_SERVER_GPUS=-2"},
			want: []string{"env PERFGATE_SERVER_GPUS: server.gpus: must be between 1 and 100000"}},
		{name: "gpus not a number", file: "server:\n  gpus: eight\n", want: []string{"perfgate.yaml:2: server.gpus:"}},
		{name: "unknown engine", file: "server:\n  engine: trtllm\n",
			want: []string{`perfgate.yaml:2: server.engine: unknown engine "trtllm": want auto, llamacpp, ollama, openai, sglang, tgi, vllm`}},
		{name: "trials below min", file: "trials:\n  max: 3\n", want: []string{"trials.max: must be between trials.min (5) and 1000, got 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			opts := Options{Environ: tt.environ}
			if tt.file != "" {
				opts.File = writeFile(t, dir, "perfgate.yaml", tt.file)
			}
			fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
			fs.String("profile", "", "")
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			opts.Flags, opts.FlagKeys = fs, map[string]string{"profile": "profile"}
			_, err := Load(opts)
			if err == nil {
				t.Fatalf("Load succeeded, want errors %q", tt.want)
			}
			msg := strings.ReplaceAll(err.Error(), dir+string(filepath.Separator), "")
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q\ndoes not contain %q", msg, w)
				}
			}
			for _, secret := range []string{"hunter2", "hf_secret"} {
				if strings.Contains(msg, secret) {
					t.Errorf("error leaks %q: %s", secret, msg)
				}
			}
		})
	}
}

func TestLoadMaxFollowsMinTrials(t *testing.T) {
	l, err := Load(Options{Environ: []string{"PERFGATE_TRIALS_MIN=15"}})
	if err != nil {
		t.Fatal(err)
	}
	if l.Config.Trials.Max != 15 {
		t.Errorf("trials.max = %d, want 15 (follows trials.min when unset)", l.Config.Trials.Max)
	}
	// Set explicitly, a maximum below the minimum is still an error.
	if _, err := Load(Options{Environ: []string{"PERFGATE_TRIALS_MIN=15", "PERFGATE_TRIALS_MAX=12"}}); err == nil {
		t.Error("trials.max 12 < trials.min 15 accepted")
	}
}

func TestLoadMissingNamedFile(t *testing.T) {
	_, err := Load(Options{File: filepath.Join(t.TempDir(), "nope.yaml")})
	if err == nil || !strings.Contains(err.Error(), "nope.yaml") {
		t.Errorf("Load of a missing named file: %v", err)
	}
}

func TestLoadBadFlagBinding(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.String("url", "", "")
	for _, keys := range []map[string]string{{"url": "server.nope"}, {"missing": "server.url"}} {
		if _, err := Load(Options{Flags: fs, FlagKeys: keys}); err == nil {
			t.Errorf("Load with binding %v succeeded", keys)
		}
	}
}

// FuzzCheckFile feeds arbitrary YAML through the file checker and viper:
// neither may panic, and a file the checker accepts must load or fail with
// a validation error, never a decoding error that names no line.
func FuzzCheckFile(f *testing.F) {
	f.Add([]byte(fullFile))
	f.Add([]byte("server:\n  command: 'a b'\n"))
	f.Add([]byte("policy: {tolerances: {x: 1}}\n"))
	f.Add([]byte("a: &x 1\nb: *x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		p := filepath.Join(dir, "f.yaml")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := checkFile(p, data); err != nil {
			return
		}
		_, err := Load(Options{File: p})
		if err != nil && strings.HasPrefix(err.Error(), "config: ") {
			t.Fatalf("checked file failed to decode: %v\n%s", err, data)
		}
	})
}

// TestExampleFileLoads keeps the documented example valid.
func TestExampleFileLoads(t *testing.T) {
	l, err := Load(Options{File: filepath.Join("..", "..", "examples", "perfgate.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	if l.Config.Profile != "h100-llama8b" || len(l.Config.Policy.Gated) == 0 || l.Config.Server.URL == "" {
		t.Errorf("example loaded as %+v", l.Config)
	}
}

// FuzzParseText checks the environment/flag value parser for every kind of
// setting: no panics, and accepted lists and maps hold no empty entries.
func FuzzParseText(f *testing.F) {
	for _, s := range []string{"a,b", " a , ,b", "tpot_ms.p50=0.03,x=1", "=1", "10m", "true", "0.5", "vllm serve 'm x'", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range schema {
			if s.kind == kindSection {
				continue
			}
			v, err := parseText(s, text)
			if err != nil {
				continue
			}
			switch x := v.(type) {
			case []string:
				if s.kind == kindList {
					for _, item := range x {
						if item == "" {
							t.Fatalf("%s: empty list item from %q", s.key, text)
						}
					}
				}
			case map[string]any:
				for k := range x {
					if k == "" {
						t.Fatalf("%s: empty map key from %q", s.key, text)
					}
				}
			}
		}
	})
}

// TestLoadToleranceForms: perfgate.yaml and PERFGATE_POLICY_TOLERANCES read
// tolerances with metrics.ParseTolerance, like workload files: "3%", "0.5pp"
// (ratio metrics) and bare fractions all work, in the file and in the
// environment (issue 14, defect 16: "3%" used to be refused here).
func TestLoadToleranceForms(t *testing.T) {
	file := writeFile(t, t.TempDir(), "p.yaml", "policy:\n  tolerances:\n    tpot_ms.p50: 3%\n    success_rate: 0.5pp\n    ttft_ms.p99: 0.08\n")
	l, err := Load(Options{File: file, Environ: []string{"PERFGATE_POLICY_TOLERANCES=itl_ms.p99=10%,goodput_ratio=2pp,e2el_ms.p50=0.04"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"tpot_ms.p50": 0.03, "success_rate": 0.005, "ttft_ms.p99": 0.08, "itl_ms.p99": 0.1, "goodput_ratio": 0.02, "e2el_ms.p50": 0.04}
	if !reflect.DeepEqual(l.Config.Policy.Tolerances, want) {
		t.Errorf("tolerances = %v, want %v", l.Config.Policy.Tolerances, want)
	}
}

// TestLoadAPIKeyIsNoUnknownSetting: PERFGATE_API_KEY is perfgate's own
// variable, read by the commands (APIKey), so Load must not warn that it
// "matches no setting" (issue 14, defect 16), and must not store it.
func TestLoadAPIKeyIsNoUnknownSetting(t *testing.T) {
	// PERFGATE_RUNNER_HEALTH and PERFGATE_MERGE_BASE are read by the
	// commands too (session, the trusted side): no warning either.
	l, err := Load(Options{Environ: []string{"PERFGATE_API_KEY=sk-test-key", "PERFGATE_TYPO=1",
		"PERFGATE_RUNNER_HEALTH=off", "PERFGATE_MERGE_BASE=abc1234"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Warnings) != 1 || !strings.Contains(l.Warnings[0], "PERFGATE_TYPO") {
		t.Errorf("Warnings = %q, want only the one about PERFGATE_TYPO", l.Warnings)
	}
	if strings.Contains(fmt.Sprintf("%+v", l.Config), "sk-test-key") {
		t.Errorf("the API key entered the configuration")
	}
	env := map[string]string{"PERFGATE_API_KEY": "a", "OPENAI_API_KEY": "b"}
	if got := APIKey(func(k string) string { return env[k] }); got != "a" {
		t.Errorf("APIKey = %q, want PERFGATE_API_KEY's", got)
	}
	delete(env, "PERFGATE_API_KEY")
	if got := APIKey(func(k string) string { return env[k] }); got != "b" {
		t.Errorf("APIKey = %q, want OPENAI_API_KEY's", got)
	}
}

// TestLoadToleranceEnvMergesPerMetric pins the documented behaviour: the
// environment's tolerance entries override the file's metric by metric.
func TestLoadToleranceEnvMergesPerMetric(t *testing.T) {
	file := writeFile(t, t.TempDir(), "p.yaml", "policy:\n  tolerances:\n    tpot_ms.p50: 0.03\n    ttft_ms.p99: 0.08\n")
	l, err := Load(Options{File: file, Environ: []string{"PERFGATE_POLICY_TOLERANCES=itl_ms.p99=0.1,tpot_ms.p50=0.05"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"tpot_ms.p50": 0.05, "ttft_ms.p99": 0.08, "itl_ms.p99": 0.1}
	if !reflect.DeepEqual(l.Config.Policy.Tolerances, want) {
		t.Errorf("tolerances = %v, want %v", l.Config.Policy.Tolerances, want)
	}
}

// TestLoadRenamedKey reads a perfgate.yaml that still uses
// policy.min_trials (the name trials.min had before it was told apart
// from the verdict's low-confidence threshold): it is refused at its
// file:line with the new name, not ignored or read with a new meaning.
func TestLoadRenamedKey(t *testing.T) {
	file := filepath.Join("testdata", "renamed-min-trials.yaml")
	_, err := Load(Options{File: file})
	if err == nil {
		t.Fatal("policy.min_trials accepted")
	}
	want := file + ":9: policy.min_trials: renamed to trials.min"
	if !strings.Contains(err.Error(), want) {
		t.Errorf("error %q\ndoes not contain %q", err, want)
	}
	if _, err := Value(&Loaded{Config: Default()}, "policy.min_trials"); err == nil || !strings.Contains(err.Error(), "renamed to trials.min") {
		t.Errorf("config --get policy.min_trials: %v, want the new name", err)
	}
}
