"""Derived per-row quantities of the walk: invariants against the worksheet's own arrays."""
import math

import numpy as np
import pytest

from lesson_data.walkthrough import message_terms, pool_attention_row, unshifted_softmax_row
from lesson_data.worksheet import compute_worksheet


@pytest.mark.parametrize("sentence", ["river", "cheque"])
@pytest.mark.parametrize("h", [0, 1])
def test_terms_sum_to_the_message_and_unshifted_softmax_gives_the_same_weights(sentence, h):
    head = compute_worksheet(sentence).heads[h]
    for i in range(head.weights.shape[0]):
        terms = message_terms(head, i)
        np.testing.assert_allclose(terms.sum(axis=0), head.messages[i], rtol=0, atol=1e-14)
        # one source by hand: weight times value row, coordinate by coordinate
        assert terms[0, 1] == head.weights[i, 0] * head.V[0, 1]
        _, den, w = unshifted_softmax_row(head, i)
        np.testing.assert_allclose(w, head.weights[i, : i + 1], rtol=1e-14, atol=0)
        # exp(max) scales the stable denominator up to the unshifted one
        assert den == pytest.approx(head.denominators[i] * math.exp(head.row_max[i]), rel=1e-13)


def test_pooling_keeps_the_row_total():
    row = compute_worksheet("river").heads[0].weights[-1]
    p = pool_attention_row(row, top=3)
    assert len(p.top) == 3 and p.n_others == 7
    assert math.fsum(p.segments) == pytest.approx(1.0, abs=1e-15)


# ------------------------------------------------------------------ the walk's choices, by hand

from decimal import Decimal
from types import SimpleNamespace

from lesson_data.walkthrough import (
    MessageReading,
    WalkedSource,
    choose_walk_sources,
    early_row_example,
    product_rounding_gaps,
    ranked_sources,
    read_message,
    rounded_parts_sum,
    rounding_differences,
    rounding_shows_in_sum,
    score_walk_sources,
    shows_negative,
    value_axes,
)


def fake_head(row, V):
    """A one-receiver head: the last row of A is `row` (earlier rows unused), V as given."""
    row, V = np.asarray(row, float), np.asarray(V, float)
    n = len(row)
    weights = np.zeros((n, n))
    weights[-1] = row
    return SimpleNamespace(weights=weights, V=V, messages=weights @ V)


def test_shows_negative_follows_the_display_rule():
    assert shows_negative(-0.0006) and shows_negative(-2.0)
    assert not shows_negative(-0.0004)          # shows 0.000: no sign on screen
    assert not shows_negative(0.0)


def test_ranked_sources_largest_first_ties_earlier_first_future_never():
    w = [0.1, 0.5, 0.2, 0.5]
    assert ranked_sources(w, 3) == [1, 3, 2, 0]
    assert ranked_sources(w, 2) == [1, 2, 0]    # source 4 is in receiver 3's future


def test_walk_sources_top_then_sign_then_small_by_hand():
    # top: source 1 (0.6 × [2, 1], nothing negative); sign: source 2 (0.05 × -1 = -0.05);
    # small: source 4 (0.05 < 1/4, value [0.4, 0.8] has no zero; source 3 has 0.3 >= 1/4)
    head = fake_head([0.6, 0.05, 0.3, 0.05], [[2, 1], [-1, 0.5], [1, 1], [0.4, 0.8]])
    assert choose_walk_sources(head, 3) == [WalkedSource(0, ("top",)), WalkedSource(1, ("sign",)),
                                            WalkedSource(3, ("small",))]
    assert choose_walk_sources(head, 3, count=1) == [WalkedSource(0, ("top",))]


def test_walk_sources_top_shows_the_sign_itself_and_small_skips_a_zero_coordinate():
    # top [3, -0.1] × 0.7: -0.07 reads negative; source 3's value has a zero, so source 2 is "small"
    head = fake_head([0.7, 0.1, 0.2], [[3, -0.1], [0.5, 0.5], [1, 0]])
    assert choose_walk_sources(head, 2) == [WalkedSource(0, ("top", "sign")), WalkedSource(1, ("small",))]


def test_river_head_1_walks_river_and_bank():
    head = compute_worksheet("river").heads[0]
    # river (6) has the largest weight and value [3.1, -0.1]; bank (7) [0.7, 0.7] under 0.053 < 1/10
    assert choose_walk_sources(head, 9) == [WalkedSource(5, ("top", "sign")), WalkedSource(6, ("small",))]
    assert score_walk_sources(head, 9) == [5]
    assert score_walk_sources(head, 9, count=2) == [5, 9]


