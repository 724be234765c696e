"""`python -m lesson_build.benchmark --web [--page renders/index.html]`: the web lesson's figures.

  * page weight: the bytes a first visit loads (headless Chromium's resource timing, cold cache),
    what the demo adds when it loads a model, and the whole folder on disk;
  * time to first interaction, served from 127.0.0.1: navigation start to the explorer's first
    result with its controls live (median of fresh loads), beside DOMContentLoaded and load;
  * generation latency per token for each model, greedy, the lesson's three prompts: in the page
    (the demo's own code, timed around each model call and around the whole loop), in Node (the
    same modules), and the Python CLI's path (trainer.generate, torch on one thread, in-process);
    the ratio page / Python.

Figures, never assertions. The machine is shared: the load average is printed with them.
"""
from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

# The page's own modules, timed in the page: total time / calls (performance.now() is coarsened
# to 0.1 ms per reading in a page that is not cross-origin isolated, so single calls are noisy).
_PAGE_LOOP = """
(async () => {
  const M = await import('./web/model.mjs');
  const T = await import('./web/tokenizer.mjs');
  const base = new URL('./web/models/', location.href);
  const manifest = await (await fetch(new URL('manifest.json', base))).json();
  const tok = T.WordTokenizer.fromJSON(await (await fetch(new URL(manifest.tokenizer.file, base))).json());
  const prompts = manifest.presets.prompts.map((p) => p.prompt);
  const out = {};
  for (const [name, entry] of Object.entries(manifest.models)) {
    const model = M.buildModel(entry, await (await fetch(new URL(entry.file, base))).arrayBuffer());
    for (const p of prompts) [...M.generateSteps(model, tok, p, { tokens: 5 })];        // warm-up
    let calls = 0; const perCall = [];
    const t0 = performance.now();
    for (let r = 0; r < %(repeats)d; r++) for (const p of prompts) {
      for (const step of M.generateSteps(model, tok, p, { tokens: %(tokens)d })) { calls++; perCall.push(step.ms); }
    }
    const total = performance.now() - t0;
    out[name] = { mean: total / calls, median_of_calls: M.median(perCall), calls };
  }
  return out;
})()
"""

_NODE_LOOP = """
import * as G from %(generate)s;
import * as M from %(model)s;
const out = {};
for (const name of ["mlp", "one_head", "four_heads"]) {
  const { model, tok, manifest } = G.loadFromFolder(name, %(weights)s);
  const prompts = manifest.presets.prompts.map((p) => p.prompt);
  for (const p of prompts) [...M.generateSteps(model, tok, p, { tokens: 5 })];
  let calls = 0; const perCall = [];
  const t0 = performance.now();
  for (let r = 0; r < %(repeats)d; r++) for (const p of prompts) {
    for (const step of M.generateSteps(model, tok, p, { tokens: %(tokens)d })) { calls++; perCall.push(step.ms); }
  }
  out[name] = { mean: (performance.now() - t0) / calls, median_of_calls: M.median(perCall), calls };
}
process.stdout.write(JSON.stringify(out));
"""

_TIMING = """
(() => {
  const ex = document.getElementById('explorer');
  if (!ex || ex.dataset.ready !== 'true' || document.readyState !== 'complete') return null;
  const nav = performance.getEntriesByType('navigation')[0];
  const res = performance.getEntriesByType('resource');
  const bytes = (e) => e.transferSize || e.encodedBodySize || 0;
  return { ready: parseFloat(ex.dataset.readyAt), dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd,
           html: bytes(nav), resources: res.map((e) => [new URL(e.name).pathname.split('/').slice(-2).join('/'), bytes(e), e.initiatorType]) };
})()
"""


def _python_latency(root: Path, prompts: list[str], tokens: int, repeats: int) -> dict:
    import torch

    from trainer.checkpoints import load_checkpoint
    from trainer.generate import generate
    from trainer.tokenizer import load_tokenizer

    torch.set_num_threads(1)            # as `python -m trainer generate` does
    exports = root / "lesson_data" / "exports"
    tok = load_tokenizer(exports / "tokenizer.json")
    out = {}
    for name in ("mlp", "one_head", "four_heads"):
        model, _ = load_checkpoint(exports, name)
        for p in prompts:
            generate(model, tok, p, 5)
        means, medians = [], []
        for _ in range(repeats):
            for p in prompts:
                r = generate(model, tok, p, tokens)
                means.append(r["latency_ms_mean"])
                medians.append(r["latency_ms_median"])
        out[name] = {"mean": statistics.fmean(means), "median_of_calls": statistics.median(medians)}
    return out


def _page_folder(root: Path, tmp: Path) -> Path:
    """A page without videos (the catalog listed as not built), its scripts and models."""
    from lesson_build import page
    from lesson_build.catalog import CHAPTERS
    from lesson_build.pipeline import export_worksheet
    from lesson_build.web import site

    assets = site.build(root, tmp, log=lambda s: None)
    _, worksheet = export_worksheet(root, tmp, "lesson_data")
    rows = [page.ChapterRow(ch, [page.SceneRow(s.number, s.title, s.name, "not rendered") for s in ch.scenes],
                            note="not rendered (benchmark page)") for ch in CHAPTERS]
    index = tmp / "index.html"
    index.write_text(page.render_index(
        index, series_title="Multi-head attention", quality_label="(no videos)", chapters=rows,
        series_video=None, series_vtt=None, series_poster=None, series_note="not rendered",
        worksheet=worksheet, generated=time.strftime("%Y-%m-%d %H:%M"), web=assets), encoding="utf-8")
    return index


