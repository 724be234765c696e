"""Chapter 2, scenes 8–11 (Head1Weights, Head1Message, Head2WeightsAndMessage, MaskedMatrix): they build
cleanly (no LaTeX, legible, in frame, every change inside its beat), every number on screen is the
data layer's number with its own precision — for river, cheque and a twenty-word sentence — and the
picture a sentence names plays in that sentence's beat. Expected values come from the data layer
*and* from a second, independent computation of row n in plain Python from the hand-chosen
parameters of docs/WORKSHEET.md.
"""
from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pytest
from manim import VGroup

from lesson_data.display import fmt, places_for
from lesson_data.worksheet import compute_worksheet
from scenes.blocks.masked_matrix import BLOCKED_COLOR, heat_color
from scenes.blocks.weight_column import get_weight_column
from scenes.chapter2.head_walk import (
    Head1Message,
    Head1Weights,
    Head2WeightsAndMessage,
    MaskedMatrix,
    display_words,
    get_message_table,
    get_row_grid,
    get_score_table,
)
from scenes.style import BACKGROUND, CONTENT_BOTTOM, CONTENT_TOP, MIN_TEXT_SIZE, SOURCE_COLOR, head_color
from tests.scene_harness import assert_builds_cleanly, assert_matrix_on_screen, blend, built, hex_to_rgb

TWENTY = "the fisherman sat beside the river bank and watched the water boats fish ducks and the teller at the bank"
SENTENCES = ("river", "cheque")
WALK_SCENES = {1: (Head1Weights, Head1Message), 2: (Head2WeightsAndMessage, Head2WeightsAndMessage)}


# ------------------------------------------------------------------ an independent reference
# docs/WORKSHEET.md, typed in again: rows are water, finance, person, glue; W_V has W_K's entries.
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


def assert_shows(m, expected: float, places: int = 3):
    """The number shows what the independent reference rounds to, at the table's own precision."""
    assert m.places == places, (m.tag, m.index, m.places, places)
    assert m.original_text == fmt(expected, places), (m.tag, m.index, m.original_text, fmt(expected, places))


def beat_texts(b) -> str:
    return " ".join(beat.text for beat in b.beats)


def fine_print_in(b, beat, part: str) -> bool:
    """The scene showed a caveat containing `part` as fine print during `beat`."""
    return any(bid == beat.id and part in text for bid, text in b.scene.fine_prints)


def fine_prints(b) -> str:
    return " ".join(text for _, text in b.scene.fine_prints)


def played(b, beat, animation: str) -> bool:
    return any(animation in c.what for c in b.changes_in(beat))


# ------------------------------------------------------------------------------- every scene


@pytest.mark.parametrize("sentence", [*SENTENCES, TWENTY], ids=["river", "cheque", "twenty"])
@pytest.mark.parametrize("scene_cls", [Head1Weights, Head1Message, Head2WeightsAndMessage, MaskedMatrix],
                         ids=lambda c: c.__name__)
def test_scene_builds_cleanly(scene_cls, sentence):
    b = built(scene_cls, sentence)
    assert_builds_cleanly(b, min_sections=4, min_beats=8)
    assert 40 <= b.duration <= 160                 # a learner’s pace, not a slideshow


# ----------------------------------------------------------------------------- the weights


@pytest.mark.parametrize("sentence", [*SENTENCES, TWENTY], ids=["river", "cheque", "twenty"])
@pytest.mark.parametrize("h", [1, 2])
def test_weights_walk_shows_every_step_of_row_n(h, sentence):
    ws = compute_worksheet(sentence)
    head, n = ws.heads[h - 1], ws.n
    ref = reference_row(ws.E, h)
    b = built(WALK_SCENES[h][0], sentence)
    i = n - 1
    # the data layer's numbers, unrounded, at their own precision
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
    # ... and they are what a second computation gives (its own precision computed from its own numbers)
    kp, sp = places_for(ref["keys"]), places_for(ref["scores"])
    for j in range(n):
        assert_shows(b.by_tag(f"K{h}")[(j, 0)], ref["keys"][j][0], kp)
        assert_shows(b.by_tag(f"scores{h}")[(j, 0)], ref["scores"][j], sp)
        assert_shows(b.by_tag(f"scaled{h}")[(j, 0)], ref["scaled"][j])
        assert_shows(b.by_tag(f"shifted{h}")[(j, 0)], ref["shifted"][j])
        assert_shows(b.by_tag(f"exps{h}")[(j, 0)], ref["exps"][j])
        assert_shows(weights[j], ref["weights"][j])
    assert_shows(b.by_tag(f"max{h}")[None], ref["max"])
    assert_shows(b.by_tag(f"den{h}")[None], ref["den"])
    # every source, the receiver included, is in the denominator: Σ exps over all n rows
    assert b.by_tag(f"den{h}")[None].value == pytest.approx(math.fsum(ref["exps"]), abs=1e-12)
    assert ref["exps"][-1] > 0                      # the receiver's own term is there
    # the shown row sums to one (the sum of the unrounded weights, rounded once); scene 10 says it no more
    if h == 1:
        total = b.by_tag(f"A{h}_row_sum")[None]
        assert total.original_text == "1.000"
        assert total.value == pytest.approx(1.0, abs=1e-12)
    # the source words sit beside their weights, with the source index j
    column = b.scene.weights.column
    assert [t.original_text for t in column.labels] == [f"{j + 1} {w}" for j, w in enumerate(display_words(ws))]
    for j in range(n):
        assert abs(column.labels[j].get_center()[1] - column.weight(j).get_center()[1]) < 0.1


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("h", [1])           # scene 10 takes scene 8's steps at once: nothing written out
def test_written_out_score_adds_up(h, sentence):
    ws = compute_worksheet(sentence)
    head, n = ws.heads[h - 1], ws.n
    b = built(WALK_SCENES[h][0], sentence)
    walked = sorted(b.by_tag(f"walk_score{h}"))
    assert walked == [int(np.argmax(head.weights[n - 1]))]      # the source that wins the softmax
    for j in walked:
        q = [b.by_tag(f"walk_q{h}")[(j, c)].value for c in range(2)]
        k = [b.by_tag(f"walk_k{h}")[(j, c)].value for c in range(2)]
        assert q == list(head.Q[n - 1]) and k == list(head.K[j])
        score = b.by_tag(f"walk_score{h}")[j].value
        assert score == pytest.approx(q[0] * k[0] + q[1] * k[1], abs=1e-12)
        assert b.by_tag(f"walk_scaled{h}")[j].value == pytest.approx(score / math.sqrt(2), abs=1e-12)


