// Command membw measures the machine's memory read bandwidth, the wall
// that decode runs into (every generated token reads all the weights
// once), the same way every time, so decode GB/s can be quoted as a share
// of it:
//
//	go run ./bench/membw              # 1 GiB anonymous buffer, 1..NumCPU threads
//	go run ./bench/membw -m model.gguf -t 2
//
// Each thread reads its own contiguous share of one large buffer with two
// readers: a Go loop summing 64-bit words into eight accumulators, and
// the vectorised float32 dot product of the kernels package (the buffer
// with itself: one stream, AVX2/AVX-512/NEON loads). Threads start
// together; a pass takes from the start to the last thread's end. The
// figure per thread count is the best of -r passes (bandwidth noise only
// ever slows a pass), after one pass that is not counted.
//
// With -m the buffer is the tensor data of a GGUF model, read through the
// same read-only mapping decode uses (page-cache pages, not the heap),
// which is the wall for that model's decode; the vector reader is left out
// there because weight bytes read as float32 hold NaNs and denormals.
//
// To show the readers are not what limits the figure, -check also times
// them on a 256 KiB buffer per thread, which stays in the core's cache:
// a reader whose in-cache speed is well above its memory speed is waiting
// on memory, not on its own instructions.
//
// -int8 also measures the int8 multiply-add peak (twelve independent
// AVX-512 VNNI VPDPBUSD per round, on every thread at once), the ceiling
// prefill's integer dot products are quoted against; CPUs without AVX-512
// VNNI report none.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/waggle-llm/waggle/bench/report"
)

type config struct {
	sizeMiB  int
	threads  int
	reps     int
	model    string
	check    bool
	int8     bool
	json     bool
	markdown bool
}

func main() {
	var c config
	flag.IntVar(&c.sizeMiB, "size", 1024, "anonymous buffer size in MiB (ignored with -m); make it far larger than the last-level cache")
	flag.IntVar(&c.threads, "t", runtime.NumCPU(), "measure 1..t threads")
	flag.IntVar(&c.reps, "r", 5, "passes per thread count (the best is reported)")
	flag.StringVar(&c.model, "m", "", "read this GGUF model's tensor data through its mapping instead of an anonymous buffer")
	flag.BoolVar(&c.check, "check", true, "also time the readers on an in-cache buffer (is the reader the limit?)")
	flag.BoolVar(&c.int8, "int8", true, "also measure the int8 multiply-add peak (AVX-512 VNNI), for the prefill share of it")
	flag.BoolVar(&c.json, "json", false, "print JSON instead of a table")
	flag.BoolVar(&c.markdown, "markdown", false, "print a docs/benchmarks.md section (date, commit, machine, command) around the table")
	flag.Parse()
	if err := run(&c, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "membw:", err)
		os.Exit(1)
	}
}

// Result is what one run measured; -json prints it.
type Result struct {
	Source string `json:"source"` // "anonymous N MiB" or the model path
	Bytes  int64  `json:"bytes"`
	Rows   []Row  `json:"rows"`
	// WallGBs is the read bandwidth to quote: the best reader at the
	// largest thread count measured.
	WallGBs float64 `json:"wall_gbs"`
	// Int8Kernel names the int8 peak loop ("" when the CPU has none);
	// Int8PeakGOPS is its best figure at the largest thread count.
	Int8Kernel   string  `json:"int8_kernel,omitempty"`
	Int8PeakGOPS float64 `json:"int8_peak_gops,omitempty"`
}

// Row is one thread count. GB/s are 1e9 bytes per second; 0 means not
// measured.
type Row struct {
	Threads      int     `json:"threads"`
	GoGBs        float64 `json:"go_gbs"`
	GoMedianGBs  float64 `json:"go_median_gbs"`
	VecGBs       float64 `json:"vec_gbs"`
	VecMedianGBs float64 `json:"vec_median_gbs"`
	GoCacheGBs   float64 `json:"go_cache_gbs"`  // per thread, in-cache
	VecCacheGBs  float64 `json:"vec_cache_gbs"` // per thread, in-cache
	Int8GOPS     float64 `json:"int8_gops"`     // all threads, best pass
}

