// The worksheet explorer: type or pick a sentence, see the two-head pass of chapter 2 recomputed.
// All numbers come from worksheet.mjs (the port of lesson_data/worksheet.py) and are shown with
// its `fmt`, the lesson's one display rule. A bad sentence shows the data layer's message and
// clears the last sentence's tables (they would read as the new sentence's).

import {
  AXES, FORMAT, HEAD_NAMES, SENTENCES, VOCAB, CANDIDATES, WorksheetInputError, computeWorksheet, fmt, predict, toPythonJSON,
  W_Q1, W_K1, W_V1, W_Q2, W_K2, W_V2, W_O,
  COORDINATE_NAMES, pyRepr,
} from "./worksheet.mjs";

const SVG = "http://www.w3.org/2000/svg";

/** h("td", {class: "num"}, "1.000") -> element; children may be strings, nodes, arrays or null. */
export function h(tag, attrs = {}, ...children) {
  const el = tag.startsWith("svg:") ? document.createElementNS(SVG, tag.slice(4)) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat(Infinity)) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

const num = (x) => h("td", { class: "num" }, fmt(x));

// ---- the videos' notation (scenes/style.py sup and sub): a superscript names the head, a
// subscript the position: q¹₁₀ is head 1's query at position 10, α¹₁₀,ⱼ its weight on source j,
// m¹₁₀ its message, A¹ its attention matrix, W_Q¹ its query projection; Δe₁₀ and e′₁₀ are the
// receiver's rows of ΔE and E′. The character maps are style.py's.
const SUP_MAP = Object.fromEntries([..."0123456789+-=()abT"].map((c, i) => [c, [..."⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᵀ"][i]]));
const SUB_MAP = Object.fromEntries([..."0123456789+-=()aeijo"].map((c, i) => [c, [..."₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₒ"][i]]));
export const sup = (x) => [...String(x)].map((c) => SUP_MAP[c] ?? c).join("");
export const sub = (x) => [...String(x)].map((c) => SUB_MAP[c] ?? c).join("");
/** α¹₁₀,ⱼ: head superscript, receiver and source subscripts (scenes' alpha_name). */
export const alphaName = (head, n, j = "ⱼ") => `α${sup(head)}${sub(n)},${j}`;
/** A head's coordinates as the videos name them (the axis its key column copies, else a, b). */
const coordinates = (index) => COORDINATE_NAMES[index - 1];

const last = (rows) => rows[rows.length - 1];

/** A sideways-scrolling box (.scroll-x) says so while its table is wider than it (a phone): a short
 * "scroll →" hint above it and a fade at its right edge (lesson.css .overflows), the fade gone once
 * it is scrolled to its end; neither while the table fits. Rechecked when the box's width changes. */
export function scrollCue(box) {
  if (box.dataset.cue) return box;
  box.dataset.cue = "true";
  const hint = h("p", { class: "scroll-hint meta", "aria-hidden": "true", hidden: true }, "scroll →");
  box.before(hint);
  const update = () => {
    const over = box.scrollWidth > box.clientWidth + 1;
    box.classList.toggle("overflows", over);
    box.classList.toggle("at-end", over && box.scrollLeft + box.clientWidth >= box.scrollWidth - 1);
    hint.hidden = !over;
  };
  box.addEventListener("scroll", update, { passive: true });
  if (typeof ResizeObserver !== "undefined") {
    const watcher = new ResizeObserver(() => { if (box.isConnected) update(); else watcher.disconnect(); });
    watcher.observe(box);
  }
  update();
  return box;
}
const scrollCues = (root) => root.querySelectorAll(".scroll-x").forEach(scrollCue);

function matrixTable(caption, rowLabels, columns, rows, { receiver = null } = {}) {
  // The caption above the scrolling box, not inside it: on a phone it wraps instead of being cut.
  return h("div", { class: "matrix-block" }, caption ? h("p", { class: "meta caption" }, caption) : null,
    h("div", { class: "scroll-x" }, h("table", { class: "matrix" },
    h("thead", {}, h("tr", {}, columns.map((c, i) => h("th", { class: i < rowLabels[0].length ? "word" : null, scope: "col" }, c)))),
    h("tbody", {}, rows.map((row, i) => h("tr", { class: receiver === i ? "receiver" : null, "data-source": i + 1 },
      rowLabels[i].map((label, k) => h(k === 0 ? "th" : "td", { class: "word", scope: k === 0 ? "row" : null }, label)),
      row.map((x) => num(x))))))));
}

// ---- the arrows: both heads' attention rows at the receiver, width = weight
//
// Drawn at one scale: the svg is as many CSS pixels wide and tall as its viewBox, so a weight of
// 1 is always WIDTH_PER_WEIGHT px wide and the labels are always their CSS size, for one word or
// twenty. A sentence wider than its box (a long one, a phone) wraps into lines, as text does,
// instead of scrolling sideways or shrinking: a line before the receiver's own ends in an echo of
// the receiver (its word again, dimmed), where that line's arrows end. Colours come from classes
// (lesson.css).

