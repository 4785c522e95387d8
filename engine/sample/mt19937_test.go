package sample

import (
	"math"
	"math/big"
	"testing"
)

// The C++ standard requires the 10000th output of a default-constructed
// std::mt19937 (seed 5489) to be 4123659995.
func TestMT19937KnownAnswer(t *testing.T) {
	var m mt19937
	m.seed(5489)
	var v uint32
	for range 10000 {
		v = m.uint32()
	}
	if v != 4123659995 {
		t.Fatalf("10000th output = %d, want 4123659995", v)
	}
}

// Outputs of std::mt19937(42) and of std::uniform_real_distribution<double>
// (0, 1) over it, printed by a program built with g++ 12 / libstdc++.
func TestMT19937MatchesLibstdcxx(t *testing.T) {
	var m mt19937
	m.seed(42)
	want := []uint32{1608637542, 3421126067, 4083286876, 787846414, 3143890026}
	for i, w := range want {
		if got := m.uint32(); got != w {
			t.Fatalf("seed 42 output %d = %d, want %d", i, got, w)
		}
	}
	m.seed(42)
	wantD := []uint64{0x3fe97d47b66bfc3c, 0x3fc77aca8779b102, 0x3fe8f33a88f76c7f,
		0x3fe3196582932836, 0x3fdc88861e49fc36, 0x3fb997f4d627ef42}
	for i, w := range wantD {
		if got := math.Float64bits(m.float64()); got != w {
			t.Fatalf("seed 42 double %d = %#x, want %#x", i, got, w)
		}
	}
	m.seed(1234)
	for range 1000 {
		m.float64()
	}
	wantD = []uint64{0x3feb69b8258cd5dd, 0x3fe45690bdddc798, 0x3fe9988cdcf07da2}
	for i, w := range wantD {
		if got := math.Float64bits(m.float64()); got != w {
			t.Fatalf("seed 1234 double %d after 1000 = %#x, want %#x", i, got, w)
		}
	}
}

// canonical64 must equal round((lo + hi·2³²)) / 2⁶⁴, computed here exactly
// with big numbers, and clamp a rounded 1 to the largest double below 1.
func TestCanonical64Formula(t *testing.T) {
	cases := [][2]uint32{
		{0, 0}, {1, 0}, {0, 1}, {3499211612, 581869302},
		{0xFFFFFFFF, 0x7FFFFFFF}, {0x000007FF, 0xFFFFFFFF}, {0x00000400, 0x80000000},
	}
	two64 := new(big.Float).SetMantExp(big.NewFloat(1), 64)
	for _, c := range cases {
		exact := new(big.Int).Lsh(big.NewInt(int64(c[1])), 32)
		exact.Add(exact, big.NewInt(int64(c[0])))
		sum, _ := new(big.Float).SetPrec(53).SetMode(big.ToNearestEven).SetInt(exact).Float64()
		want, _ := new(big.Float).Quo(big.NewFloat(sum), two64).Float64()
		if got := canonical64(c[0], c[1]); got != want {
			t.Errorf("canonical64(%#x, %#x) = %v, want %v", c[0], c[1], got, want)
		}
	}
	if got, want := canonical64(0xFFFFFFFF, 0xFFFFFFFF), math.Nextafter(1, 0); got != want {
		t.Errorf("canonical64(max, max) = %v, want nextafter(1, 0) = %v", got, want)
	}
}
