package engine

import "unsafe"

// f32View reinterprets little-endian float32 data (KV cache rows, F32
// tensors in the mmap) as a []float32 without copying. Callers pass slices
// whose start is 4-byte aligned: GGUF aligns tensor data to at least 8 bytes
// and cache rows are multiples of 4 bytes. Waggle only builds for
// little-endian targets (amd64, arm64, and the purego fallbacks on them).
func f32View(b []byte) []float32 {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Slice((*float32)(unsafe.Pointer(&b[0])), len(b)/4)
}
