package kernels

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestDequantizeImplsMatchGeneric: every implementation's dequantizer
// gives the generic one's bits for the legacy block types, on random and
// extreme bytes, 0 to 9 blocks, from misaligned source offsets, and writes
// nothing past dst.
func TestDequantizeImplsMatchGeneric(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, name := range Impls() {
		restore, err := SelectImpl(name)
		if err != nil {
			continue
		}
		for _, typ := range []DType{Q4_0, Q4_1, Q5_0, Q5_1, Q8_0} {
			for blocks := range 10 {
				for _, off := range []int{0, 1, 3} {
					for _, fill := range []int{-1, 0x00, 0xff, 0x80, 0x7f} {
						n := 32 * blocks
						src := make([]byte, off+typ.RowBytes(n))
						for i := range src {
							src[i] = byte(r.IntN(256))
							if fill >= 0 && (i-off)%typ.RowBytes(32) >= 4 {
								src[i] = byte(fill)
							}
						}
						want := make([]float32, n)
						dequantizeGeneric[typ](want, src[off:])
						got := make([]float32, n+8)
						for i := range got {
							got[i] = 777
						}
						DequantizeRow(typ, got[:n], src[off:])
						for i := range want {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(math.IsNaN(float64(got[i])) && math.IsNaN(float64(want[i]))) {
								t.Fatalf("%s %v blocks=%d off=%d fill=%d: [%d] = %v, generic %v", name, typ, blocks, off, fill, i, got[i], want[i])
							}
						}
						for i := n; i < len(got); i++ {
							if got[i] != 777 {
								t.Fatalf("%s %v: wrote past dst", name, typ)
							}
						}
					}
				}
			}
		}
		restore()
	}
}

// TestDequantizeRows: strided rows expand exactly as DequantizeRow does per
// row, and bad strides panic.
func TestDequantizeRows(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	for _, typ := range []DType{Q8_0, Q4_0, Q5_1, F16, BF16} {
		const n, rows, stride = 64, 5, 200
		src := make([]byte, (rows-1)*stride+typ.RowBytes(n))
		for i := range src {
			src[i] = byte(r.IntN(256))
		}
		for i := 0; i+1 < len(src); i += 2 { // keep fp16/bf16 values finite
			src[i+1] &= 0x3f
		}
		got := make([]float32, rows*n)
		DequantizeRows(typ, got, src, stride, n, rows)
		want := make([]float32, n)
		for row := range rows {
			DequantizeRow(typ, want, src[row*stride:])
			for i := range want {
				if math.Float32bits(got[row*n+i]) != math.Float32bits(want[i]) {
					t.Fatalf("%v row %d [%d]: %v, want %v", typ, row, i, got[row*n+i], want[i])
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Fatal("a stride below the row size did not panic")
		}
	}()
	DequantizeRows(Q8_0, make([]float32, 128), make([]byte, 200), 10, 64, 2)
}
