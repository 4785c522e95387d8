package turbo

// Pure-Go block kernels for DotKey and AccumulateValue. Each product is
// rounded to float32 explicitly, so no target fuses it into an FMA and the
// results have the same bits on every architecture.

func dotTurbo2(q *[BlockSize]float32, b []byte) float32 {
	qs := b[normBytes : normBytes+32]
	var s float32
	for i, v := range qs {
		j := 4 * i
		s += float32(q[j]*centroids2[v&3]) + float32(q[j+1]*centroids2[v>>2&3]) +
			float32(q[j+2]*centroids2[v>>4&3]) + float32(q[j+3]*centroids2[v>>6])
	}
	return s
}

func dotTurbo3(q *[BlockSize]float32, b []byte) float32 {
	qs := b[normBytes : normBytes+32]
	hi := b[normBytes+32 : normBytes+48]
	var s float32
	for i, h := range hi {
		lo := uint(qs[2*i]) | uint(qs[2*i+1])<<8
		hb := uint(h)
		for k := range 8 {
			s += float32(q[8*i+k] * centroids3[lo>>(2*k)&3|hb>>k&1<<2])
		}
	}
	return s
}

func dotTurbo4(q *[BlockSize]float32, b []byte) float32 {
	qs := b[normBytes : normBytes+64]
	var s float32
	for i, v := range qs {
		s += float32(q[2*i]*centroids4[v&15]) + float32(q[2*i+1]*centroids4[v>>4])
	}
	return s
}

func dotTCQ(c *tcqCode, q *[BlockSize]float32, b []byte) float32 {
	qs := b[normBytes : normBytes+c.qsBytes]
	cb := c.codebook[:c.states()]
	mask := c.mask()
	var s float32
	for t, x := range q {
		s += float32(x * cb[tcqState(qs, c.k, mask, t)])
	}
	return s
}

func axpyTurbo2(acc *[BlockSize]float32, s float32, b []byte) {
	qs := b[normBytes : normBytes+32]
	for i, v := range qs {
		j := 4 * i
		acc[j] += float32(s * centroids2[v&3])
		acc[j+1] += float32(s * centroids2[v>>2&3])
		acc[j+2] += float32(s * centroids2[v>>4&3])
		acc[j+3] += float32(s * centroids2[v>>6])
	}
}

func axpyTurbo3(acc *[BlockSize]float32, s float32, b []byte) {
	qs := b[normBytes : normBytes+32]
	hi := b[normBytes+32 : normBytes+48]
	for i, h := range hi {
		lo := uint(qs[2*i]) | uint(qs[2*i+1])<<8
		hb := uint(h)
		for k := range 8 {
			acc[8*i+k] += float32(s * centroids3[lo>>(2*k)&3|hb>>k&1<<2])
		}
	}
}

func axpyTurbo4(acc *[BlockSize]float32, s float32, b []byte) {
	qs := b[normBytes : normBytes+64]
	for i, v := range qs {
		acc[2*i] += float32(s * centroids4[v&15])
		acc[2*i+1] += float32(s * centroids4[v>>4])
	}
}

func axpyTCQ(c *tcqCode, acc *[BlockSize]float32, s float32, b []byte) {
	qs := b[normBytes : normBytes+c.qsBytes]
	cb := c.codebook[:c.states()]
	mask := c.mask()
	for t := range acc {
		acc[t] += float32(s * cb[tcqState(qs, c.k, mask, t)])
	}
}
