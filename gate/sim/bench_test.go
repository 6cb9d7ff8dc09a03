package sim

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchConfig is the fast preset with the step cost cut to a tenth, so the
// model could produce ~1M events/s with 256 streams and the CPU (server and
// the in-process client together) is what the benchmark measures.
func benchConfig(b *testing.B) Config {
	cfg, err := Preset("fast")
	if err != nil {
		b.Fatal(err)
	}
	cfg.DecodeScale, cfg.BaseScale = 0.1, 0.1
	return cfg
}

// BenchmarkStreamEvents reports the token events (SSE chunks) per second
// the simulator streams on loopback to 128 concurrent streaming requests.
// The client is deliberately minimal (it counts "data: {" lines) but runs
// in the same process, so both share the machine's cores.
func BenchmarkStreamEvents(b *testing.B) {
	srv := New(benchConfig(b))
	ts := httptest.NewServer(srv)
	defer ts.Close()
	defer srv.Close()
	const streams = 128
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: streams, MaxConnsPerHost: streams}}
	var events atomic.Int64
	per := (b.N + streams - 1) / streams
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for left := per; left > 0; {
				n := min(left, 4000)
				left -= n
				body := fmt.Sprintf(`{"prompt":[1,2,3,4],"max_tokens":%d,"ignore_eos":true,"stream":true}`, n)
				resp, err := client.Post(ts.URL+"/v1/completions", "application/json", strings.NewReader(body))
				if err != nil {
					b.Error(err)
					return
				}
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					if bytes.HasPrefix(sc.Bytes(), []byte("data: {")) {
						events.Add(1)
					}
				}
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	b.ReportMetric(float64(events.Load())/elapsed.Seconds(), "events/s")
	b.ReportMetric(float64(srv.Stats().Steps)/elapsed.Seconds(), "steps/s")
}

// BenchmarkOpenStreamMemory reports the heap and stack the process holds
// per open streaming request (server side plus a bare client connection
// that holds no goroutine or buffer beyond 512 bytes).
func BenchmarkOpenStreamMemory(b *testing.B) {
	const streams = 1000
	cfg := benchConfig(b)
	cfg.DecodeFixed = Duration(20 * time.Millisecond) // slow tokens: the streams stay open
	cfg.DecodeScale = 1
	var perStream float64
	for range b.N {
		srv := New(cfg)
		ts := httptest.NewServer(srv)
		addr := ts.Listener.Addr().String()
		before := memInUse()
		conns := make([]net.Conn, 0, streams)
		buf := make([]byte, 512)
		for i := range streams {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			body := fmt.Sprintf(`{"prompt":[%d,2,3],"max_tokens":4000,"ignore_eos":true,"stream":true}`, i)
			fmt.Fprintf(c, "POST /v1/completions HTTP/1.1\r\nHost: sim\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
			if _, err := c.Read(buf); err != nil { // headers: the handler is running
				b.Fatal(err)
			}
			conns = append(conns, c)
		}
		waitRunning := time.Now().Add(5 * time.Second)
		for srv.Stats().Running < 256 && time.Now().Before(waitRunning) {
			time.Sleep(time.Millisecond)
		}
		perStream = float64(memInUse()-before) / streams
		for _, c := range conns {
			c.Close()
		}
		ts.Close()
		srv.Close()
	}
	b.ReportMetric(perStream, "B/stream")
}

func memInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}
