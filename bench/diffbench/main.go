// Command diffbench measures diffusion decoding: denoising steps per second
// and canvas tokens per second of `waggle diffuse` at several canvas sizes,
// with the prefix keys and values recomputed every step and cached per
// block, side by side with llama-diffusion-cli running the same command
// line:
//
//	go build -o /tmp/waggle ./cmd/waggle
//	go run ./bench/diffbench -waggle /tmp/waggle \
//	    -llama-diffusion-cli /path/to/llama-diffusion-cli \
//	    -m ../bench-models/synth-dream-0.5b-q8_0.gguf -canvas 32,64,128 -t 2 -rounds 3
//
// Every run is one process of each tool with the timestep schedule, one
// step per canvas position and greedy candidates (--top-k 1), so both do
// the same work; the figures are the generation loop's own timing lines
// (model loading excluded). Within a round the variants run one after the
// other in an order that alternates between rounds (ABC, CBA, …); the
// table gives each variant's median and the median of the per-round
// ratios to llama-diffusion-cli.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/chat"
	_ "github.com/waggle-llm/waggle/engine/models/all"
)

func main() {
	waggle := flag.String("waggle", "waggle", "waggle binary")
	llama := flag.String("llama-diffusion-cli", "", "llama-diffusion-cli binary (empty: waggle only)")
	model := flag.String("m", "", "GGUF diffusion model (required)")
	canvases := flag.String("canvas", "32,64,128", "canvas sizes (comma-separated)")
	promptWords := flag.Int("prompt-words", 100, "words in the prompt (a fixed text, cut to this many words)")
	threads := flag.Int("t", 2, "threads")
	rounds := flag.Int("rounds", 3, "rounds (each runs every variant once per canvas)")
	perStep := flag.Int("tokens-per-step", 1, "canvas positions unmasked per step (steps = canvas / this)")
	inProcess := flag.Bool("inprocess", false, "instead: prefix recomputed vs cached in this process, by CPU time in alternating pairs (-rounds pairs)")
	flag.Parse()
	var err error
	if *inProcess {
		err = runInProcess(*model, *canvases, *promptWords, *threads, *rounds, *perStep)
	} else {
		err = run(*waggle, *llama, *model, *canvases, *promptWords, *threads, *rounds, *perStep)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "diffbench:", err)
		os.Exit(1)
	}
}

// variant is one way of running a canvas: a tool and its extra flags.
type variant struct {
	name string
	bin  string
	args []string
}

func run(waggle, llama, model, canvasList string, words, threads, rounds, perStep int) error {
	if model == "" || perStep < 1 || rounds < 1 {
		return fmt.Errorf("-m is required; -tokens-per-step and -rounds must be positive")
	}
	text := promptText(words)
	nPrompt, err := promptTokens(model, text)
	if err != nil {
		return err
	}
	vs := []variant{{"waggle", waggle, []string{"diffuse"}}, {"waggle cached", waggle, []string{"diffuse", "--diffusion-cache-prefix"}}}
	if llama != "" {
		vs = append(vs, variant{"llama.cpp", llama, nil})
	}
	fmt.Printf("model %s, prompt %d tokens, %d threads, %d rounds, %d canvas tokens per step\n\n", model, nPrompt, threads, rounds, perStep)
	fmt.Printf("| canvas | variant | ms/step | steps/s | canvas tokens/s | vs llama.cpp |\n| ---: | --- | ---: | ---: | ---: | ---: |\n")
	cs, err := parseCanvases(canvasList)
	if err != nil {
		return err
	}
	for _, c := range cs {
		if err := benchCanvas(vs, model, text, nPrompt, c, max(1, c/perStep), threads, rounds); err != nil {
			return err
		}
	}
	return nil
}

