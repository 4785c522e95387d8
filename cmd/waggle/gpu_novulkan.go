//go:build !(vulkan && (amd64 || arm64) && (linux || darwin || windows))

package main

import (
	"errors"
	"fmt"
)

// gpuAvailable: this binary has no GPU backend.
func gpuAvailable(string) error { return errors.New("no GPU backend in this binary") }

// listDevices says that this binary has no GPU backend.
func listDevices() error {
	fmt.Fprintln(stdout, "no GPU backend in this binary: build with -tags vulkan (linux, macOS or Windows on amd64/arm64)")
	return nil
}
