"""What the committed checkpoints give the lesson, regenerable without runs/:

  protocol.json       the protocol's seeds, model names and titles, the checkpoints' seed and config
  attention.json      the honest attention map of one held-out story: for each position i, the
                      final-query weights of the window that ends at token i (what the models compute
                      in training and generation), per model and head
  continuations.json  the prompts as the model read them (`read_as`, <UNK> for words outside the
                      vocabulary) and each continuation's tokens; the measured fields are kept as they are

Inputs: the checkpoints and tokenizer in the exports folder and the stories file (by default the
vendored sample). `python -m trainer export --from-checkpoints` writes all three; `python -m trainer
export` (from runs/) writes them too, after the results and checkpoints. Every payload is computed
before any file is written; each file is written to a temporary name and moved into place.
Schemas: README, "Trainer exports".
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import torch

from trainer.checkpoints import load_checkpoint
from trainer.config import BOS, MODEL_NAMES, MODEL_TITLES, PAD, SEEDS, SPECIALS, UNK, Config, get_config
from trainer.data import DataError, load_texts, make_windows, select_stories
from trainer.generate import window_of
from trainer.tokenizer import detokenize, encode, load_tokenizer

ATTENTION_MODELS = ("one_head", "four_heads")
CHECKPOINT_SEED = 11
ATTENTION_FORMAT = "trainer.final_query_attention/1"
PROTOCOL_FORMAT = "trainer.protocol/1"


# ---------------------------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------------------------


def dumps_rows(obj, indent: int = 0) -> str:
    """JSON with 2-space indentation, keys in insertion order, and each list of scalars on one line
    (one matrix row per line). Floats are written with repr (shortest text that round-trips)."""
    pad = "  " * indent
    if isinstance(obj, dict):
        if not obj:
            return "{}"
        items = [f"{pad}  {json.dumps(str(k))}: {dumps_rows(v, indent + 1)}" for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(obj, (list, tuple)):
        if all(not isinstance(x, (dict, list, tuple)) for x in obj):
            return json.dumps(list(obj), allow_nan=False, separators=(", ", ": "))
        items = [f"{pad}  {dumps_rows(x, indent + 1)}" for x in obj]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    return json.dumps(obj, allow_nan=False)


def write_files(texts: dict[Path, str]) -> None:
    """Each text to a temporary file beside its target, then all moved into place."""
    tmps = []
    try:
        for path, text in texts.items():
            tmp = path.with_name(path.name + ".tmp")
            tmp.write_text(text, encoding="utf-8")
            tmps.append((tmp, path))
        for tmp, path in tmps:
            os.replace(tmp, path)
    finally:
        for tmp, _ in tmps:
            tmp.unlink(missing_ok=True)


def sorted_json(obj) -> str:
    """The trainer's usual layout (train.atomic_write_json): sorted keys, 2-space indent."""
    return json.dumps(obj, indent=2, sort_keys=True, allow_nan=False) + "\n"


# ---------------------------------------------------------------------------------------------
# Inputs
# ---------------------------------------------------------------------------------------------


def load_models(exports: Path) -> tuple[dict, Config]:
    """The seed-11 checkpoints (checksums and configs checked by the loader) and their shared config."""
    models, configs = {}, {}
    for name in MODEL_NAMES:
        model, entry = load_checkpoint(exports, name)
        if entry.get("seed") != CHECKPOINT_SEED:
            raise ValueError(f"checkpoint {entry['file']}: seed {entry.get('seed')!r}, expected {CHECKPOINT_SEED}")
        models[name], configs[name] = model, entry["config"]
    first = configs[MODEL_NAMES[0]]
    if any(c != first for c in configs.values()):
        raise ValueError("the checkpoints in the manifest were trained under different configs")
    cfg = Config(**first)
    if cfg != get_config(cfg.profile):
        raise ValueError(f"the checkpoints' config is not the trainer's {cfg.profile!r} profile")
    return models, cfg


