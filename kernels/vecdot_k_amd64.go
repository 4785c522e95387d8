//go:build !purego

package kernels

// registerKQuantsAMD64 adds the amd64 assembly for Q2_K..Q6_K dots and the q8_K quantizer
// to the avx2 and avx512 tables. None exist yet.
func registerKQuantsAMD64(avx2, avx512 *kernelTable) {}
