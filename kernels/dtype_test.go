package kernels

import "testing"

// TestDTypeTable pins the type ids, block sizes and block bytes to the
// numbers in ggml.h (enum ggml_type) and the sizeof static_asserts of
// ggml-common.h, and vec_dot_type to type_traits_cpu in ggml-cpu.c.
func TestDTypeTable(t *testing.T) {
	cases := []struct {
		t          DType
		id         uint32
		name       string
		bs, bb     int
		vdt        DType
		supported  bool
		quantizing bool
	}{
		{F32, 0, "f32", 1, 4, F32, true, true},
		{F16, 1, "f16", 1, 2, F16, true, true},
		{Q4_0, 2, "q4_0", 32, 18, Q8_0, true, true},
		{Q4_1, 3, "q4_1", 32, 20, Q8_1, true, true},
		{Q5_0, 6, "q5_0", 32, 22, Q8_0, true, true},
		{Q5_1, 7, "q5_1", 32, 24, Q8_1, true, true},
		{Q8_0, 8, "q8_0", 32, 34, Q8_0, true, true},
		{Q8_1, 9, "q8_1", 32, 36, Q8_1, false, true},
		{Q2_K, 10, "q2_K", 256, 84, Q8_K, true, false},
		{Q3_K, 11, "q3_K", 256, 110, Q8_K, true, false},
		{Q4_K, 12, "q4_K", 256, 144, Q8_K, true, false},
		{Q5_K, 13, "q5_K", 256, 176, Q8_K, true, false},
		{Q6_K, 14, "q6_K", 256, 210, Q8_K, true, false},
		{Q8_K, 15, "q8_K", 256, 292, Q8_K, false, true},
		{BF16, 30, "bf16", 1, 2, BF16, true, true},
	}
	for _, c := range cases {
		if uint32(c.t) != c.id || c.t.String() != c.name || c.t.BlockSize() != c.bs || c.t.BlockBytes() != c.bb ||
			c.t.VecDotType() != c.vdt || c.t.Supported() != c.supported || c.t.CanQuantize() != c.quantizing || !c.t.Known() {
			t.Errorf("%s: got id=%d name=%q bs=%d bb=%d vdt=%v supported=%v quantize=%v",
				c.name, uint32(c.t), c.t.String(), c.t.BlockSize(), c.t.BlockBytes(), c.t.VecDotType(), c.t.Supported(), c.t.CanQuantize())
		}
		if got := c.t.RowBytes(3 * c.bs); got != 3*c.bb {
			t.Errorf("%s: RowBytes(%d) = %d", c.name, 3*c.bs, got)
		}
	}
	for _, u := range []DType{4, 5, 16, 29, 31, 1000} {
		if u.Known() || u.Supported() || u.CanQuantize() || u.BlockSize() != 0 || u.BlockBytes() != 0 {
			t.Errorf("unknown type %d reports a layout", uint32(u))
		}
		if u.String() == "" {
			t.Errorf("unknown type %d has no name", uint32(u))
		}
	}
	mustPanic(t, "RowBytes not a block multiple", func() { Q4_0.RowBytes(33) })
	mustPanic(t, "RowBytes unknown", func() { DType(4).RowBytes(32) })
}