def test_river_scores_worked_by_hand():
    b = built(Head1Weights, "river")
    # q¹₁₀ = e₁₀ W_Q¹ = [2.3, 2.3] (glue 2.4 − 0.1), shown as tenths; k¹ of "river" at 6 = [3 + 0.1, 0 − 0.1]
    assert [b.by_tag("q1")[(0, k)].original_text for k in range(2)] == ["2.3", "2.3"]
    assert [b.by_tag("K1")[(5, k)].original_text for k in range(2)] == ["3.1", "-0.1"]
    # score = 2.3 × 3.1 + 2.3 × (−0.1) = 7.13 − 0.23 = 6.9, in a column of hundredths; ÷ √2 = 4.8790...
    assert b.by_tag("scores1")[(5, 0)].original_text == "6.90"
    assert b.by_tag("scaled1")[(5, 0)].original_text == "4.879"
    assert b.by_tag("shifted1")[(5, 0)].original_text == "0.000"     # the max: exp(0) = 1
    assert b.by_tag("exps1")[(5, 0)].original_text == "1.000"
    # the receiver "the" has no water or finance: its own key is [0, 0], score 0
    assert b.by_tag("scores1")[(9, 0)].original_text == "0.00"
    said = beat_texts(b)
    assert "Source 6, “river”, has the key 3.1 and -0.1. Its score: 2.3 × 3.1 + 2.3 × (-0.1) = 6.90." in said
    assert "Head 1 puts most of its weight on “river”: 0.718. Next comes “fisherman”, at 0.166." in said
    beat = b.beat_of("has the key 3.1")
    assert "times" in beat.spoken and "by" not in beat.spoken.split()      # a product, not a shape


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
    beat = b.beat_of("Skip the subtraction")
    assert {m.tag for m in b.numbers_in(beat)} >= {"check_w1", "unshifted_w1", "unshifted_exp1"}
    assert fine_print_in(b, b.beat_of("For a stable softmax"), "A numerically stable softmax subtracts the "
                         "maximum score before exponentiating; this leaves the normalized weights unchanged.")
    assert fine_print_in(b, b.beat_of("the receiver’s own term included"),
                         "Every source contributes to the denominator, including the receiver itself.")


def test_each_step_appears_in_the_beat_that_names_it():
    b = built(Head1Weights, "river")

    def first_shown(beat):
        return {m.tag for m in b.numbers_in(beat)}

    assert "q1" in first_shown(b.beat_of("Its query for the receiver"))
    assert "K1" in first_shown(b.beat_of("Every source has a key"))
    assert {"walk_score1", "scores1"} <= first_shown(b.beat_of("Its score:"))
    assert "scaled1" in first_shown(b.beat_of("Divided by √2"))
    assert "shifted1" in first_shown(b.beat_of("subtract the largest score"))
    assert "exps1" in first_shown(b.beat_of("Then exponentiate"))
    assert "den1" in first_shown(b.beat_of("the receiver’s own term included"))
    assert "A1_row" in first_shown(b.beat_of("Divide each exponential by the sum"))
    assert "A1_row_sum" in first_shown(b.beat_of("weights add up to one"))
    # the weights become arrows from each source word into the receiver, in the sentence that says so
    assert played(b, b.beat_of("Drawn as arrows"), "LaggedStart")
    on_screen = {id(m) for top in b.scene.mobjects for m in top.get_family()}
    assert all(id(a) in on_screen for a in b.scene.arrows.arrows)
    assert played(b, b.beat_of("puts most of its weight on “river”"), "Indicate")


def test_the_sentence_stays_with_the_future_greyed_and_the_caveat_is_said_once():
    b = built(Head1Weights, "river")
    band = b.scene.band
    on_screen = {id(m) for top in b.scene.mobjects for m in top.get_family()}
    assert all(id(m) in on_screen for m in (*band.row.words, *band.row.boxes, *band.future))
    # the grey over the blank is the mask colour, drawn (the blank is the future: nothing to read)
    shade = band.future[0]
    assert np.abs(b.pixel(shade.get_corner(np.array([-1, 1, 0])) + np.array([0.06, -0.06, 0]))
                  - blend("#3C414D", BACKGROUND, 0.85)).max() <= 4
    # no arrow from the future: one per readable source, none more
    assert len(b.scene.arrows.arrows) == b.scene.n
    beat = b.beat_of("We built head 1 to find the setting: our design")
    assert fine_print_in(b, beat, "“Setting” and “person” name the intended behaviour of this example, "
                                  "not jobs assigned to trained heads.")
    # the query/key width was said in scene 7: not repeated here
    assert not fine_print_in(b, b.beat_of("Divided by √2"), "Query/key width is two per head here")
    assert "hand" not in b.beat_of("We built head 1 to find").text       # "hand-chosen" said in scene 7
    assert fine_print_in(b, b.beat_of("weights add up to one"), "All displayed numbers are rounded; "
                                                               "calculations use full precision.")


def test_head1_denominator_explains_its_rounded_parts_and_the_division_is_seen():
    ws = compute_worksheet("river")
    b = built(Head1Weights, "river")
    head = ws.heads[0]
    # by hand, from the exp column on screen (review frame 08_10):
    # 0.009 + 0.231 + 0.012 + 0.017 + 0.011 + 1.000 + 0.074 + 0.008 + 0.024 + 0.008 = 1.394, but Σ shows 1.393
    shown = b.by_tag("exps1_shown_sum")[None]
    assert shown.original_text == "1.394"
    assert b.by_tag("exps1_full_sum")[None].original_text == "1.393" == fmt(head.denominators[-1])
    assert {"exps1_shown_sum", "exps1_full_sum"} <= {m.tag for m in b.numbers_in(b.beat_of("Add all ten"))}
    # "Divide each exponential by the sum": the ÷ 1.393 appears over the exp column in that beat
    fold = b.beat_of("Divide each exponential by the sum")
    assert "divide1" in {m.tag for m in b.numbers_in(fold)}
    assert b.by_tag("divide1")[None].value == head.denominators[-1]
    # the key table is K¹ (its rows are the keys k¹ⱼ), labelled with the sentence's own words
    assert "K¹  [10, 2],  rows k¹ⱼ" in {t.original_text for t in b.texts}
    assert [t.original_text for t in b.scene.score_table.keys.row_labels][0] == "1 The"


