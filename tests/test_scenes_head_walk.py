"""Chapter 2, scenes 8–11 (Head1Weights, Head1Message, Head2WeightsAndMessage, MaskedMatrix): they build
without LaTeX, and every number on screen is the data layer's number under the display rule — for
both sentences. Expected values come from the data layer *and* from a second, independent
computation of row n in plain Python from the hand-chosen parameters of WORKSHEET.md.
"""
from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest

from lesson_data.display import fmt
from lesson_data.worksheet import compute_worksheet
from scenes.blocks.masked_matrix import weight_opacity
from scenes.chapter2.head_walk import (
    Head1Message,
    Head1Weights,
    Head2WeightsAndMessage,
    MaskedMatrix,
    choose_walk_sources,
    rounding_changes_sum,
)
from scenes.style import BACKGROUND, HIGHLIGHT_OPACITY, MASK_COLOR, RECEIVER_COLOR, head_color
from tests.scene_harness import assert_builds_cleanly, assert_matrix_on_screen, blend, built, hex_to_rgb

SENTENCES = ("river", "cheque")
WALK_SCENES = {1: (Head1Weights, Head1Message), 2: (Head2WeightsAndMessage, Head2WeightsAndMessage)}


# ------------------------------------------------------------------ an independent reference
# WORKSHEET.md, typed in again: rows are water, finance, person, glue; W_V has W_K's entries.
SPEC_W_Q = {1: [[0, 0], [0, 0], [0, 0], [1, 1]], 2: [[0, 0], [0, 0], [0, 0], [1, 0]]}
SPEC_W_K = {1: [[1, 0], [0, 1], [0, 0], [0, 0]], 2: [[0, 0], [0, 0], [1, 0], [0, 1]]}


def reference_row(E, h: int) -> dict:
    """Row n of head h in plain Python (no numpy, no data-layer code): loops and math.fsum."""
    E = [[float(x) for x in row] for row in E]
    n = len(E)

    def project(row, W):
        return [math.fsum(row[a] * W[a][c] for a in range(4)) for c in range(2)]

    q = project(E[-1], SPEC_W_Q[h])
    keys = [project(row, SPEC_W_K[h]) for row in E]
    values = keys                                           # equal entries, separate parameters
    scores = [math.fsum(q[c] * k[c] for c in range(2)) for k in keys]
    scaled = [s / math.sqrt(2) for s in scores]
    top = max(scaled)
    shifted = [s - top for s in scaled]
    exps = [math.exp(x) for x in shifted]
    den = math.fsum(exps)
    weights = [x / den for x in exps]
    products = [[w * v for v in value] for w, value in zip(weights, values)]
    message = [math.fsum(p[c] for p in products) for c in range(2)]
    unshifted = [math.exp(s) for s in scaled]
    return dict(n=n, q=q, keys=keys, values=values, scores=scores, scaled=scaled, max=top, shifted=shifted,
                exps=exps, den=den, weights=weights, products=products, message=message,
                unshifted=unshifted, unshifted_den=math.fsum(unshifted))


def assert_shows(m, expected: float):
    """The number shows what the independent reference rounds to."""
    assert m.original_text == fmt(expected), (m.tag, m.index, m.original_text, fmt(expected))


def said(b) -> str:
    return " ".join(s[2] for s in b.subcaptions)


# ------------------------------------------------------------------------------- every scene


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("scene_cls", [Head1Weights, Head1Message, Head2WeightsAndMessage, MaskedMatrix],
                         ids=lambda c: c.__name__)
def test_scene_builds_cleanly(scene_cls, sentence):
    b = built(scene_cls, sentence)
    assert_builds_cleanly(b, min_sections=3, min_subcaptions=4)
    assert 25 <= b.duration <= 90                   # a learner's pace, not a slideshow