export const WIDTH_PER_WEIGHT = 14;      // px of stroke for a weight of 1
const MIN_STROKE = 0.6;                  // a weight near 0 still shows as a hairline

// The width of a label as the page draws it (an svg.arrows text of class `cls`), measured once
// per label in a hidden svg; an estimate of `perChar` px a character where there is no layout.
const measured = new Map();
let ruler = null;
export function labelWidth(text, cls, perChar) {
  const key = `${cls}\u0000${text}`;
  if (measured.has(key)) return measured.get(key);
  let w = perChar * [...text].length;
  try {
    if (!ruler) {
      ruler = h("svg:svg", { class: "arrows", width: 0, height: 0, "aria-hidden": "true",
        style: "position:absolute;left:-9999px;top:0;visibility:hidden" }, h("svg:text"));
      document.body.append(ruler);
    }
    ruler.firstChild.setAttribute("class", cls);
    ruler.firstChild.textContent = text;
    const got = ruler.firstChild.getComputedTextLength();
    if (got > 0) w = got;
    else return w;                       // not laid out yet: the estimate, not kept
  } catch { return w; /* no layout (not in a page): the estimate */ }
  measured.set(key, w);
  return w;
}

/**
 * Token slots (slots[j]: the room token j takes, its centre in the middle) broken into lines no
 * wider than `maxWidth`, like words of a text; r is the receiver (0-based). A line that ends
 * before the receiver ends in an echo of it (`echo` px), since its arcs need an end; the
 * receiver's own line keeps `loop` px right of the receiver's centre for its self-loop. A token
 * wider than the box gets a line of its own (that line alone is wider than `maxWidth`).
 * Returns { lines: [{ first, last, echo: x or null, width }], x: [centre of each token in its
 * line], line: [its line's index], width: the widest line }.
 */
export function wrapSlots(slots, r, maxWidth, { margin = 6, echo = 40, loop = 26 } = {}) {
  const n = slots.length;
  const lineWidth = (a, b) => {
    let w = 2 * margin;
    for (let k = a; k <= b; k++) w += slots[k];
    if (b < r) w += echo;
    else if (b === r) w += Math.max(0, loop - slots[r] / 2);
    return w;
  };
  const lines = [], x = [], line = [];
  for (let a = 0; a < n;) {
    let b = a;
    while (b + 1 < n && lineWidth(a, b + 1) <= maxWidth) b++;
    let at = margin;
    for (let k = a; k <= b; k++) { x[k] = at + slots[k] / 2; at += slots[k]; line[k] = lines.length; }
    lines.push({ first: a, last: b, echo: b < r ? at + echo / 2 : null, width: lineWidth(a, b) });
    a = b + 1;
  }
  return { lines, x, line, width: Math.max(...lines.map((l) => l.width)) };
}

/** A diagram's box that draws `build(width)` for its own width (Infinity before it is laid out)
 * and again whenever that width changes (a phone turned, a window resized). Call box.redraw()
 * once the box is in the page. */
export function fittedDiagram(build) {
  const box = h("div", { class: "diagram" });
  let drawn = null;
  box.redraw = () => {
    const w = box.clientWidth;
    if (box.firstChild && w === drawn) return;
    drawn = w;
    box.replaceChildren(build(w > 0 ? w : Infinity));
  };
  if (typeof ResizeObserver !== "undefined") {
    const watcher = new ResizeObserver(() => { if (box.isConnected) box.redraw(); else watcher.disconnect(); });
    watcher.observe(box);
  }
  return box;
}

function arcText(sheet, head, j, r) {
  return `head ${head.index} (${head.name}): "${sheet.tokens[j]}" (position ${j + 1}) → the receiver "${sheet.tokens[r]}"` +
    ` (position ${r + 1}), weight ${alphaName(head.index, r + 1, sub(j + 1))} = ${fmt(head.weights[r][j])}`;
}

/** A focused arc gets a ring: a receiver-yellow copy of its path, 3 px wider on each side, drawn
 * just under it (the browser's own outline is a faint box around an svg path, or nothing). */
export function ringOnFocus(arc) {
  let ring = null;
  arc.addEventListener("focus", () => {
    ring?.remove();
    ring = h("svg:path", { d: arc.getAttribute("d"), class: "focus-ring", "aria-hidden": "true",
      "stroke-width": (parseFloat(arc.getAttribute("stroke-width")) + 6).toFixed(2) });
    arc.before(ring);
  });
  arc.addEventListener("blur", () => { ring?.remove(); ring = null; });
  return arc;
}

/** Both heads' attention rows at the receiver r (0-based): arcs from every source 0..r into r; the
 * positions after r are drawn dimmed, with no arc (the causal mask: the future is not read). The
 * sentence wraps into lines no wider than `maxWidth` (wrapSlots); each line is a band, head 1's
 * arcs above its words and head 2's below. */
