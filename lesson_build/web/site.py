"""Put the page's scripts, styles and model weights beside it: <out>/web/.

    build(root, out) -> page.WebAssets

Copies the browser files of lesson_build/web/ (only those whose bytes changed, each through a
temporary name) and converts the committed checkpoints into <out>/web/models/ (lesson_build.web.
weights, skipped when the checksums say it is current). A project without checkpoints gets a page
whose demo says why it is missing; a checkpoint that fails its checksum raises WeightsError.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Callable

from lesson_build.page import WebAssets
from lesson_build.web import weights

HERE = Path(__file__).resolve().parent
# What the page loads (generate.mjs is the Node command line; *.py are build steps).
ASSETS = ("lesson.css", "player.js", "explorer.mjs", "demo.mjs", "attention_view.mjs", "worksheet.mjs",
          "worksheet_tables.mjs", "tokenizer.mjs", "unicode_tables.mjs", "model.mjs", "kernels.mjs")


def copy_assets(dest: Path) -> list[Path]:
    dest.mkdir(parents=True, exist_ok=True)
    out = []
    for name in ASSETS:
        data = (HERE / name).read_bytes()
        target = dest / name
        if not target.is_file() or target.read_bytes() != data:
            weights._write_atomic(target, data)
        out.append(target)
    return out


def build(root: Path, out: Path, log: Callable[[str], None] = print) -> WebAssets:
    folder = Path(out) / "web"
    files = copy_assets(folder)
    exports = Path(root) / "lesson_data" / "exports"
    if not (exports / "checkpoints" / "manifest.json").is_file():
        return WebAssets(folder, None, f"no checkpoints in {exports / 'checkpoints'} (run `python -m trainer export`)",
                         files)
    models = folder / "models"
    if not weights.up_to_date(exports, models):
        log("  converting the checkpoints for the web page")
    manifest = weights.convert(exports, models, log=log)
    files += [models / "manifest.json", models / manifest["tokenizer"]["file"]]
    files += [models / m["file"] for m in manifest["models"].values()]
    return WebAssets(folder, json.loads((models / "manifest.json").read_text(encoding="utf-8")), "", files)
