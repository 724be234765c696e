"""Chapter 2, scenes 5–7 (Setup, ShapeFlow, Projections): they build without LaTeX, and every number
on screen is the data layer's number under the display rule — for both sentences."""
from __future__ import annotations

import numpy as np
import pytest

from lesson_data.display import fmt
from lesson_data.worksheet import AXES, compute_worksheet
from scenes.chapter2.setup_and_shapes import Projections, Setup, ShapeFlow
from scenes.style import BACKGROUND, HIGHLIGHT_OPACITY, RECEIVER_COLOR, format_shape, head_color
from tests.scene_harness import assert_builds_cleanly, assert_matrix_on_screen, blend, build_scene, built

SENTENCES = ("river", "cheque")


def test_a_bad_sentence_switch_fails_with_the_data_layer_message():
    with pytest.raises(ValueError, match="unknown word 'zebra'"):
        build_scene(Setup, sentence="the zebra")


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("scene_cls", [Setup, ShapeFlow, Projections], ids=lambda c: c.__name__)
def test_scene_builds_cleanly(scene_cls, sentence):
    b = built(scene_cls, sentence)
    assert_builds_cleanly(b, min_sections=2, min_subcaptions=3)


# ------------------------------------------------------------------------------------ Setup


@pytest.mark.parametrize("sentence", SENTENCES)
def test_setup_shows_token_rows_position_rows_and_E(sentence):
    ws = compute_worksheet(sentence)
    b = built(Setup, sentence)
    assert_matrix_on_screen(b, "token_rows", ws.token_rows)
    assert_matrix_on_screen(b, "position_rows", ws.position_rows)
    assert_matrix_on_screen(b, "E", ws.E)
    token_m = b.scene.embedding_sum[0]
    assert [t.original_text for t in token_m.row_labels] == list(ws.tokens)
    assert [t.original_text for t in token_m.col_labels] == list(AXES)
    texts = {t.original_text for t in b.texts}
    assert f"E  {format_shape(ws.E.shape)}" in texts
    assert [str(p) for p in range(1, ws.n + 1)] == [t.original_text for t in b.scene.strip.positions]
    said = " ".join(s[2] for s in b.subcaptions)
    assert f"The prefix is “{ws.text} ___”." in said
    assert f"The final known token, {ws.tokens[-1]} at slot {ws.n}, is the receiver." in said
    assert "The blank has no query yet." in said


def test_setup_river_rows_worked_by_hand():
    b = built(Setup, "river")
    E = b.by_tag("E")
    # position 6 is "river": token row [3, 0, 0, 0] + position row 6 [0.1, -0.1, 0, 0.1]
    assert [E[(5, j)].original_text for j in range(4)] == ["3.100", "-0.100", "0.000", "0.100"]
    # the receiver "the" at 10: [0, 0, 0, 2.4] + [0, 0, 0, -0.1]
    assert [E[(9, j)].original_text for j in range(4)] == ["0.000", "0.000", "0.000", "2.300"]


def test_setup_cheque_rows_worked_by_hand():
    b = built(Setup, "cheque")
    E = b.by_tag("E")
    # position 4 is "cheque": [0, 3, 0, 0] + position row 4 [0, -0.1, 0.1, 0]
    assert [E[(3, j)].original_text for j in range(4)] == ["0.000", "2.900", "0.100", "0.000"]
    assert [t.original_text for t in b.scene.embedding_sum[0].row_labels][:2] == ["she", "deposited"]


def test_setup_last_frame_highlights_the_receiver_row():
    b = built(Setup, "river")
    e_m = b.scene.embedding_sum[4]
    n = b.scene.ws.n
    # between two digits of the receiver's row: highlight colour over the background
    x = (e_m.cell(n - 1, 0).get_right()[0] + e_m.cell(n - 1, 1).get_left()[0]) / 2
    y = e_m.cell_center(n - 1, 0)[1]
    assert np.abs(b.pixel((x, y)) - blend(RECEIVER_COLOR, BACKGROUND, HIGHLIGHT_OPACITY)).max() <= 3
    # the same spot one row up is not highlighted
    y_above = e_m.cell_center(n - 2, 0)[1]
    assert np.abs(b.pixel((x, y_above)) - np.array([int(BACKGROUND[k:k + 2], 16) for k in (1, 3, 5)])).max() <= 3


# -------------------------------------------------------------------------------- ShapeFlow