function arrows(sheet, r, { onFocusArc, maxWidth = Infinity } = {}) {
  const n = sheet.n, tokens = sheet.tokens;
  // A slot holds its word (15 px) and the weights above and below it (13 px, "0.718").
  const slots = tokens.map((t) => Math.max(labelWidth(t, "tok", 9) + 16, 56));
  const echoWidth = Math.max(labelWidth(tokens[r], "echo", 9) + 16, 48);
  const lay = wrapSlots(slots, r, maxWidth, { margin: 8, echo: echoWidth, loop: 30 });
  const rise = (d) => Math.min(22 + 11 * d, 180);           // an arc rises with the words it spans
  // Each source's arc ends at the receiver, or at its line's echo; d: how many slots it spans.
  const end = (j) => { const l = lay.lines[lay.line[j]]; return l.echo === null ? lay.x[r] : l.echo; };
  const span = (j) => (lay.lines[lay.line[j]].echo === null ? r - j : lay.lines[lay.line[j]].last - j + 1);
  let top = 0;
  const bands = lay.lines.map((l) => {
    let widest = 0;
    for (let j = l.first; j <= Math.min(l.last, r); j++) widest = Math.max(widest, span(j));
    const arcRoom = Math.max(rise(widest), 46) * 0.75 + 14;
    const yTok = top + arcRoom + 44;
    top = yTok + 60 + arcRoom;
    return { yTok, yW1: yTok - 26, yW2: yTok + 34 };
  });
  const width = lay.width, height = top;
  const band = (j) => bands[lay.line[j]], x = (j) => lay.x[j];
  const svg = h("svg:svg", { class: "arrows", viewBox: `0 0 ${width} ${height}`, width, height, role: "group",
    "aria-label": `Attention weights of the receiver (position ${r + 1}) in head 1 (above) and head 2 (below); ` +
      "Tab to an arrow to read it" });
  const defs = h("svg:defs");
  svg.append(defs);
  sheet.heads.forEach((head, k) => {
    const cls = `h${k + 1}`;
    defs.append(h("svg:marker", { id: `arrow-${k + 1}`, viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 9,
      markerHeight: 9, markerUnits: "userSpaceOnUse", orient: "auto-start-reverse" },
    h("svg:path", { d: "M0,0 L10,5 L0,10 z", class: cls })));
    const row = head.weights[r].slice(0, r + 1);
    const up = k === 0 ? -1 : 1;
    // In position order, left to right and line by line: the order Tab visits them (head 1's, then head 2's).
    for (let j = 0; j <= r; j++) {
      const w = row[j], b = band(j);
      const y0 = k === 0 ? b.yW1 - 14 : b.yW2 + 8;
      const strokeWidth = Math.max(WIDTH_PER_WEIGHT * w, MIN_STROKE);
      let d;
      if (j === r) {
        d = `M${x(j) - 10},${y0} C${x(j) - 26},${y0 + up * 46} ${x(j) + 26},${y0 + up * 46} ${x(j) + 10},${y0}`;
      } else {
        const up2 = rise(span(j)), to = end(j);
        d = `M${x(j)},${y0} C${x(j)},${y0 + up * up2} ${to},${y0 + up * up2} ${to},${y0}`;
      }
      const text = arcText(sheet, head, j, r);
      const arc = h("svg:path", { d, "stroke-width": strokeWidth.toFixed(2), "marker-end": `url(#arrow-${k + 1})`,
        class: `arc ${cls}`, tabindex: 0, role: "img", "aria-label": text, "data-head": k + 1, "data-source": j + 1,
        "data-weight": w }, h("svg:title", {}, text));
      if (onFocusArc) {
        for (const e of ["focus", "mouseenter"]) arc.addEventListener(e, () => onFocusArc(head, j, text));
        for (const e of ["blur", "mouseleave"]) arc.addEventListener(e, () => onFocusArc(null));
      }
      svg.append(ringOnFocus(arc));
      svg.append(h("svg:text", { x: x(j), y: k === 0 ? b.yW1 : b.yW2, "text-anchor": "middle", class: `weight ${cls}`,
        "data-head": k + 1, "aria-hidden": "true" }, fmt(w)));
    }
  });
  tokens.forEach((t, j) => {
    const b = band(j);
    svg.append(h("svg:text", { x: x(j), y: b.yTok + 5, "text-anchor": "middle",
      class: j === r ? "tok receiver" : j > r ? "tok future" : "tok" }, t));
    svg.append(h("svg:text", { x: x(j), y: b.yTok + 19, "text-anchor": "middle", class: "weight pos",
      "data-role": "position", "aria-hidden": "true" }, String(j + 1)));
  });
  lay.lines.forEach((l, i) => {
    if (l.echo === null) return;
    const yTok = bands[i].yTok;
    svg.append(h("svg:text", { x: l.echo, y: yTok + 5, "text-anchor": "middle", class: "echo", "data-role": "echo",
      "aria-hidden": "true" }, h("svg:title", {}, `the receiver "${tokens[r]}" (position ${r + 1}) again: this line's arrows end in it`),
    tokens[r]));
    svg.append(h("svg:text", { x: l.echo, y: yTok + 19, "text-anchor": "middle", class: "weight pos echo",
      "data-role": "echo", "aria-hidden": "true" }, `→ ${r + 1}`));
  });
  return svg;
}

