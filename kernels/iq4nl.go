package kernels

import "math"

// IQ4_NL: 32-value blocks of an fp16 scale d and 16 bytes of 4-bit
// indices into a fixed non-linear table (low nibbles: values 0..15, high
// nibbles: values 16..31); value = d·kvaluesIQ4NL[index]. ggml's
// block_iq4_nl. Waggle uses it as a KV cache type (as llama.cpp does with
// --cache-type-k iq4_nl); it also computes IQ4_NL weights.

// kvaluesIQ4NL is ggml's kvalues_iq4nl.
var kvaluesIQ4NL = [16]int8{-127, -104, -83, -65, -49, -35, -22, -10, 1, 13, 25, 38, 53, 69, 89, 113}

// iq4nlGroupMaxEps is ggml's GROUP_MAX_EPS: blocks below it store d = 0.
const iq4nlGroupMaxEps = 1e-15

// quantizeRowIQ4NLGeneric is ggml's quantize_row_iq4_nl_ref (the KV cache's
// from_float): per block, the first scale is max/kvalues[0] (max the value
// of largest magnitude), each value takes its nearest table entry, and d is
// refit by weighted least squares with weights x² (no scale search: ntry
// is -1 there). A block below iq4nlGroupMaxEps gets d = 0 and zero indices
// (ggml leaves them as whatever its scratch held; they decode to 0 either
// way). Products are rounded to float32 before each sum as written; a
// compiler that contracts them into FMAs may pick a different d in rare
// near-ties.
func quantizeRowIQ4NLGeneric(dst []byte, src []float32) {
	const bs = 18
	var l [32]uint8
	for b := 0; b < len(src)/32; b++ {
		x := src[b*32 : b*32+32]
		blk := dst[b*bs : b*bs+bs]
		clear(blk)
		var amax, mx float32
		for _, v := range x {
			if a := float32(math.Abs(float64(v))); a > amax {
				amax, mx = a, v
			}
		}
		if amax < iq4nlGroupMaxEps {
			continue
		}
		d := mx / float32(kvaluesIQ4NL[0])
		id := 1 / d
		var sumqx, sumq2 float32
		for j, v := range x {
			l[j] = bestIndexInt8(id * v)
			q := float32(kvaluesIQ4NL[l[j]])
			w := v * v
			sumqx += float32(w*q) * v
			sumq2 += float32(w*q) * q
		}
		d = 0
		if sumq2 > 0 {
			d = sumqx / sumq2
		}
		putF16(blk, d)
		for j := range 16 {
			blk[2+j] = l[j] | l[16+j]<<4
		}
	}
}

// bestIndexInt8 is ggml's best_index_int8 over kvaluesIQ4NL: the index of
// the nearest table entry (binary search; ties to the upper entry).
func bestIndexInt8(x float32) uint8 {
	v := &kvaluesIQ4NL
	if x <= float32(v[0]) {
		return 0
	}
	if x >= float32(v[15]) {
		return 15
	}
	ml, mu := 0, 15
	for mu-ml > 1 {
		mav := (ml + mu) / 2
		if x < float32(v[mav]) {
			mu = mav
		} else {
			ml = mav
		}
	}
	if x-float32(v[mu-1]) < float32(v[mu])-x {
		return uint8(mu - 1)
	}
	return uint8(mu)
}

func dequantizeRowIQ4NLGeneric(dst []float32, src []byte) {
	const bs = 18
	for b := 0; b < len(dst)/32; b++ {
		blk := src[b*bs : b*bs+bs]
		d := f16At(blk)
		y := dst[b*32 : b*32+32]
		for j, q := range blk[2:18] {
			y[j] = d * float32(kvaluesIQ4NL[q&0x0f])
			y[j+16] = d * float32(kvaluesIQ4NL[q>>4])
		}
	}
}

// vecDotIQ4NLQ8_0Generic is ggml_vec_dot_iq4_nl_q8_0's reference loop.
func vecDotIQ4NLQ8_0Generic(n int, w, x []byte) float32 {
	var sum float32
	for b := 0; b < n/32; b++ {
		wb, xb := w[b*18:b*18+18], x[b*34:b*34+34]
		var s1, s2 int32
		for j, q := range wb[2:18] {
			s1 += int32(int8(xb[2+j])) * int32(kvaluesIQ4NL[q&0x0f])
			s2 += int32(int8(xb[18+j])) * int32(kvaluesIQ4NL[q>>4])
		}
		sum += f16At(wb) * f16At(xb) * float32(s1+s2)
	}
	return sum
}
