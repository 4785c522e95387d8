package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/waggle-llm/waggle/engine"
	"github.com/waggle-llm/waggle/gguf"
	"github.com/waggle-llm/waggle/kernels"
	"github.com/waggle-llm/waggle/kvcache"
	"github.com/waggle-llm/waggle/quantize"
)

// benchCmd is `waggle bench`, measured the way llama-bench measures: random
// tokens; a warm-up run first (a short prompt and one generated token); then
// -r repetitions, each from an empty cache, of either one batch of -p tokens
// (pp) or -n single-token decodes (tg); tokens/s is the mean over the
// repetitions of tokens / wall time, ± the sample standard deviation.
type benchCmd struct {
	Model   string `short:"m" required:"" help:"GGUF model file." type:"existingfile"`
	Prompt  int    `short:"p" name:"n-prompt" help:"Prompt tokens for the pp test (0: skip)." default:"512"`
	Gen     int    `short:"n" name:"n-gen" help:"Generated tokens for the tg test (0: skip)." default:"128"`
	Threads int    `short:"t" help:"Worker threads (0: the physical cores)." default:"0"`
	Reps    int    `short:"r" name:"repetitions" help:"Repetitions of each test." default:"5"`
	Batch   int    `short:"b" name:"batch-size" help:"Tokens per forward pass in the pp test (0: the whole prompt)." default:"0"`
	Output  string `short:"o" help:"Output format: md or json." enum:"md,json" default:"md"`
	CacheK  string `name:"cache-type-k" aliases:"ctk" default:"f16" help:"KV cache type for keys."`
	CacheV  string `name:"cache-type-v" aliases:"ctv" default:"f16" help:"KV cache type for values."`
	Flash   string `name:"flash-attn" default:"auto" help:"on, off or auto (= off). on: online-softmax (flash) attention over 64-position chunks of the KV cache; off: the exact two-pass attention, llama.cpp's -fa off bit for bit on f16/f32 caches. The table gets llama-bench's fa column when it is not auto."`
	Depth   int    `short:"d" name:"n-depth" help:"Tokens already in the context when each test starts (llama-bench's -d; prefilled once, untimed)." default:"0"`
	Fill    string `name:"depth-fill" help:"How the -d context is made: prompt (decode random tokens, as llama-bench) or random (store random N(0,1) keys and values straight into the cache: the same attention cost for a fraction of the set-up time)." enum:"prompt,random" default:"prompt"`
	gpuFlags
	Profile string `name:"cpuprofile" help:"Write a Go CPU profile of the timed tests (not the loading or the -d fill) to this file." type:"path"`
}

// benchResult is one row; the JSON names are llama-bench's (-o json), so one
// parser reads both tools.
type benchResult struct {
	ModelFile  string    `json:"model_filename"`
	ModelType  string    `json:"model_type"`
	ModelSize  int64     `json:"model_size"`
	ModelParam int64     `json:"model_n_params"`
	Backends   string    `json:"backends"`
	Threads    int       `json:"n_threads"`
	NPrompt    int       `json:"n_prompt"`
	NGen       int       `json:"n_gen"`
	NDepth     int       `json:"n_depth"`
	AvgNs      int64     `json:"avg_ns"`
	StddevNs   int64     `json:"stddev_ns"`
	AvgTs      float64   `json:"avg_ts"`
	StddevTs   float64   `json:"stddev_ts"`
	SamplesNs  []int64   `json:"samples_ns"`
	SamplesTs  []float64 `json:"samples_ts"`
	FlashAttn  bool      `json:"flash_attn"`
	ShowFA     bool      `json:"-"` // -fa given: print the fa column
	NGL        int       `json:"n_gpu_layers"`
	ShowNGL    bool      `json:"-"` // layers offloaded: print the ngl column
	Kernels    string    `json:"waggle_kernels,omitempty"`
	GoMaxProcs int       `json:"waggle_gomaxprocs,omitempty"`
}

