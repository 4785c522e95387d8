//go:build !purego

package main

import "golang.org/x/sys/cpu"

// int8LoopAVX512VNNI runs n rounds of twelve independent 512-bit VPDPBUSD
// (int8_amd64.s). It needs AVX-512 VNNI.
//
//go:noescape
func int8LoopAVX512VNNI(n int)

// int8Kernel returns the int8 peak loop of this CPU, the integer
// operations one round does, and its name; nil where there is none.
func int8Kernel() (func(int), float64, string) {
	if cpu.X86.HasAVX512F && cpu.X86.HasAVX512VNNI {
		return int8LoopAVX512VNNI, 12 * 128, "AVX-512 VNNI VPDPBUSD"
	}
	return nil, 0, ""
}
