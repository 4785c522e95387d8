package kernels

import (
	"encoding/binary"
	"math"
)

// Quantizers for the legacy 32-value block formats (the KV cache types q4_1,
// q5_0 and q5_1; q4_0 is in quantize_q4_0.go), following
// quantize_row_<type>_ref of ggml-quants.c, which is also what
// llama-quantize runs when no importance matrix is given. Every product is wrapped in float32()
// so that no Go target fuses it into an FMA: llama.cpp's reference is plain
// float32 arithmetic, and one ulp moves a rounding boundary.

// minMax returns the smallest and largest value of x (the FLT_MAX-seeded
// scan of the q4_1/q5_1 reference).
func minMax(x []float32) (lo, hi float32) {
	lo, hi = math.MaxFloat32, -math.MaxFloat32
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// signedMax returns the value of largest magnitude in x, the first one on
// ties (the amax/max scan of q4_0_ref and q5_0_ref).
func signedMax(x []float32) float32 {
	var amax, vmax float32
	for _, v := range x {
		if a := float32(math.Abs(float64(v))); a > amax {
			amax, vmax = a, v
		}
	}
	return vmax
}

// quantizeRowQ4_1Generic follows quantize_row_q4_1_ref: d = (max-min)/15,
// m = min, q = min(15, trunc((x-min)/d + 0.5)).
func quantizeRowQ4_1Generic(dst []byte, src []float32) {
	const bs = 20
	for b := 0; b < len(src)/qk; b++ {
		x := src[b*qk : b*qk+qk]
		blk := dst[b*bs : b*bs+bs]
		lo, hi := minMax(x)
		d := (hi - lo) / 15
		var id float32
		if d != 0 {
			id = 1 / d
		}
		putF16(blk, d)
		putF16(blk[2:], lo)
		for j := 0; j < qk/2; j++ {
			q0 := min(15, int(int8(float32((x[j]-lo)*id)+0.5)))
			q1 := min(15, int(int8(float32((x[j+qk/2]-lo)*id)+0.5)))
			blk[4+j] = byte(q0) | byte(q1)<<4
		}
	}
}

// quantizeRowQ5_0Generic follows quantize_row_q5_0_ref: d = max/-16 for the
// value of largest magnitude, q = min(31, trunc(x/d + 16.5)); the fifth bits
// go to the 32-bit qh (bit j for value j).
func quantizeRowQ5_0Generic(dst []byte, src []float32) {
	const bs = 22
	for b := 0; b < len(src)/qk; b++ {
		x := src[b*qk : b*qk+qk]
		blk := dst[b*bs : b*bs+bs]
		d := signedMax(x) / -16
		var id float32
		if d != 0 {
			id = 1 / d
		}
		putF16(blk, d)
		var qh uint32
		for j := 0; j < qk/2; j++ {
			q0 := uint32(min(31, int(int8(float32(x[j]*id)+16.5))))
			q1 := uint32(min(31, int(int8(float32(x[j+qk/2]*id)+16.5))))
			blk[6+j] = byte(q0&15) | byte(q1&15)<<4
			qh |= (q0>>4)<<j | (q1>>4)<<(j+qk/2)
		}
		binary.LittleEndian.PutUint32(blk[2:], qh)
	}
}

// quantizeRowQ5_1Generic follows quantize_row_q5_1_ref: d = (max-min)/31,
// m = min, q = trunc((x-min)/d + 0.5) (no clamp, as in ggml).
func quantizeRowQ5_1Generic(dst []byte, src []float32) {
	const bs = 24
	for b := 0; b < len(src)/qk; b++ {
		x := src[b*qk : b*qk+qk]
		blk := dst[b*bs : b*bs+bs]
		lo, hi := minMax(x)
		d := (hi - lo) / 31
		var id float32
		if d != 0 {
			id = 1 / d
		}
		putF16(blk, d)
		putF16(blk[2:], lo)
		var qh uint32
		for j := 0; j < qk/2; j++ {
			q0 := uint32(uint8(float32((x[j]-lo)*id) + 0.5))
			q1 := uint32(uint8(float32((x[j+qk/2]-lo)*id) + 0.5))
			blk[8+j] = byte(q0&15) | byte(q1&15)<<4
			qh |= (q0>>4&1)<<j | (q1>>4&1)<<(j+qk/2)
		}
		binary.LittleEndian.PutUint32(blk[4:], qh)
	}
}
