"""The trained models in JavaScript (lesson_build/web/{tokenizer,model,generate}.mjs) against the
trainer: tokenizer ids on the whole test split, logits within 1e-4 of torch's, greedy
continuations word for word, the node CLI's output and its bad-argument handling. One node process
per test for all of its cases; torch runs in-process."""
from __future__ import annotations

import copy
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from lesson_build.web import tables, weights
from trainer.checkpoints import load_checkpoint
from trainer.config import DEFAULT_DATA_FILES, MODEL_NAMES, get_config
from trainer.data import open_stories, select_stories
from trainer.generate import generate, window_of
from trainer.tokenizer import encode, load_tokenizer

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "lesson_build" / "web"
EXPORTS = ROOT / "lesson_data" / "exports"
NODE = shutil.which("node")
if NODE is None and (os.environ.get("LESSON_REQUIRE_NODE") or os.environ.get("LESSON_REQUIRE_CHROMIUM")):
    raise RuntimeError("node is required here (LESSON_REQUIRE_NODE / LESSON_REQUIRE_CHROMIUM is set) but not installed")
pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed (Debian: apt-get install -y nodejs)")

# Ten prompts: the lesson's three, then punctuation, <UNK> words, non-ASCII and mis-encoded text,
# a literal special token, a one-word prompt, and one longer than the 64-token window.
PROMPTS = [
    "one day, a little fish named fin",
    "one summer morning, a little boy named",
    "The central bank raised interest rates because inflation",
    "Once upon a time, there was a girl who said, \"Let's go!\"",
    "Tim's dog didn't like the rain; it hid (under the bed).",
    "The quantum chromodynamics lecturer smiled",
    "Lily found a caf\u00e9 \u2014 \u201ccozy\u201d and warm\u2026 It\u00e2\u20ac\u2122s",
    "the <UNK> cat and the <EOS> dog",
    "Ben",
    " ".join(["the big red ball rolled down the hill ."] * 9),
]
TOKENS = 20


