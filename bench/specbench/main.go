// Command specbench measures speculative decoding against plain decoding:
// for each model, prompt kind and strategy it runs `waggle run --json`
// alternately with and without speculation (ABAB…, the order flipped every
// round) and prints a markdown table: median tokens/s of each, the median
// of the per-round ratios, drafted and accepted tokens and the acceptance
// rate. Greedy output must be identical; a difference is reported.
//
//	go run ./bench/specbench -t 1 -n 128 -rounds 3 \
//	    -m ../bench-models/synth-llama3.2-1b-q4_0.gguf:../shared/models/synth-llama3-tiny-q4_k_m.gguf \
//	    -m ../shared/models/stories260K-f32.gguf:../shared/models/synth-llama-tiny-q4_0.gguf
//
// A model given as target:draft also runs draft-simple with that draft
// model (same vocabulary, random weights: its drafts are nearly all wrong,
// and --spec-draft-p-min 0 makes it draft anyway).
//
// Two prompt kinds: "repeating" (copy-and-edit text whose greedy
// continuation repeats) and "rejecting" (a story opening whose continuation
// does not copy the prompt: drafts that are proposed are mostly rejected;
// the acceptance column shows how much). Adaptive depth must keep the speed
// within 5% of plain on the rejecting kind.
//
// -verify-cost instead measures the key figure behind every ratio: the
// time of one target Decode of k+1 tokens against a one-token Decode.
//
// -dflash-cost measures DFlash cycles (flat depths 4, 8, 16 and DDTrees
// of 8, 16, 32 nodes) against plain steps on each -m model, in process
// with paired rounds (dflashcost.go), and the speed-up at the acceptance
// the trained stories260K drafter measures at the same settings:
//
//	go run ./bench/specbench -dflash-cost -t 2 -rounds 40 -m ../bench-models/synth-llama3.2-1b-q4_0.gguf
//
// -eagle3-cost does the same for EAGLE-3 cycles, chains of depth 1, 2, 3
// and 5 and trees of 9 and 16 nodes (eagle3cost.go), with the trained
// stories260K EAGLE-3 drafter's acceptance:
//
//	go run ./bench/specbench -eagle3-cost -drafter-type f16 -t 2 -rounds 40 -m ../bench-models/synth-llama3.2-1b-q4_0.gguf
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

type modelList []string

func (m *modelList) String() string     { return strings.Join(*m, ",") }
func (m *modelList) Set(s string) error { *m = append(*m, s); return nil }

// result is the part of `waggle run --json` this tool reads.
type result struct {
	Tokens  []int32 `json:"tokens"`
	Timings struct {
		PredictedPerSecond float64 `json:"predicted_per_second"`
		DraftN             int     `json:"draft_n"`
		DraftNAccepted     int     `json:"draft_n_accepted"`
	} `json:"timings"`
}

var prompts = map[string]string{
	"repeating": "The report said: the system restarts at noon, the backup runs at one, the audit runs at two. " +
		"Copy it exactly. The report said: the system restarts at noon, the backup runs at one, the audit runs at two.",
	"rejecting": "Once upon a time there was a little girl named Lily. She loved to play outside in the park with her friends.",
}

