package quantize

import (
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/kernels"
)

// Weight quantizers: quantize_row_<type>_ref of ggml-quants.c, what
// llama-quantize runs when no importance matrix is given. Every product is
// wrapped in float32() so that no Go target fuses it into an FMA: the
// reference is plain float32 arithmetic, and one ulp moves a rounding
// boundary. The bytes match llama-quantize's on the files checked in
// row_file_test.go.

// weightQuantizers are the formats this package writes itself; the others
// of Supports (F32, F16, BF16, Q4_0, Q4_1, Q5_0, Q5_1) are
// kernels.QuantizeRow's, whose reference quantizers they are.
var weightQuantizers = map[kernels.DType]func(dst []byte, src []float32){
	kernels.Q8_0: quantizeRowQ8_0,
	kernels.Q2_K: quantizeRowQ2_K,
	kernels.Q3_K: quantizeRowQ3_K,
	kernels.Q4_K: quantizeRowQ4_K,
	kernels.Q5_K: quantizeRowQ5_K,
	kernels.Q6_K: quantizeRowQ6_K,
}

// Supports reports whether Row writes type t: F32, F16, BF16 and the weight
// formats Q4_0, Q4_1, Q5_0, Q5_1, Q8_0 and Q2_K..Q6_K (not the
// activation-only Q8_1 and Q8_K, which no model file holds, nor IQ4_NL,
// which llama-quantize writes only with an importance matrix).
func Supports(t kernels.DType) bool {
	if _, ok := weightQuantizers[t]; ok {
		return true
	}
	switch t {
	case kernels.F32, kernels.F16, kernels.BF16, kernels.Q4_0, kernels.Q4_1, kernels.Q5_0, kernels.Q5_1:
		return true
	}
	return false
}

// Row packs the len(src) values of src into dst as weight type t, byte for
// byte as llama-quantize without an importance matrix. Q8_0 follows
// quantize_row_q8_0_ref (scale 1/d, ties away from zero), not the
// activation rounding of kernels.QuantizeRow. Quantizing is not on a hot
// path: this runs the reference code, never assembly.
//
// Preconditions (violations panic): Supports(t), len(src) a multiple of
// t.BlockSize(), len(dst) >= t.RowBytes(len(src)); src finite. Bytes of
// dst past RowBytes are left alone.
func Row(t kernels.DType, dst []byte, src []float32) {
	if !Supports(t) {
		panic(fmt.Sprintf("quantize: Row not implemented for %v", t))
	}
	q, ok := weightQuantizers[t]
	if !ok {
		kernels.QuantizeRow(t, dst, src)
		return
	}
	if bs := t.BlockSize(); len(src)%bs != 0 {
		panic(fmt.Sprintf("quantize: Row %v: %d values are not a multiple of %d", t, len(src), bs))
	}
	need := t.RowBytes(len(src))
	if len(dst) < need {
		panic(fmt.Sprintf("quantize: Row %v: %d values need %d bytes, have %d", t, len(src), need, len(dst)))
	}
	q(dst[:need], src)
}

// quantizeRowQ8_0 follows quantize_row_q8_0_ref: d = amax/127 stored as
// fp16, id = 1/d (0 if d is 0), q = roundf(x*id), ties away from zero.
func quantizeRowQ8_0(dst []byte, src []float32) {
	const bs = 34
	for b := 0; b < len(src)/qk; b++ {
		x := src[b*qk : b*qk+qk]
		blk := dst[b*bs : b*bs+bs]
		d := absMax(x) / 127
		var id float32
		if d != 0 {
			id = 1 / d
		}
		putF16(blk, d)
		for j, v := range x {
			blk[2+j] = byte(int8(math.Round(float64(float32(v * id)))))
		}
	}
}
