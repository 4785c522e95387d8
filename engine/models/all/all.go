// Package all links every architecture into a binary. It holds blank imports
// only; cmd/waggle and bench import it, the engine never does.
package all

import (
	_ "github.com/waggle-llm/waggle/engine/models/dflash" // dflash-draft (a drafter, bound to a target)
	_ "github.com/waggle-llm/waggle/engine/models/dream"  // dream, llada, llada-moe (diffusion)
	_ "github.com/waggle-llm/waggle/engine/models/eagle3" // eagle3 (a drafter, bound to a target)
	_ "github.com/waggle-llm/waggle/engine/models/llama"  // llama, qwen2, qwen3, qwen3moe
	_ "github.com/waggle-llm/waggle/engine/models/qwen35" // qwen35, qwen35moe, qwen3next
)
