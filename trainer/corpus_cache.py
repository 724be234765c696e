"""Prepare the corpus once per profile and reuse it across runs (runs/<profile>/corpus.pt)."""
from __future__ import annotations

from pathlib import Path

import torch

from trainer.config import Config
from trainer.data import Windows, prepare_corpus, sha256_file
from trainer.tokenizer import load_tokenizer, save_tokenizer
from trainer.train import atomic_save


def corpus_key(cfg: Config, data_files: str | None) -> dict:
    fields = ("n_stories", "selection_seed", "vocab_size", "min_count", "context")
    key = {f: getattr(cfg, f) for f in fields}
    key["data"] = sha256_file(Path(data_files)) if data_files and Path(data_files).is_file() else data_files
    return key


def load_or_prepare(cfg: Config, data_files: str | None, root: Path) -> tuple[dict[str, Windows], dict, object]:
    """Returns windows per split, the corpus record and the tokenizer."""
    root.mkdir(parents=True, exist_ok=True)
    path, tok_path = root / "corpus.pt", root / "tokenizer.json"
    key = corpus_key(cfg, data_files)
    if path.exists() and tok_path.exists():
        saved = torch.load(path, weights_only=False)
        if saved["key"] == key:
            windows = {k: Windows(**w) for k, w in saved["windows"].items()}
            return windows, saved["record"], load_tokenizer(tok_path)
    corpus = prepare_corpus(cfg, data_files)
    save_tokenizer(corpus.tokenizer, tok_path)
    atomic_save({"key": key, "record": corpus.record, "ids": corpus.ids,
                 "windows": {k: vars(w) for k, w in corpus.windows.items()}}, path)
    return corpus.windows, corpus.record, corpus.tokenizer
