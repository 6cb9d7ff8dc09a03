package server

import (
	"fmt"
	"net"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// A /proc/net/tcp table: a listener on 127.0.0.1:8000 (0x1F40), an
// established connection from that port (not a listener), a listener on
// another port, and lines the kernel never writes.
const tcpTable = `  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
   0: 0100007F:1F40 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 4242 1 0000000000000000 100 0 0 10 0
   1: 0100007F:1F40 0100007F:9C40 01 00000000:00000000 00:00000000 00000000  1000        0 4343 1 0000000000000000 20 4 30 10 -1
   2: 00000000:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 99 1 0000000000000000 100 0 0 10 0
   3: garbage
   4: 0100007F 00000000:0000 0A 0 0 0 0 0 0 7
   5: 0100007F:ZZZZ 00000000:0000 0A 0 0 0 0 0 0 8
`

func TestListenInodes(t *testing.T) {
	for _, tc := range []struct {
		port int
		want []uint64
	}{
		{8000, []uint64{4242}},
		{22, []uint64{99}},
		{9000, nil},
	} {
		if got := listenInodes(tcpTable, tc.port); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("port %d: %v, want %v", tc.port, got, tc.want)
		}
	}
}

// TestPortHolder: on Linux, a port this test process listens on is named
// with this process's pid.
func TestPortHolder(t *testing.T) {
	if _, err := os.Stat("/proc/net/tcp"); err != nil {
		t.Skip("no /proc/net/tcp")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	want := "pid " + strconv.Itoa(os.Getpid()) + " ("
	if got := portHolder(port); !strings.HasPrefix(got, want) {
		t.Errorf("portHolder(%d) = %q, want %q...", port, got, want)
	}
	msg := (&PortInUseError{URL: "http://" + l.Addr().String(), Addr: l.Addr().String(), Holder: portHolder(port)}).Error()
	if !strings.Contains(msg, "in use by "+want) || strings.Contains(msg, "ss -ltnp") {
		t.Errorf("message %q", msg)
	}
}

func FuzzListenInodes(f *testing.F) {
	f.Add(tcpTable, 8000)
	f.Add("", 0)
	f.Fuzz(func(t *testing.T, table string, port int) {
		for _, n := range listenInodes(table, port) {
			if n == 0 || !strings.Contains(table, fmt.Sprint(n)) {
				t.Errorf("inode %d not in the table", n)
			}
		}
	})
}
