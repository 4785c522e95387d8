package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
)

// allSections are the performance targets -suite measures, in order:
//
//	bw       the machine's read bandwidth and int8 multiply-add peak
//	         (bench/membw): the walls for decode and prefill
//	pp       pp512 and tg128 of the Llama-3.2-1B shape, Q4_0, Q4_K_M, Q8_0, F16
//	depth    tg32 at depth 8K and 32K, f16, q8_0 and turbo3 caches, Q4_0 and
//	         Q4_K_M; llama.cpp with flash attention on (its default, auto, is
//	         on for the CPU), Waggle with its default (auto)
//	verify   the cost of verifying k drafted tokens against one plain step
//	moe      pp512 and tg128 of the Qwen3-30B-A3B shape (12 of 48 layers, all
//	         128 experts) and the Qwen3.5-0.8B shape
//	serve    16 and 64 clients, 128-token completions, -np 4 and 8, against
//	         llama-server (bench/servebench)
//	threads  pp512 and tg128 of the 1B Q4_0 model at 1, 2, 4, 8, 16 threads
//	         (only on a machine with 16 or more cores)
var allSections = []string{"bw", "pp", "depth", "verify", "moe", "serve", "threads"}

// suiteModel is a bench/gen model: its file name under -models and the
// command that makes it.
type suiteModel struct{ file, gen string }

func genModel(shape, typ string, layers int) suiteModel {
	name, extra := shape, ""
	if layers > 0 {
		name, extra = fmt.Sprintf("%s-%dl", shape, layers), fmt.Sprintf(" -layers %d", layers)
	}
	file := fmt.Sprintf("synth-%s-%s.gguf", name, typ)
	return suiteModel{file, fmt.Sprintf("go run ./bench/gen -shape %s -type %s%s -o ../bench-models/%s", shape, typ, extra, file)}
}

var (
	dense1B = []suiteModel{genModel("llama3.2-1b", "q4_0", 0), genModel("llama3.2-1b", "q4_k_m", 0),
		genModel("llama3.2-1b", "q8_0", 0), genModel("llama3.2-1b", "f16", 0)}
	moeModels = []suiteModel{genModel("qwen3-30b-a3b", "q4_k_m", 12),
		genModel("qwen3.5-0.8b", "q8_0", 0), genModel("qwen3.5-0.8b", "q4_k_m", 0)}
)

// runSuite runs the chosen sections and prints one markdown document.
func runSuite(c *config) error {
	if c.llamaBin == "" {
		return fmt.Errorf("-suite needs -llama-bin, the folder holding llama-bench and llama-server")
	}
	for _, s := range c.sections {
		if !slices.Contains(allSections, s) {
			return fmt.Errorf("unknown section %q (have %v)", s, allSections)
		}
	}
	c.llamaBench = filepath.Join(c.llamaBin, "llama-bench")
	cleanup, err := c.buildTools(true)
	if err != nil {
		return err
	}
	defer cleanup()
	fmt.Printf("## Performance targets against llama.cpp\n\n")
	provenance(os.Stdout)
	fmt.Printf("llama.cpp binaries: `%s`; models: `%s`; %d threads; %d alternating rounds.\n\n", c.llamaBin, c.modelDir, c.threads, c.rounds)
	for _, s := range c.sections {
		if err := c.section(s); err != nil {
			return fmt.Errorf("section %s: %w", s, err)
		}
	}
	return nil
}

func (c *config) section(name string) error {
	var q4 string // the 1B Q4_0 model, for the sections that run other tools
	if name == "verify" || name == "serve" {
		q4 = c.modelPath(dense1B[0])
	}
	switch name {
	case "bw":
		return c.bwSection()
	case "pp":
		return c.caseSection("Prefill and decode, Llama-3.2-1B shape", dense1B, func(b benchCase) []benchCase {
			b.p, b.n = 512, 128
			return []benchCase{b}
		})
	case "depth":
		return c.caseSection("Decode at depth, Llama-3.2-1B shape", dense1B[:2], depthCases)
	case "verify":
		fmt.Printf("### Verification cost, Llama-3.2-1B shape Q4_0\n\n")
		if q4 == "" {
			return nil
		}
		return c.toolSection(filepath.Join(c.tools, "specbench"),
			"-verify-cost", "-t", strconv.Itoa(c.threads), "-rounds", "9", "-waggle", c.waggle, "-m", q4)
	case "moe":
		return c.caseSection("Mixture of experts and hybrid shapes", moeModels, func(b benchCase) []benchCase {
			b.p, b.n = 512, 128
			return []benchCase{b}
		})
	case "serve":
		fmt.Printf("### Serving against llama-server\n\n")
		if q4 == "" {
			return nil
		}
		return c.toolSection(filepath.Join(c.tools, "servebench"),
			"-llama-server", filepath.Join(c.llamaBin, "llama-server"), "-waggle", c.waggle, "-m", q4,
			"-t", strconv.Itoa(c.threads), "-np", "4,8", "-clients", "16,64", "-n", "128", "-rounds", strconv.Itoa(c.rounds))
	case "threads":
		if runtime.NumCPU() < 16 {
			fmt.Printf("### Thread scaling\n\nSkipped: %d logical cores (the table needs 16).\n\n", runtime.NumCPU())
			return nil
		}
		return c.caseSection("Thread scaling, Llama-3.2-1B shape Q4_0", dense1B[:1], func(b benchCase) []benchCase {
			var out []benchCase
			for _, t := range []int{1, 2, 4, 8, 16} {
				b.p, b.n, b.threads = 512, 128, t
				out = append(out, b)
			}
			return out
		})
	}
	return nil
}

