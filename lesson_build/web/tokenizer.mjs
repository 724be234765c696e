// The trainer's word-level tokenizer (trainer/tokenizer.py, `tokenizers`) in JavaScript.
//
//   const tok = WordTokenizer.fromJSON(JSON.parse(tokenizerJsonText));   // lesson_data/exports/tokenizer.json
//   tok.encode("Once upon a time")        // ids, the same as tokenizers' encode(...).ids
//   detokenize(ids.map((i) => tok.idToToken(i)))
//
// What `tokenizers` does, step by step, and what it takes to do the same here:
//   1. special tokens (<PAD> <BOS> <EOS> <UNK>, "normalized": false) are cut out of the raw text
//      first: a prompt containing "<UNK>" gets id 3, not "<", "unk", ">";
//   2. each remaining piece is normalized: NFKC, lower-case, runs of \s to one space, strip;
//   3. the word pattern [a-z]+(?:'[a-z]+)?|[0-9]+|[^\w\s] keeps what it matches (like findall);
//   4. each piece is looked up in the vocabulary (<UNK> when absent).
// Oniguruma's \w is Unicode (every script's letters, digits, marks), JavaScript's \w is ASCII
// [A-Za-z0-9_] even with /u; both \s are Unicode, but not the same set (Oniguruma's has U+0085 and
// not U+FEFF, JavaScript's the reverse). So this file uses neither JavaScript class: WORD_RANGES
// and SPACE_RANGES spell out Oniguruma's. Also tokenizers' NFKC tables are older than browsers',
// and Rust lower-cases character by character (no Greek final-sigma rule): unicode_tables.mjs
// carries what differs, generated from tokenizers itself.

import { NORMALIZE_AS_IS, SPACE_RANGES, WORD_RANGES } from "./unicode_tables.mjs";

const hex = (c) => `\\u{${c.toString(16)}}`;
function classBody(flat) {
  let out = "";
  for (let i = 0; i < flat.length; i += 2) {
    out += flat[i] === flat[i + 1] ? hex(flat[i]) : `${hex(flat[i])}-${hex(flat[i + 1])}`;
  }
  return out;
}

const WORD = classBody(WORD_RANGES);
const SPACE = classBody(SPACE_RANGES);
/** Oniguruma's \w and \s as JavaScript regular expressions (one code point each). */
export const WORD_CLASS = new RegExp(`[${WORD}]`, "u");
export const SPACE_CLASS = new RegExp(`[${SPACE}]`, "u");

const SPACE_RUN = new RegExp(`[${SPACE}]+`, "gu");
const EDGE_SPACE = new RegExp(`^[${SPACE}]+|[${SPACE}]+$`, "gu");
const AS_IS = new RegExp(`([${NORMALIZE_AS_IS.map(hex).join("")}])`, "u");

// The protocol's word pattern (trainer/config.py WORD_PATTERN), with \w and \s spelled out.
export const WORD_PATTERN = "[a-z]+(?:'[a-z]+)?|[0-9]+|[^\\w\\s]";
const PIECES = new RegExp(`[a-z]+(?:'[a-z]+)?|[0-9]+|[^${WORD}${SPACE}]`, "gu");

export const SPECIALS = Object.freeze(["<PAD>", "<BOS>", "<EOS>", "<UNK>"]);
export const PAD = 0, BOS = 1, EOS = 2, UNK = 3;

/** Rust's char::to_lowercase on every code point (String.toLowerCase would apply final sigma). */
function lowerEachChar(text) {
  let out = "";
  for (const ch of text) out += ch.toLowerCase();
  return out;
}

/** tokenizers' normalizer: NFKC, Lowercase, Replace(\s+, " "), Strip. */
export function normalize(text) {
  // Characters NFKC-mapped only by newer Unicode versions than tokenizers' pass through as they are.
  const parts = text.split(AS_IS);
  let out = "";
  for (let i = 0; i < parts.length; i++) {
    out += i % 2 === 1 ? parts[i] : lowerEachChar(parts[i].normalize("NFKC"));
  }
  return out.replace(SPACE_RUN, " ").replace(EDGE_SPACE, "");
}

/** The pre-tokenizer: the pattern's matches, in order (Split, behavior "removed", invert). */
export function pretokenize(normalized) {
  return normalized.match(PIECES) ?? [];
}

const escapeRe = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

export class TokenizerFormatError extends Error {}

