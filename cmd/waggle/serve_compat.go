package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// llamaCompat holds llama-server flags that a copied command line may
// carry and that change nothing in Waggle: GPU placement beyond -ngl
// (gpuFlags), thread pinning, memory locking, features that
// are always on. They are accepted so the command line works unchanged,
// and each one given is named in a log line saying why it has no effect.
type llamaCompat struct {
	Jinja        bool   `group:"server" name:"jinja" negatable:"" default:"true" help:"Accepted: chat templates are always rendered with Jinja."`
	Props        bool   `group:"server" name:"props" help:"Accepted: GET /props always answers; changing properties with POST /props is not supported."`
	ContBatching bool   `group:"server" name:"cont-batching" negatable:"" default:"true" help:"Accepted: continuous batching is always on."`
	ThreadsHTTP  int    `group:"server" name:"threads-http" help:"Accepted: the HTTP server needs no thread pool." default:"-1"`
	SlotSim      string `group:"server" name:"slot-prompt-similarity" help:"Accepted: a request goes to the idle slot whose cached tokens share the longest prefix with its prompt."`

	LogDisable    bool   `group:"common" name:"log-disable" help:"Print nothing but errors and the line with the listening address."`
	LogFile       string `group:"common" name:"log-file" help:"Also write the log to this file." type:"path"`
	LogColors     string `group:"common" name:"log-colors" help:"Accepted: the log has no colours."`
	LogPrefix     bool   `group:"common" name:"log-prefix" help:"Accepted: log lines start with \"waggle:\"."`
	LogTimestamps bool   `group:"common" name:"log-timestamps" help:"Accepted: log lines carry no timestamps."`
	Verbosity     int    `group:"common" name:"verbosity" aliases:"log-verbosity" help:"Log every request from verbosity 4 (llama.cpp's debug level) on." default:"3"`
	Verbose       bool   `group:"common" short:"v" name:"verbose" aliases:"log-verbose" help:"Log every request (as --verbosity 4)."`
	VerbosePrompt bool   `group:"common" name:"verbose-prompt" help:"Accepted: prompts are not printed."`

	MLock        bool   `group:"common" name:"mlock" help:"Accepted: the weights stay in the page cache as the kernel sees fit."`
	MMap         bool   `group:"common" name:"mmap" negatable:"" default:"true" help:"Accepted: the weights are always memory-mapped."`
	DirectIO     bool   `group:"common" name:"direct-io" negatable:"" help:"Accepted: the weights are always memory-mapped."`
	Repack       bool   `group:"common" name:"repack" negatable:"" default:"true" help:"Accepted: weights are used in their file layout."`
	Warmup       bool   `group:"common" name:"warmup" negatable:"" default:"true" help:"Accepted: there is no warm-up run."`
	CheckTensors bool   `group:"common" name:"check-tensors" help:"Accepted: tensor shapes and bounds are always checked."`
	Numa         string `group:"common" name:"numa" help:"Accepted: no NUMA placement."`

	SplitMode      string `group:"common" name:"split-mode" help:"Accepted: this build computes on the CPU."`
	TensorSplit    string `group:"common" name:"tensor-split" help:"Accepted: this build computes on the CPU."`
	KVOffload      bool   `group:"common" name:"kv-offload" negatable:"" default:"true" help:"Accepted: the KV cache is in RAM."`
	OpOffload      bool   `group:"common" name:"op-offload" negatable:"" default:"true" help:"Accepted: this build computes on the CPU."`
	OverrideTensor string `group:"common" name:"override-tensor" help:"Accepted: every tensor stays in the file mapping."`
	CPUMoE         bool   `group:"common" name:"cpu-moe" help:"Accepted: experts are on the CPU already."`
	NCPUMoE        int    `group:"common" name:"n-cpu-moe" help:"Accepted: experts are on the CPU already." default:"-1"`
	NoHost         bool   `group:"common" name:"no-host" help:"Accepted: this build computes on the CPU."`

	ThreadsBatch   int    `group:"common" name:"threads-batch" help:"Accepted: prompts and generation share the --threads pool." default:"-1"`
	CPUMask        string `group:"common" short:"C" name:"cpu-mask" help:"Accepted: threads are not pinned."`
	CPURange       string `group:"common" name:"cpu-range" help:"Accepted: threads are not pinned."`
	CPUStrict      int    `group:"common" name:"cpu-strict" help:"Accepted: threads are not pinned." default:"-1"`
	Prio           int    `group:"common" name:"prio" help:"Accepted: threads run at the process priority." default:"-99"`
	Poll           int    `group:"common" name:"poll" help:"Accepted: workers spin briefly, then park." default:"-1"`
	CPUMaskBatch   string `group:"common" name:"cpu-mask-batch" help:"Accepted: threads are not pinned."`
	CPURangeBatch  string `group:"common" name:"cpu-range-batch" help:"Accepted: threads are not pinned."`
	CPUStrictBatch int    `group:"common" name:"cpu-strict-batch" help:"Accepted: threads are not pinned." default:"-1"`
	PrioBatch      int    `group:"common" name:"prio-batch" help:"Accepted: threads run at the process priority." default:"-99"`
	PollBatch      int    `group:"common" name:"poll-batch" help:"Accepted: workers spin briefly, then park." default:"-1"`
}

