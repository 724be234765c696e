"""One attention row stacked vertically: each source word beside its weight, then a sum row.

    col = get_weight_column(ws.tokens, head.weights[-1], color=head_color(1), tag="A1_row")
    col.weight(j)      # the NumberText of source j (zero-based)
    col.sum_number     # the full-precision sum (math.fsum), shown as fmt -> "1.000"

The weights are the lesson's A[receiver, :] laid out vertically only so each weight can sit
beside its source word (the lesson says so). Optional bars have width ∝ weight.
"""
from __future__ import annotations

import math

import numpy as np
from manim import LEFT, RIGHT, Line, Rectangle, VGroup

from scenes.style import (
    BUFF,
    BUFF_SMALL,
    DIM_TEXT_COLOR,
    HEAD_COLORS,
    HIGHLIGHT_OPACITY,
    LABEL_SIZE,
    NUMBER_SIZE,
    PLACES,
    SOURCE_COLOR,
    TEXT_COLOR,
    align_baseline,
    baseline_y,
    get_number,
    get_text,
)


class WeightColumn(VGroup):
    """Built by get_weight_column. Parts: `labels`, `weights` (NumberText per source), `bars`,
    `rows` (label+number+bar per source), `rule`, `sum_label`, `sum_number`; `row_height`;
    `span` (an invisible line across the rows' full width, so row boxes follow moves and scales)."""

    def weight(self, j: int):
        return self.weights[j]

    def row(self, j: int) -> VGroup:
        return self.rows[j]

    def get_row_box(self, j: int, color: str = SOURCE_COLOR, fill_opacity: float = HIGHLIGHT_OPACITY,
                    stroke_width: float = 2.0) -> Rectangle:
        # from the invisible span, which moves and scales with the column (left_x / row_width
        # are the values at build time)
        left, right = self.span.get_left()[0], self.span.get_right()[0]
        scale = (right - left) / self.row_width if self.row_width else 1.0
        y = self.weights[j].get_center()[1]
        box = Rectangle(width=right - left, height=self.row_height * scale)
        box.set_stroke(color, stroke_width).set_fill(color, fill_opacity)
        return box.move_to([(left + right) / 2, y, 0])


def get_weight_column(
    labels,
    weights,
    *,
    color: str = HEAD_COLORS[1],
    tag: str | None = None,
    places: int = PLACES,
    show_bars: bool = True,
    bar_max_width: float = 1.2,
    row_height: float = 0.36,
    font_size: float = NUMBER_SIZE,
    label_size: float = LABEL_SIZE,
    sum_text: str = "sum",
) -> WeightColumn:
    """A WeightColumn of len(labels) rows; `weights` are the full-precision floats of one row of A."""
    weights = np.asarray(weights, dtype=float).ravel()
    if len(labels) != len(weights):
        raise ValueError(f"{len(labels)} labels for {len(weights)} weights")
    col = WeightColumn()
    col.row_height = row_height
    col.labels = VGroup(*(get_text(str(w), font_size=label_size, color=TEXT_COLOR) for w in labels))
    col.weights = VGroup(*(get_number(a, places, tag=tag, index=j, font_size=font_size, color=color)
                           for j, a in enumerate(weights)))
    label_w = max((t.width for t in col.labels), default=0.0)
    number_w = max(m.width for m in col.weights) if len(col.weights) else 0.5
    x_label_right = 0.0
    x_number_right = x_label_right + BUFF + number_w
    x_bar_left = x_number_right + BUFF_SMALL * 2

    col.bars = VGroup()
    rows = []
    for j, (label, number) in enumerate(zip(col.labels, col.weights)):
        y = -j * row_height
        number.move_to([x_number_right, y, 0], aligned_edge=RIGHT)
        label.move_to([x_label_right, y, 0], aligned_edge=RIGHT)
        align_baseline(label, baseline_y(number))
        parts = [label, number]
        if show_bars:
            bar = Rectangle(width=max(bar_max_width * float(weights[j]), 1e-3), height=row_height * 0.55)
            bar.set_stroke(width=0).set_fill(color, 0.85)
            bar.move_to([x_bar_left, y, 0], aligned_edge=LEFT)
            col.bars.add(bar)
            parts.append(bar)
        rows.append(VGroup(*parts))
    col.rows = VGroup(*rows)

    y_sum = -len(weights) * row_height - 0.1
    col.left_x = x_label_right - label_w - BUFF_SMALL
    right = x_bar_left + (bar_max_width if show_bars else 0.0)
    col.row_width = right - col.left_x
    # an invisible horizontal span marking the rows' extent, so row boxes follow moves and scales
    col.span = Line([col.left_x, 0, 0], [right, 0, 0]).set_stroke(width=0, opacity=0)
    col.rule = Line([x_label_right - label_w, y_sum + row_height / 2, 0],
                    [x_number_right, y_sum + row_height / 2, 0]).set_stroke(DIM_TEXT_COLOR, 1.5)
    col.sum_label = get_text(sum_text, font_size=label_size, color=DIM_TEXT_COLOR)
    # fsum: the sum of the unrounded weights, exactly rounded; the display then rounds once.
    col.sum_number = get_number(math.fsum(weights), places, tag=(f"{tag}_sum" if tag else "sum"),
                                font_size=font_size, color=TEXT_COLOR)
    col.sum_number.move_to([x_number_right, y_sum, 0], aligned_edge=RIGHT)
    col.sum_label.move_to([x_label_right, y_sum, 0], aligned_edge=RIGHT)
    align_baseline(col.sum_label, baseline_y(col.sum_number))
    col.add(col.span, col.rows, col.rule, col.sum_label, col.sum_number)
    return col


__all__ = ["WeightColumn", "get_weight_column"]
