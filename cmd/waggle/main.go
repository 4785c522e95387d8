// Command waggle runs GGUF language models on the CPU: generate text, print
// logits for parity checks, inspect and tokenize files.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/alecthomas/kong"

	_ "github.com/waggle-llm/waggle/engine/models/all"
)

// cli is the command tree; each command is a struct with a Run method.
type cli struct {
	Serve      serveCmd      `cmd:"" help:"Serve an OpenAI-compatible HTTP API (like llama-server)."`
	Run        runCmd        `cmd:"" help:"Generate text from a prompt."`
	Diffuse    diffuseCmd    `cmd:"" help:"Generate with a diffusion model (dream, llada): llama-diffusion-cli's command line."`
	Logits     logitsCmd     `cmd:"" help:"Evaluate tokens as one batch and print the top logits of every position."`
	Inspect    inspectCmd    `cmd:"" help:"Print a GGUF file's metadata and tensor table."`
	Tokenize   tokenizeCmd   `cmd:"" help:"Tokenize text with a model's vocabulary (like llama-tokenize)."`
	Quantize   quantizeCmd   `cmd:"" help:"Quantize a GGUF model like llama-quantize (no imatrix): Q4_0 … Q8_0, Q2_K … Q6_K, Q4_K_M, F16."`
	Bench      benchCmd      `cmd:"" help:"Measure prompt processing and generation speed (llama-bench's rows)."`
	Perplexity perplexityCmd `cmd:"" help:"Perplexity of a model on a text, and KL divergence against a base run (like llama-perplexity)."`
	Devices    devicesCmd    `cmd:"" help:"List the GPUs an -ngl run can use (llama.cpp's --list-devices)."`
	Health     healthCmd     `cmd:"" help:"Exit 0 when a server's /health answers 200 (for container health checks)."`
	Version    versionCmd    `cmd:"" help:"Print the version (-v: the build, the CPU and the kernels each family runs)."`
}

func main() {
	var c cli
	parser := kong.Must(&c,
		kong.Name("waggle"),
		kong.Description("Waggle: a pure-Go LLM inference engine for GGUF models."),
		kong.UsageOnError(),
		kong.ExplicitGroups(helpGroups),
		kong.ValueFormatter(helpWithShortFlags),
	)
	ctx, err := parser.Parse(normalizeArgs(os.Args[1:]))
	parser.FatalIfErrorf(err)
	if err := ctx.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "waggle:", err)
		os.Exit(1)
	}
}

// stdout and stderr are where commands write; tests replace them.
var (
	stdout io.Writer = os.Stdout
	stderr io.Writer = os.Stderr
)

// version is set at link time (-ldflags "-X main.version=...").
var version = "dev"
