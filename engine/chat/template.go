package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/nikolalohinski/gonja/v2/config"
	"github.com/nikolalohinski/gonja/v2/exec"
	"github.com/nikolalohinski/gonja/v2/loaders"
)

// MaxOutput bounds a rendered prompt (bytes). A template looping over a
// hostile conversation stops with an error instead of filling memory.
const MaxOutput = 16 << 20

// Message is one turn of a conversation, already normalised by the caller
// (content parts joined into Content). ToolCalls is the raw JSON array from
// the request, kept as JSON so tojson can reproduce its key order.
type Message struct {
	Role             string
	Content          string
	ReasoningContent string
	Name             string
	ToolCallID       string
	ToolCalls        json.RawMessage
}

// Inputs are the variables a chat template sees.
type Inputs struct {
	Messages            []Message
	Tools               json.RawMessage // JSON array or empty
	AddGenerationPrompt bool
	BOS, EOS            string         // bos_token, eos_token
	Kwargs              map[string]any // chat_template_kwargs (enable_thinking, …)
	Now                 time.Time      // for strftime_now; zero means time.Now()
}

// Template is a parsed chat template. It is safe for concurrent Render
// calls: each render runs on an instance of its own (sandbox.go), taken
// from a free list and parsed anew when none is free.
type Template struct {
	src  string
	mu   sync.Mutex
	free []*instance
}

// maxFree bounds the idle instances a Template keeps.
const maxFree = 16

// Source returns the Jinja text.
func (t *Template) Source() string { return t.src }

// Parse parses a template given as Jinja source or as a built-in name.
// Sources over maxSource bytes, nested deeper than maxNesting brackets, or
// naming the sandbox's guards are refused.
func Parse(srcOrName string) (*Template, error) {
	src := srcOrName
	if b, ok := Builtin(srcOrName); ok {
		src = b
	}
	if strings.TrimSpace(src) == "" {
		return nil, errors.New("chat: empty template")
	}
	if err := checkSource(src); err != nil {
		return nil, fmt.Errorf("chat: %w", err)
	}
	inst, err := newInstance(src)
	if err != nil {
		return nil, fmt.Errorf("chat: parse template: %w", err)
	}
	return &Template{src: src, free: []*instance{inst}}, nil
}

// checkSource applies the limits on a template's text that keep the
// parser's recursion and the sandbox safe.
func checkSource(src string) error {
	if len(src) > maxSource {
		return fmt.Errorf("template of %d bytes exceeds the %d-byte limit", len(src), maxSource)
	}
	if strings.Contains(src, guardPrefix) {
		return fmt.Errorf("template names %q, which is reserved", guardPrefix)
	}
	depth := 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(', '[', '{':
			if depth++; depth > maxNesting {
				return fmt.Errorf("template nests brackets deeper than %d", maxNesting)
			}
		case ')', ']', '}':
			depth = max(depth-1, 0)
		}
	}
	if n := strings.Count(src, "{%"); n > maxNesting*64 {
		return fmt.Errorf("template has %d statements, more than %d", n, maxNesting*64)
	}
	return nil
}

// newMemoryLoader holds only the template itself: a GGUF template can never
// read a file from disk.
func newMemoryLoader(src string) (loaders.Loader, error) {
	return loaders.NewMemoryLoader(map[string]string{"/chat_template": src})
}

// hfConfig matches transformers' ImmutableSandboxedEnvironment(trim_blocks,
// lstrip_blocks), which every published chat template is written for.
func hfConfig() *config.Config {
	c := config.New()
	c.TrimBlocks = true
	c.LeftStripBlocks = true
	return c
}

func raiseException(msg string) (string, error) {
	return "", fmt.Errorf("template raised: %s", msg)
}

// get takes a free instance or parses a new one.
func (t *Template) get() (*instance, error) {
	t.mu.Lock()
	if n := len(t.free); n > 0 {
		inst := t.free[n-1]
		t.free = t.free[:n-1]
		t.mu.Unlock()
		return inst, nil
	}
	t.mu.Unlock()
	return newInstance(t.src)
}

func (t *Template) put(inst *instance) {
	t.mu.Lock()
	if len(t.free) < maxFree {
		t.free = append(t.free, inst)
	}
	t.mu.Unlock()
}

// Render produces the prompt text for in. A render that runs out of its
// budget fails with an error wrapping ErrBudget.
func (t *Template) Render(in Inputs) (out string, err error) {
	inst, err := t.get()
	if err != nil {
		return "", fmt.Errorf("chat: parse template: %w", err)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("chat: template panicked: %v", r)
		}
		if inst.b.err != nil {
			err = fmt.Errorf("chat: render: %w", inst.b.err)
		}
		t.put(inst)
	}()
	orders := newKeyOrders()
	defer orders.release()
	vars, err := in.variables(orders)
	if err != nil {
		return "", err
	}
	inst.b.reset(in.size())
	w := &limitWriter{max: MaxOutput}
	if err := inst.tpl.Execute(w, exec.NewContext(vars)); err != nil {
		return "", fmt.Errorf("chat: render: %w", err)
	}
	return w.sb.String(), nil
}

