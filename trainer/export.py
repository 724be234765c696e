"""Write what the lesson reads into lesson_data/exports/ (see docs/COMPARISON.md, "Exports"):

  results.json          the nine runs, per-model mean and sample standard deviation, the corpus record
  tokenizer.json        the fitted tokenizer
  checkpoints/*.pt      seed-11 weights in fp16, with checkpoints/manifest.json (sha256 + config)
  continuations.json    greedy continuations from each seed-11 model with measured per-call latency
  protocol.json, attention.json and the prompts as read in continuations.json: trainer.lesson_views
                        (the honest final-query attention map; also `export --from-checkpoints`)
"""
from __future__ import annotations

import json
import math
import os
import shutil
import statistics
from pathlib import Path

import torch

from trainer.checkpoints import load_checkpoint
from trainer.config import MODEL_NAMES, MODEL_TITLES, SEEDS, Config
from trainer.data import sha256_file
from trainer.generate import generate
from trainer.lesson_views import export_lesson_views
from trainer.train import atomic_save, atomic_write_json, device_name

OUTSIDE_DOMAIN_PROMPT = "The central bank raised interest rates because inflation"


def _spread(values: list[float]) -> dict:
    return {"mean": statistics.fmean(values) if values else None,
            "std": statistics.stdev(values) if len(values) > 1 else None,
            "values": values}


def summarize(runs: list[dict]) -> dict:
    summary = {}
    for name in MODEL_NAMES:
        mine = sorted((r for r in runs if r["model"] == name), key=lambda r: r["seed"])
        if not mine:
            continue
        summary[name] = {"title": MODEL_TITLES[name], "parameters": mine[0]["parameters"],
                         "seeds": [r["seed"] for r in mine]}
        for key in ("test_loss", "test_perplexity", "val_loss", "val_perplexity", "train_seconds",
                    "final_train_loss"):
            summary[name][key] = _spread([r[key] for r in mine])
    return summary


def results_table(results: dict) -> str:
    """The comparison as a Markdown table: mean ± sample standard deviation across seeds."""
    def pm(spread: dict, places: int) -> str:
        sd = f" ± {spread['std']:.{places}f}" if spread["std"] is not None else ""
        return f"{spread['mean']:.{places}f}{sd}"

    lines = ["| model | parameters | seeds | test loss | test perplexity | val loss | train wall time (s) |",
             "|---|---:|---|---:|---:|---:|---:|"]
    for name in MODEL_NAMES:
        if name not in results["summary"]:
            continue
        s = results["summary"][name]
        lines.append(f"| {s['title']} | {s['parameters']:,} | {', '.join(map(str, s['seeds']))} | "
                     f"{pm(s['test_loss'], 3)} | {pm(s['test_perplexity'], 2)} | {pm(s['val_loss'], 3)} | "
                     f"{pm(s['train_seconds'], 0)} |")
    return "\n".join(lines)


def export_all(cfg: Config, root: Path, windows, record: dict, tok, out: Path) -> None:
    runs = [json.loads((root / f"{m}-s{s}" / "result.json").read_text())
            for s in SEEDS for m in MODEL_NAMES if (root / f"{m}-s{s}" / "result.json").exists()]
    if not runs:
        raise FileNotFoundError(f"no finished runs under {root} (run `python -m trainer compare`)")
    out.mkdir(parents=True, exist_ok=True)
    (out / "checkpoints").mkdir(exist_ok=True)

    # Tokenizer and seed-11 checkpoints (fp16), then the manifest that the loader checks against.
    shutil.copyfile(root / "tokenizer.json", out / "tokenizer.json.tmp")
    os.replace(out / "tokenizer.json.tmp", out / "tokenizer.json")
    manifest = {"models": {}}
    for name in MODEL_NAMES:
        src = root / f"{name}-s11" / "checkpoint.pt"
        if not src.exists():
            continue
        saved = torch.load(src, weights_only=False)
        half = {k: v.half() for k, v in saved["state_dict"].items()}
        dst = out / "checkpoints" / f"{name}-s11.pt"
        atomic_save({"model": name, "seed": 11, "config": saved["config"], "vocab": saved["vocab"],
                     "state_dict": half}, dst)
        manifest["models"][name] = {"file": dst.name, "sha256": sha256_file(dst), "seed": 11,
                                    "config": saved["config"], "dtype": "float16",
                                    "parameters": sum(v.numel() for v in half.values())}
    atomic_write_json(manifest, out / "checkpoints" / "manifest.json")

    # The results file: every run, and the spread across seeds per model.
    results = {"protocol": cfg.to_dict(), "corpus": record, "runs": runs, "summary": summarize(runs),
               "complete": len(runs) == len(SEEDS) * len(MODEL_NAMES),
               "device": runs[0]["device"], "torch_version": torch.__version__}
    atomic_write_json(results, out / "results.json")

    print(results_table(results))

    test_ids = torch.load(root / "corpus.pt", weights_only=False)["ids"]
    continuations = _continuations(cfg, out, tok, test_ids)
    missing = [m for m in MODEL_NAMES if m not in manifest["models"]]
    if missing:
        atomic_write_json(continuations, out / "continuations.json")
        print(f"protocol.json and attention.json not written: no seed-11 checkpoint of {', '.join(missing)}")
        return
    # protocol.json, attention.json (final-query map) and continuations.json with the prompts as read
    export_lesson_views(out, None, test_stories=test_ids["test"], continuations=continuations)


def _continuations(cfg: Config, out: Path, tok, ids: dict) -> dict:
    from trainer.tokenizer import detokenize

    def words_of(split: str) -> str:
        """The opening 8 tokens of the split's first story that does not open with the stock
        "once upon a time", so the training and held-out prompts differ."""
        for story in ids[split]:
            words = [tok.id_to_token(i) for i in story[:8]]
            if words[:2] != ["once", "upon"] and "<UNK>" not in words:
                return detokenize(words)
        raise ValueError(f"no usable prompt story in the {split} split")

    prompts = {"training": words_of("train"), "held_out": words_of("test"),
               "outside_domain": OUTSIDE_DOMAIN_PROMPT}
    torch.set_num_threads(1)
    payload = {"device": device_name(), "threads": 1, "tokens": 20, "prompts": prompts, "models": {}}
    for name in MODEL_NAMES:
        if not (out / "checkpoints" / f"{name}-s11.pt").exists():
            continue
        model, _ = load_checkpoint(out, name)
        payload["models"][name] = {kind: generate(model, tok, p, 20, cfg.context) for kind, p in prompts.items()}
    torch.set_num_threads(cfg.threads)
    return payload
