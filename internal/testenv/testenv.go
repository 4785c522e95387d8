// Package testenv finds the shared fixtures (models, goldens, tokenizer vectors)
// that tests read, and decides what a missing fixture means.
//
// Fixtures live outside the repository, in ../shared beside the checkout, or
// wherever WAGGLE_MODELS and WAGGLE_TESTDATA point. A developer without them
// gets a loud skip; under CI=true a missing fixture is a failure, never a skip,
// so a green CI run always means the parity tests really ran.
package testenv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// RepoRoot returns the directory holding the module's go.mod, found by walking
// up from the working directory (go test runs each package in its own folder).
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("testenv: getwd: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("testenv: no go.mod above the working directory")
		}
		dir = parent
	}
}

// ModelsDir returns the shared models folder: $WAGGLE_MODELS, or
// ../shared/models beside the repository root.
func ModelsDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("WAGGLE_MODELS"); d != "" {
		return absFromRoot(t, d)
	}
	return filepath.Join(RepoRoot(t), "..", "shared", "models")
}

// TestdataDir returns the shared test-data folder (tokenizer vectors, GGUF v1
// file): $WAGGLE_TESTDATA, or ../shared/testdata beside the repository root.
func TestdataDir(t testing.TB) string {
	t.Helper()
	if d := os.Getenv("WAGGLE_TESTDATA"); d != "" {
		return absFromRoot(t, d)
	}
	return filepath.Join(RepoRoot(t), "..", "shared", "testdata")
}

// absFromRoot resolves a relative environment path against the repository
// root, so WAGGLE_MODELS=../shared/models means the same in every package.
func absFromRoot(t testing.TB, d string) string {
	if filepath.IsAbs(d) {
		return d
	}
	return filepath.Join(RepoRoot(t), d)
}

// InCI reports whether the tests run under CI (CI=true), where missing
// fixtures are failures.
func InCI() bool { return os.Getenv("CI") == "true" }

// Require checks that path exists. When it does not, the test is skipped with
// a loud message, or failed under CI=true.
func Require(t testing.TB, path string) string {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(t, "fixture %s: %v", path, err)
	}
	return path
}

// Missing reports a missing fixture: a failure under CI=true, else a skip.
func Missing(t testing.TB, format string, args ...any) {
	t.Helper()
	if InCI() {
		t.Fatalf("MISSING FIXTURE (fatal under CI=true): "+format, args...)
	}
	t.Skipf("MISSING FIXTURE, test skipped: "+format, args...)
}

// Model returns the path of a shared model file by name, after Require.
func Model(t testing.TB, name string) string {
	t.Helper()
	return Require(t, filepath.Join(ModelsDir(t), name))
}

// NeedKernelLevel skips t, saying why, unless the kernel level named level
// (a kernels.Level name such as "avx2") runs on this CPU, which the caller
// passes as available. When the run demands that level it fails instead:
// under WAGGLE_REQUIRE_ASM=1 (every level of the build must run here) or
// when WAGGLE_REQUIRE_IMPL names it, so a run that asks for a level cannot
// pass while the tests of that level skip.
func NeedKernelLevel(t testing.TB, level string, available bool) {
	t.Helper()
	if available {
		return
	}
	if RequireAllKernels() || os.Getenv("WAGGLE_REQUIRE_IMPL") == level {
		t.Fatalf("kernel level %s does not run on this CPU, but WAGGLE_REQUIRE_ASM=%q / WAGGLE_REQUIRE_IMPL=%q demand it",
			level, os.Getenv("WAGGLE_REQUIRE_ASM"), os.Getenv("WAGGLE_REQUIRE_IMPL"))
	}
	t.Skipf("kernel level %s does not run on this CPU", level)
}

// RequireAllKernels reports whether WAGGLE_REQUIRE_ASM is set (to anything
// but "" or "0"): every kernel level this build has must run, so no kernel
// test may skip for want of CPU features.
func RequireAllKernels() bool {
	v := os.Getenv("WAGGLE_REQUIRE_ASM")
	return v != "" && v != "0"
}

// TestFuncs returns the names of the Test functions in the _test.go files
// of the working directory (the package under test), whatever their build
// constraints, for tests that check other tests exist.
func TestFuncs(t testing.TB) map[string]bool {
	t.Helper()
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") {
				names[fd.Name.Name] = true
			}
		}
	}
	return names
}