// ignored lists, for the start-up log, each flag given that has no effect.
func (c *llamaCompat) ignored() []string {
	var out []string
	note := func(given bool, format string, args ...any) {
		if given {
			out = append(out, fmt.Sprintf(format, args...))
		}
	}
	note(!c.Jinja, "--no-jinja ignored: chat templates are always rendered with Jinja")
	note(c.Props, "--props: POST /props is not supported; GET /props answers as always")
	note(!c.ContBatching, "--no-cont-batching ignored: continuous batching is always on")
	note(c.MLock, "--mlock ignored: the weights are memory-mapped and not locked")
	note(!c.MMap || c.DirectIO, "--no-mmap/--direct-io ignored: the weights are always memory-mapped")
	cpu := c.SplitMode != "" || c.TensorSplit != "" ||
		!c.KVOffload || !c.OpOffload || c.OverrideTensor != "" || c.CPUMoE || c.NCPUMoE >= 0 || c.NoHost
	note(cpu, "GPU placement flags (-sm, -ts, -nkvo, -ot, --cpu-moe, ...) ignored: layers are placed by -ngl alone (gpu.go)")
	pin := c.CPUMask != "" || c.CPURange != "" || c.CPUStrict >= 0 || c.Prio != -99 || c.Poll >= 0 || c.CPUMaskBatch != "" ||
		c.CPURangeBatch != "" || c.CPUStrictBatch >= 0 || c.PrioBatch != -99 || c.PollBatch >= 0 || c.Numa != ""
	note(pin, "thread placement flags (-C, -Cr, --cpu-strict, --prio, --poll, --numa, ...) ignored: threads are not pinned")
	note(c.ThreadsBatch >= 0, "-tb ignored: prompts and generation share the --threads pool")
	return out
}

// logWriter is where serve's log goes: stderr unless --log-disable, and
// --log-file as well. quiet is the writer for informational lines (nil
// writer: dropped); errors and the listening line use loud.
type logWriter struct {
	quiet, loud io.Writer
	file        *os.File
}

// openLogs builds the log writers for the command's flags.
func (c *llamaCompat) openLogs(stderr io.Writer) (*logWriter, error) {
	lw := &logWriter{quiet: stderr, loud: stderr}
	if c.LogDisable {
		lw.quiet = io.Discard
	}
	if c.LogFile != "" {
		f, err := os.OpenFile(c.LogFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, fmt.Errorf("--log-file: %w", err)
		}
		lw.file = f
		lw.quiet, lw.loud = io.MultiWriter(lw.quiet, f), io.MultiWriter(stderr, f)
	}
	return lw, nil
}

func (lw *logWriter) Close() error {
	if lw.file != nil {
		return lw.file.Close()
	}
	return nil
}

// logRequests reports whether each request is logged.
func (c *llamaCompat) logRequests() bool { return c.Verbose || c.Verbosity >= 4 }

// readAPIKeyFile returns the first line of path.
func readAPIKeyFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("--api-key-file: %w", err)
	}
	key, _, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	if key = strings.TrimSpace(key); key == "" {
		return "", fmt.Errorf("--api-key-file: %s holds no key", path)
	}
	return key, nil
}
