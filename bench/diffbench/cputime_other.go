//go:build !unix

package main

import "time"

var start = time.Now()

// cpuTime falls back to wall-clock time where getrusage is missing.
func cpuTime() time.Duration { return time.Since(start) }
