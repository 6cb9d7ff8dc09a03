package config

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/pflag"
	"github.com/spf13/viper"
)

// DefaultFile is the configuration file read when none is named and it
// exists in the working directory.
const DefaultFile = "perfgate.yaml"

// Options says where Load finds the configuration's layers.
type Options struct {
	// File is the configuration file. Empty means DefaultFile if it exists
	// (a missing default file is not an error; a missing named file is).
	File string
	// Environ is the environment as os.Environ returns it; only PERFGATE_*
	// entries are read. Nil reads no environment.
	Environ []string
	// Flags and FlagKeys bind command-line flags: FlagKeys maps a flag name
	// to the setting it overrides ("url" -> "server.url"). Only flags the
	// user set (Changed) override anything, so a flag's default never hides
	// a file or environment value.
	Flags    *pflag.FlagSet
	FlagKeys map[string]string
}

// Loaded is a loaded configuration and where each of its values came from.
type Loaded struct {
	Config Config
	// File is the configuration file read, or "" when none was.
	File string
	// Sources maps each setting key that is not at its default to where it
	// was set: "perfgate.yaml:12", "env PERFGATE_SERVER_URL", "flag --url".
	Sources map[string]string
	// Warnings are problems that do not stop a run, such as PERFGATE_*
	// variables that match no setting.
	Warnings []string
}

// Source returns where key was set, or "default".
func (l *Loaded) Source(key string) string {
	if s, ok := l.Sources[key]; ok {
		return s
	}
	return "default"
}

// Load builds the effective configuration: Default(), then the file, then
// PERFGATE_* variables, then changed flags; then it checks the result. Every
// error names where the bad value came from.
func Load(opts Options) (*Loaded, error) {
	l := &Loaded{Config: Default(), Sources: map[string]string{}}
	v := viper.NewWithOptions(viper.KeyDelimiter(viperDelim))

	file := opts.File
	if file == "" {
		if _, err := os.Stat(DefaultFile); err == nil {
			file = DefaultFile
		}
	}
	if file != "" {
		data, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("config: %w", err)
		}
		lines, err := checkFile(file, data)
		if err != nil {
			return nil, err
		}
		v.SetConfigType("yaml")
		if err := v.ReadConfig(bytes.NewReader(data)); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		l.File = file
		for key, line := range lines {
			l.Sources[key] = fmt.Sprintf("%s:%d", file, line)
		}
	}

	envErr := applyEnv(v, l, opts.Environ)
	flagErr := applyFlags(v, l, opts.Flags, opts.FlagKeys)
	if err := errors.Join(envErr, flagErr); err != nil {
		return nil, err
	}

	hook := viper.DecodeHook(mapstructure.ComposeDecodeHookFunc(
		argvHook,
		commentHook,
		toleranceHook,
		mapstructure.StringToTimeDurationHookFunc(),
		mapstructure.StringToSliceHookFunc(","),
	))
	if err := v.UnmarshalExact(&l.Config, hook); err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	if l.File != "" {
		resolvePaths(&l.Config, l)
	}
	// An unset trials.max follows a raised trials.min (e.g. the Action's
	// trials input), instead of failing validation against the default
	// maximum the user never chose.
	if _, set := l.Sources["trials.max"]; !set && l.Config.Trials.Max < l.Config.Trials.Min {
		l.Config.Trials.Max = l.Config.Trials.Min
	}
	if m, ok := canonicalComment(l.Config.GitHub.Comment); ok {
		l.Config.GitHub.Comment = m
	}
	if problems := l.Config.problems(); len(problems) > 0 {
		errs := make([]error, len(problems))
		for i, p := range problems {
			errs[i] = fmt.Errorf("%s: %s: %s", l.Source(p.key), p.key, p.msg)
		}
		return nil, errors.Join(errs...)
	}
	return l, nil
}

// viperDelim separates key path segments inside viper. Not ".", because
// metric ids in policy.tolerances contain dots ("tpot_ms.p50") and viper
// would split them into nested maps.
const viperDelim = "::"

func viperKey(key string) string { return strings.ReplaceAll(key, ".", viperDelim) }

// commentHook reads a YAML boolean (github.comment: true, from before
// the setting had modes) as its mode; without it viper's weak decoding
// would turn true into "1".
func commentHook(from, to reflect.Type, data any) (any, error) {
	if to != reflect.TypeOf(CommentMode("")) || from.Kind() != reflect.Bool {
		return data, nil
	}
	if data.(bool) {
		return CommentAlways, nil
	}
	return CommentNever, nil
}

// argvHook turns a string into an Argv with SplitArgv (a YAML list decodes
// without help).
func argvHook(from, to reflect.Type, data any) (any, error) {
	if to != argvType || from.Kind() != reflect.String {
		return data, nil
	}
	return SplitArgv(data.(string))
}

// applyEnv sets every setting whose PERFGATE_* variable is set and not
// empty. Empty counts as unset because the Action passes every input as an
// environment variable, and an input the user left out arrives empty.
func applyEnv(v *viper.Viper, l *Loaded, environ []string) error {
	byName := map[string]setting{}
	for _, s := range schema {
		if s.kind != kindSection {
			byName[EnvName(s.key)] = s
		}
	}
	var errs []error
	for _, kv := range environ {
		name, val, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix) || val == "" {
			continue
		}
		if key, old := renamedEnv(name); old {
			errs = append(errs, fmt.Errorf("env %s: %s: %s (%s)", name, key, renamedMsg(key), EnvName(renamed[key])))
			continue
		}
		s, ok := byName[name]
		if !ok && commandEnv[name] {
			continue // read by the commands themselves, never a setting
		}
		if !ok {
			l.Warnings = append(l.Warnings, fmt.Sprintf("environment variable %s matches no setting and is ignored", name))
			continue
		}
		typed, err := parseText(s, val)
		if err != nil {
			errs = append(errs, fmt.Errorf("env %s: %s: %w", name, s.key, err))
			continue
		}
		v.Set(viperKey(s.key), typed)
		l.Sources[s.key] = "env " + name
	}
	sort.Strings(l.Warnings)
	return errors.Join(errs...)
}