// depthCases are tg32 at depth 8K and 32K for the f16, q8_0 and turbo3
// caches: one repetition per run (llama-bench prefills the depth before
// every repetition), llama.cpp with flash attention on.
func depthCases(b benchCase) []benchCase {
	var out []benchCase
	for _, d := range []int{8192, 32768} {
		for _, t := range []string{"", "q8_0", "turbo3"} {
			b.p, b.n, b.d, b.ctk, b.ctv, b.llamaFA, b.reps = 0, 32, d, t, t, "1", 1
			out = append(out, b)
		}
	}
	return out
}

// cases expands each present model into the cases of a section; a
// missing model is reported with the command that makes it.
func (c *config) cases(models []suiteModel, expand func(benchCase) []benchCase) []benchCase {
	var out []benchCase
	for _, m := range models {
		p := c.modelPath(m)
		if p == "" {
			continue
		}
		b := c.caseFor(p)
		out = append(out, expand(b)...)
	}
	return out
}

// modelPath is m's path under -models, or "" (with a note) when missing.
func (c *config) modelPath(m suiteModel) string {
	p := filepath.Join(c.modelDir, m.file)
	if _, err := os.Stat(p); err != nil {
		fmt.Printf("Missing `%s`; make it with `%s`.\n\n", p, m.gen)
		return ""
	}
	return p
}

// caseSection measures the cases of the present models side by side and
// prints their table.
func (c *config) caseSection(title string, models []suiteModel, expand func(benchCase) []benchCase) error {
	fmt.Printf("### %s\n\n", title)
	cases := c.cases(models, expand)
	if len(cases) == 0 {
		fmt.Printf("No models.\n\n")
		return nil
	}
	if c.dryRun {
		fmt.Println("```sh")
	}
	sums, err := c.measure(cases)
	if c.dryRun {
		fmt.Printf("```\n\n")
		return err
	}
	if err != nil {
		return err
	}
	printTable(os.Stdout, sums, c)
	fmt.Println("Each round runs, per row, both of:\n\n```sh")
	for i := range cases {
		fmt.Println(shellLine(c.llamaBench, cases[i].llamaArgs(c.extraLlama)))
		fmt.Println(shellLine("waggle", cases[i].waggleArgs(c.depthFill)))
	}
	fmt.Printf("```\n\n")
	return nil
}

// toolSection runs another bench tool and prints its command and output.
func (c *config) toolSection(bin string, args ...string) error {
	fmt.Printf("```sh\n%s\n```\n\n", shellLine(bin, args))
	if c.dryRun {
		return nil
	}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return err
	}
	fmt.Println()
	return nil
}

// bwSection measures the read bandwidth (1..threads) and the int8 peak
// and, unless -bw or -int8-peak was given, uses them for the share
// columns of later sections.
func (c *config) bwSection() error {
	bin := filepath.Join(c.tools, "membw")
	args := []string{"-t", strconv.Itoa(c.threads), "-json"}
	fmt.Printf("### Read bandwidth\n\n```sh\n%s\n```\n\n", shellLine(bin, args[:2]))
	if c.dryRun {
		return nil
	}
	out, err := exec.Command(bin, args...).Output()
	if err != nil {
		return err
	}
	var res struct {
		Rows []struct {
			Threads int     `json:"threads"`
			GoGBs   float64 `json:"go_gbs"`
			VecGBs  float64 `json:"vec_gbs"`
		} `json:"rows"`
		WallGBs      float64 `json:"wall_gbs"`
		Int8Kernel   string  `json:"int8_kernel"`
		Int8PeakGOPS float64 `json:"int8_peak_gops"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return fmt.Errorf("membw output: %w", err)
	}
	var parts []string
	for _, r := range res.Rows {
		parts = append(parts, fmt.Sprintf("%d threads %.1f GB/s (Go loop) / %.1f GB/s (vector)", r.Threads, r.GoGBs, r.VecGBs))
	}
	fmt.Printf("%s; the wall: **%.1f GB/s**.", strings.Join(parts, ", "), res.WallGBs)
	if res.Int8Kernel != "" {
		fmt.Printf(" int8 multiply-add peak (%s, %d threads): **%.0f GOPS**.", res.Int8Kernel, c.threads, res.Int8PeakGOPS)
	}
	fmt.Printf("\n\n")
	if c.bandwidth == 0 {
		c.bandwidth = res.WallGBs
	}
	if c.int8Peak == 0 {
		c.int8Peak = res.Int8PeakGOPS
	}
	return nil
}
