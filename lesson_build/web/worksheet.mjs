// The two-head worksheet in the browser: a line-by-line port of lesson_data/worksheet.py.
//
//   import { computeWorksheet } from "./worksheet.mjs";
//   computeWorksheet("she watched the river")   // the sentence object of `python -m lesson_data export`
//
//   node lesson_build/web/worksheet.mjs "<sentence>"            prints that object as JSON
//   node lesson_build/web/worksheet.mjs --export "<sentence>"   the whole export (format, axes, ...)
//
// DOM-free and dependency-free: the page imports it, Node runs it. Numbers stay full float64;
// −∞ is null in the returned object (as in the JSON export); rounding happens only in `fmt`, the
// port of lesson_data/display.py's one display rule. Bad input throws WorksheetInputError with the
// same sentence as the Python data layer; the CLI prints it as one line and exits 2.

// The parameters, typed once in lesson_data/worksheet.py and generated into worksheet_tables.mjs
// by `python -m lesson_build.web.worksheet_tables` (frozen there).
import {
  FORMAT, VOCAB, AXES, CANDIDATES, MAX_WORDS, TOKEN_TABLE, POSITION_TABLE, SENTENCES, HEAD_NAMES,
  W_Q1, W_K1, W_V1, W_Q2, W_K2, W_V2, W_O, W1, B1, W2, B2, COORDINATE_NAMES,
} from "./worksheet_tables.mjs";

export {
  FORMAT, VOCAB, AXES, CANDIDATES, MAX_WORDS, TOKEN_TABLE, POSITION_TABLE, SENTENCES, HEAD_NAMES,
  W_Q1, W_K1, W_V1, W_Q2, W_K2, W_V2, W_O, W1, B1, W2, B2, COORDINATE_NAMES,
};

// ---------------------------------------------------------------------------------------------
// Sentence choice (lesson_data.worksheet.tokenize)
// ---------------------------------------------------------------------------------------------

// Python's str.split()/strip() whitespace (str.isspace), which is not JavaScript's \s: Python also
// splits on U+001C..U+001F and U+0085, and not on U+FEFF. Checked against Python on every code point.
export const PY_WHITESPACE = "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const SPLIT = new RegExp(`[${PY_WHITESPACE}]+`, "u");
const STRIP = new RegExp(`^[${PY_WHITESPACE}]+|[${PY_WHITESPACE}]+$`, "gu");

function pySplit(text) {
  return text.replace(STRIP, "").split(SPLIT).filter((w) => w.length > 0);
}

// What Python's str.isprintable() rejects: other (C*) and separator (Z*) characters, except space.
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's repr() of a str, for error messages that read the same as the data layer's. */
export function pyRepr(text) {
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of text) {
    const c = ch.codePointAt(0);
    if (ch === "\\" || ch === quote) out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch !== " " && NOT_PRINTABLE.test(ch)) {
      const hex = c.toString(16);
      out += c < 0x100 ? "\\x" + hex.padStart(2, "0") : c < 0x10000 ? "\\u" + hex.padStart(4, "0") : "\\U" + hex.padStart(8, "0");
    } else out += ch;
  }
  return out + quote;
}

export const ALLOWED_SENTENCES_TEXT =
  'allowed: "river", "cheque", or 1-20 space-separated words from the vocabulary (' + VOCAB.join(", ") + ")";

/** Bad sentence text. `word` is the unknown word when that is the reason. */
export class WorksheetInputError extends Error {
  constructor(message, { word = null, reason = "invalid" } = {}) {
    super(message);
    this.name = "WorksheetInputError";
    this.word = word;
    this.reason = reason;
  }
}

/**
 * Lower-case tokens of a sentence: "river" and "cheque" (any case) name the two worksheet
 * sentences; any other text must be 1-20 whitespace-separated vocabulary words. With
 * `{ literal: true }` (the page's explorer: what a reader types is what it computes) no text
 * names a preset, so "river" is the one word river; the CLI and the data layer keep the names.
 */
