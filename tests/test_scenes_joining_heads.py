"""Chapter 2, scenes 12–15 (WideHeadVersusTwo, ConcatAndOutputProjection, ResidualAndPrediction,
ChequeSentence): they build cleanly in beats, every number on screen is the data layer's number with
its own precision, the arithmetic they show holds when re-derived a second way, and the picture each
sentence names appears in that sentence's beat — for river, cheque and a 20-word sentence. Scene 15
always shows river and cheque, whatever the sentence switch says."""
from __future__ import annotations

import math

import numpy as np
import pytest

import scenes.chapter2.joining_heads as jh
from lesson_data.display import fmt, places_for
from lesson_data.worksheet import (
    CANDIDATES,
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
from scenes.blocks.attention_arrows import arrow_stroke
from scenes.blocks.pooled_rows import source_name
from scenes.chapter2.joining_heads import (
    ChequeSentence,
    ConcatAndOutputProjection,
    ResidualAndPrediction,
    WideHeadVersusTwo,
)
from scenes.style import BACKGROUND, baseline_y, HIGHLIGHT_OPACITY, POSITIVE_COLOR, WIDE_HEAD_COLOR, head_color
from tests.scene_harness import assert_builds_cleanly, assert_matrix_on_screen, blend, build_scene, built

SENTENCES = ("river", "cheque")
S20 = ("the fisherman sat beside the river bank and watched the boats and she deposited the cheque "
       "at the bank and")


def texts_of(b) -> set:
    return {t.original_text for t in b.texts}


def all_text(b) -> str:
    """Every text ever on screen, line breaks as spaces (wrapped fine print reads as one sentence)."""
    return " ".join(t.original_text.replace("\n", " ") for t in b.texts)


def said(b) -> str:
    return " ".join(beat.text for beat in b.beats)


def tags_in(b, beat) -> set:
    return {m.tag for m in b.numbers_in(beat)}


def independent_others(weights, shown):
    """Sum of the weights not in `shown`, by a plain loop (a second method to the helper's fsum)."""
    total = 0.0
    for j, w in enumerate(weights):
        if j not in shown:
            total += float(w)
    return total


# ------------------------------------------------------------------------- every scene

SCENES = [WideHeadVersusTwo, ConcatAndOutputProjection, ResidualAndPrediction]
MIN_SECTIONS = {WideHeadVersusTwo: 6, ConcatAndOutputProjection: 3, ResidualAndPrediction: 4}


@pytest.mark.parametrize("sentence", [*SENTENCES, S20], ids=["river", "cheque", "20 words"])
@pytest.mark.parametrize("scene_cls", SCENES, ids=lambda c: c.__name__)
def test_scene_builds_cleanly(scene_cls, sentence):
    b = built(scene_cls, sentence)
    assert_builds_cleanly(b, min_sections=MIN_SECTIONS[scene_cls], min_beats=8)
    # a learner's pace for this much (scene 12 walks both heads' columns and joins W_Q, W_K, W_V pair by pair); 12 also works each water out term by term
    assert 45 <= b.duration <= (140 if scene_cls is WideHeadVersusTwo else 110)


# ------------------------------------------------------------------- WideHeadVersusTwo


@pytest.mark.parametrize("sentence", SENTENCES)
def test_wide_head_projections_are_the_two_heads_side_by_side(sentence):
    ws = compute_worksheet(sentence)
    b = built(WideHeadVersusTwo, sentence)
    # a second method: the spec's per-head matrices, joined here; whole numbers read 1 and 0
    assert_matrix_on_screen(b, "wide_W_Q", np.hstack([W_Q1, W_Q2]))
    assert_matrix_on_screen(b, "wide_W_K", np.hstack([W_K1, W_K2]))
    assert_matrix_on_screen(b, "wide_W_V", np.hstack([W_V1, W_V2]))
    assert_matrix_on_screen(b, "wide_W_Q", ws.wide_head.W_Q)
    assert b.by_tag("wide_W_Q")[(3, 0)].original_text == "1"
    assert b.by_tag("wide_scale")[None].value == math.sqrt(4) == ws.wide_head.scale
    assert b.by_tag("wide_scale")[None].original_text == "2"
    assert b.by_tag("head_scale")[None].value == math.sqrt(2) == ws.heads[0].scale
    assert b.by_tag("head_scale")[None].original_text == "1.414"
    # W_Q's pair slides together in the first sentence, W_K's and W_V's in the second, the rules in their own
    assert "wide_W_Q" in tags_in(b, b.beat_of("making one wide W_Q"))
    assert {"wide_W_K", "wide_W_V"} <= tags_in(b, b.beat_of("one wide head of width four"))
    assert "wide_scale" in tags_in(b, b.beat_of("adds both heads' dot products"))
    assert "head_scale" in tags_in(b, b.beat_of("keep them apart"))


@pytest.mark.parametrize("sentence", SENTENCES)
def test_wide_head_arrows_beside_the_two_heads(sentence):
    ws = compute_worksheet(sentence)
    b = built(WideHeadVersusTwo, sentence)
    panels = b.scene.panels
    assert panels.stacked                                      # a ten-word prefix: both rows on one screen
    for arrows, head in ((panels.a1, ws.heads[0]), (panels.a2, ws.heads[1]), (panels.aw, ws.wide_head)):
        row = head.weights[-1]
        assert arrows.arrows.sources == list(range(ws.n))      # one arrow per readable source
        widths = [a.get_stroke_width() for a in arrows.arrows.arrows]
        assert widths == pytest.approx([arrow_stroke(w) for w in row])
        j = int(np.argmax(row))
        assert arrows.top == j and arrows.label.value == row[j]
    # the wide head's arrows sit above the two heads' row, both drawn in their own beats
    assert panels.wide_row.get_center()[1] > panels.two_row.get_center()[1]
    assert {"A1_top", "A2_top"} <= tags_in(b, b.beat_of("As arrows"))
    assert "wide_top" in tags_in(b, b.beat_of("one row of weights"))


def test_wide_head_arrows_take_turns_for_a_wrapped_prefix():
    b = built(WideHeadVersusTwo, S20)
    panels = b.scene.panels
    assert panels.two_row.lines == 2 and not panels.stacked
    assert panels.wide.get_center()[1] == pytest.approx(panels.two.get_center()[1], abs=1e-6)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_wide_head_score_walk_adds_both_dot_products(sentence):
    ws = compute_worksheet(sentence)
    b = built(WideHeadVersusTwo, sentence)
    h1, h2, wide = *ws.heads, ws.wide_head
    sources = b.scene.sources
    raw = places_for([v for j in sources for v in (h1.scores[-1, j], h2.scores[-1, j], wide.scores[-1, j])])
    for j in sources:
        s1, s2 = b.by_tag("split_s1")[j], b.by_tag("split_s2")[j]
        total = b.by_tag("split_sum")[j]
        # a second method: the dot products from the receiver's query and the source's key
        assert s1.value == pytest.approx(h1.Q[-1] @ h1.K[j], abs=1e-12)
        assert s2.value == pytest.approx(h2.Q[-1] @ h2.K[j], abs=1e-12)
        assert total.value == pytest.approx(s1.value + s2.value, abs=1e-12)
        assert total.value == wide.scores[-1, j] and total.original_text == fmt(total.value, raw)
        assert b.by_tag("split_scaled1")[j].value == h1.scaled[-1, j]
        assert b.by_tag("split_scaled_wide")[j].value == pytest.approx(total.value / 2, abs=1e-12)
        assert b.by_tag("split_w1")[j].value == h1.weights[-1, j]
        assert b.by_tag("split_w_wide")[j].value == wide.weights[-1, j]
    # each column in the beat of the sentence that names it
    assert {"split_s1", "split_scaled1", "split_w1"} <= tags_in(b, b.beat_of("Head 1's raw scores"))
    assert tags_in(b, b.beat_of("Head 2 scores")) == {"split_s2", "split_scaled2", "split_w2"}
    assert {"split_sum", "split_scaled_wide"} <= tags_in(b, b.beat_of("Summed, then divided by"))
    assert tags_in(b, b.beat_of("After one softmax")) == {"split_w_wide"}
    for j in sources:
        assert b.by_tag("split_scaled2")[j].value == h2.scaled[-1, j]
        assert b.by_tag("split_w2")[j].value == h2.weights[-1, j]
    # the wide block sits column under column with head 2's, and both weight columns are boxed
    t = b.scene.table
    for wide, narrow in (("sum", "s2"), ("scaled_wide", "scaled2"), ("w_wide", "w2")):
        assert t.numbers[wide][0].get_right()[0] == pytest.approx(t.numbers[narrow][0].get_right()[0], abs=1e-6)
    assert len(b.scene.compare_boxes) == 2


def test_wide_head_river_score_walk_worked_by_hand():
    b = built(WideHeadVersusTwo, "river")
    # q¹ = [2.3, 2.3] on (water, finance), q² = [2.3, 0] on (person, glue):
    # river₆ [3.1, -0.1, 0, 0.1]: 2.3·3.0 = 6.9 and 0; fisherman₂ [2.0, 0.1, 2.1, 0]: 2.3·2.1 = 4.83 twice
    assert [source_name(b.scene.ws.tokens, j) for j in b.scene.sources] == ["river₆", "fisherman₂"]
    shown = lambda tag: [b.by_tag(tag)[j].original_text for j in (5, 1)]  # noqa: E731
    assert shown("split_s1") == ["6.90", "4.83"]
    assert shown("split_s2") == ["0.00", "4.83"]
    assert shown("split_sum") == ["6.90", "9.66"]
    assert shown("split_scaled_wide") == ["3.450", "4.830"]          # ÷ 2
    assert shown("split_w1") == ["0.718", "0.166"]
    assert shown("split_w_wide") == ["0.178", "0.708"]
    # head 2: 0 / √2 = 0 and 4.83 / 1.414 = 3.415; its weights 0.023 and 0.693, close to the wide head's
    assert shown("split_scaled2") == ["0.000", "3.415"]
    assert shown("split_w2") == ["0.023", "0.693"]
    words = said(b)
    assert "“fisherman” now leads, 4.830 to 3.450" in words
    assert "After one softmax: “river” 0.178 and “fisherman” 0.708, closer to head 2's row than to head 1's." in words
    assert b.scene.closest == 2


@pytest.mark.parametrize("sentence", SENTENCES)
def test_wide_head_rows_name_the_same_sources_in_every_row(sentence):
    ws = compute_worksheet(sentence)
    b = built(WideHeadVersusTwo, sentence)
    sources = b.scene.sources
    texts = texts_of(b)
    for tag, head in (("wide", ws.wide_head), ("A1", ws.heads[0]), ("A2", ws.heads[1])):
        row = head.weights[-1]
        shown = b.by_tag(f"{tag}_w")
        assert sorted(shown) == sorted(sources)                # the same columns in every row
        for j, m in shown.items():
            assert m.value == row[j] and m.original_text == fmt(row[j])
        others = b.by_tag(f"{tag}_others")[None]
        assert others.value == pytest.approx(independent_others(row, sources), abs=1e-12)
        rest = [j for j in range(ws.n) if j not in sources]
        largest = b.by_tag(f"{tag}_largest")
        (k, m), = largest.items()
        assert k == max(rest, key=lambda j: (row[j], -j)) and m.value == row[k]
        total = b.by_tag(f"{tag}_sum")[None]
        assert total.original_text == "1.000" and total.value == pytest.approx(1.0, abs=1e-12)
    header = [t.original_text for t in b.scene.rows_table.header]
    assert header[:2] == [source_name(ws.tokens, j) for j in sources]
    assert f"others ({ws.n - 2})" in texts
    assert "All displayed numbers are rounded; calculations use full precision." in all_text(b)
    assert {"wide_w", "A1_w", "A2_w", "wide_others"} <= tags_in(b, b.beat_of("All three rows"))
    assert_matrix_on_screen(b, "wide_m", ws.wide_head.messages[-1])
    assert_matrix_on_screen(b, "two_m", np.concatenate([ws.heads[0].messages[-1], ws.heads[1].messages[-1]]))
    assert "wide_m" in tags_in(b, b.beat_of("mixes all four value coordinates"))
    # the two heads' messages, in the sentence that reads them ("Head 1's water, ...", not its raw scores)
    head1 = next(bt for bt in b.beats if bt.text.startswith("Head 1's ") and "raw scores" not in bt.text)
    assert "two_m" in tags_in(b, head1)
    # the two largest parts of each water, in the beat that names them
    assert {"wide_term_w", "wide_term_v", "wide_term_p"} <= tags_in(b, b.beat_of("mixes all four value coordinates"))
    assert {"head1_term_w", "head1_term_p"} <= tags_in(b, head1)
    assert "mix_gap" in tags_in(b, b.beat_of("all four differences"))


def test_wide_head_river_rows_worked_by_hand():
    b = built(WideHeadVersusTwo, "river")
    # head 2 reads fisherman₂ (0.693) and watched₉ next (person 0.7 - 0.1 = 0.6: 2.3·0.6/√2 = 0.976)
    assert list(b.by_tag("A2_largest")) == [8]
    assert b.by_tag("A2_largest")[8].original_text == "0.071"
    assert b.by_tag("A1_largest")[6].original_text == "0.053"        # bank₇, water + finance 1.4
    # why: the wide head's water is mostly fisherman₂'s 0.708 · 2.0 = 1.417 (river₆ adds 0.178 · 3.1 = 0.552);
    # head 1's is mostly river₆'s 0.718 · 3.1 ≈ 2.226. The gap row, all four coordinates:
    # 2.02339 − 2.61685 = −0.593, 0.07478 − (−0.01853) = 0.093, 1.52246 − 1.55196 = −0.030,
    # 0.20368 − 0.53815 = −0.334, appears in the beat that says it
    assert "its water, 2.023, is mostly “fisherman”: 0.708 × 2.0." in said(b)
    assert "Head 1's water, 2.617, is mostly “river”: 0.718 × 3.1; head 2's person is 1.552." in said(b)
    # said "about": 2.617 − 2.023 on screen is 0.594, the full-precision gap 0.593; both are about 0.59
    assert ("The wide head moved weight from “river” to “fisherman”, so its water is about 0.59 lower; "
            "the bottom row shows all four differences.") in said(b)
    assert {m.original_text for m in b.by_tag("wide_term_p").values()} == {"1.417", "0.552"}
    assert {m.original_text for m in b.by_tag("wide_term_v").values()} == {"2.0", "3.1"}
    assert {m.original_text for m in b.by_tag("head1_term_w").values()} == {"0.718", "0.166"}
    # 0.708 × 2.0 by hand is 1.416 and 1.417 + 0.552 = 1.969 < 2.023: the parts say why
    assert "unrounded weights; others add the rest" in all_text(b)
    # ...said in the beat where the first such products (the wide head's) appear, not a beat later
    note, = (t for t in b.texts if t.original_text == "unrounded weights; others add the rest")
    assert note._first_seen == b.beat_of("The wide head mixes all four").id
    gaps = b.by_tag("mix_gap")
    assert {k: m.original_text for k, m in gaps.items()} == {0: "-0.593", 1: "0.093", 2: "-0.030", 3: "-0.334"}
    # the wide row's rounded parts 0.178 + 0.708 + 0.113 = 0.999, said beside its full-precision 1.000
    assert b.by_tag("wide_shown_sum")[None].original_text == "0.999"
    assert "one wide head: its rounded parts shown add to" in all_text(b)


def test_wide_head_cheque_pool_never_hides_an_equal_weight():
    # cheque, wide head: she₁ (shown) and deposited₂ (pooled) both score (0.23 + 6.21) = (5.29 + 1.15):
    # the largest of the others shows deposited₂ with the same 0.257
    b = built(WideHeadVersusTwo, "cheque")
    ws = compute_worksheet("cheque")
    assert [source_name(ws.tokens, j) for j in b.scene.sources] == ["cheque₄", "she₁"]
    assert b.by_tag("wide_largest")[1].original_text == b.by_tag("wide_w")[0].original_text == "0.257"
    assert "deposited₂" in texts_of(b)


def test_wide_head_says_the_notes_and_credits_the_paper():
    b = built(WideHeadVersusTwo, "river")
    texts, fine, words = texts_of(b), all_text(b), said(b)
    assert "a useful choice, not proof" in texts
    # the paper is cited once, in the notes' fine print (not again beside the verdict)
    assert "Attention Is All You Need, §3.2.2" not in texts
    assert "§3.2.2." in fine
    assert ("For this controlled comparison, concatenate the two existing Q, K and V projections into "
            "width-four projections.") in fine
    assert "does not compare separately trained models" in fine
    assert "not proof that one wide head cannot learn useful relationships" in fine
    assert "nothing is trained" in words and "not proof" in words
    assert any(b.scene.verdict in m.get_family() for m in b.scene.mobjects)     # still on the last frame


def test_wide_head_last_frame_draws_the_rows_as_stacked_bars():
    b = built(WideHeadVersusTwo, "river")
    shades = (0.9, 0.55)                                  # river₆'s segment, fisherman₂'s
    for row, color in zip(b.scene.rows_table.rows, (WIDE_HEAD_COLOR, head_color(1), head_color(2))):
        k = int(np.argmax(row.spec.row.shown))            # the wider named segment (a sliver has no pixel)
        seg = row.bar[k]
        assert np.abs(b.pixel(seg.get_center()) - blend(color, BACKGROUND, shades[k])).max() <= 3
        # segments proportional to the named sources and others: they tile one bar (the row sums to one)
        unit = seg.width / row.spec.row.shown[k]
        assert [seg.width / unit for seg in row.bar] == pytest.approx(row.spec.row.segments, abs=1e-3)


# ------------------------------------------------------------ ConcatAndOutputProjection


@pytest.mark.parametrize("sentence", SENTENCES)
def test_concat_shows_messages_W_O_contributions_and_delta(sentence):
    ws = compute_worksheet(sentence)
    b = built(ConcatAndOutputProjection, sentence)
    h1, h2 = ws.heads
    assert_matrix_on_screen(b, "concat", ws.H_joined[-1])
    assert_matrix_on_screen(b, "m1", h1.messages[-1])
    assert_matrix_on_screen(b, "m2", h2.messages[-1])
    # W_O and its two blocks: each entry with its own precision (1, 0, 0.25), as scene 12's W_Q/W_K/W_V
    for tag, rows in (("W_O", W_O), ("W_O1", W_O[:2]), ("W_O2", W_O[2:])):
        shown = b.by_tag(tag)
        assert set(shown) == {(i, j) for i in range(rows.shape[0]) for j in range(rows.shape[1])}
        for (i, j), m in shown.items():
            assert m.value == rows[i, j] and m.original_text == fmt(rows[i, j], places_for([rows[i, j]]))
    assert b.by_tag("W_O2")[(0, 0)].original_text == "0.25"
    assert b.by_tag("W_O1")[(0, 0)].original_text == "1" and b.by_tag("W_O1")[(0, 1)].original_text == "0"
    # each head's product: exact zeros (a zero W_O column) as W_O's "0", the rest with the row's precision
    for tag, row in (("contribution1", h1.contribution[-1]), ("contribution2", h2.contribution[-1])):
        shown = b.by_tag(tag)
        assert set(shown) == {(0, j) for j in range(4)}
        for (_, j), m in shown.items():
            assert m.value == row[j]
            assert m.original_text == ("0" if row[j] == 0.0 else fmt(row[j], places_for(row)))
    assert b.by_tag("contribution1")[(0, 2)].original_text == "0"          # 2.617·0 + (-0.018)·0
    assert_matrix_on_screen(b, "delta", ws.delta_E[-1])
    # a second method: the shown blocks' products add up to the shown Δe
    m1 = np.array([b.by_tag("m1")[(0, k)].value for k in range(2)])
    m2 = np.array([b.by_tag("m2")[(0, k)].value for k in range(2)])
    delta = np.array([b.by_tag("delta")[(0, k)].value for k in range(4)])
    np.testing.assert_allclose(m1 @ W_O[:2] + m2 @ W_O[2:], delta, rtol=0, atol=1e-12)
    # by hand from W_O = [[1,0,0,0],[0,1,0,0],[0.25,0,1,0],[0,0,0,1]]
    assert delta[0] == pytest.approx(m1[0] + 0.25 * m2[0], abs=1e-12)
    assert (delta[1], delta[2], delta[3]) == pytest.approx((m1[1], m2[0], m2[1]), abs=1e-12)


def test_concat_pictures_play_in_their_sentences():
    b = built(ConcatAndOutputProjection, "river")
    assert {"m1", "m2"} <= tags_in(b, b.beat_of("hands the receiver a message"))
    assert tags_in(b, b.beat_of("Concatenating sets them side by side")) == {"concat"}
    assert {"W_O", "delta"} <= tags_in(b, b.beat_of("Times W_O"))
    assert {"W_O1", "W_O2"} <= tags_in(b, b.beat_of("The equation splits"))
    assert tags_in(b, b.beat_of("four-coordinate update")) == {"contribution1", "contribution2"}
    assert tags_in(b, b.beat_of("Add the two updates")) == {"delta"}
    # the one multiplication's Δe comes back under the sum, column for column, with a check
    ghost = [m for m in b.scene.ghost.get_family() if hasattr(m, "value")]
    assert [m.original_text for m in ghost] == ["3.005", "-0.018", "1.552", "0.538"]
    assert ghost[0].get_right()[0] == pytest.approx(b.scene.cop.delta_2.cell(0, 0).get_right()[0], abs=1e-6)
    # no inverse: the 0.25 and the zeros off the blocks pulse in that sentence; hand-chosen said
    inverse = b.beat_of("no inverse of the input projections")
    assert "Indicate" in " ".join(c.what for c in b.changes_in(inverse)) and "We chose it by hand" in inverse.text
    # ...the sentence before says what an inverse would do and names where the 0.25 sends person; the box
    # with where it lands (head 2's person coordinate into water) is drawn in that sentence
    where = b.beat_of("If W_O only put each coordinate back where W_V took it, water would stay at 2.617;")
    assert "this one also writes person into water" in where.text
    assert "Create" in " ".join(c.what for c in b.changes_in(where))
    assert b.scene.land_mark[1].original_text == "person → water"
    # ...and shows the update a put-it-back W_O would give (0 for the 0.25): water 2.617, not 3.005
    assert "water would stay at 2.617" in where.text
    assert "put_back" in tags_in(b, where)
    assert [b.by_tag("put_back")[(0, k)].original_text for k in range(4)] == ["2.617", "-0.018", "1.552", "0.538"]
    for k in range(4):     # column for column under the real Δe
        assert b.by_tag("put_back")[(0, k)].get_right()[0] == pytest.approx(
            b.scene.cop.delta_2.cell(0, k).get_right()[0], abs=0.02)
    # the general shape appears in its own (last) beat, with both blocks marked
    last = b.beats[-1]
    assert "[n_heads × d_v, d_model]" in last.text and b.changes_in(last)
    assert b.scene.shape_note[0].original_text == "in general  W_O: [n_heads × d_v, d_model];"
    assert b.scene.shape_note[1].original_text == "here  [2 × 2, 4] = [4, 4]"


def test_concat_names_the_coordinates_and_the_mixing():
    b = built(ConcatAndOutputProjection, "river")
    texts, fine, words = texts_of(b), all_text(b), said(b)
    assert {"m¹ water", "m¹ finance", "m² person", "m² glue"} <= texts     # W_O's rows, by what they carry
    assert "m¹ carries water and finance, m² carries person and glue" in words
    # head 2's person coordinate (1.552) also writes 0.25 of itself into water: 0.388
    assert "head 2's person coordinate writes 0.25 of itself into water, so its update has water 0.388" in words
    assert b.by_tag("contribution2")[(0, 0)].original_text == "0.388"
    assert "It is not an inverse of the input projections." in fine
    assert "Equivalently, split W_O into a two-row block per head." in fine
    assert "each head contributes a four-coordinate update" in fine
    assert "All displayed numbers are rounded; calculations use full precision." in fine
    assert "no inverse of the input projections" in words


def test_concat_last_frame_marks_one_block_of_rows_per_head():
    b = built(ConcatAndOutputProjection, "river")
    for block, h in ((b.scene.cop.W_O1, 1), (b.scene.cop.W_O2, 2)):
        x = (block.cell(0, 0).get_right()[0] + block.cell(0, 1).get_left()[0]) / 2
        got = b.pixel((x, block.cell_center(0, 0)[1]))
        assert np.abs(got - blend(head_color(h), BACKGROUND, HIGHLIGHT_OPACITY * 0.6)).max() <= 3


# ----------------------------------------------------------------- ResidualAndPrediction


@pytest.mark.parametrize("sentence", [*SENTENCES, S20], ids=["river", "cheque", "20 words"])
def test_residual_tables_and_mlp_numbers(sentence):
    ws = compute_worksheet(sentence)
    b = built(ResidualAndPrediction, sentence)
    mlp = ws.mlp
    rows = list(range(max(0, ws.n - 10), ws.n))              # the last ten rows, the receiver's last
    for tag, array in (("E", ws.E), ("delta_E", ws.delta_E), ("E_prime", ws.E_prime)):
        shown = b.by_tag(tag)
        assert set(shown) == {(i, j) for i in rows for j in range(4)}
        places = places_for(array)
        for (i, j), m in shown.items():
            assert m.value == array[i, j] and m.original_text == fmt(array[i, j], places)
    assert_matrix_on_screen(b, "e_prime_row", ws.E_prime[-1])
    assert_matrix_on_screen(b, "pre_activation", mlp.pre_activation)
    assert_matrix_on_screen(b, "hidden", mlp.hidden)
    # second methods: e′ = e + Δe from the shown rows, and h = max(pre-activation, 0)
    n = ws.n - 1
    e = np.array([b.by_tag("E")[(n, j)].value for j in range(4)])
    d = np.array([b.by_tag("delta_E")[(n, j)].value for j in range(4)])
    np.testing.assert_allclose(e + d, [b.by_tag("e_prime_row")[(0, j)].value for j in range(4)], atol=1e-12)
    pre = np.array([b.by_tag("pre_activation")[(0, j)].value for j in range(8)])
    np.testing.assert_array_equal(np.maximum(pre, 0.0), [b.by_tag("hidden")[(0, j)].value for j in range(8)])
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
    # what the rounded values shown add to, by a second method: round each shown p again here
    shown_sum = sum(round(probs[i].value, 3) for i in range(len(VOCAB)))
    assert b.by_tag("p_shown_sum")[None].original_text == fmt(shown_sum)
    # the eight candidates are drawn as bars, proportional to p
    page = b.scene.page
    bars = {i: page.rows[i].bar for i in (VOCAB.index(w) for w in CANDIDATES)}
    best = VOCAB.index(mlp.prediction)
    unit = bars[best].width / mlp.probabilities[best]
    for i, bar in bars.items():
        assert bar.width == pytest.approx(unit * mlp.probabilities[i], abs=2e-3)


def test_residual_river_worked_by_hand():
    b = built(ResidualAndPrediction, "river")
    # W1's first three columns copy water, finance and person (b1 = 0 there): said in the fine print
    assert "Units 1–3 copy water, finance and person unchanged." in all_text(b)
    # the receiver "the" at 10: [0, 0, 0, 2.4] + position 10 [0, 0, 0, -0.1], tenths shown as tenths
    assert [b.by_tag("E")[(9, j)].original_text for j in range(4)] == ["0.0", "0.0", "0.0", "2.3"]
    # ReLU zeroes units 2 and 6, the two negative pre-activations (-0.018 and -3.523)
    hidden = b.by_tag("hidden")
    assert [j for j in range(8) if hidden[(0, j)].value == 0.0] == [1, 5]
    assert [b.by_tag("pre_activation")[(0, j)].original_text for j in (1, 5)] == ["-0.018", "-3.523"]
    assert "ReLU sets the negative numbers to zero: units 2 and 6." in said(b)
    # the twenty rounded probabilities add to 1.003 (0.610 + 0.192 + 0.120 + 0.049 + 2·0.006 + 2·0.004
    # + 12·0.001); the full-precision sum is 1
    assert b.by_tag("p_shown_sum")[None].original_text == "1.003"
    assert "All displayed numbers are rounded; calculations use full precision." in all_text(b)


def test_residual_pictures_play_in_their_sentences():
    b = built(ResidualAndPrediction, "river")
    assert {"E", "delta_E", "E_prime"} <= tags_in(b, b.beat_of("E′ = E + ΔE"))
    assert "e_prime_row" in tags_in(b, b.beat_of("travels into the prediction MLP"))
    assert tags_in(b, b.beat_of("First layer")) == {"pre_activation"}
    relu = b.beat_of("ReLU sets")
    assert "hidden" in tags_in(b, relu) and any("LaggedStart" in c.what for c in b.changes_in(relu))
    # the negative units turn red in ReLU's sentence, not before (units 2 and 6 for river)
    assert [u + 1 for u in jh.relu_zeroed(b.scene.ws.mlp.pre_activation)] == [2, 6]
    assert any("_AnimationBuilder" in c.what for c in b.changes_in(relu))
    assert b.scene.hidden_rows.pre.cell(0, 1).color.to_hex().upper() == jh.FALL_COLOR.upper()
    # the MLP's parameters are said to be hand-chosen, in the beat that brings the MLP
    assert jh.MLP_NOTE in all_text(b)
    assert tags_in(b, b.beat_of("Second layer")) == {"w2_column", "logit_part", "logit_total", "logit_bias"}
    assert tags_in(b, b.beat_of("Every word is scored the same way")) == {"logit"}
    assert {"p", "p_sum", "p_shown_sum"} <= tags_in(b, b.beat_of("Softmax turns them"))
    assert any("Create" in c.what for c in b.changes_in(b.beat_of("The most probable next word")))
    # the MLP's parameters as shapes
    assert {"W1", "[4, 8]", "b1", "[8]", "W2", "[8, 20]", "b2", "[20]", "ReLU", "[1, 20]"} <= texts_of(b)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_the_predicted_words_logit_is_worked_on_hs_columns(sentence):
    from lesson_data.worksheet import B2, W2

    ws = compute_worksheet(sentence)
    b = built(ResidualAndPrediction, sentence)
    w = VOCAB.index(ws.mlp.prediction)
    # a second method: the whole product h · W2 + b2, one column of it
    assert_matrix_on_screen(b, "w2_column", W2[:, w])
    parts = b.by_tag("logit_part")
    products = np.array([parts[(0, u)].value for u in range(8)])
    np.testing.assert_allclose(products, ws.mlp.hidden * W2[:, w], atol=1e-15)
    total = b.by_tag("logit_total")[None]
    assert total.value == pytest.approx((ws.mlp.hidden @ W2 + B2)[w], abs=1e-12)
    assert total.original_text == b.by_tag("logit")[w].original_text
    # every column lines up: each product under its weight under its h
    score, rows = b.scene.word_score, b.scene.hidden_rows
    for u in range(8):
        xs = [score.products.cell(0, u).get_right()[0], score.weights.cell(0, u).get_right()[0],
              rows.hidden.cell(0, u).get_right()[0]]
        assert max(xs) - min(xs) < 1e-6
    # the sum moves into the word's row of the logits (the same mobject, not a second copy)
    assert any("ReplacementTransform" in c.what for c in b.changes_in(b.beat_of("Every word is scored")))


def test_river_water_logit_by_hand():
    b = built(ResidualAndPrediction, "river")
    # W2 to water: 1.5 from unit 1 (e′'s water, copied), 0.1 from unit 4, 0.2 from unit 5 (docs/WORKSHEET.md);
    # 1.5 · 3.005 + 0.1 · 1.919 + 0.2 · 2.523 = 4.5075 + 0.1919 + 0.5046 = 5.204, b2 = 0 for a candidate
    shown = [b.by_tag("w2_column")[(0, u)].original_text for u in range(8)]
    assert shown == ["1.5", "0.0", "0.0", "0.1", "0.2", "0.0", "0.0", "0.0"]
    assert b.by_tag("logit_total")[None].original_text == "5.204"
    # b2's part is on screen with the products it adds to (0.0 for water): the sum leaves nothing out
    assert b.by_tag("logit_bias")[None].original_text == "0.0"
    assert "Second layer: why “water”? W2 weighs unit 1, a copy of the water coordinate, by 1.5; two smaller " \
           "parts add the rest: 5.204." in said(b)


def test_residual_shows_what_attention_brought_the_receiver():
    """Before the MLP: "the" had no water in E (its token row is glue only, position row 10 adds none);
    the update brings 3.005 (head 1's 2.617 + a quarter of head 2's 1.552), so e′₁₀ holds 3.005. The
    three water cells are boxed in that beat and the other nine rows step back."""
    b = built(ResidualAndPrediction, "river")
    beat = b.beat_of("In E, “the” has no water")
    assert beat.text == "In E, “the” has no water; the update brings 3.005, so E′ has 3.005."
    t = b.scene.tables
    for m, tag, text in ((t.e, "E", "0.0"), (t.delta, "delta_E", "3.005"), (t.e_prime, "E_prime", "3.005")):
        assert b.by_tag(tag)[(9, 0)].original_text == text
    for box, m in zip(b.scene.brought[:2], (t.e, t.delta)):      # E′'s row travels on into the MLP later
        cell = m.cell(9, 0)
        assert box.get_left()[0] < cell.get_center()[0] < box.get_right()[0]
        assert box.get_bottom()[1] < cell.get_center()[1] < box.get_top()[1]
    assert b.scene.brought[2].get_left()[0] > t.delta.get_right()[0]
    assert t.e.row(0)[0].get_fill_opacity() < 0.5 and t.e.row(9)[0].get_fill_opacity() == 1.0
    assert any("LaggedStart" in c.what for c in b.changes_in(beat))          # the three boxes, one by one


@pytest.mark.parametrize("sentence,word", [("river", "water"), ("cheque", "teller")])
def test_prediction_fills_the_blank(sentence, word):
    ws = compute_worksheet(sentence)
    b = built(ResidualAndPrediction, sentence)
    probs = b.by_tag("p")
    best = max(probs, key=lambda i: probs[i].value)          # argmax of what is on screen
    assert VOCAB[best] == word == ws.mlp.prediction
    assert "predicted" in texts_of(b)
    assert f"The most probable next word is “{word}”" in said(b)
    # the predicted word sits in the sentence's blank on the last frame
    row, filled = b.scene.filled
    assert filled.original_text == word and filled in b.scene.mobjects
    slot = row.blank[0]
    assert slot.get_left()[0] < filled.get_center()[0] < slot.get_right()[0]
    assert [w.original_text for w in row.words] == list(ws.tokens)
    # the predicted word's bar is drawn in the highlight colour
    bar = b.scene.page.rows[best].bar
    assert np.abs(b.pixel(bar.get_center()) - blend(POSITIVE_COLOR, BACKGROUND, 0.85)).max() <= 3


# -------------------------------------------------------------------------- ChequeSentence


@pytest.fixture(scope="module")
def cheque_scene():
    """ChequeSentence built with the switch on a third sentence and scene_worksheet disabled: it must
    compute both named sentences itself."""
    original = jh.scene_worksheet

    def refuse():
        raise AssertionError("ChequeSentence must not read the sentence switch")

    jh.scene_worksheet = refuse
    try:
        return build_scene(ChequeSentence, sentence="the river bank", pixel_height=270)
    finally:
        jh.scene_worksheet = original


@pytest.mark.parametrize("scene_cls", [ChequeSentence], ids=lambda c: c.__name__)   # names the scene checked
def test_cheque_scene_builds_cleanly(cheque_scene, scene_cls):
    assert type(cheque_scene.scene) is scene_cls
    assert_builds_cleanly(cheque_scene, min_sections=4, min_beats=8)
    assert 45 <= cheque_scene.duration <= 115      # chapter 2 stays under its 21 min 11 s (issue 18)


@pytest.mark.parametrize("name", SENTENCES)
def test_cheque_scene_shows_both_sentences_numbers(name, cheque_scene):
    b = cheque_scene
    ws = compute_worksheet(name)
    h1, h2 = ws.heads
    assert_matrix_on_screen(b, f"{name}_k1", h1.K)                     # head 1's keys = values, tenths
    weights = b.by_tag(f"{name}_A1")
    assert {j: m.value for j, m in weights.items()} == {j: h1.weights[-1, j] for j in range(ws.n)}
    assert all(m.original_text == fmt(m.value) for m in weights.values())
    assert_matrix_on_screen(b, f"{name}_m1", h1.messages[-1])
    assert_matrix_on_screen(b, f"{name}_m2", h2.messages[-1])
    for h, head in ((1, h1), (2, h2)):
        top = b.by_tag(f"{name}_A{h}_top")
        (j, m), = top.items()                                         # both heads' strongest, both sentences
        assert j == int(np.argmax(head.weights[-1])) and m.value == head.weights[-1, j]
    probs = b.by_tag(f"{name}_p")
    assert set(probs) == {VOCAB.index(w) for w in CANDIDATES}
    for i, m in probs.items():
        assert m.value == ws.mlp.probabilities[i]
    assert ws.mlp.prediction == VOCAB[int(np.argmax(ws.mlp.probabilities))]
    # the sentence under its prediction is spelled as the token rows spell it (lowercase)
    assert " ".join(ws.tokens[:5]) in all_text(b)


def test_cheque_scene_same_query_different_keys(cheque_scene):
    b = cheque_scene
    # both receivers are "the" at 10 (e = [0, 0, 0, 2.3]): q¹ = [2.3, 2.3], q² = [2.3, 0]
    assert [b.by_tag("q1")[(0, k)].original_text for k in range(2)] == ["2.3", "2.3"]
    assert [b.by_tag("q2")[(0, k)].original_text for k in range(2)] == ["2.3", "0.0"]
    # by hand: river₆'s key is [3.0 + 0.1, 0 - 0.1] (water); cheque₄'s [0, 3.0 - 0.1] (finance)
    assert [b.by_tag("river_k1")[(5, k)].original_text for k in range(2)] == ["3.1", "-0.1"]
    assert [b.by_tag("cheque_k1")[(3, k)].original_text for k in range(2)] == ["0.0", "2.9"]
    # the keys turn into cheque's in the beat that says so; the arrows move in theirs
    switch = b.beat_of("Now the cheque sentence")
    assert "cheque_k1" in tags_in(b, switch)
    assert any("ReplacementTransform" in c.what for c in b.changes_in(switch))
    # river's weight numbers fade out before the words change (they are not cheque's)
    assert any("FadeOut" in c.what for c in b.changes_in(switch))
    # the arrows are not wiped and redrawn: river's arcs turn into cheque's in the beat that says
    # they move (a transform, no fresh Create cascade)
    move = b.beat_of("Head 1's arrows now come from new sources")
    assert any("ReplacementTransform" in c.what for c in b.changes_in(move))
    assert not any("LaggedStart" in c.what for c in b.changes_in(move))
    # while cheque's weights are not yet computed, its arcs claim none: one width, not head 1's colour
    from scenes.style import DIM_TEXT_COLOR
    pending = b.scene.pending_arcs
    assert len({round(a.get_stroke_width(), 6) for a in pending}) == 1
    assert {a.get_stroke_color().to_hex().upper() for a in pending} == {DIM_TEXT_COLOR.upper()}
    assert {"cheque_A1_top", "cheque_A1", "cheque_A1_second"} <= tags_in(b, move)
    # the runner-up is named with its weight: deposited₂ 0.243 (read off the printed row)
    (j, second), = b.by_tag("cheque_A1_second").items()
    assert j == 1 and second.original_text == "0.243"
    assert "0.645 from “cheque”, 0.243 from “deposited”" in b.beat_of("Head 1's arrows now come from new sources").text
    # river's runner-up too, in the beat of river's arrows: fisherman₂ 0.166
    (j, second), = b.by_tag("river_A1_second").items()
    assert j == 1 and second.original_text == "0.166"
    river_beat = b.beat_of("So head 1 reads “river” most: 0.718")
    assert "river_A1_second" in tags_in(b, river_beat) and "“fisherman” gets 0.166" in river_beat.text
    # the cheque arrows: one per source, width from the weight, the strongest from cheque₄
    arrows = b.scene.arrows1[1].arrows
    cheque = compute_worksheet("cheque")
    assert arrows.sources == list(range(cheque.n))
    widths = [a.get_stroke_width() for a in arrows.arrows]
    assert widths == pytest.approx([arrow_stroke(w) for w in cheque.heads[0].weights[-1]])
    assert arrows.strongest(1) == [3]


def test_cheque_scene_says_what_the_messages_carry(cheque_scene):
    b = cheque_scene
    words = said(b)
    # river's m¹ = [2.617, -0.018] is water; cheque's [0.053, 2.471] is finance
    assert [b.by_tag("river_m1")[(0, k)].original_text for k in range(2)] == ["2.617", "-0.018"]
    assert [b.by_tag("cheque_m1")[(0, k)].original_text for k in range(2)] == ["0.053", "2.471"]
    assert "So head 1's message switches from water to finance." in words
    assert "Below, head 2 reads “she”: 0.862; in the river sentence, “fisherman”: 0.693." in words
    # both sides of the comparison on screen in that beat: river's head 2 on fisherman₂ (0.693, the
    # weight scene 11 walks; the data layer's rows are checked against PyTorch) beside cheque's on she₁
    beat = b.beat_of("Below, head 2 reads")
    assert {"river_A2_top", "cheque_A2_top"} <= tags_in(b, beat)
    assert [m.original_text for m in b.by_tag("river_A2_top").values()] == ["0.693"]
    assert list(b.by_tag("river_A2_top")) == [1] and list(b.by_tag("cheque_A2_top")) == [0]
    assert {"water", "finance", "person", "glue"} <= texts_of(b)               # coordinates named, not a/b
    assert not {"a", "b"} & texts_of(b)
    assert {"river_m1", "cheque_m1"} <= tags_in(b, b.beat_of("switches from water to finance"))
    assert "This is a worked arithmetic example, not a trained language model." in words
    assert "the vocabulary prediction are recalculated" in all_text(b)
    assert "not a trained language model" in all_text(b)
    assert "All displayed numbers are rounded; calculations use full precision." in all_text(b)


def test_cheque_scene_last_frame_fills_both_blanks(cheque_scene):
    b = cheque_scene
    assert b.out_of_frame == [] and b.text_overlaps == []
    for outcome, name in zip(b.scene.outcomes, SENTENCES):
        ws = compute_worksheet(name)
        assert outcome.filled.original_text == ws.mlp.prediction and outcome.filled in b.scene.mobjects
        bar = outcome.rows.rows[VOCAB.index(ws.mlp.prediction)].bar
        assert np.abs(b.pixel(bar.get_center()) - blend(POSITIVE_COLOR, BACKGROUND, 0.85)).max() <= 3
    assert "teller" in said(b) and "water" in said(b)


@pytest.mark.parametrize("name", SENTENCES)
def test_cheque_scene_shows_each_sentences_update_and_updated_row(name, cheque_scene):
    # the storyboard: Δe and e′ recomputed for the cheque sentence and compared with river's, in the
    # beat that sends both messages on through W_O and the residual
    b = cheque_scene
    ws = compute_worksheet(name)
    beat = b.beat_of("Both messages go through W_O")
    residual = b.beat_of("Then the residual adds")
    # both receivers are "the" at position 10, so e₁₀ is one row in both sentences (by the data), and the
    # sentence draws the conclusion: whatever differs came through attention
    river_ws, cheque_ws = (compute_worksheet(s) for s in ("river", "cheque"))
    assert river_ws.tokens[-1] == cheque_ws.tokens[-1] and river_ws.n == cheque_ws.n
    assert np.array_equal(river_ws.E[-1], cheque_ws.E[-1])
    assert "the receiver's own row, the same in both:" in residual.text
    assert {f"{name}_joined_last", f"{name}_dE_last", f"{name}_mix", f"{name}_mix_w"} <= tags_in(b, beat)
    assert {f"{name}_E_last", f"{name}_E_prime_last"} <= tags_in(b, residual)
    assert_matrix_on_screen(b, f"{name}_joined_last", ws.H_joined[-1:])
    assert_matrix_on_screen(b, f"{name}_E_last", ws.E[-1:])
    assert_matrix_on_screen(b, f"{name}_dE_last", ws.delta_E[-1:])
    assert_matrix_on_screen(b, f"{name}_E_prime_last", ws.E_prime[-1:])
    # e′ = e + Δe, checked against the embedding row itself (a second route to the same numbers)
    shown = b.by_tag(f"{name}_E_prime_last")
    assert np.allclose([shown[(0, j)].value for j in range(4)], ws.E[-1] + ws.delta_E[-1], atol=1e-12)
    assert "Create" in " ".join(c.what for c in b.changes_in(beat))
    assert "Create" in " ".join(c.what for c in b.changes_in(residual))


def test_cheque_scene_water_mix_worked_by_hand(cheque_scene):
    # W_O adds a quarter of head 2's person into water: river 2.617 + 0.25 · 1.552 = 3.005,
    # cheque 0.053 + 0.25 · 2.367 = 0.645 (the update row, shown worked under Δe's water)
    b = cheque_scene
    assert "it adds 0.25 of person into water" in b.beat_of("Both messages go through W_O").text
    for name, parts, total in (("river", ["2.617", "1.552"], "3.005"), ("cheque", ["0.053", "2.367"], "0.645")):
        shown = b.by_tag(f"{name}_mix")
        assert [shown[k].original_text for k in sorted(shown)] == parts
        assert [m.original_text for m in b.by_tag(f"{name}_mix_w").values()] == ["0.25"]
        assert b.by_tag(f"{name}_dE_last")[(0, 0)].original_text == total
    # e₁₀ = [0, 0, 0, 2.3] ("the"): glue 0.538 + 2.3 = 2.838 in river's e′
    assert b.by_tag("river_E_last")[(0, 3)].original_text == "2.3"
    assert b.by_tag("river_E_prime_last")[(0, 3)].original_text == "2.838"
    # e₁₀'s entries stand under Δe's columns (2.3 under glue), in both panels
    for col in b.scene.update_rows:
        for j in range(4):
            assert col.e.vector.cell_center(0, j)[0] == pytest.approx(col.delta.vector.cell_center(0, j)[0], abs=0.01)
    assert "Only the prefix changed: attention moved the weight" in said(b)
    # what W_O is, beside the sentence that names its 0.25: W_O = I + 0.25 at (person, water)
    assert "wo_note_w" in tags_in(b, b.beat_of("Both messages go through W_O"))
    assert b.by_tag("wo_note_w")[None].original_text == "0.25"
    assert "W_O here: the identity, plus" in all_text(b)


def test_cheque_scene_keeps_both_heads_messages_side_by_side(cheque_scene):
    # the beat that adds head 2's messages keeps head 1's: four rows on screen, m¹ beside m²
    b = cheque_scene
    beat = b.beat_of("So its message still carries person")
    assert {"river_m2", "cheque_m2"} <= tags_in(b, beat)
    table = b.scene.messages
    for m1, m2 in zip(table.m1, table.m2):
        assert abs(baseline_y(m1.vector.cell(0, 0)) - baseline_y(m2.vector.cell(0, 0))) < 1e-6
        assert m1.get_right()[0] < m2.get_left()[0]
    # the title says which sentence is on screen: river first, cheque from the switch on
    assert b.beat_of("First, the river sentence again") is not None
    titles = [t.original_text for t in b.texts if t.original_text.startswith("The ")]
    assert "The river sentence, once more" in titles and "The cheque sentence: same parameters, new prefix" in titles


def test_cheque_scene_river_updated_row_by_hand(cheque_scene):
    # river's e′₁₀ as worked in scene 14: water 3.005, finance −0.018, person 1.552
    shown = cheque_scene.by_tag("river_E_prime_last")
    assert [shown[(0, j)].original_text for j in range(3)] == ["3.005", "-0.018", "1.552"]


def test_cheque_scene_head2_rounding_note(cheque_scene):
    # head 2's ten shown weights (three places) add to 1.002, not 1: the notes' rounding line stays on
    # screen with that sum, in the beat that shows the weights
    b = cheque_scene
    beat = b.beat_of("Below, head 2 reads")
    sums = b.all_with_tag("cheque_A2_shown_sum")
    assert [m.original_text for m in sums] == ["1.002"]
    assert sums[0] in b.numbers_in(beat)
    ws = compute_worksheet("cheque")
    assert math.isclose(sums[0].value, sum(round(float(w), 3) for w in ws.heads[1].weights[-1]), abs_tol=1e-9)


def test_wide_head_bar_legend_is_shaded_like_the_bars():
    # each legend swatch has one stripe per row: the wide head's colour, head 1's, head 2's
    b = built(WideHeadVersusTwo, "river")
    legend = b.scene.bar_legend
    swatch = legend[1][0]
    assert [r.get_fill_color().to_hex().upper() for r in swatch] == [WIDE_HEAD_COLOR.upper(), head_color(1).upper(),
                                                                    head_color(2).upper()]


def test_cheque_scene_weights_under_narrow_words_keep_a_gap(cheque_scene):
    """Three-decimal weights under narrow words ("at", "the") do not run together ("0.0080.006"):
    neighbours keep at least 0.1 (about 9 px at 720p) between their glyphs."""
    for weights in cheque_scene.scene.weights:
        line = weights.lines[0]
        gaps = [line[j + 1].get_left()[0] - line[j].get_right()[0] for j in range(len(line) - 1)]
        assert min(gaps) >= 0.1, gaps


def test_cheque_scene_marks_the_words_both_sentences_share(cheque_scene):
    """"bank and watched the" stand at positions 7-10 in both sentences (docs/WORKSHEET.md): the scene
    says so and boxes exactly those four key columns, whose numbers are the river columns' numbers."""
    b = cheque_scene
    beat = b.beat_of("are unchanged: same keys, same values")
    assert beat.text.startswith("The last four words, “bank and watched the”,")
    box = b.scene.same_box
    assert any("Create" in c.what for c in b.changes_in(beat))
    left, right = box.get_left()[0], box.get_right()[0]
    river, cheque = b.by_tag("river_k1"), b.by_tag("cheque_k1")
    for j in range(10):
        for k in range(2):
            x = cheque[(j, k)].get_center()[0]
            assert (left < x < right) == (j >= 6), (j, k)
            if j >= 6:       # the same numbers as in the river sentence, as the sentence says
                assert cheque[(j, k)].original_text == river[(j, k)].original_text
    # the box leaves with the next beat, which boxes cheque's strongest key instead
    assert any("FadeOut" in c.what for c in b.changes_in(b.beat_of("The receiver and its query are the same")))


def test_cheque_scene_says_keys_and_values_stay_separate_where_k_equals_v_is_written(cheque_scene):
    # the rows are labelled "k¹ = v¹ water": the notes' caveat comes in the same beat
    b = cheque_scene
    beat = b.beat_of("First, the river sentence again")
    assert "separate parameters with different roles" in all_text(b)
    assert any("FadeIn" in c.what for c in b.changes_in(beat))
    assert any(t.original_text.startswith("k¹ = v¹") for t in b.texts)


def test_cheque_scene_predictions_arrive_as_the_updated_rows_leave(cheque_scene):
    # no silent fade to a near-empty stage between the update rows and the predictions: the rows
    # leave in the first play of the predictions' beat, while the outcomes come in
    b = cheque_scene
    beat = b.beat_of("Same parameters, different prefix")
    arriving = next(c for c in b.changes_in(beat) if "LaggedStart" in c.what)      # the outcomes come in
    assert "FadeOut" in arriving.what, arriving.what                                # ...as the rows go
    assert not [t for t in b.transitions if "predictions" in t.name]


def test_each_heads_message_goes_through_its_own_block_into_its_update():
    """Panel (stop 35): the two updates faded in, no message seen going through W_O. Each cell of
    m¹W_O¹ and m²W_O² is now made by the head's row and the block's column travelling into it, one
    column at a time for both heads; the cells read the products recomputed here."""
    ws = compute_worksheet("river")
    b = built(ConcatAndOutputProjection, "river")
    beat = b.beat_of("Each product is a four-coordinate update")
    d1, width = ws.heads[0].messages.shape[1], ws.W_O.shape[1]
    made = sum(c.what.count("TransformFromCopy") for c in b.changes_in(beat))
    assert made == 2 * width
    cop = b.scene.cop
    for h, (c, rows) in enumerate(((cop.c1, slice(0, d1)), (cop.c2, slice(d1, None)))):
        by_hand = ws.heads[h].messages[-1] @ ws.W_O[rows]
        for k in range(width):
            assert float(c.cell(0, k).value) == pytest.approx(by_hand[k], abs=1e-12)
