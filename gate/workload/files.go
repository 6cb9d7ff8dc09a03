package workload

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// ShareGPTURL is where the ShareGPT_V3 file that vLLM's benchmarks use is
// published.
const ShareGPTURL = "https://huggingface.co/datasets/anon8231489123/ShareGPT_Vicuna_unfiltered/resolve/main/ShareGPT_V3_unfiltered_cleaned_split.json"

// datasetPath resolves the dataset path relative to the workload file.
func (f *File) datasetPath() string {
	p := filepath.FromSlash(f.Dataset.Path)
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(filepath.Dir(f.Path), p)
}

// readDataset reads and checks a file dataset and returns its measured
// items. missing is set (with a warning in errs) when an optional file is
// absent: the caller then skips the workload's cells.
func (f *File) readDataset() (items []item, missing bool, errs []*Error) {
	ds := f.Dataset
	path := f.datasetPath()
	fail := func(line int, format string, args ...any) []*Error {
		return []*Error{{File: f.Path, Line: max(line, 1), Msg: fmt.Sprintf(format, args...)}}
	}
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		msg := fmt.Sprintf("dataset file %s not found (looked for %s)", ds.Path, path)
		if ds.Kind == KindShareGPT {
			msg += "; download it from " + ShareGPTURL + " (see docs/workloads.md)"
		}
		if !ds.Required {
			e := &Error{File: f.Path, Line: max(f.lines.path, 1), Warning: true,
				Msg: msg + "; cells skipped because dataset.required is false"}
			return nil, true, []*Error{e}
		}
		return nil, false, fail(f.lines.path, "%s", msg)
	}
	if err != nil {
		return nil, false, fail(f.lines.path, "dataset file: %v", err)
	}
	if st.IsDir() {
		return nil, false, fail(f.lines.path, "dataset file %s is a directory", ds.Path)
	}
	sum, err := FileSHA256(path)
	if err != nil {
		return nil, false, fail(f.lines.path, "dataset file: %v", err)
	}
	if ds.SHA256 == "" {
		return nil, false, fail(f.lines.path, "dataset file %s is not pinned: add sha256: %s after checking it against the publisher's hash", ds.Path, sum)
	}
	if sum != ds.SHA256 {
		return nil, false, fail(f.lines.sha256, "sha256 mismatch for dataset file %s: the file has %s, the workload pins %s", ds.Path, sum, ds.SHA256)
	}
	var all []item
	switch ds.Kind {
	case KindShareGPT:
		all, errs = readShareGPT(path, ds.OutputTokens)
	case KindJSONL:
		all, errs = readJSONL(path, ds.OutputTokens)
	case KindTrace:
		// load.requests caps a trace's replay instead of sizing a sample.
		all, errs = f.readTrace(path)
		return all, false, errs
	}
	if fatal, _ := splitWarnings(errs); len(fatal) > 0 {
		return nil, false, errs
	}
	n := f.Load.Requests
	if len(all) < n {
		return nil, false, fail(f.lines.requests, "load.requests is %d but dataset file %s has only %d usable prompts", n, ds.Path, len(all))
	}
	warnings := errs // only warnings are left
	if ds.Kind == KindShareGPT {
		// vLLM samples ShareGPT after a seeded shuffle; so do we, with PCG.
		s := newStream(ds.Seed, "sharegpt/order")
		s.shuffle(len(all), func(i, j int) { all[i], all[j] = all[j], all[i] })
	}
	return all[:n:n], false, warnings
}

// FileSHA256 is the hash a workload records for a dataset file (hex
// SHA-256 of its bytes), so a changed file makes a different cell.
func FileSHA256(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// estimateTokens estimates the tokens of a text without a tokenizer: one
// token per 4 characters (runes), OpenAI's rule of thumb for English. It
// is only used for reporting and for the length filter; the server's
// usage counts are what the metrics use.
func estimateTokens(s string) int {
	return max(1, (utf8.RuneCountInString(s)+3)/4)
}

// shareGPTEntry is one conversation of ShareGPT_V3_unfiltered_cleaned_split.json.
type shareGPTEntry struct {
	Conversations []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	} `json:"conversations"`
}

