// Continue a prompt with a committed checkpoint, in JavaScript: the page's code, run by Node.
//
//   node lesson_build/web/generate.mjs --model four_heads --prompt "Once upon a time" [--tokens N]
//        [--temperature T] [--seed S] [--json] [--weights DIR]
//   node lesson_build/web/generate.mjs --model four_heads --prompt "Once upon a time" --attention
//
// Prints what `python -m trainer generate` prints for the same arguments: `prompt [continuation]`
// and a line with the token count and the median milliseconds per model call. Greedy
// continuations are the same text; sampled ones use the page's seeded generator, not torch's.
// The weights are the page's (renders/web/models/, written by `make lesson`); when they are missing
// or older than the checkpoints they are converted first with `python -m lesson_build.web.weights`.
// --attention prints one JSON object instead, {"read_as": [...], "heads": [[...], ...]}: the tokens
// of the window the model reads for its first prediction (<BOS> included while it fits, PAD slots
// left out) and, per head, the final query's weight on each of them (no heads for the MLP), from
// the page's own code (model.mjs readWindow): what trainer/model.py's forward_with_weights gives.
// Bad arguments: one line naming the value and what is allowed, exit 2.

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

import { buildModel, generateSteps, median } from "./model.mjs";
import { WordTokenizer, detokenize } from "./tokenizer.mjs";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, "..", "..");
const DEFAULT_WEIGHTS = path.join(ROOT, "renders", "web", "models");
const CHECKPOINTS = path.join(ROOT, "lesson_data", "exports", "checkpoints", "manifest.json");
const MODEL_NAMES = ["mlp", "one_head", "four_heads"];

export class UsageError extends Error {}

function parseArgs(argv) {
  const opts = { model: "four_heads", prompt: null, tokens: 30, temperature: 0, seed: 0, json: false, attention: false, weights: null };
  const flags = new Set(["--json", "--attention"]);
  const takes = new Set(["--model", "--prompt", "--tokens", "--temperature", "--seed", "--weights"]);
  for (let i = 0; i < argv.length; i++) {
    let arg = argv[i], value = null;
    if (arg.startsWith("--") && arg.includes("=")) [arg, value] = [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)];
    if (flags.has(arg)) { opts[arg.slice(2)] = true; continue; }
    if (arg === "--help" || arg === "-h") { opts.help = true; continue; }
    if (!takes.has(arg)) throw new UsageError(`unrecognized argument ${JSON.stringify(arg)}; allowed: ${[...takes, ...flags].join(", ")}`);
    if (value === null) {
      if (i + 1 >= argv.length || takes.has(argv[i + 1]) || flags.has(argv[i + 1])) throw new UsageError(`${arg} needs a value`);
      value = argv[++i];
    }
    opts[arg.slice(2)] = value;
  }
  if (opts.help) return opts;
  if (!MODEL_NAMES.includes(opts.model)) {
    throw new UsageError(`--model ${JSON.stringify(opts.model)}: no such model; allowed: ${MODEL_NAMES.join(", ")}`);
  }
  if (opts.prompt === null) throw new UsageError("--prompt is required");
  const tokens = typeof opts.tokens === "string" && /^\s*[0-9]+\s*$/.test(opts.tokens) ? Number(opts.tokens) : opts.tokens;
  if (!(Number.isInteger(tokens) && tokens >= 1)) throw new UsageError(`--tokens ${JSON.stringify(String(opts.tokens))} is not a whole number of tokens >= 1`);
  opts.tokens = tokens;
  const t = typeof opts.temperature === "string" && opts.temperature.trim() !== "" ? Number(opts.temperature) : opts.temperature;
  if (!(Number.isFinite(t) && t >= 0)) throw new UsageError(`--temperature ${JSON.stringify(String(opts.temperature))} is not a temperature: use 0 (greedy) or a finite number > 0`);
  opts.temperature = t;
  const seed = typeof opts.seed === "string" && /^\s*-?[0-9]+\s*$/.test(opts.seed) ? Number(opts.seed) : opts.seed;
  if (!Number.isSafeInteger(seed)) throw new UsageError(`--seed ${JSON.stringify(String(opts.seed))} is not a whole number`);
  opts.seed = seed;
  return opts;
}

function readJSON(file) {
  try { return JSON.parse(readFileSync(file, "utf8")); } catch { return null; }
}