@pytest.mark.parametrize("sentence,h,shown", [("river", 1, "0.999"), ("cheque", 1, None)])
def test_weight_sum_says_where_rounded_parts_do_not_add_to_the_total(sentence, h, shown):
    ws = compute_worksheet(sentence)
    b = built(Head1Weights, sentence)
    row = ws.heads[h - 1].weights[-1]
    # by hand: add the shown digits as decimals
    added = sum((Decimal(fmt(w)) for w in row), Decimal(0))
    beat = b.beat_of("weights add up to one")
    if shown is None:
        assert added == Decimal("1.000") and "Rounded" not in beat.text
    else:
        assert added == Decimal(shown)
        assert f"The rounded ones on screen add to {shown}." in beat.text
        assert "all displayed numbers are rounded" not in beat.text       # the fine print says it
        assert b.by_tag(f"A{h}_rounded_sum")[None].original_text == shown


def test_weight_column_last_frame_draws_the_bars_and_the_arrows_in_the_head_colour():
    b = built(Head1Weights, "river")
    column = b.scene.weights.column
    top = int(np.argmax([m.value for m in column.weights]))
    bar = column.bars[top]
    want = blend(head_color(1), BACKGROUND, 0.85)                    # the block's bar fill
    assert np.abs(b.pixel(bar.get_center()) - want).max() <= 3
    # the widest arrow is river's, from above the sentence
    arrows = b.scene.arrows
    widths = {j: arrows.arrow(j).get_stroke_width() for j in range(b.scene.n)}
    assert max(widths, key=widths.get) == top
    assert arrows.arrow(top).get_top()[1] > b.scene.band.row.boxes.get_top()[1]


# ----------------------------------------------------------------------------- the message


@pytest.mark.parametrize("sentence", [*SENTENCES, TWENTY], ids=["river", "cheque", "twenty"])
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
    pp = places_for(ref["products"])
    for (j, c), m in products.items():
        assert m.value == head.weights[i, j] * head.V[j, c]          # unrounded α × unrounded v
        assert_shows(m, ref["products"][j][c], pp)
    message = b.by_tag(f"m{h}")
    assert [message[(0, c)].value for c in range(2)] == list(head.messages[i])
    for c in range(2):
        assert_shows(message[(0, c)], ref["message"][c])
        # the shown sum is the full-precision sum, not a sum of the displayed products
        assert message[(0, c)].value == pytest.approx(math.fsum(products[(j, c)].value for j in range(n)),
                                                      abs=1e-12)
    # each written-out product: α, v, the coordinate-by-coordinate terms and the result
    vp = places_for(ref["values"])
    for j in (b.scene.walked_sources if h == 1 else []):        # scene 10 scales every row at once
        tag = f"svp{h}_{j}"
        assert b.by_tag(f"{tag}_alpha")[None].value == head.weights[i, j]
        for c in range(2):
            assert b.by_tag(f"{tag}_v")[(0, c)].value == head.V[j, c]
            assert b.by_tag(f"{tag}_v")[(0, c)].original_text == fmt(ref["values"][j][c], vp)
            assert b.by_tag(f"{tag}_exp_alpha")[c].value == head.weights[i, j]
            assert b.by_tag(f"{tag}_exp_v")[c].value == head.V[j, c]
            assert_shows(b.by_tag(f"{tag}_product")[(0, c)], ref["products"][j][c])
    # the rounding sentence tells the truth for this sentence and head: add the displayed products
    # exactly (decimal arithmetic) and compare with the displayed message
    added = [sum((Decimal(fmt(row[c])) for row in ref["products"]), Decimal(0)) for c in range(2)]
    differs = [c for c in range(2) if added[c] != Decimal(fmt(ref["message"][c]))]
    # on screen only, in the sum's own beat (the voice said the rounding rule once, in scene 8)
    said = beat_texts(b)
    assert "products on screen add to" not in said and "Again, the sum" not in said
    if differs:
        note = b.by_tag(f"P{h}_rounded_sum")[differs[0]]
        assert note.original_text == str(added[differs[0]])
        summed = b.beat_of("Add the")              # "Add the ten scaled rows" (9), "Add them up" (10)
        assert (note.tag, note.index) in {(m.tag, m.index) for m in b.numbers_in(summed)}
    else:
        assert f"P{h}_rounded_sum" not in {m.tag for m in b.numbers}
    if h == 1:
        assert f"the weights are a [1,{n}] row, V¹ is [{n},2], and the message is [1,2]" in said
        assert "one by ten" in b.beat_of("In shapes").spoken or n != 10
        assert "This is one row of H = AV" in fine_prints(b)


def test_message_walk_projects_values_from_E():
    ws = compute_worksheet("river")
    b = built(Head1Message, "river")
    assert_matrix_on_screen(b, "E", ws.E)
    assert_matrix_on_screen(b, "W_V1", ws.heads[0].W_V)
    assert [b.by_tag("W_V1")[(0, c)].original_text for c in range(2)] == ["1", "0"]     # its own precision
    beat = b.beat_of("Each source’s value is its row of E")
    assert {"E", "W_V1", "V1"} <= {m.tag for m in b.numbers_in(beat)}
    assert fine_print_in(b, beat, "These are projected value vectors, not token IDs or attention weights.")
    # scene 7 said "they need not be equal"; here the notes' scene-9 words: different roles
    beat = b.beat_of("a different job from W_K¹: the keys helped set the weights")
    # fourth review: the W_K¹ the caption contrasts is on screen in that beat, its entries W_K¹'s own
    assert "W_K1_beside" in {m.tag for m in b.numbers_in(beat)}
    assert_matrix_on_screen(b, "W_K1_beside", ws.heads[0].W_K)
    texts = {t.original_text for t in b.texts}
    assert {"keys: set the arrows’ weights", "values: what gets mixed"} <= texts
    assert fine_print_in(b, beat, "they remain separate parameters with different roles.")
    assert "need not" not in beat.text


def test_message_walk_expands_the_top_a_signed_and_a_small_source_each_in_its_beat():
    b = built(Head1Message, "river")
    # river (6): the largest weight, value [3.1, -0.1] (a negative coordinate); bank (7): weight 0.053 on [0.7, 0.7]
    assert b.scene.walked_sources == [5, 6]
    river = b.beat_of("Source 6, “river”: its weight times its value")
    assert {"svp1_5_alpha", "svp1_5_product"} <= {m.tag for m in b.numbers_in(river)}
    # "≈" where the screen's digits disagree (0.718 × 3.1 = 2.2258, shown 2.225), "=" where they agree
    # (0.718 × -0.1 = -0.0718, shown -0.072)
    assert ("0.718 × 3.1 ≈ 2.225 and 0.718 × (-0.1) = -0.072") in river.text
    sign = b.beat_of("minus sign in the product comes from the value")
    assert played(b, sign, "Create") and fine_print_in(b, sign, "The sign of each coordinate comes from the value.")
    small = b.beat_of("Source 7, “bank”, has a small weight, 0.053: its whole value shrinks, 0.7 and 0.7 becoming 0.037 and 0.037.")
    assert fine_print_in(b, small, "A small weight scales down the entire value vector.")
    assert "svp1_6_product" in {m.tag for m in b.numbers_in(small)}
    # cheque: the top source (cheque, [0, 2.9]) has no negative coordinate, so a signed one is added
    cheque = built(Head1Message, "cheque")
    assert len(cheque.scene.walked_sources) == 3 and cheque.scene.walked_sources[0] == 3
    assert cheque.beat_of("has a value with a negative coordinate")


