"""What chapter 2's joining scenes (12-15) decide from the numbers, in float64 (no Manim).

The scenes only lay these out; every choice that depends on the numbers is made here, with tests:

  carried_axes          what each value (message) coordinate carries: W_V copies "water" into it
  dominant_axis         which carried coordinate of a row is largest ("water" for river's head 1)
  strongest_source      a head's most-read source at the receiver (ties: the earlier source)
  contrast_sources      the two sources the wide-head walk follows (river and fisherman)
  score_split           one source's score in each head, their sum in the wide head, the weights
  score_story           the followed sources, who leads in head 1 and who in the wide head
  change_word           "rises" / "falls" / "stays at", judged on the displayed digits
  pool_on_sources       an attention row shown as named sources plus "others" (the rest pooled)
  sum_of_shown          what the displayed (rounded) parts add up to (1.003 for the probabilities)
  off_carrier_entries   the W_O entries that write a head coordinate into another axis (mixing)
  relu_zeroed           the hidden units ReLU sets to zero
  word_groups           the sentence words and the candidate next words, as vocabulary indices
  shown_rows            which rows of an [n, 4] table fit a screen (the last ones: the receiver's)
  same_receiver_rows    whether two worksheets give the receiver the same q, k and v
  unchanged_sources     the positions two sentences share word for word (same E row: same keys, values)
  largest_update_axis   the axis the update ΔE moves most in the receiver's row (water for river)
  averaged_attention    the heads' weight grids averaged (what average_attn_weights=True returns)
  axis_ticks            which positions label a heat map's axes (all, or every fifth and the last)
  closest_head          which narrow head's weights the wide head's lie closer to (over the followed sources)
  runner_up_source      a head's second most-read source at the receiver (ties: the earlier source)
  mixed_axes            the axes W_O writes another head coordinate into (water: a quarter of person)
  update_terms          the products that make one coordinate of the receiver's update Δe
  logit_terms           the hidden units' products that make one word's logit (water: 1.5 · h₁ + …)
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lesson_data.display import fmt, places_for
from lesson_data.walkthrough import ranked_sources
from lesson_data.worksheet import AXES, CANDIDATES, VOCAB


def carried_axes(W_V, axes=AXES) -> tuple[str, ...]:
    """The input axes each value coordinate copies: one name per column of W_V [4, d].

    A column reading one axis carries that axis ("water"); one reading several carries their
    names joined with "+"; an all-zero column carries nothing ("-").
    """
    W_V = np.asarray(W_V, dtype=float)
    names = []
    for k in range(W_V.shape[1]):
        read = [axes[i] for i in range(W_V.shape[0]) if W_V[i, k] != 0]
        names.append("+".join(read) if read else "-")
    return tuple(names)


def dominant_axis(vector, names) -> str:
    """The name of the largest coordinate (by absolute value; ties: the first)."""
    v = np.abs(np.asarray(vector, dtype=float).ravel())
    return names[int(np.argmax(v))]


def strongest_source(weights) -> int:
    """Zero-based source with the largest weight (ties: the earlier source)."""
    w = np.asarray(weights, dtype=float).ravel()
    return int(np.argmax(w))          # argmax returns the first of equal maxima


def contrast_sources(ws) -> tuple[int, ...]:
    """The sources the wide-head comparison follows at the receiver, zero-based: head 1's
    strongest source, then the wide head's strongest; when that is the same source, the one whose
    weight the wide head raises most (ties: the earlier). A one-token prefix has one source."""
    h1 = ws.heads[0].weights[-1]
    wide = ws.wide_head.weights[-1]
    first = strongest_source(h1)
    if len(h1) == 1:
        return (first,)
    second = strongest_source(wide)
    if second == first:
        gain = np.array(wide - h1, dtype=float)
        gain[first] = -np.inf
        second = int(np.argmax(gain))
    return (first, second)


@dataclass(frozen=True)
class ScoreSplit:
    """One source's score at the receiver: each narrow head's raw dot product, their sum (the wide
    head's raw score: its query and key are the two heads' side by side), each scaled score and
    the weights after each softmax."""

    source: int                            # zero-based
    head_scores: tuple[float, float]       # q¹·k¹ⱼ, q²·k²ⱼ
    wide_score: float                      # q·kⱼ of the wide head = the sum of the two
    head_scaled: tuple[float, float]       # each ÷ √2
    wide_scaled: float                     # ÷ √4
    head_weights: tuple[float, float]
    wide_weight: float


def score_split(ws, j: int) -> ScoreSplit:
    h1, h2 = ws.heads
    wide = ws.wide_head
    return ScoreSplit(
        source=j,
        head_scores=(float(h1.scores[-1, j]), float(h2.scores[-1, j])),
        wide_score=float(wide.scores[-1, j]),
        head_scaled=(float(h1.scaled[-1, j]), float(h2.scaled[-1, j])),
        wide_scaled=float(wide.scaled[-1, j]),
        head_weights=(float(h1.weights[-1, j]), float(h2.weights[-1, j])),
        wide_weight=float(wide.weights[-1, j]),
    )


@dataclass(frozen=True)
class ScoreStory:
    """The walk of scene 12: the followed sources' splits, the sources in order of their head-1
    weight and of their wide-head weight (ties: the earlier source), and whether the leader changed."""

    splits: tuple[ScoreSplit, ...]
    head1_order: tuple[int, ...]
    wide_order: tuple[int, ...]

    @property
    def flipped(self) -> bool:
        return self.head1_order[0] != self.wide_order[0]


def score_story(ws) -> ScoreStory:
    sources = contrast_sources(ws)
    splits = tuple(score_split(ws, j) for j in sources)
    by = lambda key: tuple(s.source for s in sorted(splits, key=lambda s: (-key(s), s.source)))  # noqa: E731
    return ScoreStory(splits, by(lambda s: s.head_weights[0]), by(lambda s: s.wide_weight))


def change_word(before: float, after: float, places: int = 3) -> str:
    """How a shown number moved: "rises", "falls", or "stays at" when the display is the same."""
    if fmt(before, places) == fmt(after, places):
        return "stays at"
    return "rises" if after > before else "falls"


@dataclass(frozen=True)
class SourceRow:
    """One attention row shown as a few named sources plus "others".

    sources: the named sources (zero-based), in the order given; shown: their weights;
    others: math.fsum of every remaining weight; n_others: how many; largest_other: the remaining
    source with the largest weight (ties: the earlier; None when nothing remains), and its weight;
    total: math.fsum of the whole row.
    """

    sources: tuple[int, ...]
    shown: tuple[float, ...]
    others: float
    n_others: int
    largest_other: int | None
    largest_other_weight: float
    total: float

    @property
    def segments(self) -> list[float]:
        """The pieces of the row's stacked bar: the named sources, then others."""
        return [*self.shown, self.others]


