package engine

import (
	"unsafe"
)

// attnChunk is the number of cached rows attention handles at a time: 64
// rows of a 128-wide head are 32 KiB of float32, within L1/L2, and a
// group's query heads reuse them there.
const attnChunk = 64

// f32Bytes views x as F32 cache rows. kernels reads F32 rows as
// little-endian float32, which is x's memory on every GOARCH Waggle
// supports (init refuses a big-endian one rather than compute wrong bits).
func f32Bytes(x []float32) []byte {
	if len(x) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&x[0])), 4*len(x))
}

func init() {
	one := uint32(1)
	if *(*byte)(unsafe.Pointer(&one)) != 1 {
		panic("engine: attention over paged KV cells assumes a little-endian machine")
	}
}
