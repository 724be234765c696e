"""An attention matrix as a heat map: one square per weight (row = receiver, column = source), the
colour stepping from the background toward the head's colour as the weight grows, the cells a
receiver cannot read (the future) darker than any weight.

    hm = get_heat_map(weights, color=head_color(1), side=4.2)
    hm.cell_center(63, 62)                 # where the weight of source 63 for receiver 64 is drawn
    hm.get_cell_box(63, 62)                # an outline around that cell
    key = get_color_key(color)             # weight 0 … 1 on the same scale, and the mask swatch
    labels = get_axis_labels(hm, tokens, [0, 8, 16, ...])

Colour step of a weight w: round(sqrt(w) · HEAT_LEVELS); the square root keeps small weights visible,
and a larger weight is never darker. Cells of one step share one VMobject (runs of cells merged),
so a 64×64 map is a few dozen paths, not 4,096 mobjects. No numbers are computed here but the picture.
"""
from __future__ import annotations

import math

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Rectangle, VGroup, VMobject

from scenes.style import (
    BACKGROUND,
    DIM_TEXT_COLOR,
    RECEIVER_COLOR,
    SMALL_SIZE,
    get_number,
    blend_colors,
    get_text,
    hex_rgb,
)

HEAT_LEVELS = 32          # colour steps of a heat map (on the square-root scale)
# Cells outside the receiver's window (future sources): darker than the background, which is the
# colour of weight 0, so the blocked triangle reads darker than any weight.
FUTURE_COLOR = "#07080B"


def weight_level(weights, levels: int = HEAT_LEVELS) -> np.ndarray:
    """Colour step of each weight: round(sqrt(w) · levels), 0 … levels."""
    w = np.clip(np.asarray(weights, dtype=float), 0.0, 1.0)
    return np.rint(np.sqrt(w) * levels).astype(int)


def level_hex(level: int, color: str, levels: int = HEAT_LEVELS) -> str:
    """Colour of a step: the background blended toward `color` by level / levels (style.blend_colors)."""
    return blend_colors(color, level / levels)


def level_rgb(level: int, color: str, levels: int = HEAT_LEVELS) -> np.ndarray:
    """The same colour as an RGB array (what a pixel of that cell reads)."""
    return np.array(hex_rgb(level_hex(level, color, levels)), dtype=float)


class HeatMap(VGroup):
    """Built by get_heat_map. Parts: `levels` ({step: VMobject}), `mask` (the future cells), `frame`;
    `weights`, `steps` (the step of every cell, -1 for the future), `n`, `color`."""

    def cell_center(self, i: int, j: int) -> np.ndarray:
        left, top = self.frame.get_left()[0], self.frame.get_top()[1]
        c = self.frame.width / self.n                     # the frame scales with the map
        return np.array([left + (j + 0.5) * c, top - (i + 0.5) * c, 0.0])

    @property
    def cell_side(self) -> float:
        return self.frame.width / self.n

    def get_cell_box(self, i: int, j: int, color: str = RECEIVER_COLOR, pad: float = 0.05,
                     stroke_width: float = 3) -> Rectangle:
        side = self.cell_side + 2 * pad
        return Rectangle(width=side, height=side).set_stroke(color, stroke_width).move_to(self.cell_center(i, j))

    def get_row_box(self, i: int, color: str = RECEIVER_COLOR, stroke_width: float = 2) -> Rectangle:
        c = self.cell_side
        box = Rectangle(width=self.frame.width + 0.06, height=c + 0.06).set_stroke(color, stroke_width)
        return box.move_to([self.frame.get_center()[0], self.cell_center(i, 0)[1], 0])


def _cells_path(cells: np.ndarray, side: float) -> VMobject:
    """One VMobject covering the True cells of an n×n boolean grid of `side` (row 0 on top): each
    horizontal run of cells in a row is one rectangle subpath."""
    n = cells.shape[0]
    c = side / n
    pts = []
    for i in range(n):
        row = np.concatenate([[False], cells[i], [False]])
        starts = np.flatnonzero(~row[:-1] & row[1:])
        ends = np.flatnonzero(row[:-1] & ~row[1:])               # exclusive
        for j0, j1 in zip(starts, ends):
            x0, x1, y0, y1 = j0 * c, j1 * c, -i * c, -(i + 1) * c
            corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]])
            for a, b in zip(corners[:-1], corners[1:]):          # four straight cubic segments
                pts.extend([a, a + (b - a) / 3, a + 2 * (b - a) / 3, b])
    path = VMobject()
    if pts:
        arr = np.zeros((len(pts), 3))
        arr[:, :2] = pts
        path.set_points(arr)
    return path


