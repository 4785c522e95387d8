package main

import (
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/waggle-llm/waggle/kernels"
	_ "github.com/waggle-llm/waggle/kvcache/turbo" // registers its kernel families
)

type versionCmd struct {
	Verbose bool `short:"v" help:"Also print the build settings, the CPU features seen and the kernel level each family runs, for bug reports."`
}

func (c versionCmd) Run() error {
	fmt.Fprintln(stdout, buildLine())
	if !c.Verbose {
		return nil
	}
	printBuild(stdout)
	printKernels(stdout)
	return nil
}

// buildLine is "waggle VERSION", followed by the commit (12 digits, "+dirty"
// for modified trees) and its date when the binary recorded them: the line
// `waggle version` prints and /props reports as build_info.
func buildLine() string {
	line := "waggle " + version
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return line
	}
	var rev, when, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = "+dirty"
			}
		}
	}
	if rev == "" {
		return line
	}
	return fmt.Sprintf("%s (%s%s %s)", line, rev[:min(12, len(rev))], dirty, when)
}

// printBuild prints the Go version, target, tags, cgo and the VCS state
// recorded in the binary.
func printBuild(w io.Writer) {
	fmt.Fprintf(w, "build: %s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		fmt.Fprintln(w, "  (no build information in this binary)")
		return
	}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if settings["-tags"] == "" {
		settings["-tags"] = "(none)"
	}
	if settings["vcs.revision"] == "" {
		settings["vcs.revision"] = "(not recorded: built outside a checkout or with -buildvcs=false)"
	}
	for _, key := range []string{"-tags", "CGO_ENABLED", "GOAMD64", "GOARM64", "-trimpath", "vcs.revision", "vcs.time", "vcs.modified"} {
		if v, ok := settings[key]; ok {
			fmt.Fprintf(w, "  %s=%s\n", key, v)
		}
	}
}

// printKernels prints the CPU features the kernels saw, the selected level
// and, per kernel family, the level whose implementation runs.
func printKernels(w io.Writer) {
	features := strings.Join(kernels.CPUFeatures(), " ")
	if features == "" {
		features = "(none the kernels use)"
	}
	fmt.Fprintf(w, "cpu: %s\n", features)
	levels := kernels.Levels()
	env := os.Getenv("WAGGLE_KERNELS")
	if env == "" {
		env = "unset"
	}
	fmt.Fprintf(w, "kernels: %s (this CPU runs %s; WAGGLE_KERNELS %s)\n", kernels.ActiveLevel(), joinLevels(levels), env)
	for _, f := range kernels.Report() {
		fmt.Fprintf(w, "  %-18s %s\n", f.Family, familyLine(f))
	}
}

// familyLine renders one family's levels: "avx2" for an untyped family,
// "avx512vnni q4_0 q8_0; avx2 f32; else MatMul" for a typed one.
func familyLine(f kernels.FamilyLevels) string {
	var parts []string
	for _, lt := range f.Levels {
		p := lt.Level.String()
		for _, t := range lt.Types {
			p += " " + t.String()
		}
		parts = append(parts, p)
	}
	if f.Else != "" {
		parts = append(parts, "else "+f.Else)
	}
	return strings.Join(parts, "; ")
}

func joinLevels(ls []kernels.Level) string {
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = l.String()
	}
	return strings.Join(names, ", ")
}
