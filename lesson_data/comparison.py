"""The trained comparison, as exported by the trainer into lesson_data/exports/ (no torch here).

Readers (a missing file raises MissingExportError naming the file and the command that makes it; a
missing or bad field raises ExportFormatError naming the file and the field):

  load_results()        results.json, as a dict: the nine runs and their spread across seeds
  load_protocol()       protocol.json -> Protocol: seeds, model names and titles, checkpoint seed, config
  load_attention_map()  attention.json -> AttentionMap: the final-query attention of the seed-11
                        checkpoints on one held-out story (row i = the window ending at token i)
  load_continuation_set()  continuations.json -> ContinuationSet: prompts as the model read them,
                        greedy continuations with their tokens and measured latency
  load_attention(), load_continuations()  the same two files as plain dicts

`SEEDS` and `MODEL_TITLES` (module attributes) are read from protocol.json when first used.

Helpers that decide from the data (the scenes show what they return): Spread / spread (mean and
sample standard deviation across seeds, checked against the runs), parameter_parts /
checked_parameters (the protocol's parameter count against the recorded one), loss_range, runs_note,
heads_helped, top_sources, ...
"""
from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from lesson_data.display import fmt_int

EXPORTS = Path(__file__).resolve().parent / "exports"
MODEL_ORDER = ("mlp", "one_head", "four_heads")
ATTENTION_FORMAT = "trainer.final_query_attention/1"
PROTOCOL_FORMAT = "trainer.protocol/1"
UNK_TOKEN, UNK_ID = "<UNK>", 3     # protocol.json's specials
ROW_SUM_TOLERANCE = 1e-5     # the weights are the model's float32 softmax outputs

_FROM_RUNS = "run `python -m trainer compare` then `python -m trainer export`"
_FROM_CHECKPOINTS = "run `python -m trainer export --from-checkpoints`"


class MissingExportError(FileNotFoundError):
    pass


class ExportFormatError(ValueError):
    """An export with a missing or malformed field; the message names the file and the field."""


def _read(name: str, exports: Path | None = None, how: str = _FROM_RUNS) -> dict:
    path = (exports or EXPORTS) / name
    if not path.exists():
        raise MissingExportError(f"missing trainer export {path}: {how}")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise ExportFormatError(f"{path.name}: not JSON ({e.msg}, line {e.lineno})") from None
    if not isinstance(data, dict):
        raise ExportFormatError(f"{path.name}: expected a JSON object at the top level")
    return data


def load_results(exports: Path | None = None) -> dict:
    """results.json: `runs` (nine dicts: model, seed, parameters, trace, val/test loss and perplexity,
    train_seconds, device, ...), `summary` (per model: mean and sample std across seeds), `corpus`."""
    return _read("results.json", exports)


def load_attention(exports: Path | None = None) -> dict:
    """attention.json as a dict (schema: README, "Trainer exports"); load_attention_map() validates it."""
    return _read("attention.json", exports, _FROM_CHECKPOINTS)


def load_continuations(exports: Path | None = None) -> dict:
    """continuations.json as a dict: `prompts` by kind, `read_as` by kind, and `models[name][kind]` with
    `continuation`, `token_ids`, `tokens`, `unk_positions` and `latency_ms_median` (measured on `device`)."""
    return _read("continuations.json", exports)


# ---------------------------------------------------------------------------------------------
# Field checks
# ---------------------------------------------------------------------------------------------


def _get(obj: dict, path: str, file: str, kind=None):
    """obj[a][b]... for path "a.b...", or ExportFormatError naming the file and the field."""
    cur = obj
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            raise ExportFormatError(f"{file}: missing field {path!r}")
        cur = cur[part]
    if kind is not None and not _is(cur, kind):
        raise ExportFormatError(f"{file}: field {path!r} should be {_kind_name(kind)}, got {type(cur).__name__}")
    return cur


def _is(value, kind) -> bool:
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, kind)


def _kind_name(kind) -> str:
    return {int: "an integer", float: "a number", str: "a string", list: "a list", dict: "an object",
            bool: "true/false"}.get(kind, getattr(kind, "__name__", str(kind)))


def _list_of(value, kind, path: str, file: str, length: int | None = None) -> list:
    if not isinstance(value, list) or not all(_is(v, kind) for v in value):
        raise ExportFormatError(f"{file}: field {path!r} should be a list of {_kind_name(kind)} values")
    if length is not None and len(value) != length:
        raise ExportFormatError(f"{file}: field {path!r} has {len(value)} entries, expected {length}")
    return value


def _array(value, shape: tuple, path: str, file: str, dtype=np.float64) -> np.ndarray:
    try:
        arr = np.array(value, dtype=dtype)
    except (TypeError, ValueError):
        raise ExportFormatError(f"{file}: field {path!r} is not a numeric array") from None
    if arr.shape != shape:
        raise ExportFormatError(f"{file}: field {path!r} has shape {list(arr.shape)}, expected {list(shape)}")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ExportFormatError(f"{file}: field {path!r} holds a non-finite value")
    arr.setflags(write=False)
    return arr


# ---------------------------------------------------------------------------------------------
# protocol.json
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Protocol:
    """The comparison's protocol as the trainer ran it: `seeds` of every model (11, 29, 47),
    `checkpoint_seed` of the exported checkpoints (11), models in the lesson's order with their
    titles, heads per attention model, special-token ids, and the full config (sizes, budget, rates)."""
    seeds: tuple[int, ...]
    checkpoint_seed: int
    models: tuple[str, ...]
    titles: dict
    attention_models: tuple[str, ...]
    heads: dict
    specials: dict
    config: dict