def pick_story(test_stories: list[list[int]], context: int) -> int:
    """The first held-out story long enough to fill the context (<BOS> + context - 1 tokens)."""
    for i, story in enumerate(test_stories):
        if len(story) >= context - 1:
            return i
    raise DataError(f"no test story has {context - 1} tokens")


def held_out_stories(cfg: Config, tok, data_files: str | None, exports: Path) -> list[list[int]]:
    """The test split as the runs saw it: the protocol's selection and split of the stories,
    encoded with the committed tokenizer. Refused if the stories are not the ones results.json records."""
    texts, source = load_texts(data_files)
    splits, record = select_stories(texts, cfg.n_stories, cfg.selection_seed)
    results_path = exports / "results.json"
    if results_path.exists():
        try:
            recorded = json.loads(results_path.read_text())["corpus"]
            want, got = recorded["source"].get("sha256"), source.get("sha256")
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError):
            raise ValueError(f"{results_path}: no readable corpus record (corpus.source)") from None
        if want is not None and got is not None and want != got:
            raise DataError(f"{source.get('path', data_files)}: sha256 {got[:12]}… is not the stories the runs used "
                            f"(results.json records {want[:12]}…)")
        for key in ("selected_indices_sha256", "stories"):
            if recorded.get(key) != record[key]:
                raise DataError(f"the selection of stories differs from results.json's corpus record ({key})")
    return [encode(tok, t) for t in splits["test"]]


# ---------------------------------------------------------------------------------------------
# protocol.json
# ---------------------------------------------------------------------------------------------


def protocol_payload(cfg: Config) -> dict:
    return {
        "format": PROTOCOL_FORMAT,
        "seeds": list(SEEDS),
        "checkpoint_seed": CHECKPOINT_SEED,
        "models": list(MODEL_NAMES),
        "titles": {m: MODEL_TITLES[m] for m in MODEL_NAMES},
        "attention_models": list(ATTENTION_MODELS),
        "heads": {"one_head": 1, "four_heads": cfg.n_heads_multi},
        "specials": {s: i for i, s in enumerate(SPECIALS)},
        "config": cfg.to_dict(),
    }


# ---------------------------------------------------------------------------------------------
# attention.json
# ---------------------------------------------------------------------------------------------


def story_windows(story: list[int], n: int, context: int) -> torch.Tensor:
    """(n, T): row i is the window that ends at token i of <BOS> + story, left-padded with PAD. Built
    with the training path (Windows.batch) and checked against the generation path (generate.window_of)."""
    seq = [BOS, *story]
    windows = make_windows([story], context)            # the story as training sees it: <BOS> ids <EOS>
    x, targets = windows.batch(torch.arange(n))         # target k sits after token k: its window ends at k
    if targets.tolist() != seq[1:n + 1]:
        raise AssertionError("training windows do not follow the story's tokens")
    for i in range(n):
        if not torch.equal(x[i:i + 1], window_of(seq[: i + 1], context)):
            raise AssertionError(f"training and generation windows differ at position {i}")
    return x


