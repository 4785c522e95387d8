package llama_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/kvcache"
)

// BenchmarkDecodeFile measures single-token decode steps on the model named
// by WAGGLE_BENCH_MODEL (skipped when unset) at WAGGLE_BENCH_THREADS threads
// (default 1): the tg test of llama-bench, one op per token.
func BenchmarkDecodeFile(b *testing.B) {
	path := os.Getenv("WAGGLE_BENCH_MODEL")
	if path == "" {
		b.Skip("WAGGLE_BENCH_MODEL not set")
	}
	threads, _ := strconv.Atoi(os.Getenv("WAGGLE_BENCH_THREADS"))
	l, err := engine.LoadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	s, err := l.Model.NewSession(engine.SessionOptions{NCtx: 1024, NBatch: 1, Threads: max(threads, 1), TypeK: kvcache.F16, TypeV: kvcache.F16})
	if err != nil {
		b.Fatal(err)
	}
	var batch engine.Batch
	pos := 0
	step := func() {
		if pos == 128 {
			_ = s.Truncate(0, 0)
			pos = 0
		}
		batch.Reset()
		batch.Add(int32(1000+pos), int32(pos), 0, true)
		if err := s.Decode(&batch); err != nil {
			b.Fatal(err)
		}
		pos++
	}
	for range 8 {
		step()
	}
	_ = s.Truncate(0, 0)
	pos = 0
	b.SetBytes(l.Model.Info().WeightSize)
	b.ResetTimer()
	for b.Loop() {
		step()
	}
}

// BenchmarkVerifyFile measures one forward pass over k tokens of one
// sequence (a speculative verify batch: all logits wanted) on the model
// named by WAGGLE_BENCH_MODEL, for k = 1..8; compare ns/op against k = 1
// for the cost of verifying k-1 drafted tokens.
func BenchmarkVerifyFile(b *testing.B) {
	path := os.Getenv("WAGGLE_BENCH_MODEL")
	if path == "" {
		b.Skip("WAGGLE_BENCH_MODEL not set")
	}
	threads, _ := strconv.Atoi(os.Getenv("WAGGLE_BENCH_THREADS"))
	l, err := engine.LoadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	s, err := l.Model.NewSession(engine.SessionOptions{NCtx: 1024, NBatch: 8, Threads: max(threads, 1), TypeK: kvcache.F16, TypeV: kvcache.F16})
	if err != nil {
		b.Fatal(err)
	}
	var batch engine.Batch
	for _, k := range []int{1, 2, 3, 4, 5, 6, 8} {
		b.Run(strconv.Itoa(k), func(b *testing.B) {
			_ = s.Truncate(0, 0)
			pos := 0
			for b.Loop() {
				if pos+k > 256 {
					_ = s.Truncate(0, 0)
					pos = 0
				}
				batch.Reset()
				for i := range k {
					batch.Add(int32(1000+pos+i), int32(pos+i), 0, true)
				}
				if err := s.Decode(&batch); err != nil {
					b.Fatal(err)
				}
				pos += k
			}
		})
	}
}