def test_river_product_rounding_is_explained_where_a_calculator_disagrees():
    b = built(Head1Message, "river")
    # 0.718 × 3.1 = 2.2258 from the screen's digits; 0.717636… × 3.1 = 2.22467… shows 2.225: a footnote
    # under river's product, in its own beat, on screen only (the voice says nothing more of rounding)
    beat = b.beat_of("Source 6, “river”: its weight times its value")
    assert "round" not in beat.spoken and "calculator" not in beat.spoken
    shown = {m.tag: m for m in b.numbers_in(beat)}
    assert shown["gap1_calculator"].original_text == "2.2258"
    assert shown["gap1_calculator"].value == pytest.approx(0.718 * 3.1, abs=1e-12)
    assert shown["gap1_exact"].value == b.scene.head.weights[-1, 5] * b.scene.head.V[5, 0]
    assert shown["gap1_shown"].original_text == "2.225"


def test_river_message_worked_by_hand():
    b = built(Head1Message, "river")
    # river: α ≈ 0.7176 (shown 0.718) times v = [3.1, -0.1]: 2.2247 and -0.0718
    assert [b.by_tag("P1")[(5, c)].original_text for c in range(2)] == ["2.225", "-0.072"]
    # coordinate finance: the ten displayed products add to -0.017, but the full-precision message
    # rounds to -0.018 — the sentence must say the rounded products add to -0.017
    shown_b = [b.by_tag("P1")[(j, 1)].original_text for j in range(10)]
    assert sum(Decimal(x) for x in shown_b) == Decimal("-0.017")
    assert b.by_tag("m1")[(0, 1)].original_text == "-0.018"
    summed = b.beat_of("Add the ten scaled rows")
    assert {"m1", "P1_rounded_sum"} <= {m.tag for m in b.numbers_in(summed)}
    assert b.by_tag("P1_rounded_sum")[1].original_text == "-0.017"
    assert "mostly water, 2.617, most of it from “river”" in b.beat_of("So head 1’s message").text


def test_head_2_ends_with_both_heads_side_by_side():
    ws = compute_worksheet("river")
    b = built(Head2WeightsAndMessage, "river")
    side = b.scene.side
    beat = b.beat_of("Side by side: head 1 puts most of its weight on “river”, head 2 on “fisherman”.")
    assert played(b, beat, "LaggedStart")                         # both heads' arrows drawn in it
    # head 1 above the sentence, head 2 below; each arrow row has one arrow per readable source
    assert side.up.get_bottom()[1] >= side.band.row.boxes.get_top()[1] - 0.05
    assert side.down.get_top()[1] <= side.band.row.boxes.get_bottom()[1] + 0.05
    assert len(side.up.arrows) == len(side.down.arrows) == ws.n
    carries = b.beat_of("carries mostly")
    assert "m¹₁₀ carries mostly water, from “river”; m²₁₀ carries mostly person, from “fisherman”" in carries.text
    assert "card1" in {m.tag for m in b.numbers_in(carries)}
    # head 2's picture is not wiped and redrawn (docs/VISUALS.md): its sentence, arrows and summed
    # message move into the side-by-side view in the beat that brings it, the slot becoming m²'s card
    assert "card2" in {m.tag for m in b.numbers_in(beat)}
    moves = [c.what for c in b.changes_in(beat) if "ReplacementTransform" in c.what]
    assert moves, [c.what for c in b.changes_in(beat)]
    assert not any(m.blank for m in b.stage if m.stage == f"beat:{beat.id}")
    scene = b.scene
    assert scene.band not in scene.mobjects and side.band in scene.mobjects and side.down in scene.mobjects
    for h in (1, 2):
        assert_matrix_on_screen(b, f"card{h}", ws.heads[h - 1].messages[-1])
    assert "Training can discover useful roles" in fine_prints(b)    # the fine print, said once here
    # head 2's own arrows run below the sentence during its walk
    assert played(b, b.beat_of("Head 2’s arrows run below the sentence"), "LaggedStart")
    assert b.scene.arrows.get_top()[1] <= b.scene.band.get_bottom()[1] + 0.6


# -------------------------------------------------------------------------- masked matrices


@pytest.mark.parametrize("sentence", SENTENCES)
def test_masked_matrices_show_only_the_permitted_weights_legibly(sentence):
    ws = compute_worksheet(sentence)
    n = ws.n
    b = built(MaskedMatrix, sentence)
    for h, mm in zip((1, 2), b.scene.big):
        head = ws.heads[h - 1]
        assert mm.shows_numbers
        shown = b.by_tag(f"A{h}")
        assert set(shown) == {(i, j) for i in range(n) for j in range(i + 1)}   # lower triangle only
        for (i, j), m in shown.items():
            assert m.value == head.weights[i, j] and m.original_text == fmt(m.value)
            assert m.font_size >= MIN_TEXT_SIZE - 1e-6                          # digits at the floor or above
            sq = mm.square(i, j)
            assert m.width < sq.width and m.height < sq.height                 # inside its own cell
        assert len(mm.blocked) == n * (n - 1) // 2
        assert all(mm.number(i, j) is None for i in range(n) for j in range(i + 1, n))
        # word labels on both axes
        assert [t.original_text for t in mm.row_labels] == [f"{j + 1} {w}" for j, w in enumerate(display_words(ws))]
        assert [t.original_text for t in mm.col_labels] == [f"{j + 1} {w}" for j, w in enumerate(display_words(ws))]
        # row n is the walk's row: the weights there are the row the weight column showed
        ref = reference_row(ws.E, h)
        for j in range(n):
            assert_shows(shown[(n - 1, j)], ref["weights"][j])


