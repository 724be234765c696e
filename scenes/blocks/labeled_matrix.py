"""A matrix of numbers with drawn brackets (lines, no LaTeX), row labels and column labels.

    m = get_labeled_matrix(ws.E, row_labels=ws.tokens, col_labels=AXES, name="E", tag="E")
    m.cell(9, 3)            # the NumberText at row 9, column 3 (zero-based)
    m.get_row_box(9)        # a highlight box over row 9, from the grid geometry

Cells sit on a uniform grid (every column as wide as its widest entry or label), numbers
right-aligned so the decimal points line up. Each number is a NumberText with tag=`tag` and
index=(i, j), so tests can match it to the data layer's array.
"""
from __future__ import annotations

import numpy as np
from manim import LEFT, RIGHT, UP, Line, Rectangle, VGroup

from lesson_data.display import places_for
from scenes.style import (
    BRACKET_COLOR,
    BUFF_SMALL,
    DIM_TEXT_COLOR,
    HIGHLIGHT_OPACITY,
    LABEL_SIZE,
    NUMBER_SIZE,
    PLACES,
    RECEIVER_COLOR,
    SMALL_SIZE,
    TEXT_COLOR,
    align_baseline,
    baseline_y,
    get_number,
    get_text,
)


def get_brackets(height: float, width: float, color: str = BRACKET_COLOR, serif: float = 0.1,
                 stroke_width: float = 2.0) -> VGroup:
    """A pair of square brackets enclosing a width × height box centred on the origin."""
    h, w = height / 2, width / 2

    def bracket(side):
        x = side * w
        return VGroup(
            Line([x, -h, 0], [x, h, 0]),
            Line([x, h, 0], [x - side * serif, h, 0]),
            Line([x, -h, 0], [x - side * serif, -h, 0]),
        ).set_stroke(color, stroke_width)

    return VGroup(bracket(-1), bracket(1))


class LabeledMatrix(VGroup):
    """Built by get_labeled_matrix. Parts: `entries` (VGroup of rows of NumberText), `brackets`,
    `row_labels`, `col_labels`, `name_label`, plus the grid geometry `cell_width`, `row_height`."""

    def cell(self, i: int, j: int):
        return self.grid[i][j]

    def row(self, i: int) -> VGroup:
        return self.entries[i]

    def column(self, j: int) -> VGroup:
        return VGroup(*(r[j] for r in self.grid))

    @property
    def n_rows(self) -> int:
        return len(self.grid)

    @property
    def n_cols(self) -> int:
        return len(self.grid[0]) if self.grid else 0

    # Cell centres come from the grid anchors (moved with the matrix), not from glyph bounds.
    def cell_center(self, i: int, j: int) -> np.ndarray:
        return self.anchors[i][j].get_center()

    def get_cell_box(self, i: int, j: int, color: str = RECEIVER_COLOR,
                     fill_opacity: float = HIGHLIGHT_OPACITY, stroke_width: float = 2.0) -> Rectangle:
        box = Rectangle(width=self.cell_width, height=self.row_height)
        box.set_stroke(color, stroke_width).set_fill(color, fill_opacity)
        return box.move_to(self.cell_center(i, j))

    def get_row_box(self, i: int, color: str = RECEIVER_COLOR, fill_opacity: float = HIGHLIGHT_OPACITY,
                    stroke_width: float = 2.0, include_label: bool = False) -> Rectangle:
        left = self.cell_center(i, 0)[0] - self.cell_width / 2
        right = self.cell_center(i, self.n_cols - 1)[0] + self.cell_width / 2
        if include_label and len(self.row_labels):
            # one left edge for every row's box, however long that row's label
            left = min(left, min(label.get_left()[0] for label in self.row_labels) - BUFF_SMALL)
        box = Rectangle(width=right - left, height=self.row_height)
        box.set_stroke(color, stroke_width).set_fill(color, fill_opacity)
        return box.move_to([(left + right) / 2, self.cell_center(i, 0)[1], 0])

    def get_column_box(self, j: int, color: str = RECEIVER_COLOR,
                       fill_opacity: float = HIGHLIGHT_OPACITY, stroke_width: float = 2.0) -> Rectangle:
        top = self.cell_center(0, j)[1] + self.row_height / 2
        bottom = self.cell_center(self.n_rows - 1, j)[1] - self.row_height / 2
        box = Rectangle(width=self.cell_width, height=top - bottom)
        box.set_stroke(color, stroke_width).set_fill(color, fill_opacity)
        return box.move_to([self.cell_center(0, j)[0], (top + bottom) / 2, 0])


