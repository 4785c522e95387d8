// Command kvquality measures what each KV cache type costs in quality: for
// every model given, it evaluates a text with an f16 cache (the base,
// written as a llama-perplexity log-probability file) and then with every
// other cache type against it, and prints a markdown table of bits per
// value, compression against f16, perplexity, its change, mean KL
// divergence and how often the top token agrees. It is
// `waggle perplexity --kl-divergence` in a loop, in one process.
//
//	go run ./bench/kvquality -f engine/perplexity/testdata/story.txt -c 128 \
//	    -m ../shared/models/stories260K-f32.gguf -m ../shared/models/synth-llama-tiny-f32.gguf
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/waggle-llm/waggle/engine"
	_ "github.com/waggle-llm/waggle/engine/models/all"
	"github.com/waggle-llm/waggle/engine/perplexity"
	"github.com/waggle-llm/waggle/kvcache"
)

type models []string

func (m *models) String() string     { return strings.Join(*m, ",") }
func (m *models) Set(s string) error { *m = append(*m, s); return nil }

func main() {
	var ms models
	flag.Var(&ms, "m", "GGUF model (repeatable)")
	text := flag.String("f", "", "text file")
	nCtx := flag.Int("c", 128, "chunk size")
	chunks := flag.Int("chunks", 0, "chunks (0: all)")
	threads := flag.Int("t", 2, "threads")
	flag.Parse()
	if len(ms) == 0 || *text == "" {
		flag.Usage()
		os.Exit(2)
	}
	raw, err := os.ReadFile(*text)
	check(err)
	fmt.Println("| model | cache type | bits/value | vs f16 | PPL | ΔPPL | mean KLD | same top |")
	fmt.Println("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, m := range ms {
		runModel(m, string(raw), *nCtx, *chunks, *threads)
	}
}

func runModel(path, text string, nCtx, chunks, threads int) {
	l, err := engine.LoadFile(path)
	check(err)
	defer l.Close()
	info := l.Model.Info()
	toks := l.Tokenizer.Encode(text, true, false)
	o := perplexity.Options{NCtx: nCtx, NBatch: nCtx, Chunks: chunks, AddBOS: l.Tokenizer.AddBOS(), BOS: l.Tokenizer.BOS()}
	dir, err := os.MkdirTemp("", "kvquality")
	check(err)
	defer os.RemoveAll(dir)
	basePath := filepath.Join(dir, "base.bin")
	f, err := os.Create(basePath)
	check(err)
	bw, err := perplexity.NewBaseWriter(f, nCtx, info.NVocab, perplexity.ChunkCount(len(toks), o), toks)
	check(err)
	check(perplexity.Run(session(l, kvcache.F16, nCtx, threads), toks, o, bw, nil))
	check(bw.Flush())
	check(f.Close())
	basePPL, _ := bw.Stats.PPL()
	hd := info.HeadDim
	f16Bits := kvcache.F16.BitsPerValue(hd)
	name := filepath.Base(path)
	for _, tn := range kvcache.TypeNames() {
		typ, _ := kvcache.ParseType(tn)
		if _, err := typ.HeadBytes(hd); err != nil {
			fmt.Printf("| %s | %s | – | – | – | – | – | (head size %d: %v) |\n", name, tn, hd, err)
			continue
		}
		b, err := perplexity.OpenBase(basePath)
		check(err)
		k := perplexity.NewKLD(b)
		check(perplexity.Run(session(l, typ, nCtx, threads), b.Tokens, o, k, nil))
		b.Close()
		ppl, _ := k.Q.PPL()
		mean, se, _, _, _ := k.Summary()
		bits := typ.BitsPerValue(hd)
		fmt.Printf("| %s | %s | %.2f | %.2fx | %.4f | %+.4f | %.2e ± %.1e | %.2f%% |\n",
			name, tn, bits, f16Bits/bits, ppl, ppl-basePPL, mean, se, 100*float64(k.SameTop)/math.Max(1, float64(k.Q.Count)))
	}
}

func session(l *engine.Loaded, typ kvcache.Type, nCtx, threads int) engine.Session {
	s, err := l.Model.NewSession(engine.SessionOptions{NCtx: nCtx, NBatch: nCtx, TypeK: typ, TypeV: typ, Threads: threads})
	check(err)
	return s
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "kvquality:", err)
		os.Exit(1)
	}
}
