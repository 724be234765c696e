"""Thumbnails for a roadmap's stages, built from shapes: a matrix as its grid of cells (a row, a tall
projection, a full attention grid), probabilities as bars. Each is about `height` tall, so a chip can
hold one above its words (scene 21's road: image → patches → rows → encoder → logits → loss).

    get_cells_icon(16, 4, color)                  # the 16 × 4 projection: 64 cells
    get_cells_icon(5, 5, color, fill=0.45)        # a full grid: every cell read, none masked
    get_bars_icon(vr.probabilities, colors, marked=vr.label)

No number is computed here: the bars' heights are the caller's values, scaled to `height`.
"""
from __future__ import annotations

import numpy as np
from manim import DOWN, RIGHT, Rectangle, VGroup

from scenes.style import DIM_TEXT_COLOR, TEXT_COLOR

ICON_HEIGHT = 0.3


def get_cells_icon(n_rows: int, n_cols: int, color: str, *, height: float = ICON_HEIGHT, fill: float = 0.35,
                   max_cell: float = 0.085) -> VGroup:
    """An n_rows × n_cols matrix as cells (row-major in `.cells`), at most `height` tall; a cell is never
    wider than max_cell (a one-row matrix stays a thin strip) and never taller than it is wide."""
    cell_h = min(height / n_rows, max_cell)
    cell_w = max(cell_h, min(max_cell, height / max(n_cols, 1)))
    icon = VGroup()
    icon.cells = VGroup(*(Rectangle(width=cell_w, height=cell_h).set_stroke(color, 0.8).set_fill(color, fill)
                          .move_to([j * cell_w, -i * cell_h, 0]) for i in range(n_rows) for j in range(n_cols)))
    icon.n_rows, icon.n_cols = n_rows, n_cols
    icon.add(icon.cells)
    return icon


def get_bars_icon(values, colors, *, height: float = ICON_HEIGHT, width: float = 0.14, marked: int | None = None,
                  mark_color: str = TEXT_COLOR) -> VGroup:
    """One bar per value in [0, 1], `height` for a value of 1, on a base line; `marked`: that bar outlined
    (the label's class, say)."""
    values = np.asarray(values, dtype=float)
    icon = VGroup()
    icon.bars = VGroup()
    for k, v in enumerate(values):
        bar = Rectangle(width=width, height=max(float(v) * height, 1e-3)).set_stroke(colors[k], 1)
        bar.set_fill(colors[k], 0.7)
        icon.bars.add(bar)
    icon.bars.arrange(RIGHT, buff=width * 0.6, aligned_edge=DOWN)
    base = Rectangle(width=icon.bars.width + width * 0.8, height=1e-3).set_stroke(DIM_TEXT_COLOR, 1.2)
    base.next_to(icon.bars, DOWN, buff=0)
    icon.base = base
    icon.add(icon.bars, base)
    icon.mark = VGroup()
    if marked is not None:
        bar = icon.bars[marked]
        icon.mark = Rectangle(width=bar.width + 0.06, height=bar.height + 0.06).set_stroke(mark_color, 2)
        icon.mark.move_to(bar)
        icon.add(icon.mark)
    icon.values = values
    return icon


__all__ = ["ICON_HEIGHT", "get_cells_icon", "get_bars_icon"]
