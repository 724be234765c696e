"""Stories in, windows out.

Both sources go through `datasets` and share one code path after loading:
  hub:   load_dataset("roneneldan/TinyStories", revision=HUB_REVISION, split="train")
  local: load_dataset("json", data_files=...)   (one {"text": ...} per line)
Then: deterministic selection of n stories, de-duplication on normalized text, a split of whole
stories by a hash of their normalized text (80/10/10), tokenization, and windows.
"""
from __future__ import annotations

import gzip
import hashlib
import json
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from trainer.config import BOS, EOS, HUB_DATASET, HUB_REVISION, PAD, PROJECT_ROOT, UNK, Config
from trainer.tokenizer import encode, fit_tokenizer, normalize_text


class DataError(RuntimeError):
    """Bad or unreachable input data; the CLI prints it as one line and exits non-zero."""


def open_stories(path: Path, mode: str = "rb"):
    """A local stories file, gzip-compressed (name ends in .gz) or plain; text modes read UTF-8."""
    encoding = None if "b" in mode else "utf-8"
    if Path(path).suffix == ".gz":
        return gzip.open(path, mode, encoding=encoding)
    return open(path, mode, encoding=encoding)


def sha256_file(path: Path) -> str:
    """sha256 of a file's bytes; for a .gz file, of the bytes it decompresses to (the raw stories),
    so the vendored sample and the plain stories.jsonl it was made from hash the same."""
    h = hashlib.sha256()
    try:
        with open_stories(path) as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except (EOFError, zlib.error, gzip.BadGzipFile) as e:
        raise DataError(f"{path}: unreadable stories file ({type(e).__name__}: {e}); "
                        "expected UTF-8 JSON lines, optionally gzipped") from None
    return h.hexdigest()


def display_path(path: Path) -> str:
    """The path as recorded in results: relative to the project when inside it (no machine's paths)."""
    try:
        return Path(path).resolve().relative_to(PROJECT_ROOT).as_posix()
    except ValueError:
        return Path(path).name


def _check_local_file(path: Path) -> None:
    """Validate before `datasets` sees it, so errors name the file and line."""
    if not path.is_file():
        raise DataError(f"data file not found: {path}")
    try:
        with open_stories(path, "rt") as f:
            for lineno, line in enumerate(f, 1):
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as e:
                    raise DataError(f"{path}:{lineno}: malformed JSON line ({e.msg}); "
                                    "expected one {\"text\": ...} per line") from None
                if not isinstance(row, dict) or not isinstance(row.get("text"), str):
                    raise DataError(f"{path}:{lineno}: expected an object with a string \"text\" field")
                if not row["text"].strip():
                    raise DataError(f"{path}:{lineno}: empty text")
    except (OSError, EOFError, UnicodeDecodeError, zlib.error) as e:
        raise DataError(f"{path}: unreadable stories file ({type(e).__name__}: {e}); "
                        "expected UTF-8 JSON lines, optionally gzipped") from None


def load_texts(data_files: str | None) -> tuple[list[str], dict]:
    """Return raw story texts and a record of where they came from."""
    import datasets

    datasets.disable_progress_bars()
    if data_files:
        path = Path(data_files)
        _check_local_file(path)
        ds = datasets.load_dataset("json", data_files=str(path), split="train")
        source = {"kind": "local", "path": display_path(path), "sha256": sha256_file(path)}
    else:
        try:
            ds = datasets.load_dataset(HUB_DATASET, revision=HUB_REVISION, split="train")
        except Exception as e:  # network, auth, missing revision: one clear line
            raise DataError(f"could not load {HUB_DATASET}@{HUB_REVISION} from the hub ({type(e).__name__}); "
                            f"pass --data-files FILE.jsonl to train from local stories") from None
        source = {"kind": "hub", "dataset": HUB_DATASET, "revision": HUB_REVISION,
                  "fingerprint": ds._fingerprint}   # datasets' own hash of the loaded table
    texts = ds["text"]
    for i, t in enumerate(texts):
        if not isinstance(t, str) or not t.strip():
            raise DataError(f"story {i} has empty text")
    return list(texts), source


