package report

import (
	"strings"
	"testing"

	"github.com/perfgate/perfgate/gate/result"
)

// TestFactsEngineRow: the facts table names each arm's engine profile when
// a result records one (an SGLang candidate against a vLLM baseline reads
// at a glance), and has no such row for results from before profiles.
func TestFactsEngineRow(t *testing.T) {
	b := &result.Result{Server: result.Server{Engine: "vllm", Version: "0.11.0"}}
	c := &result.Result{Server: result.Server{Version: "0.5.2"}, Fingerprint: map[string]string{result.KeyServerEngine: "sglang"}}
	got := runFacts(&Data{Baselines: map[string]*result.Result{"x": b}, Candidates: map[string]*result.Result{"x": c}})
	if !strings.Contains(got, "| Engine | vllm | sglang |") {
		t.Errorf("no engine row:\n%s", got)
	}
	if strings.Contains(got, "server.engine=") {
		t.Errorf("the engine is repeated under other fingerprint:\n%s", got)
	}
	old := &result.Result{Server: result.Server{Version: "0.10.0"}}
	if got := runFacts(&Data{Baselines: map[string]*result.Result{"x": old}, Candidates: map[string]*result.Result{"x": old}}); strings.Contains(got, "Engine") {
		t.Errorf("engine row without engines:\n%s", got)
	}
}
