package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/perfgate/perfgate/gate/engine"
	"github.com/perfgate/perfgate/gate/metrics"
	"github.com/perfgate/perfgate/gate/sim"
)

// vllmStream renders a completions stream of n token events shaped like
// vLLM's with continuous usage stats, split into one slice per event (how
// they arrive at a 10 ms ITL: one read each).
func vllmStream(n int) [][]byte {
	var evs [][]byte
	for i := 1; i <= n; i++ {
		fin := "null"
		if i == n {
			fin = `"length"`
		}
		evs = append(evs, fmt.Appendf(nil, `data: {"id":"cmpl-7f3a9c1e2b","object":"text_completion","created":1732000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"text":" token","logprobs":null,"finish_reason":%s,"stop_reason":null}],"usage":{"prompt_tokens":512,"total_tokens":%d,"completion_tokens":%d}}`+"\n\n", fin, 512+i, i))
	}
	evs = append(evs, fmt.Appendf(nil, `data: {"id":"cmpl-7f3a9c1e2b","object":"text_completion","created":1732000000,"model":"m","choices":[],"usage":{"prompt_tokens":512,"total_tokens":%d,"completion_tokens":%d}}`+"\n\n", 512+n, n))
	evs = append(evs, []byte("data: [DONE]\n\n"))
	return evs
}

// eventReader returns one event per Read.
type eventReader struct {
	evs [][]byte
	i   int
	off int
}

func (r *eventReader) Read(p []byte) (int, error) {
	if r.i >= len(r.evs) {
		return 0, io.EOF
	}
	n := copy(p, r.evs[r.i][r.off:])
	r.off += n
	if r.off == len(r.evs[r.i]) {
		r.i, r.off = r.i+1, 0
	}
	return n, nil
}

const benchTokens = 256

