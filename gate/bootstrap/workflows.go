package bootstrap

import (
	"fmt"
	"io/fs"
	"regexp"
	"strings"
)

// examplesProfile is the profile name the example workflows use; init
// writes the team's in its place.
const examplesProfile = "h100-llama8b"

// Workflow is one workflow file init writes: its name under
// .github/workflows/ and the example it is made from.
type Workflow struct {
	Name, Example string
}

// WorkflowsFor are the workflows a team needs for the chosen PR check:
// the PR check itself (stored-baseline gate or interleaved A/B), the
// nightly that grows the baseline history, and the release sign-off.
func WorkflowsFor(m Mode) []Workflow {
	pr := Workflow{"perfgate-pr.yml", "workflows/pr-check.yml"}
	if m == AB {
		pr = Workflow{"perfgate-pr.yml", "workflows/ab-pr-check.yml"}
	}
	return []Workflow{pr, {"perfgate-nightly.yml", "workflows/nightly.yml"}, {"perfgate-release.yml", "workflows/release.yml"}}
}

// startStep matches the example step that starts the server by hand.
var startStep = regexp.MustCompile(`^(\s*)- name: Start the .*server`)

// RenderWorkflow makes one workflow from its example (examples is the
// embedded examples/ tree): the team's profile in place of the example's,
// and, since perfgate.yaml's server.command has perfgate launch the server
// itself, the example's hand-written start step and its server-url input
// removed; an A/B check's max-blocks input is twice the plan's blocks, as
// perfgate.yaml's ab.max_blocks (the input would override it). The plan's
// reason heads the file, so the reader knows what init chose.
func RenderWorkflow(examples fs.FS, w Workflow, profile string, p *Plan) ([]byte, error) {
	data, err := fs.ReadFile(examples, w.Example)
	if err != nil {
		return nil, fmt.Errorf("example workflow %s: %w", w.Example, err)
	}
	text := strings.ReplaceAll(string(data), examplesProfile+"-ab", profile)
	text = strings.ReplaceAll(text, examplesProfile, profile)
	lines := strings.Split(text, "\n")
	if p.Mode == AB && p.Blocks > 0 {
		for i, l := range lines {
			if t := strings.TrimSpace(l); strings.HasPrefix(t, "max-blocks:") {
				lines[i] = l[:len(l)-len(strings.TrimLeft(l, " "))] + fmt.Sprintf("max-blocks: \"%d\"", 2*p.Blocks)
			}
		}
	}
	out, dropped := dropStartStep(lines)
	if dropped {
		kept := out[:0]
		for _, l := range out {
			if strings.TrimSpace(l) == "server-url: http://127.0.0.1:8000" {
				continue
			}
			kept = append(kept, l)
		}
		out = kept
	}
	var b strings.Builder
	b.WriteString("# Written by `perfgate init` from examples/" + w.Example + " (docs/init.md).\n")
	if dropped {
		b.WriteString("# perfgate launches the server itself (server.command in perfgate.yaml).\n")
	}
	for _, l := range wrap("PR check: "+p.Why, 76) {
		b.WriteString("#   " + l + "\n")
	}
	b.WriteString("#\n")
	b.WriteString(strings.Join(out, "\n"))
	return []byte(b.String()), nil
}

// dropStartStep removes the step that starts the server by hand: its
// "- name:" line and every line after it until the next line indented no
// deeper than the step's dash (the next step or the next key), keeping the
// blank lines before that.
func dropStartStep(lines []string) ([]string, bool) {
	for i, l := range lines {
		m := startStep.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		indent := len(m[1])
		end := i + 1
		for end < len(lines) {
			t := lines[end]
			if strings.TrimSpace(t) != "" && len(t)-len(strings.TrimLeft(t, " ")) <= indent {
				break
			}
			end++
		}
		for end > i+1 && strings.TrimSpace(lines[end-1]) == "" {
			end--
		}
		out := append(append([]string{}, lines[:i]...), lines[end:]...)
		// The blank line that separated the removed step from the one
		// before it.
		if i > 0 && i < len(out) && strings.TrimSpace(out[i-1]) == "" && strings.TrimSpace(out[i]) == "" {
			out = append(out[:i-1], out[i:]...)
		}
		return out, true
	}
	return lines, false
}
