//go:build !linux

package replicate

import "syscall"

func childAttr() *syscall.SysProcAttr { return nil }
