//go:build !purego

package kernels

// registerLegacyQuantsAMD64 adds the amd64 assembly for Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 dots and the q8_0/q8_1 quantizers
// to the avx2 and avx512 tables. None exist yet.
func registerLegacyQuantsAMD64(avx2, avx512 *kernelTable) {}
