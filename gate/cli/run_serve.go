package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/config"
	"github.com/perfgate/perfgate/gate/loadgen"
	"github.com/perfgate/perfgate/gate/result"
	"github.com/perfgate/perfgate/gate/server"
)

// runLaunched is perfgate run --server-cmd: start the server the way
// perfgate gate does (serveRun), run the cells against it, and stop it. A
// server that dies or stops answering mid-run fails the run (exit 3); the
// cell it cut short is rewritten incomplete with the end of the server's
// log, so the result file says what happened.
func runLaunched(cmd *cobra.Command, s *Streams, o *runOptions, cfg loadgen.Config, fp *serveFingerprint, last **result.Result, cells func(context.Context, loadgen.Config) error) error {
	argv, err := config.SplitArgv(o.serverCmd)
	if err != nil {
		return exitf(ExitInvalid, "run: --server-cmd: %w", err)
	}
	if len(argv) == 0 {
		return exitf(ExitInvalid, "run: --server-cmd is empty")
	}
	launch := serveLaunch{Command: argv, Env: o.serverEnv, URL: o.url, Log: o.serverLog, Engine: cfg.Engine}
	if cmd.Flags().Changed("ready-timeout") {
		launch.ReadyTimeout = o.readyTimeout // else the server's default, sized for model loading
	}
	fp.argv = argv
	fp.env, _ = server.ParseEnv(o.serverEnv) // serveRun reports a bad entry
	err = serveRun(cmd.Context(), s, launch, func(ctx context.Context, info server.Info) error {
		cfg.URL = info.URL
		return cells(ctx, cfg)
	})
	if err == nil {
		return nil
	}
	f, failed := serveFailure(s, err)
	if !failed {
		var ee *ExitError
		if errors.As(err, &ee) {
			return err
		}
		return exitf(ExitRunFailed, "run: %w", err)
	}
	if r := *last; r != nil && !f.BeforeReady {
		serveMarkFailed(r, f)
		path := filepath.Join(o.out, result.FileName(r.Workload.Cell))
		if werr := result.Write(path, r); werr != nil {
			return fmt.Errorf("run: %w", werr)
		}
	}
	return exitf(ExitRunFailed, "run: %s", f.Summary)
}
