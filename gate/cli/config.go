package cli

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/config"
)

func init() { register(newConfigCmd) }

// newConfigCmd builds `perfgate config`: print the effective configuration
// (file, then PERFGATE_* environment, then defaults) with secrets redacted,
// so a user can see what `perfgate gate` would run with and why.
func newConfigCmd(s *Streams) *cobra.Command {
	var file, get string
	cmd := &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration, secrets redacted",
		Long: "Print the effective configuration: " + config.DefaultFile + " (or --config FILE), overridden by\n" +
			"PERFGATE_* environment variables, on top of the defaults. Each value that is not a\n" +
			"default is annotated with where it was set. --get KEY prints one value. Tokens, URL passwords and secret-looking\n" +
			"server variables and options are redacted.\n\nEnvironment variables:\n  " +
			strings.Join(configEnvNames(), "\n  "),
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			l, err := config.Load(config.Options{File: file, Environ: s.environ()})
			if err != nil {
				return &ExitError{Code: ExitInvalid, Err: err}
			}
			if get != "" {
				v, err := config.Value(l, get)
				if err != nil {
					return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("--get: %w", err)}
				}
				fmt.Fprintln(s.Out, v)
				return nil
			}
			if err := config.Print(s.Out, l); err != nil {
				return fmt.Errorf("writing configuration: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&file, "config", "", "configuration file (default "+config.DefaultFile+" when it exists)")
	cmd.Flags().StringVar(&get, "get", "", "print only this setting's value (e.g. profile, server.url), for scripts")
	return cmd
}

func configEnvNames() []string {
	keys := config.Keys()
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = fmt.Sprintf("%-40s %s", config.EnvName(k), k)
	}
	return out
}
