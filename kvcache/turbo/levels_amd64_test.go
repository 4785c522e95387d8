//go:build !purego

package turbo

import (
	"os"
	"os/exec"
	"testing"

	"golang.org/x/sys/cpu"
)

// TestKernelLevelEnv: WAGGLE_KERNELS=generic puts ExpandRows, the trellis
// search and the rotation on the Go references, =avx2 puts all three on
// AVX2 when the CPU has it (checked in child processes, since the choice is
// made at start-up).
func TestKernelLevelEnv(t *testing.T) {
	if want := os.Getenv("TURBO_LEVEL_CHILD"); want != "" {
		for name, got := range map[string]int{"expand": expandImpl, "viterbi": viterbiImpl, "rotate": rotateImpl} {
			if levelNames[got] != want {
				t.Fatalf("WAGGLE_KERNELS=%q: %s level %s, want %s", os.Getenv("WAGGLE_KERNELS"), name, levelNames[got], want)
			}
		}
		return
	}
	if testing.Short() {
		t.Skip("spawns child test processes")
	}
	avx2 := "go"
	if cpu.X86.HasAVX2 && cpu.X86.HasFMA && cpu.X86.HasF16C && cpu.X86.HasBMI2 {
		avx2 = "avx2"
	}
	for env, want := range map[string]string{"generic": "go", "avx2": avx2} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestKernelLevelEnv$", "-test.count=1")
		cmd.Env = append(os.Environ(), "TURBO_LEVEL_CHILD="+want, "WAGGLE_KERNELS="+env)
		out, err := cmd.CombinedOutput()
		if _, exited := err.(*exec.ExitError); err != nil && !exited {
			t.Skip("cannot run the test binary here:", err)
		}
		if err != nil {
			t.Fatalf("child with WAGGLE_KERNELS=%s: %v\n%s", env, err, out)
		}
	}
}
