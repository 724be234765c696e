// The three models of trainer/model.py, forward pass only, on typed arrays (no runtime library).
// The heavy products (every layer's matrix times a vector) run in a small WebAssembly module
// (kernels.mjs), or in the same loops in JavaScript where WebAssembly is unavailable: model.engine
// says which ({ name: "WebAssembly" | "JavaScript", why }).
//
//   const model = buildModel(manifest.models.four_heads, arrayBufferOfFourHeadsBin);
//   const logits = model.logits(windowIds);        // Int32Array(64) left-padded with PAD -> Float64Array(V)
//   const out = generate(model, tokenizer, "Once upon a time", { tokens: 20 });
//
// Mirrors trainer/model.py's final-query path (what training and generation use):
//   FixedWindowMLP   logits = out(ReLU(hidden(concat of the 64 embedding rows)))
//   AttentionLM      x = embed + position; one attention update for the last row (h heads of
//                    width C/h, PAD sources masked), residual, then the prediction MLP
// Weights arrive as float16 (exactly the checkpoint's numbers) and are widened to float32; sums
// run in float64. Two rearrangements, both exact in real arithmetic, buy the speed:
//   * K = (tok + pos) W_K = tok W_K + pos W_K: per-token and per-position projections are computed
//     once (per token id on first use) and added, so a new window costs no 64x64 matmuls;
//   * PAD slots are skipped: they never receive attention weight, and PAD's embedding row is zero
//     (checked at load), so it adds nothing to the MLP's hidden layer.
// The output layer runs over the hidden units that ReLU left non-zero only.

import { BOS, EOS, PAD } from "./tokenizer.mjs";
import { makeEngine } from "./kernels.mjs";

// ---------------------------------------------------------------------------------------------
// float16 -> float32
// ---------------------------------------------------------------------------------------------

let HALF_TABLE = null;

function halfToFloat(h) {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const frac = h & 0x3ff;
  if (exp === 0) return sign * frac * 2 ** -24;                 // zero and subnormals
  if (exp === 31) return frac ? NaN : sign * Infinity;
  return sign * (1 + frac / 1024) * 2 ** (exp - 15);
}

/** Every float16 bit pattern decoded once (256 KB), then one lookup per weight. */
export function halfToFloat32(u16) {
  if (HALF_TABLE === null) {
    HALF_TABLE = new Float32Array(65536);
    for (let h = 0; h < 65536; h++) HALF_TABLE[h] = halfToFloat(h);
  }
  const out = new Float32Array(u16.length);
  for (let i = 0; i < u16.length; i++) out[i] = HALF_TABLE[u16[i]];
  return out;
}

/** {name: {shape, data: Float32Array}} from a manifest entry and the bytes of its .bin file. */
export function readTensors(entry, buffer) {
  if (buffer.byteLength !== entry.bytes) {
    throw new Error(`${entry.file}: ${buffer.byteLength} bytes, the manifest says ${entry.bytes}`);
  }
  const tensors = {};
  for (const [name, t] of Object.entries(entry.tensors)) {
    if (t.dtype !== "float16") throw new Error(`${entry.file}: ${name} is ${t.dtype}, expected float16`);
    const count = t.shape.reduce((a, b) => a * b, 1);
    if (t.bytes !== count * 2) throw new Error(`${entry.file}: ${name} has ${t.bytes} bytes for shape ${t.shape}`);
    // Little-endian on disk; every engine this page runs on is little-endian too (checked below).
    tensors[name] = { shape: t.shape, data: halfToFloat32(new Uint16Array(buffer, t.offset, count)) };
  }
  return tensors;
}

if (new Uint8Array(new Uint16Array([1]).buffer)[0] !== 1) {
  throw new Error("model.mjs reads little-endian float16 and needs a little-endian engine");
}

function expectShape(tensors, name, shape) {
  const t = tensors[name];
  if (!t) throw new Error(`missing tensor ${name}`);
  if (t.shape.join("x") !== shape.join("x")) throw new Error(`${name} is ${t.shape.join("x")}, expected ${shape.join("x")}`);
  return t.data;
}

/** W [out, in] (nn.Linear's layout) -> its transpose [in, out], so a row of x times it is contiguous. */
function transposed(W, rows, cols) {
  const T = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) T[c * rows + r] = W[r * cols + c];
  return T;
}

/** y[o] = b[o] + sum_i x[i] W[o, i]; W is [out, in] row-major (nn.Linear); W, x and y in `engine`. */
function linear(engine, x, W, b, nIn, nOut, y) {
  if (b) y.set(b); else y.fill(0);
  engine.dotAdd(W, 0, nIn, x, nIn, y, nOut);
  return y;
}

