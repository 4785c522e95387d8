package waggle_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDefaultBuildHasNoPurego: purego (which makes a binary dynamically
// linked) and the Vulkan packages are in cmd/waggle's dependencies only
// with -tags vulkan, so the default build stays static and cgo-free.
func TestDefaultBuildHasNoPurego(t *testing.T) {
	gpuPkgs := []string{"github.com/ebitengine/purego", module + "/kernels/vulkan", module + "/engine/vulkan"}
	for _, tc := range []struct {
		tags string
		want bool
	}{{"", false}, {"vulkan", true}} {
		cmd := exec.Command("go", "list", "-tags", tc.tags, "-deps", "./cmd/waggle")
		cmd.Env = append(cmd.Environ(), "CGO_ENABLED=0", "GOOS=linux", "GOARCH=amd64")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go list -tags %q: %v\n%s", tc.tags, err, out)
		}
		deps := map[string]bool{}
		for _, p := range strings.Fields(string(out)) {
			deps[p] = true
		}
		for _, p := range gpuPkgs {
			if deps[p] != tc.want {
				t.Errorf("-tags %q: cmd/waggle depends on %s: %v, want %v", tc.tags, p, deps[p], tc.want)
			}
		}
	}
}
