package replicate

import "syscall"

// childAttr kills Litestream when the thread that started it dies (the
// daemon, killed or crashed).
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