// ---- one head at the receiver

function headPanel(sheet, head, r) {
  const d = head.Q[0].length;
  const coords = coordinates(head.index), k = head.index, n = r + 1;
  const cls = `head${head.index}`;
  const sources = sheet.tokens.slice(0, r + 1);
  const rows = sources.map((t, j) => [...head.K[j], ...head.V[j], head.scaled[r][j], head.weights[r][j]]);
  return h("div", { class: "panel", "data-head": head.index, "data-part": `head${head.index}` },
    h("h3", { class: cls }, `Head ${head.index} · ${head.name}`),
    h("p", { class: "query" }, `Query at the receiver (position ${n}, "${sheet.tokens[r]}"): `,
      h("span", { class: "sym" }, `q${sup(k)}${sub(n)} = e${sub(n)} W_Q${sup(k)}`), " = [", head.Q[r].map((x) => fmt(x)).join(", "), "]"),
    matrixTable(`Rows k${sup(k)}ⱼ of K${sup(k)} and v${sup(k)}ⱼ of V${sup(k)} up to the receiver: ` +
      `score = q${sup(k)}${sub(n)} · k${sup(k)}ⱼ ÷ √${d} (÷ ${fmt(head.scale)}); ${alphaName(k, n)} = softmax over j = 1–${n}` +
      (r < sheet.n - 1 ? ` (positions ${r + 2}–${sheet.n} come later: masked)` : ""),
      sources.map((t, j) => [String(j + 1), t]),
      ["j", "token", ...coords.map((c) => `k${sup(k)} ${c}`), ...coords.map((c) => `v${sup(k)} ${c}`), "score", alphaName(k, n)],
      rows, { receiver: r }),
    h("p", {}, "Message ", h("span", { class: "sym" }, `m${sup(k)}${sub(n)} = Σⱼ ${alphaName(k, n)} v${sup(k)}ⱼ`), " = [",
      h("span", { class: "num", "data-message": head.index }, head.messages[r].map((x) => fmt(x)).join(", ")), "]"),
    messageTerms(sheet, head, r),
    watch(`head${head.index}`));
}

/** The message's sum written out, one term per source (weight × its value), in position order;
 * an arrow in focus lights its term. Terms are unrounded products, shown rounded once. */
function messageTerms(sheet, head, r) {
  const terms = [];
  for (let j = 0; j <= r; j++) {
    const w = head.weights[r][j];
    terms.push(h("span", { class: "term", "data-source": j + 1, title: `${sheet.tokens[j]} (position ${j + 1})` },
      `${fmt(w)} × [${head.V[j].map((x) => fmt(x)).join(", ")}]`));
    if (j < r) terms.push(" + ");
  }
  return h("p", { class: "meta terms" }, `m${sup(head.index)}${sub(r + 1)} = `, terms);
}

/** Scene 11's masked matrix of one head: row i is position i's attention over positions 1..i (the
 * future masked), the receiver's row lit; each row's button makes that position the receiver. */
function maskedMatrix(sheet, head, r, choose) {
  const n = sheet.n;
  return h("div", { class: "panel masked", "data-head": head.index },
    h("h3", { class: `head${head.index}` }, `A${sup(head.index)} · head ${head.index}: every row's weights`),
    h("p", { class: "meta" }, "Row = receiver, column = source; · = masked (a later position). Pick a row to make it the receiver."),
    head.index === 1 ? watch("masked") : null,
    h("div", { class: "scroll-x" }, h("table", { class: "matrix masked-matrix" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "word" }, "receiver"),
        sheet.tokens.map((t, j) => h("th", { scope: "col", title: t }, String(j + 1))))),
      h("tbody", {}, sheet.tokens.map((t, i) => h("tr", { class: i === r ? "receiver" : null, "data-row": i + 1 },
        h("th", { scope: "row", class: "word" }, h("button", { type: "button", class: "pick", "data-pick": i + 1,
          "aria-pressed": String(i === r), onclick: () => choose(i) }, `${i + 1} ${t}`)),
        sheet.tokens.map((_, j) => (j > i ? h("td", { class: "masked-cell", "aria-label": "masked" }, "·")
          : h("td", { class: "num w", style: `--a: ${head.weights[i][j].toFixed(4)}`, "data-weight": head.weights[i][j] },
            fmt(head.weights[i][j]))))))))));
}

const READOUT_HINT = "Point at an arrow, or Tab to it, to read its weight; its key and value row and its term of the message light up in the head's panel.";

/** Light the head table's row of source j (and say what the arrow means), or clear it (head null). */
function light(out, readout, head, j, text) {
  out.querySelectorAll("tr.lit, .term.lit").forEach((el) => el.classList.remove("lit"));
  if (!head) { readout.textContent = READOUT_HINT; return; }
  out.querySelectorAll(`.panel[data-head="${head.index}"] tr[data-source="${j + 1}"], ` +
    `.panel[data-head="${head.index}"] .term[data-source="${j + 1}"]`).forEach((el) => el.classList.add("lit"));
  readout.textContent = text;
}