export function tokenize(sentence, { literal = false } = {}) {
  if (typeof sentence !== "string") {
    throw new WorksheetInputError(`sentence must be text, got ${sentence === null ? "None" : typeof sentence}; ${ALLOWED_SENTENCES_TEXT}`);
  }
  const key = sentence.replace(STRIP, "").toLowerCase();
  if (!literal && Object.hasOwn(SENTENCES, key)) sentence = SENTENCES[key];
  const words = pySplit(sentence.toLowerCase());
  if (words.length === 0) {
    throw new WorksheetInputError(`empty sentence (0 words); ${ALLOWED_SENTENCES_TEXT}`, { reason: "empty" });
  }
  if (words.length > MAX_WORDS) {
    throw new WorksheetInputError(
      `sentence has ${words.length} words, at most ${MAX_WORDS} allowed (the position table has ${MAX_WORDS} rows)`,
      { reason: "too long" });
  }
  for (const word of words) {
    if (!VOCAB.includes(word)) {
      throw new WorksheetInputError(`unknown word ${pyRepr(word)}; ${ALLOWED_SENTENCES_TEXT}`, { word, reason: "unknown word" });
    }
  }
  return words;
}

function nameAndText(sentence, literal) {
  const tokens = tokenize(sentence, { literal });
  const key = sentence.replace(STRIP, "").toLowerCase();
  if (!literal && Object.hasOwn(SENTENCES, key)) return [key, SENTENCES[key], tokens];
  return [tokens.join(" "), pySplit(sentence).join(" "), tokens];
}

// ---------------------------------------------------------------------------------------------
// Computation (row-vector convention: a row of E times a matrix gives a row)
// ---------------------------------------------------------------------------------------------

const NEG_INF = -Infinity;

function matmul(A, B) {
  const n = A.length, k = B.length, m = B[0].length;
  const out = [];
  for (let i = 0; i < n; i++) {
    const row = new Array(m);
    for (let j = 0; j < m; j++) {
      let s = 0.0;
      for (let t = 0; t < k; t++) s += A[i][t] * B[t][j];
      row[j] = s;
    }
    out.push(row);
  }
  return out;
}

const transpose = (A) => A[0].map((_, j) => A.map((row) => row[j]));
const add = (A, B) => A.map((row, i) => row.map((x, j) => x + B[i][j]));
const hconcat = (A, B) => A.map((row, i) => [...row, ...B[i]]);
const sum = (xs) => xs.reduce((s, x) => s + x, 0.0);
const copy = (A) => A.map((row) => (Array.isArray(row) ? row.slice() : row));

export function embed(tokens) {
  const tokenRows = tokens.map((t) => TOKEN_TABLE[VOCAB.indexOf(t)].slice());
  const positionRows = POSITION_TABLE.slice(0, tokens.length).map((r) => r.slice());
  return [tokenRows, positionRows, add(tokenRows, positionRows)];
}

/** Scaled dot-product attention with a causal mask and a stable row softmax; every step kept. */
export function runHead(E, WQ, WK, WV, WOBlock, index, name) {
  const n = E.length;
  const Q = matmul(E, WQ), K = matmul(E, WK), V = matmul(E, WV);
  const scores = matmul(Q, transpose(K));
  const scale = Math.sqrt(WQ[0].length);
  const scaled = scores.map((row) => row.map((x) => x / scale));
  const masked = scaled.map((row, i) => row.map((x, j) => (j <= i ? x : NEG_INF)));
  // Stable softmax: subtract the max over permitted sources (the diagonal is always permitted).
  const rowMax = masked.map((row) => Math.max(...row));
  const shifted = masked.map((row, i) => row.map((x) => x - rowMax[i]));   // -inf - finite = -inf
  const exps = shifted.map((row, i) => row.map((x, j) => (j <= i ? Math.exp(x) : 0.0)));
  const denominators = exps.map(sum);                                      // the receiver included
  const weights = exps.map((row, i) => row.map((x) => x / denominators[i]));
  const messages = matmul(weights, V);
  const contribution = matmul(messages, WOBlock);
  return {
    index, name, scale,
    W_Q: copy(WQ), W_K: copy(WK), W_V: copy(WV), Q, K, V, scores, scaled, masked, row_max: rowMax,
    shifted, exps, denominators, weights, messages, W_O_block: copy(WOBlock), contribution,
  };
}

export function softmax(z) {
  const top = Math.max(...z);
  const e = z.map((x) => Math.exp(x - top));
  const total = sum(e);
  return e.map((x) => x / total);
}

