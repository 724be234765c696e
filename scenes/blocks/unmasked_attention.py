"""Attention with no causal mask: every row reads every row (an encoder, e.g. over image patches).

    grid = get_attention_grid(vr.encoder_attention, ["CLS", "p1", "p2", "p3", "p4"], tag="A")
    triangle = get_causal_pattern(5)              # the language model's mask, as a shape beside it
    row = get_token_row(["CLS", "patch 1", ...], receiver=1)
    arrows = get_unmasked_arrows(row, vr.encoder_attention[0], color=...)

`get_attention_grid` shades every cell by its weight with the same opacity rule as
masked_matrix (`weight_opacity`), so a weight looks alike in both; `get_causal_pattern` draws the
mask of a causal (language-model) grid, future cells in the mask colour and no numbers, for a
side-by-side "full grid versus triangle". `get_unmasked_arrows` is attention_arrows'
`get_attention_arrows` without the mask: one arrow into the receiver from every token, those after
it included, with the same width and opacity for the same weight (`arrow_stroke`, `arrow_opacity`).
"""
from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, PI, RIGHT, UP, ArcBetweenPoints, Create, LaggedStart, Square, VGroup

from scenes.blocks.attention_arrows import TokenRow, arrow_opacity, arrow_stroke
from scenes.blocks.masked_matrix import weight_opacity
from scenes.style import (
    BACKGROUND,
    BUFF_SMALL,
    DIM_TEXT_COLOR,
    MASK_COLOR,
    NUMBER_SIZE,
    PLACES,
    SMALL_SIZE,
    TEXT_COLOR,
    WIDE_HEAD_COLOR,
    align_baseline,
    baseline_y,
    get_number,
    get_text,
)


# spread tips (get_unmasked_arrows(spread=True)): the receiver's loop takes this much of its edge,
# and no tip lands nearer its ends than the margin
SPREAD_LOOP_ROOM = 0.3
SPREAD_MARGIN = 0.06


class AttentionGrid(VGroup):
    """Built by get_attention_grid / get_causal_pattern. Parts: `squares` (row-major), `numbers`
    (NumberText per readable cell, or empty), `blocked` (future cells; empty for a full grid),
    `row_labels`, `col_labels`; `n`, `side`. `square(i, j)`, `number(i, j)`, `get_row_box(i)`."""

    def square(self, i: int, j: int):
        return self._squares[i][j]

    def number(self, i: int, j: int):
        return self._numbers.get((i, j))

    def get_row_box(self, i: int, color: str, stroke_width: float = 3.0):
        row = VGroup(*self._squares[i])
        box = Square(side_length=1).set_stroke(color, stroke_width).set_fill(opacity=0)
        box.stretch_to_fit_width(row.width).stretch_to_fit_height(self.side).move_to(row)
        return box


def _labels(grid: AttentionGrid, row_labels, col_labels, label_size):
    grid.row_labels = VGroup(*(get_text(str(t), font_size=label_size, color=DIM_TEXT_COLOR)
                               for t in (row_labels or [])))
    for i, label in enumerate(grid.row_labels):
        label.next_to(grid._squares[i][0], LEFT, buff=BUFF_SMALL)
        # on the line of the cell's digits (a centred "0"), descenders below it
        digit = get_text("0", font_size=label_size).move_to(grid._squares[i][0])
        align_baseline(label, baseline_y(digit))
    grid.col_labels = VGroup(*(get_text(str(t), font_size=label_size, color=DIM_TEXT_COLOR)
                               for t in (col_labels or [])))
    for j, label in enumerate(grid.col_labels):
        label.next_to(grid._squares[0][j], UP, buff=BUFF_SMALL)


