//go:build purego || !amd64

package kernels

// attnArch registers nothing: AttnValues runs the generic kernels on this
// build (on arm64 too, until NEON versions are written and measured).
func attnArch(string, *kernelTable) {}