def test_rounded_parts_sum_adds_the_shown_digits():
    assert rounded_parts_sum([0.3334, 0.3333, 0.3333]) == Decimal("0.999")
    assert rounding_shows_in_sum([0.3334, 0.3333, 0.3333], 1.0)
    assert not rounding_shows_in_sum([0.5, 0.25, 0.25], 1.0)
    assert rounded_parts_sum([0.25, 0.25], places=1) == Decimal("0.4")   # 0.2 + 0.2 (half-even on binary)


def test_river_rounding_shows_in_the_weights_and_the_message():
    head = compute_worksheet("river").heads[0]
    # shown weights 0.006 0.166 0.009 0.012 0.008 0.718 0.053 0.005 0.017 0.005 add to 0.999
    assert rounded_parts_sum(head.weights[9]) == Decimal("0.999")
    # coordinate b of the message: the shown products add to -0.017, the message shows -0.018
    assert rounding_differences(head, 9) == [1]


def test_product_rounding_gap_river_by_hand():
    # 0.71765 × 3.1 = 2.224715 shows 2.225; 0.718 × 3.1 = 2.2258 shows 2.226.
    # 0.71765 × -0.1 = -0.071765 and 0.718 × -0.1 = -0.0718 both show -0.072: no gap.
    gaps = product_rounding_gaps(0.71765, [3.1, -0.1])
    assert len(gaps) == 1 and gaps[0].coordinate == 0
    assert gaps[0].exact == pytest.approx(2.224715, abs=1e-12)
    assert gaps[0].from_shown == pytest.approx(2.2258, abs=1e-12) and gaps[0].from_shown_places == 4
    assert product_rounding_gaps(0.5, [0.2, 0.4]) == []


def test_value_axes_name_the_copied_input_axis():
    assert value_axes([[1, 0], [0, 1], [0, 0], [0, 0]]) == ["water", "finance"]
    assert value_axes([[0, 0], [0, 0], [1, 0], [0, 1]]) == ["person", "glue"]
    assert value_axes([[1, 1], [0, 0], [0, 0], [1, 0]]) == [None, "water"]   # a mixed column carries no one axis


def test_read_message_by_hand():
    # m = 0.2 [1, 0] + 0.8 [2, 0.5] = [1.8, 0.4]: coordinate a, mostly source 2 (1.6 / 1.8)
    reading = read_message(fake_head([0.2, 0.8], [[1, 0], [2, 0.5]]), 1)
    assert (reading.coordinate, reading.source) == (0, 1)
    assert reading.share == pytest.approx(1.6 / 1.8) and reading.mostly_one_source
    assert not MessageReading(0, 1, 0.4).mostly_one_source


def test_river_messages_are_mostly_water_from_river_and_person_from_fisherman():
    ws = compute_worksheet("river")
    one, two = (read_message(h, 9) for h in ws.heads)
    # head 1: 0.718 × 3.1 = 2.225 of 2.617 (water); head 2: 0.693 × 2.1 = 1.455 of 1.552 (person)
    assert (one.coordinate, one.source) == (0, 5) and one.share == pytest.approx(2.2247 / 2.6168, abs=1e-3)
    assert (two.coordinate, two.source) == (0, 1) and two.share == pytest.approx(1.4553 / 1.5520, abs=1e-3)


def test_early_row_example():
    assert [early_row_example(n) for n in (1, 2, 3, 4, 10, 20)] == [None, 0, 1, 2, 2, 2]


def test_heads_differ_runs_groups_rows_whose_top_sources_differ():
    from lesson_data.walkthrough import DifferingRun, heads_differ_runs

    # 4 receivers, lower-triangular rows (the future entries are junk the function must not read)
    a = np.array([[1.0, 9, 9, 9],
                  [0.2, 0.8, 9, 9],        # top: source 1
                  [0.1, 0.7, 0.2, 9],      # top: source 1
                  [0.5, 0.3, 0.1, 0.1]])   # top: source 0
    b = np.array([[1.0, 0, 0, 0],
                  [0.6, 0.4, 0, 0],        # top: source 0 (differs)
                  [0.5, 0.4, 0.1, 0],      # top: source 0 (differs, same pair: one run)
                  [0.5, 0.5, 0.0, 0.0]])   # tie 0.5 / 0.5: the earlier source, 0 (same as a)
    assert heads_differ_runs(a, b) == [DifferingRun(first=1, last=2, source_a=1, source_b=0)]
    assert heads_differ_runs(a, a) == []
    with pytest.raises(ValueError):
        heads_differ_runs(a, b[:3, :3])


def test_heads_differ_runs_on_the_river_worksheet():
    from lesson_data.walkthrough import heads_differ_runs

    ws = compute_worksheet("river")
    one, two = (h.weights for h in ws.heads)
    # independently: each row's argmax over its readable sources, compared head by head
    tops = [(int(np.argmax(one[i, : i + 1])), int(np.argmax(two[i, : i + 1]))) for i in range(ws.n)]
    differ = [i for i, (x, y) in enumerate(tops) if x != y]
    runs = heads_differ_runs(one, two)
    assert [i for r in runs for i in range(r.first, r.last + 1)] == differ
    # rows 6–10: head 1 peaks on "river" (source 6), head 2 on "fisherman" (source 2)
    assert [(r.first, r.last, r.source_a, r.source_b) for r in runs] == [(5, 9, 5, 1)]


