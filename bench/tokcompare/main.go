// Command tokcompare tokenizes the same mixed-text file with `waggle
// tokenize` and llama.cpp's `llama-tokenize`, interleaved, for every vocab
// in a folder, and prints a markdown table of wall times, their ratio and
// whether the ids agree. Both tools load the vocabulary and tokenize in one
// process run, so the times compare like with like.
//
//	go run ./bench/tokcompare -llama-tokenize /path/to/llama-tokenize \
//	    -vocabs ../shared/testdata/tokenizer -size 1048576 -rounds 3
//
// It does not build or fetch llama.cpp; give it a binary you built.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

func main() {
	llamaTok := flag.String("llama-tokenize", "", "path to llama.cpp's llama-tokenize (required)")
	waggle := flag.String("waggle", "", "path to a waggle binary (default: build ./cmd/waggle)")
	vocabs := flag.String("vocabs", "../shared/testdata/tokenizer", "folder of ggml-vocab-*.gguf files")
	size := flag.Int("size", 1<<20, "bytes of mixed text")
	rounds := flag.Int("rounds", 3, "interleaved rounds per vocab")
	flag.Parse()
	if *llamaTok == "" {
		fail(fmt.Errorf("-llama-tokenize is required"))
	}
	dir, err := os.MkdirTemp("", "tokcompare")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	if *waggle == "" {
		*waggle = filepath.Join(dir, "waggle")
		if out, err := exec.Command("go", "build", "-o", *waggle, "./cmd/waggle").CombinedOutput(); err != nil {
			fail(fmt.Errorf("building waggle: %v\n%s", err, out))
		}
	}
	text := filepath.Join(dir, "mixed.txt")
	if err := os.WriteFile(text, mixedText(*size), 0o644); err != nil {
		fail(err)
	}
	files, _ := filepath.Glob(filepath.Join(*vocabs, "ggml-vocab-*.gguf"))
	if len(files) == 0 {
		fail(fmt.Errorf("no vocab files in %s", *vocabs))
	}
	fmt.Printf("%d bytes of mixed text, %d interleaved rounds, median wall time per run (load + tokenize)\n\n", *size, *rounds)
	fmt.Println("| vocab | tokens | llama-tokenize s | waggle s | speed ratio (llama/waggle) | ids equal |")
	fmt.Println("| --- | ---: | ---: | ---: | ---: | --- |")
	for _, f := range files {
		row, err := compare(*llamaTok, *waggle, f, text, *rounds)
		if err != nil {
			fmt.Printf("| %s | error: %v | | | | |\n", vocabName(f), err)
			continue
		}
		fmt.Println(row)
	}
}

// compare runs both tokenizers rounds times, alternating which goes first.
func compare(llamaTok, waggle, vocab, text string, rounds int) (string, error) {
	llamaArgs := []string{"-m", vocab, "-f", text, "--ids", "--log-disable", "--no-escape"}
	waggleArgs := []string{"tokenize", "-m", vocab, "-f", text, "--ids", "--no-escape"}
	var lt, wt []float64
	var lOut, wOut []byte
	for r := range rounds {
		runs := []func() error{
			func() (err error) {
				var d float64
				lOut, d, err = timed(llamaTok, llamaArgs)
				lt = append(lt, d)
				return
			},
			func() (err error) {
				var d float64
				wOut, d, err = timed(waggle, waggleArgs)
				wt = append(wt, d)
				return
			},
		}
		if r%2 == 1 {
			runs[0], runs[1] = runs[1], runs[0]
		}
		for _, run := range runs {
			if err := run(); err != nil {
				return "", err
			}
		}
	}
	l, w := median(lt), median(wt)
	n := strings.Count(string(bytes.TrimSpace(wOut)), ",") + 1
	return fmt.Sprintf("| %s | %d | %.3f | %.3f | %.2fx | %v |", vocabName(vocab), n, l, w, l/w, bytes.Equal(bytes.TrimSpace(lOut), bytes.TrimSpace(wOut))), nil
}

func timed(bin string, args []string) ([]byte, float64, error) {
	var out, errOut bytes.Buffer
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	t0 := time.Now()
	err := cmd.Run()
	d := time.Since(t0).Seconds()
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %v: %s", filepath.Base(bin), err, lastLine(errOut.String()))
	}
	return out.Bytes(), d, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func median(x []float64) float64 {
	s := append([]float64(nil), x...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func vocabName(path string) string {
	return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "ggml-vocab-"), ".gguf")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "tokcompare:", err)
	os.Exit(1)
}