def pool_on_sources(weights, sources) -> SourceRow:
    """The row's weights on `sources` (the same sources for every row of a table, so a column
    always means one source) and the rest pooled into "others"."""
    w = np.asarray(weights, dtype=float).ravel()
    sources = tuple(int(j) for j in sources)
    if not sources or len(set(sources)) != len(sources) or not all(0 <= j < len(w) for j in sources):
        raise ValueError(f"sources must be distinct positions of a row of {len(w)}, got {sources}")
    rest = [j for j in range(len(w)) if j not in sources]
    largest = max(rest, key=lambda j: (w[j], -j)) if rest else None
    return SourceRow(
        sources=sources,
        shown=tuple(float(w[j]) for j in sources),
        others=math.fsum(w[j] for j in rest),
        n_others=len(rest),
        largest_other=largest,
        largest_other_weight=float(w[largest]) if rest else 0.0,
        total=math.fsum(w),
    )


def sum_of_shown(values, places: int | None = None) -> float:
    """What the displayed parts add up to: each value rounded as the screen shows it (fmt with
    `places`, default the values' own precision), then summed. 1.003 for river's twenty
    probabilities, whose full-precision sum is 1."""
    values = np.asarray(values, dtype=float).ravel()
    places = places_for(values) if places is None else places
    return math.fsum(float(fmt(v, places)) for v in values)


