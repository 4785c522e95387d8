package kernels

import (
	"errors"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
)

func TestLevelSelection(t *testing.T) {
	names := Impls()
	if len(names) == 0 || names[0] != "generic" {
		t.Fatalf("Impls() = %v, want generic first", names)
	}
	found := false
	for _, n := range names {
		found = found || n == Impl()
	}
	if !found {
		t.Fatalf("Impl() = %q is not in Impls() = %v", Impl(), names)
	}
	before := Impl()
	restore := DisableAsm()
	if Impl() != "generic" || ActiveLevel() != Generic {
		t.Fatalf("after DisableAsm Impl() = %q", Impl())
	}
	restore()
	if Impl() != before {
		t.Fatalf("restore gave %q, want %q", Impl(), before)
	}
	if _, err := SelectImpl("no-such-isa"); err == nil {
		t.Fatal("SelectImpl of an unknown name succeeded")
	}
	if Impl() != before {
		t.Fatalf("failed SelectImpl changed the selection to %q", Impl())
	}
}

// TestLevelFromEnv: WAGGLE_KERNELS selects exactly the level it names, the
// best one when empty or "auto", and is an error for a name this build
// lacks or a level this CPU does not run.
func TestLevelFromEnv(t *testing.T) {
	for env, want := range map[string]Level{"": bestLevel(), "auto": bestLevel(), " Auto ": bestLevel(), "generic": Generic, "GENERIC": Generic} {
		if l, err := levelFromEnv(env); err != nil || l != want {
			t.Errorf("WAGGLE_KERNELS=%q: %v, %v; want %v", env, l, err, want)
		}
	}
	for l := Generic; l < numLevels; l++ {
		got, err := levelFromEnv(l.String())
		switch {
		case l.Available() && (err != nil || got != l):
			t.Errorf("WAGGLE_KERNELS=%s: %v, %v; want that level", l, got, err)
		case !l.Available() && err == nil:
			t.Errorf("WAGGLE_KERNELS=%s selects %v on a CPU or build without it", l, got)
		}
	}
	if _, err := levelFromEnv("no-such-isa"); err == nil || !strings.Contains(err.Error(), "generic") {
		t.Errorf("unknown WAGGLE_KERNELS: err = %v, want one listing the levels", err)
	}
	for l := Generic; l < numLevels; l++ {
		if _, err := levelFromEnv(l.String()); !l.compiled() && (err == nil || !strings.Contains(err.Error(), "not in this build")) {
			t.Errorf("WAGGLE_KERNELS=%s, a level of another build: err = %v", l, err)
		}
	}
}

// TestBadEnvFails: a WAGGLE_KERNELS value that names no level ends the
// process at start-up with status 2 and one line saying why.
func TestBadEnvFails(t *testing.T) {
	if os.Getenv("KERNELS_BAD_ENV_CHILD") == "1" {
		t.Fatal("the child process ran a test: a bad WAGGLE_KERNELS did not stop it")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestBadEnvFails$")
	cmd.Env = append(os.Environ(), "KERNELS_BAD_ENV_CHILD=1", "WAGGLE_KERNELS=avx3000")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Skipf("cannot run the test binary as a child here: %v", err)
	}
	const want = "waggle: WAGGLE_KERNELS=avx3000: unknown kernel level"
	if exit == nil || exit.ExitCode() != 2 || strings.Count(string(out), want) != 1 {
		t.Fatalf("child: %v, output:\n%s\nwant exit status 2 and one line starting %q", err, out, want)
	}
}

// TestRequireAsm lets CI insist on the kernels it means to test, since a
// silent fall-back would otherwise look green: WAGGLE_REQUIRE_IMPL=avx2
// fails the run unless exactly that level is in use, and
// WAGGLE_REQUIRE_ASM=1 unless every level this build has runs here (so no
// level's tests skip) and the best one is in use.
func TestRequireAsm(t *testing.T) {
	if want := os.Getenv("WAGGLE_REQUIRE_IMPL"); want != "" && Impl() != want {
		t.Fatalf("WAGGLE_REQUIRE_IMPL=%s but Impl() = %s (available: %v)", want, Impl(), Impls())
	}
	if !testenv.RequireAllKernels() {
		return
	}
	if got := Levels(); len(got) != len(archLevels) {
		t.Fatalf("WAGGLE_REQUIRE_ASM: this CPU runs %s of this build's %s", levelList(got), levelList(archLevels))
	}
	if ActiveLevel() != bestLevel() {
		t.Fatalf("WAGGLE_REQUIRE_ASM: %s is in use, not the best level %s", ActiveLevel(), bestLevel())
	}
}

