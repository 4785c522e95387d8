package kernels

import (
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// familyTests names, for every kernel family of the registry, the tests
// that run each level this CPU supports against the generic kernel (the
// amd64 and arm64 ones where they differ).
var familyTests = map[string][]string{
	"vecdot":           {"TestVecDotImplsMatchGeneric", "TestNEONVecDotMatchesGeneric"},
	"vecdot-cols":      {"TestBatchInvariance", "TestLegacyVecDotNSweep", "TestKQuantDotNMatchesVecDot", "TestFloatVecDotNImpls", "TestNEONVecDotN"},
	"quantize":         {"TestQuantizeImplsMatchGeneric"},
	"dequantize":       {"TestDequantizeImplsMatchGeneric"},
	"attention-values": {"TestAttnValues", "TestNEONAttnValues"},
	"attention-scores": {"TestAttnScores", "TestNEONAttnScores"},
	"decode-4row":      {"TestDecodeMatVecBitsMatchVecDot", "TestDecodeMatMulBitsMatchVecDot"},
	"gemm":             {"TestMatMulBatchInvariance"},
	"deltanet":         {"TestGatedDeltaImpls", "TestDeltaDotsAxpysImpls", "TestConvSiLUStepImpls", "TestDeltaNormsImpls"},
	"dot":              {"TestFloatDotImpls", "TestNEONFloatDots"},
	"add":              {"TestFloatElementwiseImpls", "TestNEONElementwise"},
	"mul":              {"TestFloatElementwiseImpls", "TestNEONElementwise"},
	"scale":            {"TestFloatScaleImpls", "TestNEONElementwise"},
	"swiglu":           {"TestFloatElementwiseImpls", "TestNEONSwiGLU"},
	"rmsnorm":          {"TestFloatRMSNormImpls", "TestNEONRMSNorm"},
	"softmax":          {"TestFloatSoftMaxImpls", "TestNEONSoftMax"},
	"online-softmax":   {"TestOnlineSoftMaxImpls"},
}

// TestEveryFamilyHasLevelTests: every family of tableFamilies names its
// level tests in familyTests, and each named test exists in this package
// (for any architecture), so a family cannot join the registry without
// them.
func TestEveryFamilyHasLevelTests(t *testing.T) {
	tests := testenv.TestFuncs(t)
	for _, f := range tableFamilies {
		names, ok := familyTests[f.name]
		if !ok || len(names) == 0 {
			t.Errorf("family %s names no tests that run its levels against generic (familyTests)", f.name)
		}
		for _, n := range names {
			if !tests[n] {
				t.Errorf("family %s: no test %s in this package", f.name, n)
			}
		}
	}
	if len(familyTests) != len(tableFamilies) {
		t.Errorf("familyTests has %d families, the registry %d", len(familyTests), len(tableFamilies))
	}
}