def get_attention_grid(weights, row_labels=None, col_labels=None, *, color: str = WIDE_HEAD_COLOR,
                       tag: str | None = None, places: int = PLACES, side: float = 0.7,
                       font_size: float = NUMBER_SIZE, label_size: float = SMALL_SIZE,
                       show_numbers: bool = True, fill_opacity: float | None = None) -> AttentionGrid:
    """Every cell of the square `weights` readable and shaded by its weight (no mask).
    Column labels default to the row labels. fill_opacity: one opacity for every cell (a grid
    whose weights are nearly even, drawn to match get_causal_pattern's read cells); default: by weight."""
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 2 or weights.shape[0] != weights.shape[1]:
        raise ValueError(f"get_attention_grid needs a square 2-D array, got shape {weights.shape}")
    n = weights.shape[0]
    grid = AttentionGrid()
    grid.n, grid.side, grid.tag = n, side, tag
    grid._squares, grid._numbers = [], {}
    grid.squares, grid.numbers, grid.blocked = VGroup(), VGroup(), VGroup()
    for i in range(n):
        row = []
        for j in range(n):
            w = weights[i, j]
            sq = Square(side_length=side).move_to([j * side, -i * side, 0])
            opacity = weight_opacity(w) if fill_opacity is None else fill_opacity
            sq.set_stroke(DIM_TEXT_COLOR, 0.8).set_fill(color, opacity)
            if show_numbers:
                ink = BACKGROUND if opacity > 0.5 else TEXT_COLOR
                num = get_number(w, places, tag=tag, index=(i, j), font_size=font_size, color=ink)
                if num.width > side * 0.92:
                    raise ValueError(f"{num.original_text!r} at size {font_size} is wider than a cell "
                                     f"of side {side}: widen the cells rather than shrink the digits")
                num.move_to(sq)
                grid._numbers[(i, j)] = num
                grid.numbers.add(num)
            row.append(sq)
            grid.squares.add(sq)
        grid._squares.append(row)
    _labels(grid, row_labels, row_labels if col_labels is None else col_labels, label_size)
    grid.add(grid.squares, grid.numbers, grid.row_labels, grid.col_labels)
    return grid


def get_causal_pattern(n: int, row_labels=None, col_labels=None, *, side: float = 0.7,
                       label_size: float = SMALL_SIZE, read_color: str | None = None, read_opacity: float = 0.45,
                       mask_color: str = MASK_COLOR) -> AttentionGrid:
    """The shape of a causal mask: cells j > i blocked (mask colour), the rest open, no numbers.
    read_color: fill the cells a row may read (as get_attention_grid fills its cells), so the readable
    triangle is the lit one; mask_color: the blocked cells (e.g. heat_map.FUTURE_COLOR, the dark future)."""
    grid = AttentionGrid()
    grid.n, grid.side, grid.tag = n, side, None
    grid._squares, grid._numbers = [], {}
    grid.squares, grid.numbers, grid.blocked = VGroup(), VGroup(), VGroup()
    for i in range(n):
        row = []
        for j in range(n):
            sq = Square(side_length=side).move_to([j * side, -i * side, 0])
            if j > i:
                sq.set_stroke(BACKGROUND if mask_color == MASK_COLOR else DIM_TEXT_COLOR, 1 if mask_color == MASK_COLOR
                              else 0.8).set_fill(mask_color, 1.0)
                grid.blocked.add(sq)
            elif read_color is not None:
                sq.set_stroke(DIM_TEXT_COLOR, 0.8).set_fill(read_color, read_opacity)
            else:
                sq.set_stroke(DIM_TEXT_COLOR, 0.8).set_fill(opacity=0)
            row.append(sq)
            grid.squares.add(sq)
        grid._squares.append(row)
    _labels(grid, row_labels, row_labels if col_labels is None else col_labels, label_size)
    grid.add(grid.squares, grid.row_labels, grid.col_labels)
    return grid


class UnmaskedArrows(VGroup):
    """Built by get_unmasked_arrows. Parts: `arrows` (in source order), `sources`, `weights`,
    `receiver` (zero-based), `color`. `arrow(j)`, `create()` (strongest last)."""

    def arrow(self, j: int):
        return self._by_source.get(j)

    def create(self, lag_ratio: float = 0.12, run_time: float = 1.8):
        order = np.argsort(self.weights, kind="stable")
        return LaggedStart(*(Create(self.arrows[k]) for k in order), lag_ratio=lag_ratio, run_time=run_time)


def _tip(curve, width: float, color: str, opacity: float) -> None:
    size = 0.1 + 0.012 * width
    curve.add_tip(tip_length=size, tip_width=size * 0.9)
    curve.get_tip().set_fill(color, opacity=opacity).set_stroke(color, 0, opacity=opacity)


def spread_landings(left: float, right: float, r: int, n: int, loop_room: float = SPREAD_LOOP_ROOM,
                    margin: float = SPREAD_MARGIN) -> dict:
    """Where each source's tip lands on a receiver edge from `left` to `right` (x), receiver r of n
    (zero-based): {source: x}, the receiver's own loop included. Sources before the receiver take the
    edge's left part, those after it the right part, the loop the room between. On each side the
    nearest source lands at the outer end and the farthest nearest the loop, as attention_arrows'
    landings do: each arc's span then holds every nearer source's, so the arcs nest, and no two tips
    share a place."""
    before, after = list(range(r)), list(range(r + 1, n))
    lo, hi = left + margin, right - margin
    if before and after:
        mid = (lo + hi) / 2
        loop, left_part, right_part = mid, (lo, mid - loop_room / 2), (mid + loop_room / 2, hi)
    elif after:                     # the receiver first (CLS): its loop at the left end
        loop, left_part, right_part = lo + loop_room / 2, None, (lo + loop_room, hi)
    else:                           # the receiver last: its loop at the right end
        loop, left_part, right_part = hi - loop_room / 2, (lo, hi - loop_room), None
    x = {r: loop}

    def place(left_to_right, part):
        a, b = part
        if len(left_to_right) == 1:
            x[left_to_right[0]] = (a + b) / 2
            return
        for k, j in enumerate(left_to_right):
            x[j] = a + (b - a) * k / (len(left_to_right) - 1)
    if before:
        place(before[::-1], left_part)           # the nearest (r - 1) at the left end, source 0 by the loop
    if after:
        place(after[::-1], right_part)           # the farthest (n - 1) by the loop, the nearest at the right end
    return x