// BenchmarkClientPerEvent is the full client's CPU cost per streamed token
// event: timestamp, SSE split, chunk scan, per-chunk token counts, and the
// accumulator (exact samples + HdrHistograms). No network: the bytes come
// from memory one event per read, so only the client's own work is timed.
func BenchmarkClientPerEvent(b *testing.B) {
	evs := vllmStream(benchTokens)
	c := &client{}
	acc := metrics.NewAccumulator(metrics.SLO{TTFTms: 1000}, 0)
	anchor := time.Now()
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for i := 0; i < b.N; i++ {
		x := &exchange{rec: metrics.Request{MaxTokens: benchTokens, IgnoreEOS: true}}
		c.stream(context.Background(), anchor, &eventReader{evs: evs}, x)
		if !x.rec.Success {
			b.Fatalf("stream failed: %s %s", x.rec.ErrorType, x.rec.ErrorBody)
		}
		acc.Add(&x.rec)
	}
	b.StopTimer()
	// CPU time (getrusage) is the figure that matters on a shared machine,
	// where wall time also counts waiting for a core.
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N*(benchTokens+2)), "cpu-ns/event")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*(benchTokens+2)), "ns/event")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkSplitOnlyPerEvent is the practical floor: a minimal reader
// that only splits the same bytes into SSE events.
func BenchmarkSplitOnlyPerEvent(b *testing.B) {
	evs := vllmStream(benchTokens)
	b.ResetTimer()
	cpu0 := cpuTime()
	n := 0
	for i := 0; i < b.N; i++ {
		sc := bufio.NewScanner(&eventReader{evs: evs})
		sc.Split(splitEvents)
		for sc.Scan() {
			n++
		}
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(n), "cpu-ns/event")
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/event")
	b.ReportMetric(0, "ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSimSaturation runs trials against the fast simulator at full
// concurrency and reports the process CPU per token event. The simulator
// runs in the same process, so this is an upper bound on the client's
// share, with net/http on both sides included.
func BenchmarkSimSaturation(b *testing.B) {
	_, url := startSim(b, func(c *sim.Config) { c.MaxNumSeqs = 1024 })
	r, err := New(Config{URL: url, Limits: metrics.Limits{DispatchLagMs: 1e6}})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	m := manifest(256, 256, 0, 128)
	ctx := context.Background()
	srv, err := r.Prepare(ctx, m)
	if err != nil {
		b.Fatal(err)
	}
	res := r.NewResult(m, srv)
	if err := r.RunTrials(ctx, m, res, 1); err != nil { // connections warm
		b.Fatal(err)
	}
	res.Trials = nil
	cpu0 := cpuTime()
	b.ResetTimer()
	if err := r.RunTrials(ctx, m, res, b.N); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	events := 0.0
	for _, t := range res.Trials {
		events += t.Values["total_output_tokens"]
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/events, "cpu-ns/event")
	b.ReportMetric(events/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkSimSaturationBareReader is BenchmarkSimSaturation with the
// practical minimum for a client: the same requests over the same kind of
// transport, each stream only split into events. The difference between
// the two cpu-ns/event figures is what parsing, timestamping and recording
// cost on top (the simulator's own share is in both).
func BenchmarkSimSaturationBareReader(b *testing.B) {
	_, url := startSim(b, func(c *sim.Config) { c.MaxNumSeqs = 1024 })
	m := manifest(256, 256, 0, 128)
	bodies, err := encodeBodies(m, m.Requests, "sim-fast", "", engine.Must(engine.VLLM), true)
	if err != nil {
		b.Fatal(err)
	}
	hc := &http.Client{Transport: newTransport(256, true)}
	defer hc.CloseIdleConnections()
	trial := func() int64 {
		var events atomic.Int64
		var wg sync.WaitGroup
		for _, body := range bodies {
			wg.Add(1)
			go func() {
				defer wg.Done()
				resp, err := hc.Post(url+"/v1/completions", "application/json", bytes.NewReader(body))
				if err != nil {
					b.Error(err)
					return
				}
				defer resp.Body.Close()
				sc := bufio.NewScanner(resp.Body)
				sc.Split(splitEvents)
				for sc.Scan() {
					events.Add(1)
				}
			}()
		}
		wg.Wait()
		return events.Load()
	}
	trial() // connections warm
	cpu0 := cpuTime()
	b.ResetTimer()
	var events int64
	for i := 0; i < b.N; i++ {
		events += trial() - 2*256 // token events only: minus usage and [DONE]
	}
	b.StopTimer()
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(events), "cpu-ns/event")
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// splitEvents splits an SSE stream on blank lines (LF framing only).
func splitEvents(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.Index(data, []byte("\n\n")); i >= 0 {
		return i + 2, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// BenchmarkTimingFidelity: 1,000 concurrent streams from a simulator that
// steps every 10 ms and stamps each chunk with its send time. It reports
// the p50/p99 of (client receive - server send) and the client's ITL
// percentiles beside the server's own (from consecutive send stamps).
func BenchmarkTimingFidelity(b *testing.B) {
	for _, streams := range []int{100, 1000} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) { timingFidelity(b, streams) })
	}
}

func timingFidelity(b *testing.B, streams int) {
	const tokens = 100
	_, url := startSim(b, func(c *sim.Config) {
		c.StepBase, c.DecodeFixed, c.DecodePerSeq, c.PerContextTokenNs, c.PrefillPerToken = 0, sim.Duration(10*time.Millisecond), 0, 0, 0
		c.JitterCV, c.MaxNumSeqs, c.MaxBatchedTokens, c.KVCacheTokens = 0, 2048, 1<<20, 1<<22
		c.StampSendTime = true
	})
	var mu sync.Mutex
	var lags []float64
	sent := map[string][]int64{} // chunk id -> send stamps
	r, err := New(Config{URL: url, Limits: metrics.Limits{DispatchLagMs: 1e6}})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	m := manifest(streams, streams, 0, tokens)
	ctx := context.Background()
	srv, err := r.Prepare(ctx, m)
	if err != nil {
		b.Fatal(err)
	}
	res := r.NewResult(m, srv)
	if err := r.RunTrials(ctx, m, res, 1); err != nil { // open the connections
		b.Fatal(err)
	}
	res.Trials = nil
	r.onEvent = func(anchor time.Time, at time.Duration, data []byte) {
		i := bytes.Index(data, []byte(`"sim_sent_ns":`))
		if i < 0 || !bytes.Contains(data, []byte(`"choices":[{`)) {
			return
		}
		j := i + len(`"sim_sent_ns":`)
		k := j
		for k < len(data) && data[k] >= '0' && data[k] <= '9' {
			k++
		}
		ns, _ := strconv.ParseInt(string(data[j:k]), 10, 64)
		recv := anchor.Add(at).UnixNano()
		id := string(data[:bytes.IndexByte(data, ',')])
		mu.Lock()
		lags = append(lags, float64(recv-ns)/1e6)
		sent[id] = append(sent[id], ns)
		mu.Unlock()
	}
	r.clients = map[poolKey]*client{} // pick up the hook
	b.ResetTimer()
	if err := r.RunTrials(ctx, m, res, 1); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	sort.Float64s(lags)
	var truth []float64
	for _, s := range sent {
		for i := 1; i < len(s); i++ {
			truth = append(truth, float64(s[i]-s[i-1])/1e6)
		}
	}
	sort.Float64s(truth)
	v := res.Trials[0].Values
	b.ReportMetric(metrics.Percentile(lags, 50), "recv-send-p50-ms")
	b.ReportMetric(metrics.Percentile(lags, 99), "recv-send-p99-ms")
	b.ReportMetric(v["itl_ms.p50"], "client-itl-p50-ms")
	b.ReportMetric(metrics.Percentile(truth, 50), "server-itl-p50-ms")
	b.ReportMetric(v["itl_ms.p99"], "client-itl-p99-ms")
	b.ReportMetric(metrics.Percentile(truth, 99), "server-itl-p99-ms")
	b.ReportMetric(float64(len(lags))/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkInFlightMemory reports the heap+stack one in-flight request
// costs the load generator itself: its goroutine, request object and
// context, decoder, gap buffer and record, while the stream has delivered
// its first event and waits for the next. The body comes from an io.Pipe
// instead of a socket, so net/http's per-connection cost (two goroutines
// and 8 KiB of buffers in the transport, the same for any Go client) is
// left out; a control with a goroutine blocked on a bare pipe read is
// subtracted.
func BenchmarkInFlightMemory(b *testing.B) {
	const n = 5000
	for i := 0; i < b.N; i++ {
		full := inflightBytes(n, true)
		bare := inflightBytes(n, false)
		b.ReportMetric(full/n, "B/inflight-with-pipe")
		b.ReportMetric((full-bare)/n, "B/inflight")
	}
	b.ReportMetric(0, "ns/op")
}

// inflightBytes returns the heap+stack growth while n streams are open.
func inflightBytes(n int, useClient bool) float64 {
	first := vllmStream(1)[0]
	measure := func() float64 {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return float64(ms.HeapInuse + ms.StackInuse)
	}
	payload := []byte(`{"model":"m","prompt":[1,2,3],"max_tokens":128,"stream":true}`)
	c := &client{}
	anchor := time.Now()
	var started, finished sync.WaitGroup
	writers := make([]*io.PipeWriter, n)
	before := measure()
	for i := 0; i < n; i++ {
		pr, pw := io.Pipe()
		writers[i] = pw
		started.Add(1)
		finished.Add(1)
		go func() {
			defer finished.Done()
			if !useClient {
				buf := make([]byte, 512)
				_, _ = pr.Read(buf)
				started.Done()
				_, _ = pr.Read(buf)
				return
			}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://127.0.0.1:1/v1/completions", bytes.NewReader(payload))
			req.Header.Set("x-request-id", "perfgate-0-t0-r0")
			x := &exchange{rec: metrics.Request{MaxTokens: 128}}
			once := sync.Once{}
			c.onEvent = nil
			c.stream(ctx, anchor, &signalReader{r: pr, first: func() { once.Do(started.Done) }}, x)
			_ = req
		}()
		go func() { _, _ = pw.Write(first) }()
	}
	started.Wait()
	time.Sleep(50 * time.Millisecond) // let the writers' goroutines end
	during := measure()
	for _, w := range writers {
		w.Close()
	}
	finished.Wait()
	return during - before
}

// signalReader calls first once the first read returned data.
type signalReader struct {
	r     io.Reader
	first func()
}

func (s *signalReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if n > 0 {
		defer s.first()
	}
	return n, err
}
