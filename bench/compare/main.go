// Command compare measures Waggle against llama.cpp on the same models,
// side by side on the same machine:
//
//	go run ./bench/compare -llama-bench /path/to/llama-bench -m a.gguf [-m b.gguf] -t 2 -r 3
//
// For every round and model it runs `llama-bench -o json` and `waggle bench
// -o json` with the same -p, -n, -d, -t, -r and cache types, alternating
// which goes first (ABBA) so that drift in the machine's speed hits both
// alike. It prints a markdown table: per model and test the median t/s of
// each tool over the rounds, the median of the per-round ratios
// waggle/llama.cpp (the number to quote), for generation the weight bytes
// streamed per second (model bytes × t/s), also as a share of -bw, the
// machine's read bandwidth (bench/membw), and for prompt processing the
// integer operations per second (2 × parameters × t/s) as a share of
// -int8-peak. It never builds or fetches llama.cpp: give it a llama-bench.
//
// -suite runs every row of the performance targets (suite.go) against the
// llama.cpp binaries in -llama-bin and prints docs/benchmarks.md sections
// with the date, commit, machine and commands; -dry-run lists the commands
// without running them.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

type config struct {
	llamaBench string
	waggle     string
	models     []string
	threads    int
	reps       int
	rounds     int
	nPrompt    int
	nGen       int
	depth      int
	ctk, ctv   string
	llamaFA    string  // llama-bench -fa ("": its default)
	waggleFA   string  // waggle bench -fa ("": auto)
	depthFill  string  // waggle bench --depth-fill for -d > 0
	bandwidth  float64 // GB/s; 0: unknown
	int8Peak   float64 // GOPS; 0: unknown
	extraLlama []string
	markdown   bool

	suite    bool
	llamaBin string // folder with llama-bench and llama-server
	modelDir string
	sections []string
	dryRun   bool
	tools    string // folder with the built bench tools (suite)
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var c config
	var models multiFlag
	var extra, sections string
	flag.StringVar(&c.llamaBench, "llama-bench", "", "path of a llama-bench binary")
	flag.StringVar(&c.waggle, "waggle", "", "path of a waggle binary (default: go build ./cmd/waggle into a temporary folder)")
	flag.Var(&models, "m", "GGUF model (repeatable)")
	flag.IntVar(&c.threads, "t", 2, "threads for both tools")
	flag.IntVar(&c.reps, "r", 3, "repetitions inside each tool run (-r of both)")
	flag.IntVar(&c.rounds, "rounds", 3, "alternating rounds per model")
	flag.IntVar(&c.nPrompt, "p", 512, "prompt tokens (pp test; 0 skips)")
	flag.IntVar(&c.nGen, "n", 128, "generated tokens (tg test; 0 skips)")
	flag.IntVar(&c.depth, "d", 0, "tokens already in the context (-d of both)")
	flag.StringVar(&c.ctk, "ctk", "", "KV cache type for keys (-ctk of both; default f16)")
	flag.StringVar(&c.ctv, "ctv", "", "KV cache type for values (-ctv of both; default f16)")
	flag.StringVar(&c.llamaFA, "llama-fa", "", "llama-bench -fa value (default: llama-bench's)")
	flag.StringVar(&c.waggleFA, "waggle-fa", "", "waggle bench -fa value (default: auto)")
	flag.StringVar(&c.depthFill, "depth-fill", "random", "waggle bench --depth-fill for -d (random: the same attention cost without the prefill)")
	flag.Float64Var(&c.bandwidth, "bw", 0, "read bandwidth of this machine in GB/s (bench/membw), for the tg share column (0: omit; -suite measures it)")
	flag.Float64Var(&c.int8Peak, "int8-peak", 0, "int8 multiply-add peak of this machine in GOPS, for the pp share column (0: omit)")
	flag.StringVar(&extra, "llama-args", "", "extra arguments for llama-bench, space-separated")
	flag.BoolVar(&c.markdown, "markdown", false, "print the date, commit, machine and command above the table")
	flag.BoolVar(&c.suite, "suite", false, "run every row of the performance targets (see -sections)")
	flag.StringVar(&c.llamaBin, "llama-bin", "", "-suite: folder holding llama-bench and llama-server")
	flag.StringVar(&c.modelDir, "models", filepath.Join("..", "bench-models"), "-suite: folder holding the bench/gen models")
	flag.StringVar(&sections, "sections", strings.Join(allSections, ","), "-suite: sections to run, comma-separated")
	flag.BoolVar(&c.dryRun, "dry-run", false, "-suite: print the commands instead of running them")
	flag.Parse()
	c.models, c.extraLlama, c.sections = models, strings.Fields(extra), strings.Split(sections, ",")
	var err error
	if c.suite {
		err = runSuite(&c)
	} else {
		err = run(&c)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

// run is the plain mode: one case per -m with the command line's settings.
func run(c *config) error {
	if c.llamaBench == "" || len(c.models) == 0 {
		return fmt.Errorf("need -llama-bench and at least one -m (or -suite)")
	}
	cleanup, err := c.buildTools(false)
	if err != nil {
		return err
	}
	defer cleanup()
	var cases []benchCase
	for _, m := range c.models {
		cases = append(cases, c.caseFor(m))
	}
	if c.markdown {
		provenance(os.Stdout)
	}
	sums, err := c.measure(cases)
	if err != nil {
		return err
	}
	printTable(os.Stdout, sums, c)
	return nil
}

// caseFor is model m with the command line's test settings.
func (c *config) caseFor(m string) benchCase {
	return benchCase{model: m, threads: c.threads, p: c.nPrompt, n: c.nGen, d: c.depth,
		ctk: c.ctk, ctv: c.ctv, llamaFA: c.llamaFA, waggleFA: c.waggleFA, reps: c.reps}
}

// buildTools builds waggle (unless -waggle) and, for the suite, the bench
// tools it runs, into a temporary folder; the returned func removes it.
func (c *config) buildTools(suite bool) (func(), error) {
	if c.waggle != "" && !suite {
		return func() {}, nil
	}
	dir, err := os.MkdirTemp("", "waggle-compare")
	if err != nil {
		return nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }
	pkgs := []string{"./cmd/waggle"}
	if suite {
		pkgs = append(pkgs, "./bench/membw", "./bench/servebench", "./bench/specbench")
		c.tools = dir
	}
	waggle := c.waggle
	if c.waggle == "" {
		c.waggle = filepath.Join(dir, "waggle")
	}
	if c.dryRun {
		return cleanup, nil
	}
	if waggle != "" {
		pkgs = pkgs[1:] // -waggle given: build only the bench tools
	}
	if len(pkgs) == 0 {
		return cleanup, nil
	}
	build := exec.Command("go", append([]string{"build", "-o", dir + string(filepath.Separator)}, pkgs...)...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		cleanup()
		return nil, fmt.Errorf("building %v (run from the repository root or pass -waggle): %w", pkgs, err)
	}
	return cleanup, nil
}

// benchCase is one side-by-side measurement: one model and one set of
// test settings given to both tools.
type benchCase struct {
	section  string // the table it belongs to (suite); "" for the plain table
	model    string
	threads  int
	p, n, d  int
	ctk, ctv string // "": f16
	llamaFA  string
	waggleFA string
	reps     int
}

// llamaArgs are llama-bench's arguments for the case.
func (b *benchCase) llamaArgs(extra []string) []string {
	args := append(b.common(), "-o", "json")
	if b.llamaFA != "" {
		args = append(args, "-fa", b.llamaFA)
	}
	return append(args, extra...)
}

// waggleArgs are waggle bench's arguments for the case.
func (b *benchCase) waggleArgs(fill string) []string {
	args := append([]string{"bench"}, b.common()...)
	args = append(args, "-o", "json")
	if b.waggleFA != "" {
		args = append(args, "-fa", b.waggleFA)
	}
	if b.d > 0 && fill != "" {
		args = append(args, "--depth-fill", fill)
	}
	return args
}

func (b *benchCase) common() []string {
	args := []string{"-m", b.model, "-p", strconv.Itoa(b.p), "-n", strconv.Itoa(b.n),
		"-t", strconv.Itoa(b.threads), "-r", strconv.Itoa(b.reps)}
	if b.d > 0 {
		args = append(args, "-d", strconv.Itoa(b.d))
	}
	if b.ctk != "" {
		args = append(args, "-ctk", b.ctk)
	}
	if b.ctv != "" {
		args = append(args, "-ctv", b.ctv)
	}
	return args
}

// cache names the case's KV cache types for the table.
func (b *benchCase) cache() string {
	k, v := b.ctk, b.ctv
	if k == "" {
		k = "f16"
	}
	if v == "" {
		v = "f16"
	}
	if k == v {
		return k
	}
	return k + "/" + v
}