def test_masked_matrix_beats_name_their_pictures():
    b = built(MaskedMatrix, "river")
    assert {"A1"} <= {m.tag for m in b.numbers_in(b.beat_of("its whole attention matrix"))}
    early = b.beat_of("Row 3, “sat”, reads only sources 1 to 3; sources 4 to 10 are still in its future.")
    assert played(b, early, "Create") and fine_print_in(b, early, "Earlier query rows cannot read later sources.")
    walked = b.beat_of("Row 10 is the row we walked: most of its weight on “river”, 0.718.")
    assert played(b, walked, "Create")
    assert fine_print_in(b, walked, "The walkthrough follows its final row, A[10, :], using one-based token positions.")
    assert "A2" in {m.tag for m in b.numbers_in(b.beat_of("Head 2’s matrix has its own pattern: row 10 puts 0.693 "
                                                          "on “fisherman”."))}
    assert "The calculations are independent across heads and can run in parallel." in fine_prints(b)


def test_masked_matrix_last_frame_blocks_the_future_darker_than_any_weight_and_marks_row_n():
    ws = compute_worksheet("river")
    n = ws.n
    b = built(MaskedMatrix, "river")

    def luminance(rgb):
        return 0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]

    for h, mm in zip((1, 2), b.scene.matrices):
        weights = ws.heads[h - 1].weights
        # a blocked (future) cell, off its hatch line (the diagonal runs bottom-left to top-right)
        sq = mm.square(0, n - 1)
        corner = sq.get_corner(np.array([-1, 1, 0])) + np.array([0.05, -0.05, 0])
        blocked = b.pixel(corner)
        assert np.abs(blocked - hex_to_rgb(BLOCKED_COLOR)).max() <= 4
        # every permitted cell is brighter than the blocked ones: the smallest weight's cell, sampled inside
        i, j = np.unravel_index(np.argmin(np.where(np.tril(np.ones((n, n))) > 0, weights, 9.0)), (n, n))
        cell = b.pixel(mm.square(i, j).get_center())
        assert np.abs(cell - hex_to_rgb(heat_color(weights[i, j], head_color(h)))).max() <= 4
        assert luminance(cell) > luminance(blocked) + 5
        # the row's largest weight is the brightest in its row
        top = int(np.argmax(weights[n - 1]))
        want = hex_to_rgb(heat_color(weights[n - 1, top], head_color(h)))
        assert np.abs(b.pixel(mm.square(n - 1, top).get_center()) - want).max() <= 4
    for box, mm in zip(b.scene.row_boxes, b.scene.matrices):
        assert abs(box.get_center()[1] - mm.square(n - 1, 0).get_center()[1]) < 1e-6


# ------------------------------------------------------------------------ longer prefixes


def test_per_source_columns_fit_the_frame_for_a_twenty_word_prefix():
    """The switch accepts any 1–20 vocabulary words: the rows stay legible, aligned and in frame
    (the sentence band makes way while a table this tall is on screen)."""
    from manim import config

    ws = compute_worksheet(TWENTY)
    assert ws.n == 20
    half_w = config.frame_width / 2
    grid = get_row_grid(ws.n, (1.0, CONTENT_BOTTOM))
    assert not grid.with_band and grid.top == CONTENT_TOP        # twenty rows do not fit under the band
    assert grid.row_height >= 0.23
    for h in (1, 2):
        head = ws.heads[h - 1]
        table, message = get_score_table(ws, head, grid), get_message_table(ws, head, grid)
        for group in (table, message):
            assert -half_w <= group.get_left()[0] and group.get_right()[0] <= half_w
            assert CONTENT_BOTTOM - 0.02 <= group.get_bottom()[1] and group.get_top()[1] <= CONTENT_TOP + 0.02
        for j in (0, ws.n - 1):     # a source's key, weight and value share one row
            y = table.keys.cell_center(j, 0)[1]
            assert abs(message.column.weight(j).get_center()[1] - y) < 1e-6
            assert abs(message.values.cell_center(j, 0)[1] - y) < 1e-6


def test_ten_rows_fit_beside_the_sentence():
    grid = get_row_grid(10, (1.2, CONTENT_BOTTOM))
    assert grid.with_band and grid.top == 1.2 and 0.23 <= grid.row_height <= 0.36


def test_weight_column_row_box_follows_the_column_when_it_moves_and_scales():
    """The walk moves and scales the weight column; its row boxes must follow (scenes/blocks change)."""
    from manim import RIGHT, UP

    col = get_weight_column(["the", "river", "bank"], [0.2, 0.5, 0.3])
    before = col.get_row_box(1)
    col.shift(3 * RIGHT + UP).scale(0.5, about_point=col.get_center())
    after = col.get_row_box(1)
    assert after.width == pytest.approx(before.width * 0.5, rel=1e-6)
    assert after.get_center()[1] == pytest.approx(col.weight(1).get_center()[1], abs=1e-9)
    # the box spans the row: from left of the word to the end of the longest possible bar
    assert after.get_left()[0] < col.labels[1].get_left()[0] and after.get_right()[0] >= col.bars[1].get_right()[0]


# ------------------------------------------------------------------ the review's fixes, beat by beat


def test_head_2_keeps_scene_8s_layout_and_explains_its_rounded_sum():
    b = built(Head2WeightsAndMessage, "river")
    scene = b.scene
    # the sentence at the top as in scenes 8–9, head 2's arrows under it, the table under those
    assert scene.band.get_top()[1] > scene.arrows.get_top()[1]
    assert scene.grid.top < scene.arrows.get_bottom()[1]
    # by hand, from the exp column (review frame 10_03): 0.039 + 1.000 + 0.087 + 0.039 + 0.033 + 0.033
    # + 0.039 + 0.039 + 0.103 + 0.033 = 1.445, while Σ shows 1.443
    assert b.by_tag("exps2_shown_sum")[None].original_text == "1.445"
    assert b.by_tag("exps2_full_sum")[None].original_text == "1.443"
    steps = b.beat_of("takes head 1’s steps")
    assert "divide" not in steps.text.lower()                     # the division is the next sentence's
    assert {"exps2_shown_sum", "den2", "scaled2"} <= {m.tag for m in b.numbers_in(steps)}
    assert "divide2" in {m.tag for m in b.numbers_in(b.beat_of("Divide by the sum: row 10 of A²"))}
    # one step at a time: the query and keys first, with none of the step columns; the columns and
    # their sum in the next sentence, which says the sum shown (1.443, worked above by hand)
    first = b.beat_of("has its own query, 2.3 and 0.0")
    assert not {"scores2", "scaled2", "shifted2", "exps2", "den2"} & {m.tag for m in b.numbers_in(first)}
    assert "1.443" in steps.text and b.by_tag("den2")[None].original_text == "1.443"


