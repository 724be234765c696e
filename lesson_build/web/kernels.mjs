// The demo's heavy products (model.mjs), in a small WebAssembly module assembled here from its
// instructions (no toolchain, no download: the bytes below are the whole module, about 200 of them),
// with the same loops in plain JavaScript where WebAssembly is unavailable.
//
//   const engine = makeEngine(bytes);     // WebAssembly, else JavaScript (engine.name, engine.why)
//   const W = engine.f32(weights);         // a copy in the engine's memory (JavaScript: the array itself)
//   const y = engine.f64(n);               // a zeroed work buffer there
//   engine.dotAdd(W, offset, stride, x, n, y, m);   // y[o] += Σ_i x[i] W[offset + o·stride + i], o < m
//   engine.rowsAxpy(h, W, nH, nV, y);                // y[o] += h[i] W[i·nV + o] for every h[i] ≠ 0
//
// Weights are float32, vectors float64, and every product and sum is float64 in the same order on
// both paths (x[i]·W widened, added left to right), so the two give the same bits.

// ---------------------------------------------------------------------------------------------
// The module, from its instructions (WebAssembly 1.0 binary format)
// ---------------------------------------------------------------------------------------------

const I32 = 0x7f, F64 = 0x7c;
const OP = {
  block: 0x02, loop: 0x03, if: 0x04, end: 0x0b, br_if: 0x0d,
  "local.get": 0x20, "local.set": 0x21, "local.tee": 0x22,
  "f32.load": 0x2a, "f64.load": 0x2b, "f64.store": 0x39,
  "i32.const": 0x41, "f64.const": 0x44, "i32.eqz": 0x45, "i32.lt_u": 0x49, "f64.ne": 0x62,
  "i32.add": 0x6a, "i32.sub": 0x6b, "i32.mul": 0x6c, "i32.shl": 0x74,
  "f64.add": 0xa0, "f64.mul": 0xa2, "f64.promote_f32": 0xbb,
};
const ALIGN = { "f32.load": 2, "f64.load": 3, "f64.store": 3 };     // log2 of the access's bytes

function uleb(n) {
  const out = [];
  do { let b = n & 0x7f; n >>>= 7; if (n) b |= 0x80; out.push(b); } while (n);
  return out;
}
function sleb(n) {
  const out = [];
  for (;;) {
    const b = n & 0x7f; n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && (b & 0x40))) { out.push(b); return out; }
    out.push(b | 0x80);
  }
}
const name = (s) => [...uleb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
const section = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];
const vec = (items) => [...uleb(items.length), ...items.flat()];

/** A function body from [op, immediate?] lines: blocks take no result, memory ops offset 0. */
function body(locals, lines) {
  const code = [];
  for (const [op, arg] of lines) {
    code.push(OP[op]);
    if (op === "block" || op === "loop" || op === "if") code.push(0x40);
    else if (op in ALIGN) code.push(ALIGN[op], 0);
    else if (op === "i32.const") code.push(...sleb(arg));
    else if (op === "f64.const") code.push(...new Uint8Array(new Float64Array([arg]).buffer));
    else if (arg !== undefined) code.push(...uleb(arg));
  }
  const bytes = [...vec(locals.map(([count, type]) => [...uleb(count), type])), ...code, OP.end];
  return [...uleb(bytes.length), ...bytes];
}

const get = (i) => ["local.get", i], set = (i) => ["local.set", i], tee = (i) => ["local.tee", i];
const int = (n) => ["i32.const", n];

// dotAdd(w, stride, x, n, y, m): params 0-5 (byte addresses and counts); locals o 6, i 7, wp 8, xp 9, s 10.
const DOT_ADD = body([[4, I32], [1, F64]], [
  ["block"], get(5), ["i32.eqz"], ["br_if", 0],
  ["loop"],
  ["f64.const", 0], set(10),
  get(0), get(6), get(1), ["i32.mul"], int(2), ["i32.shl"], ["i32.add"], set(8),      // wp = w + 4·o·stride
  get(2), set(9), get(3), set(7),
  ["block"], get(7), ["i32.eqz"], ["br_if", 0],
  ["loop"],
  get(10), get(9), ["f64.load"], get(8), ["f32.load"], ["f64.promote_f32"], ["f64.mul"], ["f64.add"], set(10),
  get(9), int(8), ["i32.add"], set(9), get(8), int(4), ["i32.add"], set(8),
  get(7), int(1), ["i32.sub"], tee(7), ["br_if", 0],
  ["end"], ["end"],
  get(4), get(6), int(3), ["i32.shl"], ["i32.add"], tee(8), get(8), ["f64.load"], get(10), ["f64.add"], ["f64.store"],
  get(6), int(1), ["i32.add"], tee(6), get(5), ["i32.lt_u"], ["br_if", 0],
  ["end"], ["end"],
]);