# ----------------------------------------------------------------------------- the weights


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("h", [1, 2])
def test_weights_walk_shows_every_step_of_row_n(h, sentence):
    ws = compute_worksheet(sentence)
    head, n = ws.heads[h - 1], ws.n
    ref = reference_row(ws.E, h)
    b = built(WALK_SCENES[h][0], sentence)
    i = n - 1
    # the data layer's numbers, unrounded, at their places
    assert_matrix_on_screen(b, f"q{h}", head.Q[i])
    assert_matrix_on_screen(b, f"K{h}", head.K)
    for tag, array in (("scores", head.scores), ("scaled", head.scaled), ("shifted", head.shifted),
                       ("exps", head.exps)):
        assert_matrix_on_screen(b, f"{tag}{h}", array[i].reshape(-1, 1))
    assert b.by_tag(f"max{h}")[None].value == head.row_max[i]
    assert b.by_tag(f"den{h}")[None].value == head.denominators[i]
    weights = b.by_tag(f"A{h}_row")
    assert sorted(weights) == list(range(n))
    assert [weights[j].value for j in range(n)] == list(head.weights[i])
    # ... and they are what a second computation gives
    for j in range(n):
        assert_shows(b.by_tag(f"K{h}")[(j, 0)], ref["keys"][j][0])
        assert_shows(b.by_tag(f"scores{h}")[(j, 0)], ref["scores"][j])
        assert_shows(b.by_tag(f"scaled{h}")[(j, 0)], ref["scaled"][j])
        assert_shows(b.by_tag(f"shifted{h}")[(j, 0)], ref["shifted"][j])
        assert_shows(b.by_tag(f"exps{h}")[(j, 0)], ref["exps"][j])
        assert_shows(weights[j], ref["weights"][j])
    assert_shows(b.by_tag(f"max{h}")[None], ref["max"])
    assert_shows(b.by_tag(f"den{h}")[None], ref["den"])
    # every source, the receiver included, is in the denominator: Σ exps over all n rows
    assert b.by_tag(f"den{h}")[None].value == pytest.approx(math.fsum(ref["exps"]), abs=1e-12)
    assert ref["exps"][-1] > 0                      # the receiver's own term is there
    # the shown row sums to one (the sum of the unrounded weights, rounded once)
    total = b.by_tag(f"A{h}_row_sum")[None]
    assert total.original_text == "1.000"
    assert total.value == pytest.approx(1.0, abs=1e-12)
    # the source words sit beside their weights, with the source index j
    column = b.scene.table.column
    assert [t.original_text for t in column.labels] == [f"{j + 1} {w}" for j, w in enumerate(ws.tokens)]
    for j in range(n):
        assert abs(column.labels[j].get_center()[1] - column.weight(j).get_center()[1]) < 0.1


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("h", [1, 2])
def test_written_out_scores_add_up(h, sentence):
    ws = compute_worksheet(sentence)
    head, n = ws.heads[h - 1], ws.n
    b = built(WALK_SCENES[h][0], sentence)
    walked = sorted(b.by_tag(f"walk_score{h}"))
    assert walked, "at least one score is written out"
    assert int(np.argmax(head.weights[n - 1])) in walked        # the source that wins the softmax
    for j in walked:
        q = [b.by_tag(f"walk_q{h}")[(j, c)].value for c in range(2)]
        k = [b.by_tag(f"walk_k{h}")[(j, c)].value for c in range(2)]
        assert q == list(head.Q[n - 1]) and k == list(head.K[j])
        score = b.by_tag(f"walk_score{h}")[j].value
        assert score == pytest.approx(q[0] * k[0] + q[1] * k[1], abs=1e-12)
        assert b.by_tag(f"walk_scaled{h}")[j].value == pytest.approx(score / math.sqrt(2), abs=1e-12)


def test_river_scores_worked_by_hand():
    b = built(Head1Weights, "river")
    # q¹₁₀ = e₁₀ W_Q¹ = [2.3, 2.3] (glue 2.4 − 0.1); k¹ of "river" at 6 = [3 + 0.1, 0 − 0.1]
    # score = 2.3 × 3.1 + 2.3 × (−0.1) = 6.9; ÷ √2 = 4.8790...
    assert b.by_tag("scores1")[(5, 0)].original_text == "6.900"
    assert b.by_tag("scaled1")[(5, 0)].original_text == "4.879"
    assert b.by_tag("shifted1")[(5, 0)].original_text == "0.000"     # the max: exp(0) = 1
    assert b.by_tag("exps1")[(5, 0)].original_text == "1.000"
    # the receiver "the" has no water or finance: its own key is [0, 0], score 0
    assert b.by_tag("scores1")[(9, 0)].original_text == "0.000"


