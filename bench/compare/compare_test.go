package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// llamaJSON is the shape of llama-bench -o json (fields trimmed).
const llamaJSON = `[
  {"build_commit": "x", "model_filename": "m.gguf", "model_type": "llama 1B Q4_0", "model_size": 1000000000,
   "model_n_params": 1250000000, "n_threads": 2, "n_prompt": 512, "n_gen": 0, "avg_ns": 5000000000,
   "stddev_ns": 1, "avg_ts": 100, "stddev_ts": 0.5, "samples_ns": [1], "samples_ts": [100]},
  {"model_type": "llama 1B Q4_0", "model_size": 1000000000, "n_prompt": 0, "n_gen": 128, "avg_ts": 10.0, "stddev_ts": 0.1},
  {"model_type": "llama 1B Q4_0", "model_size": 1000000000, "n_prompt": 0, "n_gen": 32, "n_depth": 8192, "avg_ts": 4.0}
]`

func TestParseAndSummarize(t *testing.T) {
	rows, err := parseRows([]byte(llamaJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || rows[0].test() != "pp512" || rows[1].test() != "tg128" || rows[2].test() != "tg32 @ d8192" || rows[1].ModelSize != 1e9 {
		t.Fatalf("parsed %+v", rows)
	}
	cases := []benchCase{{model: "m.gguf", threads: 2}}
	var ms []measurement
	// three rounds; waggle's tg is 0.5x, 0.6x and 0.9x of llama.cpp's.
	for i, w := range []float64{5, 6, 9} {
		ms = append(ms,
			measurement{tool: "llama.cpp", round: i, row: rows[1]},
			measurement{tool: "waggle", round: i, row: benchRow{NGen: 128, AvgTs: w}},
			measurement{tool: "llama.cpp", round: i, row: rows[0]},
			measurement{tool: "waggle", round: i, row: benchRow{NPrompt: 512, AvgTs: 50}},
			measurement{tool: "llama.cpp", round: i, row: rows[2]},
			measurement{tool: "waggle", round: i, row: benchRow{NGen: 32, NDepth: 8192, AvgTs: 6}})
	}
	sum := summarize(cases, ms)
	if len(sum) != 3 {
		t.Fatalf("got %d summary rows", len(sum))
	}
	tg := sum[0]
	if tg.test != "tg128" || tg.ratio != 0.6 || tg.waggle != 6 || tg.llama != 10 || tg.rounds != 3 {
		t.Errorf("tg summary %+v", tg)
	}
	if sum[1].ratio != 0.5 || sum[2].ratio != 1.5 {
		t.Errorf("pp ratio %v, want 0.5; depth ratio %v, want 1.5", sum[1].ratio, sum[2].ratio)
	}
	var b bytes.Buffer
	printTable(&b, sum, &config{bandwidth: 20, int8Peak: 1000, rounds: 3})
	s := b.String()
	for _, want := range []string{
		// tg: 1 GB × 10 t/s = 10 GB/s for llama.cpp, 50% of 20 GB/s; waggle 6 GB/s, 30%.
		"| m.gguf (llama 1B Q4_0) | 2 | tg128 | f16 | 10.00 | 6.00 | 0.600 | 10.00 | 6.00 | 50.0% | 30.0% | — | — |",
		// pp: 2 × 1.25 G parameters × 100 t/s = 250 GOPS, 25% of 1000; waggle 12.5%.
		"| pp512 | f16 | 100.00 | 50.00 | 0.500 | — | — | — | — | 25.0% | 12.5% |",
		// at depth the weights are not what is read: no GB/s.
		"| tg32 @ d8192 | f16 | 4.00 | 6.00 | 1.500 | — | — | — | — | — | — |",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("table lacks %q:\n%s", want, s)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{3, 1, 2}, 2}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.v); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}

func TestParseRowsRejectsBadInput(t *testing.T) {
	for _, in := range []string{"", "[]", "{", `{"n_prompt": 1}`} {
		if _, err := parseRows([]byte(in)); err == nil {
			t.Errorf("parseRows(%q): no error", in)
		}
	}
}

// TestSuiteDryRun: the suite lists, for the models present, the commands
// of every target row with the same settings for both tools, and names the
// missing models with the command that makes them.
func TestSuiteDryRun(t *testing.T) {
	dir := t.TempDir()
	for _, m := range []suiteModel{dense1B[0], dense1B[1], moeModels[0]} {
		if err := os.WriteFile(filepath.Join(dir, m.file), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := &config{suite: true, dryRun: true, llamaBin: "/opt/llama", modelDir: dir, threads: 2, reps: 3, rounds: 3,
		depthFill: "random", sections: allSections}
	out := captureStdout(t, func() {
		if err := runSuite(c); err != nil {
			t.Error(err)
		}
	})
	q4 := filepath.Join(dir, dense1B[0].file)
	for _, want := range []string{
		"### Prefill and decode, Llama-3.2-1B shape",
		"/opt/llama/llama-bench -m " + q4 + " -p 512 -n 128 -t 2 -r 3 -o json\n",
		" bench -m " + q4 + " -p 512 -n 128 -t 2 -r 3 -o json\n",
		"Missing `" + filepath.Join(dir, dense1B[2].file) + "`; make it with `go run ./bench/gen -shape llama3.2-1b -type q8_0 -o ../bench-models/synth-llama3.2-1b-q8_0.gguf`",
		"/opt/llama/llama-bench -m " + q4 + " -p 0 -n 32 -t 2 -r 1 -d 32768 -ctk turbo3 -ctv turbo3 -o json -fa 1\n",
		" bench -m " + q4 + " -p 0 -n 32 -t 2 -r 1 -d 32768 -ctk turbo3 -ctv turbo3 -o json --depth-fill random\n",
		"-verify-cost -t 2 -rounds 9",
		"synth-qwen3-30b-a3b-12l-q4_k_m.gguf -p 512 -n 128",
		"### Mixture of experts and hybrid shapes\n\nMissing `" + filepath.Join(dir, moeModels[1].file) + "`; make it with `go run ./bench/gen -shape qwen3.5-0.8b -type q8_0",
		"-llama-server /opt/llama/llama-server",
		"-np 4,8 -clients 16,64 -n 128",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
}

// captureStdout returns what f prints to os.Stdout.
func captureStdout(t *testing.T, f func()) string {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	old := os.Stdout
	os.Stdout = w
	done := make(chan string)
	go func() { b, _ := io.ReadAll(r); done <- string(b) }()
	f()
	os.Stdout = old
	w.Close()
	return <-done
}

func TestGenModelNames(t *testing.T) {
	m := genModel("qwen3-30b-a3b", "q4_k_m", 12)
	if m.file != "synth-qwen3-30b-a3b-12l-q4_k_m.gguf" || !strings.Contains(m.gen, "-shape qwen3-30b-a3b -type q4_k_m -layers 12 -o ../bench-models/"+m.file) {
		t.Fatalf("%+v", m)
	}
}
