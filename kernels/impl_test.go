package kernels

import (
	"os"
	"testing"
)

func TestImplSelection(t *testing.T) {
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
	if Impl() != "generic" {
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

func TestEnvOverride(t *testing.T) {
	for _, c := range []struct{ env, want string }{
		{"generic", "generic"},
		{"GENERIC", "generic"},
		{"no-such-isa", "generic"},
		{"", bestImpl()},
		{"auto", bestImpl()},
	} {
		t.Setenv("WAGGLE_KERNELS", c.env)
		if name, _ := initialSelection(); name != c.want {
			t.Errorf("WAGGLE_KERNELS=%q selects %q, want %q", c.env, name, c.want)
		}
	}
	// An ISA this build has but the CPU lacks, or one not built, falls back
	// to generic rather than to another fast path.
	for _, isa := range []string{"avx2", "avx512", "neon"} {
		t.Setenv("WAGGLE_KERNELS", isa)
		name, _ := initialSelection()
		if _, err := resolve(isa); err != nil && name != "generic" {
			t.Errorf("unavailable WAGGLE_KERNELS=%s selected %q", isa, name)
		}
		if _, err := resolve(isa); err == nil && name != isa {
			t.Errorf("available WAGGLE_KERNELS=%s selected %q", isa, name)
		}
	}
}

// TestRequireAsm lets CI insist that an assembly implementation is really
// in use, since a silent fall-back to generic would otherwise look green:
// WAGGLE_REQUIRE_ASM=1 fails the run when generic is selected or when
// WAGGLE_KERNELS names a path this machine did not select, and
// WAGGLE_REQUIRE_IMPL=avx2 fails it unless exactly that one is in use.
func TestRequireAsm(t *testing.T) {
	asm, want := os.Getenv("WAGGLE_REQUIRE_ASM"), os.Getenv("WAGGLE_REQUIRE_IMPL")
	if (asm == "" || asm == "0") && want == "" {
		t.Skip("neither WAGGLE_REQUIRE_ASM nor WAGGLE_REQUIRE_IMPL is set")
	}
	if want != "" && Impl() != want {
		t.Fatalf("WAGGLE_REQUIRE_IMPL=%s but Impl() = %s (available: %v)", want, Impl(), Impls())
	}
	if asm != "" && asm != "0" {
		if Impl() == "generic" {
			t.Fatalf("WAGGLE_REQUIRE_ASM is set but the generic kernels are in use (available: %v)", Impls())
		}
		if k := envKernels(); k != "" && k != "auto" && Impl() != k {
			t.Fatalf("WAGGLE_REQUIRE_ASM: WAGGLE_KERNELS=%s is unavailable here, Impl() = %s", k, Impl())
		}
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
