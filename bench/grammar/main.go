// Command grammar measures what a JSON schema costs during generation:
// it generates -n tokens with the same sampler with and without the
// schema's grammar, alternating the two (ABAB…) for -r rounds on one
// session, and prints the tokens/s of each and the median of the per-round
// ratios constrained / free.
//
//	go run ./bench/grammar -m ../bench-models/synth-llama3.2-1b-q4_k_m.gguf -n 128 -r 5
//
// The default schema is an unbounded array of small objects, so the
// grammar never completes within -n tokens; --schema reads another. A
// random-weight model breaks the grammar at almost every token, so every
// step pays the full-vocabulary filter: the worst case, which a trained
// model rarely reaches.
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/engine/grammar"
	_ "github.com/waggle-llm/waggle/engine/models/all"
	"github.com/waggle-llm/waggle/engine/sample"
)

const defaultSchema = `{"type": "array", "items": {"type": "object",
 "properties": {"name": {"type": "string"}, "age": {"type": "integer"}, "tags": {"type": "array", "items": {"type": "string"}}},
 "required": ["name", "age"]}}`

func main() {
	model := flag.String("m", "", "GGUF model")
	n := flag.Int("n", 128, "tokens generated per run")
	rounds := flag.Int("r", 5, "rounds (each: one free run, one constrained run)")
	threads := flag.Int("t", 0, "threads (0: all cores)")
	schemaPath := flag.String("schema", "", "JSON schema file (default: an unbounded array of objects)")
	temp := flag.Float64("temp", 0, "temperature (0: greedy)")
	flag.Parse()
	if err := run(*model, *schemaPath, *n, *rounds, *threads, float32(*temp)); err != nil {
		fmt.Fprintln(os.Stderr, "grammar:", err)
		os.Exit(1)
	}
}

func run(model, schemaPath string, n, rounds, threads int, temp float32) error {
	if model == "" || n < 1 || rounds < 1 {
		return fmt.Errorf("need -m, -n >= 1 and -r >= 1")
	}
	schema := []byte(defaultSchema)
	if schemaPath != "" {
		b, err := os.ReadFile(schemaPath)
		if err != nil {
			return err
		}
		schema = b
	}
	v, err := grammar.ParseJSON(schema)
	if err != nil {
		return err
	}
	src, err := grammar.SchemaToGrammar(v)
	if err != nil {
		return err
	}
	g, err := grammar.Parse(src, nil)
	if err != nil {
		return err
	}
	l, err := engine.LoadFile(model)
	if err != nil {
		return err
	}
	defer l.Close()
	sess, err := l.Model.NewSession(engine.SessionOptions{NCtx: n + 64, NBatch: 512, Threads: threads})
	if err != nil {
		return err
	}
	t0 := time.Now()
	ix := grammar.NewIndex(l.Tokenizer)
	fmt.Printf("vocabulary index: %d tokens in %.0f ms\n", ix.NVocab(), float64(time.Since(t0).Microseconds())/1000)
	prompt := l.Tokenizer.Encode("Here is the list as JSON:", true, false)
	gen := func(constrained bool) (float64, error) {
		p := sample.DefaultParams()
		p.Temp, p.Seed = temp, 1
		smp, err := sample.New(p, l.Model.Info().NVocab)
		if err != nil {
			return 0, err
		}
		if constrained {
			smp.SetConstraint(grammar.NewMatcher(g, ix))
		}
		if err := sess.Truncate(0, 0); err != nil {
			return 0, err
		}
		gr := &engine.Generator{Sess: sess, Sampler: smp}
		tm, err := gr.Generate(prompt, n, func(int32) bool { return true })
		if err != nil {
			return 0, err
		}
		return tm.PredictedPerSecond(), nil
	}
	if _, err := gen(true); err != nil { // warm-up: page in the weights
		return err
	}
	var free, cons, ratios []float64
	for r := range rounds {
		a, err := gen(false)
		if err != nil {
			return err
		}
		b, err := gen(true)
		if err != nil {
			return err
		}
		free, cons, ratios = append(free, a), append(cons, b), append(ratios, b/a)
		fmt.Printf("round %d: free %.2f t/s, schema %.2f t/s, ratio %.3f\n", r+1, a, b, b/a)
	}
	fmt.Printf("median: free %.2f t/s, schema %.2f t/s, schema/free %.3f (%d rounds of %d tokens, temp %g)\n",
		median(free), median(cons), median(ratios), rounds, n, temp)
	return nil
}

func median(x []float64) float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
