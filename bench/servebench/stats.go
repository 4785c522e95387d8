package main

import (
	"fmt"
	"io"
	"math"
	"slices"
)

func latencies(rs []result) []float64 {
	out := make([]float64, len(rs))
	for i := range rs {
		out[i] = rs[i].latency().Seconds()
	}
	return out
}

func ttfts(rs []result) []float64 {
	out := make([]float64, len(rs))
	for i := range rs {
		out[i] = rs[i].ttft().Seconds()
	}
	return out
}

// pct is the p-th percentile of v by the nearest-rank rule (the smallest
// value with at least p% of the values at or below it; p 50 of an even
// count is the lower middle value). 0 for an empty v.
func pct(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	k := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(k, len(s)-1))]
}

// metrics are the five figures of one row: throughput, then latency and
// TTFT percentiles in seconds.
type metrics struct {
	tps, lat50, lat99, ttft50, ttft99 float64
}

func measure(rs []result, tps float64) metrics {
	l, t := latencies(rs), ttfts(rs)
	return metrics{tps: tps, lat50: pct(l, 50), lat99: pct(l, 99), ttft50: pct(t, 50), ttft99: pct(t, 99)}
}

// row is one line of the table: a server over all rounds of one
// configuration, or (server "ratio") the median per-round ratios.
type row struct {
	np, clients   int
	server        string
	m             metrics
	rounds        int
	streams, same int // Waggle: streams checked and equal to their solo run
}

// summarize pools each server's requests over the rounds of a
// configuration (throughput: the median over rounds) and adds the median
// of the per-round ratios waggle / llama-server for every figure.
func summarize(waves []*waveStat) []row {
	type key struct{ np, clients int }
	var order []key
	byKey := map[key][]*waveStat{}
	for _, w := range waves {
		k := key{w.np, w.clients}
		if byKey[k] == nil {
			order = append(order, k)
		}
		byKey[k] = append(byKey[k], w)
	}
	var out []row
	for _, k := range order {
		perRound := map[int]map[string]metrics{}
		for _, name := range []string{"llama-server", "waggle"} {
			var all []result
			var tps []float64
			r := row{np: k.np, clients: k.clients, server: name}
			for _, w := range byKey[k] {
				if w.server != name {
					continue
				}
				all = append(all, w.results...)
				tps = append(tps, w.tps())
				r.rounds++
				if name == "waggle" {
					r.streams += len(w.results)
					r.same += len(w.results) - w.mismatches
				}
				if perRound[w.round] == nil {
					perRound[w.round] = map[string]metrics{}
				}
				perRound[w.round][name] = measure(w.results, w.tps())
			}
			if r.rounds == 0 {
				continue
			}
			r.m = measure(all, median(tps))
			out = append(out, r)
		}
		if ratio, n := ratios(perRound); n > 0 {
			out = append(out, row{np: k.np, clients: k.clients, server: "ratio", m: ratio, rounds: n})
		}
	}
	return out
}

// ratios is the median over rounds of waggle / llama-server per figure.
func ratios(perRound map[int]map[string]metrics) (metrics, int) {
	var tps, l50, l99, t50, t99 []float64
	for _, m := range perRound {
		w, okW := m["waggle"]
		l, okL := m["llama-server"]
		if !okW || !okL {
			continue
		}
		tps, l50, l99 = append(tps, w.tps/l.tps), append(l50, w.lat50/l.lat50), append(l99, w.lat99/l.lat99)
		t50, t99 = append(t50, w.ttft50/l.ttft50), append(t99, w.ttft99/l.ttft99)
	}
	return metrics{median(tps), median(l50), median(l99), median(t50), median(t99)}, len(tps)
}

// median of v (the mean of the middle two for an even count); 0 if empty.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// printTable writes the markdown table and returns the number of Waggle
// streams that differed from their solo runs.
func printTable(w io.Writer, c *config, rows []row) int {
	fmt.Fprintln(w, "| -np | clients × requests | server | completion t/s | latency p50 s | latency p99 s | TTFT p50 s | TTFT p99 s | streams = solo |")
	fmt.Fprintln(w, "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
	bad := 0
	for _, r := range rows {
		cfg := fmt.Sprintf("| %d | %d × %d |", r.np, r.clients, c.requests)
		switch r.server {
		case "ratio":
			fmt.Fprintf(w, "%s **waggle ÷ llama-server** | **%.2f** | **%.2f** | **%.2f** | **%.2f** | **%.2f** | |\n",
				cfg, r.m.tps, r.m.lat50, r.m.lat99, r.m.ttft50, r.m.ttft99)
		default:
			eq := ""
			if r.server == "waggle" {
				eq = fmt.Sprintf("%d/%d", r.same, r.streams)
				bad += r.streams - r.same
			}
			fmt.Fprintf(w, "%s %s | %.1f | %.2f | %.2f | %.2f | %.2f | %s |\n",
				cfg, r.server, r.m.tps, r.m.lat50, r.m.lat99, r.m.ttft50, r.m.ttft99, eq)
		}
	}
	fmt.Fprintf(w, "\n%d alternating rounds per row, %d-token completions (temperature 0, ignore_eos), %d distinct prompts of %d words, cache_prompt %v; "+
		"t/s is the median over rounds, percentiles pool every round's requests (nearest rank), ratios are medians of per-round ratios "+
		"(above 1 is better for t/s, below 1 for latency and TTFT).\n", c.rounds, c.nPredict, c.prompts, c.promptWords, c.cachePrompt)
	return bad
}