func main() {
	var models modelList
	flag.Var(&models, "m", "model file (repeat for several)")
	waggle := flag.String("waggle", "", "waggle binary (default: build ./cmd/waggle)")
	threads := flag.Int("t", 2, "threads")
	n := flag.Int("n", 128, "tokens to generate")
	rounds := flag.Int("rounds", 3, "interleaved rounds")
	types := flag.String("types", "ngram-simple,ngram-map-k,ngram-map-k4v,ngram-mod,ngram-cache,copyspec,suffix,recycle,draft-simple", "strategies, comma-separated (draft-simple only for a target:draft model)")
	kinds := flag.String("kinds", "repeating,rejecting", "prompt kinds, comma-separated")
	adaptiveFlag := flag.String("adaptive", "both", "off, on or both")
	draftMax := flag.Int("draft-max", 16, "--draft-max (depth of ngram-cache, copyspec, suffix, recycle) and --spec-draft-n-max")
	vc := flag.Bool("verify-cost", false, "only measure the Decode time of k+1 tokens against 1 token")
	dc := flag.Bool("dflash-cost", false, "only measure DFlash cycles (flat and DDTree) against plain steps, paired in process")
	ec := flag.Bool("eagle3-cost", false, "only measure EAGLE-3 cycles against plain steps, paired in process")
	draftType := flag.String("drafter-type", "q4_0", "-dflash-cost, -eagle3-cost: the random drafter's matrix type (f32, f16, q8_0, q4_0, …)")
	shared := filepath.Join("..", "shared", "models")
	accept := flag.String("accept", filepath.Join(shared, "goldens-trained-drafters", "acceptance.json"), "-dflash-cost: prompts for the measured acceptance (empty: none)")
	tauTarget := flag.String("tau-target", filepath.Join(shared, "stories260K-f32.gguf"), "-dflash-cost: target of the acceptance runs")
	tauDrafter := flag.String("tau-drafter", filepath.Join(shared, "drafters", "stories260K-dflash-b16-f32.gguf"), "-dflash-cost: trained drafter of the acceptance runs")
	tauEagle3 := flag.String("tau-eagle3-drafter", filepath.Join(shared, "drafters", "stories260K-eagle3-f32.gguf"), "-eagle3-cost: trained drafter of the acceptance runs")
	flag.Parse()
	if len(models) == 0 {
		fail(fmt.Errorf("give at least one -m"))
	}
	if *dc {
		for _, m := range models {
			if err := dflashCost(m, *draftType, *threads, max(*rounds, 5), *accept, *tauTarget, *tauDrafter); err != nil {
				fail(err)
			}
		}
		return
	}
	if *ec {
		for _, m := range models {
			if err := eagle3Cost(m, *draftType, *threads, max(*rounds, 5), *accept, *tauTarget, *tauEagle3); err != nil {
				fail(err)
			}
		}
		return
	}
	if *vc {
		for _, m := range models {
			if err := verifyCost(m, prompts["repeating"], *threads, max(*rounds, 5), verifyKs); err != nil {
				fail(err)
			}
		}
		return
	}
	if *waggle == "" {
		dir, err := os.MkdirTemp("", "specbench")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(dir)
		*waggle = filepath.Join(dir, "waggle")
		if out, err := exec.Command("go", "build", "-o", *waggle, "./cmd/waggle").CombinedOutput(); err != nil {
			fail(fmt.Errorf("building waggle: %v\n%s", err, out))
		}
	}
	var modes []bool
	switch *adaptiveFlag {
	case "off":
		modes = []bool{false}
	case "on":
		modes = []bool{true}
	case "both":
		modes = []bool{false, true}
	default:
		fail(fmt.Errorf("-adaptive must be off, on or both"))
	}
	fmt.Printf("greedy, %d tokens, %d threads, %d interleaved rounds, --draft-max %d; ratio = median of per-round (speculative t/s ÷ plain t/s), min–max in brackets\n\n", *n, *threads, *rounds, *draftMax)
	fmt.Println("| model | prompt | strategy | adaptive | plain t/s | spec t/s | speed vs plain | drafted | accepted | acceptance | output identical |")
	fmt.Println("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
	for _, mm := range models {
		m, draft, _ := strings.Cut(mm, ":")
		for _, kind := range strings.Split(*kinds, ",") {
			for _, typ := range strings.Split(*types, ",") {
				if typ == "draft-simple" && draft == "" {
					continue
				}
				for _, adaptive := range modes {
					row, err := measure(*waggle, m, draft, prompts[kind], typ, adaptive, *threads, *n, *rounds, *draftMax)
					if err != nil {
						fail(err)
					}
					fmt.Printf("| %s | %s | %s | %v | %s |\n", strings.TrimSuffix(filepath.Base(m), ".gguf"), kind, typ, adaptive, row)
				}
			}
		}
	}
}

// measure alternates plain and speculative runs and summarises them.
func measure(bin, model, draft, prompt, typ string, adaptive bool, threads, n, rounds, draftMax int) (string, error) {
	base := []string{"run", "-m", model, "-p", prompt, "-n", fmt.Sprint(n), "--temp", "0", "-t", fmt.Sprint(threads), "--json"}
	specArgs := append(slices.Clone(base), "--spec-type", typ, "--spec-ngram-simple-size-n", "4",
		"--spec-ngram-map-k-size-n", "4", "--spec-ngram-map-k4v-size-n", "4", "--spec-ngram-mod-n-match", "8", "--spec-ngram-mod-n-min", "4",
		"--draft-max", fmt.Sprint(draftMax), "--spec-draft-n-max", fmt.Sprint(draftMax))
	if typ == "draft-simple" {
		specArgs = append(specArgs, "--spec-draft-model", draft, "--spec-draft-p-min", "0")
	}
	if !adaptive {
		specArgs = append(specArgs, "--no-spec-dm-adaptive")
	}
	var ratios, plainTS, specTS []float64
	var drafted, accepted int
	same := true
	for r := range rounds {
		order := [2][]string{base, specArgs}
		if r%2 == 1 {
			order[0], order[1] = order[1], order[0]
		}
		var plain, sp result
		for _, args := range order {
			res, err := run(bin, args)
			if err != nil {
				return "", err
			}
			if len(args) == len(base) {
				plain = res
			} else {
				sp = res
			}
		}
		ratios = append(ratios, sp.Timings.PredictedPerSecond/plain.Timings.PredictedPerSecond)
		plainTS, specTS = append(plainTS, plain.Timings.PredictedPerSecond), append(specTS, sp.Timings.PredictedPerSecond)
		drafted, accepted = drafted+sp.Timings.DraftN, accepted+sp.Timings.DraftNAccepted
		same = same && slices.Equal(plain.Tokens, sp.Tokens)
	}
	acc := "–"
	if drafted > 0 {
		acc = fmt.Sprintf("%.0f%%", 100*float64(accepted)/float64(drafted))
	}
	spread := ""
	if len(ratios) > 1 {
		spread = fmt.Sprintf(" (%.2f–%.2f)", slices.Min(ratios), slices.Max(ratios))
	}
	return fmt.Sprintf("%.1f | %.1f | %.2fx%s | %d | %d | %s | %v",
		median(plainTS), median(specTS), median(ratios), spread, drafted, accepted, acc, same), nil
}

func median(x []float64) float64 {
	x = slices.Clone(x)
	slices.Sort(x)
	if len(x)%2 == 0 {
		return (x[len(x)/2-1] + x[len(x)/2]) / 2
	}
	return x[len(x)/2]
}

func run(bin string, args []string) (result, error) {
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, errOut.String())
	}
	var r result
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		return result{}, fmt.Errorf("parsing %q: %w", out.String(), err)
	}
	return r, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "specbench:", err)
	os.Exit(1)
}
