//go:build purego || !(amd64 || arm64)

package kernels

// attnArch registers nothing: AttnValues runs the generic kernels on this
// build.
func attnArch(string, *kernelTable) {}
