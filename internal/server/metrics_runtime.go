package server

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// processStart stands for the process's start time: the package is
// initialised as the process starts.
var processStart = time.Now()

// runtimeFamilies are the Go runtime's and the process's series, under the
// names Prometheus' own client gives them, so dashboards built for those
// keep working.
func runtimeFamilies() []*family {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	gauge := func(name, help string, v float64) *family {
		f := &family{name: name, typ: "gauge", help: help}
		f.add(v)
		return f
	}
	info := &family{name: "go_info", typ: "gauge", help: "Information about the Go environment."}
	info.add(1, "version", runtime.Version())
	fams := []*family{
		gauge("go_goroutines", "Number of goroutines that currently exist.", float64(runtime.NumGoroutine())),
		info,
		gauge("go_memstats_alloc_bytes", "Number of bytes allocated and still in use.", float64(ms.Alloc)),
		gauge("go_memstats_sys_bytes", "Number of bytes obtained from system.", float64(ms.Sys)),
		gauge("go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and still in use.", float64(ms.HeapAlloc)),
		gauge("go_memstats_heap_sys_bytes", "Number of heap bytes obtained from system.", float64(ms.HeapSys)),
		gauge("go_memstats_heap_idle_bytes", "Number of heap bytes waiting to be used.", float64(ms.HeapIdle)),
		gauge("go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use.", float64(ms.HeapInuse)),
		gauge("go_memstats_heap_released_bytes", "Number of heap bytes released to OS.", float64(ms.HeapReleased)),
		gauge("go_memstats_heap_objects", "Number of allocated objects.", float64(ms.HeapObjects)),
		gauge("go_memstats_next_gc_bytes", "Number of heap bytes when next garbage collection will take place.", float64(ms.NextGC)),
	}
	total := &family{name: "go_memstats_alloc_bytes_total", typ: "counter", help: "Total number of bytes allocated, even if freed."}
	total.add(float64(ms.TotalAlloc))
	gcs := &family{name: "go_gc_cycles_total", typ: "counter", help: "Completed garbage collection cycles."}
	gcs.add(float64(ms.NumGC))
	fams = append(fams, total, gcs, gauge("process_start_time_seconds",
		"Start time of the process since unix epoch in seconds.", float64(processStart.UnixNano())/1e9))
	return append(fams, processFamilies()...)
}

// processFamilies are the process's CPU time, memory and file descriptors,
// each left out where the system does not tell it.
func processFamilies() []*family {
	var fams []*family
	add := func(name, typ, help string, v float64) {
		f := &family{name: name, typ: typ, help: help}
		f.add(v)
		fams = append(fams, f)
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		add("process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.", cpu.Seconds())
	}
	if b, err := os.ReadFile("/proc/self/statm"); err == nil { // size and resident, in pages
		if f := strings.Fields(string(b)); len(f) >= 2 {
			page := float64(os.Getpagesize())
			size, _ := strconv.ParseFloat(f[0], 64)
			res, _ := strconv.ParseFloat(f[1], 64)
			add("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", size*page)
			add("process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", res*page)
		}
	}
	if fds, err := os.ReadDir("/proc/self/fd"); err == nil {
		add("process_open_fds", "gauge", "Number of open file descriptors.", float64(len(fds)))
	}
	var lim syscall.Rlimit
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil {
		add("process_max_fds", "gauge", "Maximum number of open file descriptors.", float64(lim.Cur))
	}
	return fams
}
