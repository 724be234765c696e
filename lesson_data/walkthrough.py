"""Per-row quantities the worksheet walk shows, derived from a computed `Head` (float64).

These live in the data layer, not in the scenes, so that scenes only display numbers:
  message_terms          each source's weighted value row (the scalar-vector products)
  unshifted_softmax_row  the softmax without subtracting the max (shown once: same weights)
  pool_attention_row     a row cut down to its largest sources plus "others"
  rounding_differences   where adding the displayed products would change a shown digit
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lesson_data.display import fmt


def message_terms(head, i: int) -> np.ndarray:
    """[n, d_v]: row i's weight of each source times that source's value row (unrounded α·v).
    Their sum over sources is row i of H = AV (the head's message)."""
    return head.weights[i][:, None] * head.V


def unshifted_softmax_row(head, i: int) -> tuple[np.ndarray, float, np.ndarray]:
    """exp(s) / Σ exp(s) over the permitted sources 1..i+1 of row i, *without* subtracting the max:
    (exps, denominator, weights). Dividing numerator and denominator by the same exp(max) leaves the
    weights unchanged. (Safe here: the toy's scores are small.)"""
    s = head.scaled[i, : i + 1]
    exps = np.exp(s)
    denominator = math.fsum(exps)
    return exps, denominator, exps / denominator


def rounding_differences(head, i: int) -> list[int]:
    """The message coordinates where adding the *displayed* (rounded) products gives other digits
    than the full-precision sum that is shown."""
    shown = [[float(fmt(x)) for x in row] for row in message_terms(head, i)[: i + 1]]
    added = [fmt(math.fsum(col)) for col in zip(*shown)]
    return [k for k, (a, m) in enumerate(zip(added, head.messages[i])) if a != fmt(m)]


@dataclass(frozen=True)
class PooledRow:
    """One attention row cut down to its largest sources plus "others".

    top: zero-based source indices, largest weight first (equal weights: the earlier source);
    others: the full-precision sum (math.fsum) of every remaining weight; total: fsum of all.
    display_ties: remaining sources whose weight *shows* the same as the last top one, so a scene
    can say that the cut fell inside a tie instead of hiding an equal source in "others".
    """

    top: tuple[int, ...]
    top_weights: tuple[float, ...]
    others: float
    n_others: int
    total: float
    display_ties: tuple[int, ...]

    @property
    def segments(self) -> list[float]:
        """The pieces of the row's stacked bar: the top weights, then others."""
        return [*self.top_weights, self.others]


def pool_attention_row(weights, top: int = 2) -> PooledRow:
    """The `top` largest weights of one attention row and the sum of the rest."""
    w = np.asarray(weights, dtype=float).ravel()
    if not 0 < top < len(w):
        raise ValueError(f"top must be between 1 and {len(w) - 1} for a row of {len(w)} weights, got {top}")
    order = sorted(range(len(w)), key=lambda j: (-w[j], j))
    chosen = tuple(order[:top])
    rest = [j for j in range(len(w)) if j not in chosen]
    last_shown = fmt(w[chosen[-1]])
    return PooledRow(
        top=chosen,
        top_weights=tuple(float(w[j]) for j in chosen),
        others=math.fsum(w[j] for j in rest),
        n_others=len(rest),
        total=math.fsum(w),
        display_ties=tuple(j for j in rest if fmt(w[j]) == last_shown),
    )
