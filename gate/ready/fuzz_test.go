package ready

import (
	"encoding/json"
	"testing"
)

// FuzzParseModels: any /v1/models body either yields models that all have
// an id or an error; it never panics. /version bodies likewise.
func FuzzParseModels(f *testing.F) {
	for _, s := range []string{
		`{"data":[{"id":"m1","max_model_len":4096},{"id":"m2"}]}`,
		`{"data":[]}`, `{"data":[{"id":""}]}`, `{"object":"list"}`, `[]`, `{"data":null}`,
		`{"data":[{"id":1}]}`, `{"version":"0.11.0"}`, `{"version":7}`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		models, err := parseModels(body)
		if err == nil {
			if len(models) == 0 {
				t.Fatal("no error and no models")
			}
			for _, m := range models {
				if m.ID == "" {
					t.Fatalf("a model without id: %+v", models)
				}
			}
		} else if models != nil {
			t.Fatalf("models %+v with error %v", models, err)
		}
		v := parseVersion(body)
		var probe struct {
			Version string `json:"version"`
		}
		if json.Unmarshal(body, &probe) == nil && probe.Version != v {
			t.Fatalf("version %q, want %q", v, probe.Version)
		}
	})
}
