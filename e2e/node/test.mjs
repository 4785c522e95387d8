// End-to-end test of `waggle serve` with the official openai npm client
// (pinned in package.json). Run from this folder:
//
//   npm ci && npm test
//
// The test builds cmd/waggle with `go build` and starts `waggle serve
// --port 0` with a llama-server command line copied unchanged (llamaArgs)
// on the embedded demo network (WAGGLE_NODE_MODEL=path serves a GGUF
// instead), or talks to an already running server at WAGGLE_URL.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import OpenAI from "openai";

const repo = resolve(import.meta.dirname, "../..");
// llamaArgs is how llama-server is started in llama.cpp's docs and scripts.
const llamaArgs = "--jinja -ngl 99 -fa on -c 4096 -np 2 --alias my-model --metrics --slots --no-webui --log-disable --mlock -cb".split(" ");
let proc;
let client;

// startServer builds waggle and starts it on a free port; it resolves with
// the URL printed on the ready line.
function startServer() {
  const bin = join(mkdtempSync(join(tmpdir(), "waggle-node-")), "waggle");
  execFileSync("go", ["build", "-o", bin, "./cmd/waggle"], { cwd: repo, stdio: "inherit" });
  // plus llama-server's own flags for the embedding routes
  const args = ["serve", "--port", "0", ...llamaArgs, "--embeddings", "--pooling", "mean"];
  if (process.env.WAGGLE_NODE_MODEL) args.push("-m", process.env.WAGGLE_NODE_MODEL);
  proc = spawn(bin, args, { stdio: ["ignore", "ignore", "pipe"] });
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
  const url = process.env.WAGGLE_URL || (await startServer());
  client = new OpenAI({ baseURL: `${url}/v1`, apiKey: "none", maxRetries: 0, timeout: 60_000 });
});

after(async () => {
  if (!proc) return;
  const exited = new Promise((ok) => proc.once("exit", (code, sig) => ok({ code, sig })));
  proc.kill("SIGTERM");
  const { code } = await exited;
  assert.equal(code, 0, "waggle serve must exit 0 after SIGTERM");
});

// collect drains a stream into its chunks.
async function collect(stream) {
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  return chunks;
}

test("the model is named by --alias; usage details and timings as llama-server's", async () => {
  const models = await client.models.list();
  assert.deepEqual(models.data.map((m) => m.id), ["my-model"]);
  const r = await client.chat.completions.create({ model: "anything", max_tokens: 4, messages: [{ role: "user", content: "Hi" }] });
  assert.equal(r.model, "my-model");
  assert.equal(typeof r.usage.completion_tokens_details.reasoning_tokens, "number");
  const chunks = await collect(await client.chat.completions.create({ model: "x", max_tokens: 4, stream: true, messages: [{ role: "user", content: "Hi" }] }));
  assert.ok(chunks.at(-1).timings.predicted_n > 0, "the last chunk carries the timings");
});

test("unknown request fields are 400 errors naming them", async () => {
  await assert.rejects(
    client.chat.completions.create({ model: "x", messages: [{ role: "user", content: "Hi" }], temprature: 0 }),
    (e) => e instanceof OpenAI.BadRequestError && /temprature/.test(e.message),
  );
});

test("chat completion with usage", async () => {
  const r = await client.chat.completions.create({
    model: "x", max_tokens: 8, temperature: 0,
    messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Once upon a time" }],
  });
  assert.equal(r.object, "chat.completion");
  assert.equal(r.choices.length, 1);
  assert.equal(r.choices[0].message.role, "assistant");
  assert.ok(r.choices[0].message.content.length > 0);
  assert.ok(["length", "stop"].includes(r.choices[0].finish_reason));
  assert.ok(r.usage.completion_tokens > 0 && r.usage.completion_tokens <= 8);
  assert.equal(r.usage.total_tokens, r.usage.prompt_tokens + r.usage.completion_tokens);
});

test("chat streaming equals non-streaming, usage in the last chunk", async () => {
  const req = { model: "x", max_tokens: 12, temperature: 0, messages: [{ role: "user", content: "Hello" }] };
  const whole = await client.chat.completions.create(req);
  const chunks = await collect(await client.chat.completions.create({ ...req, stream: true, stream_options: { include_usage: true } }));
  assert.equal(chunks[0].choices[0].delta.role, "assistant");
  const text = chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("");
  assert.equal(text, whole.choices[0].message.content);
  const last = chunks.at(-1);
  assert.deepEqual(last.choices, []);
  assert.equal(last.usage.completion_tokens, whole.usage.completion_tokens);
  assert.ok(chunks.some((c) => c.choices[0]?.finish_reason === whole.choices[0].finish_reason));
});

