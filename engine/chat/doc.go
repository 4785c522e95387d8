// Package chat turns a conversation into the prompt text a model was trained
// on, and splits a reasoning model's output into its thinking and its
// answer.
//
// Templates are the Jinja sources stored in a GGUF's tokenizer.chat_template
// (or one of the built-ins here), rendered with gonja v2 configured the way
// Hugging Face transformers and llama.cpp configure Jinja: trim_blocks and
// lstrip_blocks on, loop controls, raise_exception, strftime_now, dict.get,
// and a tojson that writes Python's json.dumps separators (", " and ": ")
// keeping the key order of the request's JSON objects.
//
// Reasoning parsing follows llama.cpp's reasoning_format: "none" leaves
// <think>…</think> in the content, "deepseek" (and "auto") moves it to
// reasoning_content, in whole responses and in streamed deltas alike.
package chat
