package loadgen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/metrics"
)

// tokenizer counts the text of streamed chunks with the tokenizer endpoint
// of the server's engine profile (vLLM: POST /tokenize {"model", "prompt",
// "add_special_tokens"} answering {"count", "tokens", ...}; SGLang serves
// the same shape; llama.cpp takes {"content"} and answers {"tokens"}). It
// runs after a trial, never while requests are measured: a request to the
// server during the trial would load the server being measured.
type tokenizer struct {
	url   string
	model string
	// content: the engine takes llama.cpp's {"content": text} body (whose
	// add_special defaults to false) rather than vLLM's.
	content bool
	c       *client
	// cache maps a chunk's text to its count across trials: generated
	// texts repeat (words, punctuation), so later trials cost little.
	cache map[string]int
}

// Bounds of one trial's counting: distinct texts sent, requests in flight,
// and the time it may take. Past them the approximate counts stay.
const (
	tokenizeMaxTexts    = 20000
	tokenizeMaxCache    = 200000 // distinct texts remembered across trials
	tokenizeConcurrency = 4
	tokenizeTimeout     = 60 * time.Second
	tokenizeProbeTime   = 5 * time.Second
)

// probeTokenizer asks the server to count one word at the tokenizer
// endpoint of its engine profile. It returns nil, and the client keeps no
// chunk texts, when the profile names none (ollama, TGI, a generic OpenAI
// server) or the endpoint does not answer with a count.
func (r *Runner) probeTokenizer(ctx context.Context, c *client, model string, prof engine.Profile) *tokenizer {
	if r.cfg.NoTokenizer || prof.Tokenize == "" {
		return nil
	}
	t := &tokenizer{url: r.base + prof.Tokenize, model: model, content: prof.TokenizeContent, c: c, cache: map[string]int{}}
	pctx, cancel := context.WithTimeout(ctx, tokenizeProbeTime)
	defer cancel()
	if n, err := t.count(pctx, "perfgate"); err != nil || n <= 0 {
		return nil
	}
	return t
}