/** The prediction MLP on one row of E′ (the receiver's). */
export function predict(eLast) {
  const x = eLast.slice();
  const pre = matmul([x], W1)[0].map((v, j) => v + B1[j]);
  const hidden = pre.map((v) => Math.max(v, 0.0));
  const logits = matmul([hidden], W2)[0].map((v, j) => v + B2[j]);
  const p = softmax(logits);
  let best = 0;
  for (let i = 1; i < p.length; i++) if (p[i] > p[best]) best = i;   // first maximum, as np.argmax
  const order = [...p.keys()].sort((a, b) => (p[b] - p[a]) || (a - b));
  return {
    input: x, pre_activation: pre, hidden, logits,
    probabilities: Object.fromEntries(VOCAB.map((w, i) => [w, p[i]])),
    prediction: VOCAB[best],
    ranked: order.map((i) => [VOCAB[i], p[i]]),
  };
}

const nullInf = (v) => (Array.isArray(v) ? v.map(nullInf) : v === NEG_INF ? null : v);

function headObject(h) {
  const out = { index: h.index, name: h.name, scale: h.scale };
  for (const key of ["W_Q", "W_K", "W_V", "Q", "K", "V", "scores", "scaled", "masked", "row_max",
    "shifted", "exps", "denominators", "weights", "messages", "W_O_block", "contribution"]) {
    out[key] = nullInf(h[key]);
  }
  return out;
}

/**
 * The full two-head pass for one sentence: the sentence object of `python -m lesson_data export`
 * (same keys in the same order, same shapes, full precision, null for −∞).
 */
export function computeWorksheet(text = "river", { literal = false } = {}) {
  const [name, shown, tokens] = nameAndText(text, literal);
  const [tokenRows, positionRows, E] = embed(tokens);
  const head1 = runHead(E, W_Q1, W_K1, W_V1, W_O.slice(0, 2), 1, HEAD_NAMES[0]);
  const head2 = runHead(E, W_Q2, W_K2, W_V2, W_O.slice(2, 4), 2, HEAD_NAMES[1]);
  const joined = hconcat(head1.messages, head2.messages);
  const deltaE = matmul(joined, W_O);
  const ePrime = add(E, deltaE);
  // Control: the same projections side by side, one width-4 head, / sqrt(4), one softmax.
  const wide = runHead(E, hconcat(W_Q1, W_Q2), hconcat(W_K1, W_K2), hconcat(W_V1, W_V2), W_O, 0, "wide");
  const mlp = predict(ePrime[ePrime.length - 1]);
  return {
    name, text: shown, tokens, n: tokens.length, receiver: tokens.length,
    token_rows: tokenRows, position_rows: positionRows, E,
    heads: [headObject(head1), headObject(head2)],
    H_joined: joined, W_O: copy(W_O), delta_E: deltaE, E_prime: ePrime,
    mlp, probabilities: { ...mlp.probabilities }, prediction: mlp.prediction,
    wide_head: headObject(wide),
  };
}

/** The whole export object (`python -m lesson_data export [--sentence ...]`). */
export function computeExport(sentence = null) {
  const names = sentence === null ? Object.keys(SENTENCES) : [sentence];
  const sheets = names.map((s) => computeWorksheet(s));
  return {
    format: FORMAT, axes: [...AXES], vocab: [...VOCAB], candidates: [...CANDIDATES],
    head_names: [...HEAD_NAMES], sentences: Object.fromEntries(sheets.map((ws) => [ws.name, ws])),
  };
}

// ---------------------------------------------------------------------------------------------
// The display rule (lesson_data.display.fmt), exactly
// ---------------------------------------------------------------------------------------------

export const PLACES = 3;

/** A double as sign, integer mantissa m and binary exponent e: |x| = m * 2**e exactly. */
function decompose(x) {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const hi = view.getUint32(0), lo = view.getUint32(4);
  const negative = hi >>> 31 === 1;
  const biased = (hi >>> 20) & 0x7ff;
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let e;
  if (biased === 0) e = -1074;                 // subnormal (or zero)
  else { m |= 1n << 52n; e = biased - 1075; }
  return { negative, m, e };
}

/**
 * Round `x` to `places` decimals the way Python's f"{x:.{places}f}" does: the exact binary value,
 * ties to even (JavaScript's toFixed breaks ties upward, and gives up above 1e21). Negatives use
 * the ASCII hyphen-minus; "-0.000" (a tiny negative rounded away) reads "0.000". As in Python,
 * nan reads "nan", inf "inf", and -inf also "inf" (the rule drops a sign with no digit 1-9).
 */
