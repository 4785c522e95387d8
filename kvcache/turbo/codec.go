package turbo

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/waggle-llm/waggle/kernels"
)

// tinyNorm is the threshold below which BeeLlama treats a norm as zero
// (1e-10f in the CUDA kernels), both for the input norm and for the
// codebook-vector norm of the norm correction.
const tinyNorm float32 = 1e-10

// sqrt32 is a correctly rounded float32 square root (sqrtf without
// fast-math; the float64 detour rounds once more, which is harmless for sqrt).
func sqrt32(x float32) float32 { return float32(math.Sqrt(float64(x))) }

// blockNorm reads a block's corrected norm.
func blockNorm(b []byte) float32 { return kernels.F16ToF32(binary.LittleEndian.Uint16(b)) }

// putBlockNorm stores the corrected norm as fp16, round-to-nearest-even.
func putBlockNorm(b []byte, n float32) { binary.LittleEndian.PutUint16(b, kernels.F32ToF16(n)) }

// correctedNorm returns n / ||c|| (n when ||c|| <= 1e-10), where r2 = ||c||^2
// is the squared norm of the chosen reconstruction levels: the decoded
// rotated vector then has the input's L2 norm, up to fp16 rounding.
func correctedNorm(n, r2 float32) float32 {
	if r := sqrt32(r2); r > tinyNorm {
		return n / r
	}
	return n
}

// sumSquaresSeq is Σ x_i² as a float32 sum in index order (the scalar
// encoders' order). Products are rounded explicitly so no target fuses them.
func sumSquaresSeq(x *[BlockSize]float32) float32 {
	var s float32
	for _, v := range x {
		s += float32(v * v)
	}
	return s
}

// sumSquaresTree is Σ x_i² in the TCQ kernels' tree order: s_i = x_i² +
// x_{i+64}², then s_i += s_{i+32}, 16, 8, 4, 2, 1.
func sumSquaresTree(x *[BlockSize]float32) float32 {
	var s [64]float32
	for i := range s {
		s[i] = float32(x[i]*x[i]) + float32(x[i+64]*x[i+64])
	}
	for h := 32; h >= 1; h >>= 1 {
		for i := 0; i < h; i++ {
			s[i] += s[i+h]
		}
	}
	return s[0]
}

// normalizeRotate loads up to 128 values of src into z (zero-padded), scales
// them to unit norm (by 1/n when n > 1e-10, else by 0) and forward-rotates
// them. It returns the norm n, summed sequentially or in the TCQ tree order.
func normalizeRotate(z *[BlockSize]float32, src []float32, tree bool) float32 {
	n := copy(z[:], src)
	clear(z[n:])
	var s float32
	if tree {
		s = sumSquaresTree(z)
	} else {
		s = sumSquaresSeq(z)
	}
	norm := sqrt32(s)
	var inv float32
	if norm > tinyNorm {
		inv = 1 / norm
	}
	for i := range z {
		z[i] *= inv
	}
	rotateForward(z)
	return norm
}

// Encode quantizes one head vector src into dst, which must be exactly
// t.RowBytes(len(src)) long: src is zero-padded to whole 128-groups and each
// group becomes one block. It returns an error for an invalid type or a
// length mismatch and writes every byte of dst otherwise. It does not
// allocate. Non-finite inputs produce a non-finite (or zero) norm, as on
// the GPU, never a panic.
func (t Type) Encode(dst []byte, src []float32) error {
	if err := t.checkRow("Encode", len(dst), len(src)); err != nil {
		return err
	}
	bb := t.BlockBytes()
	for g := 0; g*BlockSize < len(src); g++ {
		blk := dst[g*bb : (g+1)*bb]
		x := src[g*BlockSize : min(len(src), (g+1)*BlockSize)]
		switch t {
		case Turbo2, Turbo3, Turbo4:
			encodeScalar(t, blk, x)
		case Turbo3TCQ:
			encodeTCQ(&tcq3, blk, x)
		case Turbo2TCQ:
			encodeTCQ(&tcq2, blk, x)
		}
	}
	return nil
}

// Decode expands the row src into the original (un-rotated) domain: each
// block is dequantized and inverse-rotated, and the head padding is dropped,
// so len(src) must be t.RowBytes(len(dst)). Any bytes decode without
// panicking; a corrupt norm decodes to Inf or NaN values. It returns an
// error for an invalid type or a length mismatch. It does not allocate.
func (t Type) Decode(dst []float32, src []byte) error {
	if err := t.checkRow("Decode", len(src), len(dst)); err != nil {
		return err
	}
	bb := t.BlockBytes()
	var z [BlockSize]float32
	for g := 0; g*BlockSize < len(dst); g++ {
		decodeBlock(t, &z, src[g*bb:(g+1)*bb])
		rotateInverse(&z)
		copy(dst[g*BlockSize:], z[:])
	}
	return nil
}

// DecodeRotated expands the row src in the rotated domain, exactly as stored:
// dst[j] = level[idx_j] · N per block, one float32 multiply, bit-exact with
// any correct decoder. len(dst) is the padded length, a multiple of
// BlockSize, and len(src) must be t.RowBytes(len(dst)).
func (t Type) DecodeRotated(dst []float32, src []byte) error {
	if len(dst)%BlockSize != 0 {
		return fmt.Errorf("turbo: DecodeRotated: len(dst)=%d is not a multiple of %d", len(dst), BlockSize)
	}
	if err := t.checkRow("DecodeRotated", len(src), len(dst)); err != nil {
		return err
	}
	bb := t.BlockBytes()
	for g := 0; g*BlockSize < len(dst); g++ {
		decodeBlock(t, (*[BlockSize]float32)(dst[g*BlockSize:]), src[g*bb:(g+1)*bb])
	}
	return nil
}

// decodeBlock dequantizes one block (len(b) == t.BlockBytes()) into z in the
// rotated domain.
func decodeBlock(t Type, z *[BlockSize]float32, b []byte) {
	switch t {
	case Turbo2, Turbo3, Turbo4:
		decodeScalar(t, z, b)
	case Turbo3TCQ:
		decodeTCQ(&tcq3, z, b)
	case Turbo2TCQ:
		decodeTCQ(&tcq2, z, b)
	}
}

// checkRow validates a row of nBytes bytes holding n values.
func (t Type) checkRow(fn string, nBytes, n int) error {
	switch {
	case !t.Valid():
		return fmt.Errorf("turbo: %s: invalid type %d", fn, int(t))
	case n <= 0:
		return fmt.Errorf("turbo: %s: row of %d values", fn, n)
	case nBytes != t.RowBytes(n):
		return fmt.Errorf("turbo: %s: %s row of %d values takes %d bytes, got %d", fn, t, n, t.RowBytes(n), nBytes)
	}
	return nil
}