// readShareGPT reads a ShareGPT JSON array, streaming (the common file is
// ~650 MB). Each conversation contributes its first human turn as the
// prompt and the length of the gpt answer that follows it as max_tokens
// (unless output overrides it). Like vLLM, prompts or answers under 4
// tokens, prompts over 1024 and pairs over 2048 tokens are dropped — with
// estimated counts, since perfgate carries no tokenizer.
func readShareGPT(path string, output int) ([]item, []*Error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, []*Error{{File: path, Line: 1, Msg: err.Error()}}
	}
	defer fh.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(fh, 1<<20))
	bad := func(err error) []*Error {
		off := dec.InputOffset()
		var se *json.SyntaxError
		if errors.As(err, &se) {
			off = se.Offset
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			off = te.Offset
		}
		return []*Error{{File: path, Line: lineAt(path, off), Msg: "invalid ShareGPT JSON: " + err.Error()}}
	}
	tok, err := dec.Token()
	if err != nil {
		return nil, bad(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return nil, []*Error{{File: path, Line: lineAt(path, dec.InputOffset()), Msg: "a ShareGPT file is a JSON array of conversations"}}
	}
	var items []item
	for dec.More() {
		var e shareGPTEntry
		if err := dec.Decode(&e); err != nil {
			return nil, bad(err)
		}
		c := e.Conversations
		h := 0
		for h < len(c) && c[h].From != "human" {
			h++
		}
		if h+1 >= len(c) || c[h+1].From != "gpt" {
			continue
		}
		in := estimateTokens(c[h].Value)
		out := estimateTokens(c[h+1].Value)
		if output > 0 {
			out = output
		} else if out < 4 {
			continue
		}
		if in < 4 || in > 1024 || in+out > 2048 {
			continue
		}
		items = append(items, item{text: c[h].Value, input: in, output: out})
	}
	if _, err := dec.Token(); err != nil {
		return nil, bad(err)
	}
	return items, nil
}

// lineAt returns the 1-based line of byte offset off in the file.
func lineAt(path string, off int64) int {
	fh, err := os.Open(path)
	if err != nil {
		return 1
	}
	defer fh.Close()
	line := 1
	r := bufio.NewReader(io.LimitReader(fh, off))
	for {
		b, err := r.ReadByte()
		if err != nil {
			return line
		}
		if b == '\n' {
			line++
		}
	}
}

// jsonlRecord is one line of a jsonl dataset.
type jsonlRecord struct {
	Prompt       *string `json:"prompt"`
	OutputTokens *int    `json:"output_tokens"`
	InputTokens  *int    `json:"input_tokens"`
}

// jsonlFields are the keys of jsonlRecord, to name the ones ignored.
var jsonlFields = map[string]bool{"prompt": true, "output_tokens": true, "input_tokens": true}

// readJSONL reads one {"prompt", "output_tokens", "input_tokens"?} object
// per line, in file order. Blank lines are skipped. output_tokens may be
// left out when the workload sets dataset.output_tokens, which overrides it.
// Other keys ({"prompt": ..., "id": 1}, vLLM's custom dataset lines) are
// ignored, as vLLM ignores them, and named once in a warning with the
// first line that has each.
func readJSONL(path string, output int) ([]item, []*Error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, []*Error{{File: path, Line: 1, Msg: err.Error()}}
	}
	defer fh.Close()
	var items []item
	var errs []*Error
	bad := func(line int, format string, args ...any) {
		if len(errs) < maxErrors {
			errs = append(errs, &Error{File: path, Line: line, Msg: fmt.Sprintf(format, args...)})
		}
	}
	ignored := map[string]int{}
	last, err := eachLine(fh, func(line int, b []byte) {
		var rec jsonlRecord
		if err := decodeLine(b, &rec); err != nil {
			bad(line, "%v", err)
			return
		}
		noteIgnored(b, line, jsonlFields, ignored)
		switch {
		case rec.Prompt == nil || *rec.Prompt == "":
			bad(line, "prompt is missing or empty")
			return
		case rec.OutputTokens == nil && output == 0:
			bad(line, "output_tokens is missing (or set dataset.output_tokens)")
			return
		case rec.OutputTokens != nil && *rec.OutputTokens < 1:
			bad(line, "output_tokens must be >= 1, got %d", *rec.OutputTokens)
			return
		case rec.InputTokens != nil && *rec.InputTokens < 1:
			bad(line, "input_tokens must be >= 1, got %d", *rec.InputTokens)
			return
		}
		it := item{text: *rec.Prompt, input: estimateTokens(*rec.Prompt), output: output}
		if rec.InputTokens != nil {
			it.input = *rec.InputTokens
		}
		if output == 0 {
			it.output = *rec.OutputTokens
		}
		items = append(items, it)
	})
	if err != nil {
		bad(last+1, "reading: %v", err)
	}
	if w := ignoredWarning(path, ignored, "a jsonl dataset uses prompt, output_tokens and input_tokens"); w != nil {
		errs = append(errs, w)
	}
	return items, errs
}

// noteIgnored records in ignored the first line of each key of the JSON
// object raw that known does not hold.
func noteIgnored(raw []byte, line int, known map[string]bool, ignored map[string]int) {
	var keys map[string]json.RawMessage
	if json.Unmarshal(raw, &keys) != nil {
		return
	}
	for k := range keys {
		if _, seen := ignored[k]; !known[k] && !seen {
			ignored[k] = line
		}
	}
}

// ignoredWarning is one warning naming every ignored key, at the first
// line that had one; nil when none was.
func ignoredWarning(path string, ignored map[string]int, uses string) *Error {
	if len(ignored) == 0 {
		return nil
	}
	keys := make([]string, 0, len(ignored))
	first := 0
	for k, l := range ignored {
		keys = append(keys, k)
		if first == 0 || l < first {
			first = l
		}
	}
	sort.Strings(keys)
	return &Error{File: path, Line: first, Warning: true,
		Msg: fmt.Sprintf("fields ignored: %s (%s)", strings.Join(keys, ", "), uses)}
}
