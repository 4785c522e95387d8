package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/engine"
)

// TestGPUFlagsWithoutBackend: in a binary without a GPU backend (the
// default build), every command accepts the offload flags and keeps every
// layer on the CPU, as llama.cpp's CPU builds do; -ngl absent, 0 or auto
// and --device none are silent, -ngl N > 0 and -ngl all are named in a
// warning that says how to build a binary with a backend. Bad -ngl values
// are errors. The engine itself refuses GPU layers (ErrNoOffload).
func TestGPUFlagsWithoutBackend(t *testing.T) {
	if b := engine.OffloadBackend(); b != "" {
		t.Skipf("this binary has the %s backend", b)
	}
	for _, tc := range []struct {
		args  []string
		quiet bool
	}{
		{nil, true}, {[]string{"-ngl", "0"}, true}, {[]string{"--n-gpu-layers=auto"}, true},
		{[]string{"-ngl", "99", "--device", "none"}, true},
		{[]string{"-ngl", "1"}, false}, {[]string{"--gpu-layers", "all"}, false}, {[]string{"-ngl=33"}, false},
	} {
		for _, cmd := range []string{"run", "perplexity", "bench", "serve"} {
			args := append([]string{cmd}, tc.args...)
			if cmd == "bench" {
				args = append(args, "-m", "cli_test.go")
			}
			c, err := parseCLI(t, args...)
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			g := gpuFlagsOf(c, cmd)
			var o engine.SessionOptions
			if err := g.apply(&o); err != nil || o.GPULayers != 0 {
				t.Errorf("%v: GPU layers %d, error %v; want 0 and no error", args, o.GPULayers, err)
			}
			notes := strings.Join(g.ignored(), "\n")
			switch {
			case tc.quiet && notes != "":
				t.Errorf("%v: warns %q", args, notes)
			case !tc.quiet && !strings.Contains(notes, "-tags vulkan"):
				t.Errorf("%v: warning %q does not say how to build with GPU support", args, notes)
			}
			if cmd == "serve" && !tc.quiet && !strings.Contains(strings.Join(c.Serve.ignored(), "\n"), "-ngl") {
				t.Errorf("%v: serve's start-up log does not name -ngl", args)
			}
		}
	}
	for _, bad := range []string{"-1x", "many", "-5"} {
		g := gpuFlags{GPULayers: bad}
		if err := g.apply(&engine.SessionOptions{}); err == nil {
			t.Errorf("-ngl %q: no error", bad)
		}
	}
	// The engine refuses GPU layers without a backend, for callers that
	// bypass the flags.
	l, err := engine.LoadBytes(demoModel())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if _, err := l.Model.NewSession(engine.SessionOptions{GPULayers: 2}); !errors.Is(err, engine.ErrNoOffload) {
		t.Errorf("NewSession with GPU layers: %v, want ErrNoOffload", err)
	}
}

// gpuFlagsOf returns the command's offload flags.
func gpuFlagsOf(c *cli, cmd string) *gpuFlags {
	switch cmd {
	case "run":
		return &c.Run.gpuFlags
	case "perplexity":
		return &c.Perplexity.gpuFlags
	case "bench":
		return &c.Bench.gpuFlags
	}
	return &c.Serve.gpuFlags
}

// TestGPUFlagsDevice: --device wins over --main-gpu, which is an index.
func TestGPUFlagsDevice(t *testing.T) {
	for _, tc := range []struct {
		g    gpuFlags
		want string
	}{{gpuFlags{MainGPU: -1}, ""}, {gpuFlags{MainGPU: 1}, "1"}, {gpuFlags{Device: "Vulkan2", MainGPU: 1}, "Vulkan2"}} {
		var o engine.SessionOptions
		if err := tc.g.apply(&o); err != nil || o.Device != tc.want {
			t.Errorf("%+v: device %q (%v), want %q", tc.g, o.Device, err, tc.want)
		}
	}
}
