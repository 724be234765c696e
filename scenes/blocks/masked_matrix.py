"""A head's n × n causal attention matrix A: future cells blocked, allowed cells shaded by weight.

    mm = get_masked_matrix(head.weights, row_labels=ws.tokens, col_labels=ws.tokens,
                           color=head_color(1), highlight_row=ws.n - 1, tag="A1")
    mm.number(9, 3)        # NumberText of α₁₀,₄ (zero-based i, j); None above the diagonal
    mm.square(i, j)        # the cell square (blocked squares are in mm.blocked)

Rows are receivers (queries), columns are sources (keys). Cells with j > i are drawn in the mask
colour with no number: the future is blocked, not "zero weight shown". Allowed cells are filled
with the head colour at an opacity proportional to the weight.

`heat=True` draws a legible heat map instead: each readable cell a solid step from the background
toward the head colour by the square root of its weight (`heat_color`, 32 steps: small weights stay
visible, a larger weight is never darker), digits dark on bright cells; future cells darker than the
background (so darker than any weight) and hatched, so "blocked" never reads as "a small weight".
`cell_width` / `cell_height` make room for three-decimal digits at a legible size.
"""
from __future__ import annotations

import numpy as np
from manim import DL, LEFT, UP, UR, Line, Rectangle, Square, VGroup

from scenes.blocks.heat_map import FUTURE_COLOR, level_hex, weight_level
from scenes.style import (
    BACKGROUND,
    BUFF_SMALL,
    DIM_TEXT_COLOR,
    HEAD_COLORS,
    MASK_COLOR,
    MIN_TEXT_SIZE,
    NUMBER_SIZE,
    PLACES,
    RECEIVER_COLOR,
    SMALL_SIZE,
    TEXT_COLOR,
    get_number,
    get_text,
    hex_rgb,
)

MAX_SHADE = 0.85  # fill opacity of a weight-1 cell; keeps the grid lines visible
# One heat scale for every attention picture (scenes.blocks.heat_map): steps of sqrt(w), future
# cells darker than the background, the colour of weight 0.
BLOCKED_COLOR = FUTURE_COLOR


def weight_opacity(weight: float) -> float:
    """Fill opacity that encodes an attention weight (linear, 0 -> 0, 1 -> MAX_SHADE)."""
    return MAX_SHADE * float(np.clip(weight, 0.0, 1.0))


def heat_color(weight: float, color: str) -> str:
    """Fill of a heat-map cell: the background moved toward `color` by round(sqrt(w)·32)/32."""
    return level_hex(int(weight_level(weight)), color)


