//go:build !purego

package kernels

// registerFloatOpsAMD64 adds the amd64 assembly for F32/F16/BF16 dots, vector ops and conversions
// to the avx2 and avx512 tables. None exist yet.
func registerFloatOpsAMD64(avx2, avx512 *kernelTable) {}
