package main

import (
	"encoding/hex"
	"path/filepath"
	"strings"
	"testing"

	"github.com/waggle-llm/waggle/internal/golden"
	"github.com/waggle-llm/waggle/internal/testenv"
)

// cliArgs turns a recorded llama-diffusion-cli command line (the prompt
// is not quoted there: it runs from -p to the next flag) into arguments
// for `waggle diffuse`, with the model found in the fixtures folder.
func cliArgs(t *testing.T, command string) []string {
	t.Helper()
	fields := strings.Fields(command)
	if len(fields) == 0 || fields[0] != "llama-diffusion-cli" {
		t.Fatalf("not a llama-diffusion-cli command: %q", command)
	}
	args := []string{"diffuse"}
	for i := 1; i < len(fields); i++ {
		switch f := fields[i]; f {
		case "-m":
			i++
			args = append(args, "-m", testenv.Model(t, filepath.Join("diffusion", fields[i])))
		case "-p":
			j := i + 1
			for j < len(fields) && !strings.HasPrefix(fields[j], "-") {
				j++
			}
			args = append(args, "-p", strings.Join(fields[i+1:j], " "))
			i = j - 1
		default:
			args = append(args, f)
		}
	}
	return args
}

// TestDiffuseMatchesLlamaDiffusionCLI runs every recorded
// llama-diffusion-cli command line of goldens-diffusion through `waggle
// diffuse` unchanged and compares the printed text with the CLI's, byte
// for byte.
func TestDiffuseMatchesLlamaDiffusionCLI(t *testing.T) {
	n := 0
	for _, stem := range []string{"synth-dream-spm-f32", "synth-llada-spm-f32"} {
		g, err := golden.LoadDiffusion(testenv.Model(t, filepath.Join("goldens-diffusion", stem+".json")))
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range g.Traces {
			if tr.Mode != "cli" {
				continue
			}
			n++
			t.Run(stem+"/"+tr.Name(), func(t *testing.T) {
				want, err := hex.DecodeString(tr.CLITextHex)
				if err != nil {
					t.Fatal(err)
				}
				out, err := runCLI(t, cliArgs(t, tr.CLICommand)...)
				if err != nil {
					t.Fatal(err)
				}
				if out != string(want)+"\n" {
					t.Errorf("printed %q\nllama-diffusion-cli printed %q", out, want)
				}
			})
		}
	}
	if n != 14 {
		t.Fatalf("%d cli traces, want 14", n)
	}
}

// TestDiffuseRejects checks the clear errors of a bad command line.
func TestDiffuseRejects(t *testing.T) {
	dream := model(t, filepath.Join("diffusion", "synth-dream-spm-f32.gguf"))
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-m", dream, "-p", "hi", "-ub", "64"}, "exactly one of diffusion eps"},
		{[]string{"-m", dream, "-p", "hi", "-ub", "64", "--diffusion-eps", "0.01", "--diffusion-block-length", "32"}, "exactly one of diffusion eps"},
		{[]string{"-m", dream, "-p", "hi", "-ub", "96", "--diffusion-block-length", "32", "--diffusion-steps", "10"}, "divide evenly"},
		{[]string{"-m", dream, "-p", "hi", "-ub", "8", "--diffusion-eps", "0.01"}, "leaves no canvas"},
		{[]string{"-m", dream, "-p", "hi", "--diffusion-eps", "0.01", "--diffusion-algorithm", "9"}, "unknown diffusion algorithm"},
		{[]string{"-m", dream, "-p", "hi", "--diffusion-eps", "0.01", "--top-p", "0"}, "top-p"},
		{[]string{"-m", model(t, "stories260K-f32.gguf"), "-p", "hi", "--diffusion-eps", "0.01"}, "not a diffusion architecture"},
	} {
		_, err := runCLI(t, append([]string{"diffuse"}, tc.args...)...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want one containing %q", tc.args, err, tc.want)
		}
	}
}