def test_settled_split_starts_where_both_heads_lead_clearly():
    from lesson_data.walkthrough import DifferingRun, settled_split

    # 4 receivers; rows 1–3 differ (a: source 1, b: source 0), but on row 1 head a leads by 0.02 only
    a = np.array([[1.0, 0, 0, 0],
                  [0.49, 0.51, 0, 0],      # a: source 1 by 0.02 (< 0.05: not settled)
                  [0.2, 0.7, 0.1, 0],      # a: source 1 by 0.5
                  [0.1, 0.6, 0.2, 0.1]])
    b = np.array([[1.0, 0, 0, 0],
                  [0.9, 0.1, 0, 0],
                  [0.6, 0.3, 0.1, 0],
                  [0.7, 0.1, 0.1, 0.1]])
    assert settled_split(a, b) == DifferingRun(first=2, last=3, source_a=1, source_b=0)
    assert settled_split(a, b, margin=0.01) == DifferingRun(first=1, last=3, source_a=1, source_b=0)
    assert settled_split(a, a) is None
    # the heads agree on the last row: no split that lasts
    b2 = b.copy()
    b2[3] = [0.1, 0.7, 0.1, 0.1]
    assert settled_split(a, b2) is None


def test_settled_split_on_the_river_worksheet():
    from lesson_data.walkthrough import settled_split

    ws = compute_worksheet("river")
    one, two = (h.weights for h in ws.heads)
    # by hand from the worksheet: row 6 (zero-based 5) head 1 is almost even (river 0.191 vs
    # fisherman 0.179); row 7 river 0.349 vs fisherman 0.210, head 2 fisherman 0.333 vs sat 0.142
    assert abs(one[5, 5] - one[5, 1]) < 0.05
    split = settled_split(one, two)
    assert (split.first, split.last, split.source_a, split.source_b) == (6, 9, 5, 1)


def test_earlier_favourite_river_by_hand():
    from lesson_data.walkthrough import earlier_favourite

    ws = compute_worksheet("river")
    fav = earlier_favourite(ws.heads[0])
    # by hand from the toy E: head 1's row 10 peaks on "river" (source 6), whose key 3.1, -0.1 is
    # largest on water; before it, water is 0.1, 2.0, 0.3, 0.6, 0.1: "fisherman" (source 2), 2.0
    assert (fav.top, fav.coordinate, fav.source) == (5, 0, 1) and fav.value == 2.0
    assert ws.tokens[fav.source] == "fisherman" and ws.tokens[fav.top] == "river"
    # row 5, the last before "river", puts most of head 1's weight on "fisherman"
    assert max(range(5), key=lambda j: ws.heads[0].weights[4, j]) == 1


@pytest.mark.parametrize("sentence", ["river", "cheque"])
def test_earlier_favourite_by_a_second_method(sentence):
    from lesson_data.walkthrough import earlier_favourite

    for head in compute_worksheet(sentence).heads:
        fav = earlier_favourite(head)
        n = head.weights.shape[0]
        last = list(head.weights[n - 1])
        top = last.index(max(last))
        key = list(head.K[top])
        c = key.index(max(key))
        column = [head.K[j][c] for j in range(top)]
        if top == 0:
            assert fav is None
            continue
        earlier = column.index(max(column))
        before = list(head.weights[top - 1][:top])
        if before.index(max(before)) != earlier:
            assert fav is None
        else:
            assert (fav.top, fav.coordinate, fav.source, fav.value) == (top, c, earlier, column[earlier])


def test_lone_query_coordinate_makes_each_score_a_multiple_of_one_key_column():
    from lesson_data.walkthrough import lone_query_coordinate
    ws = compute_worksheet("river")
    h1, h2 = ws.heads
    # head 2's receiver query reads person only (docs/WORKSHEET.md: W_Q² copies glue into
    # coordinate 1; "the" is glue 2.3): [2.3, 0.0]; head 1's [2.3, 2.3] has two
    assert list(h2.Q[-1]) == pytest.approx([2.3, 0.0]) and lone_query_coordinate(h2.Q[-1]) == 0
    assert lone_query_coordinate(h1.Q[-1]) is None
    # what the scene says of it: each score is 2.3 times the source's person key (fisherman 2.1 -> 4.83)
    np.testing.assert_allclose(h2.scores[-1], 2.3 * h2.K[:, 0], atol=1e-12)
    assert lone_query_coordinate([0.0, 0.0]) is None