def get_labeled_matrix(
    values,
    row_labels=None,
    col_labels=None,
    *,
    name: str | None = None,
    tag: str | None = None,
    places: int | None = PLACES,
    font_size: float = NUMBER_SIZE,
    label_size: float = SMALL_SIZE,
    name_size: float = LABEL_SIZE,
    color: str = TEXT_COLOR,
    column_colors=None,
    label_color: str = DIM_TEXT_COLOR,
    name_color: str = TEXT_COLOR,
    bracket_color: str = BRACKET_COLOR,
    h_buff: float = 0.22,
    v_buff: float = 0.16,
    dim_zeros: bool = False,
) -> LabeledMatrix:
    """A LabeledMatrix of `values` (2-D; a 1-D input is one row).

    row_labels / col_labels: strings (or None); name: shown above the column labels, e.g. "E  [10, 4]";
    column_colors: one colour per column for the numbers (e.g. head colours).
    places: decimals for every entry; None = the table's own precision (display.places_for: a
    hand-chosen one-decimal input reads 2.3, not 2.300). dim_zeros: exact zeros in the dim colour,
    so the entries that matter stand out.
    """
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[None, :]
    if values.ndim != 2:
        raise ValueError(f"get_labeled_matrix needs a 1-D or 2-D array, got shape {values.shape}")
    n_rows, n_cols = values.shape
    if places is None:
        places = places_for(values)

    def entry_color(i, j):
        if dim_zeros and values[i, j] == 0.0:
            return DIM_TEXT_COLOR
        return column_colors[j] if column_colors is not None else color

    grid = [
        [
            get_number(values[i, j], places, tag=tag, index=(i, j), font_size=font_size,
                       color=entry_color(i, j))
            for j in range(n_cols)
        ]
        for i in range(n_rows)
    ]
    col_texts = [get_text(str(c), font_size=label_size, color=label_color) for c in (col_labels or [])]
    widest = max([m.width for row in grid for m in row] + [t.width for t in col_texts] + [0.3])
    cell_width = widest + h_buff
    # Row height from a reference digit height, so every matrix at one font size has the same rows.
    digit_height = get_text("0", font_size=font_size).height
    row_height = digit_height + v_buff + 0.12

    matrix = LabeledMatrix()
    matrix.grid = grid
    matrix.values = values
    matrix.tag = tag
    matrix.cell_width = cell_width
    matrix.row_height = row_height

    # Invisible anchors carry the cell centres through moves and scales.
    anchors = []
    for i in range(n_rows):
        arow = []
        for j in range(n_cols):
            anchor = Rectangle(width=cell_width, height=row_height).set_stroke(width=0).set_fill(opacity=0)
            anchor.move_to([j * cell_width, -i * row_height, 0])
            arow.append(anchor)
            # right-align inside the cell (with half the buffer as padding)
            grid[i][j].move_to(anchor.get_right() + LEFT * h_buff / 2, aligned_edge=RIGHT)
        anchors.append(arow)
    matrix.anchors = anchors
    matrix.anchor_group = VGroup(*(a for row in anchors for a in row))
    matrix.entries = VGroup(*(VGroup(*row) for row in grid))

    body_width = n_cols * cell_width
    body_height = n_rows * row_height
    center = matrix.anchor_group.get_center()
    matrix.brackets = get_brackets(body_height, body_width + 0.08, color=bracket_color).move_to(center)

    matrix.row_labels = VGroup(*(get_text(str(r), font_size=label_size, color=label_color)
                                 for r in (row_labels or [])))
    if row_labels is not None and len(row_labels) != n_rows:
        raise ValueError(f"{len(row_labels)} row labels for {n_rows} rows")
    for i, label in enumerate(matrix.row_labels):
        label.move_to(matrix.brackets.get_left() + LEFT * BUFF_SMALL, aligned_edge=RIGHT)
        align_baseline(label, baseline_y(grid[i][0]))  # on the numbers' line, descenders below it

    if col_labels is not None and len(col_labels) != n_cols:
        raise ValueError(f"{len(col_labels)} column labels for {n_cols} columns")
    matrix.col_labels = VGroup(*col_texts)
    if len(col_texts):
        # one baseline for all column labels, whatever their glyphs, clear of the brackets
        lowest_descent = max(baseline_y(t) - t.get_bottom()[1] for t in col_texts)
        line_y = matrix.brackets.get_top()[1] + BUFF_SMALL + lowest_descent
        for j, label in enumerate(col_texts):
            label.set_x(anchors[0][j].get_x())
            align_baseline(label, line_y)

    matrix.name_label = VGroup()
    if name:
        label = get_text(name, font_size=name_size, color=name_color)
        above = matrix.col_labels if len(col_texts) else matrix.brackets
        label.next_to(above, UP, buff=BUFF_SMALL)
        label.set_x(matrix.brackets.get_center()[0])
        matrix.name_label = label

    matrix.add(matrix.anchor_group, matrix.brackets, matrix.entries, matrix.row_labels,
               matrix.col_labels, matrix.name_label)
    return matrix


def get_row_vector(values, col_labels=None, *, name: str | None = None, tag: str | None = None,
                   **kwargs) -> LabeledMatrix:
    """A [1, k] row vector: a one-row LabeledMatrix. `cell(0, j)` is its j-th entry."""
    return get_labeled_matrix(np.asarray(values, dtype=float).reshape(1, -1), None, col_labels,
                              name=name, tag=tag, **kwargs)


__all__ = ["LabeledMatrix", "get_labeled_matrix", "get_row_vector", "get_brackets"]
