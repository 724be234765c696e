"""Chapter 2, scenes 12–15 (WideHeadVersusTwo, ConcatAndOutputProjection, ResidualAndPrediction,
ChequeSentence): they build without LaTeX, every number on screen is the data layer's number under
the display rule, and the arithmetic they show holds when re-derived a second way — for both
sentences. Scene 15 always shows river and cheque, whatever the sentence switch says."""
from __future__ import annotations

import math

import numpy as np
import pytest

import scenes.chapter2.joining_heads as jh
from lesson_data.display import fmt
from lesson_data.worksheet import (
    AXES,
    CANDIDATES,
    POSITION_TABLE,
    TOKEN_TABLE,
    VOCAB,
    W_K1,
    W_K2,
    W_O,
    W_Q1,
    W_Q2,
    W_V1,
    W_V2,
    compute_worksheet,
)
from scenes.chapter2.joining_heads import (
    ChequeSentence,
    ConcatAndOutputProjection,
    ResidualAndPrediction,
    WideHeadVersusTwo,
    mixing_rows,
    same_receiver_rows,
    source_name,
)
from lesson_data.walkthrough import pool_attention_row as pool_row
from scenes.style import BACKGROUND, HIGHLIGHT_OPACITY, POSITIVE_COLOR, WIDE_HEAD_COLOR, head_color
from tests.scene_harness import assert_builds_cleanly, assert_matrix_on_screen, blend, build_scene, built

SENTENCES = ("river", "cheque")


def texts_of(b) -> set:
    return {t.original_text for t in b.texts}


def said(b) -> str:
    return " ".join(s[2] for s in b.subcaptions)


def independent_others(weights, top):
    """Sum of the weights not in `top`, by a plain loop (a second method to the helper's fsum)."""
    total = 0.0
    for j, w in enumerate(weights):
        if j not in top:
            total += float(w)
    return total


def two_largest(weights):
    """Indices of the largest and second-largest weight, earlier source first on ties (np.argsort)."""
    order = np.argsort(-np.asarray(weights), kind="stable")
    return int(order[0]), int(order[1])


# ------------------------------------------------------------------------- pure helpers


@pytest.mark.parametrize("sentence", SENTENCES)
def test_pool_row_others_is_the_sum_of_the_remaining_weights(sentence):
    ws = compute_worksheet(sentence)
    for head in (ws.wide_head, *ws.heads):
        row = head.weights[-1]
        p = pool_row(row)
        assert p.top == two_largest(row)
        assert p.top_weights == tuple(row[j] for j in p.top)
        assert p.n_others == ws.n - 2
        assert p.others == pytest.approx(independent_others(row, p.top), abs=1e-12)
        assert p.total == pytest.approx(1.0, abs=1e-12)           # every attention row sums to one
        assert sum(p.segments) == pytest.approx(1.0, abs=1e-12)


def test_pool_row_river_head_1_worked_by_hand():
    # head 1 keys read water + finance; the receiver's query is [2.3, 2.3], so the score of source j
    # is 2.3 (water_j + finance_j) / √2. river₆ = 3.0 + 0.1 - 0.1, fisherman₂ = 2.0 + 0.1, bank₇ = 1.4.
    tokens = ("the", "fisherman", "sat", "beside", "the", "river", "bank", "and", "watched", "the")
    E = TOKEN_TABLE[[VOCAB.index(t) for t in tokens]] + POSITION_TABLE[:10]
    scores = 2.3 * (E[:, 0] + E[:, 1]) / math.sqrt(2)
    weights = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    p = pool_row(weights)
    assert [source_name(tokens, j) for j in p.top] == ["river₆", "fisherman₂"]
    ws = compute_worksheet("river")
    np.testing.assert_allclose(ws.heads[0].weights[-1], weights, rtol=0, atol=1e-12)


def test_pool_row_reports_a_displayed_tie_cut_by_the_top_two():
    # wide head, cheque: she₁ = [0.1, 0, 2.7, 0.3] and deposited₂ = [0, 2.3, 0.5, 0.4] both score
    # 2.3 × 2.8 against q = [2.3, 2.3, 2.3, 0]: equal weights; the earlier source is shown
    ws = compute_worksheet("cheque")
    p = pool_row(ws.wide_head.weights[-1])
    assert [source_name(ws.tokens, j) for j in p.top] == ["cheque₄", "she₁"]
    assert p.display_ties == (1,)
    assert pool_row(ws.heads[0].weights[-1]).display_ties == ()


