package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// server is one side of the comparison: its base URL, the HTTP client the
// load uses, and the process when this tool started it.
type server struct {
	name   string // "waggle" or "llama-server"
	url    string
	client *http.Client
	cmd    *exec.Cmd
	log    *tail
	exited chan struct{}
}

// newClient makes the load's HTTP client: a new loopback connection per
// request (well under a millisecond), because llama-server may close a
// kept-alive connection after a stream, and a POST on a connection the
// server has just closed fails with EOF instead of being retried.
func newClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true, DisableCompression: true}}
}

// attach uses a server that is already running.
func attach(name, url string) *server {
	return &server{name: name, url: url, client: newClient()}
}

// start runs bin with args plus --host and --port on a free loopback port
// and waits until /health answers 200.
func start(name, bin string, args []string, limit time.Duration) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args = append(args, "--host", "127.0.0.1", "--port", strconv.Itoa(port))
	s := &server{name: name, url: "http://127.0.0.1:" + strconv.Itoa(port), client: newClient(),
		log: &tail{max: 8 << 10}, exited: make(chan struct{})}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	fmt.Fprintf(os.Stderr, "servebench: starting %s %v\n", bin, args)
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	go func() { _ = s.cmd.Wait(); close(s.exited) }()
	if err := s.waitHealthy(limit); err != nil {
		s.stop()
		return nil, fmt.Errorf("%s: %w\n%s", name, err, s.log.String())
	}
	return s, nil
}

// waitHealthy polls GET /health until it answers 200 (llama-server answers
// 503 while it loads), the process exits, or limit passes.
func (s *server) waitHealthy(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return errors.New("exited before it was ready")
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", s.url+"/health", nil)
		resp, err := s.client.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		cancel()
		if err == nil && resp.StatusCode == http.StatusOK {
			return nil
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("not ready after %v", limit)
}

// stop ends a started server (SIGINT, then a kill after 10 s).
func (s *server) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// serverArgs are the flags both servers get: the same model, threads,
// context, slots and batch sizes.
func (c *config) serverArgs(np int) []string {
	return []string{"-m", c.model, "-t", strconv.Itoa(c.threads), "-c", strconv.Itoa(c.ctx),
		"-np", strconv.Itoa(np), "-b", strconv.Itoa(c.batch), "-ub", strconv.Itoa(c.ubatch)}
}

// buildWaggle builds cmd/waggle into dir (run from the repository root).
func buildWaggle(dir string) (string, error) {
	bin := filepath.Join(dir, "waggle")
	build := exec.Command("go", "build", "-o", bin, "./cmd/waggle")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		return "", fmt.Errorf("building waggle (run from the repository root or pass -waggle): %w", err)
	}
	return bin, nil
}

// tail keeps the last max bytes written to it: a server's log, shown when
// it fails to start.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
