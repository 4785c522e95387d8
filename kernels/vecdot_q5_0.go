package kernels

import "encoding/binary"

// vecDotQ5_0Q8_0Generic follows ggml_vec_dot_q5_0_q8_0_generic: per block,
// sumi = sum((5-bit q - 16) * q8), then sumf += (dw*dx) * float(sumi).
func vecDotQ5_0Q8_0Generic(n int, w, x []byte) float32 {
	const wb, xb = 22, 34
	var sumf float32
	for b := 0; b < n/qk; b++ {
		bw, bx := w[b*wb:b*wb+wb], x[b*xb:b*xb+xb]
		qh := binary.LittleEndian.Uint32(bw[2:])
		qw, qx := bw[6:22], bx[2:34]
		var sumi0, sumi1 int32
		for j := 0; j < qk/2; j++ {
			lo := int32(qw[j]&0x0f) | int32(qh>>j&1)<<4
			hi := int32(qw[j]>>4) | int32(qh>>(j+16)&1)<<4
			sumi0 += (lo - 16) * int32(int8(qx[j]))
			sumi1 += (hi - 16) * int32(int8(qx[j+qk/2]))
		}
		sumf += float32(float32(f16At(bw)*f16At(bx)) * float32(sumi0+sumi1))
	}
	return sumf
}
