package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/waggle-llm/waggle/engine"
)

// gpuFlags are llama.cpp's offload flags. A binary without a GPU backend
// (built without -tags vulkan) answers -ngl N > 0 as llama.cpp's CPU builds
// do: a warning that says how to build one (ignored), and every layer on
// the CPU; -ngl 0, auto or absent is silent.
type gpuFlags struct {
	GPULayers string `group:"common" name:"n-gpu-layers" aliases:"gpu-layers" help:"Layers to run on the GPU (llama.cpp's -ngl): N runs the last N layers and their KV cache there, more than the model's layers also the output head; all or auto: everything; 0: CPU only. Needs a binary built with -tags vulkan." default:"0" env:"WAGGLE_N_GPU_LAYERS,LLAMA_ARG_N_GPU_LAYERS"`
	Device    string `group:"common" name:"device" aliases:"dev" help:"GPU to use: an index, VulkanN, or part of its name (see waggle devices); none: CPU only. Default: the best GPU." env:"WAGGLE_DEVICE,LLAMA_ARG_DEVICE"`
	MainGPU   int    `group:"common" name:"main-gpu" help:"Index of the GPU to use when --device is not given (-1: the best GPU)." default:"-1" env:"WAGGLE_MAIN_GPU,LLAMA_ARG_MAIN_GPU"`
}

// allLayers stands for "every layer and the head" (-ngl all).
const allLayers = 1 << 30

// apply sets the session's offload options: no GPU layers when the binary
// has no backend (ignored says so).
func (g *gpuFlags) apply(o *engine.SessionOptions) error {
	switch {
	case g.Device != "":
		o.Device = g.Device
	case g.MainGPU >= 0:
		o.Device = strconv.Itoa(g.MainGPU)
	}
	n, err := g.layers(o.Device)
	if err != nil {
		return err
	}
	if engine.OffloadBackend() == "" {
		n = 0
	}
	o.GPULayers = n
	return nil
}

// ignored names, for the log, the offload flags that have no effect
// because the binary has no GPU backend.
func (g *gpuFlags) ignored() []string {
	if engine.OffloadBackend() != "" {
		return nil
	}
	if n, err := g.layers(""); err == nil && n > 0 {
		return []string{fmt.Sprintf("-ngl %s ignored: this binary has no GPU backend (build it with -tags vulkan); every layer runs on the CPU", g.GPULayers)}
	}
	return nil
}

// warn prints ignored's lines.
func (g *gpuFlags) warn() {
	for _, n := range g.ignored() {
		fmt.Fprintln(stderr, "waggle: warning:", n)
	}
}

// layers parses -ngl: a count, all, or auto (all when the binary has a GPU
// backend and the device opens, else 0, silently); --device none means 0.
func (g *gpuFlags) layers(device string) (int, error) {
	if strings.EqualFold(g.Device, "none") {
		return 0, nil
	}
	switch v := strings.ToLower(strings.TrimSpace(g.GPULayers)); v {
	case "", "0":
		return 0, nil
	case "all":
		return allLayers, nil
	case "auto", "-1":
		if engine.OffloadBackend() == "" || gpuAvailable(device) != nil {
			return 0, nil
		}
		return allLayers, nil
	default:
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("-ngl/--n-gpu-layers %q: want a number of layers >= 0, all or auto", g.GPULayers)
		}
		return min(n, allLayers), nil
	}
}

// ignored lists serve's flags without effect: the offload flags' and
// llama-server's compatibility flags'.
func (c *serveCmd) ignored() []string {
	return append(c.gpuFlags.ignored(), c.llamaCompat.ignored()...)
}
