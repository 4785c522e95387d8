package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// target is one GOOS/GOARCH pair; GOARM is 7 for linux/arm.
type target struct{ goos, goarch string }

func (t target) String() string { return t.goos + "/" + t.goarch }

func parseTarget(s string) (target, error) {
	goos, goarch, ok := strings.Cut(s, "/")
	if !ok || goos == "" || goarch == "" {
		return target{}, fmt.Errorf("target %q is not GOOS/GOARCH", s)
	}
	return target{goos, goarch}, nil
}

// artefactName is waggle-<version>-<os>-<arch>[v7][.exe].
func artefactName(t target, version string) string {
	name := "waggle-" + version + "-" + t.goos + "-" + t.goarch
	if t.goarch == "arm" {
		name += "v7"
	}
	if t.goos == "windows" {
		name += ".exe"
	}
	return name
}

// build compiles pkg for t into dir and returns the binary's path.
func build(t target, version, dir, pkg string) (string, error) {
	path := filepath.Join(dir, artefactName(t, version))
	cmd := exec.Command("go", "build", "-trimpath",
		"-ldflags", "-s -w -X main.version="+version,
		"-o", path, pkg)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.goos, "GOARCH="+t.goarch)
	if t.goarch == "arm" {
		cmd.Env = append(cmd.Env, "GOARM=7")
	}
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	return path, cmd.Run()
}

// gitDescribe names the checkout's version: the nearest tag, or the commit.
func gitDescribe() (string, error) {
	out, err := exec.Command("git", "describe", "--tags", "--always", "--dirty").Output()
	if err != nil {
		return "", fmt.Errorf("git describe: %w (give -version)", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// writeChecksums writes SHA256SUMS in sha256sum's format, sorted by name.
func writeChecksums(dir string, paths []string) error {
	sort.Strings(paths)
	var b strings.Builder
	for _, p := range paths {
		sum, err := fileSHA256(p)
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, filepath.Base(p))
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(b.String()), 0o644)
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
