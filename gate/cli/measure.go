package cli

import (
	"context"
	"errors"
	"os"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/pipeline"
	"github.com/perfgate/perfgate/gate/report"
	"github.com/perfgate/perfgate/gate/server"
	"github.com/perfgate/perfgate/gate/session"
)

// measure completes a command's session options with what every
// measuring command gives alike: the environment, the workloads' header
// values, stderr for progress and the server's log, and the tool version
// results record.
func (s *Streams) measure(o session.Options) session.Options {
	o.LookupEnv, o.Environ, o.Secrets, o.Err = s.lookupEnv, s.environ(), s.secrets, s.Err
	o.Argv = os.Args // its secret-looking values are scrubbed too
	o.Load.Progress, o.Load.ToolVersion = s.Err, Version
	return o
}

// measureEngine is session.Engine with the setting that chose it (flag)
// named in the error.
func measureEngine(configured, flag string, argv []string) (engine.Name, error) {
	n, err := session.Engine(configured, argv)
	if err != nil {
		return "", exitf(ExitInvalid, "%s: %w", flag, err)
	}
	return n, nil
}

// measureSetup maps a session's invalid setting to invalid input (exit
// 2), a URL the load generator refuses naming urlFlag; any other error is
// returned as it is.
func measureSetup(err error, urlFlag string) error {
	var ie *session.InvalidError
	switch {
	case !errors.As(err, &ie):
		return err
	case ie.Setting == "url":
		return exitf(ExitInvalid, "%s: %w", urlFlag, ie.Err)
	}
	return &ExitError{Code: ExitInvalid, Err: ie.Err}
}

// reportedFailure is a launched server's failure as the report shows it.
func reportedFailure(f *server.Failure) *report.ServerFailure {
	if f == nil {
		return nil
	}
	return &report.ServerFailure{Summary: f.Summary, Tail: f.Tail}
}

// restartTrials is a pipeline's Restart over a session's: the next
// start's context and trials.
func restartTrials(restart session.Restart) func() (context.Context, pipeline.Trials, error) {
	return func() (context.Context, pipeline.Trials, error) {
		ctx, s, err := restart()
		if err != nil {
			return nil, nil, err
		}
		return ctx, s.Trials(), nil
	}
}
