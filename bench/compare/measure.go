package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/waggle-llm/waggle/bench/report"
)

// measure runs every case in every round, both tools per case, llama.cpp
// first on even rounds, and summarizes. With -dry-run it prints the
// commands of the first round and measures nothing.
func (c *config) measure(cases []benchCase) ([]summary, error) {
	var all []measurement
	rounds := c.rounds
	if c.dryRun {
		rounds = 1
	}
	for round := range rounds {
		for i := range cases {
			ms, err := c.round(round, i, &cases[i])
			if err != nil {
				return nil, err
			}
			all = append(all, ms...)
		}
	}
	return summarize(cases, all), nil
}

// round runs both tools once on case i.
func (c *config) round(round, i int, b *benchCase) ([]measurement, error) {
	tools := []string{"llama.cpp", "waggle"}
	if round%2 == 1 {
		tools[0], tools[1] = tools[1], tools[0]
	}
	var out []measurement
	for _, tool := range tools {
		bin, args := c.llamaBench, b.llamaArgs(c.extraLlama)
		if tool == "waggle" {
			bin, args = c.waggle, b.waggleArgs(c.depthFill)
		}
		if c.dryRun {
			fmt.Println(shellLine(bin, args))
			continue
		}
		fmt.Fprintf(os.Stderr, "compare: round %d/%d: %s on %s\n", round+1, c.rounds, tool, filepath.Base(b.model))
		rows, err := runBench(bin, args)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			fmt.Fprintf(os.Stderr, "compare: round %d/%d: %s %s %.2f ± %.2f t/s\n", round+1, c.rounds, tool, r.test(), r.AvgTs, r.StddevTs)
			out = append(out, measurement{tool: tool, c: i, round: round, row: r})
		}
	}
	return out, nil
}

// runBench runs one bench tool and parses its JSON rows; both tools log
// to stderr, which is kept for the error message only.
func runBench(bin string, args []string) ([]benchRow, error) {
	cmd := exec.Command(bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		tail := stderr.String()
		if len(tail) > 2000 {
			tail = tail[len(tail)-2000:]
		}
		return nil, fmt.Errorf("%s: %w\n%s", shellLine(bin, args), err, tail)
	}
	return parseRows(out)
}

// shellLine renders a command for the reader to copy.
func shellLine(bin string, args []string) string {
	parts := []string{report.Quote(bin)}
	for _, a := range args {
		parts = append(parts, report.Quote(a))
	}
	return strings.Join(parts, " ")
}

// provenance prints the date, commit, machine and this command.
func provenance(w *os.File) { report.Collect().Write(w) }
