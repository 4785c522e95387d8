package chat

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nikolalohinski/gonja/v2"
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

// Template is a parsed chat template. It is safe for concurrent Render calls.
type Template struct {
	src string
	tpl *exec.Template
}

// Source returns the Jinja text.
func (t *Template) Source() string { return t.src }

// Parse parses a template given as Jinja source or as a built-in name.
func Parse(srcOrName string) (*Template, error) {
	src := srcOrName
	if b, ok := Builtin(srcOrName); ok {
		src = b
	}
	if strings.TrimSpace(src) == "" {
		return nil, errors.New("chat: empty template")
	}
	tpl, err := parseJinja(src)
	if err != nil {
		return nil, fmt.Errorf("chat: parse template: %w", err)
	}
	return &Template{src: src, tpl: tpl}, nil
}

// parseJinja parses src with a loader that holds only the template itself:
// a GGUF template can never {% include %} a file from disk.
func parseJinja(src string) (tpl *exec.Template, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("template parser panicked: %v", r)
		}
	}()
	loader, err := loaders.NewMemoryLoader(map[string]string{"/chat_template": src})
	if err != nil {
		return nil, err
	}
	return exec.NewTemplate("/chat_template", hfConfig(), loader, environment())
}

// hfConfig matches transformers' ImmutableSandboxedEnvironment(trim_blocks,
// lstrip_blocks), which every published chat template is written for.
func hfConfig() *config.Config {
	c := config.New()
	c.TrimBlocks = true
	c.LeftStripBlocks = true
	return c
}

// environment copies gonja's default environment (never mutating the
// shared one) and adds what chat templates use.
func environment() *exec.Environment {
	d := gonja.DefaultEnvironment
	filters := exec.NewFilterSet(map[string]exec.FilterFunction{}).Update(d.Filters)
	_ = filters.Replace("tojson", filterToJSON)
	ctx := d.Context.Inherit()
	ctx.Set("raise_exception", raiseException)
	return &exec.Environment{
		Context:           ctx,
		Filters:           filters,
		Tests:             d.Tests,
		ControlStructures: d.ControlStructures,
		Methods:           d.Methods,
	}
}

func raiseException(msg string) (string, error) {
	return "", fmt.Errorf("template raised: %s", msg)
}

// Render produces the prompt text for in.
func (t *Template) Render(in Inputs) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("chat: template panicked: %v", r)
		}
	}()
	orders := newKeyOrders()
	defer orders.release()
	vars, err := in.variables(orders)
	if err != nil {
		return "", err
	}
	w := &limitWriter{max: MaxOutput}
	if err := t.tpl.Execute(w, exec.NewContext(vars)); err != nil {
		return "", fmt.Errorf("chat: render: %w", err)
	}
	return w.sb.String(), nil
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