def test_pool_row_rejects_a_bad_top():
    with pytest.raises(ValueError, match="top must be between 1 and 9"):
        pool_row(np.full(10, 0.1), top=10)


def test_mixing_rows_and_receiver_rows():
    assert mixing_rows(W_O) == [2]                 # only H²a feeds two axes (water 0.25, person 1)
    assert same_receiver_rows(compute_worksheet("river"), compute_worksheet("cheque"))
    assert not same_receiver_rows(compute_worksheet("river"), compute_worksheet("the river bank"))


# ------------------------------------------------------------------------- all scenes

SCENES = [WideHeadVersusTwo, ConcatAndOutputProjection, ResidualAndPrediction]


# ChequeSentence ignores the switch: one build here (river), a second under another sentence below
CASES = [(cls, s) for cls in SCENES for s in SENTENCES] + [(ChequeSentence, "river")]


@pytest.mark.parametrize("scene_cls,sentence", CASES, ids=lambda x: getattr(x, "__name__", x))
def test_scene_builds_cleanly(scene_cls, sentence):
    b = built(scene_cls, sentence)
    assert_builds_cleanly(b, min_sections=4, min_subcaptions=4)
    assert 30 <= b.duration <= 90                   # a learner's pace


# ------------------------------------------------------------------- WideHeadVersusTwo


@pytest.mark.parametrize("sentence", SENTENCES)
def test_wide_head_projections_are_the_two_heads_side_by_side(sentence):
    ws = compute_worksheet(sentence)
    b = built(WideHeadVersusTwo, sentence)
    # a second method: the spec's per-head matrices, joined here
    assert_matrix_on_screen(b, "wide_W_Q", np.hstack([W_Q1, W_Q2]))
    assert_matrix_on_screen(b, "wide_W_K", np.hstack([W_K1, W_K2]))
    assert_matrix_on_screen(b, "wide_W_V", np.hstack([W_V1, W_V2]))
    assert_matrix_on_screen(b, "wide_W_Q", ws.wide_head.W_Q)
    assert b.by_tag("wide_scale")[None].value == math.sqrt(4) == ws.wide_head.scale
    assert b.by_tag("head_scale")[None].value == math.sqrt(2) == ws.heads[0].scale


@pytest.mark.parametrize("sentence", SENTENCES)
def test_wide_head_rows_show_top_two_others_and_sum(sentence):
    ws = compute_worksheet(sentence)
    b = built(WideHeadVersusTwo, sentence)
    texts = texts_of(b)
    for tag, head in (("wide", ws.wide_head), ("A1", ws.heads[0]), ("A2", ws.heads[1])):
        row = head.weights[-1]
        top = b.by_tag(f"{tag}_top")
        assert sorted(top) == sorted(two_largest(row))
        for j, m in top.items():
            assert m.value == row[j] and m.original_text == fmt(row[j])
            assert source_name(ws.tokens, j) in texts
        others = b.by_tag(f"{tag}_others")[None]
        assert others.value == pytest.approx(independent_others(row, tuple(top)), abs=1e-12)
        assert others.original_text == fmt(others.value)
        total = b.by_tag(f"{tag}_sum")[None]
        assert total.original_text == "1.000" and total.value == pytest.approx(1.0, abs=1e-12)
    assert f"others ({ws.n - 2})" in texts
    assert_matrix_on_screen(b, "wide_m", ws.wide_head.messages[-1])
    assert_matrix_on_screen(b, "two_m", np.concatenate([ws.heads[0].messages[-1], ws.heads[1].messages[-1]]))


def test_wide_head_cheque_names_the_tie_it_cuts():
    ws = compute_worksheet("cheque")
    b = built(WideHeadVersusTwo, "cheque")
    tie = b.by_tag("wide_tie")
    assert set(tie) == {1}                                   # deposited₂, equal to she₁
    assert tie[1].value == ws.wide_head.weights[-1, 0]
    assert "wide_tie" not in built(WideHeadVersusTwo, "river").tags()   # no tie, no note


