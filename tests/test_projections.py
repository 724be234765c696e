"""lesson_data.projections: what a projection reads, worked by hand from the worksheet's matrices."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lesson_data.projections import (
    axes_read,
    copied_axes,
    dot_terms,
    change_word,
    listed_rows,
    most_shifted_source,
    offset_heads,
    shown_rows,
    unused_by_query,
)
from lesson_data.worksheet import W_K1, W_K2, W_O, W_Q1, W_Q2, W_V1, W_V2, bias_illustration, compute_worksheet


def test_axes_read_by_hand():
    # W_Q¹ = [[0,0],[0,0],[0,0],[1,1]]: only glue's row is non-zero; W_K¹ keeps water and finance
    assert axes_read(W_Q1) == ("glue",)
    assert axes_read(W_Q2) == ("glue",)
    assert axes_read(W_K1) == axes_read(W_V1) == ("water", "finance")
    assert axes_read(W_K2) == axes_read(W_V2) == ("person", "glue")
    assert axes_read(np.zeros((4, 2))) == ()
    assert axes_read(W_O) == ("water", "finance", "person", "glue")   # 4 rows, all non-zero
    with pytest.raises(ValueError, match=r"\[4, d\]"):
        axes_read(np.zeros((3, 2)))


def test_copied_axes_only_for_one_hot_columns():
    assert copied_axes(W_K1) == ("water", "finance")
    assert copied_axes(W_K2) == ("person", "glue")
    # W_Q¹ copies glue into both coordinates: each column is one-hot
    assert copied_axes(W_Q1) == ("glue", "glue")
    # W_Q²'s second column is all zeros: it copies nothing
    assert copied_axes(W_Q2) is None
    # a mixing column (0.25 of one axis plus another) is not a copy
    assert copied_axes(np.array([[1, 0.25], [0, 1], [0, 0], [0, 0]])) is None
    assert copied_axes(np.array([[2, 0], [0, 1], [0, 0], [0, 0]])) is None


def test_copied_axes_agree_with_the_worksheet_products():
    # second method: K = E · W_K really is the named columns of E, for both sentences
    axes = ["water", "finance", "person", "glue"]
    for sentence in ("river", "cheque"):
        ws = compute_worksheet(sentence)
        for head, W in zip(ws.heads, (W_K1, W_K2)):
            cols = [axes.index(a) for a in copied_axes(W)]
            np.testing.assert_array_equal(head.K, ws.E[:, cols])
            np.testing.assert_array_equal(head.V, ws.E[:, cols])


def test_dot_terms_river_receiver_by_hand():
    ws = compute_worksheet("river")
    e10 = ws.E[-1]                       # the + position 10: [0, 0, 0, 2.4 - 0.1]
    terms = dot_terms(e10, W_Q1[:, 0])
    assert [t.axis for t in terms] == ["water", "finance", "person", "glue"]
    assert [t.e for t in terms] == [0.0, 0.0, 0.0, pytest.approx(2.3)]
    assert [t.w for t in terms] == [0.0, 0.0, 0.0, 1.0]
    assert [t.counts for t in terms] == [False, False, False, True]
    # the one counting term is the worksheet's query coordinate
    assert sum(t.product for t in terms) == ws.heads[0].Q[-1, 0]
    # head 2, coordinate b: W_Q²'s column b is all zeros, so nothing counts and q²₁₀(b) = 0
    assert not any(t.counts for t in dot_terms(e10, W_Q2[:, 1]))
    assert ws.heads[1].Q[-1, 1] == 0.0
    with pytest.raises(ValueError):
        dot_terms([1, 2, 3], [1, 2, 3])


@pytest.mark.parametrize("n, want", [
    (1, [0]),
    (10, list(range(10))),
    (11, [0, 1, 2, 3, None, 6, 7, 8, 9, 10]),
    (20, [0, 1, 2, 3, None, 15, 16, 17, 18, 19]),
])
def test_shown_rows_by_hand(n, want):
    rows = shown_rows(n)
    assert rows == want
    assert len(rows) <= 10 and rows[-1] == n - 1          # the receiver's row is always shown


def test_shown_rows_rejects_nonsense():
    with pytest.raises(ValueError):
        shown_rows(0)


def test_most_shifted_source_river_is_river():
    bias = bias_illustration("river")
    j = most_shifted_source(bias)
    assert compute_worksheet("river").tokens[j] == "river"
    # second method: compare every source's shift by hand
    shifts = [abs(a - b) for a, b in zip(bias.weights_with, bias.weights_without)]
    assert all(shifts[j] >= s for s in shifts)


def test_offset_heads_split_each_projection_into_slices():
    assert offset_heads(4, 2) == (1, 1, 2, 2)
    assert offset_heads(4, 1) == (1, 1, 1, 1)
    assert offset_heads(6, 3) == (1, 1, 2, 2, 3, 3)
    with pytest.raises(ValueError):
        offset_heads(4, 3)


def test_change_word_and_the_two_sentences_move_differently():
    assert change_word(1.0, 2.0) == "rises" and change_word(2.0, 1.0) == "falls" and change_word(1.0, 1.0) == "stays"
    # river: b_Q = [0.2, -0.1] adds to the water coordinate, and river's key is mostly water:
    # q·k = 2.3·3.1 + 2.3·(-0.1) = 6.9  ->  2.5·3.1 + 2.2·(-0.1) = 7.53
    river = bias_illustration("river")
    j = most_shifted_source(river)
    assert river.scores_without[j] == pytest.approx(6.9) and river.scores_with[j] == pytest.approx(7.53)
    assert change_word(river.scores_without[j], river.scores_with[j]) == "rises"
    # cheque: its key is mostly finance (0.0 + 3.0 - 0.1 = 2.9), where b_Q subtracts:
    # 2.3·0 + 2.3·2.9 = 6.67  ->  2.5·0 + 2.2·2.9 = 6.38
    cheque = bias_illustration("cheque")
    k = most_shifted_source(cheque)
    assert compute_worksheet("cheque").tokens[k] == "cheque"
    assert cheque.scores_without[k] == pytest.approx(6.67) and cheque.scores_with[k] == pytest.approx(6.38)
    assert change_word(cheque.scores_without[k], cheque.scores_with[k]) == "falls"


def test_listed_rows_keep_every_source_of_a_short_sentence():
    got = listed_rows([0.5, 0.3, 0.2], [0.1, 0.1, 0.8])
    assert got.listed == (0, 1, 2) and got.pooled == () and got.pooled_sums == ()


def test_listed_rows_pool_the_smallest_by_hand():
    # 12 sources, room for 10 rows: 9 listed + "others"; the peaks decide (either row may hold it)
    a = [0.30, 0.01, 0.02, 0.10, 0.01, 0.05, 0.20, 0.03, 0.04, 0.06, 0.07, 0.11]
    b = [0.10, 0.01, 0.25, 0.05, 0.02, 0.05, 0.15, 0.03, 0.04, 0.06, 0.07, 0.17]
    got = listed_rows(a, b)
    # peaks: 0.30 .01 .25 .10 .02 .05 .20 .03 .04 .06 .07 .17 -> the three smallest (1, 4, 7) pooled
    assert got.pooled == (1, 4, 7)
    assert got.listed == (0, 2, 3, 5, 6, 8, 9, 10, 11)
    assert got.pooled_sums == (pytest.approx(0.05), pytest.approx(0.06))
    # the listed weights plus the pooled sum are the whole row
    assert sum(a[j] for j in got.listed) + got.pooled_sums[0] == pytest.approx(sum(a))
    # a source the sentence talks about stays listed, pushing out the smallest of the rest (8: 0.04)
    kept = listed_rows(a, b, keep=(4,))
    assert 4 in kept.listed and kept.pooled == (1, 7, 8)


def test_listed_rows_for_twenty_words_keep_the_bias_shift_visible():
    sentence = ("the fisherman sat beside the river bank and watched the water "
                "boats fish ducks teller clerk queue money she at")
    bias = bias_illustration(sentence)
    got = listed_rows(bias.weights_without, bias.weights_with)
    assert len(got.listed) == 9 and len(got.pooled) == 11
    assert most_shifted_source(bias) in got.listed
    assert got.pooled_sums[1] == pytest.approx(sum(bias.weights_with[j] for j in got.pooled), abs=1e-15)


def test_rows_sharing_token_by_hand():
    from lesson_data.projections import rows_sharing_token
    # "the fisherman sat beside the river bank and watched the": "the" at positions 1, 5 and 10
    tokens = ("the", "fisherman", "sat", "beside", "the", "river", "bank", "and", "watched", "the")
    assert rows_sharing_token(tokens, 9) == (0, 4, 9)
    assert rows_sharing_token(tokens, 5) == (5,)                  # "river" once
    # only the rows on screen: a table showing rows 0-3, "⋮", 8-9 holds two of the three
    assert rows_sharing_token(tokens, 9, shown=[0, 1, 2, 3, None, 8, 9]) == (0, 9)
    with pytest.raises(ValueError):
        rows_sharing_token(tokens, 10)


def test_rows_sharing_token_rows_differ_only_by_position():
    # a second method: one token gives one token row; E's rows differ exactly by their position rows
    from lesson_data.projections import rows_sharing_token
    ws = compute_worksheet("river")
    rows = rows_sharing_token(ws.tokens, ws.n - 1)
    assert len(rows) == 3
    for i in rows:
        assert np.array_equal(ws.token_rows[i], ws.token_rows[rows[0]])
        assert np.allclose(ws.E[i] - ws.E[rows[0]], ws.position_rows[i] - ws.position_rows[rows[0]])
    assert not np.array_equal(ws.E[rows[0]], ws.E[rows[-1]])


def test_differing_columns_by_hand():
    from lesson_data.projections import differing_columns
    # E's "the" rows as the viewer reads them (one decimal): 0.1 0.0 0.1 2.3 / 0.1 0.1 0.0 2.3 /
    # 0.0 0.0 0.0 2.3: water, finance and person differ, glue reads 2.3 each time
    e = [[0.1, 0.0, 0.1, 2.3], [9.0, 9.0, 9.0, 9.0], [0.1, 0.1, 0.0, 2.3], [0.0, 0.0, 0.0, 2.3]]
    assert differing_columns(e, (0, 2, 3), 1) == (0, 1, 2)
    # a difference finer than the shown precision is not shown: 2.30 and 2.34 both read 2.3
    assert differing_columns([[2.30, 1.0], [2.34, 1.5]], (0, 1), 1) == (1,)
    assert differing_columns(e, (0,), 1) == ()


def test_unused_by_query_names_the_zero_coordinates():
    assert unused_by_query([2.3, 0.0], ["person", "glue"]) == ("glue",)
    assert unused_by_query([2.3, 2.3], ["water", "finance"]) == ()
    assert unused_by_query([-0.0, 0.1], ["a", "b"]) == ("a",)          # -0.0 is zero too
    # the worksheet's receiver: head 2's query gives glue nothing, head 1's uses both
    ws = compute_worksheet("river")
    assert unused_by_query(ws.heads[1].Q[-1], ["person", "glue"]) == ("glue",)
    assert unused_by_query(ws.heads[0].Q[-1], ["water", "finance"]) == ()
    with pytest.raises(ValueError, match="one name per query coordinate"):
        unused_by_query([1.0, 2.0], ["a"])


def test_bias_score_terms_are_what_the_bias_adds_to_each_score():
    from lesson_data.projections import bias_score_terms
    bias = bias_illustration("river")
    terms = bias_score_terms(bias)
    # second method: the scores with the bias minus the scores without it
    np.testing.assert_allclose(terms, np.asarray(bias.scores_with) - np.asarray(bias.scores_without), atol=1e-12)
    # by hand: river's key (head 1, docs/WORKSHEET.md) is water 3.0 + position 0.1 = 3.1, finance
    # 0 - 0.1 = -0.1; b_Q¹ = [0.2, -0.1]: 0.2 * 3.1 + (-0.1) * (-0.1) = 0.63, the most of the ten
    river = compute_worksheet("river").tokens.index("river")
    np.testing.assert_allclose(bias.keys[river], [3.1, -0.1], atol=1e-12)
    assert math.isclose(terms[river], 0.63, abs_tol=1e-12)
    assert int(np.argmax(terms)) == river == most_shifted_source(bias)


def test_extreme_of_ranks_one_term_among_all():
    from lesson_data.projections import extreme_of
    assert extreme_of([0.1, 0.63, -0.29], 1) == "most"
    assert extreme_of([0.1, 0.63, -0.29], 2) == "least"
    assert extreme_of([0.1, 0.63, -0.29], 0) is None
    assert extreme_of([0.5, 0.5], 0) == "most" and extreme_of([0.5, 0.5], 1) is None   # ties: the earlier