// renamedEnv reports whether name is the variable of a renamed setting,
// and which.
func renamedEnv(name string) (string, bool) {
	for old := range renamed {
		if EnvName(old) == name {
			return old, true
		}
	}
	return "", false
}

// applyFlags sets the settings of changed flags, after the environment, so
// flags win.
func applyFlags(v *viper.Viper, l *Loaded, fs *pflag.FlagSet, keys map[string]string) error {
	if fs == nil {
		return nil
	}
	names := slices.Sorted(maps.Keys(keys))
	var errs []error
	for _, name := range names {
		key := keys[name]
		s, ok := schemaByKey[key]
		if !ok || s.kind == kindSection {
			return fmt.Errorf("config: flag --%s is bound to unknown setting %q", name, key)
		}
		f := fs.Lookup(name)
		if f == nil {
			return fmt.Errorf("config: no flag --%s to bind to %s", name, key)
		}
		if !f.Changed {
			continue
		}
		var typed any
		var err error
		if sv, ok := f.Value.(pflag.SliceValue); ok && (s.kind == kindList || s.kind == kindArgv) {
			typed = sv.GetSlice()
		} else {
			typed, err = parseText(s, f.Value.String())
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("flag --%s: %w", name, err))
			continue
		}
		v.Set(viperKey(key), typed)
		l.Sources[key] = "flag --" + name
	}
	return errors.Join(errs...)
}

// parseText converts the text form of a setting (an environment variable or
// a scalar flag) into a typed value.
func parseText(s setting, text string) (any, error) {
	switch s.kind {
	case kindList:
		var out []string
		for _, part := range strings.Split(text, ",") {
			if part = strings.TrimSpace(part); part != "" {
				out = append(out, part)
			}
		}
		return out, nil
	case kindArgv:
		a, err := SplitArgv(text)
		return []string(a), err
	case kindFloatMap:
		return parseMetricMap(text, metricMapOf(s.key))
	case kindInt:
		return strconv.Atoi(text)
	case kindFloat:
		return strconv.ParseFloat(text, 64)
	case kindBool:
		b, err := strconv.ParseBool(text)
		if err != nil {
			return nil, fmt.Errorf("%q is not true or false", text)
		}
		return b, nil
	case kindDuration:
		if err := parseScalar(kindDuration, text); err != nil {
			return nil, err
		}
	}
	return text, nil
}

// toleranceHook turns a tolerance written with a unit ("3%", "0.5pp": the
// file's values reach viper as strings) into its fraction. checkFile and
// parseMetricMap have already checked each value against its metric with
// metrics.ParseTolerance; other strings pass through to fail as before.
func toleranceHook(from, to reflect.Type, data any) (any, error) {
	if to.Kind() != reflect.Float64 || from.Kind() != reflect.String {
		return data, nil
	}
	text := strings.TrimSpace(data.(string))
	for _, unit := range []string{"%", "pp"} {
		if num, ok := strings.CutSuffix(text, unit); ok {
			if v, err := strconv.ParseFloat(strings.TrimSpace(num), 64); err == nil {
				return v / 100, nil
			}
		}
	}
	return data, nil
}

// parseMetricMap parses "a=0.03,b=3%" (policy.tolerances) or
// "*=0,ttft_ms.p99=4%" (policy.assumed_between) from the environment into
// key -> fraction, each value read as in perfgate.yaml.
func parseMetricMap(text string, mm metricMap) (map[string]any, error) {
	out := map[string]any{}
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, val, ok := strings.Cut(part, "=")
		k = strings.TrimSpace(k)
		if !ok || !mm.validKey(k) {
			return nil, fmt.Errorf(mm.envUsage, part)
		}
		m, known := mm.lookup(k)
		if !known {
			return nil, fmt.Errorf("%q: unknown metric id %q", part, k)
		}
		f, err := mm.parse(m, val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[k] = f
	}
	return out, nil
}

// resolvePaths makes relative paths that came from the file relative to
// the file's directory, so `--config sub/perfgate.yaml` means the same as
// running from sub/. Paths from flags and the environment stay relative to
// the working directory, as a shell user expects.
func resolvePaths(c *Config, l *Loaded) {
	dir := filepath.Dir(l.File)
	if dir == "." {
		return
	}
	fromFile := func(key string) bool {
		src, ok := l.Sources[key]
		return ok && strings.HasPrefix(src, l.File+":")
	}
	join := func(key string, p *string) {
		// "git:<branch>" names the baseline store on a branch (package
		// gitstore), not a path.
		if *p != "" && !filepath.IsAbs(*p) && fromFile(key) && !strings.HasPrefix(*p, "git:") {
			*p = filepath.Join(dir, *p)
		}
	}
	join("baselines", &c.Baselines)
	join("output", &c.Output)
	join("server.workdir", &c.Server.Workdir)
	join("server.log", &c.Server.Log)
	join("profiling.dir", &c.Profiling.Dir)
	if fromFile("workloads") {
		for i := range c.Workloads {
			join("workloads", &c.Workloads[i])
		}
	}
}
