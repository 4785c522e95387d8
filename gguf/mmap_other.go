//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package gguf

// mapFile reads the whole file where no mapping primitive is wired up
// (plan9, wasm, solaris, aix, ...).
var mapFile = readWhole