def off_carrier_entries(W_O, carried) -> list[tuple[int, int]]:
    """Entries (i, j) of W_O [joined coordinates, axes] that write joined coordinate i into an
    axis other than the one it carries (`carried[i]`, e.g. head 2's "person" into "water"):
    where W_O mixes instead of putting each coordinate back on its own axis."""
    W_O = np.asarray(W_O, dtype=float)
    return [(i, j) for i in range(W_O.shape[0]) for j in range(W_O.shape[1])
            if W_O[i, j] != 0 and AXES[j] != carried[i]]


def relu_zeroed(pre_activation) -> list[int]:
    """Hidden units whose pre-activation is negative: ReLU sets them to zero."""
    return [u for u, v in enumerate(np.asarray(pre_activation, dtype=float)) if v < 0]


def word_groups() -> tuple[list[int], list[int]]:
    """(the sentence words, the candidate next words) as vocabulary indices, in vocabulary order."""
    candidates = [VOCAB.index(w) for w in CANDIDATES]
    return [i for i in range(len(VOCAB)) if i not in candidates], candidates


def shown_rows(n: int, most: int = 10) -> list[int]:
    """Rows (zero-based) of an [n, 4] table that a screen shows: all of them up to `most`, else the
    last `most`, which end with the receiver's row."""
    if n < 1 or most < 1:
        raise ValueError(f"need n >= 1 and most >= 1, got n={n}, most={most}")
    return list(range(max(0, n - most), n))


def same_receiver_input(a, b) -> bool:
    """True when both worksheets give the receiver the same row of E (same token, same position): then
    the residual adds the same row to both, and every difference in e′ came in through attention."""
    return bool(np.array_equal(a.E[-1], b.E[-1]))


def same_receiver_rows(a, b) -> bool:
    """True when both worksheets give the receiver identical q, k and v in both heads."""
    return all(np.array_equal(getattr(ha, f)[-1], getattr(hb, f)[-1])
               for ha, hb in zip(a.heads, b.heads) for f in ("Q", "K", "V"))


def largest_update_axis(ws) -> int:
    """The axis (index into AXES) where attention's update ΔE changes the receiver's row most (by
    magnitude; ties: the earlier axis): river's ΔE₁₀ = [3.005, -0.018, 1.552, 0.538] -> 0, water."""
    return int(np.argmax(np.abs(np.asarray(ws.delta_E[-1], dtype=float))))


def unchanged_sources(a, b) -> list[int]:
    """Positions (zero-based) where two worksheets' rows of E are equal: the same word at the same
    place, so every head's key and value there are the same too (cheque and river share 6-9,
    "bank and watched the"). Only positions both sentences have are compared."""
    n = min(len(a.E), len(b.E))
    return [j for j in range(n) if np.array_equal(a.E[j], b.E[j])]


__all__ = [
    "unchanged_sources", "largest_update_axis", "carried_axes", "dominant_axis", "strongest_source", "contrast_sources", "ScoreSplit", "score_split",
    "ScoreStory", "score_story", "same_receiver_input",
    "change_word", "SourceRow", "pool_on_sources", "sum_of_shown", "off_carrier_entries", "relu_zeroed",
    "word_groups", "shown_rows", "same_receiver_rows", "runner_up_source", "mixed_axes", "UpdateTerm",
    "update_terms", "MixtureTerm", "leading_terms", "coordinate_terms", "put_back_update",
]


def averaged_attention(ws) -> np.ndarray:
    """What nn.MultiheadAttention returns with average_attn_weights=True: the heads' [n, n] weight
    grids averaged cell by cell (a diagnostic only; the messages are mixed per head either way)."""
    return np.mean(np.stack([np.asarray(h.weights, dtype=float) for h in ws.heads]), axis=0)