def test_stable_softmax_leaves_the_weight_unchanged():
    ws = compute_worksheet("river")
    head = ws.heads[0]
    ref = reference_row(ws.E, 1)
    b = built(Head1Weights, "river")
    top = int(np.argmax(ref["weights"]))
    with_shift = b.by_tag("check_w1")[None]
    without = b.by_tag("unshifted_w1")[None]
    assert with_shift.original_text == without.original_text == fmt(ref["weights"][top])
    assert with_shift.value == head.weights[-1, top]
    assert without.value == pytest.approx(ref["unshifted"][top] / ref["unshifted_den"], rel=1e-12)
    assert_shows(b.by_tag("unshifted_exp1")[None], ref["unshifted"][top])
    assert_shows(b.by_tag("unshifted_den1")[None], ref["unshifted_den"])
    # the exponentials really are different numbers: only their ratio is the same
    assert b.by_tag("unshifted_exp1")[None].original_text != b.by_tag("check_exp1")[None].original_text
    text = said(b)
    assert ("A numerically stable softmax subtracts the maximum score before exponentiating; "
            "this leaves the normalized weights unchanged.") in text
    assert "Every source contributes to the denominator, including the receiver itself." in text
    assert "These are the ten entries of row 10 of this head’s attention matrix A." in text
    assert "All displayed numbers are rounded; calculations use full precision." in text


def test_weight_column_last_frame_draws_the_largest_weight_bar_in_the_head_colour():
    b = built(Head1Weights, "river")
    column = b.scene.table.column
    top = int(np.argmax([m.value for m in column.weights]))
    bar = column.bars[top]
    want = blend(head_color(1), BACKGROUND, 0.85)                    # the block's bar fill
    assert np.abs(b.pixel(bar.get_center()) - want).max() <= 3
    # the receiver row is boxed in the receiver colour, between its label and its weight
    x = (column.labels[-1].get_right()[0] + column.weight(len(column.weights) - 1).get_left()[0]) / 2
    y = column.weight(len(column.weights) - 1).get_center()[1]
    assert np.abs(b.pixel((x, y)) - blend(RECEIVER_COLOR, BACKGROUND, HIGHLIGHT_OPACITY)).max() <= 3


# ----------------------------------------------------------------------------- the message


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("h", [1, 2])
def test_message_walk_shows_values_products_and_the_sum(h, sentence):
    ws = compute_worksheet(sentence)
    head, n = ws.heads[h - 1], ws.n
    ref = reference_row(ws.E, h)
    b = built(WALK_SCENES[h][1], sentence)
    i = n - 1
    assert_matrix_on_screen(b, f"V{h}", head.V)
    products = b.by_tag(f"P{h}")
    assert set(products) == {(j, c) for j in range(n) for c in range(2)}
    for (j, c), m in products.items():
        assert m.value == head.weights[i, j] * head.V[j, c]          # unrounded α × unrounded v
        assert_shows(m, ref["products"][j][c])
    message = b.by_tag(f"m{h}")
    assert [message[(0, c)].value for c in range(2)] == list(head.messages[i])
    for c in range(2):
        assert_shows(message[(0, c)], ref["message"][c])
        # the shown sum is the full-precision sum, not a sum of the displayed products
        assert message[(0, c)].value == pytest.approx(math.fsum(products[(j, c)].value for j in range(n)),
                                                      abs=1e-12)
    # each written-out product: α, v, the coordinate-by-coordinate terms and the result
    for j in b.scene.walked_sources:
        tag = f"svp{h}_{j}"
        assert b.by_tag(f"{tag}_alpha")[None].value == head.weights[i, j]
        for c in range(2):
            assert b.by_tag(f"{tag}_v")[(0, c)].value == head.V[j, c]
            assert b.by_tag(f"{tag}_exp_alpha")[c].value == head.weights[i, j]
            assert b.by_tag(f"{tag}_exp_v")[c].value == head.V[j, c]
            assert_shows(b.by_tag(f"{tag}_product")[(0, c)], ref["products"][j][c])
    # the caption about rounding tells the truth for this sentence and head: add the displayed
    # products exactly (decimal arithmetic) and compare with the displayed message
    added = [sum((Decimal(fmt(row[c])) for row in ref["products"]), Decimal(0)) for c in range(2)]
    differs = any(added[c] != Decimal(fmt(ref["message"][c])) for c in range(2))
    assert rounding_changes_sum(head, i) == differs
    text = said(b)
    assert "The displayed products are rounded, but the sums use full precision" in text
    assert ("would change the last digit" in text) == differs
    assert "giving a [1,2] message" in text and f"[1,{n}]" in text
    assert "This is one row of H = AV" in text
    texts = {t.original_text for t in b.texts}
    assert "rounded display,\nfull-precision sums" in texts


