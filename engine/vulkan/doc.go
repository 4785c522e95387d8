// Package vulkan is the engine's GPU backend: it runs the last layers of a
// llama-family decoder (and, with more GPU layers than the model has, its
// output head) on a Vulkan device through kernels/vulkan, behind the
// engine's offload seam (engine/offload.go). It is compiled only with the
// build tag `vulkan`; cmd/waggle imports it in such builds, and its init
// registers the backend as "Vulkan".
//
// Per session it uploads the offloaded layers' weights into a device arena,
// keeps a device KV cache for those layers with the same cells as the
// session's CPU cache, and records a whole step (every offloaded layer, the
// gather of the output rows and the head) into one command buffer: one
// submit and one fence wait per Decode. After each step the new key and
// value rows are copied back into the CPU cache, which stays complete, so
// forks, truncation, context shift and state files need nothing from the
// device; a sequence whose cached rows changed on the CPU side (fork,
// copy on write, shift, state restore) is re-uploaded before its next step.
package vulkan