@torch.inference_mode()
def final_query_map(model, windows: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The model's own final-query weights, one window per call as in generation (batch 1):
    weights (h, n, T) in float32 and logits (n, V)."""
    rows, logits = [], []
    for i in range(windows.shape[0]):
        z, w = model.forward_with_weights(windows[i:i + 1])   # (1, V), (1, h, T)
        rows.append(w[0])
        logits.append(z[0])
    return torch.stack(rows, dim=1), torch.stack(logits)


def by_source(window_weights: torch.Tensor, n: int, context: int) -> torch.Tensor:
    """(h, n, T) over window slots -> (h, n, n) over story positions: source j of receiver i sits in
    slot T - 1 - i + j; 0.0 where j is not in the window (after the receiver, or before its start)."""
    h = window_weights.shape[0]
    out = torch.zeros(h, n, n, dtype=window_weights.dtype)
    for i in range(n):
        for j in range(max(0, i - context + 1), i + 1):
            out[:, i, j] = window_weights[:, i, context - 1 - i + j]
    return out


def attention_payload(models: dict, cfg: Config, tok, test_stories: list[list[int]]) -> dict:
    T = cfg.context
    story_index = pick_story(test_stories, T)
    story = test_stories[story_index]
    seq = [BOS, *story[: T - 1]]                           # 64 tokens, <BOS> first
    n = len(seq)
    windows = story_windows(story, n, T)
    real = windows != PAD
    sources = [list(range(max(0, i - T + 1), i + 1)) for i in range(n)]
    payload = {
        "format": ATTENTION_FORMAT,
        "about": ("Final-query attention of the seed-11 checkpoints on one held-out test story. Row i is "
                  "what the model computes when token i is the newest token of its window (the left-padded "
                  "window of the last 64 tokens ending at i, as in training and generation). "
                  "heads[h][i][j]: weight of story position j for receiver i; window_weights[h][i][s]: the "
                  "same weights over the window's slots, exactly 0.0 on PAD slots. Values are the model's "
                  "float32 softmax outputs written as exact decimals."),
        "dtype": "float32",
        "checkpoint_seed": CHECKPOINT_SEED,
        "protocol_seeds": list(SEEDS),
        "context": T,
        "pad_id": PAD,
        "split": "test",
        "story_index": story_index,
        "story_tokens": len(test_stories[story_index]),
        "n": n,
        "tokens": [tok.id_to_token(i) for i in seq],
        "ids": seq,
        "windows": {
            "ids": windows.tolist(),
            "real": real.tolist(),
            "n_pad": (~real).sum(dim=1).tolist(),
            "sources": sources,
        },
        "models": {},
        "checks": {},
    }
    full_x = torch.tensor([seq])
    for name in ATTENTION_MODELS:
        model = models[name]
        weights, logits = final_query_map(model, windows)          # (h, n, T), (n, V)
        if (weights[:, ~real] != 0).any():
            raise AssertionError(f"{name}: non-zero weight on a PAD slot")
        heads = by_source(weights, n, T)
        with torch.inference_mode():
            _, full = model.forward_full(full_x)                   # (1, h, n, n): inspection path
            full_logits = torch.stack([model.forward_full(windows[i:i + 1])[0][0, -1] for i in range(n)])
        full = full[0]
        diff = (heads.double() - full.double()).abs()              # (h, n, n), exact differences
        payload["models"][name] = {
            "title": MODEL_TITLES[name],
            "n_heads": weights.shape[0],
            "d_head": cfg.d_model // weights.shape[0],
            "heads": heads.tolist(),
            "window_weights": weights.tolist(),
        }
        payload["checks"][name] = {
            "last_row_max_abs_diff_vs_full_sequence": diff[:, n - 1].max().item(),
            "logits_max_abs_diff_vs_full_sequence_last_row": (logits.double() - full_logits.double()).abs().max().item(),
            "full_sequence_rows_max_abs_diff": diff.amax(dim=(1, 2)).tolist(),
            "full_sequence_rows_max_abs_diff_at": [int(d.amax(dim=1).argmax()) for d in diff],
        }
    payload["checks"]["about"] = (
        "Measured while exporting. last_row...: the final query of the full story against the last row of "
        "the full-sequence inspection path (forward_full); logits...: every window's final-query logits "
        "against forward_full's last row on the same window; full_sequence_rows...: per head, how far the "
        "full-sequence path's rows (queries the model never computes, except the last) are from these rows, "
        "and at which receiver row.")
    return payload


# ---------------------------------------------------------------------------------------------
# continuations.json: prompts as read
# ---------------------------------------------------------------------------------------------


def read_as(tok, prompt: str) -> dict:
    """The prompt as the model read it: tokens (<UNK> for words outside the vocabulary), their ids,
    the detokenized text, and which original words became <UNK> (zero-based token positions; the
    model's window holds <BOS> before token 0)."""
    enc = tok.encode(prompt, add_special_tokens=False)
    ids = list(enc.ids)
    if ids != encode(tok, prompt):
        raise AssertionError(f"tokenizer disagrees with itself on {prompt!r}")
    tokens = [tok.id_to_token(i) for i in ids]
    unknown = [{"position": k, "word": prompt[a:b]}
               for k, (i, (a, b)) in enumerate(zip(ids, enc.offsets)) if i == UNK]
    return {"tokens": tokens, "ids": ids, "text": detokenize(tokens), "unknown": unknown}


def annotate_continuations(payload: dict, tok) -> dict:
    """A copy of the continuations payload with `read_as` per prompt kind, and each continuation's
    `tokens` and `unk_positions`. The measured fields are not touched; a continuation whose tokens do
    not give its text is refused."""
    out = json.loads(json.dumps(payload))
    for field in ("prompts", "models"):
        if not isinstance(out.get(field), dict):
            raise ValueError(f"continuations.json: missing or bad field {field!r}")
    out["read_as"] = {kind: read_as(tok, prompt) for kind, prompt in out["prompts"].items()}
    for name, by_kind in out["models"].items():
        for kind, rec in by_kind.items():
            where = f"continuations.json: models.{name}.{kind}"
            if not isinstance(rec, dict) or not isinstance(rec.get("token_ids"), list):
                raise ValueError(f"{where}: missing or bad field 'token_ids'")
            tokens = [tok.id_to_token(i) for i in rec["token_ids"]]
            if None in tokens or detokenize(tokens) != rec.get("continuation"):
                raise ValueError(f"{where}: token_ids do not give the exported continuation text")
            rec["tokens"] = tokens
            rec["unk_positions"] = [k for k, i in enumerate(rec["token_ids"]) if i == UNK]
    return out


# ---------------------------------------------------------------------------------------------
# The command
# ---------------------------------------------------------------------------------------------


def lesson_views(exports: Path, data_files: str | None, test_stories: list[list[int]] | None = None,
                 continuations: dict | None = None) -> dict[Path, str]:
    """Texts of protocol.json, attention.json and continuations.json (nothing written). Runs on one
    thread, one window per call, as generation does: the same bits on every repeat."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return _lesson_views(Path(exports), data_files, test_stories, continuations)
    finally:
        torch.set_num_threads(threads)


def _lesson_views(exports: Path, data_files, test_stories, continuations) -> dict[Path, str]:
    models, cfg = load_models(exports)
    if not (exports / "tokenizer.json").is_file():
        raise FileNotFoundError(f"{exports / 'tokenizer.json'} not found")
    tok = load_tokenizer(exports / "tokenizer.json")
    if tok.get_vocab_size() != cfg.vocab_size:
        raise ValueError(f"tokenizer.json has {tok.get_vocab_size()} entries; the checkpoints use {cfg.vocab_size}")
    if continuations is None:
        path = exports / "continuations.json"
        if not path.exists():
            raise FileNotFoundError(f"{path} not found (it holds measured latencies: run `python -m trainer export`)")
        try:
            continuations = json.loads(path.read_text())
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not JSON ({e.msg}, line {e.lineno})") from None
    annotated = annotate_continuations(continuations, tok)          # bad input fails before the slow part
    if test_stories is None:
        test_stories = held_out_stories(cfg, tok, data_files, exports)
    return {
        exports / "protocol.json": sorted_json(protocol_payload(cfg)),
        exports / "attention.json": dumps_rows(attention_payload(models, cfg, tok, test_stories)) + "\n",
        exports / "continuations.json": sorted_json(annotated),
    }


def export_lesson_views(exports: Path, data_files: str | None, **kwargs) -> None:
    exports = Path(exports)
    if not (exports / "checkpoints" / "manifest.json").exists():
        raise FileNotFoundError(f"no checkpoints in {exports} (expected {exports / 'checkpoints' / 'manifest.json'})")
    texts = lesson_views(exports, data_files, **kwargs)
    write_files(texts)
    for path in texts:
        print(f"wrote {path}")