// rowsAxpy(h, w, nH, nV, y): params 0-4; locals i 5, o 6, wp 7, yp 8, a 9.
const ROWS_AXPY = body([[4, I32], [1, F64]], [
  ["block"], get(2), ["i32.eqz"], ["br_if", 0],
  ["loop"],
  get(0), get(5), int(3), ["i32.shl"], ["i32.add"], ["f64.load"], tee(9), ["f64.const", 0], ["f64.ne"],
  ["if"],
  get(1), get(5), get(3), ["i32.mul"], int(2), ["i32.shl"], ["i32.add"], set(7),      // wp = w + 4·i·nV
  get(4), set(8), get(3), set(6),
  ["block"], get(6), ["i32.eqz"], ["br_if", 0],
  ["loop"],
  get(8), get(8), ["f64.load"], get(9), get(7), ["f32.load"], ["f64.promote_f32"], ["f64.mul"], ["f64.add"], ["f64.store"],
  get(8), int(8), ["i32.add"], set(8), get(7), int(4), ["i32.add"], set(7),
  get(6), int(1), ["i32.sub"], tee(6), ["br_if", 0],
  ["end"], ["end"],
  ["end"],
  get(5), int(1), ["i32.add"], tee(5), get(2), ["i32.lt_u"], ["br_if", 0],
  ["end"], ["end"],
]);

/** The module's bytes: it imports its memory (env.memory) and exports dotAdd and rowsAxpy. */
export const MODULE_BYTES = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  ...section(1, vec([[0x60, ...vec(Array(6).fill([I32])), 0], [0x60, ...vec(Array(5).fill([I32])), 0]])),
  ...section(2, vec([[...name("env"), ...name("memory"), 0x02, 0x00, 0x00]])),
  ...section(3, vec([[0], [1]])),
  ...section(7, vec([[...name("dotAdd"), 0x00, 0], [...name("rowsAxpy"), 0x00, 1]])),
  ...section(10, vec([DOT_ADD, ROWS_AXPY])),
]);

// ---------------------------------------------------------------------------------------------
// The two engines
// ---------------------------------------------------------------------------------------------

/** The loops of the module, in JavaScript (the fallback; the same order of operations). */
export const JS_KERNELS = {
  dotAdd(W, offset, stride, x, n, y, m) {
    for (let o = 0; o < m; o++) {
      let s = 0.0;
      const row = offset + o * stride;
      for (let i = 0; i < n; i++) s += x[i] * W[row + i];
      y[o] += s;
    }
  },
  rowsAxpy(h, W, nH, nV, y) {
    for (let i = 0; i < nH; i++) {
      const a = h[i];
      if (a === 0) continue;
      const row = i * nV;
      for (let o = 0; o < nV; o++) y[o] += a * W[row + o];
    }
  },
};

function javascriptEngine(why) {
  return { name: "JavaScript", why, f32: (a) => a, f64: (n) => new Float64Array(n), ...JS_KERNELS };
}

let compiled = null;                    // the module, compiled once (synchronously: it is tiny)
function wasmModule() {
  if (compiled === null) compiled = new WebAssembly.Module(MODULE_BYTES);
  return compiled;
}

/** Room for `bytes` of arrays (each rounded up to 8 bytes) in a new WebAssembly memory. */
function webAssemblyEngine(bytes) {
  const pages = Math.max(1, Math.ceil((bytes + 64) / 65536));
  const memory = new WebAssembly.Memory({ initial: pages, maximum: pages });
  const k = new WebAssembly.Instance(wasmModule(), { env: { memory } }).exports;
  let top = 8;
  const take = (n) => {
    const at = top;
    top += Math.ceil(n / 8) * 8;
    if (top > pages * 65536) throw new RangeError(`the engine's memory holds ${pages * 65536} bytes, asked for ${top}`);
    return at;
  };
  const inside = (a) => a.buffer === memory.buffer;
  const check = (...arrays) => { for (const a of arrays) if (!inside(a)) throw new TypeError("an array outside the engine's memory"); };
  return {
    name: "WebAssembly", why: "",
    f32(a) { const v = new Float32Array(memory.buffer, take(4 * a.length), a.length); v.set(a); return v; },
    f64(n) { return new Float64Array(memory.buffer, take(8 * n), n); },
    dotAdd(W, offset, stride, x, n, y, m) {
      check(W, x, y);
      k.dotAdd(W.byteOffset + 4 * offset, stride, x.byteOffset, n, y.byteOffset, m);
    },
    rowsAxpy(h, W, nH, nV, y) {
      check(h, W, y);
      k.rowsAxpy(h.byteOffset, W.byteOffset, nH, nV, y.byteOffset);
    },
  };
}

/** The engine for a model that keeps `bytes` of arrays in it: WebAssembly where this engine runs it,
 * else (or with { prefer: "JavaScript" }) the same loops in JavaScript, `why` saying why. */
export function makeEngine(bytes, { prefer = "WebAssembly" } = {}) {
  if (prefer === "JavaScript") return javascriptEngine("asked for");
  if (typeof WebAssembly !== "object" || typeof WebAssembly.Module !== "function") {
    return javascriptEngine("this browser has no WebAssembly");
  }
  try {
    return webAssemblyEngine(bytes);
  } catch (err) {
    return javascriptEngine(`WebAssembly failed here (${err.message})`);
  }
}
