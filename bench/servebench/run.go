package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/waggle-llm/waggle/bench/report"
)

// waveStat is one wave on one server.
type waveStat struct {
	np, clients, round int
	server             string
	tokens             int
	wall               time.Duration
	results            []result
	mismatches         int // Waggle streams that differ from their solo run
}

func (w *waveStat) tps() float64 { return float64(w.tokens) / w.wall.Seconds() }

func run(c *config) error {
	if err := c.validate(); err != nil {
		return err
	}
	if c.waggleURL == "" && c.waggle == "" && c.only != "llama-server" {
		dir, err := os.MkdirTemp("", "servebench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		if c.waggle, err = buildWaggle(dir); err != nil {
			return err
		}
	}
	prov := report.Collect()
	l := &load{prompts: makePrompts(c.prompts, c.promptWords), nPredict: c.nPredict, cachePrompt: c.cachePrompt, timeout: c.timeout}
	tr, err := newTrace(c.trace)
	if err != nil {
		return err
	}
	defer tr.close()
	var solo []result
	var waves []*waveStat
	for _, np := range c.parallel {
		sides, err := c.startSides(np)
		if err != nil {
			return err
		}
		if solo == nil && sides[0].name == "waggle" {
			if solo, err = l.soloRuns(sides[0]); err != nil {
				stopAll(sides)
				return err
			}
		}
		ws, err := c.runConfig(l, sides, np, solo, tr)
		stopAll(sides)
		waves = append(waves, ws...)
		if err != nil {
			return err
		}
	}
	if c.markdown {
		fmt.Printf("### Serving against llama-server\n\n")
		prov.Write(os.Stdout)
	}
	bad := printTable(os.Stdout, c, summarize(waves))
	if bad > 0 {
		return fmt.Errorf("%d Waggle streams differ from their solo runs", bad)
	}
	return nil
}

// startSides starts (or attaches to) Waggle, then llama-server when one is
// given; Waggle, when driven, is first.
func (c *config) startSides(np int) ([]*server, error) {
	var sides []*server
	switch {
	case c.only == "llama-server":
	case c.waggleURL != "":
		sides = append(sides, attach("waggle", c.waggleURL))
	default:
		args := append(append([]string{"serve"}, c.serverArgs(np)...), c.extraWaggle...)
		s, err := start("waggle", c.waggle, args, 10*time.Minute)
		if err != nil {
			return nil, err
		}
		sides = append(sides, s)
	}
	switch {
	case c.only == "waggle":
	case c.llamaURL != "":
		sides = append(sides, attach("llama-server", c.llamaURL))
	case c.llamaServer != "":
		s, err := start("llama-server", c.llamaServer, append(c.serverArgs(np), c.extraLlama...), 10*time.Minute)
		if err != nil {
			stopAll(sides)
			return nil, err
		}
		sides = append(sides, s)
	}
	return sides, nil
}

func stopAll(sides []*server) {
	for _, s := range sides {
		s.stop()
	}
}

// soloRuns runs every prompt alone on Waggle: the reference every
// concurrent Waggle stream must equal.
func (l *load) soloRuns(s *server) ([]result, error) {
	out := make([]result, len(l.prompts))
	t0 := time.Now()
	for k := range out {
		out[k].prompt = k
		l.complete(s, &out[k], t0)
		if err := l.check(&out[k]); err != nil {
			return nil, fmt.Errorf("solo run of prompt %d: %w", k, err)
		}
	}
	fmt.Fprintf(os.Stderr, "servebench: %d solo runs on waggle in %v\n", len(out), time.Since(t0).Round(time.Millisecond))
	return out, nil
}

// check fails a completion that errored or did not make exactly nPredict
// tokens (so both servers do the same work).
func (l *load) check(r *result) error {
	if r.err != nil {
		return r.err
	}
	if r.tokens != l.nPredict {
		return fmt.Errorf("%d completion tokens (finish %q), want %d: is -c large enough for -np slots?", r.tokens, r.finish, l.nPredict)
	}
	return nil
}

// runConfig runs every client count's rounds on sides, alternating which
// server goes first.
func (c *config) runConfig(l *load, sides []*server, np int, solo []result, tr *trace) ([]*waveStat, error) {
	var out []*waveStat
	for _, nc := range c.clients {
		for round := range c.rounds {
			order := append([]*server(nil), sides...)
			if round%2 == 1 {
				for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
					order[i], order[j] = order[j], order[i]
				}
			}
			for _, s := range order {
				res, wall := l.wave(s, nc, c.requests)
				w := &waveStat{np: np, clients: nc, round: round, server: s.name, wall: wall, results: res}
				for i := range res {
					if err := l.check(&res[i]); err != nil {
						return out, fmt.Errorf("%s, -np %d, %d clients, client %d request %d: %w", s.name, np, nc, res[i].client, res[i].seq, err)
					}
					w.tokens += res[i].tokens
					if s.name == "waggle" && !sameStream(&res[i], &solo[res[i].prompt]) {
						w.mismatches++
						fmt.Fprintf(os.Stderr, "servebench: MISMATCH -np %d, %d clients, round %d, client %d request %d (prompt %d):\n  got  %q\n  solo %q\n",
							np, nc, round, res[i].client, res[i].seq, res[i].prompt, res[i].text, solo[res[i].prompt].text)
					}
				}
				tr.write(w)
				fmt.Fprintf(os.Stderr, "servebench: -np %d, %d clients × %d, round %d/%d, %s: %.1f t/s, latency p50 %.2f s, TTFT p50 %.2f s\n",
					np, nc, c.requests, round+1, c.rounds, s.name, w.tps(), pct(latencies(res), 50), pct(ttfts(res), 50))
				out = append(out, w)
			}
		}
	}
	return out, nil
}

// sameStream reports whether a concurrent stream equals its solo run:
// the same text, token count and finish reason.
func sameStream(a, solo *result) bool {
	return a.text == solo.text && a.tokens == solo.tokens && a.finish == solo.finish
}

// trace writes every request's timings as CSV (-trace), for looking at
// the order in which requests start, stream and finish.
type trace struct {
	f *os.File
	w *csv.Writer
}

func newTrace(path string) (*trace, error) {
	if path == "" {
		return &trace{}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	t := &trace{f: f, w: csv.NewWriter(f)}
	_ = t.w.Write([]string{"server", "np", "clients", "round", "client", "seq", "prompt", "sent_ms", "first_ms", "end_ms", "tokens"})
	return t, nil
}

func (t *trace) write(w *waveStat) {
	if t.w == nil {
		return
	}
	ms := func(d time.Duration) string { return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 1, 64) }
	for _, r := range w.results {
		_ = t.w.Write([]string{w.server, strconv.Itoa(w.np), strconv.Itoa(w.clients), strconv.Itoa(w.round),
			strconv.Itoa(r.client), strconv.Itoa(r.seq), strconv.Itoa(r.prompt), ms(r.sent), ms(r.first), ms(r.end), strconv.Itoa(r.tokens)})
	}
}

func (t *trace) close() {
	if t.w != nil {
		t.w.Flush()
		t.f.Close()
	}
}
