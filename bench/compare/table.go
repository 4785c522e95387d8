package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
)

// benchRow is the part of one llama-bench JSON record (and of waggle
// bench's, which uses the same names) that the comparison needs.
type benchRow struct {
	ModelType string  `json:"model_type"`
	ModelSize int64   `json:"model_size"`
	NParams   int64   `json:"model_n_params"`
	NPrompt   int     `json:"n_prompt"`
	NGen      int     `json:"n_gen"`
	NDepth    int     `json:"n_depth"`
	AvgTs     float64 `json:"avg_ts"`
	StddevTs  float64 `json:"stddev_ts"`
}

// test names the row as llama-bench does: pp512, tg128, tg32 @ d8192.
func (r benchRow) test() string {
	t := fmt.Sprintf("pp%d", r.NPrompt)
	if r.NGen > 0 {
		t = fmt.Sprintf("tg%d", r.NGen)
	}
	if r.NDepth > 0 {
		t += fmt.Sprintf(" @ d%d", r.NDepth)
	}
	return t
}

// parseRows reads a JSON array of records (llama-bench -o json).
func parseRows(b []byte) ([]benchRow, error) {
	var rows []benchRow
	if err := json.Unmarshal(b, &rows); err != nil {
		return nil, fmt.Errorf("parsing bench JSON: %w", err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("bench JSON has no records")
	}
	return rows, nil
}

// measurement is one tool's result for one test of case c in one round.
type measurement struct {
	tool  string
	c     int // index into the cases
	round int
	row   benchRow
}

// summary is one line of the table.
type summary struct {
	c             *benchCase
	test          string
	row           benchRow // llama-bench's record: model type, size, parameters
	llama, waggle float64  // median t/s over rounds
	ratio         float64  // median over rounds of waggle/llama
	rounds        int
}

// summarize pairs the two tools' results per case, test and round.
func summarize(cases []benchCase, ms []measurement) []summary {
	type key struct {
		c    int
		test string
	}
	type pair struct{ llama, waggle float64 }
	rounds := map[key]map[int]*pair{}
	var order []key
	rows := map[key]benchRow{}
	for _, m := range ms {
		k := key{m.c, m.row.test()}
		if rounds[k] == nil {
			rounds[k] = map[int]*pair{}
			order = append(order, k)
		}
		if rounds[k][m.round] == nil {
			rounds[k][m.round] = &pair{}
		}
		if m.tool == "waggle" {
			rounds[k][m.round].waggle = m.row.AvgTs
		} else {
			rounds[k][m.round].llama = m.row.AvgTs
			rows[k] = m.row
		}
	}
	var out []summary
	for _, k := range order {
		var l, w, r []float64
		for _, p := range rounds[k] {
			if p.llama > 0 && p.waggle > 0 {
				l, w, r = append(l, p.llama), append(w, p.waggle), append(r, p.waggle/p.llama)
			}
		}
		out = append(out, summary{c: &cases[k.c], test: k.test, row: rows[k],
			llama: median(l), waggle: median(w), ratio: median(r), rounds: len(r)})
	}
	return out
}

// median of v (the mean of the middle two for an even count); 0 if empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// printTable writes the markdown comparison. tg rows at depth 0 get the
// weight bytes read per second by each tool (every generated token reads
// all the weights once) and, given -bw, their share of it; pp rows of
// dense models, given -int8-peak, the share of the int8 multiply-add peak
// their arithmetic (2 × parameters per token) reaches (a mixture of
// experts computes only its active parameters, which the JSON does not
// give).
func printTable(w io.Writer, rows []summary, c *config) {
	head := "| model | threads | test | KV cache | llama.cpp t/s | waggle t/s | waggle / llama.cpp | llama.cpp GB/s | waggle GB/s |"
	sep := "| --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |"
	if c.bandwidth > 0 {
		head += fmt.Sprintf(" llama.cpp %% of %.1f GB/s | waggle %% of %.1f GB/s |", c.bandwidth, c.bandwidth)
		sep += " ---: | ---: |"
	}
	if c.int8Peak > 0 {
		head += fmt.Sprintf(" llama.cpp %% of int8 peak | waggle %% of int8 peak |")
		sep += " ---: | ---: |"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, sep)
	for _, r := range rows {
		lg, wg, lb, wb, lp, wp := "—", "—", "—", "—", "—", "—"
		tg := strings.HasPrefix(r.test, "tg")
		if tg && r.row.NDepth == 0 && r.row.ModelSize > 0 {
			lgv, wgv := float64(r.row.ModelSize)*r.llama/1e9, float64(r.row.ModelSize)*r.waggle/1e9
			lg, wg = fmt.Sprintf("%.2f", lgv), fmt.Sprintf("%.2f", wgv)
			if c.bandwidth > 0 {
				lb, wb = fmt.Sprintf("%.1f%%", 100*lgv/c.bandwidth), fmt.Sprintf("%.1f%%", 100*wgv/c.bandwidth)
			}
		}
		if !tg && c.int8Peak > 0 && r.row.NParams > 0 && !strings.Contains(r.row.ModelType, "moe") {
			ops := 2 * float64(r.row.NParams) / 1e9 // GOP per token
			lp, wp = fmt.Sprintf("%.1f%%", 100*ops*r.llama/c.int8Peak), fmt.Sprintf("%.1f%%", 100*ops*r.waggle/c.int8Peak)
		}
		fmt.Fprintf(w, "| %s (%s) | %d | %s | %s | %.2f | %.2f | %.3f | %s | %s |", filepath.Base(r.c.model), r.row.ModelType,
			r.c.threads, r.test, r.c.cache(), r.llama, r.waggle, r.ratio, lg, wg)
		if c.bandwidth > 0 {
			fmt.Fprintf(w, " %s | %s |", lb, wb)
		}
		if c.int8Peak > 0 {
			fmt.Fprintf(w, " %s | %s |", lp, wp)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n%d alternating rounds; ratio = median over rounds of waggle/llama.cpp.\n\n", c.rounds)
}
