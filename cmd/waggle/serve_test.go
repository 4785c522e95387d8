package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/server"
)

// writeGGUF writes a GGUF with the given architecture and metadata and no
// tensors.
func writeGGUF(t *testing.T, dir, name, arch string, kv map[string]gguf.Value) string {
	t.Helper()
	w := gguf.NewWriter(32)
	w.AddKV("general.architecture", gguf.StringValue(arch))
	for k, v := range kv {
		w.AddKV(k, v)
	}
	var b bytes.Buffer
	if _, err := w.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestServeUnloadableModel: `waggle serve -m FILE` on a file it cannot load
// returns one clear error line (main prints it and exits 1), never a panic.
func TestServeUnloadableModel(t *testing.T) {
	dir := t.TempDir()
	demo := demoModel()
	files := map[string]string{
		"missing":              filepath.Join(dir, "nope.gguf"),
		"unknown architecture": writeGGUF(t, dir, "arch.gguf", "no-such-arch", nil),
		"vocab only": writeGGUF(t, dir, "vocab.gguf", "llama", map[string]gguf.Value{
			"llama.embedding_length": gguf.Uint32Value(64), "llama.block_count": gguf.Uint32Value(2),
			"llama.feed_forward_length": gguf.Uint32Value(128), "llama.attention.head_count": gguf.Uint32Value(4),
			"tokenizer.ggml.model":  gguf.StringValue("llama"),
			"tokenizer.ggml.tokens": gguf.StringsValue([]string{"<unk>", "<s>", "</s>", "a"}),
		}),
	}
	for name, data := range map[string][]byte{
		"empty":     nil,
		"truncated": demo[:len(demo)/3],
		"random":    bytes.Repeat([]byte("\x47\x47\x55\x46\x03\x00\x00\x00\xff\x13\x37"), 99),
	} {
		p := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".gguf")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		files[name] = p
	}
	for name, path := range files {
		t.Run(name, func(t *testing.T) {
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("serve panicked: %v", r)
					}
				}()
				_, err = runCLI(t, "serve", "-m", path, "--port", "0")
			}()
			if err == nil {
				t.Fatal("serve succeeded")
			}
			t.Log(err)
			if msg := err.Error(); strings.Contains(msg, "\n") || msg == "" {
				t.Fatalf("error is not one line: %q", msg)
			}
		})
	}
}

// llamaServerLine is a llama-server command line as users copy it.
var llamaServerLine = strings.Fields("--jinja -ngl 99 -fa on -c 4096 -np 2 --alias my-model --metrics --slots --no-webui --log-disable --mlock -cb --threads-http 4 -tb 2 --no-mmap -lv 3 --chat-template-kwargs {} --temp 0.7 --top-k 20 -s 42")

// parseServeOK parses `waggle serve args…` as the binary does (help
// groups included), without running it, failing t on a parse error.
func parseServeOK(t *testing.T, args ...string) *serveCmd {
	t.Helper()
	var c cli
	parser, err := kong.New(&c, kong.Name("waggle"), kong.Exit(func(int) { t.Fatalf("kong exited on %v", args) }),
		kong.ExplicitGroups(helpGroups), kong.ValueFormatter(helpWithShortFlags))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := parser.Parse(normalizeArgs(append([]string{"serve"}, args...))); err != nil {
		t.Fatalf("%v: %v", args, err)
	}
	return &c.Serve
}

