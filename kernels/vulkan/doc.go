// Package vulkan runs Waggle's compute kernels on a GPU through Vulkan,
// loaded at run time with purego: no cgo, no Vulkan SDK at build time. The
// package is compiled only with the build tag `vulkan` (importing purego
// makes a binary dynamically linked, and the default build stays static);
// without the tag this file is all there is.
//
// What it offers is a small compute runtime shaped for a transformer's
// layer range, not a general graph executor:
//
//   - a loader and function table: libvulkan is opened with Dlopen (or
//     LoadLibrary), vkGetInstanceProcAddr is the only symbol looked up by
//     name, every other entry point comes through it (or through
//     vkGetDeviceProcAddr) and every pointer is checked before use;
//   - device choice: discrete, then integrated, then virtual GPUs; devices
//     of type CPU (Mesa's lavapipe) are skipped unless WAGGLE_VK_DEVICE
//     names one (by index or by a substring of its name), as CI does;
//   - buffers and a weight arena: weights are packed into device buffers no
//     larger than maxStorageBufferRange, a matrix larger than that is split
//     into row ranges, each bound and dispatched on its own;
//   - pipelines built on first use from embedded SPIR-V, keyed by shader and
//     specialization constants (work-group size, columns per work group);
//   - a Recorder that records a whole layer range into one command buffer
//     with one submit and one fence wait per step (a round trip costs
//     about 0.7 ms on lavapipe, so per-op submits are ruled out), staging
//     buffers at the CPU/GPU boundary.
//
// Shaders (shaders/*.comp, GLSL) are compiled to SPIR-V by `go generate`
// (glslc) into spv/ and committed. They read every tensor as 32-bit words
// and need no optional device feature: no 8/16-bit storage, no float16
// arithmetic, no subgroup operations, and no assumption about the
// subgroup size; reductions go through shared memory in a fixed order, so
// a column's result never depends on how many columns share a dispatch
// (batch invariance).
//
// Correctness is tested against the Go kernels on Mesa's lavapipe with the
// Khronos validation layer, any validation message failing the test; see
// docs/vulkan.md.
package vulkan