// benchCanvas runs every variant rounds times on a canvas of c with steps
// steps and prints its rows.
func benchCanvas(vs []variant, model, text string, nPrompt, c, steps, threads, rounds int) error {
	n := nPrompt + c
	common := []string{"-m", model, "-p", text, "-ub", strconv.Itoa(n), "-b", strconv.Itoa(n), "-c", strconv.Itoa(n),
		"-t", strconv.Itoa(threads), "-fa", "off", "--diffusion-steps", strconv.Itoa(steps), "--diffusion-eps", "0.001",
		"--diffusion-algorithm", "4", "--top-k", "1", "--seed", "1"}
	ms := make([][]float64, len(vs)) // per variant: total ms per round
	for r := range rounds {
		order := make([]int, len(vs))
		for i := range order {
			order[i] = i
		}
		if r%2 == 1 {
			slices.Reverse(order)
		}
		for _, i := range order {
			t, err := timeRun(vs[i], common)
			if err != nil {
				return fmt.Errorf("%s, canvas %d: %w", vs[i].name, c, err)
			}
			ms[i] = append(ms[i], t)
		}
	}
	last := len(vs) - 1
	for i, v := range vs {
		med := median(ms[i])
		ratio := "–"
		if vs[last].name == "llama.cpp" && i != last {
			rs := make([]float64, rounds)
			for r := range rs {
				rs[r] = ms[last][r] / ms[i][r] // speed ratio: > 1 is faster than llama.cpp
			}
			ratio = fmt.Sprintf("%.2f×", median(rs))
		}
		fmt.Printf("| %d | %s | %.1f | %.2f | %.1f | %s |\n", c, v.name, med/float64(steps), float64(steps)/med*1000, float64(c)/med*1000, ratio)
	}
	return nil
}

// totalRE matches the timing line both tools print on stderr.
var totalRE = regexp.MustCompile(`total time: ([0-9.]+)ms`)

// timeRun runs one variant and returns its generation loop's total time.
func timeRun(v variant, common []string) (float64, error) {
	cmd := exec.Command(v.bin, append(append([]string(nil), v.args...), common...)...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = nil, &stderr
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%v: %s", err, tail(stderr.String()))
	}
	m := totalRE.FindStringSubmatch(stderr.String())
	if m == nil {
		return 0, fmt.Errorf("no timing line in: %s", tail(stderr.String()))
	}
	return strconv.ParseFloat(m[1], 64)
}

func tail(s string) string { return s[max(0, len(s)-400):] }

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

// promptText is the first n words of a fixed story, repeated as needed.
func promptText(n int) string {
	base := strings.Fields("Once upon a time there was a little girl named Lily who lived in a small house near the woods with her mother her father and a big brown dog called Max and every morning she walked to the river to look at the fish and the birds and the tall green trees")
	out := make([]string, n)
	for i := range out {
		out[i] = base[i%len(base)]
	}
	return strings.Join(out, " ")
}

// runInProcess parses the canvas list and runs pairedCache.
func runInProcess(model, canvasList string, words, threads, pairs, perStep int) error {
	if model == "" || perStep < 1 || pairs < 1 {
		return fmt.Errorf("-m is required; -tokens-per-step and -rounds must be positive")
	}
	cs, err := parseCanvases(canvasList)
	if err != nil {
		return err
	}
	return pairedCache(model, promptText(words), cs, threads, pairs, perStep)
}

func parseCanvases(list string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(list, ",") {
		c, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || c < 1 {
			return nil, fmt.Errorf("bad canvas %q", f)
		}
		out = append(out, c)
	}
	return out, nil
}

// promptTokens counts the tokens both tools feed the model (chatTokens).
func promptTokens(model, text string) (int, error) {
	l, err := engine.LoadFile(model)
	if err != nil {
		return 0, err
	}
	defer l.Close()
	ids, err := chatTokens(l, text)
	return len(ids), err
}

// chatTokens is what llama-diffusion-cli feeds the model: the text as a
// user message through the model's chat template (ChatML without one),
// tokenized with special tokens.
func chatTokens(l *engine.Loaded, text string) ([]int32, error) {
	src, _ := l.File.String("tokenizer.chat_template")
	if src == "" {
		src = chat.DefaultName
	}
	tmpl, err := chat.Parse(src)
	if err != nil {
		return nil, err
	}
	tok := l.Tokenizer
	bos := tok.Piece(tok.BOS(), true)
	s, err := tmpl.Render(chat.Inputs{Messages: []chat.Message{{Role: "user", Content: text}}, AddGenerationPrompt: true, BOS: bos})
	if err != nil {
		return nil, err
	}
	if tok.AddBOS() && bos != "" {
		s = strings.TrimPrefix(s, bos)
	}
	return tok.Encode(s, true, true), nil
}