// The moment of the video that explains each part (page.py EXPLAINED_BY, for built chapters).
let EXPLAINED = {};
function readExplained() {
  try { EXPLAINED = JSON.parse(document.getElementById("explorer-scenes")?.textContent || "{}"); } catch { EXPLAINED = {}; }
}

/** "Watch it explained: Scene 8 · Head 1 weights (1:40)", a link to that moment, or nothing. */
function watch(part) {
  const e = EXPLAINED[part];
  if (!e || typeof e.href !== "string" || !/^#[\w-]+&t=\d+$/.test(e.href)) return null;
  return h("p", { class: "watch-link meta" }, "Explained in the video: ",
    h("a", { href: e.href, "data-part": part }, `${e.label} (${e.at})`));
}

// ---- step by step: the receiver's computation in the video's order, with this sentence's numbers

const vec = (xs) => `[${xs.map((x) => fmt(x)).join(", ")}]`;

/** The seven steps of chapter 2 for receiver r: [title, text, part of the page, video part]. */
export function walkSteps(sheet, r, mlp) {
  const t = sheet.tokens, d = sheet.heads[0].Q[0].length;
  const best = sheet.heads.map((head) => {
    let j = 0;
    for (let k = 1; k <= r; k++) if (head.weights[r][k] > head.weights[r][j]) j = k;
    return j;
  });
  const ties = sheet.heads.map((head, i) => head.weights[r].slice(0, r + 1).every((w) => Math.abs(w - head.weights[r][best[i]]) < 1e-12));
  const each = (f) => { const out = sheet.heads.map((head, i) => f(head, best[i], ties[i])).join("; "); return out[0].toUpperCase() + out.slice(1); };
  const word = (j) => `"${t[j]}" (position ${j + 1})`;
  return [
    ["q·k", `Each head compares the receiver's query (q¹${sub(r + 1)}, q²${sub(r + 1)}: position ${r + 1}, "${t[r]}") with the key of every ` +
      `position up to it: a dot product, one score per source. ` +
      each((head, j, tie) => (tie && r > 0 ? `head ${head.index} scores every source the same, q·k = ${fmt(head.scores[r][j])}`
        : `head ${head.index}'s strongest is ${word(j)}, q·k = ${fmt(head.scores[r][j])}`)) + ".", "head1", "head1"],
    [`÷ √${d}`, `Every score is divided by √${d} = ${fmt(sheet.heads[0].scale)}, the square root of a head's width, so ` +
      "wider heads do not get sharper weights just for being wider: " +
      each((head, j) => `head ${head.index}: ${fmt(head.scores[r][j])} ÷ ${fmt(head.scale)} = ${fmt(head.scaled[r][j])}`) + ".",
    "head1", "head1"],
    ["softmax", `Softmax turns each head's scaled scores over positions 1–${r + 1} into weights that are positive and ` +
      "add up to 1 (later positions are masked: they get nothing). " +
      each((head, j, tie) => (tie && r > 0 ? `head ${head.index} gives each of the ${r + 1} positions ${fmt(head.weights[r][j])}`
        : `head ${head.index} gives ${word(j)} ${fmt(head.weights[r][j])}`)) + ".", "arrows", "arrows"],
    ["weighted sum", "Each head's message is the weighted sum of the values: every source's v times its weight, " +
      "added up. " + sheet.heads.map((head) => `m${sup(head.index)}${sub(r + 1)} = ${vec(head.messages[r])}`).join(", ") + ".",
    "head2", "message"],
    ["W_O", `The two messages are joined, [m¹${sub(r + 1)} | m²${sub(r + 1)}] = ${vec(sheet.H_joined[r])}, and multiplied by W_O: ` +
      `Δe${sub(r + 1)} = ${vec(sheet.delta_E[r])}, the change the heads make to the receiver's row.`, "joined", "joined"],
    ["E′", `The change is added to the receiver's own row of E: e′${sub(r + 1)} = e${sub(r + 1)} + Δe${sub(r + 1)} = ` +
      `${vec(sheet.E[r])} + ${vec(sheet.delta_E[r])} = ${vec(sheet.E_prime[r])}.`, "joined", "residual"],
    ["prediction", `The prediction MLP reads E′ and gives every word a probability: "${mlp.prediction}" comes first, ` +
      `with ${fmt(mlp.ranked[0][1])}.`, "prediction", "prediction"],
  ];
}

function walkPanel(sheet, r, mlp, out) {
  const steps = walkSteps(sheet, r, mlp);
  let k = 0;
  const title = h("h4", { class: "walk-title" });
  const text = h("p", { class: "walk-text", "aria-live": "polite" });
  const where = h("span", { class: "meta walk-count" });
  const prev = h("button", { type: "button", class: "walk-prev" }, "← Back");
  const next = h("button", { type: "button", class: "walk-next" }, "Next →");
  const link = h("span", { class: "walk-watch" });
  function go(to) {
    k = Math.max(0, Math.min(steps.length - 1, to));
    const [name, body, part, video] = steps[k];
    title.textContent = `${k + 1}. ${name}`;
    text.textContent = body;
    where.textContent = `step ${k + 1} of ${steps.length}`;
    prev.disabled = k === 0;
    next.disabled = k === steps.length - 1;
    panel.dataset.step = String(k + 1);
    out.querySelectorAll(".walk-lit").forEach((el) => el.classList.remove("walk-lit"));
    out.querySelector(`.panel[data-part="${part}"]`)?.classList.add("walk-lit");
    link.replaceChildren(watch(video) ?? "");
  }
  prev.addEventListener("click", () => go(k - 1));
  next.addEventListener("click", () => go(k + 1));
  const panel = h("div", { class: "panel full walk", id: "explorer-walk" },
    h("h3", {}, `Step by step: how position ${r + 1} ("${sheet.tokens[r]}") gets its prediction`),
    h("div", { class: "form-row" }, prev, next, where), title, text, link);
  panel.start = () => go(0);
  return panel;
}

/** Everything for `sheet` with position r (0-based) as the receiver; choose(i) makes i the receiver. */
function render(sheet, out, r, choose) {
  const n = sheet.n;
  const readout = h("p", { id: "explorer-readout", class: "meta readout", "aria-live": "polite" }, READOUT_HINT);
  const positions = sheet.tokens.map((t, j) => [String(j + 1), t]);
  // The prediction MLP on the receiver's row of E′: the next word after position r + 1. (The
  // data layer computes it for the last row; attention is causal, so row r is exactly what the
  // first r + 1 words alone would give.)
  const mlp = r === n - 1 ? sheet.mlp : predict(sheet.E_prime[r]);
  const top = mlp.ranked[0][1];
  out.dataset.receiver = String(r + 1);
  const walk = walkPanel(sheet, r, mlp, out);
  out.replaceChildren(
    walk,
    h("div", { class: "panel full", "data-part": "tokens" },
      h("h3", {}, `Tokens (n = ${n}); the receiver is position ${r + 1}`,
        h("span", { class: "meta" }, " · pick a word to make it the receiver")),
      h("div", { class: "tokens", id: "explorer-tokens" }, sheet.tokens.map((t, j) =>
        h("button", { type: "button", class: j === r ? "token receiver" : j > r ? "token future" : "token",
          "aria-pressed": String(j === r), title: `make "${t}" (position ${j + 1}) the receiver`, onclick: () => choose(j) },
        t, h("sub", {}, j + 1)))),
      h("h3", {}, "E = token rows + position rows"),
      matrixTable(null, positions, ["p", "token", ...AXES], sheet.E, { receiver: r }), watch("tokens")),
    h("div", { class: "panels two" }, sheet.heads.map((head) => headPanel(sheet, head, r))),
    h("div", { class: "panel full", "data-part": "arrows" },
      h("h3", {}, "Both attention rows at the receiver: ", h("span", { class: "head1" }, "head 1 above"), ", ",
        h("span", { class: "head2" }, "head 2 below"),
        h("span", { class: "meta" }, ` (arrow width = weight: ${WIDTH_PER_WEIGHT} px for a weight of 1; each row sums to 1)`)),
      fittedDiagram((maxWidth) => arrows(sheet, r, { maxWidth, onFocusArc: (head, j, text) => light(out, readout, head, j, text) })),
      h("p", { class: "meta scroll-hint", hidden: true }, "← scroll the diagram sideways for the other words →"),
      readout, watch("arrows")),
    h("div", { class: "panels two" }, sheet.heads.map((head) => maskedMatrix(sheet, head, r, choose))),
    h("div", { class: "panels two" },
      h("div", { class: "panel", "data-part": "joined" }, h("h3", {}, `The receiver's row, position ${r + 1}`),
        matrixTable(`Δe${sub(r + 1)} = [m¹${sub(r + 1)} | m²${sub(r + 1)}] · W_O;  e′${sub(r + 1)} = e${sub(r + 1)} + Δe${sub(r + 1)} ` +
          "(the receiver's rows of ΔE, E and E′)",
          [[`[m¹${sub(r + 1)} | m²${sub(r + 1)}]`], [`Δe${sub(r + 1)}`], [`e${sub(r + 1)}`], [`e′${sub(r + 1)}`]],
          ["", ...AXES],
          [sheet.H_joined[r], sheet.delta_E[r], sheet.E[r], sheet.E_prime[r]], { receiver: 3 }),
        h("p", { class: "prediction" }, `Prediction after "${sheet.tokens[r]}": `,
          h("strong", { id: "explorer-prediction" }, mlp.prediction),
          h("span", { class: "meta" }, ` (probability ${fmt(mlp.ranked[0][1])})`)), watch("joined"), watch("prediction")),
      h("div", { class: "panel", id: "explorer-probabilities", "data-part": "prediction" },
        h("h3", {}, `Next-word probabilities (the prediction MLP on e′${sub(r + 1)})`),
        h("div", { class: "bars" }, mlp.ranked.map(([word, p], i) => [
          h("span", { class: i === 0 ? "word top" : "word", "data-word": word }, word),
          h("span", { class: i === 0 ? "p num top" : "p num", "data-p": word }, fmt(p)),
          h("div", { class: "track" }, h("div", { class: "bar", style: `width:${(100 * p / top).toFixed(2)}%` })),
        ])))));
  walk.start();
  out.querySelectorAll(".diagram").forEach((d) => d.redraw?.());      // at the width the page gives it
  receiverInView(out);
}

/** A diagram still wider than its box (one word wider than a phone, a box not laid out when it was
 * drawn) opens scrolled, in its own box only, so that the receiver and the sources just before it
 * are in view; a hint says it scrolls. */
export function receiverInView(root) {
  root.querySelectorAll(".diagram").forEach((d) => {
    const overflows = d.scrollWidth > d.clientWidth + 1;
    const receiver = d.querySelector("svg text.tok.receiver");
    if (overflows && receiver) {
      const x = parseFloat(receiver.getAttribute("x"));
      d.scrollLeft = Math.max(0, Math.min(d.scrollWidth - d.clientWidth, x + 48 - d.clientWidth));
    }
    const hint = d.nextElementSibling;
    if (hint?.classList.contains("scroll-hint")) hint.hidden = !overflows;
  });
}

// ---- the parameters: every matrix the worksheet's two heads use, as the videos name them. The
// numbers are lesson_data/worksheet.py's (worksheet_tables.mjs is generated from it), shown with fmt.

/** [name, shape, rows, row labels, column labels, head (0: both), what it does] per matrix. */
export function parameterTables() {
  const heads = [[W_Q1, W_K1, W_V1], [W_Q2, W_K2, W_V2]];
  const out = [];
  heads.forEach(([q, k, v], i) => {
    const coords = coordinates(i + 1), s = sup(i + 1);
    out.push([`W_Q${s}`, q, AXES, coords, i + 1, `e W_Q${s} = q${s}: what head ${i + 1} looks for`],
      [`W_K${s}`, k, AXES, coords, i + 1, `e W_K${s} = k${s}: what each word offers head ${i + 1}`],
      [`W_V${s}`, v, AXES, coords, i + 1, `e W_V${s} = v${s}: what each word passes on through head ${i + 1}`]);
  });
  const joined = [1, 2].flatMap((i) => coordinates(i).map((c) => `m${sup(i)} ${c}`));
  out.push(["W_O", W_O, joined, AXES, 0, "[m¹ | m²] W_O = Δe: the joined messages turned into the receiver's change; " +
    "its first two rows are head 1's block, the last two head 2's"]);
  return out;
}

function parametersPanel() {
  const shape = (m) => `[${m.length}, ${m[0].length}]`;
  return h("details", { class: "panel full parameters", id: "explorer-parameters", open: true },
    h("summary", {}, h("h3", { class: "inline" }, "The parameters: W_Q, W_K, W_V of each head and W_O")),
    h("p", { class: "meta" }, "The numbers every sentence above is computed with, the same for every sentence. Here they are " +
      "chosen by hand so that each head has a job (head 1 finds the setting, head 2 the person); in a trained model, " +
      "as in chapter 3, they are learned. A row of E (e, four numbers on the axes) times a head's matrix gives that " +
      "head's two numbers."),
    h("div", { class: "parameter-grid" }, parameterTables().map(([name, m, rows, cols, head, what]) =>
      h("div", { class: head ? `parameter head${head}` : "parameter", "data-parameter": name },
        h("p", { class: "caption" }, h("strong", { class: "sym" }, `${name} ${shape(m)}`), h("span", { class: "meta" }, ` · ${what}`)),
        h("div", { class: "scroll-x" }, h("table", { class: "matrix" },
          h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "word" }, ""), cols.map((c) => h("th", { scope: "col" }, c)))),
          h("tbody", {}, m.map((row, i) => h("tr", {}, h("th", { scope: "row", class: "word" }, rows[i]), row.map((x) => num(x)))))))))));
}