def load_protocol(exports: Path | None = None) -> Protocol:
    data, f = _read("protocol.json", exports, _FROM_CHECKPOINTS), "protocol.json"
    if _get(data, "format", f, str) != PROTOCOL_FORMAT:
        raise ExportFormatError(f"{f}: field 'format' is {data['format']!r}, expected {PROTOCOL_FORMAT!r}")
    seeds = tuple(_list_of(_get(data, "seeds", f), int, "seeds", f))
    checkpoint_seed = _get(data, "checkpoint_seed", f, int)
    if not seeds or checkpoint_seed not in seeds:
        raise ExportFormatError(f"{f}: field 'checkpoint_seed' {checkpoint_seed} is not one of the seeds {list(seeds)}")
    models = tuple(_list_of(_get(data, "models", f), str, "models", f))
    if set(models) != set(MODEL_ORDER):
        raise ExportFormatError(f"{f}: field 'models' is {list(models)}, expected {list(MODEL_ORDER)}")
    titles = _get(data, "titles", f, dict)
    for m in models:
        _get(data, f"titles.{m}", f, str)
    attention_models = tuple(_list_of(_get(data, "attention_models", f), str, "attention_models", f))
    heads = {m: _get(data, f"heads.{m}", f, int) for m in attention_models}
    specials = _get(data, "specials", f, dict)
    _get(data, "specials.<PAD>", f, int), _get(data, "specials.<UNK>", f, int)
    config = _get(data, "config", f, dict)
    for key in ("context", "d_model", "d_hidden", "vocab_size", "n_heads_multi"):
        _get(data, f"config.{key}", f, int)
    return Protocol(seeds, checkpoint_seed, models, dict(titles), attention_models, heads, dict(specials),
                    dict(config))


def __getattr__(name: str):
    """SEEDS and MODEL_TITLES come from protocol.json (read when first used, not at import)."""
    if name == "SEEDS":
        return load_protocol().seeds
    if name == "MODEL_TITLES":
        return dict(load_protocol().titles)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------------------------------
# attention.json: the final-query map
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class ModelAttention:
    """One model's final-query weights on the story (arrays float64, holding the model's float32 values;
    read-only).

    heads[h, i, j]          weight of story position j for receiver i (the window ending at token i);
                            0.0 for every j after i (not in that window)
    window_weights[h, i, s] the same row over the window's 64 slots, exactly 0.0 on PAD slots
    """
    name: str
    title: str
    n_heads: int
    d_head: int
    heads: np.ndarray            # (h, n, n)
    window_weights: np.ndarray   # (h, n, T)


@dataclass(frozen=True, eq=False)
class AttentionMap:
    """Final-query attention of the seed-11 checkpoints on one held-out test story of n tokens
    (<BOS> first). Receiver i's window is the last `context` tokens ending at token i, left-padded
    with PAD: window_ids[i], real[i] (True on real-token slots), sources[i] (story positions of the real
    slots, in slot order). Positions are zero-based (the lesson shows i + 1)."""
    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    context: int
    pad_id: int
    checkpoint_seed: int
    protocol_seeds: tuple[int, ...]
    split: str
    story_index: int
    story_tokens: int
    window_ids: np.ndarray       # (n, T) int
    real: np.ndarray             # (n, T) bool
    sources: tuple[tuple[int, ...], ...]
    models: dict                 # name -> ModelAttention
    checks: dict

    @property
    def n(self) -> int:
        return len(self.tokens)

    def model(self, name: str) -> ModelAttention:
        if name not in self.models:
            raise KeyError(f"attention.json has no weights for {name!r}; it holds {sorted(self.models)}")
        return self.models[name]

    def receiver_row(self, model: str, head: int, receiver: int) -> tuple[tuple[int, ...], np.ndarray]:
        """(source positions, weights) of one receiver and head (head zero-based): the real slots of
        its window only, in position order; the weights sum to one."""
        return self.sources[receiver], self.model(model).heads[head, receiver, list(self.sources[receiver])]

    def weight_on(self, model: str, head: int, receiver: int, token: str) -> float:
        """Total weight (float64 sum of the float32 weights) the receiver puts on every source whose token
        is `token`. Round the sum for display, not its terms."""
        sources, w = self.receiver_row(model, head, receiver)
        return float(sum(float(x) for j, x in zip(sources, w) if self.tokens[j] == token))

    def top(self, model: str, head: int, receiver: int, k: int = 3) -> list[tuple[int, float]]:
        """The k largest (source position, weight) pairs of one row (ties: earlier source first)."""
        row = self.model(model).heads[head, receiver]
        return [(j, float(row[j])) for j in top_sources(row, k)]


