"""Committed seed-11 checkpoints: fp16 weights + a checksum manifest. The loader refuses a file
whose sha256 or config does not match the manifest."""
from __future__ import annotations

import json
from pathlib import Path

import torch

from trainer.config import Config
from trainer.data import sha256_file
from trainer.model import build_model


class CheckpointError(ValueError):
    pass


def load_checkpoint(exports: Path, name: str) -> tuple[torch.nn.Module, dict]:
    """Returns the model (fp32, eval mode) and its manifest entry."""
    manifest_path = exports / "checkpoints" / "manifest.json"
    if not manifest_path.exists():
        raise FileNotFoundError(f"checkpoint manifest not found: {manifest_path} (run `python -m trainer export`)")
    manifest = json.loads(manifest_path.read_text())
    if name not in manifest["models"]:
        raise CheckpointError(f"no checkpoint for model {name!r}; allowed: {', '.join(manifest['models'])}")
    entry = manifest["models"][name]
    path = exports / "checkpoints" / entry["file"]
    digest = sha256_file(path)
    if digest != entry["sha256"]:
        raise CheckpointError(f"checksum mismatch for {path}: {digest[:12]}… != manifest {entry['sha256'][:12]}…")
    saved = torch.load(path, weights_only=True, map_location="cpu")
    if saved["config"] != entry["config"] or saved["model"] != name:
        raise CheckpointError(f"config of {path} does not match the manifest")
    cfg_dict = dict(saved["config"])
    cfg = Config(**cfg_dict)
    model = build_model(name, cfg, saved["vocab"])
    model.load_state_dict({k: v.float() for k, v in saved["state_dict"].items()})
    model.eval()
    return model, entry