def test_head_2_side_by_side_names_both_heads_and_prints_the_strongest_weights():
    ws = compute_worksheet("river")
    b = built(Head2WeightsAndMessage, "river")
    assert "Both heads, side by side" in {t.original_text for t in b.texts}
    side_beat = b.beat_of("Side by side: head 1 puts most")
    tags = {m.tag for m in b.numbers_in(side_beat)}
    assert {"strongest1", "strongest2"} <= tags
    # by hand: head 1's largest weight in row 10 is river's 0.718, head 2's is fisherman's 0.693
    assert b.by_tag("strongest1")[5].original_text == "0.718" and b.by_tag("strongest1")[5].value == ws.heads[0].weights[9, 5]
    assert b.by_tag("strongest2")[1].original_text == "0.693"
    assert "in parallel" not in b.beats[-1].text                  # said in scene 7 already


def test_head_1_message_shows_the_shrinking_value_and_reveals_the_products_row_by_row():
    b = built(Head1Message, "river")
    small = b.beat_of("has a small weight")
    assert played(b, small, "GrowArrow")
    assert b.by_tag("shrink1_alpha")[None].original_text == "0.053"
    assert played(b, b.beat_of("Every other source is scaled the same way."), "LaggedStart")
    # the expanded product writes a negative factor in parentheses: 0.718 × (-0.1)
    texts = {t.original_text for t in b.texts}
    assert {"×", "(", ")"} <= texts


def test_masked_matrix_grows_from_row_n_lights_the_future_and_outlines_where_heads_differ():
    b = built(MaskedMatrix, "river")
    assert played(b, b.beat_of("its whole attention matrix"), "LaggedStart")
    assert played(b, b.beat_of("Above the diagonal sit future sources"), "FadeIn")
    pair = b.scene.pair
    assert len(pair.differ) == 2                                   # rows 7–10: column 6 in A¹, column 2 in A²
    side = [c.what for c in b.changes_in(b.beat_of("head 1 on “river”, head 2 on “fisherman”"))]
    assert sum("Create" in w for w in side) >= 2
    b.beat_of("Every permitted source enters each message; row 10 has ten.")


def test_second_review_head_walk_pictures_in_their_sentences():
    b = built(Head1Weights, "river")
    # the rounding note under Σ is two lines with a clear break: "shown parts add to 1.394" / "full precision: 1.393"
    shown, full = b.by_tag("exps1_shown_sum")[None], b.by_tag("exps1_full_sum")[None]
    assert full.get_top()[1] < shown.get_bottom()[1]
    m = built(MaskedMatrix, "river")
    # rows 1-5: both heads' top source is the same (fisherman from row 2 on); row 6 (river) is the first split
    m.beat_of("Until “river” arrives at row 6, head 1 cannot pick it. From row 7 on, the two settle apart: "
              "head 1 on “river”, head 2 on “fisherman”.")
    # the ten row-10 cells flash in both matrices while "every permitted source" is said (one after another)
    assert "LaggedStart" in " ".join(c.what for c in m.changes_in(m.beat_of("Every permitted source enters")))


def test_third_review_head_2_shows_what_each_sentence_names():
    ws = compute_worksheet("river")
    b = built(Head2WeightsAndMessage, "river")
    scene, n = b.scene, ws.n
    # scene 8's steps at once: every source's q·k, ÷√2, − max and exp come in with that one sentence
    steps = b.beat_of("takes head 1’s steps")
    shown = b.numbers_in(steps)
    for tag in ("scores2", "scaled2", "shifted2", "exps2"):
        assert {m.index for m in shown if m.tag == tag} == {(j, 0) for j in range(n)}
    assert played(b, steps, "LaggedStart")
    # by hand: 2.3 × 2.1 + 0.0 × 0.0 = 4.83, ÷ √2 = 3.4153... -> 3.415, the largest of the ten
    assert b.by_tag("scaled2")[(1, 0)].original_text == "3.415"
    assert max(ws.heads[1].scaled[-1]) == ws.heads[1].scaled[-1, 1]
    # the rounding is left to the notes on screen; the voice says nothing of it (scene 8 did)
    assert b.by_tag("P2_rounded_sum")[0].original_text == "1.553"
    assert not any("round" in bt.spoken for bt in b.beats)
    # V² = E W_V² named with its values
    values = b.beat_of("Its values keep person and glue")
    texts = {t.original_text for t in b.texts}
    assert "V² = E W_V²" in texts and "same entries as W_K², separate" in " ".join(texts)
    assert played(b, values, "FadeIn")
    # the head label sits at the left, at the foot of head 2's arrows (as in the ending)
    assert scene.head_label.get_left()[0] < -5.5
    # the strongest weights read on a dark pill, clear of the arrow lines
    from manim import BackgroundRectangle
    assert all(isinstance(g[0], BackgroundRectangle) for g in scene.strongest_labels)
    # each message sits above / below the receiver it is built for
    receiver = scene.side.band.row.boxes[n - 1]
    for card in scene.side.cards:
        assert card.get_left()[0] < receiver.get_center()[0] < card.get_right()[0]
    assert scene.side.cards[0].get_bottom()[1] > receiver.get_top()[1]
    assert scene.side.cards[1].get_top()[1] < receiver.get_bottom()[1]