func (c *benchCmd) Run() error {
	if c.Reps < 1 || c.Prompt < 0 || c.Gen < 0 || c.Depth < 0 || c.Prompt+c.Gen == 0 {
		return fmt.Errorf("need -r >= 1, -d >= 0 and at least one of -p, -n > 0")
	}
	if err := c.apply(&engine.SessionOptions{}); err != nil {
		return err
	}
	c.warn()
	l, err := engine.LoadFile(c.Model)
	if err != nil {
		return err
	}
	defer l.Close()
	s, err := c.session(l.Model)
	if err != nil {
		return err
	}
	defer engine.CloseSession(s)
	showFA := c.Flash != "auto"
	info := l.Model.Info()
	base := benchResult{ModelFile: c.Model, ModelType: modelDesc(info, l.File), ModelSize: info.WeightSize, ModelParam: info.NParams,
		Backends: engine.Backend(s), Threads: c.threads(), Kernels: kernelsName(), GoMaxProcs: runtime.GOMAXPROCS(0), NDepth: c.Depth,
		FlashAttn: s.Options().FlashAttn, ShowFA: showFA, NGL: min(s.Options().GPULayers, info.NLayer+1), ShowNGL: s.Options().GPULayers > 0}
	r := &benchRunner{s: s, nVocab: info.NVocab, batch: c.Batch, rng: rand.New(rand.NewPCG(1, 2))}
	if c.Depth > 0 {
		if c.Fill == "random" {
			r.keep(fillRandom(s, c.Depth))
		} else {
			r.keep(r.prompt(c.Depth))
		}
		r.depth = c.Depth
	}
	stop, err := startProfile(c.Profile)
	if err != nil {
		return err
	}
	defer stop()
	var rows []benchResult
	if c.Prompt > 0 {
		row := base
		row.NPrompt = c.Prompt
		rows = append(rows, r.measure(row, c.Reps, func() error { return r.prompt(c.Prompt) }, min(c.Prompt, 32), 0))
	}
	if c.Gen > 0 {
		row := base
		row.NGen = c.Gen
		rows = append(rows, r.measure(row, c.Reps, func() error { return r.gen(c.Gen) }, 0, 1))
	}
	if r.err != nil {
		return r.err
	}
	if c.Output == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	}
	printBenchTable(stdout, rows)
	return nil
}

// startProfile starts a CPU profile into path ("" : none) and returns
// what stops it.
func startProfile(path string) (func(), error) {
	if path == "" {
		return func() {}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() { pprof.StopCPUProfile(); f.Close() }, nil
}

// threads is the worker count the session runs (the engine's default when
// -t is 0), for the report.
func (c *benchCmd) threads() int {
	if c.Threads > 0 {
		return c.Threads
	}
	return kernels.DefaultThreads()
}

func (c *benchCmd) session(m engine.Model) (engine.Session, error) {
	tk, err := kvcache.ParseType(c.CacheK)
	if err != nil {
		return nil, err
	}
	tv, err := kvcache.ParseType(c.CacheV)
	if err != nil {
		return nil, err
	}
	fa, err := parseFlashAttn(c.Flash)
	if err != nil {
		return nil, err
	}
	nb := c.Batch
	if nb <= 0 {
		nb = max(c.Prompt, 1)
	}
	if c.Depth > 0 && c.Batch <= 0 {
		nb = max(nb, min(c.Depth, 512))
	}
	o := engine.SessionOptions{NCtx: c.Depth + c.Prompt + c.Gen + 1, NBatch: nb, TypeK: tk, TypeV: tv, Threads: c.Threads, FlashAttn: fa}
	if err := c.apply(&o); err != nil {
		return nil, err
	}
	return m.NewSession(o)
}

// benchRunner decodes random tokens on one session.
type benchRunner struct {
	s      engine.Session
	nVocab int
	batch  int
	rng    *rand.Rand
	b      engine.Batch
	err    error
	depth  int // context kept between runs (-d)
}

// measure runs a warm-up (warmP prompt tokens and warmG generated ones, as
// llama-bench does), then reps timed runs of run from an empty cache.
func (r *benchRunner) measure(row benchResult, reps int, run func() error, warmP, warmG int) benchResult {
	r.reset()
	if warmP > 0 {
		r.keep(r.prompt(warmP))
	}
	if warmG > 0 {
		r.keep(r.gen(warmG))
	}
	n := float64(row.NPrompt + row.NGen)
	for i := 0; i < reps && r.err == nil; i++ {
		r.reset()
		start := time.Now()
		r.keep(run())
		ns := time.Since(start).Nanoseconds()
		row.SamplesNs = append(row.SamplesNs, ns)
		row.SamplesTs = append(row.SamplesTs, n*1e9/float64(ns))
	}
	avg, sd := meanSD(row.SamplesTs)
	row.AvgTs, row.StddevTs = avg, sd
	ns := make([]float64, len(row.SamplesNs))
	for i, v := range row.SamplesNs {
		ns[i] = float64(v)
	}
	avgNs, sdNs := meanSD(ns)
	row.AvgNs, row.StddevNs = int64(avgNs), int64(sdNs)
	return row
}

func (r *benchRunner) keep(err error) {
	if r.err == nil {
		r.err = err
	}
}

// reset drops everything after the -d context.
func (r *benchRunner) reset() { r.keep(r.s.Truncate(0, r.depth)) }

func (r *benchRunner) token() int32 { return int32(r.rng.IntN(r.nVocab)) }

// prompt decodes n random tokens in batches of r.batch (all at once when
// 0), asking for the last token's logits, as llama-bench's test_prompt.
func (r *benchRunner) prompt(n int) error {
	bs := r.batch
	if bs <= 0 {
		bs = n
	}
	bs = min(bs, r.s.Options().NBatch)
	pos0 := r.s.SeqLen(0)
	for done := 0; done < n; {
		r.b.Reset()
		k := min(bs, n-done)
		for i := 0; i < k; i++ {
			r.b.Add(r.token(), int32(pos0+done+i), 0, done+i == n-1)
		}
		if err := r.s.Decode(&r.b); err != nil {
			return err
		}
		done += k
	}
	return nil
}

// gen decodes n tokens one at a time, each with logits (test_gen).
func (r *benchRunner) gen(n int) error {
	pos := r.s.SeqLen(0)
	for i := 0; i < n; i++ {
		r.b.Reset()
		r.b.Add(r.token(), int32(pos+i), 0, true)
		if err := r.s.Decode(&r.b); err != nil {
			return err
		}
	}
	return nil
}

// meanSD returns the mean and the sample standard deviation (0 for one
// sample), as llama-bench's avg and stdev.
func meanSD(v []float64) (mean, sd float64) {
	if len(v) == 0 {
		return 0, 0
	}
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss / float64(len(v)-1))
}