func TestKernelTablesComplete(t *testing.T) {
	forEachImpl(t, func(t *testing.T, name string, kt, _ *kernelTable) {
		for typ := DType(0); typ < dtypeLimit; typ++ {
			if typ.Known() && kt.dequantize[typ] == nil {
				t.Errorf("%v has no dequantizer", typ)
			}
			if typ.Supported() && kt.vecDot[typ] == nil {
				t.Errorf("%v has no vec dot", typ)
			}
		}
		if kt.dot == nil || kt.add == nil || kt.mul == nil || kt.scale == nil || kt.swiGLU == nil || kt.onlineSoftMax == nil {
			t.Error("vector op missing")
		}
	})
}

// TestLevelChains: every level's chain of parents ends at generic, and
// Includes follows it.
func TestLevelChains(t *testing.T) {
	for l := Generic; l < numLevels; l++ {
		steps := 0
		for m := l; m != Generic; m = m.Parent() {
			if !l.Includes(m) || m.Includes(l) && m != l {
				t.Errorf("%v and its ancestor %v", l, m)
			}
			if steps++; steps > int(numLevels) {
				t.Fatalf("%v: parent chain does not reach generic", l)
			}
		}
		if !l.Includes(Generic) || (l != Generic && Generic.Includes(l)) {
			t.Errorf("%v: Includes(generic) wrong", l)
		}
	}
	if AVX2.Includes(AVX512) || AVX512.Includes(AVX512VNNI) || NEON.Includes(NEONDot) || AVX512VNNI.Includes(NEON) {
		t.Error("a level includes one above it or of another architecture")
	}
}

// TestRegisteredLevels: every kernel in a level's full table whose name
// states a level (…AVX2, …AVX512, …VNNI, …NEON, …NEONDot) states that level
// or one below it, for every level this build has whether or not this CPU
// runs it. So avx2 cannot pick up an AVX-512 kernel, nor avx512 a VNNI one.
func TestRegisteredLevels(t *testing.T) {
	for _, l := range archLevels {
		kt := resolveLevel(l)
		for _, fn := range tableFuncs(reflect.ValueOf(kt)) {
			name := runtime.FuncForPC(fn).Name()
			if m, ok := nameLevel(name); ok && !l.Includes(m) {
				t.Errorf("level %v runs %s, a kernel of level %v", l, name, m)
			}
		}
	}
}

// nameLevel returns the level a kernel's name states, if any.
func nameLevel(name string) (Level, bool) {
	fn := name[strings.LastIndex(name, ".")+1:]
	for _, c := range []struct {
		suffix string
		level  Level
	}{{"VNNI", AVX512VNNI}, {"AVX512", AVX512}, {"AVX2", AVX2}, {"NEONDot", NEONDot}, {"NEON", NEON}} {
		if strings.Contains(fn, c.suffix) {
			return c.level, true
		}
	}
	return Generic, false
}

// tableFuncs returns the entry points of every func reachable from v
// through fields, arrays and pointers (the kernels of a table).
func tableFuncs(v reflect.Value) []uintptr {
	var pcs []uintptr
	switch v.Kind() {
	case reflect.Func:
		if !v.IsNil() {
			pcs = append(pcs, v.Pointer())
		}
	case reflect.Pointer:
		if !v.IsNil() {
			pcs = tableFuncs(v.Elem())
		}
	case reflect.Struct:
		for i := range v.NumField() {
			pcs = append(pcs, tableFuncs(v.Field(i))...)
		}
	case reflect.Array:
		for i := range v.Len() {
			pcs = append(pcs, tableFuncs(v.Index(i))...)
		}
	}
	return pcs
}