def load_attention_map(exports: Path | None = None) -> AttentionMap:
    data, f = load_attention(exports), "attention.json"
    if _get(data, "format", f, str) != ATTENTION_FORMAT:
        raise ExportFormatError(f"{f}: field 'format' is {data['format']!r}, expected {ATTENTION_FORMAT!r} "
                                f"(the final-query map; {_FROM_CHECKPOINTS})")
    tokens = tuple(_list_of(_get(data, "tokens", f), str, "tokens", f))
    n = len(tokens)
    ids = tuple(_list_of(_get(data, "ids", f), int, "ids", f, n))
    if _get(data, "n", f, int) != n:
        raise ExportFormatError(f"{f}: field 'n' is {data['n']}, but 'tokens' has {n} entries")
    T = _get(data, "context", f, int)
    pad = _get(data, "pad_id", f, int)
    window_ids = _array(_get(data, "windows.ids", f), (n, T), "windows.ids", f, np.int64)
    real = _array(_get(data, "windows.real", f), (n, T), "windows.real", f, bool)
    if not np.array_equal(real, window_ids != pad):
        raise ExportFormatError(f"{f}: field 'windows.real' does not mark the non-PAD slots of 'windows.ids'")
    n_pad = _list_of(_get(data, "windows.n_pad", f), int, "windows.n_pad", f, n)
    raw_sources = _get(data, "windows.sources", f, list)
    if len(raw_sources) != n:
        raise ExportFormatError(f"{f}: field 'windows.sources' has {len(raw_sources)} entries, expected {n}")
    sources = []
    for i, src in enumerate(raw_sources):
        src = tuple(_list_of(src, int, f"windows.sources[{i}]", f))
        want = tuple(range(max(0, i - T + 1), i + 1))
        if src != want or n_pad[i] != T - len(src) or not np.array_equal(real[i], np.arange(T) >= n_pad[i]):
            raise ExportFormatError(f"{f}: field 'windows.sources[{i}]' is not the window ending at token {i}")
        if [int(x) for x in window_ids[i, n_pad[i]:]] != [ids[j] for j in src]:
            raise ExportFormatError(f"{f}: field 'windows.ids[{i}]' does not hold tokens {src[0]}..{i} of the story")
        sources.append(src)
    models = {}
    for name, rec in _get(data, "models", f, dict).items():
        p = f"models.{name}"
        h = _get(data, f"{p}.n_heads", f, int)
        heads = _array(_get(data, f"{p}.heads", f), (h, n, n), f"{p}.heads", f)
        window = _array(_get(data, f"{p}.window_weights", f), (h, n, T), f"{p}.window_weights", f)
        if (window < 0).any() or (window > 1).any():
            raise ExportFormatError(f"{f}: field '{p}.window_weights' holds a weight outside [0, 1]")
        if (window[:, ~real] != 0).any():
            raise ExportFormatError(f"{f}: field '{p}.window_weights' puts weight on a PAD slot")
        sums = window.sum(axis=-1)
        if np.abs(sums - 1).max() > ROW_SUM_TOLERANCE:
            raise ExportFormatError(f"{f}: field '{p}.window_weights' has a row that does not sum to one")
        by_source = np.zeros((h, n, n))
        for i, src in enumerate(sources):
            by_source[:, i, list(src)] = window[:, i, n_pad[i]:]
        if not np.array_equal(by_source, heads):
            raise ExportFormatError(f"{f}: field '{p}.heads' is not '{p}.window_weights' placed by story position")
        models[name] = ModelAttention(name, _get(data, f"{p}.title", f, str), h, _get(data, f"{p}.d_head", f, int),
                                      heads, window)
    return AttentionMap(
        tokens=tokens, ids=ids, context=T, pad_id=pad,
        checkpoint_seed=_get(data, "checkpoint_seed", f, int),
        protocol_seeds=tuple(_list_of(_get(data, "protocol_seeds", f), int, "protocol_seeds", f)),
        split=_get(data, "split", f, str), story_index=_get(data, "story_index", f, int),
        story_tokens=_get(data, "story_tokens", f, int), window_ids=window_ids, real=real,
        sources=tuple(sources), models=models, checks=dict(_get(data, "checks", f, dict)))


# ---------------------------------------------------------------------------------------------
# continuations.json: prompts as read, continuations
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PromptAsRead:
    """A prompt as typed (`prompt`) and as the model read it: `tokens` (<UNK> for words outside the
    vocabulary), `ids`, `text` (the tokens re-joined for display), `unknown` ((token position, word as
    typed) for each <UNK>). The model's window holds <BOS> before token 0."""
    kind: str
    prompt: str
    tokens: tuple[str, ...]
    ids: tuple[int, ...]
    text: str
    unknown: tuple[tuple[int, str], ...]


@dataclass(frozen=True)
class Continuation:
    """One greedy continuation: `text` as exported (detokenized), `tokens` / `token_ids` as generated,
    `unk_positions` (indices into tokens where the model produced <UNK>), and the measured latency."""
    model: str
    kind: str
    text: str
    token_ids: tuple[int, ...]
    tokens: tuple[str, ...]
    unk_positions: tuple[int, ...]
    latency_ms_median: float
    latency_ms_mean: float


@dataclass(frozen=True)
class ContinuationSet:
    device: str
    threads: int
    n_tokens: int                 # tokens asked for per continuation (greedy; EOS may stop earlier)
    prompts: dict                 # kind -> PromptAsRead
    runs: dict                    # (model, kind) -> Continuation

    def of(self, model: str, kind: str) -> Continuation:
        if (model, kind) not in self.runs:
            raise KeyError(f"continuations.json has no {kind!r} continuation of {model!r}")
        return self.runs[(model, kind)]


def _check_unk(tokens, ids, positions, where: str, f: str) -> None:
    at = [k for k, t in enumerate(tokens) if t == UNK_TOKEN]
    if list(positions) != at:
        raise ExportFormatError(f"{f}: {where}: <UNK> positions {list(positions)} but the tokens have <UNK> at {at}")
    if any((t == UNK_TOKEN) != (i == UNK_ID) for t, i in zip(tokens, ids)):
        raise ExportFormatError(f"{f}: {where}: tokens and ids disagree on <UNK> (id {UNK_ID})")