export class WordTokenizer {
  /**
   * From the parsed tokenizer.json. Refuses a file whose pipeline is not the one implemented here
   * (a different normalizer or pattern would silently give other ids).
   */
  static fromJSON(spec) {
    const fail = (what) => { throw new TokenizerFormatError(`tokenizer.json: ${what}; this tokenizer implements trainer/tokenizer.py's pipeline only`); };
    if (spec?.model?.type !== "WordLevel") fail(`model ${spec?.model?.type} is not WordLevel`);
    const norm = spec.normalizer?.normalizers?.map((n) => n.type).join(",");
    if (spec.normalizer?.type !== "Sequence" || norm !== "NFKC,Lowercase,Replace,Strip") fail(`normalizer ${norm}`);
    const replace = spec.normalizer.normalizers[2];
    if (replace.pattern?.Regex !== "\\s+" || replace.content !== " ") fail("Replace is not \\s+ -> ' '");
    const strip = spec.normalizer.normalizers[3];
    if (strip.strip_left !== true || strip.strip_right !== true) fail("Strip is not both sides");
    const pre = spec.pre_tokenizer;
    if (pre?.type !== "Split" || pre.pattern?.Regex !== WORD_PATTERN || pre.behavior !== "Removed" || pre.invert !== true) {
      fail("pre-tokenizer is not the word pattern (Split, Removed, invert)");
    }
    for (const t of spec.added_tokens ?? []) {
      if (t.normalized || t.single_word || t.lstrip || t.rstrip) fail(`added token ${t.content} has options not implemented`);
    }
    return new WordTokenizer(spec.model.vocab, spec.model.unk_token, (spec.added_tokens ?? []).map((t) => [t.content, t.id]));
  }

  constructor(vocab, unkToken = "<UNK>", added = []) {
    this.vocab = new Map(Object.entries(vocab));
    this.unk = this.vocab.get(unkToken);
    if (this.unk === undefined) throw new TokenizerFormatError(`unknown-token ${unkToken} is not in the vocabulary`);
    this.tokens = [];
    for (const [token, id] of this.vocab) this.tokens[id] = token;
    this.added = new Map(added);
    for (const [token, id] of added) this.tokens[id] = token;
    const byLength = [...this.added.keys()].sort((a, b) => b.length - a.length).map(escapeRe);
    this.addedSplit = byLength.length ? new RegExp(`(${byLength.join("|")})`) : null;
  }

  get size() {
    return this.tokens.length;
  }

  /** [piece, id] for every token of `text`: the normalized word (or special) and its id. */
  encodePieces(text) {
    const out = [];
    const segments = this.addedSplit ? text.split(this.addedSplit) : [text];
    segments.forEach((segment, i) => {
      if (i % 2 === 1) { out.push([segment, this.added.get(segment)]); return; }
      for (const piece of pretokenize(normalize(segment))) {
        out.push([piece, this.vocab.get(piece) ?? this.unk]);
      }
    });
    return out;
  }

  encode(text) {
    return this.encodePieces(text).map(([, id]) => id);
  }

  /** The characters of `text` the pipeline drops without a trace, once each, in order: kept by the
   * normalizer but matched by no piece of the word pattern, since they are word characters
   * (Oniguruma's \w) outside [a-z] and [0-9]: é, ß, ж, 中, "_" (a symbol such as "€" or "😀"
   * is a piece of its own, read as <UNK>, not dropped). */
  dropped(text) {
    const out = new Set();
    const segments = this.addedSplit ? text.split(this.addedSplit) : [text];
    segments.forEach((segment, i) => {
      if (i % 2 === 1) return;                       // a special token: read whole
      for (const ch of normalize(segment).replace(PIECES, "").replace(SPACE_RUN, "")) out.add(ch);
    });
    return [...out];
  }

  idToToken(id) {
    const token = this.tokens[id];
    if (token === undefined) throw new RangeError(`no token with id ${id} (vocabulary of ${this.size})`);
    return token;
  }
}

// trainer.tokenizer.detokenize: re-join punctuation for display.
const NO_SPACE_BEFORE = / ([.,!?;:)\]}'"])/g;
const NO_SPACE_AFTER = /([(\[{]) /g;

/** What goes between a prompt, shown as typed, and its continuation: detokenize's rule at the
 * seam ("the dog" + "." reads "the dog.", "(" + "a" reads "(a"), and nothing after a prompt
 * that ends in its own space or before an empty continuation. */
export function seam(prompt, continuation) {
  if (!prompt || !continuation || /\s$/u.test(prompt)) return "";
  return /^[.,!?;:)\]}'"]/.test(continuation) || /[(\[{]$/.test(prompt) ? "" : " ";
}

/** 'she said , " hi " .' -> 'she said, " hi ".' (<PAD>, <BOS>, <EOS> dropped; <UNK> kept). */
export function detokenize(words) {
  const text = words.filter((w) => !SPECIALS.slice(0, 3).includes(w)).join(" ");
  return text.replace(NO_SPACE_BEFORE, "$1").replace(NO_SPACE_AFTER, "$1");
}