def axis_ticks(n: int, most: int = 10) -> list[int]:
    """Which positions (zero-based) label a heat map's axes: all of them for n <= most, else every
    fifth position (1, 5, 10, …) and the last, so the labels stay legible."""
    if n <= most:
        return list(range(n))
    ticks = [0] + list(range(4, n, 5))
    return ticks if ticks[-1] == n - 1 else ticks + [n - 1]


def closest_head(splits) -> int:
    """Which narrow head's weights (1 or 2) the wide head's weights lie closer to, over the followed
    sources (sum of absolute differences; a tie goes to head 1)."""
    d = [math.fsum(abs(s.wide_weight - s.head_weights[h]) for s in splits) for h in (0, 1)]
    return 1 if d[0] <= d[1] else 2


def runner_up_source(weights) -> int:
    """Zero-based source with the second-largest weight (ties: the earlier source); needs two sources."""
    w = np.asarray(weights, dtype=float).ravel()
    if len(w) < 2:
        raise ValueError("a runner-up needs at least two sources")
    return ranked_sources(w, len(w) - 1)[1]


def mixed_axes(ws) -> list[int]:
    """The axes (indices into AXES) that W_O writes a joined coordinate into other than the one it
    carries: [0] (water, which gets a quarter of head 2's person) for the lesson's W_O."""
    carried = carried_axes(np.hstack([h.W_V for h in ws.heads]))
    return sorted({j for _, j in off_carrier_entries(ws.W_O, carried)})


@dataclass(frozen=True)
class UpdateTerm:
    """One product in Δe[axis] = Σᵢ [m¹ | m²]ᵢ · W_O[i, axis]: the receiver's joined message entry i
    times W_O's entry (i, axis)."""
    joined: int
    message: float
    weight: float


def update_terms(ws, axis: int) -> list[UpdateTerm]:
    """The nonzero products that make the receiver's update at `axis`, in joined order: for river's
    water, 2.617 (m¹ water) · 1 and 1.552 (m² person) · 0.25, which add to Δe water 3.005."""
    row = np.asarray(ws.H_joined[-1], dtype=float)
    W_O = np.asarray(ws.W_O, dtype=float)
    return [UpdateTerm(i, float(row[i]), float(W_O[i, axis])) for i in range(W_O.shape[0]) if W_O[i, axis] != 0]


def mixture_gap(ws) -> np.ndarray:
    """The one wide head's message at the receiver minus the two heads' joined messages [m¹ | m²],
    coordinate by coordinate (river: water 2.023 − 2.617 = −0.594, person 1.522 − 1.552 = −0.030)."""
    return np.asarray(ws.wide_head.messages[-1], dtype=float) - np.asarray(ws.H_joined[-1], dtype=float)


def gap_word(gap: float, places: int = 3) -> str:
    """"lower", "higher" or "no different", judged on the displayed digits of the gap."""
    shown = float(fmt(gap, places))
    return "lower" if shown < 0 else "higher" if shown > 0 else "no different"


def copy_units(W1, b1, axes=AXES) -> list[tuple[int, str]]:
    """Hidden units of the prediction MLP's first layer that copy one input axis unchanged: a W1 column
    with a single entry 1 and a zero bias. [(0, "water"), (1, "finance"), (2, "person")] for the lesson's W1."""
    W1, b1 = np.asarray(W1, dtype=float), np.asarray(b1, dtype=float)
    out = []
    for u in range(W1.shape[1]):
        nonzero = [i for i in range(W1.shape[0]) if W1[i, u] != 0]
        if len(nonzero) == 1 and W1[nonzero[0], u] == 1 and b1[u] == 0:
            out.append((u, axes[nonzero[0]]))
    return out


@dataclass(frozen=True)
class MixtureTerm:
    """One source's part of one message coordinate: its attention weight times its value there."""
    source: int        # zero-based
    weight: float
    value: float

    @property
    def product(self) -> float:
        return self.weight * self.value