// size is the bytes of the inputs, which scale the render budget.
func (in Inputs) size() int {
	n := len(in.Tools) + len(in.BOS) + len(in.EOS)
	for _, m := range in.Messages {
		n += len(m.Role) + len(m.Content) + len(m.ReasoningContent) + len(m.Name) + len(m.ToolCallID) + len(m.ToolCalls)
	}
	for k, v := range in.Kwargs {
		n += len(k) + int(size(v, 1<<30))
	}
	return n
}

// DryRun renders a short conversation (system, user, assistant, user,
// with the generation prompt) and reports a template that exceeds its
// budget on it, or panics, so a hostile template is refused when it is
// loaded. Other errors (a template that raises on a system message, for
// example) are not the template's fault and are ignored.
func (t *Template) DryRun(bos, eos string) error {
	_, err := t.Render(Inputs{Messages: []Message{
		{Role: "system", Content: "You are a helpful assistant."},
		{Role: "user", Content: "Hello!"},
		{Role: "assistant", Content: "Hi. How can I help?"},
		{Role: "user", Content: "Tell me a story."},
	}, AddGenerationPrompt: true, BOS: bos, EOS: eos})
	if err != nil && (errors.Is(err, ErrBudget) || strings.Contains(err.Error(), "template panicked")) {
		return err
	}
	return nil
}

func (in Inputs) variables(orders *keyOrders) (map[string]any, error) {
	msgs := make([]any, len(in.Messages))
	for i, m := range in.Messages {
		v, err := m.value(orders)
		if err != nil {
			return nil, fmt.Errorf("chat: messages[%d]: %w", i, err)
		}
		msgs[i] = v
	}
	now := in.Now
	if now.IsZero() {
		now = time.Now()
	}
	vars := map[string]any{
		"messages":              msgs,
		"bos_token":             in.BOS,
		"eos_token":             in.EOS,
		"add_generation_prompt": in.AddGenerationPrompt,
		"strftime_now":          func(format string) string { return strftime(now, format) },
	}
	if len(in.Tools) > 0 && string(in.Tools) != "null" {
		tools, err := orders.decode(in.Tools)
		if err != nil {
			return nil, fmt.Errorf("chat: tools: %w", err)
		}
		if l, ok := tools.([]any); ok && len(l) > 0 {
			vars["tools"] = l
		}
	}
	for k, v := range in.Kwargs {
		vars[k] = v
	}
	return vars, nil
}

func (m Message) value(orders *keyOrders) (map[string]any, error) {
	v := map[string]any{"role": m.Role, "content": m.Content}
	keys := []string{"role", "content"}
	add := func(k string, val any) { v[k] = val; keys = append(keys, k) }
	if m.ReasoningContent != "" {
		add("reasoning_content", m.ReasoningContent)
	}
	if m.Name != "" {
		add("name", m.Name)
	}
	if m.ToolCallID != "" {
		add("tool_call_id", m.ToolCallID)
	}
	if len(m.ToolCalls) > 0 && string(m.ToolCalls) != "null" {
		calls, err := orders.decode(m.ToolCalls)
		if err != nil {
			return nil, fmt.Errorf("tool_calls: %w", err)
		}
		objectArguments(calls, orders)
		add("tool_calls", calls)
	}
	orders.remember(v, keys)
	return v, nil
}

// limitWriter collects output and fails past max bytes.
type limitWriter struct {
	sb  strings.Builder
	max int
}

func (w *limitWriter) Write(p []byte) (int, error) {
	if w.sb.Len()+len(p) > w.max {
		return 0, fmt.Errorf("rendered prompt exceeds %d bytes", w.max)
	}
	return w.sb.Write(p)
}

var _ io.Writer = (*limitWriter)(nil)