export function fmt(x, places = PLACES) {
  if (typeof x !== "number") throw new TypeError(`fmt: ${typeof x} is not a number`);
  if (!Number.isInteger(places) || places < 0) throw new RangeError(`fmt: places must be a whole number >= 0, got ${places}`);
  let text;
  if (Number.isNaN(x)) text = "nan";
  else if (!Number.isFinite(x)) text = x > 0 ? "inf" : "-inf";
  else {
    const { negative, m, e } = decompose(x);
    const scaled = m * 10n ** BigInt(places);
    let q;
    if (e >= 0) q = scaled << BigInt(e);
    else {
      const den = 1n << BigInt(-e);
      q = scaled / den;
      const twice = 2n * (scaled - q * den);
      if (twice > den || (twice === den && (q & 1n) === 1n)) q += 1n;
    }
    let digits = q.toString().padStart(places + 1, "0");
    if (places > 0) digits = digits.slice(0, -places) + "." + digits.slice(-places);
    text = (negative ? "-" : "") + digits;
  }
  return text.startsWith("-") && !/[1-9]/.test(text) ? text.slice(1) : text;
}

// ---------------------------------------------------------------------------------------------
// JSON as Python's json.dumps(indent=2, ensure_ascii=False) writes it
// ---------------------------------------------------------------------------------------------

// Keys whose numbers are Python ints in the export (every other number is a float).
const INT_KEYS = new Set(["n", "receiver", "index"]);

/** Python's repr() of a float: shortest round-trip digits, exponent outside 1e-4 <= |x| < 1e16. */
export function pyFloat(x) {
  if (!Number.isFinite(x)) throw new RangeError(`${x} has no JSON form`);
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mant, expText] = Math.abs(x).toExponential().split("e");
  const exp = Number(expText);
  const digits = mant.replace(".", "");
  const sign = x < 0 ? "-" : "";
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? digits[0] + "." + digits.slice(1) : digits;
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  const whole = digits.slice(0, exp + 1).padEnd(exp + 1, "0");
  const frac = digits.slice(exp + 1) || "0";
  return `${sign}${whole}.${frac}`;
}

export function toPythonJSON(value, indent = 2, level = 0, key = null) {
  const pad = (k) => "\n" + " ".repeat(indent * k);
  if (value === null) return "null";
  if (typeof value === "boolean") return value ? "true" : "false";
  if (typeof value === "number") {
    if (INT_KEYS.has(key) && Number.isInteger(value)) return String(value);
    return pyFloat(value);
  }
  if (typeof value === "string") return JSON.stringify(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    const items = value.map((v) => toPythonJSON(v, indent, level + 1, key));
    return "[" + items.map((s) => pad(level + 1) + s).join(",") + pad(level) + "]";
  }
  const entries = Object.entries(value);
  if (entries.length === 0) return "{}";
  return "{" + entries.map(([k, v]) => pad(level + 1) + JSON.stringify(k) + ": " +
    toPythonJSON(v, indent, level + 1, k)).join(",") + pad(level) + "}";
}

// ---------------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------------

const USAGE = 'usage: node lesson_build/web/worksheet.mjs [--export] "<sentence>"   (river, cheque or 1-20 vocabulary words)';

export function main(argv) {
  const args = [...argv];
  let whole = false;
  if (args.includes("--help") || args.includes("-h")) {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  if (args[0] === "--export") { whole = true; args.shift(); }
  const flag = args.find((a) => a.startsWith("--"));
  if (flag !== undefined) {
    process.stderr.write(`worksheet.mjs: error: unknown option ${pyRepr(flag)}; allowed: --export, --help\n`);
    return 2;
  }
  if (args.length === 0) {
    process.stderr.write(`worksheet.mjs: error: no sentence given; ${USAGE}\n`);
    return 2;
  }
  const sentence = args.join(" ");
  let value;
  try {
    value = whole ? computeExport(sentence) : computeWorksheet(sentence);
  } catch (err) {
    if (err instanceof WorksheetInputError) {
      process.stderr.write(`worksheet.mjs: error: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  process.stdout.write(toPythonJSON(value) + "\n");
  return 0;
}

if (typeof process !== "undefined" && process.argv && process.argv[1]) {
  const { pathToFileURL } = await import("node:url");
  const { realpathSync } = await import("node:fs");
  if (import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
    process.exitCode = main(process.argv.slice(2));
  }
}
