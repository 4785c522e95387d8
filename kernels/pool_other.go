//go:build !linux

package kernels

// physicalCores returns 0 (unknown) outside Linux: DefaultThreads then uses
// runtime.NumCPU().
func physicalCores() int { return 0 }