def load_continuation_set(exports: Path | None = None) -> ContinuationSet:
    data, f = load_continuations(exports), "continuations.json"
    prompts = {}
    for kind, prompt in _get(data, "prompts", f, dict).items():
        if not isinstance(prompt, str):
            raise ExportFormatError(f"{f}: field 'prompts.{kind}' should be a string")
        p = f"read_as.{kind}"
        tokens = tuple(_list_of(_get(data, f"{p}.tokens", f), str, f"{p}.tokens", f))
        ids = tuple(_list_of(_get(data, f"{p}.ids", f), int, f"{p}.ids", f, len(tokens)))
        unknown = []
        for k, u in enumerate(_get(data, f"{p}.unknown", f, list)):
            if not isinstance(u, dict) or not _is(u.get("position"), int) or not _is(u.get("word"), str):
                raise ExportFormatError(f"{f}: field '{p}.unknown[{k}]' should be {{position, word}}")
            unknown.append((u["position"], u["word"]))
        _check_unk(tokens, ids, [k for k, _ in unknown], p, f)
        prompts[kind] = PromptAsRead(kind, prompt, tokens, ids, _get(data, f"{p}.text", f, str), tuple(unknown))
    runs = {}
    for model, by_kind in _get(data, "models", f, dict).items():
        for kind in by_kind:
            p = f"models.{model}.{kind}"
            token_ids = tuple(_list_of(_get(data, f"{p}.token_ids", f), int, f"{p}.token_ids", f))
            tokens = tuple(_list_of(_get(data, f"{p}.tokens", f), str, f"{p}.tokens", f, len(token_ids)))
            unk = tuple(_list_of(_get(data, f"{p}.unk_positions", f), int, f"{p}.unk_positions", f))
            _check_unk(tokens, token_ids, unk, p, f)
            runs[(model, kind)] = Continuation(
                model, kind, _get(data, f"{p}.continuation", f, str), token_ids, tokens, unk,
                float(_get(data, f"{p}.latency_ms_median", f, float)), float(_get(data, f"{p}.latency_ms_mean", f, float)))
    return ContinuationSet(_get(data, "device", f, str), _get(data, "threads", f, int), _get(data, "tokens", f, int),
                           prompts, runs)


# ---------------------------------------------------------------------------------------------
# Helpers that decide from results.json (moved here from the chapter-3 scene file)
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Spread:
    """One metric of one model across its seeds: `std` is the sample standard deviation, None
    with fewer than two seeds (no spread to show)."""
    mean: float
    std: float | None
    values: tuple
    seeds: tuple


def model_title(results: dict, model: str, titles: dict | None = None) -> str:
    """The model's title in results.json's summary, else in `titles` (e.g. Protocol.titles), else its name."""
    title = results.get("summary", {}).get(model, {}).get("title")
    return title if title is not None else (titles or {}).get(model, model)


def models_in(results: dict) -> list[str]:
    """The models that have runs in the file, in the lesson's order."""
    present = {r["model"] for r in results["runs"]}
    return [m for m in MODEL_ORDER if m in present]


def runs_of(results: dict, model: str) -> list[dict]:
    return sorted((r for r in results["runs"] if r["model"] == model), key=lambda r: r["seed"])


def spread(results: dict, model: str, key: str) -> Spread:
    """The trainer's exported mean and sample std for `key`, checked against the runs it summarizes."""
    runs = runs_of(results, model)
    if not runs:
        raise ValueError(f"results.json has no runs of model {model!r}; it holds {models_in(results)}")
    entry = results["summary"][model][key]
    values = tuple(r[key] for r in runs)
    if tuple(entry["values"]) != values or tuple(results["summary"][model]["seeds"]) != tuple(r["seed"] for r in runs):
        raise ValueError(f"results.json summary of {model} {key} does not match its runs: "
                         f"{entry['values']} vs {list(values)}")
    std = entry["std"] if len(values) > 1 else None
    return Spread(float(entry["mean"]), None if std is None else float(std), values, tuple(r["seed"] for r in runs))


def parameter_of(results: dict, model: str) -> int:
    """The parameter count the runs recorded (all seeds of a model agree)."""
    counts = {r["parameters"] for r in runs_of(results, model)}
    if len(counts) != 1:
        raise ValueError(f"results.json: runs of {model} disagree on the parameter count: {sorted(counts)}")
    return counts.pop()


def parameter_parts(protocol: dict, model: str) -> list[tuple[str, str, int]]:
    """(part, formula, count) per parameter tensor group, from the protocol sizes."""
    V, T, C, Hd = protocol["vocab_size"], protocol["context"], protocol["d_model"], protocol["d_hidden"]
    f = fmt_int
    out = [("token embedding", f"{f(V)} × {f(C)}", V * C)]
    if model == "mlp":
        out += [("hidden layer", f"{f(T * C)} × {f(Hd)} + {f(Hd)}", T * C * Hd + Hd)]
    else:
        out += [("position rows", f"{f(T)} × {f(C)}", T * C),
                ("W_Q, W_K, W_V, W_O", f"4 × {f(C)} × {f(C)}", 4 * C * C),
                ("prediction MLP in", f"{f(C)} × {f(Hd)} + {f(Hd)}", C * Hd + Hd)]
    out += [("vocabulary layer", f"{f(Hd)} × {f(V)} + {f(V)}", Hd * V + V)]
    return out