def split_of(normalized: str) -> str:
    """Whole stories go to one split by a hash of their normalized text: 80 / 10 / 10."""
    bucket = int(hashlib.sha256(normalized.encode("utf-8")).hexdigest()[:8], 16) % 10
    return "train" if bucket < 8 else ("val" if bucket == 8 else "test")


def select_stories(texts: list[str], n: int, seed: int) -> tuple[dict[str, list[str]], dict]:
    rng = np.random.default_rng(seed)
    picked = np.sort(rng.choice(len(texts), size=min(n, len(texts)), replace=False))
    seen: set[str] = set()
    splits: dict[str, list[str]] = {"train": [], "val": [], "test": []}
    for i in picked:
        norm = normalize_text(texts[i])
        if norm in seen:
            continue
        seen.add(norm)
        splits[split_of(norm)].append(texts[i])
    record = {"available": len(texts), "selected": int(len(picked)), "after_dedup": len(seen),
              "selected_indices_sha256": hashlib.sha256(picked.astype(np.int64).tobytes()).hexdigest(),
              "stories": {k: len(v) for k, v in splits.items()}}
    return splits, record


@dataclass
class Windows:
    """One target per window. `flat` holds every story as <BOS> ids <EOS>, back to back;
    target k sits at flat[target_pos[k]] and its story starts at flat[story_start[k]]."""
    flat: torch.Tensor         # (N_tokens,) int64
    target_pos: torch.Tensor   # (N_targets,) int64
    story_start: torch.Tensor  # (N_targets,) int64
    context: int

    def __len__(self) -> int:
        return len(self.target_pos)

    def batch(self, idx: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Inputs (B, T) left-padded with PAD, never reaching before the story's start; targets (B,)."""
        pos = self.target_pos[idx]                                         # (B,)
        offsets = pos[:, None] - self.context + torch.arange(self.context)  # (B, T)
        inside = offsets >= self.story_start[idx][:, None]
        x = self.flat[offsets.clamp(min=0)]
        x[~inside] = PAD
        return x, self.flat[pos]


def make_windows(stories_ids: list[list[int]], context: int) -> Windows:
    flat, target_pos, story_start = [], [], []
    cursor = 0
    for ids in stories_ids:
        seq = [BOS, *ids, EOS]
        flat.extend(seq)
        # every position after BOS is a target: len(ids) + 1 of them
        target_pos.extend(range(cursor + 1, cursor + len(seq)))
        story_start.extend([cursor] * (len(seq) - 1))
        cursor += len(seq)
    as_long = lambda a: torch.tensor(a, dtype=torch.int64)  # noqa: E731
    return Windows(as_long(flat), as_long(target_pos), as_long(story_start), context)


@dataclass
class Corpus:
    tokenizer: object
    splits: dict[str, list[str]]
    ids: dict[str, list[list[int]]]
    windows: dict[str, Windows]
    record: dict


def prepare_corpus(cfg: Config, data_files: str | None) -> Corpus:
    texts, source = load_texts(data_files)
    splits, record = select_stories(texts, cfg.n_stories, cfg.selection_seed)
    if not all(splits.values()):
        raise DataError(f"too few stories ({len(texts)}) to fill train/val/test splits")
    tok = fit_tokenizer(splits["train"], cfg.vocab_size, cfg.min_count)
    ids = {k: [encode(tok, t) for t in v] for k, v in splits.items()}
    windows = {k: make_windows(v, cfg.context) for k, v in ids.items()}
    tokens = {k: int(sum(len(s) for s in v)) for k, v in ids.items()}
    oov = {k: (sum(s.count(UNK) for s in v) / max(tokens[k], 1)) for k, v in ids.items()}
    record = {**record, "source": source, "tokens": tokens, "oov_rate": oov,
              "targets": {k: len(w) for k, w in windows.items()},
              "vocab_size": tok.get_vocab_size()}
    return Corpus(tok, splits, ids, windows, record)
