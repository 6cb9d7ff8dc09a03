package github

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"
)

// Level is an annotation's severity.
type Level string

const (
	Error   Level = "error"
	Warning Level = "warning"
	Notice  Level = "notice"
)

// Annotation is one ::error/::warning/::notice line, shown on the run
// and, with File and Line, on the PR's diff.
type Annotation struct {
	Level   Level
	Title   string
	File    string // repository-relative, optional
	Line    int    // 1-based, optional
	Message string
}

// Outputs are the Action's outputs.
type Outputs struct {
	Verdict        string
	Regressed      []string // workload:metric
	ReportPath     string
	ComparisonPath string
}

// fileDelimiter is the heredoc delimiter go-githubactions writes around
// every output value; a value containing it would end the value early and
// inject further outputs, so such values are refused.
const fileDelimiter = "_GitHubActionsFileCommandDelimeter_"

// runner writes the Actions runner protocol: workflow commands to w, file
// commands to the files named by GITHUB_OUTPUT and GITHUB_STEP_SUMMARY.
type runner struct {
	a      *githubactions.Action
	getenv func(string) string
}

func newRunner(getenv func(string) string, w io.Writer) runner {
	return runner{a: githubactions.New(githubactions.WithGetenv(getenv), githubactions.WithWriter(w)), getenv: getenv}
}

// fileCommand runs a go-githubactions call that writes an environment file,
// turning its panic on I/O errors into an error.
func fileCommand(what string, f func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: %v", what, r)
		}
	}()
	f()
	return nil
}

// SetOutputs writes o to GITHUB_OUTPUT. Without GITHUB_OUTPUT (not in a
// step) it does nothing.
func (r runner) SetOutputs(o Outputs) error {
	if r.getenv("GITHUB_OUTPUT") == "" {
		return nil
	}
	for _, kv := range [][2]string{
		{"verdict", o.Verdict},
		{"regressed", strings.Join(o.Regressed, ",")},
		{"report-path", o.ReportPath},
		{"comparison-path", o.ComparisonPath},
	} {
		if strings.Contains(kv[1], fileDelimiter) || strings.ContainsAny(kv[1], "\r\n") {
			return fmt.Errorf("output %s: value contains a newline or the file-command delimiter", kv[0])
		}
		if err := fileCommand("GITHUB_OUTPUT", func() { r.a.SetOutput(kv[0], kv[1]) }); err != nil {
			return err
		}
	}
	return nil
}

// AddSummary appends markdown to the step summary (GITHUB_STEP_SUMMARY).
func (r runner) AddSummary(markdown string) error {
	if r.getenv("GITHUB_STEP_SUMMARY") == "" || markdown == "" {
		return nil
	}
	return fileCommand("GITHUB_STEP_SUMMARY", func() { r.a.AddStepSummary(markdown) })
}

// Annotate writes one workflow command per annotation. go-githubactions
// escapes %, CR and LF in messages and additionally : and , in properties,
// as the runner requires; messages are passed as arguments, never as
// format strings.
func (r runner) Annotate(list []Annotation) {
	for _, an := range list {
		fields := map[string]string{}
		if an.Title != "" {
			fields["title"] = an.Title
		}
		if an.File != "" {
			fields["file"] = an.File
			if an.Line > 0 {
				fields["line"] = strconv.Itoa(an.Line)
			}
		}
		a := r.a
		if len(fields) > 0 {
			a = a.WithFieldsMap(fields)
		}
		switch an.Level {
		case Error:
			a.Errorf("%s", an.Message)
		case Warning:
			a.Warningf("%s", an.Message)
		default:
			a.Noticef("%s", an.Message)
		}
	}
}