def checked_parameters(results: dict, model: str) -> tuple[list, int]:
    """The protocol's parts and the recorded count; stop if they disagree (the diagram would lie)."""
    parts = parameter_parts(results["protocol"], model)
    recorded = parameter_of(results, model)
    if sum(p[2] for p in parts) != recorded:
        raise ValueError(f"{model}: the protocol sizes give {sum(p[2] for p in parts):,} parameters but "
                         f"results.json records {recorded:,}")
    return parts, recorded


def runs_note(results: dict, seeds) -> str | None:
    """A visible note when the file does not yet hold every planned run: len(seeds) runs of each model
    (seeds: the protocol's, Protocol.seeds)."""
    planned = len(seeds) * len(MODEL_ORDER)
    n = len(results["runs"])
    if results.get("complete") and n == planned:
        return None
    return f"partial export: {n} of {planned} runs (the rest are still training)"


def seeds_words(seeds) -> str:
    seeds = [str(s) for s in seeds]
    return seeds[0] if len(seeds) == 1 else ", ".join(seeds[:-1]) + " and " + seeds[-1]


def nice_step(span: float, max_ticks: int = 6) -> float:
    for step in (0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 5.0):
        if span / step <= max_ticks:
            return step
    return 10.0


def loss_range(results: dict, from_step: int = 0) -> tuple[float, float, float]:
    """y range (low, high, tick step) that holds every traced selection loss at or after from_step."""
    losses = [t["selection_loss"] for r in results["runs"] for t in r["trace"] if t["step"] >= from_step]
    lo, hi = min(losses), max(losses)
    step = nice_step(hi - lo)
    return math.floor(lo / step) * step, math.ceil(hi / step) * step, step


def device_line(results: dict) -> str:
    devices = sorted({r["device"] for r in results["runs"]})
    torches = sorted({r["torch_version"] for r in results["runs"]})
    return f"wall time on {' / '.join(devices)}, torch {' / '.join(torches)}"


def heads_helped(results: dict) -> bool:
    """Did four heads reach a lower mean test loss than one head in this file?"""
    return spread(results, "four_heads", "test_loss").mean < spread(results, "one_head", "test_loss").mean


def top_sources(row, k: int = 3) -> list[int]:
    """Indices of the k largest weights of an attention row (ties: the earlier source first)."""
    row = np.asarray(row, dtype=float)
    return sorted(range(len(row)), key=lambda j: (-row[j], j))[:k]


def device_words(device: str) -> str:
    """The exported device string as prose ("1 threads" reads "1 thread")."""
    return re.sub(r"\b1 threads\b", "1 thread", device)


# ---------------------------------------------------------------------------------------------
# Helpers for chapter 3's pictures and sentences (decided from the exports; the scenes show them)
# ---------------------------------------------------------------------------------------------


def millions(count: int, places: int = 2) -> str:
    """A parameter count as a person says it: 2,332,832 -> "2.33 million" (the display rule, fmt)."""
    from lesson_data.display import fmt

    return f"{fmt(count / 1e6, places)} million"


def mean_gap(results: dict, better: str, worse: str, key: str = "test_loss") -> float:
    """How much lower `better`'s mean is than `worse`'s (full precision: round the gap once, on screen,
    not the two rounded means)."""
    return spread(results, worse, key).mean - spread(results, better, key).mean


def runs_apart(results: dict, low: str, high: str, key: str = "test_loss") -> bool:
    """True when every run of `low` is below every run of `high`: the seeds do not overlap."""
    return max(spread(results, low, key).values) < min(spread(results, high, key).values)


def closest_runs(results: dict, low: str, high: str, key: str = "test_loss") -> tuple[float, float]:
    """(highest run of `low`, lowest run of `high`): the two runs where the models come closest."""
    return max(spread(results, low, key).values), min(spread(results, high, key).values)


@dataclass(frozen=True)
class LineEntry:
    """One box of the story line: story positions first..last (zero-based, inclusive). A single token
    when first == last, else a folded gap of last - first + 1 tokens."""
    first: int
    last: int

    @property
    def is_gap(self) -> bool:
        return self.last > self.first

    @property
    def size(self) -> int:
        return self.last - self.first + 1


@dataclass(frozen=True, eq=False)
class StoryLine:
    """The receiver's window as a legible line: the tokens that matter, the rest folded into gaps.

    entries       LineEntry boxes in story order; the receiver is the last entry
    chosen        the positions that had to be shown (weight >= threshold in some head, and the receiver)
    threshold     the weight that put a source on the line
    weights(m, h) each entry's weight for one head: the token's, or the float64 sum over a gap's
                  tokens (so a gap's arrow is as wide as the weight it holds); they sum to the row's sum
    """
    amap: AttentionMap
    receiver: int
    entries: tuple[LineEntry, ...]
    chosen: tuple[int, ...]
    threshold: float

    def tokens(self) -> list[str]:
        return [self.amap.tokens[e.first] if not e.is_gap else "⋯" for e in self.entries]

    def index_of(self, position: int) -> int:
        """The entry holding story position `position`."""
        for k, e in enumerate(self.entries):
            if e.first <= position <= e.last:
                return k
        raise ValueError(f"position {position} is not in the receiver's window")

    def weights(self, model: str, head: int) -> np.ndarray:
        row = self.amap.model(model).heads[head, self.receiver]
        return np.array([math.fsum(float(row[j]) for j in range(e.first, e.last + 1)) for e in self.entries])

    def heaviest_gap(self, model: str, head: int) -> int | None:
        """The entry index of the folded gap holding the most of one head's weight (ties: the earlier),
        or None when nothing is folded: the box whose dashed arrow is drawn widest."""
        w = self.weights(model, head)
        gaps = [k for k, e in enumerate(self.entries) if e.is_gap]
        return max(gaps, key=lambda k: (w[k], -k)) if gaps else None