test("completions: n > 1 with a seed, streaming equals non-streaming", async () => {
  const req = { model: "x", prompt: "Once upon a time", max_tokens: 10, temperature: 0.9, seed: 42, n: 2 };
  const r = await client.completions.create(req);
  assert.equal(r.object, "text_completion");
  assert.deepEqual(r.choices.map((c) => c.index).sort(), [0, 1]);
  assert.ok(r.usage.completion_tokens >= 2 && r.usage.completion_tokens <= 20, `usage ${JSON.stringify(r.usage)}`);
  assert.equal(r.usage.total_tokens, r.usage.prompt_tokens + r.usage.completion_tokens);
  const again = await client.completions.create(req);
  assert.deepEqual(again.choices.map((c) => c.text), r.choices.map((c) => c.text), "same seed, same texts");
  const chunks = await collect(await client.completions.create({ ...req, stream: true }));
  const texts = ["", ""];
  for (const c of chunks) for (const ch of c.choices) texts[ch.index] += ch.text;
  assert.deepEqual(texts, r.choices.map((c) => c.text));
});

// asciiStop picks a stop string from text: two or three ASCII letters
// after the first few characters (the demo network also makes bytes that
// are not UTF-8, which a JS string cannot cut exactly).
function asciiStop(text) {
  const m = /[A-Za-z]{2,3}/.exec(text.slice(2));
  return m ? m[0] : "";
}

test("stop strings cut the text, streaming or not", async () => {
  const base = { model: "x", prompt: "Once upon a time", max_tokens: 32, temperature: 0 };
  const full = (await client.completions.create(base)).choices[0].text;
  const stop = asciiStop(full);
  assert.ok(stop, `no ASCII run to stop on in ${JSON.stringify(full)}`);
  const want = full.slice(0, full.indexOf(stop));
  const r = await client.completions.create({ ...base, stop: [stop, "\u0000never"] });
  assert.equal(r.choices[0].text, want);
  assert.equal(r.choices[0].finish_reason, "stop");
  const chunks = await collect(await client.completions.create({ ...base, stop, stream: true }));
  assert.equal(chunks.map((c) => c.choices[0]?.text ?? "").join(""), want);
  const chat = await client.chat.completions.create({ model: "x", max_tokens: 32, temperature: 0, messages: [{ role: "user", content: "Hi" }] });
  const ctext = chat.choices[0].message.content;
  const cstop = asciiStop(ctext);
  if (cstop) {
    const c2 = await client.chat.completions.create({ model: "x", max_tokens: 32, temperature: 0, stop: cstop, messages: [{ role: "user", content: "Hi" }] });
    assert.equal(c2.choices[0].message.content, ctext.slice(0, ctext.indexOf(cstop)));
    assert.equal(c2.choices[0].finish_reason, "stop");
  }
});

test("chat logprobs", async () => {
  const r = await client.chat.completions.create({
    model: "x", max_tokens: 6, temperature: 0, logprobs: true, top_logprobs: 3,
    messages: [{ role: "user", content: "Hi" }],
  });
  const lp = r.choices[0].logprobs.content;
  assert.equal(lp.length, r.usage.completion_tokens);
  for (const e of lp) {
    assert.equal(typeof e.token, "string");
    assert.ok(e.logprob <= 0);
    assert.equal(e.top_logprobs.length, 3);
    assert.ok(e.top_logprobs[0].logprob >= e.top_logprobs[2].logprob);
    assert.equal(e.top_logprobs[0].logprob, e.logprob, "greedy picks the top token");
  }
});

test("completions logprobs, streaming", async () => {
  const chunks = await collect(await client.completions.create({
    model: "x", prompt: "Once upon a time", max_tokens: 5, temperature: 0, logprobs: 2, stream: true,
  }));
  const toks = chunks.flatMap((c) => c.choices[0]?.logprobs?.tokens ?? []);
  const tops = chunks.flatMap((c) => c.choices[0]?.logprobs?.top_logprobs ?? []);
  assert.equal(toks.length, 5);
  assert.equal(tops.length, 5);
  for (const t of tops) assert.equal(Object.keys(t).length <= 2 && Object.keys(t).length >= 1, true);
});

test("bad requests are 400 errors the client understands", async () => {
  await assert.rejects(
    client.chat.completions.create({ model: "x", messages: [] }),
    (e) => e instanceof OpenAI.BadRequestError && e.status === 400,
  );
  await assert.rejects(
    client.completions.create({ model: "x", prompt: "x", max_tokens: 2, "speculative.type": "ngram-simple" }),
    (e) => e instanceof OpenAI.BadRequestError && /not started with/.test(e.message),
  );
});