def test_third_review_masked_matrix_pictures_in_their_sentences():
    ws = compute_worksheet("river")
    b = built(MaskedMatrix, "river")
    scene, n = b.scene, ws.n
    # the mask is drawn in the sentence about it: blocked cells and hatching come in then, not before
    future = b.beat_of("Above the diagonal sit future sources")
    assert played(b, future, "LaggedStart") and played(b, future, "FadeIn")      # hatch lines drawn in turn
    first = b.beat_of("its whole attention matrix")
    rows = scene.get_matrix_rows(scene.big[0])
    assert not any(sq in rows[0] for sq in scene.big[0].blocked)
    # the rounding badge from the first beat; the heat map's digits a size smaller, at the floor or above
    assert "Rounded display; rows sum to one in full precision." in {t.original_text for t in b.texts} | {
        getattr(t, "sentence", None) for t in b.texts}
    assert played(b, first, "FadeIn")
    assert all(MIN_TEXT_SIZE <= m.font_size <= 17 + 1e-6 for m in b.by_tag("A1").values())
    # the split starts where both heads lead clearly: row 7 (by hand: row 6, river 0.191 vs fisherman 0.179)
    split = b.beat_of("From row 7 on, the two settle apart: head 1 on “river”, head 2 on “fisherman”.")
    assert "spreads its weight its own way" not in split.text
    for r in scene.pair.differ:
        assert r.get_top()[1] <= scene.pair[0].square(6, 0).get_top()[1] + 1e-6
    # row 10's weights stay legible under each matrix, ten per head, in that sentence
    shown = b.numbers_in(split)
    for h in (1, 2):
        row = {m.index: m for m in shown if m.tag == f"row{h}"}
        assert [row[j].original_text for j in range(n)] == [fmt(w) for w in ws.heads[h - 1].weights[-1]]
        assert all(m.font_size >= MIN_TEXT_SIZE - 1e-6 for m in row.values())
    assert {m.index: m for m in shown if m.tag == "row1"}[5].original_text == "0.718"
    assert {m.index: m for m in shown if m.tag == "row2"}[1].original_text == "0.693"
    # fourth review: why head 1 favours "fisherman" in rows 3-5, in the split's sentence (by hand: water
    # 0.1, 2.0, 0.3, 0.6, 0.1 before "river"); row 10 framed white on head 2's orange map
    assert fine_print_in(b, split, "Before “river”, head 1 favours “fisherman”: its key’s water, 2.0, is the "
                                   "largest among the earlier sources.")
    assert scene.row_boxes[1].get_stroke_color().to_hex().upper() == SOURCE_COLOR.upper()
    # "row 10 has ten": the ten cells pulse in both matrices at once; the fine print in the notes' short form
    every = b.beat_of("Every permitted source enters each message")
    assert played(b, every, "LaggedStart")
    # the heads' independence said as chapter 1 says it; "in parallel" stays in the fine print only
    assert "Neither head needs the other's result." in every.spoken and "in parallel" not in every.spoken
    assert fine_print_in(b, every, "The calculations are independent across heads and can run in parallel.")
    assert not fine_print_in(b, every, "All ten source contributions")


def test_third_review_head_1_pictures_in_their_sentences():
    ws = compute_worksheet("river")
    b = built(Head1Weights, "river")
    head = ws.heads[0]
    texts = {t.original_text for t in b.texts}
    # the score column is sⱼ, defined on the score line; the denominator written Σₖ exp(sₖ − max)
    assert "sⱼ" in texts and "s₆  =" in texts and "/ √2  =" in texts
    # fourth review: "s₆ = 6.90 / √2 = 4.879", the score divided on the line (by hand 6.9 / 1.41421 = 4.8790)
    assert b.by_tag("walk_score_over1")[5].original_text == "6.90"
    assert abs(6.9 / 2 ** 0.5 - 4.8790) < 1e-4 and b.by_tag("walk_scaled1")[5].original_text == "4.879"
    assert any(t.startswith("Σₖ exp(sₖ − max)") for t in texts)
    # "Divide each exponential by the sum": the exp column and ÷ 1.393 stay beside the new weights in that
    # beat, with why 0.008 / 1.393 shows 0.005 (by hand 0.0076 / 1.3934 = 0.0055 -> 0.005)
    fold = b.beat_of("Divide each exponential by the sum")
    assert "weights use the unrounded exps" in texts
    assert abs(head.exps[-1, 7] / head.denominators[-1] - 0.0055) < 0.0001 and fmt(head.weights[-1, 7]) == "0.005"
    kept = b.scene.fold_kept
    # read left to right: exp ÷ Σ, an arrow, then the weights (which slide home with the arrows)
    slide = b.scene.fold_slide
    assert kept[0][0].get_right()[0] < b.scene.weights.column.weights.get_left()[0] + slide
    assert kept[2].get_left()[0] > kept[0][0].get_right()[0] and played(b, fold, "GrowArrow")
    arrows = b.beat_of("Drawn as arrows")
    on_screen = {id(m) for top in b.scene.mobjects for m in top.get_family()}
    assert id(kept) not in on_screen and played(b, arrows, "FadeOut")
    # the rounded sum is said, the caveat left to the fine print; the arcs stay under the badge
    assert "all displayed numbers are rounded" not in b.beat_of("weights add up to one").text
    assert b.scene.head_label.get_bottom()[1] > b.scene.arrows.get_top()[1]
    assert "value row" not in fine_prints(b)


def test_third_review_head_1_message_pictures_in_their_sentences():
    b = built(Head1Message, "river")
    scene = b.scene
    first = b.beat_of("the values say what")
    assert played(b, first, "FadeIn")
    assert fine_print_in(b, first, "All displayed numbers are rounded; calculations use full precision.")
    # the message formula is written once: the fine print names only H = AV
    assert "This is one row of H = AV." in fine_prints(b) and "Σⱼ α₁₀,ⱼ vⱼ" not in fine_prints(b)
    # the small-weight caveat leaves with its picture
    small = b.beat_of("has a small weight")
    assert fine_print_in(b, small, "A small weight scales down the entire value vector.")
    # the finance column is tinted while its rounded products are named
    rounding = b.beat_of("Add the ten scaled rows")
    assert sum("FadeIn" in c.what for c in b.changes_in(rounding)) >= 2
    assert len(scene.rounding_marks) == 3
    assert fine_print_in(b, rounding, "The displayed products are rounded, but the sums use full precision.")
    # each walked source's arrow lights up with its row
    assert played(b, b.beat_of("Source 6, “river”: its weight times its value"), "Indicate")


def test_third_review_the_small_weight_caveat_leaves_with_its_inset():
    b = built(Head1Message, "river")
    every = b.beat_of("Every other source is scaled the same way.")
    assert not any(bid == every.id for bid, _ in b.scene.fine_prints)
    assert b.scene.fine is None or "small weight" not in getattr(b.scene.fine, "sentence", "")


@pytest.mark.parametrize("sentence", SENTENCES)
def test_side_by_side_labels_each_strongest_weight_on_its_own_arc(sentence):
    """Scene 10: the number a head's thickest arrow carries is nearer that arrow than any other
    (the last panel read 0.718 on fisherman's arc)."""
    from lesson_data.walkthrough import ranked_sources
    from scenes.blocks.attention_arrows import nearest_arrow
    scene = built(Head2WeightsAndMessage, sentence).scene
    ws, i = compute_worksheet(sentence), compute_worksheet(sentence).n - 1
    labels = scene.strongest_labels
    assert len(labels) == 2
    for head, arrows, (pill, number) in zip(ws.heads, (scene.side.up, scene.side.down), labels):
        top = ranked_sources(head.weights[i], i)[0]
        assert number.value == head.weights[i][top]
        assert nearest_arrow(arrows, number) == top, (head.index, top)