/**
 * The prediction MLP's last layer, y = b + h W2^T, given W2^T [hidden, vocab]: one pass over the
 * vocabulary per hidden unit that ReLU left above zero (about half of them).
 */
function outputLayer(engine, h, W2T, b2, nHidden, nVocab, y) {
  y.set(b2);
  engine.rowsAxpy(h, W2T, nHidden, nVocab, y);
  return y;
}

/** Bytes an engine needs for float32 arrays of these lengths and float64 arrays of those. */
const room = (f32s, f64s) => f32s.reduce((a, n) => a + Math.ceil(n / 2) * 8, 0) + f64s.reduce((a, n) => a + 8 * n, 0);

function checkWindow(ids, context, vocab) {
  if (ids.length !== context) throw new RangeError(`window of ${ids.length} ids, the model reads ${context}`);
  for (const id of ids) if (!(id >= 0 && id < vocab)) throw new RangeError(`token id ${id} outside 0..${vocab - 1}`);
}

function zeroRow(table, row, width) {
  for (let c = 0; c < width; c++) if (table[row * width + c] !== 0) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// FixedWindowMLP: the 64 embedding rows concatenated -> 4096 -> 256 -> vocab
// ---------------------------------------------------------------------------------------------

export class FixedWindowMLP {
  constructor(tensors, config, { engine = "WebAssembly" } = {}) {
    const { context: T, d_model: C, d_hidden: H, vocab: V } = config;
    Object.assign(this, { T, C, H, V, kind: "FixedWindowMLP" });
    this.embed = expectShape(tensors, "embed.weight", [V, C]);
    const W1 = expectShape(tensors, "hidden.weight", [H, T * C]);
    this.b1 = expectShape(tensors, "hidden.bias", [H]);
    const W2T = transposed(expectShape(tensors, "out.weight", [V, H]), V, H);
    this.b2 = expectShape(tensors, "out.bias", [V]);
    this.skipPad = zeroRow(this.embed, PAD, C);
    const e = this.engine = makeEngine(room([W1.length, W2T.length], [C, H, V]), { prefer: engine });
    this.W1 = e.f32(W1);
    this.W2T = e.f32(W2T);
    this.row = e.f64(C);                  // one slot's embedding row, widened
    this.hidden = e.f64(H);
    this.out = e.f64(V);
  }

  /** ids: the 64-slot window (Int32Array or array), left-padded with PAD. Returns Float64Array(V). */
  logits(ids) {
    const { T, C, H, V, embed, W1, b1, engine, row } = this;
    checkWindow(ids, T, V);
    const h = this.hidden;
    h.set(b1);
    for (let t = 0; t < T; t++) {
      const id = ids[t];
      if (id === PAD && this.skipPad) continue;           // a zero row adds nothing
      row.set(embed.subarray(id * C, id * C + C));
      // h[o] += slot t's row · slot t's block of hidden.weight's row o (columns t·C .. t·C + C - 1)
      engine.dotAdd(W1, t * C, T * C, row, C, h, H);
    }
    for (let o = 0; o < H; o++) if (h[o] < 0) h[o] = 0;   // ReLU
    return outputLayer(engine, h, this.W2T, this.b2, H, V, this.out);
  }
}

// ---------------------------------------------------------------------------------------------
// AttentionLM (one head of 64, or four of 16): final query only
// ---------------------------------------------------------------------------------------------

export class AttentionLM {
  constructor(tensors, config, { engine = "WebAssembly" } = {}) {
    const { context: T, d_model: C, d_hidden: H, vocab: V, n_heads: heads } = config;
    if (!(heads >= 1 && C % heads === 0)) throw new Error(`${heads} heads do not divide d_model ${C}`);
    Object.assign(this, { T, C, H, V, heads, d: C / heads, kind: heads === 1 ? "CausalAttentionLM" : "MultiHeadAttentionLM" });
    this.embed = expectShape(tensors, "embed.weight", [V, C]);
    this.position = expectShape(tensors, "position", [T, C]);
    const WQ = expectShape(tensors, "attention.W_Q.weight", [C, C]);
    this.WK = expectShape(tensors, "attention.W_K.weight", [C, C]);
    this.WV = expectShape(tensors, "attention.W_V.weight", [C, C]);
    const WO = expectShape(tensors, "attention.W_O.weight", [C, C]);
    const W1 = expectShape(tensors, "mlp.0.weight", [H, C]);
    this.b1 = expectShape(tensors, "mlp.0.bias", [H]);
    const W2T = transposed(expectShape(tensors, "mlp.2.weight", [V, H]), V, H);
    this.b2 = expectShape(tensors, "mlp.2.bias", [V]);
    // The layers' matrices and the vectors they multiply live in the engine (kernels.mjs).
    const e = this.engine = makeEngine(room([WQ.length, WO.length, W1.length, W2T.length], [C, C, C, C, H, V]),
      { prefer: engine });
    this.WQ = e.f32(WQ);
    this.WO = e.f32(WO);
    this.W1 = e.f32(W1);
    this.W2T = e.f32(W2T);
    // Projections of every position row (T x C each) now; of a token row on its first use.
    this.posK = this.#project(this.position, T, this.WK);
    this.posV = this.#project(this.position, T, this.WV);
    this.tokK = new Float64Array(V * C);
    this.tokV = new Float64Array(V * C);
    this.tokReady = new Uint8Array(V);
    // Work buffers, reused by every call.
    this.x = e.f64(C);
    this.q = e.f64(C);
    this.k = new Float64Array(T * C);
    this.v = new Float64Array(T * C);
    this.scores = new Float64Array(T);
    this.joined = e.f64(C);
    this.update = e.f64(C);
    this.hidden = e.f64(H);
    this.out = e.f64(V);
    this.lastWeights = new Float64Array(heads * T);   // the receiver's attention row per head
  }

  #project(rows, n, W) {
    const { C } = this;
    const out = new Float64Array(n * C);
    for (let r = 0; r < n; r++) {
      for (let o = 0; o < C; o++) {
        let s = 0.0;
        for (let i = 0; i < C; i++) s += rows[r * C + i] * W[o * C + i];
        out[r * C + o] = s;
      }
    }
    return out;
  }

  #tokenProjections(id) {
    if (this.tokReady[id]) return;
    const { C, embed, WK, WV } = this;
    for (let o = 0; o < C; o++) {
      let sk = 0.0, sv = 0.0;
      for (let i = 0; i < C; i++) {
        const e = embed[id * C + i];
        sk += e * WK[o * C + i];
        sv += e * WV[o * C + i];
      }
      this.tokK[id * C + o] = sk;
      this.tokV[id * C + o] = sv;
    }
    this.tokReady[id] = 1;
  }

  /** ids: the 64-slot window, left-padded with PAD; the receiver is the last slot. */
  logits(ids) {
    const { T, C, H, V, heads, d, embed, position } = this;
    checkWindow(ids, T, V);
    const last = T - 1;
    if (ids[last] === PAD) throw new RangeError("the last slot (the receiver) is PAD");
    // x = embed + position for the receiver's row; its query.
    const x = this.x;
    for (let c = 0; c < C; c++) x[c] = embed[ids[last] * C + c] + position[last * C + c];
    const engine = this.engine;
    linear(engine, x, this.WQ, null, C, C, this.q);
    // K and V of every non-PAD source slot: token part + position part.
    for (let t = 0; t < T; t++) {
      const id = ids[t];
      if (id === PAD) continue;
      this.#tokenProjections(id);
      for (let c = 0; c < C; c++) {
        this.k[t * C + c] = this.tokK[id * C + c] + this.posK[t * C + c];
        this.v[t * C + c] = this.tokV[id * C + c] + this.posV[t * C + c];
      }
    }
    // Each head: scores over sources / sqrt(d), PAD masked, softmax, weighted sum of values.
    const scale = Math.sqrt(d);
    const scores = this.scores, joined = this.joined;
    for (let h = 0; h < heads; h++) {
      const off = h * d;
      let top = -Infinity;
      for (let t = 0; t < T; t++) {
        if (ids[t] === PAD) { scores[t] = -Infinity; continue; }
        let s = 0.0;
        for (let j = 0; j < d; j++) s += this.q[off + j] * this.k[t * C + off + j];
        s /= scale;
        scores[t] = s;
        if (s > top) top = s;
      }
      let total = 0.0;
      for (let t = 0; t < T; t++) {
        const e = ids[t] === PAD ? 0.0 : Math.exp(scores[t] - top);
        scores[t] = e;
        total += e;
      }
      for (let j = 0; j < d; j++) joined[off + j] = 0.0;
      for (let t = 0; t < T; t++) {
        const w = scores[t] / total;
        this.lastWeights[h * T + t] = w;
        if (w === 0) continue;
        for (let j = 0; j < d; j++) joined[off + j] += w * this.v[t * C + off + j];
      }
    }
    // Heads joined (concatenated) -> W_O -> residual -> prediction MLP.
    linear(engine, joined, this.WO, null, C, C, this.update);
    for (let c = 0; c < C; c++) x[c] += this.update[c];
    const hidden = linear(engine, x, this.W1, this.b1, C, H, this.hidden);
    for (let o = 0; o < H; o++) if (hidden[o] < 0) hidden[o] = 0;   // ReLU
    return outputLayer(engine, hidden, this.W2T, this.b2, H, V, this.out);
  }
}