func run(c *config, w io.Writer) error {
	if c.threads <= 0 || c.reps <= 0 || c.sizeMiB <= 0 {
		return fmt.Errorf("-t, -r and -size must be positive")
	}
	runtime.GOMAXPROCS(max(runtime.GOMAXPROCS(0), c.threads))
	prov := report.Collect()
	b, closeFn, src, err := c.buffer()
	if err != nil {
		return err
	}
	defer closeFn()
	res := Result{Source: src, Bytes: int64(b.len())}
	for t := 1; t <= c.threads; t++ {
		r := Row{Threads: t}
		r.GoGBs, r.GoMedianGBs = measure(b, t, c.reps, readGo)
		if b.vec {
			r.VecGBs, r.VecMedianGBs = measure(b, t, c.reps, readVec)
		}
		if c.check {
			r.GoCacheGBs, r.VecCacheGBs = inCache(t)
		}
		if c.int8 {
			r.Int8GOPS, _ = int8Peak(t, c.reps)
		}
		fmt.Fprintf(os.Stderr, "membw: %d threads: go %.1f GB/s, vector %.1f GB/s, int8 %.0f GOPS\n", t, r.GoGBs, r.VecGBs, r.Int8GOPS)
		res.Rows = append(res.Rows, r)
	}
	last := res.Rows[len(res.Rows)-1]
	res.WallGBs = max(last.GoGBs, last.VecGBs)
	if _, _, name := int8Kernel(); c.int8 && name != "" {
		res.Int8Kernel, res.Int8PeakGOPS = name, last.Int8GOPS
	}
	if c.json {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	if c.markdown {
		fmt.Fprintf(w, "### Memory read bandwidth\n\n")
		prov.Write(w)
	}
	printTable(w, &res, c)
	return nil
}

func printTable(w io.Writer, res *Result, c *config) {
	fmt.Fprintf(w, "| threads | Go loop GB/s (best, median) | vector GB/s (best, median) |")
	if c.check {
		fmt.Fprintf(w, " in-cache Go loop GB/s per thread | in-cache vector GB/s per thread |")
	}
	if res.Int8Kernel != "" {
		fmt.Fprintf(w, " int8 GOPS (%s) |", res.Int8Kernel)
	}
	fmt.Fprintf(w, "\n| ---: | ---: | ---: |")
	if c.check {
		fmt.Fprintf(w, " ---: | ---: |")
	}
	if res.Int8Kernel != "" {
		fmt.Fprintf(w, " ---: |")
	}
	fmt.Fprintln(w)
	for _, r := range res.Rows {
		vec := "—"
		if r.VecGBs > 0 {
			vec = fmt.Sprintf("%.1f, %.1f", r.VecGBs, r.VecMedianGBs)
		}
		fmt.Fprintf(w, "| %d | %.1f, %.1f | %s |", r.Threads, r.GoGBs, r.GoMedianGBs, vec)
		if c.check {
			fmt.Fprintf(w, " %.1f | %.1f |", r.GoCacheGBs, r.VecCacheGBs)
		}
		if res.Int8Kernel != "" {
			fmt.Fprintf(w, " %.0f |", r.Int8GOPS)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n%s (%.0f MiB), best of %d passes; read bandwidth (the wall): **%.1f GB/s** at %d threads.",
		res.Source, float64(res.Bytes)/(1<<20), c.reps, res.WallGBs, res.Rows[len(res.Rows)-1].Threads)
	if res.Int8Kernel != "" {
		fmt.Fprintf(w, " int8 multiply-add peak: **%.0f GOPS** (bench/compare -int8-peak).", res.Int8PeakGOPS)
	}
	fmt.Fprintln(w)
}
