package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/internal/testenv"
)

// buildProbe compiles a small program that uses the net package (which links
// libc through cgo when cgo is on) with the given CGO_ENABLED and flags.
func buildProbe(t *testing.T, cgo string, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join(dir, "main.go")
	prog := "package main\nimport (\"fmt\"; \"net\")\nfunc main() { fmt.Println(net.ParseIP(\"127.0.0.1\")); _, _ = net.LookupHost(\"localhost\") }\n"
	if err := os.WriteFile(src, []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "probe")
	args := append([]string{"build"}, flags...)
	cmd := exec.Command("go", append(args, "-o", out, src)...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED="+cgo, "GOOS=linux", "GOARCH="+runtime.GOARCH)
	if b, err := cmd.CombinedOutput(); err != nil {
		if cgo == "1" && strings.Contains(string(b), "gcc") {
			testenv.Missing(t, "a C compiler for the cgo probe: %s", b)
		}
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return out
}

func TestCheckBinaryAcceptsStatic(t *testing.T) {
	p := buildProbe(t, "0", "-trimpath")
	if err := checkBinary(p, target{"linux", runtime.GOARCH}); err != nil {
		t.Fatalf("static, cgo-free, trimmed binary refused: %v", err)
	}
}

func TestCheckBinaryRefusesCgo(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the cgo probe links against the host's libc")
	}
	p := buildProbe(t, "1", "-trimpath")
	err := checkBinary(p, target{"linux", runtime.GOARCH})
	if err == nil || !strings.Contains(err.Error(), "CGO_ENABLED") {
		t.Fatalf("cgo binary: got %v, want a CGO_ENABLED refusal", err)
	}
	if err := checkStaticELF(p); err == nil {
		t.Fatal("a binary linked against libc passed the static-ELF check")
	}
}

func TestCheckBinaryRefusesUntrimmed(t *testing.T) {
	p := buildProbe(t, "0")
	if err := checkBinary(p, target{"linux", runtime.GOARCH}); err == nil || !strings.Contains(err.Error(), "trimpath") {
		t.Fatalf("untrimmed binary: got %v, want a -trimpath refusal", err)
	}
}

func TestArtefactName(t *testing.T) {
	for _, c := range []struct {
		t    target
		want string
	}{
		{target{"linux", "amd64"}, "waggle-v1-linux-amd64"},
		{target{"linux", "arm"}, "waggle-v1-linux-armv7"},
		{target{"windows", "amd64"}, "waggle-v1-windows-amd64.exe"},
	} {
		if got := artefactName(c.t, "v1"); got != c.want {
			t.Errorf("%s: %q, want %q", c.t, got, c.want)
		}
	}
	for _, bad := range []string{"linux", "/amd64", "linux/", ""} {
		if _, err := parseTarget(bad); err == nil {
			t.Errorf("parseTarget(%q) accepted", bad)
		}
	}
}
