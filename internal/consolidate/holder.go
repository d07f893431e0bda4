package consolidate

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/dormouse-dev/dormouse/internal/when"
)

// A lease holder is named host:pid:n:millis:start:boot, start being the
// process's start time as /proc/PID/stat says it (clock ticks since boot)
// and boot the kernel's boot id. A holder on this host from another boot
// (a power cut left its lease behind, and the same pid may run again after
// the same boot sequence), whose process is gone, or whose pid now belongs
// to a process started at another time (the pid was reused), is dead: its
// lease can be taken over at once rather than after its TTL.

// holderName names this process's holder of engine number n.
func holderName(n int64, millis int64) string {
	host, _ := os.Hostname()
	pid := os.Getpid()
	start, _ := processStart(pid) // 0 when /proc cannot tell: liveness is then the pid's alone
	return fmt.Sprintf("%s:%d:%d:%d:%d:%s", host, pid, n, millis, start, when.BootID())
}

// deadHolder reports whether holder is a process of this host that no
// longer runs. Any holder it cannot read (another host, a name set by
// hand, an older format) is taken to live: its lease waits for its TTL.
func deadHolder(holder string) bool {
	f := strings.Split(holder, ":")
	if len(f) != 5 && len(f) != 6 {
		return false
	}
	if host, err := os.Hostname(); err != nil || f[0] != host {
		return false
	}
	if len(f) == 6 && f[5] != "" && when.BootID() != "" && f[5] != when.BootID() {
		return true
	}
	pid, err1 := strconv.Atoi(f[1])
	start, err2 := strconv.ParseUint(f[4], 10, 64)
	if err1 != nil || err2 != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	now, err := processStart(pid)
	return err == nil && start != 0 && now != start
}

// processStart is field 22 of /proc/PID/stat, the process's start time.
func processStart(pid int) (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces or
	// parentheses itself: count fields after the last ")".
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("read the start of process %d: no command name in its stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 20 {
		return 0, fmt.Errorf("read the start of process %d: %d fields in its stat", pid, len(f)+2)
	}
	return strconv.ParseUint(f[19], 10, 64)
}