@pytest.mark.parametrize("scene_cls", [Head1Message, Head2WeightsAndMessage], ids=lambda c: c.__name__)
def test_scaled_rows_travel_along_their_arrows_into_the_receivers_slot(scene_cls):
    """Issue 18: the weighted sum moves. Each source's scaled row becomes bars as long as its products,
    travels along its own arrow to the receiver and lands in the tracks under the receiver's message,
    where the bars are laid end to end (positive parts right of zero, negative left). The bars'
    lengths are the products α·v (weights times values, recomputed here from A and V), and each
    track ends at the message's coordinate (row i of H = AV, a second computation)."""
    b = built(scene_cls, "river")
    s = b.scene
    beat = b.beat_of("Add the") if scene_cls is Head1Message else b.beat_of("Add them up")
    whats = [c.what for c in b.changes_in(beat)]
    assert "LaggedStart" in whats                                                # the rows travel
    receiver = s.band.row.boxes[s.n - 1]
    slot = s.table.message
    flow = s.message_flow
    # the message and its tracks are under the receiver, below the words and, for head 2, its arrows
    assert abs(slot.get_center()[0] - receiver.get_center()[0]) < 0.05
    assert flow.slot.get_top()[1] < slot.get_bottom()[1] < min(receiver.get_bottom()[1], s.arrows.get_bottom()[1])
    i = s.n - 1
    head = s.head
    zero = flow.zero.get_x()
    for j in range(s.n):
        parts = [head.weights[i, j] * head.V[j, k] for k in range(2)]
        drawn = [k for k in range(2) if parts[k] != 0]
        assert sorted(k for (jj, k) in flow.cells if jj == j) == drawn
        for k in drawn:
            seg = flow.cells[j, k]
            assert seg.width == pytest.approx(abs(parts[k]) * flow.scale, abs=1e-9)
            assert (seg.get_x() > zero) == (parts[k] > 0)
        if not drawn:
            continue
        anchors = flow.paths[j].get_anchors()
        curve = s.arrows.arrow(j)
        row = VGroup(*(s.table.products.cell(j, k) for k in range(2)))
        # from its row of products, through its own arrow's two ends, into the tracks
        assert row.get_left()[0] <= anchors[0][0] <= row.get_right()[0]
        assert row.get_bottom()[1] <= anchors[0][1] <= row.get_top()[1]
        for end in (curve.points[0], curve.points[-1]):
            assert min(np.linalg.norm(anchors - end, axis=1)) < 1e-6
        assert flow.slot.get_bottom()[1] <= anchors[-1][1] <= flow.slot.get_top()[1]
    # laid end to end, each track ends at the message's coordinate
    for k in range(2):
        assert flow.totals[k].get_x() == pytest.approx(zero + head.messages[i, k] * flow.scale, abs=1e-9)


def test_strongest_weights_are_written_on_their_own_arcs():
    """Scene 8: the two strongest weights (river 0.718, fisherman 0.166 on the worksheet sentence)
    sit on their own arrows: each label's centre is nearer its source's arc than any other arc."""
    from scenes.blocks.attention_arrows import nearest_arrow
    ws = compute_worksheet("river")
    b = built(Head1Weights, "river")
    s = b.scene
    w = ws.heads[0].weights[ws.n - 1]
    top_two = list(np.argsort(-w[: ws.n], kind="stable")[:2])
    assert [ws.tokens[j] for j in top_two] == ["river", "fisherman"]          # by the worksheet's row
    labels = b.all_with_tag("A1_arc")
    assert sorted(m.index for m in labels) == sorted(top_two)
    for m in labels:
        assert m.value == w[m.index]
        assert nearest_arrow(s.arrows, m) == m.index


def test_head_2_says_why_its_scores_follow_the_person_key():
    """q² = [2.3, 0.0] (docs/WORKSHEET.md: W_Q² reads glue into coordinate 1; "the" is glue 2.3), so
    every score is 2.3 times the source's person key (fisherman: 2.3 × 2.1 = 4.83): said in the steps'
    beat, with the query's number and the person column lit in it."""
    b = built(Head2WeightsAndMessage, "river")
    beat = b.beat_of("Then it takes head 1’s steps")
    assert "each q·k is 2.3 times the person key" in beat.text
    assert "each score is two point three times the person key" in beat.spoken
    assert any("Indicate" in c.what for c in b.changes_in(beat))
    ws = compute_worksheet("river")
    assert f"{2.3 * 2.1:.2f}" == "4.83" == fmt(ws.heads[1].scores[-1, 1], 2)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_scene_8_keeps_each_score_beside_the_weight_it_gives(sentence):
    """Panel (stop 35): the score table was wiped as the weights came in, leaving the right half empty
    and no cause beside the weights. The sⱼ column now slides beside the weight column and stays to the
    scene's end: row for row with its weight, right of the bars, each entry q·kⱼ/√2 (recomputed here
    from Q and K); the two strongest rows box their scores too."""
    ws = compute_worksheet(sentence)
    head = ws.heads[0]
    q, K, d = head.Q[-1], head.K, head.K.shape[1]
    b = built(Head1Weights, sentence)
    scene = b.scene
    kept, column = scene.kept_scores, scene.weights.column
    on_screen = {id(m) for top in scene.mobjects for m in top.get_family()}
    assert kept is scene.score_table.scaled and id(kept) in on_screen
    bars_right = max(bar.get_right()[0] for bar in column.bars)
    for j in range(ws.n):
        cell = kept.cell(j, 0)
        assert cell.original_text == fmt(float(np.dot(q, K[j])) / math.sqrt(d))
        assert cell.get_left()[0] > bars_right
        assert abs(cell.get_center()[1] - column.weight(j).get_center()[1]) < 0.02
    # the strongest two: a box on the weight's row and one on its score
    top2 = sorted(range(ws.n), key=lambda j: -head.weights[-1, j])[:2]
    score_boxes, links = scene.strong_boxes[2:4], scene.strong_boxes[4:]
    assert len(score_boxes) == 2 and len(links) == 2
    for j, box, link, row in zip(top2, score_boxes, links, scene.strong_boxes[:2]):
        assert abs(box.get_center()[1] - kept.cell(j, 0).get_center()[1]) < 1e-6
        assert box.get_left()[0] < kept.cell(j, 0).get_left()[0] < box.get_right()[0]
        # an arrow from the score to the weight's row, on that row: score -> weight
        start, end = link.get_start(), link.get_end()
        assert start[0] > end[0] and abs(start[1] - end[1]) < 1e-6 and abs(end[1] - box.get_center()[1]) < 1e-6
        assert end[0] >= row.get_right()[0] - 1e-6 and start[0] <= box.get_left()[0] + 1e-6