def test_wide_head_river_sources_worked_by_hand():
    b = built(WideHeadVersusTwo, "river")
    # head 1 (water + finance keys, q¹ = [2.3, 2.3]): river₆ (3.0) then fisherman₂ (2.1)
    assert sorted(b.by_tag("A1_top")) == [1, 5]
    # head 2 (person + glue keys, q² = [2.3, 0]): score 2.3 × person; fisherman₂ 2.1, watched₉ 0.7, sat₃ 0.6
    assert sorted(b.by_tag("A2_top")) == [1, 8]
    assert {"river₆", "fisherman₂", "watched₉"} <= texts_of(b)


def test_wide_head_says_the_notes_and_credits_the_paper():
    b = built(WideHeadVersusTwo, "river")
    texts, words = texts_of(b), said(b)
    assert "a useful choice, not proof" in texts
    assert "Attention Is All You Need, §3.2.2" in texts
    assert "For this controlled comparison, concatenate the two existing Q, K and V projections" in words
    assert "Every displayed attention row sums to one over all ten sources; “others” combines the remaining eight." in words
    assert "not proof that one wide head cannot learn useful relationships" in words
    assert "does not compare separately trained models" in words


def test_wide_head_last_frame_draws_the_rows_as_stacked_bars():
    b = built(WideHeadVersusTwo, "river")
    for row, color in zip(b.scene.table.rows, (WIDE_HEAD_COLOR, head_color(1), head_color(2))):
        largest = row.bar[0]
        assert np.abs(b.pixel(largest.get_center()) - blend(color, BACKGROUND, 0.9)).max() <= 3
        # segments proportional to largest, second, others: they tile one bar (the row sums to one)
        unit = largest.width / row.pooled.top_weights[0]
        assert [seg.width / unit for seg in row.bar] == pytest.approx(row.pooled.segments, abs=1e-3)
        assert row.bar[-1].get_right()[0] - largest.get_left()[0] == pytest.approx(unit, rel=1e-3)


# ------------------------------------------------------------ ConcatAndOutputProjection


@pytest.mark.parametrize("sentence", SENTENCES)
def test_concat_shows_messages_W_O_contributions_and_delta(sentence):
    ws = compute_worksheet(sentence)
    b = built(ConcatAndOutputProjection, sentence)
    h1, h2 = ws.heads
    assert_matrix_on_screen(b, "concat", ws.H_joined[-1])
    assert_matrix_on_screen(b, "m1", h1.messages[-1])
    assert_matrix_on_screen(b, "m2", h2.messages[-1])
    assert_matrix_on_screen(b, "W_O", W_O)
    assert_matrix_on_screen(b, "W_O1", W_O[:2])
    assert_matrix_on_screen(b, "W_O2", W_O[2:])
    assert_matrix_on_screen(b, "contribution1", h1.contribution[-1])
    assert_matrix_on_screen(b, "contribution2", h2.contribution[-1])
    assert_matrix_on_screen(b, "delta", ws.delta_E[-1])
    # a second method: the shown blocks' products add up to the shown Δe
    m1 = np.array([b.by_tag("m1")[(0, k)].value for k in range(2)])
    m2 = np.array([b.by_tag("m2")[(0, k)].value for k in range(2)])
    delta = np.array([b.by_tag("delta")[(0, k)].value for k in range(4)])
    np.testing.assert_allclose(m1 @ W_O[:2] + m2 @ W_O[2:], delta, rtol=0, atol=1e-12)
    # by hand from W_O = [[1,0,0,0],[0,1,0,0],[0.25,0,1,0],[0,0,0,1]]
    assert delta[0] == pytest.approx(m1[0] + 0.25 * m2[0], abs=1e-12)
    assert (delta[1], delta[2], delta[3]) == pytest.approx((m1[1], m2[0], m2[1]), abs=1e-12)


def test_concat_names_the_mixing_and_the_general_shape():
    b = built(ConcatAndOutputProjection, "river")
    texts, words = texts_of(b), said(b)
    assert "H²a feeds water and person" in texts
    assert "W_O: [n_heads × d_v, d_model]" in texts
    assert "here [2 × 2, 4] = [4, 4]" in texts
    assert "it is no inverse of the input projections" in texts
    assert "Equivalently, split W_O into a two-row block per head." in words
    assert "each head contributes a four-coordinate update" in words
    assert "It is not an inverse of the input projections." in words


