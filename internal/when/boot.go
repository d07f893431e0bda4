package when

import (
	"os"
	"strings"
)

// BootID is the kernel's id of this boot, "" where it cannot be read: a
// process that left something behind under another boot id was stopped by
// a power cut or a reboot, not only killed.
func BootID() string {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
