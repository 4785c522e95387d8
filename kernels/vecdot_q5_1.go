package kernels

import "encoding/binary"

// vecDotQ5_1Q8_1Generic follows ggml_vec_dot_q5_1_q8_1_generic: per block,
// sumi = sum(5-bit q * q8), then sumf += (dw*dx)*float(sumi) + mw*sx.
func vecDotQ5_1Q8_1Generic(n int, w, x []byte) float32 {
	const wb, xb = 24, 36
	var sumf float32
	for b := 0; b < n/qk; b++ {
		bw, bx := w[b*wb:b*wb+wb], x[b*xb:b*xb+xb]
		qh := binary.LittleEndian.Uint32(bw[4:])
		qw, qx := bw[8:24], bx[4:36]
		var sumi0, sumi1 int32
		for j := 0; j < qk/2; j++ {
			lo := int32(qw[j]&0x0f) | int32(qh>>j&1)<<4
			hi := int32(qw[j]>>4) | int32(qh>>(j+16)&1)<<4
			sumi0 += lo * int32(int8(qx[j]))
			sumi1 += hi * int32(int8(qx[j+qk/2]))
		}
		scaled := float32(f16At(bw)*f16At(bx)) * float32(sumi0+sumi1)
		sumf += float32(scaled) + float32(f16At(bw[2:])*f16At(bx[2:]))
	}
	return sumf
}
