"""What a projection reads, decided from its numbers (scenes 7 and 16 draw these; nothing here draws).

    axes_read(W_K1)                 -> ("water", "finance")       the rows with a non-zero entry
    copied_axes(W_K1)               -> ("water", "finance")       each output column copies one axis
    dot_terms(e_row, W_Q1[:, 0])    -> four DotTerm(axis, e, w, product, counts)
    shown_rows(20)                  -> [0, 1, 2, 3, None, 15, ..., 19]  at most ten rows, None = "⋮"
    most_shifted_source(bias)       -> zero-based source whose weight the bias moves most
    bias_score_terms(bias)          -> what the bias adds to each source's score: b_Q · k_j
    extreme_of(terms, j)            -> "most" / "least" / None: where source j's term stands
    change_word(6.9, 7.53)          -> "rises"                    how a sentence says it moved
    listed_rows(a, b)               -> the sources a weight table lists, the rest pooled as "others"
    offset_heads(4, 2)              -> (1, 1, 2, 2)               the head each bias offset belongs to
    rows_sharing_token(tokens, 9)   -> (0, 4, 9)                  the rows whose token is token 9's

Row-vector convention: a [4, d] projection W maps a row e (one value per axis) to e · W. Pure
numpy, no Manim; the worksheet's hand-chosen matrices are in lesson_data.worksheet.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lesson_data.worksheet import AXES


def axes_read(W, axes=AXES) -> tuple[str, ...]:
    """The input axes a [len(axes), d] projection reads: the rows with any non-zero entry."""
    W = np.asarray(W, dtype=float)
    if W.ndim != 2 or W.shape[0] != len(axes):
        raise ValueError(f"need a [{len(axes)}, d] projection, got shape {W.shape}")
    return tuple(a for a, row in zip(axes, W) if np.any(row != 0.0))


def copied_axes(W, axes=AXES) -> tuple[str, ...] | None:
    """When every output column of W is a one-hot column (a single 1, zeros elsewhere), e · W copies
    one input axis into each output coordinate: the axis of each column, in column order. Else None
    (the projection mixes axes, and a picture of columns sliding over would be wrong)."""
    W = np.asarray(W, dtype=float)
    if W.ndim != 2 or W.shape[0] != len(axes):
        raise ValueError(f"need a [{len(axes)}, d] projection, got shape {W.shape}")
    picked = []
    for k in range(W.shape[1]):
        column = W[:, k]
        ones = np.flatnonzero(column == 1.0)
        if len(ones) != 1 or np.count_nonzero(column) != 1:
            return None
        picked.append(axes[int(ones[0])])
    return tuple(picked)


def unused_by_query(q, names) -> tuple[str, ...]:
    """The key coordinates a query gives exactly zero: `names[k]` where q[k] == 0. Each score is
    q · k, so those key coordinates move none of this receiver's scores (they may still reach the
    message through the values)."""
    q = np.asarray(q, dtype=float)
    if q.ndim != 1 or len(q) != len(names):
        raise ValueError(f"need one name per query coordinate: {len(names)} names for shape {q.shape}")
    return tuple(name for name, v in zip(names, q) if v == 0.0)


@dataclass(frozen=True)
class DotTerm:
    """One term e[i] × w[i] of a dot product; `counts` is False when the product is exactly zero."""

    axis: str
    e: float
    w: float
    product: float
    counts: bool


def dot_terms(row, column, axes=AXES) -> list[DotTerm]:
    """The terms of row · column, one per axis (the sum is the caller's array entry, computed once
    in the data layer; these terms only show where it comes from)."""
    row = np.asarray(row, dtype=float).ravel()
    column = np.asarray(column, dtype=float).ravel()
    if row.shape != column.shape or len(row) != len(axes):
        raise ValueError(f"row {row.shape} and column {column.shape} must both have {len(axes)} entries")
    return [DotTerm(a, float(e), float(w), float(e * w), bool(e * w != 0.0))
            for a, e, w in zip(axes, row, column)]


def shown_rows(n: int, most: int = 10) -> list[int | None]:
    """The rows of an [n, ·] table that fit on screen: all of them when n <= most; else the first
    few, None (drawn "⋮"), and the last rows, the receiver among them: `most` slots in all."""
    if n < 1 or most < 3:
        raise ValueError(f"need n >= 1 and most >= 3, got n={n}, most={most}")
    if n <= most:
        return list(range(n))
    head = (most - 1) // 2
    tail = most - 1 - head
    return [*range(head), None, *range(n - tail, n)]


def most_shifted_source(bias) -> int:
    """Zero-based source whose receiver weight the query bias moves most (ties: the earlier)."""
    shift = np.abs(np.asarray(bias.weights_with, dtype=float) - np.asarray(bias.weights_without, dtype=float))
    return int(np.argmax(shift))


def bias_score_terms(bias) -> np.ndarray:
    """What a query bias adds to each source's score (before the ÷√d): (q + b_Q) · k_j - q · k_j
    = b_Q · k_j, one per source [n]. It differs by source because the keys do: the bias favours
    the sources whose keys point its way (river's, with the most water, for b_Q¹ = [0.2, -0.1])."""
    return np.asarray(bias.keys, dtype=float) @ np.asarray(bias.b_Q, dtype=float)


def extreme_of(values, j: int) -> str | None:
    """"most" when values[j] is the largest (ties: the earlier source), "least" when the smallest,
    else None: how a sentence ranks one source's term among all of them."""
    values = np.asarray(values, dtype=float)
    return "most" if int(np.argmax(values)) == j else "least" if int(np.argmin(values)) == j else None


@dataclass(frozen=True)
class ListedRows:
    """Which sources a weight table lists one per row, and the rest pooled into one "others" row."""

    listed: tuple[int, ...]            # zero-based sources, in position order
    pooled: tuple[int, ...]            # the others, in position order (empty when all are listed)
    pooled_sums: tuple[float, ...]     # fsum of each weight row over the pooled sources


def listed_rows(*weight_rows, most: int = 10, keep=()) -> ListedRows:
    """For a table of one or more weight rows over the same n sources: all sources when n <= most;
    else the most - 1 sources with the largest weight in any of the rows (ties: the earlier source),
    listed in position order, and the rest pooled into one row whose sums are the full-precision
    sums of their weights (so the table's column still sums to one). Sources in `keep` are always
    listed (the one a sentence talks about)."""
    rows = [np.asarray(w, dtype=float).ravel() for w in weight_rows]
    n = len(rows[0])
    if any(len(w) != n for w in rows) or most < 2:
        raise ValueError("weight rows of equal length and most >= 2 needed")
    if n <= most:
        return ListedRows(tuple(range(n)), (), ())
    peak = np.max(np.vstack(rows), axis=0)
    order = sorted(range(n), key=lambda j: (j not in keep, -peak[j], j))
    listed = tuple(sorted(order[:most - 1]))
    pooled = tuple(j for j in range(n) if j not in listed)
    sums = tuple(math.fsum(w[j] for j in pooled) for w in rows)
    return ListedRows(listed, pooled, sums)


def change_word(before: float, after: float) -> str:
    """How a sentence says a number moved: "rises", "falls" or "stays" (exactly equal)."""
    return "rises" if after > before else "falls" if after < before else "stays"


def offset_heads(d_model: int, num_heads: int) -> tuple[int, ...]:
    """The (one-based) head each of the d_model query, key or value offsets belongs to: PyTorch
    splits each projection's output coordinates into num_heads consecutive slices."""
    if num_heads < 1 or d_model % num_heads:
        raise ValueError(f"d_model={d_model} is not divisible by num_heads={num_heads}")
    width = d_model // num_heads
    return tuple(1 + k // width for k in range(d_model))


def rows_sharing_token(tokens, j: int, shown=None) -> tuple[int, ...]:
    """The zero-based rows whose token equals token j's (j among them), in order; with `shown`,
    only the rows on screen (None entries, drawn "⋮", are skipped). One token, one token row: where
    these rows of E differ, the position rows made the difference (E is position-aware)."""
    tokens = list(tokens)
    if not 0 <= j < len(tokens):
        raise ValueError(f"row {j} is outside a {len(tokens)}-token prefix")
    rows = [i for i, t in enumerate(tokens) if t == tokens[j]]
    if shown is not None:
        visible = {r for r in shown if r is not None}
        rows = [i for i in rows if i in visible]
    return tuple(rows)


def differing_columns(matrix, rows, places: int) -> tuple[int, ...]:
    """The columns where the given rows of `matrix` do not all read the same at `places` decimals
    (what a viewer sees differ), in order; one row or none differs nowhere."""
    rows = list(rows)
    if len(rows) < 2:
        return ()
    m = np.asarray(matrix, dtype=float)
    shown = np.round(m[rows], places)
    return tuple(int(c) for c in range(m.shape[1]) if len(set(shown[:, c].tolist())) > 1)


__all__ = ["axes_read", "copied_axes", "DotTerm", "dot_terms", "shown_rows", "most_shifted_source",
           "ListedRows", "listed_rows", "change_word", "offset_heads",
           "rows_sharing_token", "differing_columns"]
