package server

// usageJSON is OpenAI's usage object with llama-server's cached count.
type usageJSON struct {
	PromptTokens        int            `json:"prompt_tokens"`
	CompletionTokens    int            `json:"completion_tokens"`
	TotalTokens         int            `json:"total_tokens"`
	PromptTokensDetails map[string]int `json:"prompt_tokens_details"`
	// CompletionTokensDetails counts reasoning_tokens: the generated tokens
	// inside <think>…</think>.
	CompletionTokensDetails map[string]int `json:"completion_tokens_details"`
}

// timingsJSON is llama.cpp's timings object.
type timingsJSON struct {
	CacheN              int     `json:"cache_n"`
	PromptN             int     `json:"prompt_n"`
	PromptMS            float64 `json:"prompt_ms"`
	PromptPerTokenMS    float64 `json:"prompt_per_token_ms"`
	PromptPerSecond     float64 `json:"prompt_per_second"`
	PredictedN          int     `json:"predicted_n"`
	PredictedMS         float64 `json:"predicted_ms"`
	PredictedPerTokenMS float64 `json:"predicted_per_token_ms"`
	PredictedPerSecond  float64 `json:"predicted_per_second"`
	// DraftN and DraftNAccepted appear when speculation drafted (llama.cpp).
	DraftN         int `json:"draft_n,omitempty"`
	DraftNAccepted int `json:"draft_n_accepted,omitempty"`
	// Diffusion holds the denoising counts of a diffusion model's answer.
	Diffusion *diffusionTimings `json:"diffusion,omitempty"`
}

// totals sums the finished events of a job: prompt tokens count once per
// prompt (choices of one prompt share it), generated tokens per choice;
// durations are the longest, since the choices ran side by side.
func (j *job) totals(last []event) (usageJSON, timingsJSON) {
	var u usageJSON
	var tm timingsJSON
	reasoning := 0
	for _, p := range j.prompts {
		u.PromptTokens += len(p)
	}
	perPrompt := len(last) / max(len(j.prompts), 1)
	for i, e := range last {
		u.CompletionTokens += e.predictedN
		reasoning += e.reasoningN
		tm.PredictedN += e.predictedN
		tm.PredictedMS = max(tm.PredictedMS, e.genMS)
		tm.PromptMS = max(tm.PromptMS, e.promptMS)
		tm.DraftN += e.draftN
		tm.DraftNAccepted += e.draftAccepted
		tm.Diffusion = mergeDiffusion(tm.Diffusion, e.diffusion, tm.PredictedN)
		if perPrompt > 0 && i%perPrompt == 0 {
			tm.PromptN += e.promptN
			tm.CacheN += e.cachedN
		}
	}
	u.TotalTokens = u.PromptTokens + u.CompletionTokens
	u.PromptTokensDetails = map[string]int{"cached_tokens": tm.CacheN}
	u.CompletionTokensDetails = map[string]int{"reasoning_tokens": reasoning}
	tm.PromptPerTokenMS, tm.PromptPerSecond = rates(tm.PromptN, tm.PromptMS)
	tm.PredictedPerTokenMS, tm.PredictedPerSecond = rates(tm.PredictedN, tm.PredictedMS)
	return u, tm
}

func rates(n int, ms float64) (perToken, perSecond float64) {
	if n > 0 {
		perToken = ms / float64(n)
	}
	if ms > 0 {
		perSecond = float64(n) / ms * 1000
	}
	return perToken, perSecond
}

// lastEvents returns the done event of each choice.
func lastEvents(cs []*choice) []event {
	out := make([]event, len(cs))
	for i, c := range cs {
		out[i] = c.last
	}
	return out
}