def test_message_walk_projects_values_from_E():
    ws = compute_worksheet("river")
    b = built(Head1Message, "river")
    assert_matrix_on_screen(b, "E", ws.E)
    assert_matrix_on_screen(b, "W_V1", ws.heads[0].W_V)
    text = said(b)
    assert "These are projected value vectors, not token IDs or attention weights." in text
    assert "W_K and W_V equal entries, but they remain separate parameters" in text


def test_message_walk_chooses_the_top_a_signed_and_a_small_source():
    ws = compute_worksheet("river")
    head = ws.heads[0]
    chosen = dict((reason, j) for j, reason in choose_walk_sources(head, ws.n, 3))
    # river (position 6) has the largest head-1 weight and its value [3.1, -0.1] has a negative sign
    assert chosen["top"] == 5 and head.V[5, 1] < 0
    assert chosen["small"] not in (5,) and head.weights[-1, chosen["small"]] < 0.05
    b = built(Head1Message, "river")
    assert b.scene.walked_sources[0] == 5
    text = said(b)
    assert "The sign of each coordinate comes from the value" in text
    assert "A small weight scales down the entire value vector." in text


def test_river_message_worked_by_hand():
    b = built(Head1Message, "river")
    # river: α ≈ 0.7176 (shown 0.718) times v = [3.1, -0.1]: 2.2247 and -0.0718
    assert [b.by_tag("P1")[(5, c)].original_text for c in range(2)] == ["2.225", "-0.072"]
    # coordinate b: the ten displayed products add to -0.017, but the full-precision message
    # rounds to -0.018 — the caption must say the rounded products would change the last digit
    shown_b = [b.by_tag("P1")[(j, 1)].original_text for j in range(10)]
    assert sum(Decimal(x) for x in shown_b) == Decimal("-0.017")
    assert b.by_tag("m1")[(0, 1)].original_text == "-0.018"
    assert "would change the last digit" in said(b)
    # head 2 reads person and glue: fisherman's person 2.2 − 0.1 makes it head 2's top source
    b2 = built(Head2WeightsAndMessage, "river")
    assert b2.scene.walked_sources == [1]


# -------------------------------------------------------------------------- masked matrices


@pytest.mark.parametrize("sentence", SENTENCES)
def test_masked_matrices_show_only_the_permitted_weights(sentence):
    ws = compute_worksheet(sentence)
    n = ws.n
    b = built(MaskedMatrix, sentence)
    for h, mm in zip((1, 2), b.scene.matrices):
        head = ws.heads[h - 1]
        shown = b.by_tag(f"A{h}")
        assert set(shown) == {(i, j) for i in range(n) for j in range(i + 1)}   # lower triangle only
        for (i, j), m in shown.items():
            assert m.value == head.weights[i, j] and m.original_text == fmt(m.value)
        assert len(mm.blocked) == n * (n - 1) // 2
        assert all(mm.number(i, j) is None for i in range(n) for j in range(i + 1, n))
        # row n is the walk's row: the weights there are the row the weight column showed
        ref = reference_row(ws.E, h)
        for j in range(n):
            assert_shows(shown[(n - 1, j)], ref["weights"][j])