// TestServeAcceptsLlamaServerFlags: a llama-server command line parses
// unchanged, its meaningful flags reach the server's configuration, and the
// ones without effect are named in the log.
func TestServeAcceptsLlamaServerFlags(t *testing.T) {
	c := parseServeOK(t, llamaServerLine...)
	if c.Alias != "my-model" || c.CtxSize != 4096 || c.Parallel != 2 || c.FlashAttn != "on" || !c.LogDisable || c.WebUI {
		t.Fatalf("parsed %+v", c)
	}
	l, err := c.load(io.Discard, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	cfg, err := c.config(l)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.Session.FlashAttn || cfg.Parallel != 2 || cfg.Sampling.Temp != 0.7 || cfg.Sampling.TopK != 20 || cfg.Sampling.Seed != 42 {
		t.Fatalf("config %+v", cfg)
	}
	notes := strings.Join(c.ignored(), "\n")
	wants := []string{"--mlock", "--no-mmap", "-tb"}
	if engine.OffloadBackend() == "" {
		wants = append(wants, "-ngl") // with a GPU backend -ngl 99 takes effect
	}
	for _, want := range wants {
		if !strings.Contains(notes, want) {
			t.Errorf("no log line for %s in:\n%s", want, notes)
		}
	}
	if got := parseServeOK(t).ignored(); len(got) != 0 {
		t.Errorf("defaults logged as ignored: %v", got)
	}
}

// TestServeHelpGroups: --help lists the flags in llama-server's groups
// and shows llama.cpp's short forms.
func TestServeHelpGroups(t *testing.T) {
	var c cli
	var out bytes.Buffer
	parser, err := kong.New(&c, kong.Name("waggle"), kong.Writers(&out, &out), kong.Exit(func(int) {}),
		kong.ExplicitGroups(helpGroups), kong.ValueFormatter(helpWithShortFlags))
	if err != nil {
		t.Fatal(err)
	}
	parser.Parse([]string{"serve", "--help"})
	help := out.String()
	last := -1
	for _, g := range helpGroups {
		i := strings.Index(help, "\n"+g.Title+"\n")
		if i < last {
			t.Errorf("group %q missing or out of order", g.Title)
		}
		last = i
	}
	for _, want := range []string{"(-np) Slots", "(-ngl) Layers to run on the GPU", "(-fa) on, off", "(-cb, -nocb)", "--[no-]slots"} {
		if !strings.Contains(help, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
}

// TestModelIDIsFileName: the API names the model by --alias or the file
// name, never the path.
func TestModelIDIsFileName(t *testing.T) {
	for _, c := range []struct{ alias, path, want string }{
		{"", "/models/sub/Qwen3-0.6B-Q8_0.gguf", "Qwen3-0.6B-Q8_0.gguf"},
		{"my-model,other", "/models/x.gguf", "my-model"},
	} {
		cmd := parseServeOK(t, "--alias", c.alias)
		l, err := cmd.load(io.Discard, 0)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := cmd.config(l)
		if err != nil {
			t.Fatal(err)
		}
		cfg.ModelPath = c.path
		srv, err := server.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if got := srv.ModelID(); got != c.want {
			t.Errorf("alias %q path %q: model id %q, want %q", c.alias, c.path, got, c.want)
		}
		srv.Shutdown(context.Background())
		l.Close()
	}
}

// TestPprofListener: --pprof serves net/http/pprof on a listener of its
// own; it is off by default.
func TestPprofListener(t *testing.T) {
	if c := parseServeOK(t); c.Pprof != "" {
		t.Fatalf("--pprof defaults to %q", c.Pprof)
	}
	addr, stop, err := servePprof("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	resp, err := http.Get("http://" + addr + "/debug/pprof/goroutine?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "goroutine") {
		t.Fatalf("%d %.200s", resp.StatusCode, body)
	}
}

// TestLoadProgress: loading reports the bytes touched as a percent and
// ends its line; off a terminal it writes that one final line.
func TestLoadProgress(t *testing.T) {
	var out bytes.Buffer
	l, err := loadWithProgress(&out, model(t, "stories260K-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if s := out.String(); strings.Count(s, "\n") != 1 || !strings.HasSuffix(s, "\n") || !strings.Contains(s, "100% of 1.1 MiB") || strings.Contains(s, "\r") {
		t.Fatalf("progress output %q", s)
	}
	var total, last int64
	for i := range l.File.Tensors {
		total += l.File.Tensors[i].Size
	}
	touchWeights(l, func(done int64) {
		if done < last {
			t.Fatalf("progress went back from %d to %d", last, done)
		}
		last = done
	})
	if last != total {
		t.Fatalf("touched %d of %d bytes", last, total)
	}
}