def test_concat_last_frame_highlights_the_mixing_row():
    b = built(ConcatAndOutputProjection, "river")
    w_o = b.scene.cop.W_O
    x = (w_o.cell(2, 0).get_right()[0] + w_o.cell(2, 1).get_left()[0]) / 2
    got = b.pixel((x, w_o.cell_center(2, 0)[1]))
    assert np.abs(got - blend(head_color(2), BACKGROUND, HIGHLIGHT_OPACITY)).max() <= 3
    got_above = b.pixel((x, w_o.cell_center(1, 0)[1]))
    assert np.abs(got_above - blend(BACKGROUND, BACKGROUND, 1.0)).max() <= 3


# ----------------------------------------------------------------- ResidualAndPrediction


@pytest.mark.parametrize("sentence", SENTENCES)
def test_residual_and_mlp_numbers(sentence):
    ws = compute_worksheet(sentence)
    b = built(ResidualAndPrediction, sentence)
    mlp = ws.mlp
    assert_matrix_on_screen(b, "e_row", ws.E[-1])
    assert_matrix_on_screen(b, "delta_row", ws.delta_E[-1])
    assert_matrix_on_screen(b, "e_prime_row", ws.E_prime[-1])
    assert_matrix_on_screen(b, "pre_activation", mlp.pre_activation)
    assert_matrix_on_screen(b, "hidden", mlp.hidden)
    shown = lambda tag, k: np.array([b.by_tag(tag)[(0, j)].value for j in range(k)])  # noqa: E731
    # second methods: e′ = e + Δe, and h = max(pre-activation, 0), from the shown numbers
    np.testing.assert_allclose(shown("e_row", 4) + shown("delta_row", 4), shown("e_prime_row", 4), atol=1e-12)
    np.testing.assert_array_equal(np.maximum(shown("pre_activation", 8), 0.0), shown("hidden", 8))
    # all twenty words: logit and probability; p is the softmax of the shown logits
    logits, probs = b.by_tag("logit"), b.by_tag("p")
    assert set(logits) == set(probs) == set(range(len(VOCAB)))
    for i in range(len(VOCAB)):
        assert logits[i].value == mlp.logits[i] and probs[i].value == mlp.probabilities[i]
    z = np.array([logits[i].value for i in range(len(VOCAB))])
    np.testing.assert_allclose(np.exp(z) / np.exp(z).sum(), [probs[i].value for i in range(len(VOCAB))],
                               rtol=1e-12, atol=0)
    total = b.by_tag("p_sum")[None]
    assert total.original_text == "1.000" and total.value == pytest.approx(1.0, abs=1e-12)
    # the eight candidates are drawn as bars, proportional to p
    bars = {i: b.scene.candidate_rows.rows[i].bar for i in (VOCAB.index(w) for w in CANDIDATES)}
    best = VOCAB.index(mlp.prediction)
    unit = bars[best].width / mlp.probabilities[best]
    for i, bar in bars.items():
        assert bar.width == pytest.approx(unit * mlp.probabilities[i], abs=2e-3)


@pytest.mark.parametrize("sentence,word", [("river", "water"), ("cheque", "teller")])
def test_prediction_is_highlighted(sentence, word):
    ws = compute_worksheet(sentence)
    b = built(ResidualAndPrediction, sentence)
    probs = b.by_tag("p")
    best = max(probs, key=lambda i: probs[i].value)          # argmax of what is on screen
    assert VOCAB[best] == word == ws.mlp.prediction
    assert "predicted next word" in texts_of(b)
    assert f"The most probable next word is “{word}”" in said(b)
    # the predicted word's bar is drawn in the highlight colour
    bar = b.scene.candidate_rows.rows[best].bar
    assert np.abs(b.pixel(bar.get_center()) - blend(POSITIVE_COLOR, BACKGROUND, 0.85)).max() <= 3


def test_residual_river_worked_by_hand():
    b = built(ResidualAndPrediction, "river")
    # the receiver "the" at slot 10: [0, 0, 0, 2.4] + position 10 [0, 0, 0, -0.1]
    assert [b.by_tag("e_row")[(0, j)].original_text for j in range(4)] == ["0.000", "0.000", "0.000", "2.300"]
    # ReLU zeroes h₂ and h₆, the two negative pre-activations
    hidden = b.by_tag("hidden")
    assert [j for j in range(8) if hidden[(0, j)].value == 0.0] == [1, 5]


