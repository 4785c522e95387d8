// Package e2e runs a real `waggle serve` process and talks to it with
// OpenAI client libraries (go-openai here, the official openai npm package
// in node/). It is a separate module so the main go.mod stays lean.
// Models come from WAGGLE_MODELS (default ../../shared/models).
package e2e
