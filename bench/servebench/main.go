// Command servebench drives Waggle's server and llama-server with the same
// bounded load on loopback and compares what clients feel:
//
//	go run ./bench/servebench -llama-server /path/to/llama-server \
//	    -m ../bench-models/synth-llama3.2-1b-q4_0.gguf -t 2 -np 4,8 -clients 16,64
//
// For every -np it starts both servers with the same flags (-m, -t, -c,
// -np, -b, -ub), then for every client count runs -rounds rounds, each a
// wave on both servers in alternating order (ABBA). A wave is N clients
// that each send -requests streamed completions of -n tokens back to back
// (temperature 0, ignore_eos, a fixed seed per prompt, no prompt cache
// unless -cache-prompt). Per server it reports completion tokens per
// second of wall time, the median and p99 request latency (send to last
// byte) and time to first token (send to the first chunk with text), and
// the median over rounds of the per-round ratios waggle / llama-server.
//
// Before the waves it runs every distinct prompt alone on Waggle; every
// stream of every Waggle wave must equal its solo run (batch invariance:
// a sequence's output does not depend on what else is in the batch), or
// the tool exits non-zero after the table. llama-server's streams are
// not checked (llama.cpp does not promise batch invariance).
//
// -waggle-url and -llama-url use servers already running (their -np is
// whatever they were started with; give one -np to label the rows).
// Without -llama-server or -llama-url it drives Waggle alone; -only
// llama-server drives llama-server alone.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// config is the command line.
type config struct {
	llamaServer, waggle  string // binaries to start
	llamaURL, waggleURL  string // or servers already running
	model                string
	threads, ctx         int
	batch, ubatch        int
	parallel, clients    []int
	requests, nPredict   int
	prompts, promptWords int
	rounds               int
	cachePrompt          bool
	extraLlama           []string
	extraWaggle          []string
	markdown             bool
	only                 string // "waggle" or "llama-server": drive that side alone
	trace                string // CSV of every request, for completion-order analysis
	timeout              time.Duration
}

func main() {
	c := config{}
	var np, clients, extraL, extraW string
	flag.StringVar(&c.llamaServer, "llama-server", "", "path of a llama-server binary to start")
	flag.StringVar(&c.waggle, "waggle", "", "path of a waggle binary (default: go build ./cmd/waggle into a temporary folder)")
	flag.StringVar(&c.llamaURL, "llama-url", "", "use this running llama-server instead of starting one")
	flag.StringVar(&c.waggleURL, "waggle-url", "", "use this running waggle server instead of starting one")
	flag.StringVar(&c.model, "m", "", "GGUF model for both servers")
	flag.IntVar(&c.threads, "t", 2, "threads (-t of both servers)")
	flag.IntVar(&c.ctx, "c", 4096, "total context (-c of both servers)")
	flag.IntVar(&c.batch, "b", 2048, "-b of both servers")
	flag.IntVar(&c.ubatch, "ub", 512, "-ub of both servers")
	flag.StringVar(&np, "np", "4,8", "slot counts (-np), comma-separated")
	flag.StringVar(&clients, "clients", "16,64", "concurrent client counts, comma-separated")
	flag.IntVar(&c.requests, "requests", 2, "completions each client sends back to back per wave")
	flag.IntVar(&c.nPredict, "n", 128, "tokens per completion (max_tokens, with ignore_eos)")
	flag.IntVar(&c.prompts, "prompts", 16, "distinct prompts (each is run alone once for the equality check)")
	flag.IntVar(&c.promptWords, "prompt-words", 48, "words per prompt")
	flag.IntVar(&c.rounds, "rounds", 3, "alternating rounds per configuration")
	flag.BoolVar(&c.cachePrompt, "cache-prompt", false, "let the servers reuse cached prompt prefixes")
	flag.StringVar(&extraL, "llama-args", "", "extra llama-server arguments, space-separated")
	flag.StringVar(&extraW, "waggle-args", "", "extra waggle serve arguments, space-separated")
	flag.StringVar(&c.only, "only", "", "drive only this side: waggle or llama-server (no solo check without waggle)")
	flag.BoolVar(&c.markdown, "markdown", false, "print a docs/benchmarks.md section (date, commit, machine, command) around the table")
	flag.StringVar(&c.trace, "trace", "", "write every request's timings to this CSV file")
	flag.DurationVar(&c.timeout, "timeout", 30*time.Minute, "limit for one request")
	flag.Parse()
	var err error
	if c.parallel, err = intList(np); err == nil {
		c.clients, err = intList(clients)
	}
	c.extraLlama, c.extraWaggle = strings.Fields(extraL), strings.Fields(extraW)
	if err == nil {
		err = run(&c)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "servebench:", err)
		os.Exit(1)
	}
}

// intList parses "4,8" into [4 8]; every value must be positive.
func intList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("%q is not a list of positive integers", s)
		}
		out = append(out, v)
	}
	return out, nil
}

func (c *config) validate() error {
	starts := (c.waggleURL == "" && c.only != "llama-server") || (c.llamaServer != "" && c.llamaURL == "")
	switch {
	case c.only != "" && c.only != "waggle" && c.only != "llama-server":
		return fmt.Errorf("-only takes waggle or llama-server")
	case c.only == "llama-server" && c.llamaServer == "" && c.llamaURL == "":
		return fmt.Errorf("-only llama-server needs -llama-server or -llama-url")
	case c.model == "" && starts:
		return fmt.Errorf("need -m to start a server")
	case (c.waggleURL != "" || c.llamaURL != "") && len(c.parallel) != 1:
		return fmt.Errorf("with a running server give one -np (the one it was started with)")
	case c.requests <= 0 || c.nPredict <= 0 || c.prompts <= 0 || c.promptWords <= 0 || c.rounds <= 0:
		return fmt.Errorf("-requests, -n, -prompts, -prompt-words and -rounds must be positive")
	}
	return nil
}
