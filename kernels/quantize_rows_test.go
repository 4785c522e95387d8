package kernels

import (
	"bytes"
	"fmt"
	"testing"
)

// TestQuantizeRowsEqualsQuantizeRow: every row's bytes equal QuantizeRow's,
// padding between rows is untouched, for 1..3 threads and row counts that
// do not divide evenly.
func TestQuantizeRowsEqualsQuantizeRow(t *testing.T) {
	defer ForceParallel()()
	for threads := 1; threads <= 3; threads++ {
		p := NewPool(threads)
		for _, typ := range []DType{Q8_0, Q8_1, Q8_K, F16, BF16, F32} {
			n := 2 * typ.BlockSize()
			if n < 32 {
				n = 96
			}
			for _, rows := range []int{1, 2, 5, 11} {
				t.Run(fmt.Sprintf("%v/t%d/rows=%d", typ, threads, rows), func(t *testing.T) {
					verifyQuantizeRows(t, p, typ, n, rows)
				})
			}
		}
		p.Close()
	}
}

func verifyQuantizeRows(t *testing.T, p *Pool, typ DType, n, rows int) {
	r := newRand(uint64(n + rows))
	srcStride, rb := n+5, typ.RowBytes(n)
	dstStride := rb + 7
	src := make([]float32, rows*srcStride)
	for i := range rows {
		copy(src[i*srcStride:], randomActs(r, n))
	}
	dst := bytes.Repeat([]byte{0xA5}, rows*dstStride)
	QuantizeRows(p, typ, dst, dstStride, src, srcStride, n, rows)
	want := make([]byte, rb)
	for i := range rows {
		QuantizeRow(typ, want, src[i*srcStride:i*srcStride+n])
		if !bytes.Equal(dst[i*dstStride:i*dstStride+rb], want) {
			t.Fatalf("row %d differs from QuantizeRow", i)
		}
		if pad := dst[i*dstStride+rb : (i+1)*dstStride]; !bytes.Equal(pad, bytes.Repeat([]byte{0xA5}, len(pad))) {
			t.Fatalf("row %d: padding overwritten", i)
		}
	}
}

func TestQuantizeRowsPanics(t *testing.T) {
	src := make([]float32, 64)
	dst := make([]byte, Q8_0.RowBytes(64))
	for name, f := range map[string]func(){
		"type":       func() { QuantizeRows(nil, Q4_K, dst, len(dst), src, 64, 64, 1) },
		"block":      func() { QuantizeRows(nil, Q8_0, dst, len(dst), src, 64, 48, 1) },
		"short dst":  func() { QuantizeRows(nil, Q8_0, dst[:10], len(dst), src, 64, 64, 1) },
		"short src":  func() { QuantizeRows(nil, Q8_0, dst, 34, src, 32, 32, 3) },
		"dst stride": func() { QuantizeRows(nil, Q8_0, dst, 10, src, 32, 32, 2) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}
