package main

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"slices"
)

// benchRow is the part of one llama-bench JSON record (and of waggle
// bench's, which uses the same names) that the comparison needs.
type benchRow struct {
	ModelType string  `json:"model_type"`
	ModelSize int64   `json:"model_size"`
	NPrompt   int     `json:"n_prompt"`
	NGen      int     `json:"n_gen"`
	AvgTs     float64 `json:"avg_ts"`
	StddevTs  float64 `json:"stddev_ts"`
}

func (r benchRow) test() string {
	if r.NGen > 0 {
		return fmt.Sprintf("tg%d", r.NGen)
	}
	return fmt.Sprintf("pp%d", r.NPrompt)
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

// measurement is one tool's result for one test in one round.
type measurement struct {
	tool, model string
	round       int
	row         benchRow
}

// summary is one line of the table.
type summary struct {
	model, desc, test string
	size              int64
	llama, waggle     float64 // median t/s over rounds
	ratio             float64 // median over rounds of waggle/llama
	rounds            int
}

// summarize pairs the two tools' results per model, test and round.
func summarize(ms []measurement) []summary {
	type key struct{ model, test string }
	type pair struct{ llama, waggle float64 }
	rounds := map[key]map[int]*pair{}
	var order []key
	rows := map[key]benchRow{}
	for _, m := range ms {
		k := key{m.model, m.row.test()}
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
		out = append(out, summary{model: k.model, desc: rows[k].ModelType, test: k.test, size: rows[k].ModelSize,
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

// printTable writes the markdown comparison. For tg rows it adds the weight
// bytes read per second by each tool (every generated token reads all the
// weights once) and, given -bw, waggle's and llama.cpp's share of it.
func printTable(w io.Writer, rows []summary, c *config) {
	fmt.Fprintf(w, "| model | test | llama.cpp t/s | waggle t/s | waggle / llama.cpp | llama.cpp GB/s | waggle GB/s |")
	if c.bandwidth > 0 {
		fmt.Fprintf(w, " llama.cpp %% of %.0f GB/s | waggle %% of %.0f GB/s |", c.bandwidth, c.bandwidth)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: |")
	if c.bandwidth > 0 {
		fmt.Fprint(w, " ---: | ---: |")
	}
	fmt.Fprintln(w)
	for _, r := range rows {
		lg, wg := "", ""
		lp, wp := "", ""
		if r.test[:2] == "tg" {
			lgv, wgv := float64(r.size)*r.llama/1e9, float64(r.size)*r.waggle/1e9
			lg, wg = fmt.Sprintf("%.2f", lgv), fmt.Sprintf("%.2f", wgv)
			if c.bandwidth > 0 {
				lp, wp = fmt.Sprintf("%.1f%%", 100*lgv/c.bandwidth), fmt.Sprintf("%.1f%%", 100*wgv/c.bandwidth)
			}
		}
		fmt.Fprintf(w, "| %s (%s) | %s | %.2f | %.2f | %.3f | %s | %s |", filepath.Base(r.model), r.desc, r.test, r.llama, r.waggle, r.ratio, lg, wg)
		if c.bandwidth > 0 {
			fmt.Fprintf(w, " %s | %s |", lp, wp)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "\n%d alternating rounds, -t %d, -r %d per run; ratio = median over rounds of waggle/llama.cpp.\n", c.rounds, c.threads, c.reps)
}
