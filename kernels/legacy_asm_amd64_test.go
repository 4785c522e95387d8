//go:build !purego

package kernels

import (
	"reflect"
	"testing"
)

// TestLegacyAMD64Registration checks that the tables hold the assembly
// this file tests: avx2 has it, avx512 has the VNNI forms exactly when the
// CPU has VNNI, and WAGGLE_KERNELS=avx2 selects the AVX2 routines even on
// an AVX-512 machine.
func TestLegacyAMD64Registration(t *testing.T) {
	if !hasAVX2() {
		t.Skip("no AVX2+FMA+F16C here; nothing registered")
	}
	same := func(a, b any) bool { return reflect.ValueOf(a).Pointer() == reflect.ValueOf(b).Pointer() }
	t.Setenv("WAGGLE_KERNELS", "avx2")
	name, kt := initialSelection()
	if name != "avx2" {
		t.Fatalf("WAGGLE_KERNELS=avx2 selected %q", name)
	}
	if !same(kt.vecDot[Q4_0], vecDotQ4_0AVX2) || kt.vecDotN[Q5_1] == nil || !same(kt.quantize[Q8_1], quantizeRowQ8_1AVX2) {
		t.Fatal("WAGGLE_KERNELS=avx2 does not run the AVX2 legacy kernels")
	}
	if !hasAVX512() {
		return
	}
	kt512, err := resolve("avx512")
	if err != nil {
		t.Fatal(err)
	}
	want := any(vecDotQ8_0AVX2)
	if cpuFeatures.AVX512VNNI {
		want = vecDotQ8_0AVX512
	}
	if !same(kt512.vecDot[Q8_0], want) || !same(kt512.quantize[Q8_0], quantizeRowQ8_0AVX2) {
		t.Fatalf("avx512 table: Q8_0 dot or quantizer is not the expected routine (VNNI %v)", cpuFeatures.AVX512VNNI)
	}
}

// TestLegacyDotNRoutines calls the four-column routines directly for 1..4
// columns (the table sends one or two columns to the single-column dots,
// so this is where the repeated-column and partial-store paths run).
func TestLegacyDotNRoutines(t *testing.T) {
	if !hasAVX2() {
		t.Skip("no AVX2+FMA+F16C here")
	}
	ref, _ := resolve("generic")
	routines := map[string][5]vecDotNFunc{
		"avx2": {vecDotNQ4_0AVX2, vecDotNQ4_1AVX2, vecDotNQ5_0AVX2, vecDotNQ5_1AVX2, vecDotNQ8_0AVX2},
	}
	if hasAVX512() && cpuFeatures.AVX512VNNI {
		routines["avx512"] = [5]vecDotNFunc{vecDotNQ4_0AVX512, vecDotNQ4_1AVX512, vecDotNQ5_0AVX512, vecDotNQ5_1AVX512, vecDotNQ8_0AVX512}
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
