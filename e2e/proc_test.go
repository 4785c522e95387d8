package e2e

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// waggleBin builds cmd/waggle once per test run.
func waggleBin(t *testing.T) string {
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "waggle-e2e")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "waggle")
		out, err := exec.Command("go", "build", "-C", "..", "-o", binPath, "./cmd/waggle").CombinedOutput()
		if err != nil {
			buildErr = err
			t.Logf("%s", out)
		}
	})
	if buildErr != nil {
		t.Fatalf("building waggle: %v", buildErr)
	}
	return binPath
}

// model returns a shared model path, skipping loudly (failing under CI)
// when it is missing.
func model(t *testing.T, name string) string {
	dir := os.Getenv("WAGGLE_MODELS")
	if dir == "" {
		dir = "../../shared/models"
	}
	p := filepath.Join(dir, name)
	if _, err := os.Stat(p); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("model %s missing (WAGGLE_MODELS=%s)", name, dir)
		}
		t.Skipf("SKIP: model %s missing; set WAGGLE_MODELS", p)
	}
	return p
}

var readyRE = regexp.MustCompile(`listening on (http://\S+)`)

// serve starts `waggle serve args…` on a free port and returns its URL;
// the process gets SIGTERM at cleanup and must exit 0.
func serve(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(waggleBin(t), append([]string{"serve", "--port", "0"}, args...)...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	urlc := make(chan string, 1)
	var logMu sync.Mutex
	var logs strings.Builder
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logMu.Lock()
			logs.WriteString(sc.Text() + "\n")
			logMu.Unlock()
			if m := readyRE.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("waggle serve exited with %v after SIGTERM", err)
			}
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			t.Error("waggle serve did not exit within 20 s of SIGTERM")
		}
	})
	select {
	case u := <-urlc:
		return u
	case <-time.After(60 * time.Second):
		logMu.Lock()
		defer logMu.Unlock()
		t.Fatalf("no ready line; stderr:\n%s", logs.String())
	}
	return ""
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