def run_web(root: Path, page: Path | None = None, *, tokens: int = 20, repeats: int = 5, loads: int = 3,
            out=print) -> int:
    from lesson_build.browser import Chromium, find_chromium, serve

    root = Path(root).resolve()
    if find_chromium() is None:
        out("web benchmark: chromium not found (Debian: apt-get install -y chromium)")
        return 1
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="lesson_build-webbench-") as tmp:
        tmp = Path(tmp)
        default = root / "renders" / "index.html"
        if page is None and default.is_file() and (default.parent / "web" / "models" / "manifest.json").is_file():
            page = default
        if page is None:
            page = _page_folder(root, tmp / "site")
            what = "a page without videos, written to a temporary folder"
        else:
            what = str(page)
        page = page.resolve()
        folder = page.parent
        manifest = json.loads((folder / "web" / "models" / "manifest.json").read_text())
        prompts = [p["prompt"] for p in manifest["presets"]["prompts"]]
        version = subprocess.run([find_chromium(), "--version"], capture_output=True, text=True).stdout.strip()
        out(f"web page: {what}; {version}; served from 127.0.0.1; load average {load:.2f}")

        timings = []
        with serve(folder) as base:
            for _ in range(loads):                       # a fresh browser each time: a cold cache
                with Chromium() as browser:
                    tab = browser.open(f"{base}/{page.name}")
                    timings.append(tab.wait_for(_TIMING, timeout=60))
            with Chromium() as browser:
                tab = browser.open(f"{base}/{page.name}")
                tab.wait_for(_TIMING, timeout=60)
                in_page = tab.evaluate(_PAGE_LOOP % {"tokens": tokens, "repeats": repeats})

        first = timings[0]
        total = first["html"] + sum(b for _, b, _ in first["resources"])
        videos = sum(b for _, b, kind in first["resources"] if kind in ("video", "img"))
        model_bytes = {name: m["bytes"] for name, m in manifest["models"].items()}
        demo_extra = (folder / "web" / "models" / "manifest.json").stat().st_size + \
            (folder / "web" / "models" / manifest["tokenizer"]["file"]).stat().st_size
        on_disk = sum(p.stat().st_size for p in (folder / "web").rglob("*") if p.is_file()) + page.stat().st_size
        out(f"  page weight, first visit: {total / 1e6:.3f} MB in {len(first['resources']) + 1} requests"
            + (f" (of which {videos / 1e6:.3f} MB video metadata and posters)" if videos else ""))
        out(f"  the demo adds {demo_extra / 1e6:.3f} MB (manifest, tokenizer) and one model when first used: "
            + ", ".join(f"{n} {b / 1e6:.2f} MB" for n, b in model_bytes.items()))
        out(f"  page folder without videos on disk: {on_disk / 1e6:.2f} MB (all three models included)")
        ready = [t["ready"] for t in timings]
        out(f"  time to first interaction (explorer computed, controls live): median {statistics.median(ready):.0f} ms "
            f"over {loads} cold loads ({', '.join(f'{r:.0f}' for r in ready)}); DOMContentLoaded "
            f"{statistics.median(t['dcl'] for t in timings):.0f} ms, load {statistics.median(t['load'] for t in timings):.0f} ms")

        node = shutil.which("node")
        in_node = None
        if node:
            code = _NODE_LOOP % {"generate": json.dumps((root / "lesson_build" / "web" / "generate.mjs").as_uri()),
                                 "model": json.dumps((root / "lesson_build" / "web" / "model.mjs").as_uri()),
                                 "weights": json.dumps(str(folder / "web" / "models")),
                                 "tokens": tokens, "repeats": repeats}
            proc = subprocess.run([node, "--input-type=module", "-e", code], capture_output=True, text=True)
            in_node = json.loads(proc.stdout) if proc.returncode == 0 else None
        python = _python_latency(root, prompts, tokens, repeats)

    out(f"\ngeneration, greedy, {len(prompts)} lesson prompts x {tokens} tokens x {repeats} repeats; ms per token "
        "(mean over all calls; in brackets the median single call)")
    out(f"  {'model':<11} {'in page':>16} {'node':>16} {'python CLI path':>18} {'page / python':>22}")
    for name in ("mlp", "one_head", "four_heads"):
        p, py = in_page[name], python[name]
        n = in_node[name] if in_node else None
        cell = lambda d: f"{d['mean']:.3f} [{d['median_of_calls']:.2f}]" if d else "-"   # noqa: E731
        ratios = f"{p['mean'] / py['mean']:.2f}x [{p['median_of_calls'] / py['median_of_calls']:.2f}x]"
        out(f"  {name:<11} {cell(p):>16} {cell(n):>16} {cell(py):>18} {ratios:>22}")
    worst = max(in_page[n]["mean"] for n in in_page)
    out(f"  goal: <= 2 ms per token in the page; slowest model {worst:.3f} ms (mean): {'met' if worst <= 2 else 'NOT met'}"
        " (on a busy machine the mean carries every preemption; the median single call does not)")
    out("  (python: trainer.generate on torch's CPU build, one thread, as `python -m trainer generate`; "
        f"load average now {os.getloadavg()[0]:.2f})")
    return 0
