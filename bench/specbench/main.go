// Command specbench measures speculative decoding against plain decoding:
// for each model, prompt kind and strategy it runs `waggle run --json`
// alternately with and without speculation and prints the median of the
// per-round ratios of generation speed, with the drafted and accepted
// counts. Greedy output must be identical; a difference is reported.
//
//	go run ./bench/specbench -m ../bench-models/synth-llama3.2-1b-q4_0.gguf \
//	    -m ../shared/models/stories260K-f32.gguf -t 2 -n 128 -rounds 3
//
// Two prompt kinds: "repeating" (copy-and-edit text whose greedy
// continuation on these random-weight models repeats itself) and
// "rejecting" (a prompt full of repeated n-grams that the model does not
// continue, so drafts are proposed and mostly rejected; adaptive depth must
// keep the speed close to plain).
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
	"rejecting": strings.Repeat("alpha beta gamma delta ", 12) + "Now write something completely different:",
}

func main() {
	var models modelList
	flag.Var(&models, "m", "model file (repeat for several)")
	waggle := flag.String("waggle", "", "waggle binary (default: build ./cmd/waggle)")
	threads := flag.Int("t", 2, "threads")
	n := flag.Int("n", 128, "tokens to generate")
	rounds := flag.Int("rounds", 3, "interleaved rounds")
	types := flag.String("types", "ngram-simple,ngram-map-k,ngram-map-k4v,ngram-mod,ngram-cache,copyspec,suffix,recycle", "strategies, comma-separated")
	vc := flag.Bool("verify-cost", false, "only measure the Decode time of k+1 tokens against 1 token")
	flag.Parse()
	if len(models) == 0 {
		fail(fmt.Errorf("give at least one -m"))
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
	fmt.Printf("greedy, %d tokens, %d threads, %d interleaved rounds; ratio = median of per-round (speculative t/s ÷ plain t/s)\n\n", *n, *threads, *rounds)
	fmt.Println("| model | prompt | strategy | adaptive | speed vs plain | drafted | accepted | output identical |")
	fmt.Println("| --- | --- | --- | --- | ---: | ---: | ---: | --- |")
	for _, m := range models {
		for _, kind := range []string{"repeating", "rejecting"} {
			for _, typ := range strings.Split(*types, ",") {
				for _, adaptive := range []bool{false, true} {
					row, err := measure(*waggle, m, prompts[kind], typ, adaptive, *threads, *n, *rounds)
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
func measure(bin, model, prompt, typ string, adaptive bool, threads, n, rounds int) (string, error) {
	base := []string{"run", "-m", model, "-p", prompt, "-n", fmt.Sprint(n), "--temp", "0", "-t", fmt.Sprint(threads), "--json"}
	specArgs := append(slices.Clone(base), "--spec-type", typ, "--spec-ngram-simple-size-n", "4",
		"--spec-ngram-map-k-size-n", "4", "--spec-ngram-map-k4v-size-n", "4", "--spec-ngram-mod-n-match", "8", "--spec-ngram-mod-n-min", "4")
	if !adaptive {
		specArgs = append(specArgs, "--no-spec-dm-adaptive")
	}
	var ratios []float64
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
		drafted, accepted = drafted+sp.Timings.DraftN, accepted+sp.Timings.DraftNAccepted
		same = same && slices.Equal(plain.Tokens, sp.Tokens)
	}
	slices.Sort(ratios)
	return fmt.Sprintf("%.2fx | %d | %d | %v", ratios[len(ratios)/2], drafted, accepted, same), nil
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
