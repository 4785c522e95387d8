package chat

import (
	"sort"
	"strings"
)

// builtins are the templates used when a model has none, or when
// --chat-template names one. They are written in the same Jinja dialect as
// GGUF templates, so one renderer serves both.
var builtins = map[string]string{
	"chatml": `{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}`,

	"llama2": `{% if messages[0]['role'] == 'system' %}{% set sys = '<<SYS>>\n' + messages[0]['content'] + '\n<</SYS>>\n\n' %}{% set msgs = messages[1:] %}{% else %}{% set sys = '' %}{% set msgs = messages %}{% endif %}` +
		`{% for message in msgs %}{% if message['role'] == 'user' %}{% if loop.first %}{% set pre = sys %}{% else %}{% set pre = '' %}{% endif %}{{ bos_token + '[INST] ' + pre + message['content'] | trim + ' [/INST]' }}{% elif message['role'] == 'assistant' %}{{ ' ' + message['content'] | trim + ' ' + eos_token }}{% endif %}{% endfor %}`,

	"llama3": `{% set loop_messages = messages %}{% for message in loop_messages %}{% set content = '<|start_header_id|>' + message['role'] + '<|end_header_id|>\n\n' + message['content'] | trim + '<|eot_id|>' %}{% if loop.index0 == 0 %}{% set content = bos_token + content %}{% endif %}{{ content }}{% endfor %}{% if add_generation_prompt %}{{ '<|start_header_id|>assistant<|end_header_id|>\n\n' }}{% endif %}`,

	// qwen is ChatML with Qwen's default system prompt and <think> handling:
	// enable_thinking=false pre-fills an empty thought, as Qwen3's own
	// template does.
	"qwen": `{% if messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n' }}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% if enable_thinking is defined and enable_thinking is false %}{{ '<think>\n\n</think>\n\n' }}{% endif %}{% endif %}`,
}

// aliases maps llama.cpp's template names onto the built-ins.
var aliases = map[string]string{"llama-2": "llama2", "llama-3": "llama3", "qwen2": "qwen", "qwen3": "qwen"}

// Builtin returns the source of a built-in template by name (chatml,
// llama2 or llama-2, llama3 or llama-3, qwen).
func Builtin(name string) (string, bool) {
	n := strings.ToLower(strings.TrimSpace(name))
	if a, ok := aliases[n]; ok {
		n = a
	}
	src, ok := builtins[n]
	return src, ok
}

// BuiltinNames lists the built-in template names, sorted.
func BuiltinNames() []string {
	names := make([]string, 0, len(builtins))
	for n := range builtins {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DefaultName is the built-in used when a model carries no template, as in
// llama.cpp.
const DefaultName = "chatml"
