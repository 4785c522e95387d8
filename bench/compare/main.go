// Command compare measures Waggle against llama.cpp on the same models,
// side by side on the same machine:
//
//	go run ./bench/compare -llama-bench /path/to/llama-bench -m a.gguf [-m b.gguf] -t 2 -r 3
//
// For every round and model it runs `llama-bench -o json` and `waggle bench
// -o json` with the same -p, -n, -t and -r, alternating which goes first
// (ABBA) so that drift in the machine's speed hits both alike. It prints a
// markdown table: per model and test the median t/s of each tool over the
// rounds, the median of the per-round ratios waggle/llama.cpp (the number
// to quote), and for generation the weight bytes streamed per second
// (model bytes × t/s), also as a share of -bw, the machine's memory
// bandwidth. It never builds or fetches llama.cpp: give it a llama-bench.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
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
	bandwidth  float64 // GB/s; 0: unknown
	extraLlama []string
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	var c config
	var models multiFlag
	var extra string
	flag.StringVar(&c.llamaBench, "llama-bench", "", "path of a llama-bench binary (required)")
	flag.StringVar(&c.waggle, "waggle", "", "path of a waggle binary (default: go build ./cmd/waggle into a temporary folder)")
	flag.Var(&models, "m", "GGUF model (repeatable)")
	flag.IntVar(&c.threads, "t", 2, "threads for both tools")
	flag.IntVar(&c.reps, "r", 3, "repetitions inside each tool run (-r of both)")
	flag.IntVar(&c.rounds, "rounds", 3, "alternating rounds per model")
	flag.IntVar(&c.nPrompt, "p", 512, "prompt tokens (pp test; 0 skips)")
	flag.IntVar(&c.nGen, "n", 128, "generated tokens (tg test; 0 skips)")
	flag.Float64Var(&c.bandwidth, "bw", 0, "memory bandwidth of this machine in GB/s, for the share column (0: omit)")
	flag.StringVar(&extra, "llama-args", "", "extra arguments for llama-bench, space-separated")
	flag.Parse()
	c.models, c.extraLlama = models, strings.Fields(extra)
	if err := run(&c); err != nil {
		fmt.Fprintln(os.Stderr, "compare:", err)
		os.Exit(1)
	}
}

func run(c *config) error {
	if c.llamaBench == "" || len(c.models) == 0 {
		return fmt.Errorf("need -llama-bench and at least one -m")
	}
	if c.waggle == "" {
		dir, err := os.MkdirTemp("", "waggle-compare")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		c.waggle = filepath.Join(dir, "waggle")
		build := exec.Command("go", "build", "-o", c.waggle, "./cmd/waggle")
		build.Stdout, build.Stderr = os.Stderr, os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("building waggle (run from the repository root or pass -waggle): %w", err)
		}
	}
	var all []measurement
	for round := 0; round < c.rounds; round++ {
		for _, m := range c.models {
			ms, err := c.round(round, m)
			if err != nil {
				return err
			}
			all = append(all, ms...)
		}
	}
	printTable(os.Stdout, summarize(all), c)
	return nil
}

// round runs both tools once on model m, llama.cpp first on even rounds.
func (c *config) round(round int, m string) ([]measurement, error) {
	tools := []string{"llama.cpp", "waggle"}
	if round%2 == 1 {
		tools[0], tools[1] = tools[1], tools[0]
	}
	var out []measurement
	for _, tool := range tools {
		fmt.Fprintf(os.Stderr, "compare: round %d/%d: %s on %s\n", round+1, c.rounds, tool, filepath.Base(m))
		rows, err := c.runTool(tool, m)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			fmt.Fprintf(os.Stderr, "compare: round %d/%d: %s %s %.2f ± %.2f t/s\n", round+1, c.rounds, tool, r.test(), r.AvgTs, r.StddevTs)
			out = append(out, measurement{tool: tool, model: m, round: round, row: r})
		}
	}
	return out, nil
}

func (c *config) runTool(tool, model string) ([]benchRow, error) {
	args := []string{"-m", model, "-p", fmt.Sprint(c.nPrompt), "-n", fmt.Sprint(c.nGen),
		"-t", fmt.Sprint(c.threads), "-r", fmt.Sprint(c.reps), "-o", "json"}
	bin := c.llamaBench
	if tool == "waggle" {
		bin, args = c.waggle, append([]string{"bench"}, args...)
	} else {
		args = append(args, c.extraLlama...)
	}
	cmd := exec.Command(bin, args...)
	cmd.Stderr = nil // both tools log to stderr; keep the terminal readable
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", bin, strings.Join(args, " "), err)
	}
	return parseRows(out)
}
