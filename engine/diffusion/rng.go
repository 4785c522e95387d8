package diffusion

// mt19937 is the 32-bit Mersenne Twister with C++'s std::mt19937
// parameters, and the draws of libstdc++'s distributions over it, so a
// seed gives the streams llama-diffusion-cli and the DiffusionGemma fork
// draw from.
type mt19937 struct {
	state [mtN]uint32
	index int
}

const (
	mtN         = 624
	mtM         = 397
	mtMatrixA   = 0x9908b0df
	mtUpperMask = 0x80000000
	mtLowerMask = 0x7fffffff
)

// seed initialises the state as std::mt19937(seed) does.
func (m *mt19937) seed(s uint32) {
	m.state[0] = s
	for i := 1; i < mtN; i++ {
		prev := m.state[i-1]
		m.state[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	m.index = mtN
}

func (m *mt19937) twist() {
	for i := range mtN {
		y := m.state[i]&mtUpperMask | m.state[(i+1)%mtN]&mtLowerMask
		next := m.state[(i+mtM)%mtN] ^ y>>1
		if y&1 != 0 {
			next ^= mtMatrixA
		}
		m.state[i] = next
	}
	m.index = 0
}

// uint32 returns the next tempered output.
func (m *mt19937) uint32() uint32 {
	if m.index >= mtN {
		m.twist()
	}
	y := m.state[m.index]
	m.index++
	y ^= y >> 11
	y ^= y << 7 & 0x9d2c5680
	y ^= y << 15 & 0xefc60000
	y ^= y >> 18
	return y
}

// float32 is std::uniform_real_distribution<float>(0, 1): one output x,
// float32(x) / 2³² (x rounded to float first), and the largest float below
// 1 when that rounds up to 1.
func (m *mt19937) float32() float32 {
	r := float32(m.uint32()) / 4294967296.0
	if r >= 1 {
		r = 0.99999994 // nextafter(1.0f, 0)
	}
	return r
}

// float64 is std::uniform_real_distribution<double>(0, 1): two outputs,
// the first as the low word, (lo + hi·2³²) / 2⁶⁴ with the sum rounded to
// double, and the largest double below 1 when that rounds up to 1.
func (m *mt19937) float64() float64 {
	const r = 4294967296.0
	lo, hi := m.uint32(), m.uint32()
	sum := float64(lo) + float64(float64(hi)*r) // hi·2³² is exact; no fused add
	ret := sum / (r * r)
	if ret >= 1 {
		ret = 1 - 1.0/(1<<53)
	}
	return ret
}

// intn is std::uniform_int_distribution<int32_t>(0, n-1) as libstdc++ (gcc
// 11 and later) draws it from a 32-bit engine: Lemire's multiply-shift
// with rejection. n must be in [1, 2³²).
func (m *mt19937) intn(n uint32) int32 {
	prod := uint64(m.uint32()) * uint64(n)
	low := uint32(prod)
	if low < n {
		threshold := -n % n // (2³² − n) mod n
		for low < threshold {
			prod = uint64(m.uint32()) * uint64(n)
			low = uint32(prod)
		}
	}
	return int32(prod >> 32)
}
