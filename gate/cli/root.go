// Package cli implements perfgate's subcommands. It is the only package that
// reads flags and the process environment and that writes to the process's
// standard streams; everything it calls takes readers, writers and plain
// structs.
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfgate/perfgate/gate/redact"
	"github.com/perfgate/perfgate/gate/result"
)

// Version is the tool version recorded in result files. Release builds set it
// with -ldflags "-X github.com/perfgate/perfgate/gate/cli.Version=v1.2.3".
var Version = "dev"

// Streams are the standard streams and the process environment a command
// uses. Tests pass buffers and an environment of their own, so they run in
// parallel without touching the process's.
type Streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// Environ is the process environment ("NAME=value"), read once by
	// Main; nil there means os.Environ(). Commands read it through
	// lookupEnv, getenv and environ, never through package os.
	Environ []string
	// Clock is the command's clock, for the dates it records and the ages
	// it reports (a baseline's promotion, its age in the notes); nil is
	// time.Now. Commands read it through now.
	Clock func() time.Time
	// secrets are the workloads' header values (protectHeaders).
	secrets []string
	// scrub knows every secret value of the run (the process
	// environment's, the workloads' header values); rawOut is stdout
	// before Main's scrubbing writer, for a document scrubbed where it is
	// produced (writeDocument).
	scrub  *redact.Scrubber
	rawOut io.Writer
	// writeResult and writeFile write a command's output files; nil is
	// result.Write and result.WriteFileAtomic (see files.go). A test gives
	// its own to fill the disk for its run alone.
	writeResult func(path string, r *result.Result) error
	writeFile   func(path string, data []byte) error
}

// commands holds the constructors of the subcommands. Each command's file
// adds itself in an init function, so commands live in one file each and
// the root never needs editing.
var commands []func(*Streams) *cobra.Command

func register(newCmd func(*Streams) *cobra.Command) {
	commands = append(commands, newCmd)
}

// NewRoot builds the command tree writing to s.
func NewRoot(s *Streams) *cobra.Command {
	if s.Environ == nil {
		s.Environ = os.Environ()
	}
	root := &cobra.Command{
		Use:           "perfgate",
		Short:         "Performance regression gate for LLM serving engines",
		Long:          "perfgate runs frozen workloads against an OpenAI-compatible server, compares the\ntrials with stored baselines using variance-aware statistics, and reports pass or fail.",
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	for _, newCmd := range commands {
		root.AddCommand(newCmd(s))
	}
	return root
}

// Main runs perfgate with args and returns the exit code. Errors are printed
// to s.Err as "perfgate: message".
//
// Everything written to s.Out and s.Err is scrubbed of the secrets in the
// process environment (GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN, the API key,
// HF_TOKEN, ...; see gate/redact), the last guard between a server's echo
// of them and the CI log.
func Main(ctx context.Context, args []string, s Streams) ExitCode {
	if s.Environ == nil {
		s.Environ = os.Environ()
	}
	known := redact.ForProcess(s.Environ, nil)
	s.scrub, s.rawOut = known, s.Out
	if s.Out != nil {
		s.Out = known.Writer(s.Out)
	}
	if s.Err != nil {
		s.Err = known.Writer(s.Err)
	}
	root := NewRoot(&s)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err != nil {
		var msg string
		if ee, ok := err.(*ExitError); !ok || ee.Err != nil {
			msg = err.Error()
		}
		if msg != "" {
			fmt.Fprintf(s.Err, "perfgate: %s\n", msg)
		}
	}
	return codeOf(err)
}
