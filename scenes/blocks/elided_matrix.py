"""A labelled matrix that shows only some of its rows, a "⋮" where rows are left out: a [20, 4] table
does not fit the frame at a legible size, its first and last rows do.

    rows = lesson_data.projections.shown_rows(ws.n)          # e.g. [0, 1, 2, 3, None, 15, ..., 19]
    m = get_row_elided_matrix(ws.E, rows, row_labels=words, col_labels=AXES, tag="E", places=None)
    m.cell(k, j)          # the k-th SHOWN row's entry; its NumberText keeps index=(rows[k], j)
    m.shown               # the array rows shown, in order

Without a None in `rows` it is get_labeled_matrix of those rows (every cell's index is its row in
the full array). The numbers keep the full table's precision (places=None: display.places_for of
the whole array), so an elided table reads like the full one.
"""
from __future__ import annotations

import numpy as np
from manim import DOWN, VGroup

from lesson_data.display import places_for
from scenes.blocks.labeled_matrix import LabeledMatrix, get_brackets, get_labeled_matrix
from scenes.style import BRACKET_COLOR, DIM_TEXT_COLOR, LABEL_SIZE, get_text

DOTS_SIZE = LABEL_SIZE


def get_row_elided_matrix(values, rows, row_labels=None, col_labels=None, *, places=None,
                          bracket_color: str = BRACKET_COLOR, **kwargs) -> LabeledMatrix:
    """get_labeled_matrix of values[rows] (None in `rows`: one "⋮" row), cells indexed by their
    row in `values`."""
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[None, :]
    shown = [r for r in rows if r is not None]
    gaps = [k for k, r in enumerate(rows) if r is None]
    if len(gaps) > 1:
        raise ValueError("at most one elided stretch")
    if places is None:
        places = places_for(values)
    labels = None if row_labels is None else [row_labels[r] for r in shown]
    m = get_labeled_matrix(values[shown], labels, col_labels, places=places, bracket_color=bracket_color,
                           **kwargs)
    for k, r in enumerate(shown):
        for j in range(m.n_cols):
            m.grid[k][j].index = (r, j)
    m.shown = shown
    m.dots = VGroup()
    if gaps:
        gap = gaps[0]
        step = DOWN * m.row_height
        for k in range(gap, len(shown)):         # the rows after the gap move down one row
            VGroup(*m.anchors[k], m.entries[k]).shift(step)
            if len(m.row_labels):
                m.row_labels[k].shift(step)
        # one "⋮" per column, centred in the gap row, and one under the row labels
        y = m.anchors[gap - 1][0].get_y() - m.row_height if gap > 0 else m.anchors[0][0].get_y() + m.row_height
        for j in range(m.n_cols):
            m.dots.add(get_text("⋮", font_size=DOTS_SIZE, color=DIM_TEXT_COLOR)
                       .move_to([m.anchors[0][j].get_x(), y, 0]))
        if len(m.row_labels):
            m.dots.add(get_text("⋮", font_size=DOTS_SIZE, color=DIM_TEXT_COLOR)
                       .move_to([m.row_labels.get_right()[0] - 0.1, y, 0]))
        old = m.brackets
        body = VGroup(*(a for row in m.anchors for a in row))
        # as wide as before, one row taller
        new = get_brackets(body.height, body.width + 0.08, color=bracket_color).move_to(body.get_center())
        m.remove(old)
        m.brackets = new
        m.add(new, m.dots)
    return m


__all__ = ["get_row_elided_matrix"]
