package main

import "github.com/waggle-llm/waggle/server"

// apiFlags are serve's flags for the embedding and infill routes and the
// web page, with llama-server's names and environment variables.
type apiFlags struct {
	Embeddings bool   `name:"embeddings" aliases:"embedding" help:"Serve /v1/embeddings and /embeddings (without it they answer 501)." env:"WAGGLE_EMBEDDINGS,LLAMA_ARG_EMBEDDINGS"`
	Pooling    string `name:"pooling" help:"Embedding pooling: none, mean, cls or last (default: the model's pooling_type, none when it has none)." enum:",none,mean,cls,last,rank" default:"" env:"WAGGLE_POOLING,LLAMA_ARG_POOLING"`
	SPMInfill  bool   `name:"spm-infill" help:"/infill puts the suffix before the prefix (Suffix/Prefix/Middle), as some models expect."`
	WebUI      bool   `name:"webui" negatable:"" default:"true" help:"Serve the web chat page at / (--no-webui: off)." env:"WAGGLE_WEBUI,LLAMA_ARG_WEBUI"`
}

// apply copies the flags into the server's configuration.
func (f *apiFlags) apply(cfg *server.Config) {
	cfg.Embeddings, cfg.Pooling, cfg.SPMInfill, cfg.NoWebUI = f.Embeddings, f.Pooling, f.SPMInfill, !f.WebUI
}
