// The trained-model demo: chapter 3's seed-11 checkpoints continue a prompt in this page.
// model.mjs is the forward pass (typed arrays, no runtime library, nothing leaves the page), its
// matrix-vector products in kernels.mjs's WebAssembly module (plain JavaScript where there is none);
// the weights are web/models/*.bin, fetched when the demo is first used. The time of every model
// call is measured here with performance.now() and shown. Each run also shows where the model
// looked at every step and what it nearly said (attention_view.mjs); "Compare" runs the three
// models on one prompt, side by side.

import { buildModel, generateSteps, median } from "./model.mjs";
import { WordTokenizer, detokenize, seam } from "./tokenizer.mjs";
import { h } from "./explorer.mjs";
import { modelCard } from "./attention_view.mjs";

const MODELS_URL = new URL("./models/", import.meta.url);

async function fetchOk(url, as) {
  const reply = await fetch(url);
  if (!reply.ok) throw new Error(`${url.pathname.split("/").pop()}: HTTP ${reply.status}`);
  return as === "json" ? reply.json() : reply.arrayBuffer();
}

export function mount(root = document.getElementById("demo")) {
  if (!root || !root.querySelector("#demo-form")) return null;
  const $ = (sel) => root.querySelector(sel);
  const form = $("#demo-form"), select = $("#demo-model"), prompt = $("#demo-prompt");
  const tokensIn = $("#demo-tokens"), tempIn = $("#demo-temperature"), seedIn = $("#demo-seed");
  const status = $("#demo-status"), seen = $("#demo-seen"), output = $("#demo-output");
  const latency = $("#demo-latency"), latencyNote = $("#demo-latency-note"), run = $("#demo-run"), unkNote = $("#demo-unk-note");
  const droppedNote = $("#demo-dropped-note"), windowNote = $("#demo-window-note");
  const compare = $("#demo-compare"), results = $("#demo-results");
  const runLink = $("#demo-link"), copyLink = $("#demo-copy-link"), linkStatus = $("#demo-link-status");
  let cards = [];
  let compared = false;               // the last run (or the link's) was Compare: the link says so

  let manifest = null, tok = null;
  const models = new Map();           // name -> Promise<model>
  let busy = false;

  const setStatus = (text, state) => { status.textContent = text; root.dataset.state = state; };

  // The manifest and tokenizer (~0.1 MB); the model options and presets are already in the page.
  // Once: the demo scrolling into view and a run asked for by the link may both ask at the start.
  let booting = null;
  function boot() {
    if (!booting) {
      booting = (async () => {
        const m = await fetchOk(new URL("manifest.json", MODELS_URL), "json");
        tok = WordTokenizer.fromJSON(await fetchOk(new URL(m.tokenizer.file, MODELS_URL), "json"));
        manifest = m;
        showSeen();
        if (!busy) setStatus("Ready. The weights load when you first generate.", "ready");
      })();
      booting.catch(() => { booting = null; });        // a failed fetch: the next use tries again
    }
    return booting;
  }

  function load(name) {
    if (!models.has(name)) {
      const entry = manifest.models[name];
      setStatus(`Loading ${entry.title} (${(entry.bytes / 1e6).toFixed(1)} MB)…`, "running");
      const started = performance.now();
      models.set(name, fetchOk(new URL(entry.file, MODELS_URL)).then((buffer) => {
        const model = buildModel(entry, buffer);
        model.loadMs = performance.now() - started;
        return model;
      }));
      models.get(name).catch(() => models.delete(name));
    }
    return models.get(name);
  }

  /** The prompt as the model reads it: <BOS>, then one chip per token, words outside the vocabulary
   * as <UNK>; the tokens before the model's window (its last `context` tokens) greyed, and the
   * characters the tokenizer drops (é, ß: no piece of its word pattern) named. */
  function showSeen() {
    if (!tok) return;
    const pieces = tok.encodePieces(prompt.value);
    const chips = [h("span", { class: "token", title: "<BOS>: the start of a text, always the first token" }, "<BOS>"),
      ...pieces.map(([piece, id]) => id === tok.unk
        // Focusable, so the keyboard reaches what the mouse's tooltip says.
        ? h("span", { class: "token unk", tabindex: 0, title: `"${piece}" is not among the ${tok.size} words the model knows`,
          "aria-label": `<UNK>, for "${piece}", a word the model does not know` }, "<UNK>")
        : h("span", { class: "token" }, tok.idToToken(id)))];
    // The first prediction reads the last `context` of these (model.mjs windowOf): the rest, greyed.
    const context = manifest?.models[select.value]?.config?.context ?? chips.length;
    const outside = Math.max(0, chips.length - context);
    chips.slice(0, outside).forEach((chip) => {
      chip.classList.add("outside");
      chip.title = `outside the model's window: it reads only the last ${context} tokens (${chip.title || chip.textContent})`;
    });
    seen.replaceChildren(...chips);
    seen.dataset.outside = String(outside);
    windowNote.textContent = outside ? `The model reads only the last ${context} tokens (its window): the first ` +
      `${outside === 1 ? "one, greyed, is" : `${outside}, greyed, are`} outside it, and each word it writes pushes one more out.` : "";
    windowNote.hidden = outside === 0;
    const dropped = tok.dropped(prompt.value);
    droppedNote.textContent = dropped.length ? `Not in the vocabulary's alphabet, removed: ${dropped.join(" ")}` : "";
    droppedNote.hidden = dropped.length === 0;
    const unknown = pieces.filter(([, id]) => id === tok.unk).map(([piece]) => piece);
    seen.dataset.unk = String(unknown.length);
    promptUnknown = unknown;
    explainUnk();
  }

  let promptUnknown = [], generatedUnk = 0;
  /** One line under the output whenever <UNK> appears in the prompt or the continuation. */
  function explainUnk() {
    const parts = [];
    if (promptUnknown.length) {
      const words = [...new Set(promptUnknown)].map((w) => `"${w}"`).join(", ");
      parts.push(`In the prompt, <UNK> stands for ${words}: ${promptUnknown.length === 1 ? "a word" : "words"} outside ` +
        `the ${tok.size} words the model learned in training, so it reads one shared "unknown word" token instead.`);
    }
    if (generatedUnk) {
      parts.push(`In the continuation, <UNK> is the model's own prediction (${generatedUnk}×): "some word I never learned", ` +
        "which it was trained to predict wherever the stories had a rare word.");
    }
    unkNote.textContent = parts.join(" ");
    unkNote.hidden = parts.length === 0;
  }

  /** The continuation's text with each <UNK> in its own styled span. */
  function continuationNodes(text) {
    return text.split("<UNK>").flatMap((chunk, i) => (i === 0 ? [chunk]
      : [h("span", { class: "unk", title: "a word the model predicts but does not know" }, "<UNK>"), chunk]))
      .filter((x) => x !== "");
  }

  /** The form's numbers, read by the one rule a link's get (player.js lessonDemoNumber): an empty
   * temperature or seed is 0, as the link says. Each: { text, value } or { text, problem }. */
  function formNumbers() {
    const read = globalThis.lessonDemoNumber;
    const out = {};
    for (const [name, field, empty] of [["tokens", tokensIn, ""], ["temperature", tempIn, "0"], ["seed", seedIn, "0"]]) {
      const text = field.value.trim() || empty;
      out[name] = { text, ...read(name, text) };
    }
    return out;
  }

  function readOptions() {
    const got = formNumbers(), options = {};
    for (const [name, { text, value, problem }] of Object.entries(got)) {
      if (problem) throw new RangeError(`The ${name === "tokens" ? "number of tokens" : name} ${JSON.stringify(text)} ${problem}.`);
      options[name] = value;
    }
    return options;
  }

  /** The form's temperature for reshaping the bars (the last valid one while the field is being edited). */
  let lastTemperature = 0;
  const temperatureNow = () => {
    const t = Number(tempIn.value);
    if (tempIn.value.trim() !== "" && Number.isFinite(t) && t >= 0) lastTemperature = t;
    return lastTemperature;
  };

  /** Run one model (the selected one) or, with `all`, the three on the same prompt and options. */
  async function generate(all = false) {
    if (busy) return;
    let options;
    try { options = readOptions(); } catch (err) { setStatus(err.message, "error"); return; }
    busy = true;
    run.disabled = compare.disabled = true;
    compared = all;
    updateLink();
    setStatus("Starting…", "running");
    try {
      await boot();
      const names = all ? Object.keys(manifest.models) : [select.value];
      const text = prompt.value;
      temperatureNow();
      output.hidden = all;
      results.classList.toggle("compare", all);
      results.dataset.models = names.join(" ");
      cards = names.map((name) => modelCard(name, manifest.models[name], tok,
        { temperature: temperatureNow, withText: all, prompt: text }));
      results.replaceChildren(...cards.map((c) => c.el));
      generatedUnk = 0;
      explainUnk();
      const summary = [], engines = new Set();
      for (const [k, name] of names.entries()) {
        const card = cards[k];
        const model = await load(name);
        const title = manifest.models[name].title;
        engines.add(model.engine.name === "WebAssembly" ? "WebAssembly" : `plain JavaScript: ${model.engine.why}`);
        setStatus(`${title}: generating…`, "running");
        const gen = all ? card.text.querySelector(".generated") : h("span", { class: "generated" });
        // Between the prompt and the words: a space, or none before "." (seam, detokenize's rule).
        const gap = all ? gen.previousSibling : document.createTextNode("");
        gap.textContent = "";
        if (!all) output.replaceChildren(h("span", { class: "prompt" }, text), gap, gen);
        const words = [], times = [];
        for (const step of generateSteps(model, tok, text, { ...options, inspect: true })) {
          times.push(step.ms);
          card.addStep(step);
          if (step.end) break;
          words.push(step.token);
          const continuation = detokenize(words);
          gap.textContent = seam(text, continuation);
          gen.replaceChildren(...continuationNodes(continuation));
          await new Promise((resolve) => setTimeout(resolve, 0));    // let the page paint each word
        }
        const med = median(times), mean = times.reduce((a, b) => a + b, 0) / times.length;
        card.el.dataset.continuation = detokenize(words);
        generatedUnk += words.filter((w) => w === "<UNK>").length;
        explainUnk();
        if (!all) {
          output.dataset.continuation = detokenize(words);
          output.dataset.model = name;
        }
        latency.dataset.median = String(med);
        latency.dataset.mean = String(mean);
        latency.dataset.calls = String(times.length);
        summary.push(`${title}: ${times.length} model calls, ${med.toFixed(3)} ms per token (median; mean ${mean.toFixed(3)} ms), ` +
          `weights loaded in ${model.loadMs.toFixed(0)} ms`);
      }
      latency.textContent = `${summary.join(" · ")} · measured in this page (${[...engines].join("; ")}), ` +
        `${options.temperature > 0 ? `temperature ${options.temperature}, seed ${options.seed}` : "greedy"}`;
      timingNote([...engines]);
      setStatus(all ? "The three models: done." : `${manifest.models[names[0]].title}: done.`, "done");
    } catch (err) {
      setStatus(`Could not run the model: ${err.message}`, "error");
      console.error(err);
    } finally {
      busy = false;
      run.disabled = compare.disabled = false;
    }
  }

  /** Why these times may rank the models otherwise than chapter 3 does: what is measured, and what
   * the page's code does per token (the sizes from the manifest's configs). */
  function timingNote(engines) {
    if (!latencyNote) return;
    const mlp = Object.values(manifest.models).find((m) => m.class === "FixedWindowMLP")?.config;
    const code = engines.length === 1 && engines[0] === "WebAssembly" ? "WebAssembly" : "JavaScript";
    latencyNote.textContent = `These times are this browser's ${code} forward pass, not chapter 3's PyTorch measurement ` +
      "on a CPU, so the two need not put the models in the same order" + (mlp
      ? `: in this code the baseline's first layer is a ${(mlp.context * mlp.d_model).toLocaleString("en-US")} × ` +
        `${mlp.d_hidden} matrix over its whole ${mlp.context}-token window (${mlp.context} × ${mlp.d_model} numbers), ` +
        "while the attention models compute attention for the final query only." : ".");
    latencyNote.hidden = false;
  }

  form.addEventListener("submit", (event) => { event.preventDefault(); generate(false); });
  compare.addEventListener("click", () => generate(true));
  // The bars reshape with the temperature at once; the text keeps the temperature it was made at.
  tempIn.addEventListener("input", () => cards.forEach((c) => c.reshape()));
  root.querySelectorAll("#demo-presets button[data-preset]").forEach((b) => b.addEventListener("click", () => {
    prompt.value = b.dataset.prompt;
    tokensIn.value = b.dataset.tokens;
    root.dataset.preset = b.dataset.preset;
    showSeen();
    updateLink();
  }));
  prompt.addEventListener("input", showSeen);
  select.addEventListener("change", showSeen);        // its window

  // "Link to this run": this page with the form's prompt, model, temperature, seed and number of
  // tokens, and compare=1 after a Compare (player.js checks each when the link is opened; the demo
  // fills them in and runs it once, as the three models side by side after a Compare).
  function updateLink() {
    if (!runLink) return;
    // The numbers as Generate reads them, written as String(number) writes them (".5" links as 0.5).
    const numbers = formNumbers(), written = (name) => ("value" in numbers[name] ? String(numbers[name].value) : numbers[name].text);
    const query = new URLSearchParams({ prompt: prompt.value, model: select.value, temperature: written("temperature"),
      seed: written("seed"), tokens: written("tokens") });
    if (compared) query.set("compare", "1");
    // the checks a link gets when it is opened (player.js), run on the form: no link the page refuses
    const problems = globalThis.lessonDemoProblems ? globalThis.lessonDemoProblems(query) : [];
    if (problems.length) {
      runLink.removeAttribute("href");
      runLink.setAttribute("aria-disabled", "true");
      if (copyLink) copyLink.disabled = true;
      if (linkStatus) linkStatus.textContent = `No link for these settings: ${problems.join("; ").replace(/(^|; )its /g, "$1the ")}.`;
      return;
    }
    runLink.href = `?${query}#demo`;
    runLink.removeAttribute("aria-disabled");
    if (copyLink) copyLink.disabled = false;
    if (linkStatus) linkStatus.textContent = "";
  }
  form.addEventListener("input", updateLink);
  form.addEventListener("change", updateLink);
  copyLink?.addEventListener("click", async () => {
    updateLink();
    if (!runLink.hasAttribute("href")) return;      // the settings make no link: the status says why
    const url = runLink.href;             // absolute: the page's own address with this query
    try {
      await navigator.clipboard.writeText(url);
      linkStatus.textContent = "Copied: paste it to share this prompt and these settings.";
    } catch {
      linkStatus.textContent = `Copy this link: ${url}`;
    }
    linkStatus.dataset.copied = url;
  });

  // A run from the page's link (?prompt=…&model=…&temperature=…&seed=…&tokens=…[&compare=1]),
  // already checked by player.js: filled in and run, once, as it was (the same seed gives the same
  // words; compare=1 the three models side by side). The weights load for it.
  const asked = globalThis.lessonLink;
  const fields = [["prompt", prompt], ["model", select], ["temperature", tempIn], ["seed", seedIn], ["tokens", tokensIn]];
  const given = (key) => asked && asked[key] !== null && asked[key] !== undefined;
  let fromLink = false;
  if (fields.some(([key]) => given(key)) || (asked && asked.compare)) {
    for (const [key, field] of fields) if (given(key)) field.value = String(asked[key]);
    compared = Boolean(asked.compare);
    fromLink = true;
    setStatus("Prompt and settings from the link: running it…", "running");
    root.scrollIntoView();
  }
  updateLink();
  if (fromLink) generate(compared);
  // Fetch the manifest and tokenizer (~0.1 MB) once the demo scrolls into view.
  const observer = new IntersectionObserver((entries) => {
    if (entries.some((e) => e.isIntersecting)) { observer.disconnect(); boot().catch((err) => setStatus(`Could not load the models: ${err.message}`, "error")); }
  });
  observer.observe(root);
  root.dataset.ready = "true";
  return { generate, boot };
}

mount();