/** True when the converted weights in `dir` came from the committed checkpoints. */
function fresh(dir) {
  const web = readJSON(path.join(dir, "manifest.json"));
  const source = readJSON(CHECKPOINTS);
  if (!web || !web.models) return false;
  if (!source) return true;                        // no checkpoints to compare with: use what is there
  return Object.entries(source.models).every(([name, entry]) => {
    const file = web.models[name] && path.join(dir, web.models[name].file);
    return web.models[name]?.source?.sha256 === entry.sha256 && existsSync(file) && statSync(file).size === web.models[name].bytes;
  });
}

function convert(dir) {
  const venv = path.join(ROOT, ".venv", "bin", "python");
  const python = existsSync(venv) ? venv : "python3";
  process.stderr.write(`generate.mjs: converting the checkpoints for the web into ${dir} ...\n`);
  const proc = spawnSync(python, ["-m", "lesson_build.web.weights", "--out", dir], { cwd: ROOT, encoding: "utf8" });
  if (proc.status !== 0) {
    const why = (proc.stderr || proc.error?.message || "").trim().split("\n").pop();
    throw new Error(`could not convert the checkpoints (python -m lesson_build.web.weights): ${why}`);
  }
}

/** The tokenizer and the named model from a weights folder (converting the checkpoints if needed). */
export function loadFromFolder(name, dir = DEFAULT_WEIGHTS) {
  if (!fresh(dir)) convert(dir);
  const manifest = readJSON(path.join(dir, "manifest.json"));
  const entry = manifest.models[name];
  if (!entry) throw new UsageError(`--model ${JSON.stringify(name)}: not in ${dir}; allowed: ${Object.keys(manifest.models).join(", ")}`);
  const bytes = readFileSync(path.join(dir, entry.file));
  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
  const tok = WordTokenizer.fromJSON(JSON.parse(readFileSync(path.join(dir, manifest.tokenizer.file), "utf8")));
  return { manifest, entry, model: buildModel(entry, buffer), tok };
}

/** The contract of --attention: what the first model call reads, and each head's final-query weights. */
export function attention(model, tok, prompt) {
  const first = generateSteps(model, tok, prompt, { tokens: 1, inspect: true }).next().value;
  return { read_as: first.read.read_as, heads: first.read.heads };
}

/** trainer.generate.generate's result, computed here. */
export function generate(model, tok, prompt, options) {
  const steps = [...generateSteps(model, tok, prompt, options)];
  const kept = steps.filter((s) => !s.end);
  const ms = steps.map((s) => s.ms);
  return {
    prompt, continuation: detokenize(kept.map((s) => s.token)), token_ids: kept.map((s) => s.id),
    latency_ms_median: median(ms), latency_ms_mean: ms.length ? ms.reduce((a, b) => a + b, 0) / ms.length : null,
  };
}

const USAGE = "usage: node lesson_build/web/generate.mjs --model {mlp,one_head,four_heads} --prompt TEXT " +
  "[--tokens N] [--temperature T] [--seed S] [--json | --attention] [--weights DIR]";

export function main(argv) {
  let opts;
  try {
    opts = parseArgs(argv);
  } catch (err) {
    if (err instanceof UsageError) { process.stderr.write(`generate.mjs: error: ${err.message}\n`); return 2; }
    throw err;
  }
  if (opts.help) { process.stdout.write(USAGE + "\n"); return 0; }
  let loaded;
  try {
    loaded = loadFromFolder(opts.model, opts.weights ? path.resolve(opts.weights) : DEFAULT_WEIGHTS);
  } catch (err) {
    process.stderr.write(`generate.mjs: error: ${err.message}\n`);
    return err instanceof UsageError ? 2 : 1;
  }
  if (opts.attention) {
    process.stdout.write(JSON.stringify(attention(loaded.model, loaded.tok, opts.prompt)) + "\n");
    return 0;
  }
  const out = generate(loaded.model, loaded.tok, opts.prompt, opts);
  if (opts.json) {
    process.stdout.write(JSON.stringify({ model: opts.model, ...out }, null, 2) + "\n");
  } else {
    process.stdout.write(`${opts.prompt} [${out.continuation}]\n`);
    process.stdout.write(`(${out.token_ids.length} tokens, median ${out.latency_ms_median.toFixed(3)} ms per call, ${opts.model})\n`);
  }
  return 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  process.exitCode = main(process.argv.slice(2));
}