// count returns the number of tokens of text without special tokens.
func (t *tokenizer) count(ctx context.Context, text string) (int, error) {
	req := map[string]any{"model": t.model, "prompt": text, "add_special_tokens": false}
	if t.content {
		req = map[string]any{"content": text}
	}
	body, err := json.Marshal(req)
	if err != nil {
		return 0, err
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, t.url, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	hr.Header.Set("Content-Type", "application/json")
	if t.c.apiKey != "" {
		hr.Header.Set("Authorization", "Bearer "+t.c.apiKey)
	}
	for k, v := range t.c.headers { // the workload's headers, as on its requests
		hr.Header[k] = v
	}
	resp, err := t.c.http.Do(hr)
	if err != nil {
		return 0, unwrapURLError(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return 0, err
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("POST /tokenize: HTTP %d", resp.StatusCode)
	}
	n, err := parseTokenizeAnswer(raw)
	if err != nil {
		return 0, fmt.Errorf("POST /tokenize: %w", err)
	}
	return n, nil
}

// parseTokenizeAnswer reads {"count": n} or, without a count, the length
// of "tokens". A negative count is not an answer.
func parseTokenizeAnswer(raw []byte) (int, error) {
	var out struct {
		Count  *int              `json:"count"`
		Tokens []json.RawMessage `json:"tokens"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return 0, err
	}
	switch {
	case out.Count != nil && *out.Count >= 0:
		return *out.Count, nil
	case out.Count != nil:
		return 0, fmt.Errorf("negative count %d", *out.Count)
	case out.Tokens == nil:
		return 0, fmt.Errorf("neither count nor tokens in the answer")
	}
	return len(out.Tokens), nil
}

// needsCount reports whether x's per-chunk counts are an estimate the
// tokenizer can improve: an even split, or one per chunk without any usage
// total. One per chunk that adds up to the usage total is exact already
// (every chunk with text carries a token at least), so it costs the server
// no tokenize requests.
func needsCount(x *exchange) bool {
	m := x.rec.Tokens
	return x.rec.Success && (m == metrics.TokensEvenSplit || m == metrics.TokensOnePerChunk && !x.usageSeen) &&
		len(x.textEnds) == x.rec.Chunks && x.rec.Chunks > 0
}

// chunkTexts decodes the output strings of each token message of x.
func chunkTexts(x *exchange) ([]string, error) {
	out := make([]string, len(x.textEnds))
	start := 0
	for i, end := range x.textEnds {
		seg := x.texts[start:end]
		start = int(end)
		var b bytes.Buffer
		for j := 0; j < len(seg); {
			k, err := skipString(seg, j)
			if err != nil {
				return nil, err
			}
			var s string
			if err := json.Unmarshal(seg[j:k], &s); err != nil {
				return nil, err
			}
			b.WriteString(s)
			j = k
		}
		out[i] = b.String()
	}
	return out, nil
}

// refine counts the chunk texts of xs and replaces their fallback counts,
// scaled to the server's usage total when it reported one. It returns a
// warning when counting failed; those exchanges keep their counts.
func (t *tokenizer) refine(ctx context.Context, xs []*exchange) string {
	if len(t.cache) > tokenizeMaxCache {
		t.cache = map[string]int{} // bounded memory over a long run
	}
	texts := make([][]string, len(xs))
	var todo []string
	seen := map[string]bool{}
	for i, x := range xs {
		ts, err := chunkTexts(x)
		if err != nil {
			continue
		}
		texts[i] = ts
		for _, s := range ts {
			if _, ok := t.cache[s]; !ok && s != "" && !seen[s] {
				seen[s] = true
				todo = append(todo, s)
			}
		}
	}
	warn := ""
	if len(todo) > tokenizeMaxTexts {
		warn = fmt.Sprintf("tokenize: %d distinct chunk texts, more than %d; the rest keep their approximate counts", len(todo), tokenizeMaxTexts)
		todo = todo[:tokenizeMaxTexts]
	}
	if err := t.countAll(ctx, todo); err != nil {
		warn = fmt.Sprintf("tokenize: counting chunk texts with the server's tokenizer failed (%v); the approximate counts stay", err)
	}
	for i, x := range xs {
		if texts[i] != nil {
			t.apply(x, texts[i])
		}
	}
	return warn
}

// countAll fills the cache for texts, a few requests at a time.
func (t *tokenizer) countAll(ctx context.Context, texts []string) error {
	ctx, cancel := context.WithTimeout(ctx, tokenizeTimeout)
	defer cancel()
	var (
		mu    sync.Mutex
		first error
		wg    sync.WaitGroup
		next  = make(chan string)
	)
	for range tokenizeConcurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for s := range next {
				n, err := t.count(ctx, s)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				} else if err == nil {
					t.cache[s] = n
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, s := range texts {
		mu.Lock()
		failed := first != nil
		mu.Unlock()
		if failed {
			break
		}
		select {
		case next <- s:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first == nil && ctx.Err() != nil {
		first = ctx.Err()
	}
	return first
}

// apply sets x's per-chunk counts from the cached counts of its texts,
// when every text has one.
func (t *tokenizer) apply(x *exchange, texts []string) {
	counts := make([]uint32, len(texts))
	sum := 0
	for i, s := range texts {
		if s == "" {
			continue
		}
		n, ok := t.cache[s]
		if !ok {
			return
		}
		counts[i] = uint32(max(n, 0))
		sum += int(counts[i])
	}
	if sum == 0 {
		return // nothing to shape the counts with
	}
	rec := &x.rec
	if x.usageSeen && rec.OutputTokens > 0 {
		scaleTo(counts, rec.OutputTokens)
	} else {
		rec.OutputTokens = 0
		for _, k := range counts {
			rec.OutputTokens += int(k)
		}
	}
	rec.Tokens = metrics.TokensTokenize
	setCounts(rec, counts)
}
