package actioncheck

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/perfgate/perfgate/gate/cli"
)

// TestWorkflowCommandsExist checks every `perfgate <command> --flag` that a
// workflow or example script runs against the real command tree, so the
// examples users copy cannot drift from the CLI.
func TestWorkflowCommandsExist(t *testing.T) {
	files, _ := filepath.Glob("../../.github/workflows/*.yml")
	examples, _ := filepath.Glob("../../examples/workflows/*.yml")
	files = append(files, examples...)
	if len(files) < 6 {
		t.Fatalf("found only %d workflow files", len(files))
	}
	root := cli.NewRoot(&cli.Streams{Out: &bytes.Buffer{}, Err: &bytes.Buffer{}})
	// An invocation starts a command: at the start of a line or after && || ; $(.
	callRe := regexp.MustCompile(`(?m)(?:^[ \t]*|&&[ \t]*|\|\|[ \t]*|;[ \t]*|\$\([ \t]*)perfgate((?: [a-z][a-z-]*)+)((?: [^\n|;&]*)?)`)
	flagRe := regexp.MustCompile(`(?:^|\s)(--?[a-zA-Z][a-zA-Z-]*)`)
	checked := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []struct {
					Run string `yaml:"run"`
				} `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal(data, &wf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for job, j := range wf.Jobs {
			for _, s := range j.Steps {
				for _, m := range callRe.FindAllStringSubmatch(s.Run, -1) {
					words := strings.Fields(m[1])
					cmd, rest, err := root.Find(words)
					if err != nil || cmd == root {
						t.Logf("%s job %s: perfgate %s is not built into this tree yet", filepath.Base(f), job, m[1])
						continue
					}
					args := strings.Join(rest, " ") + " " + m[2]
					for _, fm := range flagRe.FindAllStringSubmatch(args, -1) {
						if !hasFlag(cmd, fm[1]) {
							t.Errorf("%s job %s: %s has no flag %s", filepath.Base(f), job, cmd.CommandPath(), fm[1])
						}
					}
					checked++
				}
			}
		}
	}
	t.Logf("checked %d perfgate invocations", checked)
}

func hasFlag(cmd *cobra.Command, flag string) bool {
	name := strings.TrimLeft(flag, "-")
	if strings.HasPrefix(flag, "--") {
		return cmd.Flags().Lookup(name) != nil || cmd.InheritedFlags().Lookup(name) != nil
	}
	return len(name) == 1 && (cmd.Flags().ShorthandLookup(name) != nil || cmd.InheritedFlags().ShorthandLookup(name) != nil)
}
