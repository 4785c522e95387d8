package kernels

import "math"

// quantizeRowQ4_0Generic follows quantize_row_q4_0_ref: per 32-value block,
// max = the value of largest magnitude (the first one on ties), d = max/-8
// stored as fp16, id = 1/d (0 if d is 0), and each nibble
// q = min(15, trunc(x*id + 8.5)). Values j and j+16 share byte j (low, high).
func quantizeRowQ4_0Generic(dst []byte, src []float32) {
	const bs = 18
	for b := 0; b < len(src)/qk; b++ {
		x := src[b*qk : b*qk+qk]
		blk := dst[b*bs : b*bs+bs]
		var amax, vmax float32
		for _, v := range x {
			if a := float32(math.Abs(float64(v))); a > amax {
				amax, vmax = a, v
			}
		}
		d := vmax / -8
		var id float32
		if d != 0 {
			id = 1 / d
		}
		putF16(blk, d)
		for j := 0; j < qk/2; j++ {
			// float32(...) keeps Go from fusing the multiply into the add.
			q0 := min(15, int(int8(float32(x[j]*id)+8.5)))
			q1 := min(15, int(int8(float32(x[j+qk/2]*id)+8.5)))
			blk[2+j] = byte(q0) | byte(q1)<<4
		}
	}
}
