//go:build purego || !amd64

package main

// int8Kernel: no int8 peak loop on this build (the peak loop exists for
// AVX-512 VNNI only).
func int8Kernel() (func(int), float64, string) { return nil, 0, "" }