def test_masked_matrix_last_frame_blocks_the_future_and_marks_row_n():
    ws = compute_worksheet("river")
    n = ws.n
    b = built(MaskedMatrix, "river")
    for h, mm in zip((1, 2), b.scene.matrices):
        # a blocked (future) cell is solid mask colour, not a zero-valued cell
        assert np.abs(b.pixel(mm.square(0, n - 1).get_center()) - hex_to_rgb(MASK_COLOR)).max() <= 3
        # a permitted cell is shaded by its weight (the row's largest; sampled in a corner, off the digits)
        top = int(np.argmax(ws.heads[h - 1].weights[n - 1]))
        sq = mm.square(n - 1, top)
        corner = sq.get_corner(np.array([-1, 1, 0])) + np.array([0.1, -0.1, 0])
        want = blend(head_color(h), BACKGROUND, weight_opacity(ws.heads[h - 1].weights[n - 1, top]))
        assert np.abs(b.pixel(corner) - want).max() <= 3
    boxes = b.scene.row_boxes
    assert len(boxes) == 2
    for box, mm in zip(boxes, b.scene.matrices):
        assert abs(box.get_center()[1] - mm.square(n - 1, 0).get_center()[1]) < 1e-6
    text = said(b)
    assert "As in Part II, αᵢⱼ is one attention weight and A stores the full attention matrix." in text
    assert "Earlier query rows cannot read later sources" in text
    assert "The calculations are independent across heads and can run in parallel." in text
    assert [t.original_text for t in b.scene.matrices[0].row_labels][-1] == f"{n} {ws.tokens[-1]}"


# ------------------------------------------------------------------------ longer prefixes


def test_per_source_columns_fit_the_frame_for_a_twenty_word_prefix():
    """The switch accepts any 1–20 vocabulary words: the rows shrink, stay aligned and stay in frame."""
    from manim import config
    from scenes.chapter2.head_walk import ROOMY_ROWS, TIGHT_ROWS, get_message_table, get_score_table

    words = "the fisherman sat beside the river bank and watched the water boats fish ducks and the teller at the bank"
    ws = compute_worksheet(words)
    assert ws.n == 20
    half_w, half_h = config.frame_width / 2, config.frame_height / 2
    for h in (1, 2):
        head = ws.heads[h - 1]
        for v_buff in (ROOMY_ROWS, TIGHT_ROWS):
            table, message = get_score_table(ws, head, v_buff), get_message_table(ws, head, v_buff)
            for group in (table, message):
                assert -half_w <= group.get_left()[0] and group.get_right()[0] <= half_w
                assert -half_h + 1.25 <= group.get_bottom()[1] and group.get_top()[1] <= half_h
            for j in (0, ws.n - 1):     # a source's key, weight and value share one row
                y = table.keys.cell_center(j, 0)[1]
                assert abs(message.column.weight(j).get_center()[1] - y) < 1e-6
                assert abs(message.values.cell_center(j, 0)[1] - y) < 1e-6


def test_weight_column_row_box_follows_the_column_when_it_moves_and_scales():
    """The walk moves and scales the weight column; its row boxes must follow (scenes/blocks change)."""
    from manim import RIGHT, UP
    from scenes.blocks.weight_column import get_weight_column

    col = get_weight_column(["the", "river", "bank"], [0.2, 0.5, 0.3])
    before = col.get_row_box(1)
    col.shift(3 * RIGHT + UP).scale(0.5, about_point=col.get_center())
    after = col.get_row_box(1)
    assert after.width == pytest.approx(before.width * 0.5, rel=1e-6)
    assert after.get_center()[1] == pytest.approx(col.weight(1).get_center()[1], abs=1e-9)
    # the box spans the row: from left of the word to the end of the longest possible bar
    assert after.get_left()[0] < col.labels[1].get_left()[0] and after.get_right()[0] >= col.bars[1].get_right()[0]