def leading_terms(weights, values, top: int = 2) -> list[MixtureTerm]:
    """The `top` largest parts (by |weight · value|, ties: the earlier source) of one message
    coordinate m = Σⱼ weightⱼ · valueⱼ. River's wide head, water: fisherman 0.708 · 2.0 = 1.417 and
    river 0.178 · 3.1 = 0.552 (of 2.023); head 1: river 0.718 · 3.1 = 2.225, fisherman 0.166 · 2.0."""
    w = np.asarray(weights, dtype=float).ravel()
    v = np.asarray(values, dtype=float).ravel()
    if w.shape != v.shape or top < 1:
        raise ValueError(f"need weights and values of one length and top >= 1, got {w.shape}, {v.shape}, {top}")
    order = sorted(range(len(w)), key=lambda j: (-abs(w[j] * v[j]), j))
    return [MixtureTerm(j, float(w[j]), float(v[j])) for j in order[:top]]


def coordinate_terms(ws, joined: int, wide: bool, top: int = 2) -> list[MixtureTerm]:
    """leading_terms of the receiver's message at joined coordinate `joined` ([m¹ | m²] order): the wide
    head's (its value columns are the two heads' side by side) or the narrow head that carries it."""
    if wide:
        head, k = ws.wide_head, joined
    else:
        d1 = ws.heads[0].V.shape[1]
        head, k = (ws.heads[0], joined) if joined < d1 else (ws.heads[1], joined - d1)
    return leading_terms(head.weights[-1], head.V[:, k], top)


def put_back_update(ws) -> np.ndarray:
    """The receiver's update Δe if W_O only put each joined coordinate back on the axis it carries:
    W_O with its off_carrier_entries set to 0. River: [2.617, -0.018, 1.552, 0.538] (water without the
    0.25 of person; the real Δe has water 3.005)."""
    carried = carried_axes(np.hstack([h.W_V for h in ws.heads]))
    W = np.array(ws.W_O, dtype=float)
    for i, j in off_carrier_entries(W, carried):
        W[i, j] = 0.0
    return np.asarray(ws.H_joined[-1], dtype=float) @ W


@dataclass(frozen=True)
class LogitTerm:
    """One hidden unit's part of one word's logit: its value h_u times W2's weight from u to the word."""
    unit: int          # zero-based
    hidden: float
    weight: float

    @property
    def product(self) -> float:
        return self.hidden * self.weight


@dataclass(frozen=True)
class LogitParts:
    word: int                    # vocabulary index
    terms: tuple                 # LogitTerm, largest product first (ties: the earlier unit)
    bias: float                  # b2[word]
    total: float                 # Σ terms + bias: the word's logit

    @property
    def lead(self) -> LogitTerm:
        return self.terms[0]


def logit_terms(hidden, W2, b2, word: int) -> LogitParts:
    """The non-zero products h_u · W2[u, word] that make one word's logit, with b2's part. River's
    "water": 1.5 · 3.005 (unit 1) + 0.2 · 2.523 (unit 5) + 0.1 · 1.919 (unit 4) + 0 = 5.204."""
    h = np.asarray(hidden, dtype=float).ravel()
    W2, b2 = np.asarray(W2, dtype=float), np.asarray(b2, dtype=float).ravel()
    if W2.shape != (len(h), len(b2)) or not 0 <= word < len(b2):
        raise ValueError(f"need hidden [{W2.shape[0]}], W2 [{len(h)}, {len(b2)}] and a word in 0..{len(b2) - 1}, "
                         f"got {h.shape}, {W2.shape}, {word}")
    terms = [LogitTerm(u, float(h[u]), float(W2[u, word])) for u in range(len(h)) if h[u] != 0 and W2[u, word] != 0]
    terms.sort(key=lambda t: (-abs(t.product), t.unit))
    total = math.fsum([t.product for t in terms] + [float(b2[word])])
    return LogitParts(word, tuple(terms), float(b2[word]), total)
