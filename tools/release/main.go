// Command release builds Waggle's release artefacts: a static, cgo-free
// binary per target with the version stamped in, and a SHA256SUMS file.
//
//	go run ./tools/release -version v0.3.0 -out dist
//
// Every binary is built with CGO_ENABLED=0 and -trimpath and then checked:
// its build information must say cgo was off, and a Linux binary must have no
// program interpreter and no shared-library dependency (a static ELF). The
// commit and its date come from the build information Go records from the
// git checkout (`waggle version -v` prints them), so the tool only stamps
// the version string.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
)

// defaultTargets are the release platforms. linux/arm is ARMv7 with the
// generic (pure-Go) kernels.
var defaultTargets = []string{
	"linux/amd64", "linux/arm64", "linux/arm",
	"darwin/amd64", "darwin/arm64",
	"windows/amd64",
}

func main() {
	version := flag.String("version", "", "version to stamp (default: git describe --tags --always --dirty)")
	out := flag.String("out", "dist", "output directory")
	targets := flag.String("targets", strings.Join(defaultTargets, ","), "comma-separated GOOS/GOARCH list")
	pkg := flag.String("pkg", "./cmd/waggle", "package to build")
	flag.Parse()
	if err := run(*version, *out, *pkg, strings.Split(*targets, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(version, out, pkg string, targets []string) error {
	if version == "" {
		v, err := gitDescribe()
		if err != nil {
			return err
		}
		version = v
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	var built []string
	for _, t := range targets {
		tg, err := parseTarget(strings.TrimSpace(t))
		if err != nil {
			return err
		}
		path, err := build(tg, version, out, pkg)
		if err != nil {
			return fmt.Errorf("%s: %w", tg, err)
		}
		if err := checkBinary(path, tg); err != nil {
			return fmt.Errorf("%s: %w", tg, err)
		}
		fmt.Printf("%-14s %s\n", tg, path)
		built = append(built, path)
	}
	return writeChecksums(out, built)
}
