"""The shared building blocks: structure and numbers, without rendering video.

Expected values are hand-worked or invariants (row counts, triangle counts, sums), never copied
from the builders' own output.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from lesson_data.display import fmt
from scenes.blocks.concat_output_projection import get_concat_output_projection
from scenes.blocks.labeled_matrix import get_labeled_matrix, get_row_vector
from scenes.blocks.masked_matrix import get_masked_matrix
from scenes.blocks.scalar_vector_product import get_scalar_vector_product
from scenes.blocks.shape_box import get_shape_box
from scenes.blocks.weight_column import get_weight_column
from scenes.style import (
    MASK_COLOR,
    SAFE_WIDTH,
    NumberText,
    get_caption,
    get_number,
    sub,
    sup,
)
from manim import config

# ---------------------------------------------------------------------------------- style


def test_get_number_shows_the_display_rule_and_keeps_full_precision():
    m = get_number(2.0 / 3.0)
    assert m.original_text == "0.667"
    assert m.value == 2.0 / 3.0              # unrounded
    assert get_number(-0.0001).original_text == "0.000"   # no "-0.000"
    assert get_number(-1.25, places=1).original_text == "-1.2"  # half-even on the binary value
    assert get_number(3.14159, tag="x", index=(1, 2)).index == (1, 2)


def test_superscripts_label_heads_and_subscripts_label_tokens():
    assert "q" + sup(1) + sub(10) == "q¹₁₀"
    assert sup(2) == "²" and sub(3) == "₃"


def test_caption_wraps_a_long_sentence_inside_the_frame():
    sentence = ("The water, finance, person and glue axes are invented for teaching; glue is our toy "
                "feature for function words such as “the”. W_Q reads all four input coordinates.")
    cap = get_caption(sentence)
    assert "\n" in cap.original_text                     # wrapped onto more than one line
    assert cap.original_text.replace("\n", " ") == sentence
    assert cap.width <= SAFE_WIDTH + 1e-6
    assert cap.get_bottom()[1] > -config.frame_height / 2
    short = get_caption("E has shape [10, 4].")
    assert "\n" not in short.original_text


# --------------------------------------------------------------------------- labeled matrix

VALUES = np.array([[0.5, -1.25, 2.0, 0.0], [10.0, 0.125, -0.0625, 3.5], [1 / 3, 2 / 3, 1.0, -2.5]])


def test_labeled_matrix_cell_lookup_returns_that_entry():
    m = get_labeled_matrix(VALUES, ["r1", "r2", "r3"], ["a", "b", "c", "d"], name="M", tag="M")
    assert (m.n_rows, m.n_cols) == (3, 4)
    for i in range(3):
        for j in range(4):
            cell = m.cell(i, j)
            assert isinstance(cell, NumberText)
            assert cell.value == VALUES[i, j] and cell.index == (i, j) and cell.tag == "M"
    assert m.cell(2, 0).original_text == "0.333"
    assert m.cell(1, 2).original_text == "-0.062"        # 0.0625 is exact in binary: half-even


def test_labeled_matrix_grid_geometry_rows_down_columns_right_decimals_aligned():
    m = get_labeled_matrix(VALUES, ["r1", "r2", "r3"], ["a", "b", "c", "d"])
    for i in range(3):
        xs = [m.cell(i, j).get_center()[0] for j in range(4)]
        assert xs == sorted(xs)
    for j in range(4):
        ys = [m.cell(i, j).get_center()[1] for i in range(3)]
        assert ys == sorted(ys, reverse=True)
        rights = [m.cell(i, j).get_right()[0] for i in range(3)]
        assert max(rights) - min(rights) < 1e-6           # right-aligned: decimal points line up
    for i, label in enumerate(m.row_labels):
        assert label.get_right()[0] < m.cell(i, 0).get_left()[0]
        assert abs(label.get_center()[1] - m.cell_center(i, 0)[1]) < 0.05
    for j, label in enumerate(m.col_labels):
        assert label.get_bottom()[1] > m.cell(0, j).get_top()[1]
    box = m.get_row_box(1)
    for j in range(4):
        c = m.cell(1, j)
        assert box.get_left()[0] <= c.get_left()[0] and c.get_right()[0] <= box.get_right()[0]
        assert box.get_bottom()[1] <= c.get_bottom()[1] and c.get_top()[1] <= box.get_top()[1]
    # brackets enclose every entry
    assert m.brackets.get_left()[0] < min(m.cell(i, 0).get_left()[0] for i in range(3))
    assert m.brackets.get_right()[0] > max(m.cell(i, 3).get_right()[0] for i in range(3))


def test_labeled_matrix_geometry_follows_moves():
    m = get_labeled_matrix(VALUES)
    before = m.cell_center(2, 3).copy()
    m.shift([1.0, -2.0, 0.0])
    assert np.allclose(m.cell_center(2, 3), before + [1.0, -2.0, 0.0])


def test_labeled_matrix_rejects_wrong_label_counts():
    with pytest.raises(ValueError, match="2 row labels for 3 rows"):
        get_labeled_matrix(VALUES, ["a", "b"])


def test_row_vector_is_one_row():
    v = get_row_vector([1.0, 2.0], ["a", "b"], tag="v")
    assert (v.n_rows, v.n_cols) == (1, 2) and v.cell(0, 1).value == 2.0


# ---------------------------------------------------------------------------- shape box


def test_shape_box_labels_and_proportional_width():
    e = get_shape_box("E", (10, 4))
    q = get_shape_box("Q", (10, 2))
    assert e.shape_label.original_text == "[10, 4]"
    assert e.name_label.original_text == "E"
    assert math.isclose(q.box.width * 2, e.box.width)
    assert math.isclose(q.box.height, e.box.height)
    mlp = get_shape_box("MLP", None, width=1.0, height=0.6)
    assert len(mlp.shape_label) == 0 and math.isclose(mlp.box.width, 1.0)


# ---------------------------------------------------------------------------- weight column

WORDS = ["the", "fisherman", "sat", "beside", "the", "river", "bank", "and", "watched", "the"]


def _softmax(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


@pytest.mark.parametrize("weights", [
    np.array([0.5, 0.25, 0.125, 0.125]),
    _softmax(np.linspace(-1.0, 2.0, 10)),     # ten sources, none of them round numbers
    np.full(7, 1 / 7),                          # 7 × 0.143 = 1.001: rounding visible, sum still 1
])
def test_weight_column_has_one_row_per_source_and_sums_to_one(weights):
    n = len(weights)
    col = get_weight_column(WORDS[:n] if n <= 10 else list(range(n)), weights, tag="A")
    assert len(col.rows) == n and len(col.weights) == n and len(col.labels) == n
    shown = [float(m.original_text) for m in col.weights]
    # each displayed weight is within half a unit of the last place, so the displayed sum is
    # within n half-units of the true sum, 1
    assert abs(sum(shown) - 1.0) <= n * 0.0005 + 1e-12
    assert col.sum_number.original_text == "1.000"
    assert col.sum_number.value == pytest.approx(1.0, abs=1e-12)
    # stacked top to bottom in source order, word left of its weight, bar width ∝ weight
    ys = [r.get_center()[1] for r in col.rows]
    assert ys == sorted(ys, reverse=True)
    for j in range(n):
        assert col.labels[j].get_right()[0] < col.weight(j).get_left()[0]
        assert col.bars[j].width == pytest.approx(1.2 * weights[j], abs=1e-3)
    assert col.sum_number.get_center()[1] < col.rows[-1].get_center()[1]


def test_weight_column_rejects_mismatched_lengths():
    with pytest.raises(ValueError, match="3 labels for 2 weights"):
        get_weight_column(["a", "b", "c"], [0.5, 0.5])


# ---------------------------------------------------------------------------- masked matrix


@pytest.mark.parametrize("n", [1, 4, 10])
def test_masked_matrix_blanks_exactly_the_upper_triangle(n):
    rng = np.random.default_rng(n)
    w = np.tril(rng.random((n, n)))
    w /= w.sum(axis=1, keepdims=True)
    mm = get_masked_matrix(w, [f"t{i}" for i in range(n)], [f"t{i}" for i in range(n)], tag="A")
    assert len(mm.numbers) == n * (n + 1) // 2
    assert len(mm.blocked) == n * (n - 1) // 2
    assert {m.index for m in mm.numbers} == {(i, j) for i in range(n) for j in range(n) if j <= i}
    assert {b.blocked_index for b in mm.blocked} == {(i, j) for i in range(n) for j in range(n) if j > i}
    for i in range(n):
        for j in range(n):
            sq = mm.square(i, j)
            # row i is i squares down, column j is j squares right of cell (0, 0)
            expected = mm.square(0, 0).get_center() + np.array([j * mm.side, -i * mm.side, 0])
            assert np.allclose(sq.get_center(), expected)
            num = mm.number(i, j)
            if j > i:
                assert num is None
                assert sq.get_fill_color().to_hex().lower() == MASK_COLOR.lower()
                assert sq.get_fill_opacity() == 1.0
            else:
                assert num.value == w[i, j] and num.original_text == fmt(w[i, j])
                assert sq.get_left()[0] < num.get_center()[0] < sq.get_right()[0]
                assert sq.get_bottom()[1] < num.get_center()[1] < sq.get_top()[1]


def test_masked_matrix_shades_heavier_weights_darker_and_never_reads_the_future():
    w = np.array([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.1, 0.2, 0.7]])
    w_with_future_garbage = w + np.triu(np.full((3, 3), 99.0), k=1)
    mm = get_masked_matrix(w_with_future_garbage)
    assert {m.value for m in mm.numbers} == {1.0, 0.25, 0.75, 0.1, 0.2, 0.7}
    op = lambda i, j: mm.square(i, j).get_fill_opacity()
    assert op(1, 0) < op(1, 1) and op(2, 0) < op(2, 1) < op(2, 2) < op(0, 0)


def test_masked_matrix_never_draws_text_below_the_floor():
    from scenes.style import MIN_TEXT_SIZE
    from tests.scene_harness import effective_font_size

    # the widest three-decimal weights, at the defaults: digits and labels at or above the floor
    w = np.tril(np.full((4, 4), 0.333))
    w[np.diag_indices(4)] = 1.0
    mm = get_masked_matrix(w, list("abcd"), list("abcd"), tag="A")
    sizes = [effective_font_size(t) for t in (*mm.numbers, *mm.row_labels, *mm.col_labels)]
    assert len(sizes) == 10 + 8 and min(sizes) >= MIN_TEXT_SIZE - 0.05
    # the old defaults (side 0.5, size 11) and a cell too small for size-16 digits are refused
    with pytest.raises(ValueError, match="floor"):
        get_masked_matrix(w, font_size=11)
    with pytest.raises(ValueError, match="floor"):
        get_masked_matrix(w, side=0.5)
    with pytest.raises(ValueError, match="floor"):
        get_masked_matrix(w, label_size=12)


def test_masked_matrix_needs_a_square_array():
    with pytest.raises(ValueError, match="square"):
        get_masked_matrix(np.zeros((2, 3)))


def test_masked_matrix_heat_map_cells_step_with_the_weight_and_the_future_is_darkest():
    from scenes.blocks.masked_matrix import BLOCKED_COLOR, heat_color
    from scenes.style import BACKGROUND

    w = np.array([[1.0, 0.0, 0.0], [0.25, 0.75, 0.0], [0.1, 0.2, 0.7]])
    mm = get_masked_matrix(w, ["a", "b", "c"], ["a", "b", "c"], color="#56B4E9", heat=True,
                           cell_width=0.7, cell_height=0.4, font_size=16, tag="A")
    # rectangular cells on the grid: column j is j cell widths right, row i is i cell heights down
    assert mm.square(2, 1).get_center() == pytest.approx(mm.square(0, 0).get_center() + np.array([0.7, -0.8, 0]))
    assert mm.square(1, 1).width == pytest.approx(0.7) and mm.square(1, 1).height == pytest.approx(0.4)
    # a weight's fill is the background moved toward the head colour by round(sqrt(w) * 32) / 32:
    # w = 0.25 -> sqrt 0.5 -> step 16 -> halfway; w = 1 -> the head colour; w = 0 -> the background
    bg, fg = np.array([0x14, 0x16, 0x1C]), np.array([0x56, 0xB4, 0xE9])
    half = np.rint((bg + fg) / 2).astype(int)
    got = np.array([int(heat_color(0.25, "#56B4E9")[k:k + 2], 16) for k in (1, 3, 5)])
    assert np.abs(got - half).max() <= 1
    assert heat_color(1.0, "#56B4E9").upper() == "#56B4E9"
    assert heat_color(0.0, "#56B4E9").upper() == BACKGROUND.upper()

    def lum(color):
        r, g, b = (int(color[k:k + 2], 16) for k in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    fills = {(i, j): mm.square(i, j).get_fill_color().to_hex() for i in range(3) for j in range(i + 1)}
    assert lum(fills[(2, 0)]) < lum(fills[(2, 1)]) < lum(fills[(2, 2)]) < lum(fills[(0, 0)])   # 0.1 < 0.2 < 0.7 < 1
    # future cells: darker than the background (the colour of weight 0), so darker than any weight, hatched
    assert all(sq.get_fill_color().to_hex().upper() == BLOCKED_COLOR.upper() for sq in mm.blocked)
    assert lum(BLOCKED_COLOR) < lum(BACKGROUND) <= min(lum(f) for f in fills.values())
    assert len(mm.hatch) == len(mm.blocked) == 3
    # the digits keep their size (no shrinking below the floor) and sit inside their cells
    for (i, j), num in ((m.index, m) for m in mm.numbers):
        assert num.font_size == pytest.approx(16)
        assert mm.square(i, j).get_left()[0] < num.get_left()[0] and num.get_right()[0] < mm.square(i, j).get_right()[0]


# --------------------------------------------------------------------- scalar-vector product


def test_scalar_vector_product_multiplies_every_coordinate():
    svp = get_scalar_vector_product(0.25, [4.0, -2.0], tag="s", expanded=True)
    assert svp.alpha.value == 0.25
    assert [svp.vector.cell(0, k).value for k in range(2)] == [4.0, -2.0]
    assert [svp.product.cell(0, k).value for k in range(2)] == [1.0, -0.5]   # by hand
    assert [svp.product.cell(0, k).original_text for k in range(2)] == ["1.000", "-0.500"]
    # laid out left to right: α × v = [α·v] = αv
    xs = [svp.alpha, svp.vector, svp.expanded, svp.product]
    assert [m.get_center()[0] for m in xs] == sorted(m.get_center()[0] for m in xs)


def test_scalar_vector_product_stacked_with_the_value_in_its_own_precision():
    svp = get_scalar_vector_product(0.25, [4.0, -2.0], tag="s", expanded=True, stacked=True, vector_places=1)
    # 0.25 × [4.0, -2.0]; = [0.25 × 4.0, 0.25 × (-2.0)]; = [1.000, -0.500], top to bottom
    assert [svp.vector.cell(0, k).original_text for k in range(2)] == ["4.0", "-2.0"]
    terms = svp.expanded[1]
    flat = [[m.original_text for m in term.get_family() if hasattr(m, "original_text") and m is not term]
            for term in terms]
    assert flat[0] == ["0.250", "×", "4.0"]
    assert flat[1] == ["0.250", "×", "(", "-2.0", ")"]          # a negative factor in parentheses
    assert [svp.product.cell(0, k).original_text for k in range(2)] == ["1.000", "-0.500"]
    first, second, third = svp.lines
    assert first.get_center()[1] > second.get_center()[1] > third.get_center()[1]
    # the "=" signs stand in one column, left-aligned under the α
    assert svp.equals.get_left()[0] == pytest.approx(svp.equals_2.get_left()[0], abs=1e-6)
    assert svp.equals.get_left()[0] == pytest.approx(svp.alpha.get_left()[0], abs=1e-6)
    # the product is unrounded α × unrounded v unless the data layer passes it
    other = get_scalar_vector_product(0.25, [4.0, -2.0], product=[1.5, 2.5], stacked=True)
    assert [other.product.cell(0, k).value for k in range(2)] == [1.5, 2.5]


# ------------------------------------------------------------- concat and output projection


def test_concat_output_projection_shows_both_sides_of_the_equality():
    W_O = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0.25, 0, 1, 0], [0, 0, 0, 1]], float)
    m1, m2 = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    # by hand: m1 W_O¹ = [1, 2, 0, 0]; m2 W_O² = [0.75, 0, 3, 4]; sum [1.75, 2, 3, 4]
    c1, c2, delta = [1, 2, 0, 0], [0.75, 0, 3, 4], [1.75, 2, 3, 4]
    cop = get_concat_output_projection(m1, m2, W_O, c1, c2, delta, receiver=10)
    row = lambda lm: [lm.cell(0, k).value for k in range(lm.n_cols)]
    assert row(cop.concat) == [1.0, 2.0, 3.0, 4.0]
    assert row(cop.delta) == row(cop.delta_2) == [1.75, 2.0, 3.0, 4.0]
    assert row(cop.c1) == [1.0, 2.0, 0.0, 0.0] and row(cop.c2) == [0.75, 0.0, 3.0, 4.0]
    assert [[cop.W_O1.cell(i, j).value for j in range(4)] for i in range(2)] == [[1, 0, 0, 0], [0, 1, 0, 0]]
    assert [[cop.W_O2.cell(i, j).value for j in range(4)] for i in range(2)] == [[0.25, 0, 1, 0], [0, 0, 0, 1]]
    assert cop.top.get_center()[1] > cop.bottom.get_center()[1]
    assert "m¹₁₀" in cop.m1.name_label.original_text


def test_concat_output_projection_rejects_a_mismatched_W_O():
    with pytest.raises(ValueError, match="W_O has 3 rows"):
        get_concat_output_projection([1, 2], [3, 4], np.zeros((3, 4)), [0] * 4, [0] * 4, [0] * 4)
