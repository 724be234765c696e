// Where a trained model looks, step by step: one card per model run in the demo (demo.mjs).
//
// Each generation step is one model call (model.mjs generateSteps with `inspect`): the window it
// read (readWindow: <BOS> while it fits, no PAD) and, per head, the final query's weight on each
// of those tokens, plus the logits. The card shows one step at a time (a slider scrubs back
// through them; it follows the newest step until moved):
//   * per head, the weights as arrows into the receiver (the last token read), drawn at the
//     explorer's fixed scale (WIDTH_PER_WEIGHT px of stroke for a weight of 1), and as a heat
//     strip (each token shaded by its weight relative to the row's largest);
//   * the ten most probable next tokens as bars, at the temperature in the form (changing it
//     reshapes the bars without running anything again); the token the step chose is marked.
// Colours are chapter 3's (lesson.css: the one head in the wide head's pink, four heads in the
// Okabe-Ito blue, orange, green and lilac). The MLP has no attention: its card says so.

import { probabilities } from "./model.mjs";
import { WIDTH_PER_WEIGHT, fittedDiagram, h, labelWidth, receiverInView, ringOnFocus, wrapSlots } from "./explorer.mjs";

const MIN_STROKE = 0.6;
export const TOP_K = 10;

/** The `k` largest entries of `p` as [index, value], largest first (ties: lower index first). */
export function topK(p, k = TOP_K) {
  const best = [];
  for (let i = 0; i < p.length; i++) {
    if (best.length < k || p[i] > best[best.length - 1][1]) {
      let at = best.length;
      while (at > 0 && p[i] > best[at - 1][1]) at--;
      best.splice(at, 0, [i, p[i]]);
      if (best.length > k) best.pop();
    }
  }
  return best;
}

const fixed = (x) => (Math.abs(x) < 0.0005 ? "0.000" : x.toFixed(3));

// Every label whole and apart: a slot as wide as its own label (svg text.tok.small: 12 px DejaVu
// Sans, measured: explorer.mjs labelWidth), and room for the arcs, so every source is labelled,
// short ones ("," "a") taking less room. A prompt wider than its box wraps into lines (wrapSlots):
// a line before the receiver's ends in an echo of the receiver, where its arcs end.
const LABEL_GAP = 8, MIN_SLOT = 22;

