package cli

import (
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/config"
)

// environ is the environment the command runs in (Streams.Environ), a
// copy, for what takes the whole of it (a launched server, config.Load).
func (s *Streams) environ() []string { return append([]string(nil), s.Environ...) }

// lookupEnv reads one variable of the command's environment; the last
// entry of a name wins, as in os.Environ's order of setting.
func (s *Streams) lookupEnv(name string) (string, bool) {
	for i := len(s.Environ) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(s.Environ[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// now is the command's clock (Streams.Clock; time.Now when nil).
func (s *Streams) now() time.Time {
	if s.Clock != nil {
		return s.Clock()
	}
	return time.Now()
}

// getenv is lookupEnv without the flag.
func (s *Streams) getenv(name string) string {
	v, _ := s.lookupEnv(name)
	return v
}

// loadConfig loads the configuration a measuring command runs with:
// perfgate.yaml (file, or the default one), the PERFGATE_* variables of
// the command's environment, and cmd's flags bound by keys (and the limit
// flags, limitKeys, where cmd has them). Its warnings go to stderr; an
// error is invalid input (exit 2).
func (s *Streams) loadConfig(file string, cmd *cobra.Command, keys map[string]string) (*config.Loaded, error) {
	if cmd.Flags().Lookup("max-dispatch-lag-ms") != nil {
		keys = maps.Clone(keys)
		maps.Copy(keys, limitKeys)
	}
	l, err := config.Load(config.Options{File: file, Environ: s.environ(), Flags: cmd.Flags(), FlagKeys: keys})
	if err != nil {
		return nil, &ExitError{Code: ExitInvalid, Err: err}
	}
	for _, w := range l.Warnings {
		fmt.Fprintf(s.Err, "perfgate: warning: %s\n", w)
	}
	return l, nil
}
