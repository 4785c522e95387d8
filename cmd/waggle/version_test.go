package main

import (
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/kernels"
)

// TestVersionVerbose: version -v names the Go build, the CPU features, the
// selected kernel level and every family the registry reports, with the
// level it runs (so a bug report says what ran); plain version prints one
// line.
func TestVersionVerbose(t *testing.T) {
	out, err := runCLI(t, "version")
	if err != nil || strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "waggle ") {
		t.Fatalf("version: %v\n%s", err, out)
	}
	out, err = runCLI(t, "version", "-v")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"build: go", "CGO_ENABLED=", "cpu: ", "kernels: " + kernels.ActiveLevel().String() + " ("}
	families := kernels.Report()
	if len(families) < 20 {
		t.Fatalf("the registry reports %d families", len(families))
	}
	for _, f := range families {
		want = append(want, "\n  "+f.Family+" ")
	}
	want = append(want, "turbo/expand ")
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("version -v lacks %q:\n%s", w, out)
		}
	}
}