function arrowsFor(tokens, weights, head, maxWidth = Infinity) {
  const n = tokens.length, r = n - 1;
  const slots = tokens.map((t) => Math.max(labelWidth(t, "tok small", 7.2) + LABEL_GAP, MIN_SLOT));
  // The receiver's self-loop reaches 20 px beyond its centre.
  const echo = `→ ${tokens[r]}`;          // the receiver again, where a line's arcs end
  const lay = wrapSlots(slots, r, maxWidth, { echo: Math.max(labelWidth(echo, "echo small", 7.2) + LABEL_GAP, 30), loop: 24 });
  const rise = (d) => Math.min(16 + 5 * d, 120);
  const span = (j) => (lay.lines[lay.line[j]].echo === null ? r - j : lay.lines[lay.line[j]].last - j + 1);
  let bottom = 0;
  const bands = lay.lines.map((l) => {
    let widest = 0;
    for (let j = l.first; j <= l.last; j++) widest = Math.max(widest, span(j));
    const yArc = bottom + Math.max(rise(widest), 40) * 0.75 + 12, yTok = yArc + 16;
    bottom = yTok + 10;
    return { yArc, yTok };
  });
  const width = lay.width, height = bottom;
  const x = (j) => lay.x[j];
  const svg = h("svg:svg", { class: "arrows prompt-arrows", viewBox: `0 0 ${width} ${height}`, width, height, role: "group",
    "aria-label": `head ${head}: the final query's weights over the ${n} tokens it read` });
  // In position order, left to right and line by line: the order Tab visits them.
  for (let j = 0; j < n; j++) {
    const w = weights[j], l = lay.lines[lay.line[j]], { yArc } = bands[lay.line[j]];
    const to = l.echo === null ? x(r) : l.echo, up = rise(span(j));
    const d = j === r
      ? `M${x(j) - 8},${yArc} C${x(j) - 20},${yArc - 36} ${x(j) + 20},${yArc - 36} ${x(j) + 8},${yArc}`
      : `M${x(j)},${yArc} C${x(j)},${yArc - up} ${to},${yArc - up} ${to},${yArc}`;
    const text = `head ${head}: "${tokens[j]}" (token ${j + 1} of ${n}) → "${tokens[r]}", weight ${fixed(w)}`;
    const arc = h("svg:path", { d, class: "arc", "stroke-width": Math.max(WIDTH_PER_WEIGHT * w, MIN_STROKE).toFixed(2),
      "data-head": head, "data-source": j + 1, "data-weight": w, tabindex: w >= 0.05 ? 0 : null,
      "aria-label": text }, h("svg:title", {}, text));
    svg.append(w >= 0.05 ? ringOnFocus(arc) : arc);
  }
  tokens.forEach((t, j) => svg.append(h("svg:text", { x: x(j), y: bands[lay.line[j]].yTok, "text-anchor": "middle",
    "data-source": j + 1, class: j === r ? "tok small receiver" : "tok small" }, t)));
  lay.lines.forEach((l, i) => {
    if (l.echo !== null) {
      svg.append(h("svg:text", { x: l.echo, y: bands[i].yTok, "text-anchor": "middle", class: "echo small", "data-role": "echo",
        "aria-hidden": "true" }, h("svg:title", {}, `the receiver "${tokens[r]}" again: this line's arrows end in it`), echo));
    }
  });
  return svg;
}

function heatStrip(tokens, weights, head) {
  const top = Math.max(...weights);
  return h("div", { class: "heat", "data-head": head, role: "list", "aria-label": `head ${head}, as shades` },
    tokens.map((t, j) => h("span", { class: j === tokens.length - 1 ? "cell receiver" : "cell", role: "listitem",
      "data-weight": weights[j], style: `--a: ${(top > 0 ? weights[j] / top : 0).toFixed(4)}`,
      title: `${t}: weight ${fixed(weights[j])}` }, t)));
}

/** The same weights as numbers, for reading and for the keyboard (one Tab stop: its summary). */
function weightTable(tokens, weights, head) {
  return h("details", { class: "weights-table" }, h("summary", { class: "meta" }, `head ${head}'s weights as numbers`),
    h("div", { class: "scroll-x" }, h("table", { class: "matrix" },
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "#"), h("th", { scope: "col", class: "word" }, "token"),
        h("th", { scope: "col" }, "weight"))),
      h("tbody", {}, tokens.map((t, j) => h("tr", { class: j === tokens.length - 1 ? "receiver" : null, "data-source": j + 1 },
        h("th", { scope: "row" }, String(j + 1)), h("td", { class: "word" }, t), h("td", { class: "num" }, fixed(weights[j]))))))));
}

/**
 * A card for one model's run. `entry` is the manifest's (title, class, config); `temperature()`
 * reads the form. Returns { el, addStep(step), show(k), reshape(), steps }.
 */