def _luminance(color: str) -> float:
    r, g, b = (c / 255 for c in hex_rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


class MaskedMatrix(VGroup):
    """Built by get_masked_matrix. Parts: `squares` (all cells, row-major), `blocked` (the j > i
    squares), `numbers` (NumberText for j ≤ i, row-major), `row_labels`, `col_labels`,
    `row_highlight` (empty unless highlight_row is set); `n`, `side`."""

    def square(self, i: int, j: int):
        return self._squares[i][j]

    def number(self, i: int, j: int):
        return self._numbers.get((i, j))

    def get_row_box(self, i: int, color: str = RECEIVER_COLOR, stroke_width: float = 3.0,
                    last: int | None = None) -> Rectangle:
        """A box around row i's cells (through column `last`, zero-based; default the whole row)."""
        left = self._squares[i][0].get_left()[0]
        right = self._squares[i][self.n - 1 if last is None else last].get_right()[0]
        height = self._squares[i][0].height
        box = Rectangle(width=right - left, height=height).set_stroke(color, stroke_width)
        return box.set_fill(opacity=0).move_to([(left + right) / 2, self._squares[i][0].get_y(), 0])


def get_masked_matrix(
    weights,
    row_labels=None,
    col_labels=None,
    *,
    color: str = HEAD_COLORS[1],
    show_numbers: bool = True,
    highlight_row: int | None = None,
    tag: str | None = None,
    places: int = PLACES,
    side: float = 0.7,
    font_size: float = NUMBER_SIZE,
    label_size: float = SMALL_SIZE,
    heat: bool = False,
    cell_width: float | None = None,
    cell_height: float | None = None,
) -> MaskedMatrix:
    """A MaskedMatrix of the square `weights` array (its upper triangle is never read).

    No text is drawn below the legibility floor (scenes.style.MIN_TEXT_SIZE): smaller sizes are
    refused, and digits shrink to fit a plain (not heat-map) cell only down to the floor; a cell too
    small for them at the floor is refused too (the default `side`, 0.7, holds "0.333" at size 16).
    """
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 2 or weights.shape[0] != weights.shape[1]:
        raise ValueError(f"get_masked_matrix needs a square 2-D array, got shape {weights.shape}")
    if min(font_size, label_size) < MIN_TEXT_SIZE:
        raise ValueError(f"get_masked_matrix: font_size {font_size} / label_size {label_size} is below "
                         f"the legibility floor MIN_TEXT_SIZE = {MIN_TEXT_SIZE}")
    n = weights.shape[0]
    mm = MaskedMatrix()
    cw, ch = cell_width or side, cell_height or side
    mm.n, mm.side, mm.tag, mm.cell_width, mm.cell_height = n, side, tag, cw, ch
    mm._squares, mm._numbers = [], {}
    mm.squares, mm.blocked, mm.numbers, mm.hatch = VGroup(), VGroup(), VGroup(), VGroup()
    for i in range(n):
        row = []
        for j in range(n):
            if cell_width is None and cell_height is None:
                sq = Square(side_length=side)
            else:
                sq = Rectangle(width=cw, height=ch)
            sq.move_to([j * cw, -i * ch, 0])
            if j > i:
                if heat:
                    sq.set_stroke(BLOCKED_COLOR, 0.6).set_fill(BLOCKED_COLOR, 1.0)
                    a, b = sq.get_corner(DL), sq.get_corner(UR)
                    mm.hatch.add(Line(a, b).set_stroke(MASK_COLOR, 1.2))
                else:
                    sq.set_stroke(BACKGROUND, 1).set_fill(MASK_COLOR, 1.0)
                sq.blocked_index = (i, j)
                mm.blocked.add(sq)
            else:
                w = weights[i, j]
                if heat:
                    fill = heat_color(w, color)
                    sq.set_stroke(DIM_TEXT_COLOR, 0.8).set_fill(fill, 1.0)
                    dark = _luminance(fill) > 0.42
                else:
                    sq.set_stroke(DIM_TEXT_COLOR, 0.8).set_fill(color, weight_opacity(w))
                    dark = weight_opacity(w) > 0.5
                if show_numbers:
                    # dark digits on strongly shaded cells, light digits elsewhere
                    ink = BACKGROUND if dark else TEXT_COLOR
                    num = get_number(w, places, tag=tag, index=(i, j), font_size=font_size, color=ink)
                    if not heat and num.width > side * 0.92:
                        if side * 0.92 / num.width * font_size < MIN_TEXT_SIZE:
                            raise ValueError(f"get_masked_matrix: {num.original_text!r} does not fit a cell of "
                                             f"side {side} at the legibility floor (size {MIN_TEXT_SIZE})")
                        num.scale_to_fit_width(side * 0.92)
                    num.move_to(sq)
                    mm._numbers[(i, j)] = num
                    mm.numbers.add(num)
            row.append(sq)
            mm.squares.add(sq)
        mm._squares.append(row)

    mm.row_labels = VGroup(*(get_text(str(t), font_size=label_size, color=DIM_TEXT_COLOR)
                             for t in (row_labels or [])))
    for i, label in enumerate(mm.row_labels):
        label.next_to(mm._squares[i][0], LEFT, buff=BUFF_SMALL)
    mm.col_labels = VGroup(*(get_text(str(t), font_size=label_size, color=DIM_TEXT_COLOR)
                             for t in (col_labels or [])))
    for j, label in enumerate(mm.col_labels):
        # column labels read upwards so long words do not collide
        label.rotate(np.pi / 2).next_to(mm._squares[0][j], UP, buff=BUFF_SMALL)
    mm.row_highlight = VGroup()
    if highlight_row is not None:
        mm.row_highlight = mm.get_row_box(highlight_row)
    mm.add(mm.squares, mm.hatch, mm.numbers, mm.row_labels, mm.col_labels, mm.row_highlight)
    return mm


__all__ = ["MaskedMatrix", "get_masked_matrix", "weight_opacity", "MAX_SHADE", "heat_color",
           "BLOCKED_COLOR"]
