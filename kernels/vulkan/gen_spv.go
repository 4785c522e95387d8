//go:build ignore

// gen_spv compiles the GLSL compute shaders in shaders/ to the SPIR-V files
// in spv/ that the package embeds: `go generate` in kernels/vulkan, with
// glslc (Debian: glslc; or the Vulkan SDK) on the PATH. Every variant is a
// source file plus defines; the output name is what Device.Kernel loads.
// CI runs it and fails when the committed files differ.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// weightTypes are the GGML types with a matmul and get_rows variant.
var weightTypes = []string{"f32", "f16", "bf16", "q4_0", "q4_1", "q5_0", "q5_1", "q8_0", "q2_k", "q3_k", "q4_k", "q5_k", "q6_k"}

type variant struct {
	src     string
	defines []string
}

func variants() map[string]variant {
	v := map[string]variant{}
	for _, t := range weightTypes {
		def := "TYPE_" + strings.ToUpper(t)
		v["matmul_"+t] = variant{"matmul", []string{def}}
		v["getrows_"+t] = variant{"getrows", []string{def}}
	}
	for _, t := range []string{"f16", "f32"} {
		def := "KV_" + strings.ToUpper(t)
		v["kvwrite_"+t] = variant{"kvwrite", []string{def}}
		v["attention_"+t] = variant{"attention", []string{def}}
	}
	for _, t := range []string{"q8_0", "q8_k", "f16", "bf16"} {
		v["actquant_"+t] = variant{"actquant", []string{"ACT_" + strings.ToUpper(t)}}
	}
	for _, s := range []string{"add", "swiglu", "rmsnorm", "rope", "softmax"} {
		v[s] = variant{s, nil}
	}
	return v
}

func main() {
	vs := variants()
	names := make([]string, 0, len(vs))
	for n := range vs {
		names = append(names, n)
	}
	sort.Strings(names)
	if err := os.MkdirAll("spv", 0o755); err != nil {
		fail(err)
	}
	old, _ := filepath.Glob("spv/*.spv")
	for _, f := range old {
		os.Remove(f)
	}
	for _, n := range names {
		v := vs[n]
		args := []string{"-O", "--target-env=vulkan1.0", "-fshader-stage=compute", "-Ishaders"}
		for _, d := range v.defines {
			args = append(args, "-D"+d)
		}
		args = append(args, "-o", filepath.Join("spv", n+".spv"), filepath.Join("shaders", v.src+".comp"))
		cmd := exec.Command("glslc", args...)
		cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
		if err := cmd.Run(); err != nil {
			fail(fmt.Errorf("glslc %s: %w", n, err))
		}
	}
	fmt.Printf("gen_spv: %d shaders\n", len(names))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen_spv:", err)
	os.Exit(1)
}