/** The model a manifest entry describes, from the bytes of its .bin file; its products run in
 * WebAssembly where it is available (`{ engine: "JavaScript" }`: the plain-JavaScript loops). */
export function buildModel(entry, buffer, { engine = "WebAssembly" } = {}) {
  const tensors = readTensors(entry, buffer);
  if (entry.class === "FixedWindowMLP") return new FixedWindowMLP(tensors, entry.config, { engine });
  if (entry.class === "CausalAttentionLM" || entry.class === "MultiHeadAttentionLM") {
    return new AttentionLM(tensors, entry.config, { engine });
  }
  throw new Error(`unknown model class ${entry.class}`);
}

// ---------------------------------------------------------------------------------------------
// Generation (trainer/generate.py): one model call per token, the newest token last in the window
// ---------------------------------------------------------------------------------------------

/** trainer.generate.window_of: the last `context` ids, left-padded with PAD. */
export function windowOf(ids, context) {
  const last = ids.slice(-context);
  const w = new Int32Array(context);                     // zeros = PAD
  w.set(last, context - last.length);
  return w;
}

/** A small seeded generator (mulberry32): the page's sampling is reproducible for a seed. */
export function seededRandom(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The first index of the largest logit (torch.argmax returns the first maximal index). */
export function argmax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

/** Sample from softmax(logits / temperature) with `random()` in [0, 1). */
export function sample(logits, temperature, random) {
  let top = -Infinity;
  for (const z of logits) if (z > top) top = z;
  const p = new Float64Array(logits.length);
  let total = 0.0;
  for (let i = 0; i < logits.length; i++) { p[i] = Math.exp((logits[i] - top) / temperature); total += p[i]; }
  let u = random() * total;
  for (let i = 0; i < p.length; i++) { u -= p[i]; if (u < 0) return i; }
  return argmax(p);                                        // u landed on the rounding residue
}

const clock = () => (globalThis.performance ?? Date).now();

/**
 * What the model just read and where it looked, right after `model.logits(window)`: the window's
 * tokens without its PAD slots (`read_as`, <BOS> included while it is still in the window) and,
 * per head, the final query's weight on each of them (`heads`; none for the MLP, which has no
 * attention). The same numbers as trainer/model.py's forward_with_weights, PAD slots left out.
 */
export function readWindow(model, tok, window) {
  let pad = 0;
  while (pad < window.length && window[pad] === PAD) pad++;
  const ids = Array.from(window.slice(pad));
  const heads = [];
  if (model.lastWeights) {
    for (let h = 0; h < model.heads; h++) heads.push(Array.from(model.lastWeights.subarray(h * model.T + pad, (h + 1) * model.T)));
  }
  return { ids, read_as: ids.map((id) => tok.idToToken(id)), heads };
}

/** The probabilities softmax(logits / temperature) (temperature 0: of the logits themselves). */
export function probabilities(logits, temperature = 0) {
  const t = temperature > 0 ? temperature : 1;
  let top = -Infinity;
  for (const z of logits) if (z > top) top = z;
  const p = new Float64Array(logits.length);
  let total = 0.0;
  for (let i = 0; i < logits.length; i++) { p[i] = Math.exp((logits[i] - top) / t); total += p[i]; }
  for (let i = 0; i < p.length; i++) p[i] /= total;
  return p;
}

/**
 * Continue `prompt`: greedy when temperature is 0, else sampled (seeded; not torch's generator,
 * so sampled words differ from `python -m trainer generate --seed`). Stops early at <EOS>.
 * Yields each new id and token and the model call's milliseconds; with `inspect`, also what the
 * call read and where each head's final query looked (`read`, see readWindow) and its logits.
 */
export function* generateSteps(model, tok, prompt, { tokens = 30, temperature = 0, seed = 0, inspect = false } = {}) {
  if (!(Number.isInteger(tokens) && tokens >= 1)) throw new RangeError(`tokens must be a whole number >= 1, got ${tokens}`);
  if (!(Number.isFinite(temperature) && temperature >= 0)) throw new RangeError(`temperature must be 0 (greedy) or a finite number > 0, got ${temperature}`);
  const random = seededRandom(seed);
  const ids = [BOS, ...tok.encode(prompt)];
  for (let n = 0; n < tokens; n++) {
    const window = windowOf(ids, model.T);
    const t0 = clock();
    const logits = model.logits(window);
    const ms = clock() - t0;
    const seen = inspect ? { read: readWindow(model, tok, window), logits: Float64Array.from(logits) } : {};
    const next = temperature > 0 ? sample(logits, temperature, random) : argmax(logits);
    if (next === EOS) { yield { id: next, token: "<EOS>", ms, end: true, ...seen }; return; }
    ids.push(next);
    yield { id: next, token: tok.idToToken(next), ms, end: false, ...seen };
  }
}

export function median(xs) {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}
