"""Per-row quantities the worksheet walk shows, derived from a computed `Head` (float64).

These live in the data layer, not in the scenes, so that scenes only display numbers:
  message_terms          each source's weighted value row (the scalar-vector products)
  unshifted_softmax_row  the softmax without subtracting the max (shown once: same weights)
  pool_attention_row     a row cut down to its largest sources plus "others"
  rounding_differences   where adding the displayed products would change a shown digit
  choose_walk_sources    which products the message walk writes out (top, sign, small weight)
  score_walk_sources     which scores the weights walk writes out
  rounded_parts_sum      what displayed parts add up to; rounding_shows_in_sum: whether it differs
  product_rounding_gaps  where a product differs from the product of the displayed factors
  value_axes             what each projected coordinate carries (water, finance, ...)
  lone_query_coordinate  the one non-zero coordinate of a query, when there is one (q² = [2.3, 0])
  read_message           a message's largest coordinate and the source it mostly comes from
  early_row_example      a receiver row to show the causal mask on
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from lesson_data.display import PLACES, fmt, places_for
from lesson_data.worksheet import AXES


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
    terms = message_terms(head, i)[: i + 1]
    return [k for k in range(terms.shape[1]) if rounding_shows_in_sum(terms[:, k], head.messages[i, k])]


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


# ---------------------------------------------------------------------------------------------
# The walk's choices: which sources to write out, what the rounding does, what a message carries.
# Decided here from the numbers, so the scenes only show them (and tests can check the choices).
# ---------------------------------------------------------------------------------------------


def shows_negative(x: float, places: int = PLACES) -> bool:
    """Does x read as a negative number on screen? (The display rule decides: -0.0004 shows 0.000.)"""
    return fmt(x, places).startswith("-")


def ranked_sources(weights, i: int) -> list[int]:
    """Receiver i's readable sources 0..i, largest weight first (equal weights: the earlier source)."""
    w = np.asarray(weights, dtype=float).ravel()
    return sorted(range(i + 1), key=lambda j: (-w[j], j))


def score_walk_sources(head, i: int, count: int = 1) -> list[int]:
    """The sources whose score the weights walk writes out: the one that wins the softmax first,
    then the receiver itself (a source of its own)."""
    top = ranked_sources(head.weights[i], i)[0]
    return ([top] + ([i] if i != top else []))[:count]


@dataclass(frozen=True)
class WalkedSource:
    """One source whose scalar–vector product the message walk writes out.

    j: zero-based source; reasons: what it shows — "top" (the largest weight), "sign" (a value
    coordinate below zero gives a product below zero: the sign comes from the value), "small" (a
    weight below an even share, 1 / (i + 1), on a value with no zero coordinate: the whole vector
    shrinks)."""

    j: int
    reasons: tuple[str, ...]


def _product_shows_negative(head, i: int, j: int) -> bool:
    return any(shows_negative(p) for p in head.weights[i, j] * head.V[j])


def choose_walk_sources(head, i: int, count: int = 3) -> list[WalkedSource]:
    """Which sources the message walk expands, largest weight first: the top source; then, unless
    the top source already shows it, a source whose product has a coordinate that reads negative
    (the most negative such product); then a small weight on a value row with every coordinate
    non-zero (the largest smallest coordinate, so every coordinate visibly shrinks). At most `count`."""
    w, V = head.weights[i], head.V
    ranked = ranked_sources(w, i)
    top = ranked[0]
    chosen = [WalkedSource(top, ("top", "sign") if _product_shows_negative(head, i, top) else ("top",))]
    if not _product_shows_negative(head, i, top):
        signed = [j for j in ranked[1:] if _product_shows_negative(head, i, j)]
        if signed:
            j = min(signed, key=lambda j: (min(w[j] * V[j]), j))
            chosen.append(WalkedSource(j, ("sign",)))
    taken = {c.j for c in chosen}
    even = 1.0 / (i + 1)
    small = [j for j in ranked if j not in taken and w[j] < even and np.all(V[j] != 0.0)]
    if small:
        j = max(small, key=lambda j: (float(np.min(np.abs(V[j]))), w[j], -j))
        chosen.append(WalkedSource(j, ("small",)))
    return chosen[:count]