// modelDesc imitates llama_model_desc: "<arch> <size class> <file type>",
// the file type named from general.file_type as llama-quantize names it.
func modelDesc(info *engine.Info, f *gguf.File) string {
	ft := info.FileType
	if v, ok := f.Uint("general.file_type"); ok {
		ft = quantize.FileType(v).String()
	}
	return fmt.Sprintf("%s %s %s", info.Arch, paramsClass(info.NParams), ft)
}

func paramsClass(n int64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.0fB", math.Round(float64(n)/1e9))
	}
	return fmt.Sprintf("%.0fM", math.Round(float64(n)/1e6))
}

// printBenchTable writes llama-bench's markdown table, with its ngl column
// after backend when layers run on a GPU and its fa column (1 or 0) after
// threads when -fa was given, as llama-bench shows a parameter that is not
// at its default.
func printBenchTable(w io.Writer, rows []benchResult) {
	fa, faRule, ngl, nglRule := "", "", "", ""
	if rows[0].ShowFA {
		fa, faRule = " fa |", " -: |"
	}
	if rows[0].ShowNGL {
		ngl, nglRule = " ngl |", " --: |"
	}
	fmt.Fprintln(w, "| model                          |       size |     params | backend    |"+ngl+" threads |"+fa+"            test |                  t/s |")
	fmt.Fprintln(w, "| ------------------------------ | ---------: | ---------: | ---------- |"+nglRule+" ------: |"+faRule+" --------------: | -------------------: |")
	for _, r := range rows {
		test := fmt.Sprintf("pp%d", r.NPrompt)
		if r.NGen > 0 {
			test = fmt.Sprintf("tg%d", r.NGen)
		}
		if r.NDepth > 0 {
			test += fmt.Sprintf(" @ d%d", r.NDepth)
		}
		faCell := ""
		if r.ShowFA {
			faCell = "  0 |"
			if r.FlashAttn {
				faCell = "  1 |"
			}
		}
		nglCell := ""
		if r.ShowNGL {
			nglCell = fmt.Sprintf(" %3d |", r.NGL)
		}
		fmt.Fprintf(w, "| %-30s | %10s | %10s | %-10s |%s %7d |%s %15s | %20s |\n", r.ModelType, sizeString(r.ModelSize),
			paramString(r.ModelParam), r.Backends, nglCell, r.Threads, faCell, test, fmt.Sprintf("%.2f ± %.2f", r.AvgTs, r.StddevTs))
	}
	fmt.Fprintf(w, "\nwaggle %s, kernels %s, GOMAXPROCS %d, model %s\n", version, kernelsName(), runtime.GOMAXPROCS(0), filepath.Base(rows[0].ModelFile))
}

func sizeString(b int64) string {
	if b < 1<<30 {
		return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
}

func paramString(n int64) string {
	if n >= 1e9 {
		return fmt.Sprintf("%.2f B", float64(n)/1e9)
	}
	return fmt.Sprintf("%.2f M", float64(n)/1e6)
}

// kernelsName is the kernel implementation in use ("avx2", "generic", …).
func kernelsName() string { return kernels.Impl() }

// cacheHolder is a session that exposes its KV cache (the llama family).
type cacheHolder interface{ Cache() *kvcache.Cache }

// fillRandom stores depth positions of random N(0,1) keys and values in
// every layer of sequence 0, one goroutine per layer group, as the context
// of a -d test: attention costs the same whatever the values are.
func fillRandom(s engine.Session, depth int) error {
	ch, ok := s.(cacheHolder)
	if !ok {
		return fmt.Errorf("--depth-fill random: this model does not expose its KV cache; use --depth-fill prompt")
	}
	c := ch.Cache()
	if err := c.Reserve(0, depth); err != nil {
		return err
	}
	o := c.Options()
	var wg sync.WaitGroup
	workers := max(1, runtime.GOMAXPROCS(0))
	for w := range workers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 7))
			k, v := make([]float32, o.NKV), make([]float32, o.NKV)
			for l := w; l < o.NLayer; l += workers {
				for p := range depth {
					for i := range k {
						k[i], v[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
					}
					c.Store(l, 0, p, k, v)
				}
			}
		})
	}
	wg.Wait()
	c.SetLen(0, depth)
	return nil
}
