// End-to-end test of `waggle serve` on a diffusion model (the synthetic
// Dream fixture) with the official openai npm client: an answer streams
// one chunk per committed block, and a cancelled stream frees its canvas.
// Run from this folder with the other tests (npm test). The fixture comes
// from $WAGGLE_MODELS (default ../shared/models beside the repository);
// without it the tests skip, and fail under CI=true.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import OpenAI from "openai";

const repo = resolve(import.meta.dirname, "../..");
const models = resolve(repo, process.env.WAGGLE_MODELS || "../shared/models");
const dream = join(models, "diffusion", "synth-dream-spm-f32.gguf");
const missing = !existsSync(dream);
if (missing && process.env.CI === "true") {
  throw new Error(`MISSING FIXTURE (fatal under CI=true): ${dream}`);
}
let proc;
let url;
let client;

function startServer() {
  const bin = join(mkdtempSync(join(tmpdir(), "waggle-node-")), "waggle");
  execFileSync("go", ["build", "-o", bin, "./cmd/waggle"], { cwd: repo, stdio: "inherit" });
  proc = spawn(bin, ["serve", "--port", "0", "--parallel", "2", "-c", "512", "-m", dream], { stdio: ["ignore", "ignore", "pipe"] });
  return new Promise((ok, fail) => {
    let log = "";
    const timer = setTimeout(() => fail(new Error(`no ready line in 60 s:\n${log}`)), 60_000);
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (d) => {
      log += d;
      const m = log.match(/listening on (http:\/\/\S+)/);
      if (m) {
        clearTimeout(timer);
        ok(m[1]);
      }
    });
    proc.on("exit", (code) => fail(new Error(`waggle serve exited with ${code}:\n${log}`)));
  });
}

before(async () => {
  if (missing) return;
  url = await startServer();
  client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "none", maxRetries: 0, timeout: 120_000 });
});

after(async () => {
  if (!proc) return;
  const exited = new Promise((ok) => proc.once("exit", (code) => ok(code)));
  proc.kill("SIGTERM");
  assert.equal(await exited, 0, "waggle serve must exit 0 after SIGTERM");
});

const skip = missing ? `MISSING FIXTURE, skipped: ${dream}` : false;

test("a diffusion answer streams block by block", { skip }, async () => {
  // 96 tokens in blocks of 32: three committed blocks, three content chunks.
  const req = {
    model: "x", max_tokens: 96, temperature: 0, diffusion_block_length: 32, diffusion_steps: 48,
    messages: [{ role: "user", content: "Once upon a time" }],
  };
  const whole = await client.chat.completions.create(req);
  assert.equal(whole.choices[0].finish_reason, "length");
  assert.equal(whole.usage.completion_tokens, 96);
  assert.deepEqual(whole.timings.diffusion.steps_per_block, [16, 16, 16]);
  const stream = await client.chat.completions.create({ ...req, stream: true, stream_options: { include_usage: true } });
  const contents = [];
  let finish = "";
  let usage;
  for await (const c of stream) {
    const ch = c.choices[0];
    if (ch?.delta?.content) contents.push(ch.delta.content);
    if (ch?.finish_reason) finish = ch.finish_reason;
    if (c.usage) usage = c.usage;
  }
  assert.equal(contents.length, 3, `one chunk per block, got ${JSON.stringify(contents)}`);
  assert.equal(contents.join(""), whole.choices[0].message.content);
  assert.equal(finish, "length");
  assert.equal(usage.completion_tokens, 96);
});

test("a cancelled diffusion stream frees its canvas", { skip }, async () => {
  const stream = await client.completions.create({
    model: "x", prompt: "A long story", max_tokens: 160, diffusion_block_length: 16, diffusion_steps: 160, stream: true,
  });
  for await (const c of stream) {
    if (c.choices[0]?.text) break; // the first block arrived: leave
  }
  stream.controller.abort();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const slots = await (await fetch(`${url}/slots`)).json();
    if (slots.every((s) => !s.is_processing)) break;
    assert.ok(Date.now() < deadline, `a slot is still busy 30 s after the cancel: ${JSON.stringify(slots)}`);
    await new Promise((ok) => setTimeout(ok, 50));
  }
  const r = await client.completions.create({ model: "x", prompt: "Next", max_tokens: 8, temperature: 0 });
  assert.equal(r.usage.completion_tokens, 8);
});