def rounded_parts_sum(values, places: int = PLACES) -> Decimal:
    """What the *displayed* parts add up to, exactly (decimal arithmetic on the shown digits)."""
    return sum((Decimal(fmt(x, places)) for x in np.asarray(values, dtype=float).ravel()), Decimal(0))


def rounding_shows_in_sum(values, total: float, places: int = PLACES) -> bool:
    """Would adding the displayed parts give other digits than the displayed full-precision total?"""
    return rounded_parts_sum(values, places) != Decimal(fmt(total, places))


@dataclass(frozen=True)
class ProductRounding:
    """A product whose displayed value differs from the product of the displayed factors:
    exact = α·v_k unrounded (what the lesson shows, rounded once); from_shown = (α as shown) ×
    (v_k as shown), what a calculator gives from the screen, exact in `from_shown_places` decimals."""

    coordinate: int
    exact: float
    from_shown: float
    from_shown_places: int


def product_rounding_gaps(alpha: float, value, places: int = PLACES,
                          value_places: int | None = None) -> list[ProductRounding]:
    """The coordinates where fmt(α·v_k) differs from fmt(shown α × shown v_k)."""
    value = np.asarray(value, dtype=float).ravel()
    vp = places_for(value) if value_places is None else value_places
    gaps = []
    for k, v in enumerate(value):
        exact = float(alpha) * float(v)
        from_shown = float(Decimal(fmt(alpha, places)) * Decimal(fmt(v, vp)))
        if fmt(exact, places) != fmt(from_shown, places):
            gaps.append(ProductRounding(k, exact, from_shown, places + vp))
    return gaps


def lone_query_coordinate(q) -> int | None:
    """The index of a query's only non-zero coordinate, else None. Then every score q·k is that
    number times the key's same coordinate (head 2's q² = [2.3, 0.0]: 2.3 × the person key)."""
    nonzero = np.flatnonzero(np.asarray(q, dtype=float))
    return int(nonzero[0]) if len(nonzero) == 1 else None


def value_axes(W, axes=AXES) -> list[str | None]:
    """What each coordinate of a projection carries: the one input axis its column copies (a
    single non-zero entry), else None. W_V¹ = [[1,0],[0,1],[0,0],[0,0]] -> ["water", "finance"]."""
    W = np.asarray(W, dtype=float)
    names = []
    for c in range(W.shape[1]):
        rows = np.flatnonzero(W[:, c])
        names.append(axes[int(rows[0])] if len(rows) == 1 else None)
    return names


@dataclass(frozen=True)
class MessageReading:
    """What receiver i's message mostly holds: its largest coordinate (by magnitude), the source
    whose product contributes most to that coordinate, and that product's share of it."""

    coordinate: int
    source: int
    share: float

    @property
    def mostly_one_source(self) -> bool:
        """More than half of the coordinate comes from that one source."""
        return self.share > 0.5


def read_message(head, i: int) -> MessageReading:
    m = head.messages[i]
    k = int(np.argmax(np.abs(m)))
    terms = message_terms(head, i)[: i + 1, k]
    j = int(np.argmax(terms * np.sign(m[k]) if m[k] != 0 else np.abs(terms)))
    share = float(terms[j] / m[k]) if m[k] != 0 else 0.0
    return MessageReading(k, j, share)


def early_row_example(n: int) -> int | None:
    """A receiver row (zero-based) to show the causal mask on: row 3 when there are at least four
    tokens, else the second-to-last row; None when no source is ever blocked (one token)."""
    if n < 2:
        return None
    return min(2, n - 2)