# -------------------------------------------------------------------------- ChequeSentence


@pytest.fixture(scope="module")
def cheque_scene_off_switch():
    """ChequeSentence built with the switch on a third sentence and scene_worksheet disabled:
    it must compute both named sentences itself."""
    original = jh.scene_worksheet

    def refuse():
        raise AssertionError("ChequeSentence must not read the sentence switch")

    jh.scene_worksheet = refuse
    try:
        return build_scene(ChequeSentence, sentence="the river bank", pixel_height=270)
    finally:
        jh.scene_worksheet = original


def number_set(b):
    return {(m.tag, m.index, m.value) for m in b.numbers}


def test_cheque_scene_ignores_the_sentence_switch(cheque_scene_off_switch):
    a = built(ChequeSentence, "river")
    assert number_set(a) == number_set(cheque_scene_off_switch)
    assert [s[2] for s in a.subcaptions] == [s[2] for s in cheque_scene_off_switch.subcaptions]
    assert cheque_scene_off_switch.format_mismatches() == []


@pytest.mark.parametrize("name", SENTENCES)
def test_cheque_scene_shows_both_sentences_numbers(name, cheque_scene_off_switch):
    b = cheque_scene_off_switch
    ws = compute_worksheet(name)
    expected_qkv = np.array([getattr(h, f)[-1] for h in ws.heads for f in ("Q", "K", "V")])
    assert_matrix_on_screen(b, f"{name}_qkv", expected_qkv)
    for h in ws.heads:
        row = h.weights[-1]
        tag = f"{name}_A{h.index}"
        top = b.by_tag(f"{tag}_top")
        assert sorted(top) == sorted(two_largest(row))
        assert all(m.value == row[j] for j, m in top.items())
        assert b.by_tag(f"{tag}_others")[None].value == pytest.approx(independent_others(row, tuple(top)), abs=1e-12)
        assert b.by_tag(f"{tag}_sum")[None].original_text == "1.000"
        assert_matrix_on_screen(b, f"{name}_m{h.index}", h.messages[-1])
    probs = b.by_tag(f"{name}_p")
    assert set(probs) == {VOCAB.index(w) for w in CANDIDATES}
    for i, m in probs.items():
        assert m.value == ws.mlp.probabilities[i]
    assert f"prediction: {ws.mlp.prediction}" in texts_of(b)
    assert ws.mlp.prediction == VOCAB[int(np.argmax(ws.mlp.probabilities))]
    header_text = " ".join(t.original_text.replace("\n", " ") for t in b.texts)
    assert ws.text in header_text


def test_cheque_scene_worked_by_hand_and_notes(cheque_scene_off_switch):
    b = cheque_scene_off_switch
    # both receivers are "the" at slot 10 (e = [0, 0, 0, 2.3]): q¹ = [2.3, 2.3] in both
    for name in SENTENCES:
        assert [b.by_tag(f"{name}_qkv")[(0, k)].original_text for k in range(2)] == ["2.300", "2.300"]
    # cheque head 2 (person keys against q² = [2.3, 0]): she₁ has person 2.7, the largest by far
    assert max(b.by_tag("cheque_A2_top").items(), key=lambda kv: kv[1].value)[0] == 0
    assert "prediction: water" in texts_of(b) and "prediction: teller" in texts_of(b)
    words = said(b)
    assert "Change to the cheque sentence." in words
    assert "This is a worked arithmetic explorer, not a trained language model." in words
    assert b.out_of_frame == [] and b.text_overlaps == []
    # the last frame: each side's predicted bar in the highlight colour
    for outcome, name in zip(b.scene.outcomes, SENTENCES):
        best = VOCAB.index(compute_worksheet(name).mlp.prediction)
        bar = outcome.words.rows[best].bar
        assert np.abs(b.pixel(bar.get_center()) - blend(POSITIVE_COLOR, BACKGROUND, 0.85)).max() <= 3


def test_axes_labels_come_from_the_data_layer():
    b = built(ResidualAndPrediction, "river")
    assert [t.original_text for t in b.scene.residual.e.col_labels] == list(AXES)
