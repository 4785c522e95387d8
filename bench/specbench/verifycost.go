package main

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/all"
)

// verifyCost measures what speculation pays per cycle: the time of one
// target Decode of k+1 tokens (the last emitted token and k drafted ones,
// logits for every row) divided by the time of a plain one-token Decode,
// at the same position after the same prompt. Speculation at depth k with
// E accepted tokens per cycle beats plain decoding only when
// (1+E) > cost(k+1)/cost(1), so this ratio bounds every speed-up in the
// table. Batch sizes are interleaved within each round and the cells are
// rolled back after each Decode, so every measurement starts from the same
// cache; the figure is the median over rounds.
func verifyCost(model, prompt string, threads, rounds int, ks []int) error {
	l, err := engine.LoadFile(model)
	if err != nil {
		return err
	}
	defer l.Close()
	sess, err := l.Model.NewSession(engine.SessionOptions{NCtx: 1024, NBatch: 512, Threads: threads})
	if err != nil {
		return err
	}
	toks := l.Tokenizer.Encode(prompt, true, true)
	var b engine.Batch
	for i, t := range toks {
		b.Add(t, int32(i), 0, i == len(toks)-1)
	}
	if err := sess.Decode(&b); err != nil {
		return err
	}
	n := len(toks)
	times := make([][]float64, len(ks))
	decode := func(k int) (float64, error) {
		b.Reset()
		for i := range k + 1 {
			b.Add(toks[(n+i)%len(toks)], int32(n+i), 0, true)
		}
		t0 := time.Now()
		if err := sess.Decode(&b); err != nil {
			return 0, err
		}
		d := time.Since(t0).Seconds() * 1000
		return d, sess.Truncate(0, n)
	}
	for range 2 { // warm caches and the pool
		if _, err := decode(0); err != nil {
			return err
		}
	}
	for r := range rounds {
		for j := range ks {
			if r%2 == 1 {
				j = len(ks) - 1 - j
			}
			d, err := decode(ks[j])
			if err != nil {
				return err
			}
			times[j] = append(times[j], d)
		}
	}
	med := func(x []float64) float64 {
		x = slices.Clone(x)
		slices.Sort(x)
		return x[len(x)/2]
	}
	base := -1.0
	for j, k := range ks {
		if k == 0 {
			base = med(times[j])
		}
	}
	name := strings.TrimSuffix(model[strings.LastIndex(model, "/")+1:], ".gguf")
	fmt.Printf("verify cost, %s, %d threads, %d rounds after a %d-token prompt: Decode of k+1 tokens vs 1\n\n", name, threads, rounds, n)
	fmt.Println("| k (drafted) | batch | ms (median) | cost vs 1 token | break-even accepted per cycle |")
	fmt.Println("| ---: | ---: | ---: | ---: | ---: |")
	for j, k := range ks {
		m := med(times[j])
		ratio := m / base
		fmt.Printf("| %d | %d | %.1f | %.2fx | %.2f |\n", k, k+1, m, ratio, ratio-1)
	}
	fmt.Println()
	return nil
}

// verifyKs are the draft lengths -verify-cost measures: the small depths a
// per-column kernel serves, and the long ones where a batched matmul
// amortises its weight reads.
var verifyKs = []int{0, 1, 2, 3, 4, 7, 8, 12, 15, 16, 24, 31, 32, 48, 63, 64}
