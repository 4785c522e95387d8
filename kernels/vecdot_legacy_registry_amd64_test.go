//go:build !purego

package kernels

import (
	"reflect"
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// TestLegacyAMD64Registration checks that the tables hold the assembly
// this file tests: avx2 and avx512 the AVX2 routines, avx512vnni the VNNI
// dots with the AVX2 quantizers, whether or not this CPU runs the levels.
func TestLegacyAMD64Registration(t *testing.T) {
	same := func(a, b any) bool { return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() }
	for _, l := range []Level{AVX2, AVX512} {
		kt := resolveLevel(l)
		if !same(kt.vecDot[Q4_0], vecDotQ4_0AVX2) || kt.vecDotN[Q5_1] == nil || !same(kt.quantize[Q8_1], quantizeRowQ8_1AVX2) {
			t.Fatalf("%v does not run the AVX2 legacy kernels", l)
		}
	}
	vnni := resolveLevel(AVX512VNNI)
	if !same(vnni.vecDot[Q8_0], vecDotQ8_0VNNI) || !same(vnni.quantize[Q8_0], quantizeRowQ8_0AVX2) {
		t.Fatal("avx512vnni: Q8_0 dot or quantizer is not the expected routine")
	}
}

// TestLegacyDotNRoutines calls the four-column routines directly for 1..4
// columns (the table sends one or two columns to the single-column dots,
// so this is where the repeated-column and partial-store paths run).
func TestLegacyDotNRoutines(t *testing.T) {
	testenv.NeedKernelLevel(t, "avx2", AVX2.Available())
	ref, _ := resolve("generic")
	routines := map[string][5]vecDotNFunc{
		"avx2": {vecDotNQ4_0AVX2, vecDotNQ4_1AVX2, vecDotNQ5_0AVX2, vecDotNQ5_1AVX2, vecDotNQ8_0AVX2},
	}
	if AVX512VNNI.Available() {
		routines["avx512vnni"] = [5]vecDotNFunc{vecDotNQ4_0VNNI, vecDotNQ4_1VNNI, vecDotNQ5_0VNNI, vecDotNQ5_1VNNI, vecDotNQ8_0VNNI}
	}
	r := newRand(105)
	for name, fs := range routines {
		for i, typ := range legacyTypes {
			for _, nb := range []int{0, 1, 2, 7} {
				n := nb * 32
				xn := typ.VecDotType().RowBytes(n)
				for nc := 1; nc <= MaxDotCols; nc++ {
					checkVecDotN(t, r, name, fs[i], &ref, typ, n, nc, xn+3)
				}
			}
		}
	}
}
