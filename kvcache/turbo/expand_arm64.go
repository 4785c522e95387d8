//go:build !purego

package turbo

import "unsafe"

// expandNEON is arm64's assembly level for ExpandRows (expand_arm64.s).
const expandNEON = levelNEON

// Stubs in expand_arm64.s, with the amd64 stubs' contract: each expands
// block column g of n >= 1 rows, in Go terms, for r < n,
//
//	decodeBlock(t, dst[r*dstStride/4:][:128], src[r*srcStride:][:t.BlockBytes()])
//
// with dstStride in bytes, bit for bit (NaN payloads included: FCVTL
// quiets an fp16 NaN and keeps its payload, as kernels.F16ToF32 does).
// Every load lies inside its block; dst must not overlap src.
//
// The scalar kernels multiply the type's 4, 8 or 16 levels by the block's
// norm N once per block (the same float32 products decodeBlock forms per
// value), split the products into four byte planes, and then build 16
// outputs per step with four TBL lookups and one interleaving ST4: no
// multiply per value.

//go:noescape
func expandTurbo2NEON(dst *float32, src *byte, dstStride, srcStride, n int)

//go:noescape
func expandTurbo3NEON(dst *float32, src *byte, dstStride, srcStride, n int)

//go:noescape
func expandTurbo4NEON(dst *float32, src *byte, dstStride, srcStride, n int)

// The TCQ kernels fetch two levels per load from a pair table (tcq3Pairs,
// tcq2Pairs; NEON has no gather, and a codebook of 256 or 512 floats is far
// beyond TBL's 64-byte tables) and multiply four values by N at a time.

//go:noescape
func expandTCQ3NEON(dst *float32, src *byte, dstStride, srcStride, n int)

//go:noescape
func expandTCQ2NEON(dst *float32, src *byte, dstStride, srcStride, n int)

// expandColumn expands block column g (dst and src already offset to it) of
// n >= 1 rows with the selected kernel; ExpandRows has checked the bounds.
func expandColumn(t Type, dst []float32, w int, src []byte, stride, n int) {
	if expandImpl == expandGo {
		expandColumnGo(t, dst, w, src, stride, n)
		return
	}
	d, s := unsafe.SliceData(dst), unsafe.SliceData(src)
	ds := 4 * w
	switch t {
	case Turbo2:
		expandTurbo2NEON(d, s, ds, stride, n)
	case Turbo3:
		expandTurbo3NEON(d, s, ds, stride, n)
	case Turbo4:
		expandTurbo4NEON(d, s, ds, stride, n)
	case Turbo2TCQ:
		expandTCQ2NEON(d, s, ds, stride, n)
	case Turbo3TCQ:
		expandTCQ3NEON(d, s, ds, stride, n)
	}
}
