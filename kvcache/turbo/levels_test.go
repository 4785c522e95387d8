package turbo

import (
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
	"github.com/waggle-llm/waggle/kernels"
)

// TestFamiliesFollowTheRegistry: selecting a kernel level (as
// WAGGLE_KERNELS does at start-up) puts every family of this package on its
// implementation of that level or of the nearest level below it, the Go
// references at generic, and the registry reports each family.
func TestFamiliesFollowTheRegistry(t *testing.T) {
	impls := map[string]*int{
		"turbo/expand": &expandImpl, "turbo/score": &scoreImpl, "turbo/accumulate": &accumImpl,
		"turbo/rotate": &rotateImpl, "turbo/viterbi": &viterbiImpl,
	}
	for _, l := range kernels.Levels() {
		restore, err := kernels.SelectLevel(l)
		if err != nil {
			t.Fatal(err)
		}
		reported := map[string]kernels.Level{}
		for _, f := range kernels.Report() {
			if len(f.Levels) == 1 {
				reported[f.Family] = f.Levels[0].Level
			}
		}
		for name, impl := range impls {
			got, ok := reported[name]
			switch {
			case !ok:
				t.Errorf("%s is not in the registry's report", name)
			case !l.Includes(got):
				t.Errorf("at %v, %s runs level %v", l, name, got)
			case levelName(*impl) != goName(got):
				t.Errorf("at %v, %s is reported at %v but runs %s", l, name, got, levelName(*impl))
			case l == kernels.Generic && *impl != levelGo:
				t.Errorf("at generic, %s runs %s", name, levelName(*impl))
			}
		}
		restore()
	}
}

// goName is levelName's name for the implementation of registry level l.
func goName(l kernels.Level) string {
	if l == kernels.Generic {
		return "go"
	}
	return l.String()
}

// familyTests names, for every family this package registers, the tests
// that run each of its levels this CPU supports against the Go reference
// (the amd64 and arm64 ones where they differ).
var familyTests = map[string][]string{
	"turbo/expand":     {"TestExpandRowsMatchesDecodeRotated"},
	"turbo/score":      {"TestScoreRows4Kernels", "TestScoreRows4NEON"},
	"turbo/accumulate": {"TestAccumulateRows4MatchesReference", "TestAccumulateRows4NEON"},
	"turbo/rotate":     {"TestRotateDispatch", "TestRotateImplsMatchGo", "TestRotateNEONMatchesGo"},
	"turbo/viterbi":    {"TestViterbiImplsMatchGo", "TestTCQEncodeImplsMatchGo", "TestViterbiNEONMatchesGo"},
}

// TestEveryFamilyHasLevelTests: every family of this package in the
// registry names its level tests in familyTests, and each exists.
func TestEveryFamilyHasLevelTests(t *testing.T) {
	tests := testenv.TestFuncs(t)
	seen := 0
	for _, f := range kernels.Report() {
		if !strings.HasPrefix(f.Family, "turbo/") {
			continue
		}
		seen++
		names := familyTests[f.Family]
		if len(names) == 0 {
			t.Errorf("family %s names no tests that run its levels (familyTests)", f.Family)
		}
		for _, n := range names {
			if !tests[n] {
				t.Errorf("family %s: no test %s in this package", f.Family, n)
			}
		}
	}
	if seen != len(familyTests) {
		t.Errorf("the registry reports %d turbo families, familyTests has %d", seen, len(familyTests))
	}
}
