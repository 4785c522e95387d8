//go:build unix

package main

import "syscall"

// cpuMS returns the process's user and system CPU time in milliseconds
// (all threads): on a machine shared with other work it counts what the
// process computed, not the time it waited for a core.
func cpuMS() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	ms := func(t syscall.Timeval) float64 { return float64(t.Sec)*1000 + float64(t.Usec)/1000 }
	return ms(ru.Utime) + ms(ru.Stime)
}
