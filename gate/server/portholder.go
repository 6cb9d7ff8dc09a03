package server

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// listenInodes returns the socket inodes of the listening TCP sockets on
// port in table, the text of /proc/net/tcp or /proc/net/tcp6: a header
// line, then one socket per line whose second field is the local address
// as HEXIP:HEXPORT, fourth the state (0A: LISTEN) and tenth the inode.
// Lines it cannot read are skipped: the table is the kernel's, and a
// holder not found only costs the message a name.
func listenInodes(table string, port int) []uint64 {
	var out []uint64
	for i, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if i == 0 || len(f) < 10 || f[3] != "0A" {
			continue
		}
		_, hexPort, ok := strings.Cut(f[1], ":")
		if !ok {
			continue
		}
		p, err := strconv.ParseUint(hexPort, 16, 16)
		if err != nil || int(p) != port {
			continue
		}
		inode, err := strconv.ParseUint(f[9], 10, 64)
		if err != nil || inode == 0 {
			continue
		}
		out = append(out, inode)
	}
	return out
}

// portHolder names the process listening on port ("pid 1234 (python3)")
// from /proc: the listening socket's inode, then the process with a file
// descriptor on it. Empty when it cannot tell (not Linux, or the process
// is another user's, whose descriptors are not readable). It runs only
// when a launch is refused, so its scan of /proc costs a failing run only.
func portHolder(port int) string {
	var inodes []uint64
	for _, t := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(t)
		if err == nil {
			inodes = append(inodes, listenInodes(string(data), port)...)
		}
	}
	if len(inodes) == 0 {
		return ""
	}
	want := map[string]bool{}
	for _, n := range inodes {
		want[fmt.Sprintf("socket:[%d]", n)] = true
	}
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		fds, err := os.ReadDir(filepath.Join(p, "fd"))
		if err != nil {
			continue
		}
		for _, fd := range fds {
			if link, err := os.Readlink(filepath.Join(p, "fd", fd.Name())); err == nil && want[link] {
				comm, _ := os.ReadFile(filepath.Join(p, "comm"))
				name := strings.TrimSpace(string(comm))
				if name == "" {
					name = "unknown"
				}
				return fmt.Sprintf("pid %s (%s)", filepath.Base(p), name)
			}
		}
	}
	return ""
}
