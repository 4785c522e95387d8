package main

import (
	"bytes"
	"strings"
	"testing"
)

// llamaJSON is the shape of llama-bench -o json (fields trimmed).
const llamaJSON = `[
  {"build_commit": "x", "model_filename": "m.gguf", "model_type": "llama 1B Q4_0", "model_size": 1000000000,
   "model_n_params": 1235814400, "n_threads": 2, "n_prompt": 512, "n_gen": 0, "avg_ns": 5000000000,
   "stddev_ns": 1, "avg_ts": 102.4, "stddev_ts": 0.5, "samples_ns": [1], "samples_ts": [102.4]},
  {"model_type": "llama 1B Q4_0", "model_size": 1000000000, "n_prompt": 0, "n_gen": 128, "avg_ts": 10.0, "stddev_ts": 0.1}
]`

func TestParseAndSummarize(t *testing.T) {
	rows, err := parseRows([]byte(llamaJSON))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].test() != "pp512" || rows[1].test() != "tg128" || rows[1].ModelSize != 1e9 {
		t.Fatalf("parsed %+v", rows)
	}
	var ms []measurement
	// three rounds; waggle's tg is 0.5x, 0.6x and 0.9x of llama.cpp's.
	for i, w := range []float64{5, 6, 9} {
		ms = append(ms,
			measurement{tool: "llama.cpp", model: "m.gguf", round: i, row: rows[1]},
			measurement{tool: "waggle", model: "m.gguf", round: i, row: benchRow{NGen: 128, AvgTs: w}},
			measurement{tool: "llama.cpp", model: "m.gguf", round: i, row: rows[0]},
			measurement{tool: "waggle", model: "m.gguf", round: i, row: benchRow{NPrompt: 512, AvgTs: 51.2}})
	}
	sum := summarize(ms)
	if len(sum) != 2 {
		t.Fatalf("got %d summary rows", len(sum))
	}
	tg := sum[0]
	if tg.test != "tg128" || tg.ratio != 0.6 || tg.waggle != 6 || tg.llama != 10 || tg.rounds != 3 {
		t.Errorf("tg summary %+v", tg)
	}
	if sum[1].ratio != 0.5 {
		t.Errorf("pp ratio %v, want 0.5", sum[1].ratio)
	}
	var b bytes.Buffer
	printTable(&b, sum, &config{bandwidth: 20, rounds: 3, threads: 2, reps: 3})
	// tg: 1 GB × 10 t/s = 10 GB/s for llama.cpp, 50% of 20 GB/s; waggle 6 GB/s, 30%.
	if s := b.String(); !strings.Contains(s, "| tg128 | 10.00 | 6.00 | 0.600 | 10.00 | 6.00 | 50.0% | 30.0% |") {
		t.Errorf("table:\n%s", s)
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