// Punctuation in a typed or linked sentence: removed (the vocabulary has none), and said.
const PUNCTUATION = /\p{P}/gu;

/** The sentence without its punctuation (each mark becomes a space) and the marks removed, once each. */
export function stripPunctuation(text) {
  const marks = [...new Set(text.match(PUNCTUATION) ?? [])];
  return { text: marks.length ? text.replace(PUNCTUATION, " ") : text, marks };
}

// An unknown word is echoed in the message at most ECHO characters long (as player.js's link
// messages are), with its length: a 3,000-letter "word" would otherwise be one unbreakable line.
const ECHO = 40;
export function echoed(err) {
  const word = err.word, letters = typeof word === "string" ? [...word] : [];
  const quoted = letters.length > ECHO ? pyRepr(word) : null;
  if (!quoted || !err.message.includes(quoted)) return err.message;
  return err.message.replace(quoted, `${pyRepr(letters.slice(0, ECHO).join("") + "…")} ` +
    `(${letters.length.toLocaleString("en-US")} characters)`);
}

export function mount(root = document.getElementById("explorer")) {
  if (!root) return null;
  const form = root.querySelector("#explorer-form");
  const input = root.querySelector("#explorer-input");
  const message = root.querySelector("#explorer-message");
  const out = root.querySelector("#explorer-output");
  const vocab = root.querySelector("#explorer-vocab");
  const download = root.querySelector("#explorer-download");
  const link = root.querySelector("#explorer-link");
  const note = root.querySelector("#explorer-note");
  let current = null;

  /** Make position r (0-based) of the current sentence the receiver, keeping the focus on the
   * control that asked (its replacement in the new tables). */
  function choose(r) {
    const focused = document.activeElement, kind = focused?.dataset?.pick ? "pick" : focused?.closest?.("#explorer-tokens") ? "token" : null;
    render(current, out, r, choose);
    scrollCues(out);
    // A link a teacher can send: this page, opened on this sentence (player.js checks it), with the
    // chosen receiver when it is not the last word. It carries the sentence's words, never a
    // preset's name (the link is read literally).
    if (link) {
      const query = { sentence: current.text };
      if (r !== current.n - 1) query.receiver = String(r + 1);
      link.href = `?${new URLSearchParams(query)}#explorer`;
      link.removeAttribute("aria-disabled");
      link.title = `A link to this page's explorer on “${current.text}”`;
    }
    if (kind === "pick") out.querySelector(`.masked[data-head="${focused.closest(".masked").dataset.head}"] button[data-pick="${r + 1}"]`)?.focus();
    else if (kind === "token") out.querySelectorAll("#explorer-tokens .token")[r]?.focus();
  }

  // What is typed (or linked, ?sentence=…) is computed literally: "river" is the one word river,
  // not the preset sentence the CLI and data layer name "river". Only the preset buttons and the
  // scenes' "try it" links pass a preset's name (`literal: false`).
  function show(text, { literal = true } = {}) {
    let sheet;
    const cleaned = literal ? stripPunctuation(text) : { text, marks: [] };
    if (note) {
      note.textContent = cleaned.marks.length ? `Punctuation removed: ${cleaned.marks.join(" ")}` : "";
      note.hidden = cleaned.marks.length === 0;
    }
    try {
      sheet = computeWorksheet(cleaned.text, { literal });
    } catch (err) {
      if (!(err instanceof WorksheetInputError)) throw err;
      message.textContent = echoed(err);
      message.dataset.word = err.word ?? "";
      message.hidden = false;
      // The last good sentence's tables go: numbers left under an error read as this sentence's.
      out.replaceChildren();
      current = null;
      // ... and so does its link: it would share a sentence other than the one in the box.
      if (link) {
        link.removeAttribute("href");
        link.setAttribute("aria-disabled", "true");
        link.title = "No link: the sentence in the box cannot be computed (see the message)";
      }
      delete root.dataset.sentence;
      return false;
    }
    message.hidden = true;
    message.textContent = "";
    current = sheet;
    choose(sheet.n - 1);
    root.dataset.sentence = sheet.name;
    return true;
  }

  form.addEventListener("submit", (event) => { event.preventDefault(); show(input.value); });
  root.querySelectorAll("button[data-preset]").forEach((b) => b.addEventListener("click", () => {
    input.value = SENTENCES[b.dataset.preset];
    show(b.dataset.preset, { literal: false });
  }));
  vocab.replaceChildren(...VOCAB.map((word) => h("button", {
    type: "button", class: CANDIDATES.includes(word) ? "candidate" : null, title: `append "${word}"`,
    onclick: () => { input.value = `${input.value.trim()} ${word}`.trim(); show(input.value); },
  }, word)));
  download.addEventListener("click", () => {
    if (!current) return;
    const doc = { format: FORMAT, axes: [...AXES], vocab: [...VOCAB], candidates: [...CANDIDATES],
      head_names: [...HEAD_NAMES], sentences: { [current.name]: current } };
    const url = URL.createObjectURL(new Blob([toPythonJSON(doc) + "\n"], { type: "application/json" }));
    const a = h("a", { href: url, download: `worksheet-${current.name.replace(/[^a-z]+/g, "-")}.json` });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  });
  // "try it" beside a worksheet scene: that scene's sentence, here, without reloading the page.
  document.querySelectorAll("a[data-try]").forEach((a) => a.addEventListener("click", (event) => {
    event.preventDefault();
    input.value = SENTENCES[a.dataset.try] ?? a.dataset.try;
    show(a.dataset.try, { literal: false });
    history.pushState(null, "", a.getAttribute("href"));
    root.scrollIntoView();
  }));
  readExplained();
  const parameters = parametersPanel();
  out.after(parameters);
  scrollCues(parameters);
  // A sentence from the page's link (?sentence=…), already checked by player.js; else the default.
  const asked = globalThis.lessonLink?.sentence;
  if (asked) {
    input.value = asked;
    show(asked);
    const receiver = globalThis.lessonLink?.receiver;                 // checked against its length there
    if (receiver && current && receiver <= current.n) choose(receiver - 1);
    root.scrollIntoView();
  } else {
    show(input.value || "river");
  }
  root.dataset.ready = "true";
  root.dataset.readyAt = performance.now().toFixed(1);   // ms since navigation: first interaction
  return { show };
}

mount();
