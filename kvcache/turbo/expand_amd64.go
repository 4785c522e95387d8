//go:build !purego

package turbo

import "unsafe"

// Lookup tables for VPERMPS, which takes the low 3 (YMM) or 4 (ZMM) bits of
// each index: the levels repeated so that index bits above a type's own are
// don't-cares, which saves masking them off.
var (
	permLevels2 = repeat16(centroids2[:])
	permLevels3 = repeat16(centroids3[:])
)

func repeat16(levels []float32) (t [16]float32) {
	for i := range t {
		t[i] = levels[i%len(levels)]
	}
	return t
}

// Per-lane right-shift counts (VPSRLVD) that bring value j's index or state
// to bit 0 of lane j, given the 4-byte windows expand_amd64.s broadcasts;
// the AVX2 kernels use the first or second half of a table.
var (
	shift2x16 = [16]uint32{0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30}
	shiftT3Hi = [16]uint32{14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29}
	shift2x8  = [16]uint32{0, 2, 4, 6, 8, 10, 12, 14, 0, 2, 4, 6, 8, 10, 12, 14}
	shift4x8  = [16]uint32{0, 4, 8, 12, 16, 20, 24, 28, 0, 4, 8, 12, 16, 20, 24, 28}
)

// Stubs in expand_amd64.s. Each expands block column g of n >= 1 rows: in Go
// terms, for r < n
//
//	decodeBlock(t, dst[r*dstStride/4:][:128], src[r*srcStride:][:t.BlockBytes()])
//
// with dstStride in bytes. The products level·N are single float32
// multiplies (VMULPS), so the results equal decodeBlock's bit for bit,
// NaN payloads included (an fp16 NaN norm converts with its quiet bit set,
// as kernels.F16ToF32 does, and the multiply would set it anyway). Every
// load lies inside its block: indices that straddle are read through 4-byte
// windows placed to end at or before the block's last byte. dst must not
// overlap src.

//go:noescape
func expandTurbo2AVX512(dst *float32, src *byte, dstStride, srcStride, n int)

//go:noescape
func expandTurbo3AVX512(dst *float32, src *byte, dstStride, srcStride, n int)

//go:noescape
func expandTurbo4AVX512(dst *float32, src *byte, dstStride, srcStride, n int)

//go:noescape
func expandTurbo2AVX2(dst *float32, src *byte, dstStride, srcStride, n int)

//go:noescape
func expandTurbo3AVX2(dst *float32, src *byte, dstStride, srcStride, n int)

//go:noescape
func expandTurbo4AVX2(dst *float32, src *byte, dstStride, srcStride, n int)

// The AVX2 TCQ kernels load level pairs with scalar loads (the gathers
// were slower, see expand_amd64.s).

//go:noescape
func expandTCQ2PairsAVX2(dst *float32, src *byte, dstStride, srcStride, n int)

//go:noescape
func expandTCQ3PairsAVX2(dst *float32, src *byte, dstStride, srcStride, n int)

// expandTCQ2PairsAVX512 and expandTCQ3PairsAVX512 are the AVX-512 forms:
// the same pair loads, 16 values assembled per ZMM, one multiply and store
// each.

//go:noescape
func expandTCQ2PairsAVX512(dst *float32, src *byte, dstStride, srcStride, n int)

//go:noescape
func expandTCQ3PairsAVX512(dst *float32, src *byte, dstStride, srcStride, n int)

// expandColumn expands block column g (dst and src already offset to it) of
// n >= 1 rows with the selected kernel; ExpandRows has checked the bounds.
func expandColumn(t Type, dst []float32, w int, src []byte, stride, n int) {
	if expandImpl == expandGo {
		expandColumnGo(t, dst, w, src, stride, n)
		return
	}
	d, s := unsafe.SliceData(dst), unsafe.SliceData(src)
	ds := 4 * w
	if expandImpl == expandAVX512 {
		switch t {
		case Turbo2:
			expandTurbo2AVX512(d, s, ds, stride, n)
		case Turbo3:
			expandTurbo3AVX512(d, s, ds, stride, n)
		case Turbo4:
			expandTurbo4AVX512(d, s, ds, stride, n)
		case Turbo2TCQ:
			expandTCQ2PairsAVX512(d, s, ds, stride, n)
		case Turbo3TCQ:
			expandTCQ3PairsAVX512(d, s, ds, stride, n)
		}
		return
	}
	switch t {
	case Turbo2:
		expandTurbo2AVX2(d, s, ds, stride, n)
	case Turbo3:
		expandTurbo3AVX2(d, s, ds, stride, n)
	case Turbo4:
		expandTurbo4AVX2(d, s, ds, stride, n)
	case Turbo2TCQ:
		expandTCQ2PairsAVX2(d, s, ds, stride, n)
	case Turbo3TCQ:
		expandTCQ3PairsAVX2(d, s, ds, stride, n)
	}
}