def get_unmasked_arrows(row: TokenRow, weights, *, receiver: int | None = None,
                        color: str = WIDE_HEAD_COLOR, angle: float = PI / 2.6,
                        spread: bool = False) -> UnmaskedArrows:
    """Arrows above the words into the receiver (one-based; default the row's) from every token of
    the row, before and after it, and a loop for itself. weights: the receiver's full row.
    spread: the tips land spread along the receiver's whole top edge (spread_landings), nested, so
    they do not knot at its centre (give the receiver a wide box: get_token_row's receiver_width)."""
    receiver = receiver if receiver is not None else row.receiver
    if receiver is None or not 1 <= receiver <= row.n:
        raise ValueError(f"receiver {receiver!r} is not a position of the row (1..{row.n})")
    if row.lines != 1:
        raise ValueError("unmasked arrows need the row on one line")
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (row.n,):
        raise ValueError(f"need {row.n} weights, got shape {weights.shape}")
    r = receiver - 1
    group = UnmaskedArrows()
    group.arrows, group.sources, group._by_source = VGroup(), [], {}
    group.receiver, group.color = r, color
    end_base = row.word_top(r)
    landing = (spread_landings(row.boxes[r].get_left()[0], row.boxes[r].get_right()[0], r, row.n)
               if spread else None)
    for j in range(row.n):
        w = float(weights[j])
        width, opacity = arrow_stroke(w), arrow_opacity(w)
        if landing is not None:
            if j == r:
                at = np.array([landing[r], end_base[1], 0.0])
                # left to right with a negative angle: the loop bulges up, over the edge (as the unspread one)
                curve = ArcBetweenPoints(at + LEFT * SPREAD_LOOP_ROOM * 0.35, at + RIGHT * SPREAD_LOOP_ROOM * 0.35,
                                         angle=-1.5 * PI)
            else:
                end = np.array([landing[j], end_base[1], 0.0])
                curve = ArcBetweenPoints(row.word_top(j), end, angle=angle if j > r else -angle)
        elif j == r:
            half = min(0.16, row.boxes[r].width / 3)
            curve = ArcBetweenPoints(end_base + LEFT * half, end_base + RIGHT * half, angle=-1.5 * PI)
        else:
            # land beside the centre, on the source's side, so the tips stay apart
            side = RIGHT if j > r else LEFT
            end = end_base + side * min(0.2, 0.05 * abs(j - r))
            curve = ArcBetweenPoints(row.word_top(j), end, angle=angle if j > r else -angle)
        curve.set_stroke(color, width, opacity=opacity)
        _tip(curve, width, color, opacity)
        curve.weight, curve.source = w, j
        group.arrows.add(curve)
        group.sources.append(j)
        group._by_source[j] = curve
    group.weights = np.array([float(weights[j]) for j in group.sources])
    group.add(group.arrows)
    return group


def get_source_weights(row: TokenRow, weights, *, tag: str, color: str = WIDE_HEAD_COLOR,
                       places: int = PLACES, font_size: float = NUMBER_SIZE) -> VGroup:
    """The weight each source gets, written under its box, where its arrow starts (tag, index j):
    the numbers that make the arrows' widths, laid out as a row (so they can move into a grid's row)."""
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (row.n,):
        raise ValueError(f"need {row.n} weights, got shape {weights.shape}")
    labels = VGroup()
    for j, w in enumerate(weights):
        label = get_number(float(w), places, tag=tag, index=j, font_size=font_size, color=color)
        label.next_to(row.boxes[j], DOWN, buff=BUFF_SMALL)
        labels.add(label)
    y = min(baseline_y(m) for m in labels)          # one baseline for the row
    for m in labels:
        align_baseline(m, y)
    return labels


__all__ = ["AttentionGrid", "UnmaskedArrows", "get_attention_grid", "get_causal_pattern", "get_unmasked_arrows",
           "get_source_weights", "spread_landings"]