def story_line(amap: AttentionMap, receiver: int, heads, *, threshold: float = 0.05,
               max_entries: int = 18) -> StoryLine:
    """Which tokens of the receiver's window to draw, at most `max_entries` boxes.

    Every source with weight >= threshold in one of `heads` ((model, head) pairs) is shown, and the
    receiver; the tokens between them are folded into gaps, and the smallest gaps are unfolded again
    while the boxes fit (a one-token gap costs nothing to show; ties: the gap nearer the receiver first).
    When the chosen tokens alone need more boxes, the threshold rises by half until they fit."""
    if max_entries < 2:
        raise ValueError(f"a story line needs room for at least two boxes, got max_entries={max_entries}")
    heads = list(heads)
    window = amap.sources[receiver]
    lo = window[0]
    while True:
        chosen = {receiver} | {j for m, h in heads for j in window
                               if amap.model(m).heads[h, receiver, j] >= threshold}
        shown = sorted(chosen)
        gaps = []                                    # (first, last) runs of positions not chosen
        prev = lo - 1
        for j in shown:
            if j > prev + 1:
                gaps.append((prev + 1, j - 1))
            prev = j

        def count(folded):
            return len(shown) + sum(1 if g in folded else g[1] - g[0] + 1 for g in gaps)

        folded = set(gaps)
        for g in sorted(gaps, key=lambda g: (g[1] - g[0], -g[0])):
            trial = folded - {g}
            if count(trial) <= max_entries:
                folded = trial
        if count(folded) <= max_entries:
            break
        threshold *= 1.5
    entries = []
    for j in range(lo, receiver + 1):
        gap = next((g for g in folded if g[0] <= j <= g[1]), None)
        if gap is None:
            entries.append(LineEntry(j, j))
        elif j == gap[0]:
            entries.append(LineEntry(*gap))
    return StoryLine(amap, receiver, tuple(entries), tuple(shown), threshold)


@dataclass(frozen=True)
class HeadReading:
    """What one head does at the receiver, in the terms a sentence can say:
    kind  "repeated": its heaviest token occurs more than once and together gets the most weight;
          "spread": no source gets `spread_below` or more;  "single": one source stands out
    token, total, positions   the heaviest token (weights of its occurrences summed, float64) and where
    top, top_weight           its single largest source"""
    kind: str
    token: str
    total: float
    positions: tuple[int, ...]
    top: int
    top_weight: float


SPREAD_BELOW = 0.15


def head_reading(amap: AttentionMap, model: str, head: int, receiver: int,
                 spread_below: float = SPREAD_BELOW) -> HeadReading:
    sources, w = amap.receiver_row(model, head, receiver)
    totals: dict[str, list[float]] = {}
    for j, x in zip(sources, w):
        totals.setdefault(amap.tokens[j], []).append(float(x))
    token = max(totals, key=lambda t: (math.fsum(totals[t]), -min(j for j in sources if amap.tokens[j] == t)))
    positions = tuple(j for j in sources if amap.tokens[j] == token)
    total = math.fsum(totals[token])
    top, top_weight = amap.top(model, head, receiver, 1)[0]
    if top_weight < spread_below:
        kind = "spread"
    elif len(positions) > 1 and total > top_weight + spread_below:
        kind = "repeated"
    else:
        kind = "single"
    return HeadReading(kind, token, total, positions, top, top_weight)


def input_width(protocol: dict) -> int:
    """The baseline's input: the window's rows laid end to end (context × d_model: 64 × 64 = 4,096)."""
    return protocol["context"] * protocol["d_model"]


def head_width(protocol: dict) -> int:
    """Width of each of the multi-head model's heads (d_model / heads: 64 / 4 = 16)."""
    C, h = protocol["d_model"], protocol["n_heads_multi"]
    if C % h:
        raise ValueError(f"d_model {C} is not a multiple of the head count {h}")
    return C // h


# The trainer's class of each model (trainer/model.py), for the diagrams' fine print.
MODEL_CLASSES = {"mlp": "FixedWindowMLP", "one_head": "CausalAttentionLM", "four_heads": "MultiHeadAttentionLM"}


def value_range(values, max_ticks: int = 6) -> tuple[float, float, float]:
    """An axis (low, high, tick step) holding every value: the smallest step of 1, 2, 2.5 or 5 times a
    power of ten giving at most `max_ticks` intervals, ends on whole steps."""
    values = [float(v) for v in values]
    lo, hi = min(values), max(values)
    span = hi - lo
    if span <= 0:
        span = abs(hi) or 1.0
    step = None
    exponent = math.floor(math.log10(span / max_ticks))
    for e in (exponent, exponent + 1):
        for m in (1.0, 2.0, 2.5, 5.0):
            s = m * 10.0 ** e
            if step is None and span / s <= max_ticks:
                step = s
    low, high = math.floor(lo / step + 1e-9) * step, math.ceil(hi / step - 1e-9) * step
    if high - low < step:
        high = low + step
    return round(low, 12), round(high, 12), step