def get_heat_map(weights, color: str, side: float) -> HeatMap:
    """A causal attention matrix as a heat map: colour step by sqrt(weight), future cells dark."""
    w = np.asarray(weights, dtype=float)
    n = w.shape[0]
    steps = weight_level(w)
    future = np.triu(np.ones((n, n), dtype=bool), 1)
    hm = HeatMap()
    hm.weights, hm.steps, hm.n, hm.color = w, np.where(future, -1, steps), n, color
    frame = Rectangle(width=side, height=side).set_stroke(DIM_TEXT_COLOR, 1).set_fill(BACKGROUND, 1)
    frame.move_to([side / 2, -side / 2, 0])
    hm.frame, hm.levels = frame, {}
    hm.add(frame)
    # a hairline stroke in the fill colour hides anti-aliasing seams between neighbouring squares
    mask = _cells_path(future, side).set_stroke(FUTURE_COLOR, 0.6).set_fill(FUTURE_COLOR, 1)
    hm.mask = mask
    hm.add(mask)
    for k in sorted(set(steps[~future].tolist())):
        if k == 0:
            continue                                       # step 0 is the background itself
        ink = level_hex(k, color)
        path = _cells_path((steps == k) & ~future, side).set_stroke(ink, 0.6).set_fill(ink, 1)
        hm.levels[k] = path
        hm.add(path)
    return hm


def get_axis_labels(hm: HeatMap, tokens, indices, *, rows=True, cols=True, size=SMALL_SIZE) -> VGroup:
    """Position and token beside the rows (receivers, left) and under the columns (sources, rotated)."""
    labels = VGroup()
    labels.rows, labels.cols = VGroup(), VGroup()
    for i in indices:
        if rows:
            t = get_text(f"{i + 1} {tokens[i]}", font_size=size, color=DIM_TEXT_COLOR)
            t.next_to(hm.frame.get_left(), LEFT, buff=0.1).set_y(hm.cell_center(i, 0)[1])
            labels.rows.add(t)
        if cols:
            t = get_text(f"{tokens[i]} {i + 1}", font_size=size, color=DIM_TEXT_COLOR).rotate(math.pi / 2)
            t.set_x(hm.cell_center(0, i)[0])
            t.align_to(hm.frame.get_bottom() + DOWN * 0.1, UP)        # rotated texts hang from the axis
            labels.cols.add(t)
    labels.add(labels.rows, labels.cols)
    return labels


def get_color_key(color: str, width: float = 2.4, ticks=(0.0, 0.25, 1.0), title: str = "weight") -> VGroup:
    """The colour steps from weight 0 to 1 (square-root scale) with tick values, and the future swatch.
    `title` names the bar (say the scale is a square root where the ticks' spacing needs explaining)."""
    cell = width / (HEAT_LEVELS + 1)
    bar = VGroup(*(Rectangle(width=cell, height=0.22).set_stroke(level_hex(k, color), 0.6)
                   .set_fill(level_hex(k, color), 1) for k in range(HEAT_LEVELS + 1))).arrange(RIGHT, buff=0)
    outline = Rectangle(width=bar.width, height=bar.height).set_stroke(DIM_TEXT_COLOR, 1).move_to(bar)
    marks = VGroup()
    for v in ticks:
        x = bar.get_left()[0] + (math.sqrt(v) * HEAT_LEVELS + 0.5) * cell
        marks.add(get_number(v, 2, tag="key", index=v, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
                  .next_to([x, bar.get_bottom()[1], 0], DOWN, buff=0.08))
    title = get_text(title, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).next_to(bar, UP, buff=0.1)
    title.align_to(bar, LEFT)
    swatch = Rectangle(width=0.34, height=0.22).set_stroke(DIM_TEXT_COLOR, 1).set_fill(FUTURE_COLOR, 1)
    swatch_label = get_text("future: not in the window", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    future = VGroup(swatch, swatch_label).arrange(RIGHT, buff=0.12).next_to(marks, DOWN, buff=0.25)
    future.align_to(bar, LEFT)
    key = VGroup(title, VGroup(bar, outline), marks, future)
    key.bar, key.marks, key.future = bar, marks, future
    return key


__all__ = ["HEAT_LEVELS", "FUTURE_COLOR", "HeatMap", "get_heat_map", "weight_level", "level_rgb", "level_hex",
           "get_axis_labels", "get_color_key"]
