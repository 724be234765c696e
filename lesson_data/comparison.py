"""The trained comparison, as exported by `python -m trainer export` into lesson_data/exports/.

Plain JSON readers for the chapter-3 scenes (no torch). A missing export raises
MissingExportError naming the file and the command that makes it; scenes never invent results.
"""
from __future__ import annotations

import json
from pathlib import Path

EXPORTS = Path(__file__).resolve().parent / "exports"
MODEL_ORDER = ("mlp", "one_head", "four_heads")


class MissingExportError(FileNotFoundError):
    pass


def _read(name: str, exports: Path | None = None) -> dict:
    path = (exports or EXPORTS) / name
    if not path.exists():
        raise MissingExportError(
            f"missing trainer export {path}: run `python -m trainer compare` then `python -m trainer export`")
    return json.loads(path.read_text())


def load_results(exports: Path | None = None) -> dict:
    """results.json: `runs` (nine dicts: model, seed, parameters, trace, val/test loss and perplexity,
    train_seconds, device, ...), `summary` (per model: mean and sample std across seeds), `corpus`."""
    return _read("results.json", exports)


def load_attention(exports: Path | None = None) -> dict:
    """attention.json: `tokens` (64 strings) and `models[name]["heads"]` ([h][64][64] weights)."""
    return _read("attention.json", exports)


def load_continuations(exports: Path | None = None) -> dict:
    """continuations.json: `prompts` by kind and `models[name][kind]` with `continuation` and
    `latency_ms_median` (measured on `device`)."""
    return _read("continuations.json", exports)
