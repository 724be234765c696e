"""The committed checkpoints, in a form a browser reads with one fetch per model.

    python -m lesson_build.web.weights [--exports lesson_data/exports] [--out renders/web/models]

For every model of lesson_data/exports/checkpoints/manifest.json (loaded and checked by
trainer.checkpoints.load_checkpoint: sha256 and config), writes

    <out>/<model>.bin      the state_dict's tensors back to back, float16 little-endian, as saved
                           (the checkpoints are fp16, so this is the same numbers, not a rounding)
    <out>/tokenizer.json   the trainer's tokenizer, the same JSON without its indentation (55 kB,
                           not 87: the page fetches it on a first visit)
    <out>/manifest.json    tensor names, shapes and byte offsets, the model configs, sha256 of every
                           file and of the checkpoint each .bin came from, the lesson's prompts

Nothing is committed: the page folder is built. A second run finds every sha256 in the manifest
matching and returns without importing torch. Every file goes to a temporary name first and is
moved into place; the manifest last, so a half-finished run is never taken for a finished one.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path

FORMAT = "lesson_build.web.models/1"
# Bumped when the binary layout or the manifest changes.
CONVERTER_VERSION = 2
PROJECT_ROOT = Path(__file__).resolve().parents[2]
MODEL_ORDER = ("mlp", "one_head", "four_heads")
TITLES = {"mlp": "FixedWindowMLP", "one_head": "One head", "four_heads": "Four heads"}
PRESET_TITLES = {"training": "Training", "held_out": "Held-out", "outside_domain": "Outside the domain"}


class WeightsError(RuntimeError):
    """Missing or inconsistent checkpoints; one line that names the file."""


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_of(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _write_atomic(dest: Path, data: bytes) -> None:
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".partial")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _read_json(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _sources(exports: Path) -> tuple[dict, dict]:
    """The checkpoint manifest and the lesson's continuation prompts."""
    manifest = _read_json(exports / "checkpoints" / "manifest.json")
    if not manifest or "models" not in manifest:
        raise WeightsError(f"no checkpoint manifest at {exports / 'checkpoints' / 'manifest.json'} "
                           "(run `python -m trainer export`)")
    if not (exports / "tokenizer.json").is_file():
        raise WeightsError(f"no tokenizer at {exports / 'tokenizer.json'}")
    continuations = _read_json(exports / "continuations.json") or {}
    return manifest, continuations


def _presets(continuations: dict) -> dict:
    prompts = continuations.get("prompts", {})
    return {"tokens": continuations.get("tokens", 20),
            "prompts": [{"id": key, "title": PRESET_TITLES.get(key, key), "prompt": prompts[key]}
                        for key in PRESET_TITLES if key in prompts]}


def up_to_date(exports: Path, out: Path) -> bool:
    """True when <out>/manifest.json was written from these very checkpoints and every file it
    names is there with its recorded sha256 (no torch import)."""
    try:
        manifest, continuations = _sources(exports)
    except WeightsError:
        return False
    current = _read_json(out / "manifest.json")
    if not current or current.get("format") != FORMAT or current.get("converter") != CONVERTER_VERSION:
        return False
    if current.get("presets") != _presets(continuations):
        return False
    tok = current.get("tokenizer", {})
    if tok.get("source_sha256") != sha256_of(exports / "tokenizer.json"):    # the copy is checked below
        return False
    wanted = [n for n in MODEL_ORDER if n in manifest["models"]]
    if list(current.get("models", {})) != wanted:
        return False
    files = [(out / tok.get("file", "?"), tok.get("sha256"))]
    for name in wanted:
        entry = current["models"][name]
        if entry.get("source", {}).get("sha256") != manifest["models"][name]["sha256"]:
            return False
        files.append((out / entry["file"], entry["sha256"]))
    return all(path.is_file() and sha256_of(path) == digest for path, digest in files)


def compact_json(data: bytes) -> bytes:
    """The same JSON value without whitespace between tokens (keys in their order, text as UTF-8)."""
    return json.dumps(json.loads(data), separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def convert(exports: Path | None = None, out: Path | None = None, log=print) -> dict:
    """Write (or keep) <out>/ for the checkpoints under `exports`; returns the manifest."""
    exports = Path(exports or PROJECT_ROOT / "lesson_data" / "exports")
    out = Path(out or PROJECT_ROOT / "renders" / "web" / "models")
    if up_to_date(exports, out):
        return json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    manifest, continuations = _sources(exports)

    import torch

    from trainer.checkpoints import CheckpointError, load_checkpoint

    models = {}
    for name in [n for n in MODEL_ORDER if n in manifest["models"]]:
        try:
            model, entry = load_checkpoint(exports, name)   # checks sha256 and config
        except (CheckpointError, OSError) as exc:
            raise WeightsError(str(exc)) from None
        tensors, chunks, offset = {}, [], 0
        for key, value in model.state_dict().items():
            half = value.detach().to(torch.float16).contiguous()
            if not torch.equal(half.to(torch.float32), value.detach().float()):
                raise WeightsError(f"{entry['file']}: {key} does not round-trip through float16")
            data = half.numpy().astype("<f2").tobytes()
            tensors[key] = {"shape": list(half.shape), "dtype": "float16", "offset": offset,
                            "bytes": len(data)}
            chunks.append(data)
            offset += len(data)
        blob = b"".join(chunks)
        attention = getattr(model, "attention", None)
        cfg = entry["config"]
        config = {"context": cfg["context"], "d_model": cfg["d_model"], "d_hidden": cfg["d_hidden"],
                  "vocab": int(model.embed.num_embeddings),
                  "n_heads": int(attention.n_heads) if attention is not None else None}
        models[name] = {
            "title": TITLES.get(name, name), "class": type(model).__name__, "file": f"{name}.bin",
            "bytes": len(blob), "sha256": sha256_bytes(blob),
            "source": {"file": entry["file"], "sha256": entry["sha256"], "dtype": entry.get("dtype")},
            "seed": entry.get("seed"), "parameters": entry.get("parameters"),
            "config": config, "tensors": tensors,
        }
        _write_atomic(out / f"{name}.bin", blob)
        log(f"  web model {name}: {len(blob) / 1e6:.1f} MB ({len(tensors)} tensors, float16)")
    source = (exports / "tokenizer.json").read_bytes()
    tok_bytes = compact_json(source)
    _write_atomic(out / "tokenizer.json", tok_bytes)
    result = {
        "format": FORMAT, "converter": CONVERTER_VERSION,
        "tokenizer": {"file": "tokenizer.json", "sha256": sha256_bytes(tok_bytes),
                      "source_sha256": sha256_bytes(source)},
        "presets": _presets(continuations),
        "models": models,
    }
    _write_atomic(out / "manifest.json", (json.dumps(result, indent=2) + "\n").encode("utf-8"))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lesson_build.web.weights",
                                     description="Convert the committed checkpoints for the web page.")
    parser.add_argument("--exports", type=Path, default=PROJECT_ROOT / "lesson_data" / "exports")
    parser.add_argument("--out", type=Path, default=PROJECT_ROOT / "renders" / "web" / "models")
    args = parser.parse_args(argv)
    try:
        fresh = not up_to_date(args.exports, args.out)
        convert(args.exports, args.out, log=lambda s: print(s, file=sys.stderr))
    except WeightsError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{'wrote' if fresh else 'up to date:'} {args.out / 'manifest.json'}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
