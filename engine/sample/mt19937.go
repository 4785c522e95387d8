package sample

// mt19937 is the 32-bit Mersenne Twister with the parameters of C++'s
// std::mt19937, so a seed gives the same stream as in llama.cpp.
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

// seed initialises the state exactly as std::mt19937(seed) does.
func (m *mt19937) seed(s uint32) {
	m.state[0] = s
	for i := 1; i < mtN; i++ {
		prev := m.state[i-1]
		m.state[i] = 1812433253*(prev^(prev>>30)) + uint32(i)
	}
	m.index = mtN
}

// twist regenerates the whole state block.
func (m *mt19937) twist() {
	for i := 0; i < mtN; i++ {
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

// float64 returns a uniform double in [0, 1) the way libstdc++'s
// std::uniform_real_distribution<double>(0, 1) does with a 32-bit engine:
// generate_canonical consumes two outputs, the first as the low word.
func (m *mt19937) float64() float64 {
	lo := m.uint32()
	hi := m.uint32()
	return canonical64(lo, hi)
}

// canonical64 is generate_canonical<double, 53> for two 32-bit draws:
// (lo + hi·2³²) / 2⁶⁴, where the sum is rounded to double first; a result
// that rounds up to 1 is replaced by the largest double below 1.
func canonical64(lo, hi uint32) float64 {
	const r = 4294967296.0 // 2^32
	// hi·2³² is exact; the conversion keeps Go from fusing it with the add.
	sum := float64(lo) + float64(float64(hi)*r)
	ret := sum / (r * r)
	if ret >= 1 {
		ret = 1 - 1.0/(1<<53) // nextafter(1, 0)
	}
	return ret
}

// float32 returns a uniform float in [0, 1) the way libstdc++'s
// std::uniform_real_distribution<float>(0, 1) does with a 32-bit engine:
// generate_canonical<float, 24> uses one output, rounded to float and
// divided by 2³²; a result that rounds up to 1 becomes the largest float
// below 1.
func (m *mt19937) float32() float32 {
	ret := float32(m.uint32()) / 4294967296.0
	if ret >= 1 {
		ret = 1 - 1.0/(1<<24) // nextafter(1, 0)
	}
	return ret
}
