package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// result is one completion as the client saw it. Times are offsets from
// the start of the wave.
type result struct {
	client, seq, prompt int
	sent, first, end    time.Duration // request sent, first chunk with text, last byte
	text                string
	tokens              int // usage.completion_tokens
	finish              string
	err                 error
}

func (r *result) latency() time.Duration { return r.end - r.sent }
func (r *result) ttft() time.Duration    { return r.first - r.sent }

// load is the work of one wave: the prompts and the request shape.
type load struct {
	prompts     []string
	nPredict    int
	cachePrompt bool
	timeout     time.Duration
}

// promptFor is the prompt client i sends as its j-th request of a wave of
// n clients: consecutive requests walk the prompt list, so with more
// requests than prompts each prompt recurs at evenly spread times.
func (l *load) promptFor(i, j, n int) int { return (i + j*n) % len(l.prompts) }

// body is the /v1/completions request: greedy, a fixed seed per prompt,
// exactly nPredict tokens (ignore_eos), usage in the last chunk.
func (l *load) body(k int) []byte {
	b, _ := json.Marshal(map[string]any{
		"model": "servebench", "prompt": l.prompts[k], "max_tokens": l.nPredict,
		"temperature": 0, "seed": 1000 + k, "stream": true, "ignore_eos": true,
		"cache_prompt": l.cachePrompt, "stream_options": map[string]any{"include_usage": true},
	})
	return b
}

// wave runs nClients clients at once, each sending nReq completions back
// to back, and returns every result and the wall time from the common
// start to the last byte of the last completion.
func (l *load) wave(s *server, nClients, nReq int) ([]result, time.Duration) {
	out := make([]result, nClients*nReq)
	var wg sync.WaitGroup
	gate := make(chan struct{})
	var t0 time.Time // set before the gate opens
	for i := range nClients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			for j := range nReq {
				r := &out[i*nReq+j]
				r.client, r.seq, r.prompt = i, j, l.promptFor(i, j, nClients)
				l.complete(s, r, t0)
			}
		}()
	}
	t0 = time.Now()
	close(gate)
	wg.Wait()
	var wall time.Duration
	for i := range out {
		wall = max(wall, out[i].end)
	}
	return out, wall
}

// complete sends one streamed completion and fills r.
func (l *load) complete(s *server, r *result, t0 time.Time) {
	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", s.url+"/v1/completions", bytes.NewReader(l.body(r.prompt)))
	req.Header.Set("Content-Type", "application/json")
	r.sent = time.Since(t0)
	resp, err := s.client.Do(req)
	if err != nil {
		r.err, r.end = err, time.Since(t0)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		r.err, r.end = fmt.Errorf("status %d: %s", resp.StatusCode, strings.TrimSpace(b.String())), time.Since(t0)
		return
	}
	r.err = readStream(resp, r, t0)
	r.end = time.Since(t0)
	if r.first == 0 {
		r.first = r.end
	}
}

// chunk is the part of a streamed /v1/completions chunk the bench reads.
type chunk struct {
	Choices []struct {
		Text         string  `json:"text"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
}

// readStream reads SSE data lines until [DONE], collecting the text, the
// finish reason and the usage, and stamps the first chunk with text.
func readStream(resp *http.Response, r *result, t0 time.Time) error {
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	var text strings.Builder
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue // blank separators, comments, event names
		}
		if data == "[DONE]" {
			r.text = text.String()
			if r.finish == "" {
				return fmt.Errorf("stream ended without a finish reason")
			}
			return nil
		}
		var c chunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return fmt.Errorf("bad chunk %q: %w", data, err)
		}
		for _, ch := range c.Choices {
			if ch.Text != "" && text.Len() == 0 {
				r.first = time.Since(t0)
			}
			text.WriteString(ch.Text)
			if ch.FinishReason != nil && *ch.FinishReason != "" {
				r.finish = *ch.FinishReason
			}
		}
		if c.Usage != nil {
			r.tokens = c.Usage.CompletionTokens
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return fmt.Errorf("stream ended without [DONE]")
}

// makePrompts returns n distinct prompts of about words words each: a
// numbered opening, then words from a fixed passage, rotated per prompt so
// that no two share a long prefix.
func makePrompts(n, words int) []string {
	src := strings.Fields(passage)
	out := make([]string, n)
	for k := range out {
		var b strings.Builder
		fmt.Fprintf(&b, "Story %d.", k+1)
		for w := range words {
			b.WriteByte(' ')
			b.WriteString(src[(k*7+w)%len(src)])
		}
		out[k] = b.String()
	}
	return out
}

const passage = `The river ran low that autumn, and the mill stood quiet for the first time
in forty years. Children walked along the dry stones looking for coins and old bottles, while
their parents argued in the square about the price of grain, the new road to the capital, and
whether the bridge would last another winter. Nobody noticed the stranger who came down from
the hills with a lantern in the middle of the day, asking for the house of the clockmaker.`
