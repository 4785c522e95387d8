package main

import (
	"strings"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/waggle-llm/waggle/engine"
)

// parseCLI parses args (llama.cpp's short flags allowed) without running
// the command.
func parseCLI(t *testing.T, args ...string) (*cli, error) {
	t.Helper()
	var c cli
	parser, err := kong.New(&c, kong.Name("waggle"), kong.Exit(func(int) { t.Fatalf("kong exited on %v", args) }))
	if err != nil {
		t.Fatal(err)
	}
	_, err = parser.Parse(normalizeArgs(args))
	return &c, err
}

// TestFlashAttnFlag: -fa / --flash-attn (and LLAMA_ARG_FLASH_ATTN) of run,
// perplexity, bench and serve reach the session's options: on for llama.cpp's
// truthy values, off for its falsy ones and for auto (the default), and a
// value that is none of them is an error.
func TestFlashAttnFlag(t *testing.T) {
	l, err := engine.LoadBytes(demoModel())
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for _, tc := range []struct {
		args []string
		want bool
	}{{nil, false}, {[]string{"-fa", "on"}, true}, {[]string{"--flash-attn=1"}, true}, {[]string{"-fa=enabled"}, true},
		{[]string{"-fa", "off"}, false}, {[]string{"--flash-attn", "auto"}, false}} {
		for _, cmd := range []string{"run", "perplexity", "bench", "serve"} {
			args := append([]string{cmd}, tc.args...)
			if cmd == "bench" {
				args = append(args, "-m", "cli_test.go") // bench requires an existing file; it is not read here
			}
			c, err := parseCLI(t, args...)
			if err != nil {
				t.Fatalf("%v: %v", args, err)
			}
			if got := flashOf(t, c, cmd, l); got != tc.want {
				t.Errorf("%v: session FlashAttn %v, want %v", args, got, tc.want)
			}
		}
	}
	t.Setenv("LLAMA_ARG_FLASH_ATTN", "on")
	if c, err := parseCLI(t, "serve"); err != nil || !flashOf(t, c, "serve", l) {
		t.Errorf("LLAMA_ARG_FLASH_ATTN=on: serve gets %v (%v)", err == nil && flashOf(t, c, "serve", l), err)
	}
	if _, err := parseFlashAttn("sometimes"); err == nil || !strings.Contains(err.Error(), "flash-attn") {
		t.Errorf("bad value: %v", err)
	}
}

// flashOf builds what the command builds from its flags and returns the
// FlashAttn its session gets.
func flashOf(t *testing.T, c *cli, cmd string, l *engine.Loaded) bool {
	t.Helper()
	var s engine.Session
	var err error
	switch cmd {
	case "run", "perplexity":
		f := &c.Run.modelFlags
		if cmd == "perplexity" {
			f = &c.Perplexity.modelFlags
		}
		var ld *engine.Loaded
		ld, s, err = f.open() // no -m: the demo network
		if err == nil {
			defer ld.Close()
		}
	case "bench":
		c.Bench.Prompt, c.Bench.Gen = 4, 0
		s, err = c.Bench.session(l.Model)
	case "serve":
		cfg, err := c.Serve.config(l)
		if err != nil {
			t.Fatal(err)
		}
		return cfg.Session.FlashAttn
	}
	if err != nil {
		t.Fatal(err)
	}
	return s.Options().FlashAttn
}