def run_node(script: str, stdin: str = "", timeout: float = 120) -> str:
    imports = "".join(f'import * as {name} from {json.dumps((WEB / f"{mod}.mjs").as_uri())};\n'
                      for name, mod in [("T", "tokenizer"), ("M", "model"), ("G", "generate")])
    proc = subprocess.run([NODE, "--input-type=module", "-e", imports + 'import fs from "node:fs";\n' + script],
                          input=stdin, capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


@pytest.fixture(scope="module")
def web_models(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("web-models")
    weights.convert(EXPORTS, out, log=lambda s: None)
    return out


@pytest.fixture(scope="module")
def tok():
    return load_tokenizer(EXPORTS / "tokenizer.json")


def test_conversion_is_lossless_cached_and_atomic(web_models, tmp_path):
    web_models = Path(shutil.copytree(web_models, tmp_path / "models"))   # this test breaks a file
    manifest = json.loads((web_models / "manifest.json").read_text())
    source = json.loads((EXPORTS / "checkpoints" / "manifest.json").read_text())
    assert list(manifest["models"]) == list(MODEL_NAMES)
    for name, entry in manifest["models"].items():
        assert entry["source"]["sha256"] == source["models"][name]["sha256"]
        blob = (web_models / entry["file"]).read_bytes()
        assert len(blob) == entry["bytes"] == 2 * entry["parameters"] and weights.sha256_bytes(blob) == entry["sha256"]
        saved = torch.load(EXPORTS / "checkpoints" / source["models"][name]["file"], weights_only=True)
        for key, t in entry["tensors"].items():
            raw = saved["state_dict"][key]
            assert raw.dtype == torch.float16 and list(raw.shape) == t["shape"]
            assert blob[t["offset"]:t["offset"] + t["bytes"]] == raw.numpy().astype("<f2").tobytes(), key
    assert weights.up_to_date(EXPORTS, web_models)
    before = {p.name: p.stat().st_mtime_ns for p in web_models.iterdir()}
    weights.convert(EXPORTS, web_models, log=lambda s: None)
    assert {p.name: p.stat().st_mtime_ns for p in web_models.iterdir()} == before   # cached: untouched
    assert not [p for p in web_models.iterdir() if ".partial" in p.name]
    (web_models / "one_head.bin").write_bytes(b"truncated")
    assert not weights.up_to_date(EXPORTS, web_models)


def test_unicode_tables_are_the_installed_tokenizers_own():
    """The committed classes are what tokenizers' Oniguruma matches, on every code point, and every
    code point passed through as-is is one tokenizers leaves alone. (`python -m
    lesson_build.web.tables --check` also redoes the engine's side, which takes longer.)"""
    import tokenizers

    committed = tables.parse((WEB / "unicode_tables.mjs").read_text(encoding="utf-8"))
    assert committed["TOKENIZERS_VERSION"] == tokenizers.__version__, "run python -m lesson_build.web.tables"
    word, space = tables.oniguruma_classes()
    assert committed["WORD_RANGES"] == [c for r in word for c in r]
    assert committed["SPACE_RANGES"] == [c for r in space for c in r]
    as_is = committed["NORMALIZE_AS_IS"]
    assert as_is and tables.unchanged_by_tokenizers(as_is) == set(as_is)


def _test_split() -> list[str]:
    with open_stories(Path(DEFAULT_DATA_FILES), "rt") as f:
        texts = [json.loads(line)["text"] for line in f]
    cfg = get_config("full")
    splits, _ = select_stories(texts, cfg.n_stories, cfg.selection_seed)
    return splits["test"]


def _fuzz(seed: int = 3, count: int = 400) -> list[str]:
    """Random strings over the characters that trip tokenizers up: every plane, combining marks,
    Unicode spaces and word characters, apostrophes, specials' pieces."""
    rng = random.Random(seed)
    pool = (list("abcxyz09'  -.,!?\"<>") + ["<UNK>", "<BOS>", "\u00a0", "\u0085", "\ufeff", "\u2028", "\u3000",
            "\u0301", "\u0308", "\u00e9", "\u0130", "\u03a3", "\u1e9e", "\ufb01", "\uff21", "\u2460", "\u00b2",
            "\u2167", "\u32ff", "\u1f16", "\U0001d400", "\U0001f600", "\u200d", "\u00e2\u20ac\u2122"])
    out = []
    for _ in range(count):
        parts = []
        for _ in range(rng.randint(1, 25)):
            if rng.random() < 0.3:
                c = rng.randint(0x20, 0x10FFFF)
                parts.append(chr(c) if not 0xD800 <= c <= 0xDFFF else "?")
            else:
                parts.append(rng.choice(pool))
        out.append("".join(parts))
    return out


def _page_tokenizer(texts, method: str):
    """The page's tokenizer (tokenizer.mjs, loaded from the exported tokenizer.json) applied to each
    text: `method` is "encode" (the ids) or "dropped" (the characters it removes)."""
    return json.loads(run_node(
        "const tok = T.WordTokenizer.fromJSON(JSON.parse(fs.readFileSync("
        f"{json.dumps(str(EXPORTS / 'tokenizer.json'))}, 'utf8')));\n"
        "const texts = JSON.parse(fs.readFileSync(0, 'utf8'));\n"
        f"process.stdout.write(JSON.stringify(texts.map((t) => tok.{method}(t))));", json.dumps(texts)))


def test_tokenizer_gives_the_ids_of_tokenizers_on_the_whole_test_split(tok):
    stories = _test_split()
    assert len(stories) == json.loads((EXPORTS / "results.json").read_text())["corpus"]["stories"]["test"]
    assert any(any(ord(c) > 127 for c in s) for s in stories), "the split should exercise non-ASCII text"
    texts = stories + _fuzz() + ["", "   ", "a <UNK> b", "a<BOS>b", "<bos> x", "  <EOS>  ", "x<PAD><PAD>y",
                                 "\u039f\u0394\u039f\u03a3 \u0130stanbul STRASSE \u1e9e", "rock'n'roll don't 'quoted'"]
    got = _page_tokenizer(texts, "encode")
    want = [encode(tok, t) for t in texts]
    wrong = [(t, g, w) for t, g, w in zip(texts, got, want) if g != w]
    assert not wrong, f"{len(wrong)} texts differ; first: {wrong[0]!r}"


@pytest.fixture(scope="module")
def torch_models():
    torch.set_num_threads(1)
    return {name: load_checkpoint(EXPORTS, name)[0] for name in MODEL_NAMES}


def test_logits_are_within_1e4_of_torch(web_models, torch_models, tok):
    stories = _test_split()[:3]
    ids = [1] + encode(tok, " ".join(stories))
    windows = [window_of(ids[:n], 64)[0].tolist() for n in (1, 2, 7, 30, 64, 65, 200)]
    script = (
        "const windows = JSON.parse(fs.readFileSync(0, 'utf8')); const out = {};\n"
        f"for (const name of {json.dumps(list(MODEL_NAMES))}) {{\n"
        f"  const {{ model }} = G.loadFromFolder(name, {json.dumps(str(web_models))});\n"
        "  out[name] = windows.map((w) => Array.from(model.logits(Int32Array.from(w))));\n}\n"
        "process.stdout.write(JSON.stringify(out));")
    got = json.loads(run_node(script, json.dumps(windows)))
    for name, model in torch_models.items():
        with torch.inference_mode():
            want = model(torch.tensor(windows))                       # (7, V)
        js = torch.tensor(got[name], dtype=torch.float64)
        diff = (js - want.double()).abs().max().item()
        assert diff <= 1e-4, f"{name}: logits differ by {diff}"
        assert torch.equal(js.argmax(-1), want.argmax(-1)), name
        # The same weights in float64 on both sides: what is left is summation order (~1e-14), so
        # the 1e-4 above is torch's own float32 rounding, not a slip in the JavaScript.
        exact = copy.deepcopy(model).double()
        with torch.inference_mode():
            in64 = exact(torch.tensor(windows))
        assert (js - in64).abs().max().item() <= 1e-9, name


def test_greedy_continuations_equal_pythons_for_ten_prompts_per_model(web_models, torch_models, tok):
    script = (
        "const prompts = JSON.parse(fs.readFileSync(0, 'utf8')); const out = {};\n"
        f"for (const name of {json.dumps(list(MODEL_NAMES))}) {{\n"
        f"  const {{ model, tok }} = G.loadFromFolder(name, {json.dumps(str(web_models))});\n"
        f"  out[name] = prompts.map((p) => G.generate(model, tok, p, {{ tokens: {TOKENS} }}));\n}}\n"
        "process.stdout.write(JSON.stringify(out));")
    got = json.loads(run_node(script, json.dumps(PROMPTS)))
    assert len(_window_ids(tok, PROMPTS[-1])) > 64, "the last prompt should overflow the window"
    for name, model in torch_models.items():
        for prompt, js in zip(PROMPTS, got[name]):
            py = generate(model, tok, prompt, TOKENS)
            assert (js["continuation"], js["token_ids"]) == (py["continuation"], py["token_ids"]), (name, prompt)
            assert js["latency_ms_median"] > 0
    lesson = json.loads((EXPORTS / "continuations.json").read_text())
    for name in MODEL_NAMES:                 # the continuations chapter 3 shows, word for word
        for key, prompt in lesson["prompts"].items():
            js = got[name][PROMPTS.index(prompt)]
            assert js["continuation"] == lesson["models"][name][key]["continuation"], (name, key)
    assert "<UNK>" in got["four_heads"][2]["continuation"]


def _window_ids(tok, prompt):
    return [1] + encode(tok, prompt)


def test_node_cli_prints_what_the_python_cli_prints(web_models):
    prompt = "Once upon a time"
    js = subprocess.run([NODE, str(WEB / "generate.mjs"), "--model", "one_head", "--prompt", prompt, "--tokens",
                         "12", "--weights", str(web_models)], capture_output=True, text=True, timeout=60)
    py = subprocess.run([sys.executable, "-m", "trainer", "generate", "--model", "one_head", "--prompt", prompt,
                         "--tokens", "12"], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert js.returncode == 0 and py.returncode == 0, js.stderr + py.stderr
    assert js.stdout.splitlines()[0] == py.stdout.splitlines()[0]
    assert js.stdout.splitlines()[1].startswith("(12 tokens, median ") and js.stdout.splitlines()[1].endswith(" ms per call, one_head)")


@pytest.mark.parametrize("args, says", [
    (["--model", "five_heads", "--prompt", "hi"], ["five_heads", "mlp, one_head, four_heads"]),
    (["--prompt", "hi", "--tokens", "0"], ['"0"', ">= 1"]),
    (["--prompt", "hi", "--tokens", "ten"], ['"ten"', ">= 1"]),
    (["--prompt", "hi", "--temperature", "-1"], ['"-1"', "temperature"]),
    (["--prompt", "hi", "--temperature", "nan"], ['"nan"', "temperature"]),
    (["--model", "mlp"], ["--prompt is required"]),
    (["--prompt", "hi", "--top-k", "3"], ['"--top-k"', "--tokens"]),
    (["--prompt"], ["--prompt needs a value"]),
])
def test_node_cli_bad_arguments_are_one_line_and_exit_2(args, says, web_models):
    proc = subprocess.run([NODE, str(WEB / "generate.mjs"), *args, "--weights", str(web_models)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for s in says:
        assert s in proc.stderr


def test_sampling_is_seeded_and_stays_in_the_vocabulary(web_models):
    script = (
        f"const {{ model, tok }} = G.loadFromFolder('four_heads', {json.dumps(str(web_models))});\n"
        "const run = (seed) => G.generate(model, tok, 'Once upon a time', { tokens: 15, temperature: 0.8, seed });\n"
        "process.stdout.write(JSON.stringify([run(3), run(3), run(4)]));")
    a, b, c = json.loads(run_node(script))
    assert a == {**b, "latency_ms_median": a["latency_ms_median"], "latency_ms_mean": a["latency_ms_mean"]}
    assert a["token_ids"] != c["token_ids"]
    assert all(0 <= i < 4000 for i in a["token_ids"] + c["token_ids"])


# ---------------------------------------------------------------- where the models look

def _fresh_prompts(tok, seed: int, count: int) -> list[str]:
    """Prompts made here, from `seed`: stretches of test-split stories (some longer than the
    64-token window, so <BOS> falls out of it), strings of vocabulary words mixed with made-up
    ones (<UNK>), and fuzz."""
    rng = random.Random(seed)
    words = " ".join(_test_split()[:200]).split()
    vocab = [t for t in tok.get_vocab() if t.isalpha()]
    out = []
    for k in range(count):
        kind = k % 3
        if kind == 0:
            n = rng.choice([1, 2, 5, 20, 63, 64, 65, 120])
            start = rng.randrange(len(words) - n)
            out.append(" ".join(words[start:start + n]))
        elif kind == 1:
            out.append(" ".join(rng.choice(vocab) if rng.random() < 0.7 else
                                "".join(rng.choice("qxzjvk") for _ in range(rng.randint(3, 9)))
                                for _ in range(rng.randint(1, 30))))
        else:
            out.append(_fuzz(seed=rng.randrange(1 << 30), count=1)[0])
    return out


def _torch_attention(model, tok, prompt):
    window = window_of([1] + encode(tok, prompt), 64)
    pad = int((window[0] == 0).sum())
    read_as = [tok.id_to_token(i) for i in window[0, pad:].tolist()]
    if not hasattr(model, "forward_with_weights"):
        return read_as, [], []
    with torch.inference_mode():
        _, w32 = model.forward_with_weights(window)
        _, w64 = copy.deepcopy(model).double().forward_with_weights(window)
    return read_as, w32[0, :, pad:].tolist(), w64[0, :, pad:].tolist()


def _same_attention(name, prompt, js, want, seed):
    read_as, w32, w64 = want
    where = f"{name}, prompt {prompt!r} (seed {seed})"
    assert set(js) == {"read_as", "heads"}, where
    assert js["read_as"] == read_as, where
    assert len(js["heads"]) == len(w32), where
    for h, (got, a, b) in enumerate(zip(js["heads"], w32, w64)):
        assert len(got) == len(read_as) == len(a), where
        assert max(abs(x - y) for x, y in zip(got, a)) <= 1e-5, f"{where}, head {h + 1}: vs torch float32"
        # Same weights in float64 on both sides: only summation order is left.
        assert max(abs(x - y) for x, y in zip(got, b)) <= 1e-9, f"{where}, head {h + 1}: vs torch float64"
        assert abs(sum(got) - 1) <= 1e-9, where


def test_attention_cli_gives_the_torch_models_final_query_weights_on_new_prompts(web_models, torch_models, tok):
    """`generate.mjs --attention` (the page's model.mjs) equals forward_with_weights, on prompts
    made from a fresh seed each run (printed in any failure; LESSON_ATTENTION_SEED repeats one)."""
    seed = int(os.environ.get("LESSON_ATTENTION_SEED") or random.SystemRandom().randrange(1 << 31))
    prompts = _fresh_prompts(tok, seed, 30)
    assert any(len(_window_ids(tok, p)) > 64 for p in prompts), "some prompt should overflow the window"
    assert any(3 in encode(tok, p) for p in prompts), "some prompt should have an <UNK>"
    # The command line itself, one process per call, on a few of them ...
    for name in MODEL_NAMES:
        for prompt in prompts[:3]:
            proc = subprocess.run([NODE, str(WEB / "generate.mjs"), "--model", name, "--prompt", prompt, "--attention",
                                   "--weights", str(web_models)], capture_output=True, text=True, timeout=60)
            assert proc.returncode == 0 and proc.stderr == "", proc.stderr
            assert len(proc.stdout.strip().splitlines()) == 1          # one JSON object
            _same_attention(name, prompt, json.loads(proc.stdout), _torch_attention(torch_models[name], tok, prompt), seed)
    # ... and the function it runs (generate.mjs attention), in one process, on all of them.
    script = (
        "const prompts = JSON.parse(fs.readFileSync(0, 'utf8')); const out = {};\n"
        f"for (const name of {json.dumps(list(MODEL_NAMES))}) {{\n"
        f"  const {{ model, tok }} = G.loadFromFolder(name, {json.dumps(str(web_models))});\n"
        "  out[name] = prompts.map((p) => G.attention(model, tok, p));\n}\n"
        "process.stdout.write(JSON.stringify(out));")
    got = json.loads(run_node(script, json.dumps(prompts)))
    for name in MODEL_NAMES:
        for prompt, js in zip(prompts, got[name]):
            _same_attention(name, prompt, js, _torch_attention(torch_models[name], tok, prompt), seed)
    assert len(got["four_heads"][0]["heads"]) == 4 and len(got["one_head"][0]["heads"]) == 1 and got["mlp"][0]["heads"] == []


def test_attention_cli_reads_bos_while_it_fits(web_models):
    proc = subprocess.run([NODE, str(WEB / "generate.mjs"), "--model", "one_head", "--prompt", "Once upon a time",
                           "--attention", "--weights", str(web_models)], capture_output=True, text=True, timeout=60)
    out = json.loads(proc.stdout)
    assert out["read_as"] == ["<BOS>", "once", "upon", "a", "time"] and len(out["heads"][0]) == 5, out


# ---------------------------------------------------------------- what the demo says about a prompt

def _dropped_by_tokenizers(tok, text: str) -> list[str]:
    """The characters tokenizers' own normalizer keeps and its own pre-tokenizer matches with no
    piece (so no token carries them), once each, in order: segments between special tokens
    (which it cuts out first, unnormalized), normalized, then every character outside the pieces'
    offsets that is not whitespace."""
    import re
    specials = sorted((t.content for t in tok.get_added_tokens_decoder().values()), key=len, reverse=True)
    out = []
    for k, segment in enumerate(re.split("(" + "|".join(map(re.escape, specials)) + ")", text)):
        if k % 2:
            continue
        normalized = tok.normalizer.normalize_str(segment)
        covered = set()
        for _, (a, b) in tok.pre_tokenizer.pre_tokenize_str(normalized):
            covered.update(range(a, b))
        for i, ch in enumerate(normalized):
            if i not in covered and not ch.isspace() and ch not in out:
                out.append(ch)
    return out


def test_the_characters_the_tokenizer_drops_are_the_ones_tokenizers_drops(tok):
    """tokenizer.mjs dropped() (the demo's "Not in the vocabulary's alphabet, removed: …") names
    exactly what tokenizers loses without a trace, on the test split's non-ASCII stories and fuzz."""
    stories = [s for s in _test_split() if any(ord(c) > 127 for c in s)][:300]
    texts = stories + _fuzz(seed=11) + ["the café in Zürich", "naïve résumé_", "<UNK>é<BOS>ß", "plain words only", ""]
    got = _page_tokenizer(texts, "dropped")
    want = [_dropped_by_tokenizers(tok, t) for t in texts]
    wrong = [(t, g, w) for t, g, w in zip(texts, got, want) if g != w]
    assert not wrong, f"{len(wrong)} texts differ; first: {wrong[0]!r}"
    assert want[-5:] == [["é", "ü"], ["ï", "é", "_"], ["é", "ß"], [], []]
    assert sum(bool(w) for w in want) > 50, "the texts should drop something often"


def test_the_seam_between_a_prompt_and_its_continuation_is_detokenizes(tok):
    """The demo shows the prompt, then the continuation: what goes between (tokenizer.mjs seam) is
    what the trainer's detokenize puts there when it joins the two word lists ("the dog" + "."
    reads "the dog.", never "the dog ."), on random word lists cut at random places."""
    from trainer.tokenizer import detokenize
    rng = random.Random(5)
    pool = ["the", "dog", "said", "<UNK>", ".", ",", "!", "?", ";", ":", "'", '"', "(", ")", "[", "]", "{", "}", "-"]
    cases = []
    for _ in range(2000):
        words = [rng.choice(pool) for _ in range(rng.randint(0, 8))]
        cut = rng.randint(0, len(words))
        cases.append([words[:cut], words[cut:]])
    got = json.loads(run_node(
        "const cases = JSON.parse(fs.readFileSync(0, 'utf8'));\n"
        "process.stdout.write(JSON.stringify(cases.map(([a, b]) => { const p = T.detokenize(a), c = T.detokenize(b);"
        " return p + T.seam(p, c) + c; })));", json.dumps(cases)))
    wrong = [(a, b, g, detokenize(a + b)) for (a, b), g in zip(cases, got) if g != detokenize(a + b)]
    assert not wrong, f"{len(wrong)} cuts differ; first: {wrong[0]!r}"
    assert any(b and b[0] == "." and a for a, b in cases)


def test_the_products_run_in_webassembly_and_the_javascript_fallback_gives_the_same_bits(web_models, torch_models, tok):
    """The lesson notes say the demo runs its checkpoints with WebAssembly: model.mjs's matrix-vector
    products run in kernels.mjs's module (node and the page alike), and the plain-JavaScript loops
    kept for engines without WebAssembly give the same logits to the bit; both are torch's float64
    forward pass to summation order."""
    ids = [1] + encode(tok, " ".join(_test_split()[3:6]))
    windows = [window_of(ids[:n], 64)[0].tolist() for n in (1, 5, 64, 150)]
    script = (
        "const windows = JSON.parse(fs.readFileSync(0, 'utf8')); const out = {};\n"
        f"const dir = {json.dumps(str(web_models))};\n"
        "const manifest = JSON.parse(fs.readFileSync(dir + '/manifest.json', 'utf8'));\n"
        f"for (const name of {json.dumps(list(MODEL_NAMES))}) {{\n"
        "  const { model } = G.loadFromFolder(name, dir);\n"
        "  const bytes = fs.readFileSync(dir + '/' + manifest.models[name].file);\n"
        "  const buffer = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);\n"
        "  const plain = M.buildModel(manifest.models[name], buffer, { engine: 'JavaScript' });\n"
        "  const bits = (m) => windows.map((w) => Array.from(new Uint32Array(Float64Array.from(m.logits(Int32Array.from(w))).buffer)));\n"
        "  out[name] = { engine: model.engine.name, plainEngine: plain.engine.name, wasm: bits(model), js: bits(plain),\n"
        "    logits: windows.map((w) => Array.from(model.logits(Int32Array.from(w)))) };\n}\n"
        "process.stdout.write(JSON.stringify(out));")
    got = json.loads(run_node(script, json.dumps(windows)))
    for name, model in torch_models.items():
        g = got[name]
        assert g["engine"] == "WebAssembly" and g["plainEngine"] == "JavaScript", (name, g["engine"])
        assert g["wasm"] == g["js"], f"{name}: the two engines' logits differ in their bits"
        exact = copy.deepcopy(model).double()
        with torch.inference_mode():
            in64 = exact(torch.tensor(windows))
        assert (torch.tensor(g["logits"], dtype=torch.float64) - in64).abs().max().item() <= 1e-9, name


def test_the_webassembly_module_is_assembled_here_and_imports_only_its_memory():
    """kernels.mjs's bytes are a valid module with two exports and one import, env.memory (no
    host functions: it can do nothing but arithmetic on its own memory)."""
    script = ("import * as K from " + json.dumps((WEB / "kernels.mjs").as_uri()) + ";\n"
              "const m = new WebAssembly.Module(K.MODULE_BYTES);\n"
              "process.stdout.write(JSON.stringify({ valid: WebAssembly.validate(K.MODULE_BYTES), size: K.MODULE_BYTES.length,\n"
              "  imports: WebAssembly.Module.imports(m), exports: WebAssembly.Module.exports(m) }));")
    got = json.loads(run_node(script))
    assert got["valid"] and got["size"] < 1000, got
    assert got["imports"] == [{"module": "env", "name": "memory", "kind": "memory"}], got
    assert sorted(e["name"] for e in got["exports"]) == ["dotAdd", "rowsAxpy"], got
