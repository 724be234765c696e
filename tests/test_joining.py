"""lesson_data.joining: the choices scenes 12-15 make from the numbers, checked by hand or by a
second method (never against the helpers' own output)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lesson_data.display import fmt
from lesson_data.joining import (
    carried_axes,
    change_word,
    contrast_sources,
    dominant_axis,
    off_carrier_entries,
    pool_on_sources,
    relu_zeroed,
    same_receiver_input,
    same_receiver_rows,
    score_split,
    score_story,
    shown_rows,
    strongest_source,
    sum_of_shown,
    word_groups,
)
from lesson_data.worksheet import VOCAB, W_O, W_V1, W_V2, compute_worksheet

S20 = ("the fisherman sat beside the river bank and watched the boats and she deposited the cheque "
       "at the bank and")


def test_carried_axes_name_what_each_value_coordinate_copies():
    assert carried_axes(W_V1) == ("water", "finance")
    assert carried_axes(W_V2) == ("person", "glue")
    assert carried_axes(np.hstack([W_V1, W_V2])) == ("water", "finance", "person", "glue")
    mixed = np.array([[1, 0], [0.5, 0], [0, 0], [0, 0]])
    assert carried_axes(mixed) == ("water+finance", "-")


def test_dominant_axis_and_strongest_source_by_hand():
    # river, head 1: m¹ = Σ α v, river₆ (v = [3.1, -0.1]) has weight 0.718: water dominates
    river, cheque = compute_worksheet("river"), compute_worksheet("cheque")
    assert dominant_axis(river.heads[0].messages[-1], ("water", "finance")) == "water"
    assert dominant_axis(cheque.heads[0].messages[-1], ("water", "finance")) == "finance"
    assert dominant_axis([-3.0, 2.0], ("a", "b")) == "a"           # by size, not sign
    assert strongest_source([0.2, 0.4, 0.4]) == 1                    # ties: the earlier source
    assert river.tokens[strongest_source(river.heads[0].weights[-1])] == "river"
    assert cheque.tokens[strongest_source(cheque.heads[1].weights[-1])] == "she"


def test_contrast_sources_river_by_hand():
    # head 1's scores 2.3·(water + finance): river₆ 2.3·3.0 = 6.9 is its largest. The wide head adds
    # head 2's 2.3·person: fisherman₂ 2.3·2.1 + 2.3·2.1 = 9.66 beats river's 6.9 + 0.
    ws = compute_worksheet("river")
    assert [ws.tokens[j] + str(j + 1) for j in contrast_sources(ws)] == ["river6", "fisherman2"]


def test_contrast_sources_cheque_falls_back_to_the_largest_gain():
    # cheque₄ is the strongest in head 1 (2.3·2.9) and in the wide head (6.67 + 0.23 = 6.9 against
    # she₁'s 0.23 + 6.21 = 6.44): the second source is the one the wide head lifts most, she₁
    ws = compute_worksheet("cheque")
    h1, wide = ws.heads[0].weights[-1], ws.wide_head.weights[-1]
    assert np.argmax(h1) == np.argmax(wide) == 3
    gains = {j: wide[j] - h1[j] for j in range(ws.n) if j != 3}
    assert max(gains, key=gains.get) == 0
    assert contrast_sources(ws) == (3, 0)


def test_contrast_sources_short_prefixes():
    assert contrast_sources(compute_worksheet("the")) == (0,)
    two = contrast_sources(compute_worksheet("river the"))
    assert len(two) == 2 and set(two) == {0, 1}
    assert len(set(contrast_sources(compute_worksheet(S20)))) == 2


@pytest.mark.parametrize("sentence", ["river", "cheque", S20])
def test_score_split_the_wide_score_is_the_sum_of_both_dot_products(sentence):
    ws = compute_worksheet(sentence)
    q1, q2 = ws.heads[0].Q[-1], ws.heads[1].Q[-1]
    for j in range(ws.n):
        s = score_split(ws, j)
        k1, k2 = ws.heads[0].K[j], ws.heads[1].K[j]
        # a second method: the dot products from the Q and K rows, and the wide head's own q·k
        assert s.head_scores == pytest.approx((q1 @ k1, q2 @ k2), abs=1e-12)
        assert s.wide_score == pytest.approx(q1 @ k1 + q2 @ k2, abs=1e-12)
        assert s.wide_score == pytest.approx(ws.wide_head.Q[-1] @ ws.wide_head.K[j], abs=1e-12)
        assert s.wide_scaled == pytest.approx(s.wide_score / 2, abs=1e-12)
        assert s.head_scaled == pytest.approx((s.head_scores[0] / math.sqrt(2), s.head_scores[1] / math.sqrt(2)),
                                              abs=1e-12)


def test_score_split_river_by_hand():
    ws = compute_worksheet("river")
    river, fisherman = score_split(ws, 5), score_split(ws, 1)
    # river₆: e = [3.1, -0.1, 0, 0.1]; q¹ = [2.3, 2.3] on (water, finance): 2.3·3.0 = 6.9; q² = [2.3, 0]
    # on (person, glue): 2.3·0 = 0
    assert river.head_scores == pytest.approx((6.9, 0.0), abs=1e-12)
    assert river.wide_scaled == pytest.approx(3.45, abs=1e-12)
    # fisherman₂: e = [2.0, 0.1, 2.1, 0]: 2.3·2.1 in both heads
    assert fisherman.head_scores == pytest.approx((4.83, 4.83), abs=1e-12)
    assert fisherman.wide_scaled == pytest.approx(4.83, abs=1e-12)
    assert (fmt3(river.head_weights[0]), fmt3(river.wide_weight)) == ("0.718", "0.178")
    assert (fmt3(fisherman.head_weights[0]), fmt3(fisherman.wide_weight)) == ("0.166", "0.708")


def fmt3(x):
    return f"{x:.3f}"


def test_change_word_judges_the_displayed_digits():
    assert change_word(0.166, 0.708) == "rises"
    assert change_word(0.718, 0.178) == "falls"
    assert change_word(0.1231, 0.1234) == "stays at"       # both show 0.123
    assert change_word(0.1231, 0.1234, places=4) == "rises"


def test_pool_on_sources_by_hand():
    w = [0.1, 0.5, 0.05, 0.25, 0.1]
    row = pool_on_sources(w, (3, 1))
    assert row.shown == (0.25, 0.5)
    assert row.others == pytest.approx(0.1 + 0.05 + 0.1, abs=1e-15)
    assert row.n_others == 3
    assert row.largest_other == 0                 # 0.1 at sources 0 and 4: the earlier
    assert row.largest_other_weight == 0.1
    assert row.total == pytest.approx(1.0, abs=1e-15)
    assert row.segments == [0.25, 0.5, row.others]
    whole = pool_on_sources([1.0], (0,))
    assert whole.n_others == 0 and whole.largest_other is None and whole.others == 0.0
    for bad in ((), (1, 1), (5,)):
        with pytest.raises(ValueError, match="distinct positions"):
            pool_on_sources(w, bad)


@pytest.mark.parametrize("sentence", ["river", "cheque"])
def test_pool_on_sources_every_row_sums_to_one(sentence):
    ws = compute_worksheet(sentence)
    sources = contrast_sources(ws)
    for head in (ws.wide_head, *ws.heads):
        row = pool_on_sources(head.weights[-1], sources)
        plain = 0.0                                # a second method: a plain loop
        for j, w in enumerate(head.weights[-1]):
            if j not in sources:
                plain += w
        assert row.others == pytest.approx(plain, abs=1e-12)
        assert row.n_others == ws.n - 2
        assert row.total == pytest.approx(1.0, abs=1e-12)


def test_pool_on_sources_cheque_wide_head_shows_the_hidden_tie():
    # wide head, cheque: she₁ (shown) and deposited₂ (pooled) both score 0.23 + 6.21 = 0 + 5.29 + 1.15
    # = 6.44: equal weights, so the largest of the others equals a shown weight
    ws = compute_worksheet("cheque")
    row = pool_on_sources(ws.wide_head.weights[-1], contrast_sources(ws))
    assert row.largest_other == 1
    assert fmt3(row.largest_other_weight) == fmt3(row.shown[1]) == "0.257"


def test_sum_of_shown_river_probabilities_by_hand():
    ws = compute_worksheet("river")
    p = ws.mlp.probabilities
    # the screen shows 0.610 0.192 0.120 0.049 0.006 0.006 0.004 0.004 for the eight candidates and
    # 0.001 for fisherman, 0.001 (0.00066 rounds up) for each of the eleven other sentence words
    shown = [f"{x:.3f}" for x in p]
    assert shown[12:] == ["0.610", "0.192", "0.120", "0.049", "0.006", "0.006", "0.004", "0.004"]
    assert shown[:12] == ["0.001"] * 12
    assert sum_of_shown(p, 3) == pytest.approx(0.991 + 0.012, abs=1e-12)
    assert f"{sum_of_shown(p, 3):.3f}" == "1.003"
    assert sum_of_shown([2.3, 0.1]) == pytest.approx(2.4, abs=1e-12)       # own precision: tenths


def test_off_carrier_entries_find_where_W_O_mixes():
    carried = carried_axes(np.hstack([W_V1, W_V2]))
    # W_O is the identity except row 3 (head 2's person), which also writes 0.25 into water
    assert off_carrier_entries(W_O, carried) == [(2, 0)]
    assert off_carrier_entries(np.eye(4), carried) == []


def test_relu_zeroed_river_by_hand():
    ws = compute_worksheet("river")
    # e′₁₀ = [3.005, -0.018, 1.552, 2.838]: unit 2 is finance = -0.018 < 0; unit 6 is
    # -water + finance - 0.5 = -3.523 < 0
    assert relu_zeroed(ws.mlp.pre_activation) == [1, 5]
    assert relu_zeroed([0.0, 1.0, -1e-9]) == [2]


def test_word_groups_split_the_vocabulary():
    words, candidates = word_groups()
    assert [VOCAB[i] for i in candidates] == ["water", "boats", "fish", "ducks", "teller", "clerk", "queue", "money"]
    assert len(words) == 12 and VOCAB[words[0]] == "the" and VOCAB[words[-1]] == "at"


def test_shown_rows():
    assert shown_rows(10) == list(range(10))
    assert shown_rows(3) == [0, 1, 2]
    assert shown_rows(20) == list(range(10, 20))
    with pytest.raises(ValueError):
        shown_rows(0)


def test_same_receiver_rows():
    assert same_receiver_rows(compute_worksheet("river"), compute_worksheet("cheque"))
    assert not same_receiver_rows(compute_worksheet("river"), compute_worksheet("the river bank"))


def test_score_story_river_flips_cheque_does_not():
    # river: head 1 puts river₆ first (0.718 vs 0.166); the wide head fisherman₂ (0.708 vs 0.178)
    river = score_story(compute_worksheet("river"))
    assert (river.head1_order, river.wide_order, river.flipped) == ((5, 1), (1, 5), True)
    # cheque: cheque₄ leads both (head 1 0.645 vs 0.007; wide 0.323 vs 0.257 for she₁)
    cheque = score_story(compute_worksheet("cheque"))
    assert (cheque.head1_order, cheque.wide_order, cheque.flipped) == ((3, 0), (3, 0), False)
    one = score_story(compute_worksheet("the"))
    assert one.head1_order == one.wide_order == (0,) and not one.flipped


def test_averaged_attention_by_hand():
    from lesson_data.joining import averaged_attention

    ws = compute_worksheet("river")
    avg = averaged_attention(ws)
    # river, receiver 10: head 1 gives "river" (source 6) 0.718…, head 2 gives it ≈0.023 → ≈0.370
    h1, h2 = ws.heads
    assert avg[9, 5] == pytest.approx((h1.weights[9, 5] + h2.weights[9, 5]) / 2)
    assert 0.36 < avg[9, 5] < 0.38
    # row 1 reads only itself in both heads: 1.0; each row still sums to one; the future stays 0
    assert avg[0, 0] == pytest.approx(1.0)
    assert np.allclose(avg.sum(axis=1), 1.0)
    assert avg[0, 1] == 0.0


def test_axis_ticks():
    from lesson_data.joining import axis_ticks

    assert axis_ticks(3) == [0, 1, 2]
    assert axis_ticks(10) == list(range(10))
    assert axis_ticks(20) == [0, 4, 9, 14, 19]
    assert axis_ticks(12) == [0, 4, 9, 11]


def test_closest_head_by_hand():
    from lesson_data.joining import closest_head

    splits = score_story(compute_worksheet("river")).splits
    # river₆ and fisherman₂: wide 0.178 / 0.708; head 1 0.718 / 0.166 (apart by ≈1.08);
    # head 2 ≈0.023 / 0.693 (apart by ≈0.17): the wide row looks like head 2's
    assert closest_head(splits) == 2

    class S:                       # two hand-made splits: the wide row equal to head 1's
        def __init__(self, w1, w2, ww):
            self.head_weights, self.wide_weight = (w1, w2), ww

    assert closest_head([S(0.6, 0.1, 0.6), S(0.2, 0.8, 0.2)]) == 1
    assert closest_head([S(0.5, 0.5, 0.5)]) == 1               # a tie goes to head 1


def test_runner_up_source_by_hand():
    from lesson_data.joining import runner_up_source

    # cheque, head 1: cheque₄ 0.645 first, deposited₂ 0.243 second (read off the printed row)
    assert runner_up_source(compute_worksheet("cheque").heads[0].weights[-1]) == 1
    # river, head 1: river₆ 0.718 first, fisherman₂ 0.166 second
    assert runner_up_source(compute_worksheet("river").heads[0].weights[-1]) == 1
    assert runner_up_source([0.1, 0.5, 0.2, 0.2]) == 2          # a tie for second: the earlier source
    assert runner_up_source([0.4, 0.4, 0.2]) == 1               # a tie for first: the later one is second
    with pytest.raises(ValueError):
        runner_up_source([1.0])


def test_mixed_axes_and_update_terms_by_hand():
    from lesson_data.joining import mixed_axes, update_terms

    river, cheque = compute_worksheet("river"), compute_worksheet("cheque")
    # W_O is the identity plus 0.25 in row 3 (head 2's person), column 1 (water): only water mixes
    assert mixed_axes(river) == [0]
    terms = update_terms(river, 0)
    assert [(t.joined, t.weight) for t in terms] == [(0, 1.0), (2, 0.25)]
    # by hand from the printed messages: 2.617 + 0.25 · 1.552 = 3.005 (river), 0.053 + 0.25 · 2.367 ≈ 0.645
    assert [round(t.message, 3) for t in terms] == [2.617, 1.552]
    assert math.isclose(2.617 + 0.25 * 1.552, 3.005, abs_tol=1e-9)
    assert math.isclose(sum(t.message * t.weight for t in terms), river.delta_E[-1, 0], abs_tol=1e-12)
    cheque_terms = update_terms(cheque, 0)
    assert [round(t.message, 3) for t in cheque_terms] == [0.053, 2.367]
    assert round(0.053 + 0.25 * 2.367, 3) == pytest.approx(0.645, abs=0.0011)
    # glue is copied straight through: one term, weight 1
    assert [(t.joined, t.weight) for t in update_terms(river, 3)] == [(3, 1.0)]


def test_mixture_gap_and_gap_word_by_hand():
    from lesson_data.joining import gap_word, mixture_gap

    gap = mixture_gap(compute_worksheet("river"))
    # from the printed rows: wide m = [2.023, 0.075, 1.522, 0.204], two heads [2.617, -0.018, 1.552, 0.538]
    assert [round(float(g), 2) for g in gap] == [round(2.023 - 2.617, 2), round(0.075 + 0.018, 2),
                                                 round(1.522 - 1.552, 2), round(0.204 - 0.538, 2)]
    # full precision 2.02339 − 2.61685 = −0.59346 shows as −0.593 (the rounded parts would give −0.594:
    # the scene keeps the rounding note on screen beside it); person 1.52246 − 1.55196 = −0.02950
    assert fmt(gap[0], 3) == "-0.593" and fmt(gap[2], 3) == "-0.030"
    assert gap_word(gap[0]) == "lower" and gap_word(0.0931) == "higher"
    assert gap_word(0.0004) == "no different" and gap_word(-0.0004) == "no different"


def test_copy_units_by_hand():
    from lesson_data.joining import copy_units
    from lesson_data.worksheet import B1, W1

    # W1's first three columns are e₁, e₂, e₃ with zero bias: units 1–3 read water, finance, person as they are
    assert copy_units(W1, B1) == [(0, "water"), (1, "finance"), (2, "person")]
    # a column of one 1 but a bias, or a 2, or two entries does not copy
    W = np.array([[1, 2, 1, 0], [0, 0, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]], float)
    assert copy_units(W, np.array([0, 0, 0, -0.5])) == [(0, "water")]
    # river: e′₁₀'s water, finance, person (3.005, −0.018, 1.552) reappear as units 1–3 before the ReLU
    ws = compute_worksheet("river")
    assert np.allclose(ws.mlp.pre_activation[:3], ws.E_prime[-1, :3])


def test_leading_terms_by_hand():
    from lesson_data.joining import leading_terms
    # 0.5·2 = 1.0, 0.2·(-4) = -0.8 (|0.8|), 0.3·1 = 0.3: the two largest by size, sign kept
    terms = leading_terms([0.5, 0.2, 0.3], [2.0, -4.0, 1.0])
    assert [(t.source, t.product) for t in terms] == [(0, 1.0), (1, pytest.approx(-0.8))]
    # a tie (0.5·1 = 0.25·2) goes to the earlier source
    assert [t.source for t in leading_terms([0.5, 0.25], [1.0, 2.0], top=1)] == [0]
    with pytest.raises(ValueError):
        leading_terms([0.5], [1.0, 2.0])


def test_coordinate_terms_river_water_by_hand():
    from lesson_data.joining import coordinate_terms
    ws = compute_worksheet("river")
    # water values (W_V copies water): fisherman₂ 2.0, river₆ 3.1 (the token table)
    wide = coordinate_terms(ws, 0, wide=True)
    assert [t.source for t in wide] == [1, 5]
    assert [t.value for t in wide] == [2.0, 3.1]
    assert fmt(wide[0].weight) == "0.708" and fmt(wide[0].product) == "1.417"     # 0.708 · 2.0
    assert fmt(wide[1].weight) == "0.178" and fmt(wide[1].product) == "0.552"     # 0.178 · 3.1
    head1 = coordinate_terms(ws, 0, wide=False)
    assert [t.source for t in head1] == [5, 1]
    assert fmt(head1[0].weight) == "0.718" and abs(head1[0].product - 0.718 * 3.1) < 0.002   # ≈ 2.226
    assert fmt(head1[1].weight) == "0.166" and abs(head1[1].product - 0.166 * 2.0) < 0.001
    # head 2's person (joined 2) reads head 2's own value column
    head2 = coordinate_terms(ws, 2, wide=False)
    assert head2[0].source == 1 and head2[0].weight == ws.heads[1].weights[-1][1]


def test_put_back_update_by_hand():
    from lesson_data.joining import put_back_update
    ws = compute_worksheet("river")
    pb = put_back_update(ws)
    # without W_O's 0.25 (person → water) the rest of W_O is the identity: Δe = [m¹ | m²] itself,
    # water 3.005 − 0.25 · 1.552 = 2.617
    assert [fmt(v) for v in pb] == ["2.617", "-0.018", "1.552", "0.538"]
    assert fmt(ws.delta_E[-1][0] - 0.25 * ws.H_joined[-1][2]) == fmt(pb[0])
    assert np.array_equal(pb[1:], ws.delta_E[-1][1:])


def test_same_receiver_input_compares_the_receivers_row_of_e():
    river, cheque = compute_worksheet("river"), compute_worksheet("cheque")
    # both end in "the" at position 10: token row [0, 0, 0, 2.4] plus position row 10 [0, 0, 0, -0.1]
    assert river.tokens[-1] == cheque.tokens[-1] == "the" and river.n == cheque.n == 10
    np.testing.assert_allclose(river.E[-1], [0.0, 0.0, 0.0, 2.3])
    assert same_receiver_input(river, cheque)
    # a different receiver word gives a different row
    other = compute_worksheet("the river bank")
    assert not same_receiver_input(river, other)


def test_logit_terms_river_water_by_hand():
    from lesson_data.joining import logit_terms
    from lesson_data.worksheet import B2, W2

    ws = compute_worksheet("river")
    h = ws.mlp.hidden
    parts = logit_terms(h, W2, B2, VOCAB.index("water"))
    # docs/WORKSHEET.md: h1 → water 1.5; W2's fourth row is 0.1 and its fifth 0.2 for water; b2 = 0 for a candidate
    assert [(t.unit, t.weight) for t in parts.terms] == [(0, 1.5), (4, 0.2), (3, 0.1)]
    assert parts.bias == 0.0
    assert parts.total == pytest.approx(1.5 * h[0] + 0.2 * h[4] + 0.1 * h[3], abs=1e-12)
    assert parts.total == pytest.approx(ws.mlp.logits[VOCAB.index("water")], abs=1e-12)
    # a sentence word: no unit reaches it, only its bias −1.5
    empty = logit_terms(h, W2, B2, VOCAB.index("the"))
    assert empty.terms == () and empty.total == -1.5
    with pytest.raises(ValueError, match="word in 0..19"):
        logit_terms(h, W2, B2, 20)


def test_unchanged_sources_are_the_shared_words_at_the_same_places():
    from lesson_data.joining import unchanged_sources
    river, cheque = compute_worksheet("river"), compute_worksheet("cheque")
    # docs/WORKSHEET.md, read word by word: "The fisherman sat beside the river | bank and watched the"
    # and "She deposited the cheque at the | bank and watched the": positions 7-10 (zero-based 6-9) match
    river_words = "the fisherman sat beside the river bank and watched the".split()
    cheque_words = "she deposited the cheque at the bank and watched the".split()
    by_hand = [j for j, (r, c) in enumerate(zip(river_words, cheque_words)) if r == c]
    assert by_hand == [6, 7, 8, 9]
    assert unchanged_sources(river, cheque) == by_hand
    # what the scene says of them: every head's key and value there are the same in both sentences
    for j in by_hand:
        for hr, hc in zip(river.heads, cheque.heads):
            assert np.array_equal(hr.K[j], hc.K[j]) and np.array_equal(hr.V[j], hc.V[j])
    # a sentence against itself shares every position; against a shorter one, only the common prefix
    assert unchanged_sources(river, river) == list(range(river.n))
    short = compute_worksheet("the river bank")
    assert unchanged_sources(river, short) == [0]


def test_largest_update_axis_is_water_for_river():
    from lesson_data.joining import largest_update_axis
    river = compute_worksheet("river")
    # by hand from scene 13's numbers: ΔE₁₀ = m¹ W_O¹ + m² W_O²; water = 2.617 + 0.25 · 1.552 = 3.005,
    # finance -0.018, person 1.552, glue 0.538: water moves most; "the" had none of it (E₁₀ = glue only)
    assert largest_update_axis(river) == 0
    np.testing.assert_allclose(river.delta_E[-1][0], 2.617 + 0.25 * 1.552, atol=5e-4)
    assert river.E[-1][0] == 0.0
    # a made-up row: the biggest magnitude wins even when negative
    class Fake:
        delta_E = np.array([[0.1, -2.0, 1.5, 0.0]])
    assert largest_update_axis(Fake) == 1