def tick_places(step: float) -> int:
    """Decimals a tick label needs to show its step exactly (1 -> 0, 0.2 -> 1, 0.02 -> 2, 0.025 -> 3)."""
    for places in range(6):
        if abs(round(step, places) - step) < 1e-9:
            return places
    return 6


def ranking(results: dict, key: str) -> list[str]:
    """The models from lowest to highest mean of `key` over their runs (e.g. the kept states'
    selection_loss, which results.json does not summarize)."""
    def mean(m):
        return math.fsum(r[key] for r in runs_of(results, m)) / len(runs_of(results, m))
    return sorted(models_in(results), key=mean)


def kept_early(results: dict, model: str) -> bool:
    """True when every run of `model` kept a state from before the last step (its selection loss
    rose again after its lowest point)."""
    steps = results["protocol"]["steps"]
    return all(r["selected_step"] < steps for r in runs_of(results, model))


def inset_columns(amap: AttentionMap, model: str, head: int, receiver: int, width: int = 4) -> tuple[int, ...]:
    """The `width` neighbouring sources to magnify from one row of the map: the last `width` ending at
    the receiver when they hold the row's largest weight, else `width` centred on it."""
    top = amap.top(model, head, receiver, 1)[0][0]
    first = amap.sources[receiver][0]
    if top > receiver - width:
        start = max(first, receiver - width + 1)
    else:
        start = max(first, top - width // 2)
    return tuple(range(start, min(receiver, start + width - 1) + 1))


READING_ORDER = {"spread": 0, "single": 1, "repeated": 2}


def head_order(amap: AttentionMap, model: str, receiver: int) -> list[int]:
    """The order to walk a model's heads in: heads that spread their weight first, then those with one
    clear source, the head whose weight gathers on a repeated token last (ties: head order)."""
    kinds = [head_reading(amap, model, h, receiver).kind for h in range(amap.model(model).n_heads)]
    return sorted(range(len(kinds)), key=lambda h: (READING_ORDER[kinds[h]], h))


def shown_parts_sum(parts, total: float) -> float | None:
    """What the rounded parts on screen add to, where that differs from the rounded full-precision total
    (e.g. 0.199 + 0.291 + 0.169 + 0.236 = 0.895 against a total shown as 0.894); None where they agree."""
    from lesson_data.walkthrough import rounded_parts_sum, rounding_shows_in_sum
    if not rounding_shows_in_sum(parts, total):
        return None
    return float(rounded_parts_sum(parts))


# ---------------------------------------------------------------------------------------------
# Scene 19's readings: the optimizer settings, the gap against the seeds, the two validation slices
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Optimizer:
    """One model's AdamW settings as the protocol ran them (config.lr / config.weight_decay per model)."""
    lr: float
    weight_decay: float


def optimizer_of(results: dict, model: str) -> Optimizer:
    p = results["protocol"]
    for key in ("lr", "weight_decay"):
        if not isinstance(p.get(key), dict) or model not in p[key]:
            raise ValueError(f"results.json: protocol.{key} has no entry for {model!r}")
    return Optimizer(float(p["lr"][model]), float(p["weight_decay"][model]))


def same_optimizer(results: dict, models) -> bool:
    """True when every model in `models` trained with the same learning rate and weight decay."""
    return len({optimizer_of(results, m) for m in models}) == 1


def decimal_places(value: float) -> int:
    """Places that show a setting such as 0.003 or 0.0001 exactly (its last non-zero decimal)."""
    for places in range(10):
        if abs(round(value, places) - value) < 1e-12:
            return places
    raise ValueError(f"{value} has no short decimal form")


def widest_spread_model(results: dict, models, key: str = "test_loss") -> str:
    """The model among `models` whose seeds spread widest (largest sample std): the one a gap "in
    standard deviations" is measured against, so a sentence can name it (ties: the first listed)."""
    stds = {m: spread(results, m, key).std for m in models}
    if any(s is None for s in stds.values()):
        raise ValueError("a spread across seeds needs two or more seeds per model")
    return max(stds, key=stds.__getitem__)                 # max keeps the first of equal values


def largest_std(results: dict, models, key: str = "test_loss") -> float:
    """The widest sample standard deviation across seeds among `models` (the seeds' own wobble)."""
    return spread(results, widest_spread_model(results, models, key), key).std


def gap_in_spreads(results: dict, better: str, worse: str, key: str = "test_loss") -> float:
    """How many times the widest seed spread (sample std) of the two models fits into their mean gap
    (round it for a sentence: "about eight times")."""
    return mean_gap(results, better, worse, key) / largest_std(results, (better, worse), key)


def kept_last(results: dict, model: str) -> list[int]:
    """The seeds of `model` whose kept state is the last step of the budget (still improving when the
    budget ran out)."""
    steps = results["protocol"]["steps"]
    return [r["seed"] for r in runs_of(results, model) if r["selected_step"] == steps]


def mean_of(results: dict, model: str, key: str) -> float:
    """The mean of a per-run number over the model's seeds (e.g. the kept states' selection_loss)."""
    runs = runs_of(results, model)
    return math.fsum(r[key] for r in runs) / len(runs)


@dataclass(frozen=True)
class Slices:
    """Where each loss is measured: the curves and the kept state's selection on the first
    `selection_windows` validation windows; the full validation split (`val_targets` windows) and the
    test split (`test_targets`) once, on the kept state. Per model means (selection, val, test)."""
    selection_windows: int
    val_targets: int
    test_targets: int
    means: dict            # model -> (selection_loss, val_loss, test_loss)

    def below_curve(self, model: str) -> float:
        """How far the test loss sits below the curve's kept point."""
        sel, _, test = self.means[model]
        return sel - test

    def full_val_to_test(self, model: str) -> float:
        """|full validation - test|: the two whole splits agree closely."""
        _, val, test = self.means[model]
        return abs(val - test)

    @property
    def selection_harder(self) -> bool:
        """For every model, the first `selection_windows` validation windows score a higher loss than the
        whole validation split: those windows are harder than the rest (why the curves sit above the
        test losses)."""
        return all(sel > val for sel, val, _ in self.means.values())


def loss_slices(results: dict) -> Slices:
    corpus = results["corpus"]["targets"]
    means = {m: (mean_of(results, m, "selection_loss"), spread(results, m, "val_loss").mean,
                 spread(results, m, "test_loss").mean) for m in models_in(results)}
    return Slices(int(results["protocol"]["selection_windows"]), int(corpus["val"]), int(corpus["test"]), means)


def timing_range(results: dict) -> tuple[str, float, float]:
    """The model whose seeds' wall times differ most, with its fastest and slowest run (seconds): the
    same work timed on a shared machine."""
    def width(m):
        t = [r["train_seconds"] for r in runs_of(results, m)]
        return max(t) - min(t)
    m = max(models_in(results), key=width)
    t = [r["train_seconds"] for r in runs_of(results, m)]
    return m, min(t), max(t)


def cpu_name(results: dict) -> str | None:
    """The processor named in the exported device string ("CPU (AMD EPYC), 2 threads" -> "AMD EPYC")."""
    names = {m.group(1) for r in results["runs"] for m in [re.search(r"CPU \(([^)]+)\)", r["device"])] if m}
    return names.pop() if len(names) == 1 else None


def cpu_threads(device: str) -> tuple[str, int] | None:
    """The processor and thread count of an exported device string ("CPU (AMD EPYC), 1 thread" ->
    ("AMD EPYC", 1)), so a sentence can say where a timing was measured; None for any other form."""
    m = re.fullmatch(r"CPU \(([^)]+)\), (\d+) threads?", device.strip())
    return (m.group(1), int(m.group(2))) if m else None


# ---------------------------------------------------------------------------------------------
# Scene 20's readings: what a sentence may say about the continuations and the latencies
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LatencyReading:
    """The median latencies read across models and prompts (milliseconds):
    baseline_margin  the smallest amount by which the baseline is faster than both attention models on
                     any prompt (None when it is not faster on every prompt)
    pair_gap         the largest gap between the two attention models on one prompt
    pair_spread      the smaller of the two attention models' own spread (max - min) across prompts
    same_speed       pair_gap < pair_spread: the attention models differ less than either varies"""
    baseline_margin: float | None
    pair_gap: float
    pair_spread: float

    @property
    def same_speed(self) -> bool:
        return self.pair_gap < self.pair_spread


def latency_reading(cont: "ContinuationSet", pair=("one_head", "four_heads")) -> LatencyReading:
    kinds = sorted({k for _, k in cont.runs})
    lat = {(m, k): cont.of(m, k).latency_ms_median for m, k in cont.runs}
    margins = [min(lat[(p, k)] for p in pair) - lat[("mlp", k)] for k in kinds if ("mlp", k) in lat]
    margin = min(margins) if margins and min(margins) > 0 else None
    gap = max(abs(lat[(pair[0], k)] - lat[(pair[1], k)]) for k in kinds)
    spread_ = min(max(lat[(p, k)] for k in kinds) - min(lat[(p, k)] for k in kinds) for p in pair)
    return LatencyReading(margin, gap, spread_)


def repeated_phrase(tokens, n: int = 3) -> tuple[str, ...] | None:
    """The first run of n words (tokens of letters only) that occurs twice in a continuation, or None."""
    seen = set()
    for k in range(len(tokens) - n + 1):
        gram = tuple(tokens[k:k + n])
        if not all(t.isalpha() for t in gram):
            continue
        if gram in seen:
            return gram
        seen.add(gram)
    return None


def repeaters(cont: "ContinuationSet", kind: str, n: int = 3) -> list[str]:
    """The models whose continuation of `kind` repeats a phrase of n tokens (lesson order)."""
    return [m for m in MODEL_ORDER if (m, kind) in cont.runs and repeated_phrase(cont.of(m, kind).tokens, n)]


def prompt_content_words(cont: "ContinuationSet", kind: str) -> list[str]:
    """The prompt's words as read that carry its topic: known (not <UNK>), letters only, four or more
    letters, in prompt order ("bank", "raised", "because" of the outside-domain prompt)."""
    out = []
    for t in cont.prompts[kind].tokens:
        if t != UNK_TOKEN and t.isalpha() and len(t) > 3 and t not in out:
            out.append(t)
    return out


def prompt_words_kept(cont: "ContinuationSet", kind: str, model: str) -> list[str]:
    """The prompt's content words that the model's continuation uses again."""
    return [w for w in prompt_content_words(cont, kind) if w in cont.of(model, kind).tokens]
