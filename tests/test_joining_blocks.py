"""The blocks chapter 2's joining scenes add: pooled attention rows, word probability rows, and the
stacked layout of concat(m¹, m²)·W_O = m¹·W_O¹ + m²·W_O² (numbers by hand, layout by geometry)."""
from __future__ import annotations

import numpy as np
import pytest

from lesson_data.joining import pool_on_sources
from scenes.blocks.concat_output_projection import get_concat_output_projection
from scenes.blocks.pooled_rows import PooledRowSpec, get_pooled_rows, source_name
from scenes.blocks.word_probabilities import get_word_rows

TOKENS = ("the", "river", "bank", "the")


def test_pooled_rows_name_the_same_sources_in_every_row():
    a = pool_on_sources([0.1, 0.6, 0.2, 0.1], (1, 2))
    b = pool_on_sources([0.4, 0.1, 0.3, 0.2], (1, 2))
    table = get_pooled_rows(TOKENS, [PooledRowSpec("one", a, "#FFFFFF", "x"), PooledRowSpec("two", b, "#FFFFFF", "y")])
    assert [t.original_text for t in table.header] == ["river₂", "bank₃", "others (2)", "largest of them", "sum"]
    top, bottom = table.rows
    assert [m.value for m in top.shown] == [0.6, 0.2] and [m.value for m in bottom.shown] == [0.1, 0.3]
    assert top.others.value == pytest.approx(0.2) and bottom.others.value == pytest.approx(0.6)
    # the largest of the others, by name: 0.1 twice in the first row (the earlier, "the"₁), 0.4 in the second
    assert (top.largest.index, top.largest_word.original_text) == (0, "the₁")
    assert (bottom.largest.index, bottom.largest.value) == (0, 0.4)
    assert top.sum.original_text == "1.000"
    # one column, one source: the same x in both rows
    for k in range(2):
        assert top.shown[k].get_right()[0] == pytest.approx(bottom.shown[k].get_right()[0])
    # the stacked bar tiles one width: named sources, then others
    widths = [seg.width for seg in top.bar]
    assert widths == pytest.approx([2.0 * w for w in (0.6, 0.2, 0.2)], abs=1e-3)
    with pytest.raises(ValueError, match="same sources"):
        get_pooled_rows(TOKENS, [PooledRowSpec("one", a, "#FFFFFF", "x"),
                                 PooledRowSpec("two", pool_on_sources([0.4, 0.1, 0.3, 0.2], (0, 2)), "#FFFFFF", "y")])
    assert source_name(TOKENS, 3) == "the₄"


def test_pooled_rows_without_pooled_sources():
    whole = pool_on_sources([0.25, 0.75], (0, 1))
    table = get_pooled_rows(("a", "b"), [PooledRowSpec("one", whole, "#FFFFFF", "x")])
    assert [t.original_text for t in table.header] == ["a₁", "b₂", "sum"]
    assert table.rows[0].others is None


def test_word_rows_bars_are_proportional_to_p():
    vocab = ("water", "boats", "fish")
    rows = get_word_rows(vocab, [2.0, 1.0, 0.0], [0.6, 0.3, 0.1], [0, 2], bar_unit=3.0, tag_prefix="t_")
    assert set(rows.rows) == {0, 2}
    assert rows.rows[0].bar.width == pytest.approx(1.8) and rows.rows[2].bar.width == pytest.approx(0.3)
    assert rows.rows[0].p.tag == "t_p" and rows.rows[0].p.index == 0 and rows.rows[0].logit.original_text == "2.000"
    assert rows.rows[0].word.get_y() > rows.rows[2].word.get_y()              # in the order asked
    box = rows.get_row_box(2)
    assert box.get_left()[0] <= rows.rows[2].word.get_left()[0]


def test_stacked_concat_lines_share_columns_and_sum_under_the_updates():
    W_O = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0.25, 0, 1, 0], [0, 0, 0, 1]], float)
    m1, m2 = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    # by hand: m1 W_O¹ = [1, 2, 0, 0]; m2 W_O² = [0.75, 0, 3, 4]; sum [1.75, 2, 3, 4]
    cop = get_concat_output_projection(m1, m2, W_O, [1, 2, 0, 0], [0.75, 0, 3, 4], [1.75, 2, 3, 4], receiver=10,
                                       places=None, coordinate_names=("water", "finance", "person", "glue"),
                                       stacked=True)
    assert [t.original_text for t in cop.W_O.row_labels] == ["m¹ water", "m¹ finance", "m² person", "m² glue"]
    assert [cop.W_O2.cell(0, j).original_text for j in range(4)] == ["0.25", "0.00", "1.00", "0.00"]
    assert cop.W_O1.cell(0, 0).original_text == "1.00"            # one precision for W_O and its blocks
    for j in range(4):                                             # column under column
        assert cop.W_O2.cell_center(0, j)[0] == pytest.approx(cop.W_O1.cell_center(0, j)[0])
        assert cop.c2.cell_center(0, j)[0] == pytest.approx(cop.c1.cell_center(0, j)[0])
        assert cop.delta_2.cell_center(0, j)[0] == pytest.approx(cop.c2.cell_center(0, j)[0])
    assert cop.c1.get_y() > cop.c2.get_y() > cop.sum_rule.get_y() > cop.delta_2.get_y()
    assert cop.sum_label.original_text == "Δe₁₀ = m¹W_O¹ + m²W_O² ="
    assert [cop.delta_2.cell(0, j).value for j in range(4)] == [1.75, 2.0, 3.0, 4.0]
    assert cop.top.get_y() > cop.bottom.get_y()


def test_concat_output_projection_entry_places():
    # each W_O entry with its own precision: 1 and 0 as integers, 0.25 with two places (same values, tags)
    m1, m2 = np.array([1.0, 2.0]), np.array([3.0, 4.0])
    W_O = np.array([[1, 0, 0, 0], [0, 1, 0, 0], [0.25, 0, 1, 0], [0, 0, 0, 1]], float)
    cop = get_concat_output_projection(m1, m2, W_O, [1, 2, 0, 0], [0.75, 0, 3, 4], [1.75, 2, 3, 4], receiver=10,
                                       places=None, entry_places=True)
    assert [cop.W_O2.cell(0, j).original_text for j in range(4)] == ["0.25", "0", "1", "0"]
    assert [cop.W_O.cell(2, j).original_text for j in range(4)] == ["0.25", "0", "1", "0"]
    assert cop.W_O1.cell(0, 0).original_text == "1" and cop.W_O1.cell(0, 0).value == 1.0
    assert cop.W_O.cell(2, 0).tag == "W_O" and cop.W_O.cell(2, 0).index == (2, 0)
    assert cop.W_O.entries[2][0] is cop.W_O.cell(2, 0)                 # the shown entry is the new one
