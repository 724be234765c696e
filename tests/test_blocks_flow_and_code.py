"""Blocks added for chapter 2's scenes 6, 7, 16 and 17: shape_flow, elided_matrix, code_panel."""
from __future__ import annotations

import numpy as np
import pytest

from lesson_data.projections import shown_rows
from scenes.blocks.code_panel import get_code_panel, mono_advance
from scenes.blocks.elided_matrix import get_row_elided_matrix
from scenes.blocks.labeled_matrix import get_labeled_matrix
from scenes.blocks.shape_box import get_shape_box
from scenes.blocks.shape_flow import get_column_strip, get_concat_box, get_masked_box, get_routed_arrow, get_row_strip


def test_row_strip_is_one_row_of_the_box():
    box = get_shape_box("Q", (10, 2), unit=0.13)
    strip = get_row_strip(box)                       # the last row: the receiver's
    assert strip.height == pytest.approx(box.box.height / 10)
    assert strip.get_bottom()[1] == pytest.approx(box.box.get_bottom()[1])
    first = get_row_strip(box, 0)
    assert first.get_top()[1] == pytest.approx(box.box.get_top()[1])
    column = get_column_strip(box, 1)
    assert column.width == pytest.approx(box.box.width / 2)
    assert column.get_right()[0] == pytest.approx(box.box.get_right()[0])


def test_concat_box_splits_by_head_width():
    box = get_concat_box("[H¹ | H²]", (10, 4), widths=(2, 2), colors=("#56B4E9", "#E69F00"))
    a, b = box.halves
    assert a.width == pytest.approx(b.width) == pytest.approx(box.box.width / 2)
    assert a.get_right()[0] == pytest.approx(b.get_left()[0])
    uneven = get_concat_box("x", (10, 4), widths=(1, 3), colors=("#000000", "#FFFFFF"))
    assert uneven.halves[1].width == pytest.approx(3 * uneven.halves[0].width)


def test_masked_box_blocks_the_upper_right_triangle():
    box = get_masked_box("A¹", (10, 10), color="#56B4E9")
    corners = box.mask_triangle.get_vertices()
    r = box.box
    # top-left, top-right, bottom-right: the future sources (j > i) of every receiver row
    assert np.allclose(sorted(map(tuple, corners[:, :2])), sorted([tuple(r.get_corner(v)[:2]) for v in
                                                                  (np.array([-1, 1, 0]), np.array([1, 1, 0]),
                                                                   np.array([1, -1, 0]))]))


def test_stepped_masked_box_blocks_whole_future_cells_and_leaves_the_diagonal_open():
    box = get_masked_box("A¹", (4, 4), color="#56B4E9", stepped=True)
    r, tri = box.box, box.mask_triangle
    w, h = r.width / 4, r.height / 4
    # a staircase: 2 corners at the top right, then a step down and across per row: 3 + 2·3 points
    assert len(tri.get_vertices()) == 9

    def centre(i, j):
        return np.array([r.get_left()[0] + (j + 0.5) * w, r.get_top()[1] - (i + 0.5) * h])

    poly = tri.get_vertices()[:, :2]

    def inside(p):              # even–odd ray casting to the right
        crossings = 0
        for a, b in zip(poly, np.roll(poly, -1, axis=0)):
            if (a[1] > p[1]) != (b[1] > p[1]):
                x = a[0] + (p[1] - a[1]) * (b[0] - a[0]) / (b[1] - a[1])
                crossings += x > p[0]
        return crossings % 2 == 1

    for i in range(4):
        for j in range(4):
            assert inside(centre(i, j)) == (j > i), (i, j)   # the diagonal stays open


def test_routed_arrow_goes_through_its_points():
    path = get_routed_arrow([[0, 0, 0], [0, -1, 0], [3, -1, 0], [3, 0, 0]])
    assert len(path.legs) == 2
    assert np.allclose(path.legs[0].get_start(), [0, 0, 0]) and np.allclose(path.tip.get_end(), [3, 0, 0], atol=1e-6)


def test_elided_matrix_keeps_each_cell_at_its_array_row():
    values = np.arange(80, dtype=float).reshape(20, 4) / 10
    rows = shown_rows(20)
    m = get_row_elided_matrix(values, rows, [f"w{i}" for i in range(20)], list("abcd"), tag="T")
    shown = [r for r in rows if r is not None]
    assert m.shown == shown and m.n_rows == 9
    assert {m.cell(k, j).index for k in range(9) for j in range(4)} == {(r, j) for r in shown for j in range(4)}
    assert all(m.cell(k, j).value == values[r, j] for k, r in enumerate(shown) for j in range(4))
    # the rows after the gap sit one row lower: the "⋮" row between them
    pitch = m.cell_center(1, 0)[1] - m.cell_center(2, 0)[1]
    gap = m.cell_center(3, 0)[1] - m.cell_center(4, 0)[1]
    assert gap == pytest.approx(2 * pitch)
    assert len(m.dots) == 5                           # one per column and one under the labels
    assert m.brackets.height > 10 * pitch - 1e-6
    # without an elision it is the plain labelled matrix of those rows
    plain = get_row_elided_matrix(values[:3], [0, 1, 2], None, None, tag="P")
    ref = get_labeled_matrix(values[:3], None, None, tag="P", places=1)
    assert plain.width == pytest.approx(ref.width) and len(plain.dots) == 0


def test_code_panel_keeps_indentation_and_aligns_comments():
    panel = get_code_panel([
        ("delta_E, A = mha(E, E, E,", "# E: [1, 10, 4]"),
        ("    attn_mask=future,", "# True = blocked"),
        "",
        "    need_weights=True)",
    ])
    assert panel.source[1].startswith("    attn_mask=future,") and panel.source[2] == ""
    adv = mono_advance(18)
    # line 1 starts four character cells to the right of line 0
    assert panel.line(1).get_left()[0] - panel.line(0).get_left()[0] == pytest.approx(4 * adv, abs=0.02)
    # both comments start in the same column
    assert panel.source[0].index("#") == panel.source[1].index("#")
    assert panel.find("need_weights") == 3
    # one pitch per line, the empty line included; a line's bar is centred on it
    assert panel.line_y(0) - panel.line_y(3) == pytest.approx(3 * panel.pitch)
    bar = panel.get_line_box(3)
    assert bar.get_y() == pytest.approx(panel.line_y(3))
    assert abs(panel.line(3).get_y() - bar.get_y()) < panel.pitch / 2
    assert all(t.font == "DejaVu Sans Mono" for t in panel.lines if len(t.submobjects))