test("responses: text, and a stream the SDK's accumulator accepts", async () => {
  const req = { model: "x", input: "Once upon a time", instructions: "Be brief.", max_output_tokens: 8, temperature: 0 };
  const r = await client.responses.create(req);
  assert.equal(r.object, "response");
  assert.ok(r.output_text.length > 0);
  assert.ok(r.usage.output_tokens >= 1 && r.usage.output_tokens <= 8);
  // incomplete when max_output_tokens cut the answer, completed when the
  // demo network ended it (here its 8th token is end-of-sequence)
  assert.ok(["completed", "incomplete"].includes(r.status));
  assert.equal(r.incomplete_details?.reason ?? null, r.status === "incomplete" ? "max_output_tokens" : null);
  const events = await collect(await client.responses.create({ ...req, stream: true }));
  assert.deepEqual(events.slice(0, 2).map((e) => e.type), ["response.created", "response.in_progress"]);
  assert.equal(events.at(-1).type, "response." + r.status);
  const deltas = events.filter((e) => e.type === "response.output_text.delta").map((e) => e.delta).join("");
  assert.equal(deltas, r.output_text);
  events.forEach((e, i) => assert.equal(e.sequence_number, i));
  const final = await client.responses.stream(req).finalResponse();
  assert.equal(final.output_text, r.output_text);
});

test("embeddings: base64 (the SDK's default) and float agree, unit length", async () => {
  const input = ["Once upon a time", "the dog"];
  const b64 = await client.embeddings.create({ model: "x", input });
  const flt = await client.embeddings.create({ model: "x", input, encoding_format: "float" });
  assert.equal(b64.object, "list");
  assert.equal(b64.data.length, 2);
  for (const [i, d] of b64.data.entries()) {
    assert.equal(d.index, i);
    assert.deepEqual(d.embedding, flt.data[i].embedding.map(Math.fround)); // the same float32 values
    const norm = d.embedding.reduce((s, v) => s + v * v, 0);
    assert.ok(Math.abs(norm - 1) < 1e-5, `|v|² = ${norm}`);
  }
  assert.ok(b64.usage.prompt_tokens > 0);
});

const weatherTool = {
  type: "function",
  function: {
    name: "get_weather", description: "Weather in a city",
    parameters: { type: "object", properties: { city: { type: "string", maxLength: 12 } }, required: ["city"] },
  },
};

function checkWeatherCall(call) {
  assert.equal(call.type, "function");
  assert.equal(call.function.name, "get_weather");
  assert.ok(call.id.length > 0);
  assert.equal(typeof JSON.parse(call.function.arguments).city, "string");
}

test("tool calls, whole and streamed", async () => {
  const req = {
    model: "x", max_tokens: 300, temperature: 0, tools: [weatherTool], tool_choice: "required", parallel_tool_calls: false,
    messages: [{ role: "user", content: "Weather in Paris?" }],
  };
  const r = await client.chat.completions.create(req);
  assert.equal(r.choices[0].finish_reason, "tool_calls");
  assert.equal(r.choices[0].message.tool_calls.length, 1);
  checkWeatherCall(r.choices[0].message.tool_calls[0]);

  const chunks = await collect(await client.chat.completions.create({ ...req, stream: true }));
  const calls = [];
  for (const c of chunks) {
    for (const tc of c.choices[0]?.delta?.tool_calls ?? []) {
      if (tc.id) calls[tc.index] = { id: tc.id, type: tc.type, function: { name: tc.function.name, arguments: "" } };
      calls[tc.index].function.arguments += tc.function.arguments ?? "";
    }
  }
  assert.equal(calls.length, 1);
  checkWeatherCall(calls[0]);
  assert.ok(chunks.some((c) => c.choices[0]?.finish_reason === "tool_calls"));
});

test("response_format json_schema gives schema-valid JSON", async () => {
  const r = await client.chat.completions.create({
    model: "x", max_tokens: 200, temperature: 0, messages: [{ role: "user", content: "A person?" }],
    response_format: {
      type: "json_schema",
      json_schema: { name: "p", schema: { type: "object", properties: { name: { type: "string", maxLength: 10 }, ok: { type: "boolean" } }, required: ["name", "ok"] } },
    },
  });
  const v = JSON.parse(r.choices[0].message.content);
  assert.equal(typeof v.name, "string");
  assert.equal(typeof v.ok, "boolean");
});