@pytest.mark.parametrize("sentence", SENTENCES)
def test_shape_flow_labels_every_stage_with_its_shape(sentence):
    ws = compute_worksheet(sentence)
    b = built(ShapeFlow, sentence)
    texts = {t.original_text for t in b.texts}
    h1 = ws.heads[0]
    expected_shapes = {
        format_shape(ws.E.shape),                          # E, ΔE, E′, concat
        f"each {format_shape(h1.Q.shape)}",                # Q, K, V per head
        format_shape(h1.scores.shape),                     # QKᵀ and A
        format_shape(h1.messages.shape),                   # H
        format_shape(ws.W_O.shape),
        format_shape((1, ws.E.shape[1])),                  # the last row
        f"{format_shape((1, len(ws.mlp.probabilities)))} words",
    }
    assert expected_shapes <= texts
    for label in ("Q¹", "K¹", "V¹", "Q²", "K²", "V²", "Q¹K¹ᵀ", "Q²K²ᵀ", "A¹", "A²",
                  "H¹ = A¹V¹", "H² = A²V²", "W_O", "ΔE", "E′ = E + ΔE", "MLP"):
        assert label in texts, label
    assert f"÷√{h1.Q.shape[1]}" in texts
    assert b.numbers == []                                  # a shapes-only scene shows no numbers


def test_shape_flow_last_frame_colours_the_two_heads_in_the_concat():
    b = built(ShapeFlow, "river")
    concat = b.scene.chain[0]
    for half, index in zip(concat.halves, (1, 2)):
        want = blend(head_color(index), BACKGROUND, 0.6)
        assert np.abs(b.pixel(half.get_center()) - want).max() <= 3


# ------------------------------------------------------------------------------ Projections


@pytest.mark.parametrize("sentence", SENTENCES)
def test_projections_show_the_receiver_row_W_Q_and_both_queries(sentence):
    ws = compute_worksheet(sentence)
    b = built(Projections, sentence)
    n = ws.n
    assert_matrix_on_screen(b, "E_row", ws.E[n - 1])
    for head in ws.heads:
        h = head.index
        assert_matrix_on_screen(b, f"W_Q{h}", head.W_Q)
        assert_matrix_on_screen(b, f"W_K{h}", head.W_K)
        assert_matrix_on_screen(b, f"q{h}", head.Q[n - 1])
        # the written-out dot products: e_n[i] × W_Q[i, k] for every i, = q[k]
        for k in range(head.Q.shape[1]):
            terms = [(b.by_tag(f"dot_e{h}")[(k, i)], b.by_tag(f"dot_w{h}")[(k, i)]) for i in range(4)]
            assert [e.value for e, _ in terms] == list(ws.E[n - 1])
            assert [w.value for _, w in terms] == list(head.W_Q[:, k])
            result = b.by_tag(f"dot_q{h}")[k]
            assert result.value == head.Q[n - 1, k]
            # a second method: the shown terms' unrounded products add up to the shown result
            assert sum(e.value * w.value for e, w in terms) == pytest.approx(result.value, abs=1e-12)


def test_projections_river_queries_worked_by_hand():
    b = built(Projections, "river")
    # e10 = [0, 0, 0, 2.3]; W_Q¹ reads glue into both coordinates, W_Q² into the first only
    assert [b.by_tag("q1")[(0, k)].original_text for k in range(2)] == ["2.300", "2.300"]
    assert [b.by_tag("q2")[(0, k)].original_text for k in range(2)] == ["2.300", "0.000"]


def test_projections_name_the_axes_each_head_reads():
    b = built(Projections, "river")
    texts = {t.original_text for t in b.texts}
    assert "keys and values read\nwater + finance" in texts
    assert "keys and values read\nperson + glue" in texts
    said = " ".join(s[2] for s in b.subcaptions)
    assert "selecting water and finance" in said and "selecting person and glue" in said


def test_projections_last_frame_highlights_the_rows_each_head_reads():
    b = built(Projections, "river")
    for head, panel in zip(b.scene.ws.heads, b.scene.kv_panels):
        w_k = panel.w_k
        for i, axis in enumerate(AXES):
            x = (w_k.cell(i, 0).get_right()[0] + w_k.cell(i, 1).get_left()[0]) / 2
            got = b.pixel((x, w_k.cell_center(i, 0)[1]))
            if axis in panel.reads:
                want = blend(head_color(head.index), BACKGROUND, HIGHLIGHT_OPACITY)
            else:
                want = blend(BACKGROUND, BACKGROUND, 1.0)
            assert np.abs(got - want).max() <= 3, (head.index, axis)