def keys_equal_values(head) -> bool:
    """W_K and W_V hold equal entries (separate parameters all the same: the notes say so on screen)."""
    return bool(np.array_equal(head.W_K, head.W_V))


@dataclass(frozen=True)
class DifferingRun:
    """Consecutive receiver rows (first..last, zero-based) where two heads put their largest weight
    on different sources, each head on one source all along: `source_a` for the first head,
    `source_b` for the second."""

    first: int
    last: int
    source_a: int
    source_b: int


def heads_differ_runs(weights_a, weights_b) -> list[DifferingRun]:
    """Where two heads' attention matrices disagree about each receiver's top source (the causal
    rows: receiver i reads sources 0..i; equal weights go to the earlier source), grouped into runs
    of consecutive rows with the same pair of top sources. Rows where both heads peak on the same
    source are left out: they do not show the heads spreading their weight differently."""
    a, b = np.asarray(weights_a, dtype=float), np.asarray(weights_b, dtype=float)
    if a.shape != b.shape or a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise ValueError(f"need two square matrices of one shape, got {a.shape} and {b.shape}")
    runs: list[DifferingRun] = []
    for i in range(a.shape[0]):
        ta, tb = ranked_sources(a[i], i)[0], ranked_sources(b[i], i)[0]
        if ta == tb:
            continue
        last = runs[-1] if runs else None
        if last is not None and last.last == i - 1 and (last.source_a, last.source_b) == (ta, tb):
            runs[-1] = DifferingRun(last.first, i, ta, tb)
        else:
            runs.append(DifferingRun(i, i, ta, tb))
    return runs


def settled_split(weights_a, weights_b, margin: float = 0.05) -> DifferingRun | None:
    """The rows, up to the last one, where two heads have settled on different top sources: the run
    of `heads_differ_runs` that reaches the final row, starting at its first row where each head's
    top weight leads its runner-up by at least `margin` (a row where a head spreads its weight almost
    evenly does not yet "favour" a source). None when the heads agree on the last row, or when no
    row of that run shows both leads."""
    a, b = np.asarray(weights_a, dtype=float), np.asarray(weights_b, dtype=float)
    runs = heads_differ_runs(a, b)
    if not runs or runs[-1].last != a.shape[0] - 1:
        return None
    run = runs[-1]

    def lead(row, i) -> float:
        ranked = ranked_sources(row, i)
        return float("inf") if len(ranked) < 2 else float(row[ranked[0]] - row[ranked[1]])

    for i in range(run.first, run.last + 1):
        if lead(a[i], i) >= margin and lead(b[i], i) >= margin:
            return DifferingRun(i, run.last, run.source_a, run.source_b)
    return None


@dataclass(frozen=True)
class EarlierFavourite:
    """Why a head favours another source before its last row's favourite exists: `source` (zero-based)
    has the largest key coordinate `coordinate` among the sources before `top` (the last row's
    favourite, whose key is largest on that coordinate), `value` that key entry, and `source` is
    the top source of the row just before `top`'s own row."""

    source: int
    top: int
    coordinate: int
    value: float


def earlier_favourite(head) -> EarlierFavourite | None:
    """For the head's last receiver row: its top source `top`; the key coordinate where `top`'s key
    is largest; among sources 0..top-1, the one with the largest entry there. Returned only when that
    source is also what row top-1 (the last row before `top` arrives) puts most weight on, so the
    picture shows it; None otherwise (top is the first source, or the rows say something else)."""
    weights, K = np.asarray(head.weights, dtype=float), np.asarray(head.K, dtype=float)
    last = weights.shape[0] - 1
    top = ranked_sources(weights[last], last)[0]
    if top == 0:
        return None
    c = int(np.argmax(K[top]))
    earlier = int(np.argmax(K[:top, c]))          # ties: the earlier source
    if ranked_sources(weights[top - 1], top - 1)[0] != earlier:
        return None
    return EarlierFavourite(earlier, top, c, float(K[earlier, c]))
