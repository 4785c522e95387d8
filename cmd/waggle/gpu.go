package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/waggle-llm/waggle/engine"
)

// gpuFlags are llama.cpp's offload flags. Without a GPU backend in the
// binary (built without -tags vulkan) -ngl 0, auto or absent is silent and
// anything above 0 is refused with a message saying how to build one.
type gpuFlags struct {
	GPULayers string `name:"n-gpu-layers" aliases:"gpu-layers" help:"Layers to run on the GPU (llama.cpp's -ngl): N runs the last N layers and their KV cache there, more than the model's layers also the output head; all or auto: everything; 0: CPU only. Needs a binary built with -tags vulkan." default:"0" env:"WAGGLE_N_GPU_LAYERS,LLAMA_ARG_N_GPU_LAYERS"`
	Device    string `name:"device" aliases:"dev" help:"GPU to use: an index, VulkanN, or part of its name (see waggle devices); none: CPU only. Default: the best GPU." env:"WAGGLE_DEVICE,LLAMA_ARG_DEVICE"`
	MainGPU   int    `name:"main-gpu" aliases:"mg" help:"Index of the GPU to use when --device is not given (-1: the best GPU)." default:"-1" env:"WAGGLE_MAIN_GPU,LLAMA_ARG_MAIN_GPU"`
}

// allLayers stands for "every layer and the head" (-ngl all).
const allLayers = 1 << 30

// apply sets the session's offload options.
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
	if n > 0 && engine.OffloadBackend() == "" {
		return fmt.Errorf("-ngl %s: %w", g.GPULayers, engine.ErrNoOffload)
	}
	o.GPULayers = n
	return nil
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
