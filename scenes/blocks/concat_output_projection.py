"""concat(m¹, m²) · W_O = m¹ W_O¹ + m² W_O², with W_O split into one two-row block per head.

    cop = get_concat_output_projection(m1, m2, ws.W_O, c1, c2, delta)
    cop.top       # [m¹ | m²] · W_O = Δe           (one matrix multiplication)
    cop.bottom    # m¹ · W_O¹ + m² · W_O² = c¹ + c² = Δe   (the per-head sum it equals)

Every array is passed in (the data layer computed them: heads[h].messages[-1],
heads[h].contribution[-1], delta_E[-1]); the block only lays them out in the heads' colours.
"""
from __future__ import annotations

import numpy as np
from manim import DOWN, RIGHT, UP, Line, VGroup

from scenes.blocks.labeled_matrix import get_labeled_matrix, get_row_vector
from scenes.style import (
    BUFF,
    BUFF_LARGE,
    HEAD_COLORS,
    LABEL_SIZE,
    NUMBER_SIZE,
    PLACES,
    TEXT_COLOR,
    get_text,
    sup,
)


class ConcatOutputProjection(VGroup):
    """Built by get_concat_output_projection. Parts: `top` (concat, W_O, delta) and `bottom`
    (m1, W_O1, c1, m2, W_O2, c2, delta_2), each part a LabeledMatrix; `divider` marks the head
    boundary in the concat row and `block_rule` the block boundary in W_O."""


def _op(symbol: str) -> VGroup:
    return get_text(symbol, font_size=LABEL_SIZE + 6)


def get_concat_output_projection(
    m1,
    m2,
    W_O,
    contribution_1,
    contribution_2,
    delta,
    *,
    axes=("water", "finance", "person", "glue"),
    places: int = PLACES,
    font_size: float = NUMBER_SIZE,
    receiver: int | None = None,
) -> ConcatOutputProjection:
    """The equality laid out on two lines; `receiver` (one-based) adds token subscripts to the names."""
    m1, m2 = np.asarray(m1, float).ravel(), np.asarray(m2, float).ravel()
    W_O = np.asarray(W_O, float)
    d1 = len(m1)
    if W_O.shape[0] != d1 + len(m2):
        raise ValueError(f"W_O has {W_O.shape[0]} rows; the joined messages have {d1 + len(m2)}")
    c1, c2, h1, h2 = HEAD_COLORS[1], HEAD_COLORS[2], sup(1), sup(2)
    t = "" if receiver is None else "".join("₀₁₂₃₄₅₆₇₈₉"[int(ch)] for ch in str(receiver))
    joined_cols = [f"H{h1}a", f"H{h1}b", f"H{h2}a", f"H{h2}b"] if W_O.shape[0] == 4 else None

    g = ConcatOutputProjection()
    kw = dict(places=places, font_size=font_size)
    g.concat = get_row_vector(np.concatenate([m1, m2]), name=f"[m{h1}{t} | m{h2}{t}]", tag="concat",
                              column_colors=[c1] * d1 + [c2] * len(m2), **kw)
    g.W_O = get_labeled_matrix(W_O, joined_cols, list(axes), name="W_O", tag="W_O", **kw)
    for i in range(W_O.shape[0]):
        for j in range(W_O.shape[1]):
            g.W_O.cell(i, j).set_color(c1 if i < d1 else c2)
    g.delta = get_row_vector(delta, list(axes), name=f"Δe{t}", tag="delta", **kw)
    # the head boundary: a rule between the two messages, and between the two W_O blocks
    x_mid = (g.concat.cell_center(0, d1 - 1)[0] + g.concat.cell_center(0, d1)[0]) / 2
    g.divider = Line(UP * g.concat.row_height / 2, DOWN * g.concat.row_height / 2).set_x(x_mid)
    g.divider.set_y(g.concat.cell_center(0, 0)[1]).set_stroke(TEXT_COLOR, 2)
    g.concat.add(g.divider)
    y_mid = (g.W_O.cell_center(d1 - 1, 0)[1] + g.W_O.cell_center(d1, 0)[1]) / 2
    left = g.W_O.cell_center(0, 0)[0] - g.W_O.cell_width / 2
    right = g.W_O.cell_center(0, W_O.shape[1] - 1)[0] + g.W_O.cell_width / 2
    g.block_rule = Line([left, y_mid, 0], [right, y_mid, 0]).set_stroke(TEXT_COLOR, 1.5)
    g.block_rule.set_stroke(opacity=0.7)
    g.W_O.add(g.block_rule)
    g.top = VGroup(g.concat, _op("·"), g.W_O, _op("="), g.delta).arrange(RIGHT, buff=BUFF)

    g.m1 = get_row_vector(m1, name=f"m{h1}{t}", tag="m1", color=c1, **kw)
    g.W_O1 = get_labeled_matrix(W_O[:d1], None, list(axes), name=f"W_O{h1}", tag="W_O1", color=c1, **kw)
    g.c1 = get_row_vector(contribution_1, list(axes), name=f"m{h1}W_O{h1}", tag="contribution1",
                          color=c1, **kw)
    g.m2 = get_row_vector(m2, name=f"m{h2}{t}", tag="m2", color=c2, **kw)
    g.W_O2 = get_labeled_matrix(W_O[d1:], None, list(axes), name=f"W_O{h2}", tag="W_O2", color=c2, **kw)
    g.c2 = get_row_vector(contribution_2, list(axes), name=f"m{h2}W_O{h2}", tag="contribution2",
                          color=c2, **kw)
    g.delta_2 = get_row_vector(delta, list(axes), name=f"Δe{t}", tag="delta", **kw)
    g.bottom = VGroup(
        g.m1, _op("·"), g.W_O1, _op("+"), g.m2, _op("·"), g.W_O2,
    ).arrange(RIGHT, buff=BUFF)
    g.bottom_sum = VGroup(_op("="), g.c1, _op("+"), g.c2, _op("="), g.delta_2).arrange(RIGHT, buff=BUFF)
    for line in (g.top, g.bottom, g.bottom_sum):
        ref = line[0] if hasattr(line[0], "cell_center") else line[1]
        y = ref.cell_center(0, 0)[1]
        for part in line:
            if not hasattr(part, "cell_center"):
                part.set_y(y)
    VGroup(g.top, g.bottom, g.bottom_sum).arrange(DOWN, buff=BUFF_LARGE)
    g.add(g.top, g.bottom, g.bottom_sum)
    return g


__all__ = ["ConcatOutputProjection", "get_concat_output_projection"]