export function modelCard(name, entry, tok, { temperature, withText = false, prompt = "" } = {}) {
  const heads = entry.class === "FixedWindowMLP" ? 0 : entry.config.n_heads;
  const steps = [];
  let shown = -1, follow = true;
  const slider = h("input", { type: "range", class: "step", min: 1, max: 1, value: 1, disabled: true,
    "aria-label": `${entry.title}: which generation step to show` });
  const where = h("output", { class: "meta step-label" });
  const views = h("div", { class: "views" });
  const bars = h("div", { class: "bars top", role: "list" });
  const barsNote = h("p", { class: "meta bars-note" });
  const text = withText ? h("p", { class: "continuation small" }, h("span", { class: "prompt" }, prompt), " ",
    h("span", { class: "generated" })) : null;
  const el = h("article", { class: "model-card", "data-model": name, "data-heads": heads },
    // The title and what it has, once: "One head" is not followed by "· one head".
    h("h3", {}, entry.title, /head|attention/i.test(entry.title) ? null
      : h("span", { class: "meta" }, ` · ${heads === 0 ? "no attention" : heads === 1 ? "one head" : `${heads} heads`}`)),
    text,
    h("label", { class: "scrub" }, "Step ", slider, " ", where),
    heads === 0
      ? h("p", { class: "meta no-attention" }, "The MLP has no attention: it reads the 64 slots of its window all at once, " +
        "each through its own weights, so there is no query and no weight per token to show.")
      : null,
    views,
    h("h4", {}, `The ${TOP_K} most probable next tokens`), bars, barsNote);

  function show(k) {
    if (k < 0 || k >= steps.length) return;
    shown = k;
    const s = steps[k];
    slider.value = String(k + 1);
    where.textContent = `${k + 1} of ${steps.length}: reading ${s.read.ids.length} tokens, it chose "${s.token}"`;
    el.dataset.step = String(k + 1);
    const tokens = s.read.read_as;
    views.replaceChildren(...s.read.heads.map((weights, i) => h("div", { class: `head-view head-${i + 1}`, "data-head": i + 1 },
      h("p", { class: "meta head-name" }, heads === 1 ? "the head" : `head ${i + 1}`),
      heatStrip(tokens, weights, i + 1),
      fittedDiagram((maxWidth) => arrowsFor(tokens, weights, i + 1, maxWidth)),
      h("p", { class: "meta scroll-hint", hidden: true }, "← scroll the diagram sideways for the earlier tokens"),
      weightTable(tokens, weights, i + 1))));
    views.querySelectorAll(".diagram").forEach((d) => d.redraw?.());     // at the width the card gives it
    // The receiver is the last token: a diagram still wider than its box opens scrolled to show it.
    receiverInView(views);
    reshape();
  }

  /** The bars of the step shown, at the form's temperature now. */
  function reshape() {
    if (shown < 0) return;
    const s = steps[shown];
    const t = temperature();
    const p = probabilities(s.logits, t > 0 ? t : 1);
    const best = topK(p);
    const top = best[0][1];
    bars.dataset.temperature = String(t);
    bars.replaceChildren(...best.map(([id, q]) => {
      const word = tok.idToToken(id);
      const chosen = id === s.id;
      return h("div", { class: chosen ? "bar-row chosen" : "bar-row", role: "listitem", "data-token": word, "data-p": q },
        h("span", { class: word === "<UNK>" ? "word unk" : "word" }, word), h("span", { class: "p num" }, fixed(q)),
        h("div", { class: "track" }, h("div", { class: "bar", style: `width:${(100 * q / top).toFixed(2)}%` })));
    }));
    barsNote.textContent = (t > 0 ? `At temperature ${t}: softmax(logits / ${t}).` :
      "Temperature 0 takes the top token; the bars show the model's own probabilities (temperature 1).") +
      (best.some(([id]) => id === s.id) ? " The token this step chose is marked." : ` This step chose "${s.token}", outside the ${TOP_K}.`);
  }

  function addStep(step) {
    steps.push(step);
    slider.max = String(steps.length);
    slider.disabled = steps.length < 2;
    if (follow) show(steps.length - 1);
    else where.textContent = `${shown + 1} of ${steps.length}`;
  }

  // A phone turned, a window resized: the receiver stays in view.
  if (typeof ResizeObserver !== "undefined") new ResizeObserver(() => receiverInView(views)).observe(views);

  slider.addEventListener("input", () => {
    follow = Number(slider.value) === steps.length;
    show(Number(slider.value) - 1);
  });
  return { el, addStep, show, reshape, steps, text };
}
