"""Chapter 2, scenes 16–17 (BiasesAndLibraryLayer, RecapAndLoop): they build without LaTeX, and every
number on screen is the data layer's number under the display rule — for both sentences. The bias
row, the 16 extra scalars and the parity figures are also checked against a second method (numpy by
hand, the shapes of a real torch layer, a fresh parity run)."""
from __future__ import annotations

import math
import re

import numpy as np
import pytest
from manim import Text

from lesson_data.display import fmt, fmt_sci
from lesson_data.projections import listed_rows, most_shifted_source
from lesson_data.worksheet import B_Q_ILLUSTRATION, W_Q1, bias_illustration, compute_worksheet
from scenes.chapter2.library_and_recap import (
    BiasesAndLibraryLayer,
    RecapAndLoop,
    SciNumberText,
    get_inference_cycle,
    get_target_cost,
)
from scenes.style import BACKGROUND, POSITIVE_COLOR, RECEIVER_COLOR, TEXT_COLOR, count_word, head_color
from tests.scene_harness import assert_builds_cleanly, blend, built

SENTENCES = ("river", "cheque")
TWENTY = ("the fisherman sat beside the river bank and watched the water "
          "boats fish ducks teller clerk queue money she at")


def assert_array_on_screen(b, tag, expected, index=lambda k: k):
    """Every entry of the 1-D `expected` is on screen under `tag`, unrounded, shown by fmt."""
    expected = np.asarray(expected, dtype=float).ravel()
    shown = b.by_tag(tag)
    assert set(shown) == {index(k) for k in range(len(expected))}, f"{tag}: {sorted(shown)}"
    for k, want in enumerate(expected):
        m = shown[index(k)]
        assert m.value == want, f"{tag}[{k}] = {m.value} != {want}"
        assert m.original_text == fmt(want, m.places), f"{tag}[{k}] shows {m.original_text!r}"


def texts_of(b) -> set:
    return {t.original_text for t in b.texts}


def on_screen(b) -> str:
    """Every text ever shown, one line each (fine print wraps: joined back with spaces)."""
    return " | ".join(t.original_text.replace("\n", " ") for t in b.texts)


def kinds(changes) -> str:
    return " ".join(c.what for c in changes)


@pytest.mark.parametrize("sentence", [*SENTENCES, TWENTY])
@pytest.mark.parametrize("scene_cls", [BiasesAndLibraryLayer, RecapAndLoop], ids=lambda c: c.__name__)
def test_scene_builds_cleanly(scene_cls, sentence):
    b = built(scene_cls, sentence)
    assert_builds_cleanly(b, min_sections=2, min_beats=10)


# ------------------------------------------------------------------ BiasesAndLibraryLayer


@pytest.mark.parametrize("sentence", SENTENCES)
def test_bias_row_is_the_data_layers(sentence):  # n = 10: every source listed
    bias = bias_illustration(sentence)
    b = built(BiasesAndLibraryLayer, sentence)
    row = lambda k: (0, k)  # noqa: E731  (row vectors are one-row matrices)
    assert_array_on_screen(b, "q_without", bias.query_without, row)
    assert_array_on_screen(b, "b_Q", bias.b_Q, row)
    assert_array_on_screen(b, "q_with", bias.query_with, row)
    assert_array_on_screen(b, "A_without", bias.weights_without)
    assert_array_on_screen(b, "A_with", bias.weights_with)
    # both rows are softmax rows: the shown sums are 1.000
    for tag in ("A_without_sum", "A_with_sum"):
        (m,) = b.all_with_tag(tag)
        assert m.original_text == "1.000" and m.value == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("sentence", SENTENCES)
def test_bias_row_second_method(sentence):
    """Recompute the receiver row with b_Q by hand in numpy (receiver row: no source is masked)."""
    ws = compute_worksheet(sentence)
    b = built(BiasesAndLibraryLayer, sentence)
    q = ws.E[-1] @ W_Q1 + np.array([0.2, -0.1])     # b_Q as the storyboard writes it
    np.testing.assert_allclose(B_Q_ILLUSTRATION, [0.2, -0.1])
    scores = ws.heads[0].K @ q / math.sqrt(2)
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()
    shown = b.by_tag("A_with")
    np.testing.assert_allclose([shown[j].value for j in range(ws.n)], weights, rtol=0, atol=1e-12)
    # without the bias the row is the worksheet's own attention row
    shown0 = b.by_tag("A_without")
    np.testing.assert_allclose([shown0[j].value for j in range(ws.n)], ws.heads[0].weights[-1], atol=0)


def test_bias_river_query_worked_by_hand():
    b = built(BiasesAndLibraryLayer, "river")
    # e10 = [0, 0, 0, 2.3]; W_Q¹ reads glue into both coordinates -> [2.3, 2.3]; + [0.2, -0.1]
    # (hand-chosen tenths read as tenths: 2.3, not 2.300)
    assert [b.by_tag("q_without")[(0, k)].original_text for k in range(2)] == ["2.3", "2.3"]
    assert [b.by_tag("b_Q")[(0, k)].original_text for k in range(2)] == ["0.2", "-0.1"]
    assert [b.by_tag("q_with")[(0, k)].original_text for k in range(2)] == ["2.5", "2.2"]
    # river's score q·k₆ = 2.3·3.1 + 2.3·(-0.1) = 6.9 -> 2.5·3.1 + 2.2·(-0.1) = 7.53
    assert b.by_tag("score_without")[5].original_text == "6.90"
    assert b.by_tag("score_with")[5].original_text == "7.53"
    beat = b.beat_of("“river” moves most:")
    assert beat.text.endswith("its weight rises from 0.718 to 0.767.")
    # the cause on screen in that beat (docs/VISUALS.md: every result with its cause): what the bias
    # adds to river's score, b_Q¹ · k₆ = 0.2·3.1 + (-0.1)·(-0.1) = 0.63 = 7.53 - 6.90, the most of all ten
    assert [b.by_tag("bias_term_k")[(0, k)].original_text for k in range(2)] == ["3.1", "-0.1"]
    assert [b.by_tag("bias_term_b")[(0, k)].original_text for k in range(2)] == ["0.2", "-0.1"]
    (j, term), = b.by_tag("bias_term").items()
    assert j == 5 and term.original_text == "0.63" and math.isclose(term.value, 0.2 * 3.1 + 0.1 * 0.1, abs_tol=1e-12)
    assert "for “river” 0.63, the most;" in beat.text
    assert {"bias_term", "bias_term_k", "bias_term_b"} <= {m.tag for m in b.numbers_in(beat)}


def test_bias_cheque_score_falls():
    b = built(BiasesAndLibraryLayer, "cheque")
    # cheque's key is mostly finance, where b_Q subtracts: 2.3·2.9 = 6.67 -> 2.2·2.9 = 6.38
    assert b.by_tag("score_without")[3].original_text == "6.67"
    assert b.by_tag("score_with")[3].original_text == "6.38"
    beat = b.beat_of("“cheque” moves most:")
    # cheque's key (position 4) is [0.0, 2.9]: 0.2·0 + (-0.1)·2.9 = -0.29 = 6.38 - 6.67, the least
    assert "for “cheque” -0.29, the least;" in beat.text
    assert beat.text.endswith("its weight falls from 0.645 to 0.620.")


def test_bias_table_for_twenty_words_pools_the_rest():
    bias = bias_illustration(TWENTY)
    b = built(BiasesAndLibraryLayer, TWENTY)
    listed = listed_rows(bias.weights_without, bias.weights_with, keep=(most_shifted_source(bias),))
    shown = b.by_tag("A_with")
    assert sorted(shown) == list(listed.listed)
    assert all(shown[j].value == bias.weights_with[j] for j in listed.listed)
    (others,) = b.all_with_tag("A_with_others")
    assert others.value == listed.pooled_sums[1]
    assert f"{count_word(len(listed.pooled))} others" in texts_of(b)
    (total,) = b.all_with_tag("A_with_sum")
    assert total.original_text == "1.000"


def test_sixteen_scalars_match_a_real_torch_layer():
    torch = pytest.importorskip("torch")
    b = built(BiasesAndLibraryLayer, "river")
    mha = torch.nn.MultiheadAttention(4, 2, bias=True)
    in_bias, out_bias = mha.in_proj_bias.numel(), mha.out_proj.bias.numel()
    plain = torch.nn.MultiheadAttention(4, 2, bias=False)
    extra = sum(p.numel() for p in mha.parameters()) - sum(p.numel() for p in plain.parameters())
    shown = {tag: b.all_with_tag(tag)[0] for tag in
             ("in_proj_bias", "out_proj.bias", "total", "total_in", "total_out", "slice_width")}
    assert shown["in_proj_bias"].value == shown["total_in"].value == in_bias == 12
    assert shown["out_proj.bias"].value == shown["total_out"].value == out_bias == 4
    assert shown["total"].value == extra == 16
    assert shown["slice_width"].value == 4 // 2
    assert {m.original_text for m in shown.values()} == {"12", "4", "16", "2"}
    # the offset cells drawn: 12 input offsets (three groups of four) and four output offsets
    counts = b.scene.counts
    assert sum(len(g[0]) for g in counts.in_group[1]) == in_bias
    assert len(counts.out_group[1]) == out_bias
    # each head owns a slice of width two in each of query, key, value: blue, blue, orange, orange
    for group in counts.query_key_value:
        colours = [cell.get_fill_color().to_hex().upper() for cell in group[0]]
        assert colours == [head_color(1).upper()] * 2 + [head_color(2).upper()] * 2


@pytest.mark.parametrize("sentence", SENTENCES)
def test_parity_shows_the_measured_differences_in_scientific_notation(sentence):
    from lesson_data.parity import pytorch_parity

    b = built(BiasesAndLibraryLayer, sentence)
    sci = [t for t in b.texts if isinstance(t, SciNumberText)]
    by = {(t.tag, t.index): t for t in sci}
    measured = b.scene.parity
    assert set(by) == {("delta_E_diff", None), ("weight_diff", 0), ("weight_diff", 1)}
    assert by[("delta_E_diff", None)].value == measured["max_abs_delta_E_diff"]
    assert [by[("weight_diff", k)].value for k in range(2)] == measured["max_abs_weight_diff"]
    for t in sci:
        assert t.original_text == fmt_sci(t.value) == t.shown
        assert "e-" in t.original_text
        assert 0 <= t.value < 1e-12               # the copy reproduces the scratch layer
    # a fresh run measures the same kind of thing: differences at rounding level
    again = pytorch_parity(sentence)
    assert again["max_abs_delta_E_diff"] < 1e-12 and max(again["max_abs_weight_diff"]) < 1e-12
    assert f"torch {measured['torch_version']}" in " ".join(texts_of(b))


def test_library_scene_says_what_the_layer_does_not_do():
    b = built(BiasesAndLibraryLayer, "river")
    texts = texts_of(b)
    for item in ("E = token rows\n+ position rows", "residual: + E", "MLP", "nn.MultiheadAttention",
                 "attn_mask = future", "True: blocked (a future source)", "average_attn_weights=True:\ntheir average", "q·k (before ÷√2)"):
        assert item in texts, item
    code = b.scene.code
    source = "\n".join(code.source)
    assert "average_attn_weights=False" in source and "attn_mask=future" in source and "bias=False" in source
    assert all(t.font == "DejaVu Sans Mono" for t in code.lines if len(t.submobjects))
    assert not any("bias=True" in line for line in b.scene.counts.code_off.source)
    assert "nn.MultiheadAttention(embed_dim=4, num_heads=2, bias=True)" in texts
    # the notes' caveats, in their own words, on screen
    shown = on_screen(b)
    # (said once: the position-row and zero-input caveats are the captions themselves, the layer's
    # "does not add" is drawn outside its frame; the fine print keeps what the captions do not say)
    for caveat in ("A projection bias is shared across token positions (and batches).",
                   "Omitting biases is not a general claim that bias-free attention is better.",
                   "bias=True is the default of torch.nn.MultiheadAttention.",
                   "All displayed numbers are rounded; calculations use full precision.",
                   "it changes the returned diagnostic weights, not how the head messages combine.",
                   "Both our scratch implementation and trained attention variants omit attention projection "
                   "biases; their prediction MLP layers retain biases."):
        assert caveat in shown, caveat
    # and the teaching lines
    b.beat_of("A position row is different: each position adds its own row.")
    b.beat_of("And a bias shifts the projection even for a zero input.")
    b.beat_of("We leave the attention biases out only to keep this example simple")
    b.beat_of("16 additional trainable scalars.")
    b.beat_of("attn_mask=future blocks every source after the receiver.")
    assert "b_Q¹ (illustrative)" in texts


def test_library_layer_is_a_frame_on_the_recap_diagram():
    b = built(BiasesAndLibraryLayer, "river")
    frame = b.scene.boundary

    def inside(m):
        x0, x1 = frame.box.get_left()[0], frame.box.get_right()[0]
        y0, y1 = frame.box.get_bottom()[1], frame.box.get_top()[1]
        return x0 < m.get_left()[0] and m.get_right()[0] < x1 and y0 < m.get_bottom()[1] and m.get_top()[1] < y1

    def apart(m):
        return (m.get_right()[0] < frame.box.get_left()[0] or m.get_left()[0] > frame.box.get_right()[0]
                or m.get_top()[1] < frame.box.get_bottom()[1] or m.get_bottom()[1] > frame.box.get_top()[1])

    d = b.scene.library_diagram
    # what the one call computes sits inside: both heads (names too), the concat, W_O and ΔE
    for m in (*d.heads, d.concat, d.w_o, d.delta):
        assert inside(m), m
    # what it does not add stays out: E (and the note that it holds the position rows), the
    # residual's route (each leg: up from E, across above, down into the sum) and sum, E′, the MLP
    for m in (d.e_box, b.scene.position_note, *d.residual[0].legs, d.residual[1], d.plus, d.e_prime, d.mlp,
              d.mlp_shapes):
        assert apart(m), m
    # drawn while "one library call" is said; its parts lit while they are named
    assert "Create" in kinds(b.changes_in(b.beat_of("One library call computes")))
    assert "LaggedStart" in kinds(b.changes_in(b.beat_of("Inside it: each head’s Q, K and V")))   # Indicates
    outside = b.beat_of("Not inside: the position rows")
    assert "Indicate" in kinds(b.changes_in(outside)) and "FadeIn" in kinds(b.changes_in(outside))
    assert b.scene.position_note._first_seen == outside.id


def test_library_pictures_play_in_their_own_beats():
    b = built(BiasesAndLibraryLayer, "river")
    assert {m.tag for m in b.numbers_in(b.beat_of("here an illustrative b_Q"))} == {"q_without", "b_Q", "q_with"}
    without = {m.tag for m in b.numbers_in(b.beat_of("Without a bias, head 1’s row 10"))}
    assert "A_without" in without and "A_with" not in without          # the shifted row waits for its sentence
    assert "score_without" in without and "score_with" not in without
    with_beat = b.beat_of("the scores change, so the whole row shifts")
    assert {"A_with", "score_with"} <= {m.tag for m in b.numbers_in(with_beat)}
    # by hand: source 10 ("the", key (0, 0)) keeps its score 0 = 2.3·0 + 2.3·0 = 2.5·0 + 2.2·0
    assert b.by_tag("score_without")[9].original_text == b.by_tag("score_with")[9].original_text == "0.00"
    assert b.by_tag("score_with")[5].original_text == "7.53"
    # the rounded no-bias weights shown add to 0.999 (the full row sums to one)
    assert b.by_tag("A_without_shown_sum")[None].original_text == "0.999"
    # the offsets take their heads' colours only when the sentence names the slices
    slices = b.beat_of("each bias slice has width two")
    assert any("_AnimationBuilder" in c.what for c in b.changes_in(slices))
    # the per-head grids, then their average beside them
    assert any("FadeIn" in c.what for c in b.changes_in(b.beat_of("not how the messages combine")))
    assert {m.tag for m in b.numbers_in(b.beat_of("stored together in in_proj_bias"))} == {"in_proj_bias"}
    assert {"out_proj.bias", "total"} <= {m.tag for m in b.numbers_in(b.beat_of("Plus four output offsets"))}
    assert "total" not in {m.tag for m in b.numbers_in(b.beat_of("stored together in in_proj_bias"))}
    assert {m.tag for m in b.numbers_in(b.beat_of("ΔE differs by at most"))} == {"delta_E_diff"}
    assert {m.tag for m in b.numbers_in(b.beat_of("Both heads’ weights differ by at most"))} == {"weight_diff"}
    # bias=True becomes bias=False (our layers) in the sentence that says so
    assert "ReplacementTransform" in kinds(b.changes_in(b.beat_of("in code, bias=False")))


def test_bias_highlight_marks_the_most_shifted_source():
    b = built(BiasesAndLibraryLayer, "river")
    bias = b.scene.bias
    j = b.scene.biggest_shift
    assert b.scene.ws.tokens[j] == "river"   # 0.718 -> 0.767, the largest move (worked from the data)
    assert j == int(np.argmax(np.abs(bias.weights_with - bias.weights_without)))
    # the highlight box sits on river's row of the table
    box = b.scene.shift_box
    row = b.scene.table.rows[b.scene.table.sources.index(j)]
    assert abs(box.get_y() - row[1].get_y()) < 1e-6


def test_bias_last_frame_colours_the_two_heads_parity_rows():
    b = built(BiasesAndLibraryLayer, "river")
    for k, label in enumerate(b.scene.parity_table.labels[1:]):
        # some pixel of the label carries its head's colour (a grid over the label: one line through its
        # middle can fall between a small font's strokes, where antialiasing blends them with the background)
        left, right = label.get_left()[0], label.get_right()[0]
        bottom, top = label.get_bottom()[1], label.get_top()[1]
        colours = [b.pixel((x, y)) for x in np.linspace(left, right, 60) for y in np.linspace(bottom, top, 7)]
        want = np.array([int(head_color(k + 1)[i:i + 2], 16) for i in (1, 3, 5)])
        assert min(np.abs(c - want).max() for c in colours) <= 40


# ---------------------------------------------------------------------------- RecapAndLoop


@pytest.mark.parametrize("sentence", SENTENCES)
def test_recap_prediction_is_the_worksheets(sentence):
    ws = compute_worksheet(sentence)
    b = built(RecapAndLoop, sentence)
    (p,) = b.all_with_tag("p_prediction")
    word, prob = ws.mlp.ranked[0]
    assert p.value == prob == float(np.max(ws.mlp.probabilities))
    assert p.original_text == fmt(prob)
    texts = texts_of(b)
    assert f"“{ws.mlp.prediction}”" in texts
    assert ws.mlp.prediction in texts      # the appended word in the loop
    for label in ("E", "concat", "W_O", "ΔE", "E′", "MLP", "head 1 (setting)", "head 2 (person)"):
        assert label in texts, label
    assert f"[{ws.n}, 4]" in texts
    assert f"H¹ [{ws.n}, 2]" in texts


def test_recap_worked_predictions():
    # WORKSHEET: river -> "water", cheque -> "teller"
    assert "“water”" in texts_of(built(RecapAndLoop, "river"))
    assert "“teller”" in texts_of(built(RecapAndLoop, "cheque"))


def test_recap_scope_and_loop_are_on_screen():
    b = built(RecapAndLoop, "river")
    texts = texts_of(b)
    assert any("one attention update and a prediction MLP" in t for t in texts)
    assert any("not a diagram of every component in a deep production Transformer" in t for t in texts)
    assert {"tokenize (once)", "run", "choose", "append", "training", "inference"} <= texts
    # the IDs under the words start at 0 ("the" is 0): labelled, so they are not read as positions
    assert "vocabulary IDs (counted from 0), not positions" in texts
    assert b.by_tag("token_id")[0].original_text == "0"
    assert any(t.startswith("target: the observed next token") for t in texts)
    shown = on_screen(b)
    for caveat in ("This repeats the same two-head diagram after the detailed arithmetic, rather than introducing "
                   "a new architecture.",
                   "At training time, the observed next-token ID is the target for the vocabulary logits.",
                   "At inference time, weights remain fixed: tokenize a prefix, run the model, choose a next token "
                   "and append it."):
        assert caveat in shown, caveat
    b.beat_of("E, ten rows of width four, goes into both heads")
    b.beat_of("For the river sentence, the most probable next word is “water”: 0.610.")
    # each head's stage says what makes its weights and what they mix: Q and K give A; V enters
    # only after A (H = AV), never as a source of the weights
    stages = [t for t in texts if "→ H" in t]
    assert len(stages) == 2
    for t in stages:
        before_a, after_a = t.split("→ A", 1)
        assert "Q" in before_a and "K" in before_a and "V" not in before_a and "V" in after_a, t


def test_recap_pictures_play_in_their_own_beats():
    b = built(RecapAndLoop, "river")
    assert {m.tag for m in b.numbers_in(b.beat_of("the most probable next word"))} == {"p_prediction"}
    assert "Create" in kinds(b.changes_in(b.beat_of("The residual adds E back")))
    # tokenize once (its arrow into run), then the loop's arcs as its steps are named, then the way back
    assert "Create" in kinds(b.changes_in(b.beat_of("tokenize the prefix once, then run the model")))
    assert "Create" in kinds(b.changes_in(b.beat_of("Choose the next token, and append it.")))
    assert b.beats[-1].text == "“water” joins the prefix, and the loop runs the model again."
    assert "Create" in kinds(b.changes_in(b.beats[-1]))
    # training is drawn on the recap diagram: the loss routed back into both heads, W_O and the MLP
    back = b.beat_of("The loss flows back and updates every parameter")
    assert "LaggedStart" in kinds(b.changes_in(back))
    t = b.scene.training
    assert len(t.back) == 5
    # one of them into E (the caption names the embeddings): its tip just under E's box and label
    e = b.scene.diagram.e_box
    into_e = [p for p in t.back if abs(p[-1].get_end()[0] - e.box.get_x()) < 0.05]
    assert len(into_e) == 1 and 0 < e.get_bottom()[1] - into_e[0][-1].get_end()[1] < 0.1
    assert "Create" in kinds(b.changes_in(back))
    # every path starts at "cross-entropy loss" (the trunk) or on the trunk's line; the trunk ends in head 1
    trunk_start = t.back[0][0].get_start()
    assert t.loss.cross.get_left()[0] < trunk_start[0] < t.loss.cross.get_right()[0]
    assert abs(trunk_start[1] - t.loss.cross.get_top()[1]) < 0.1
    h1 = b.scene.diagram.heads[0].box
    assert abs(t.back[0][-1].get_end()[1] - h1.get_bottom()[1]) < 0.1
    assert h1.get_left()[0] < t.back[0][-1].get_end()[0] < h1.get_right()[0]
    # the gradient's dashes leave a gap where they pass a forward arrow (E → head 2, MLP → logits):
    # no dash touches either arrow's line
    from scenes.chapter2.library_and_recap import _crossing

    forward = [b.scene.diagram.links[1], t.logit_arrow]
    for piece in (m for path in t.back for m in path[:-1]):
        for arrow in forward:
            assert _crossing(np.array(piece.get_start()), np.array(piece.get_end()),
                             np.array(arrow.get_start()), np.array(arrow.get_end())) is None, (piece, arrow)
    # the last row leaves E′'s highlighted bottom row; the predicted word is green, as in scenes 14-15
    assert "FadeIn" in kinds(b.changes_in(b.beat_of("Its last row goes through the prediction MLP")))
    assert b.scene.diagram.prediction[1].color.to_hex().upper() == POSITIVE_COLOR.upper()


def test_recap_diagram_is_never_shrunk():
    # the old recap shrank the diagram to 60 % (labels about 5 px); now every label is at full size
    b = built(RecapAndLoop, "river")
    assert b.small_texts == []
    d = b.scene.diagram
    assert d.width <= 13.43 and d.heads[0][2].original_text == "head 1 (setting)"


def test_inference_cycle_runs_clockwise_between_the_boxes():
    cycle = get_inference_cycle(compute_worksheet("river"))
    nodes = cycle.nodes
    assert [n[1].original_text for n in nodes] == ["run", "choose", "append"]   # tokenize is outside the loop
    assert len(cycle.arcs) == 3
    for k, arc in enumerate(cycle.arcs):
        start, end = arc.get_start(), arc.get_end()
        a, nxt = nodes[k][0], nodes[(k + 1) % 3][0]
        # each arc leaves node k and arrives near node k+1, outside both boxes
        assert np.linalg.norm(start - a.get_center()) < np.linalg.norm(start - nxt.get_center())
        assert np.linalg.norm(end - nxt.get_center()) < np.linalg.norm(end - a.get_center())
        for box in (a, nxt):
            for point in (start, end):
                inside = (abs(point[0] - box.get_x()) < box.width / 2 and abs(point[1] - box.get_y()) < box.height / 2)
                assert not inside


def test_recap_concat_in_head_colours_and_last_frame_loop():
    b = built(RecapAndLoop, "river")
    concat = b.scene.diagram.concat
    assert [h.get_fill_color().to_hex().upper() for h in concat.halves] == [head_color(1).upper(),
                                                                            head_color(2).upper()]
    # the last frame: the inference loop alone (training was drawn on the diagram), the appended
    # word's frame in the predicted colour
    assert not any(b.scene.training in m.get_family() for m in b.scene.mobjects)
    frame = b.scene.prefix.new_word[1]
    x, y = frame.get_left()[0], frame.get_y()
    # a thin anti-aliased stroke: some pixel across its left edge is mostly the predicted green
    near = [b.pixel((x + dx, y)) for dx in np.linspace(-0.04, 0.04, 9)]
    assert min(np.abs(c - blend(POSITIVE_COLOR, BACKGROUND, 1.0)).max() for c in near) <= 110
    assert max(np.abs(c - blend(BACKGROUND, BACKGROUND, 1.0)).max() for c in near) >= 80   # green: darker than yellow


# ------------------------------------------------------------------ third fix round: pictures in their beats


def test_bias_bars_continue_the_table_rows_and_grow_in_their_beats():
    b = built(BiasesAndLibraryLayer, "river")
    chart, bias, table = b.scene.chart, b.scene.bias, b.scene.table
    # one pair of bars per source on the table's own row (the words are not printed twice), right of it
    assert len(chart.rows) == len(table.rows) == len(b.scene.ws.tokens)
    for row, bars in zip(table.rows, chart.rows):
        y = row[1].get_y()
        assert bars[0].get_bottom()[1] > y > bars[1].get_top()[1]            # grey above, blue below
        assert abs(bars.get_y() - y) < 0.3 * chart.pitch
    assert not any(isinstance(m, Text) for m in chart.get_family())
    assert chart.get_left()[0] > table.get_right()[0]
    # a bar's length is its weight: river's bar with b_Q is 0.767 of the full length, three times
    # the old 1.0-unit bars at least
    j = b.scene.biggest_shift
    full = chart.bars_with[j].width / bias.weights_with[j]
    assert full >= 3.0
    assert chart.bars_without[j].width == pytest.approx(full * bias.weights_without[j], rel=1e-9)
    assert "LaggedStart" in kinds(b.changes_in(b.beat_of("Without a bias, head 1’s row 10")))   # the bars grow
    assert "LaggedStart" in kinds(b.changes_in(b.beat_of("the scores change, so the whole row shifts")))
    # the highlight on river's row comes in river's sentence, white (yellow is the receiver's), and
    # runs from the word across its bars
    assert "Create" in kinds(b.changes_in(b.beat_of("“river” moves most")))
    box = b.scene.shift_box
    assert box.get_stroke_color().to_hex().upper() == "#FFFFFF"
    assert box.get_left()[0] < table.rows[table.sources.index(j)][0].get_left()[0]
    assert box.get_right()[0] > chart.rows[j].get_right()[0]
    # the rounded parts' sum sits in the table, under the columns: 0.999 without, 1.000 with
    assert b.by_tag("A_without_shown_sum")[None].original_text == "0.999"
    assert b.by_tag("A_with_shown_sum")[None].original_text == "1.000"
    assert "rounded parts add to" in texts_of(b)
    # q¹₁₀ means one thing: the unbiased product is named e₁₀W_Q¹, the biased sum q¹₁₀ (with bias)
    assert "e₁₀W_Q¹" in texts_of(b) and "q¹₁₀ (with bias)" in texts_of(b)
    assert "q¹₁₀" not in texts_of(b)


def test_bias_false_is_marked_and_the_offsets_crossed_out():
    b = built(BiasesAndLibraryLayer, "river")
    # the per-head grids name PyTorch's zero-based head index beside the lesson's head number
    assert "A[0, 0]: head 1\n(head index 0)" in texts_of(b) and "A[0, 1]: head 2\n(head index 1)" in texts_of(b)
    # bias=False says what it removes, and the add_bias_kv line (with its bias=True) leaves then
    off = b.beat_of("Our attention layers leave these biases out: in code, bias=False.")
    assert "→ no extra scalars" in texts_of(b)
    shown = b.changes_in(off)
    assert "FadeIn" in kinds(shown) and "FadeOut" in kinds(shown)
    # add_bias_kv glossed in its own beat (PyTorch: a bias row added to the key and value sequences)
    assert "(appends a learned row to K and to V)" in texts_of(b)
    # the four sums in the lesson's letters: e for a token row, [m¹|m²] for the joined messages
    assert {"q = e·W_Q + b_Q", "Δe = [m¹|m²]·W_O + b_O"} <= texts_of(b)
    c = b.scene.counts
    assert c.code.frame.width == pytest.approx(c.code_off.frame.width)       # the box stays put
    assert c.code_off.get_center() == pytest.approx(c.code.get_center(), abs=0.2)
    off = b.beat_of("in code, bias=False")
    assert "Create" in kinds(b.changes_in(off))
    assert len(b.scene.crosses) == 5           # query, key, value and output offsets, and the 16
    # counts in white, not the receiver's yellow
    for tag in ("in_proj_bias", "out_proj.bias", "total"):
        (m,) = b.all_with_tag(tag)
        assert m.color.to_hex().upper() != RECEIVER_COLOR.upper()


def test_copy_into_pytorch_is_drawn():
    b = built(BiasesAndLibraryLayer, "river")
    texts = texts_of(b)
    for label in ("in_proj_weight", "out_proj.weight", "[12, 4]", "[W_Q¹ | W_Q²]ᵀ", "W_Oᵀ"):
        assert label in texts, label
    beat = b.beat_of("We copy our parameters into PyTorch")
    assert "ReplacementTransform" in kinds(b.changes_in(beat))
    # three [4, 4] blocks stacked make in_proj_weight's 12 rows
    slots = b.scene.copy_picture.slots
    assert slots[0].height * 3 == pytest.approx(slots[0].height + slots[1].height + slots[2].height)
    assert slots[2].get_bottom()[1] == pytest.approx(slots[0].get_top()[1] - 3 * slots[0].height)


def test_measured_differences_are_said_as_a_person_says_them():
    b = built(BiasesAndLibraryLayer, "river")
    diffs = b.scene.parity["max_abs_weight_diff"]
    beat = b.beat_of("Both heads’ weights differ by at most")
    if all(0 < d < 1e-15 for d in diffs) and len({f"{d:.0e}" for d in diffs}) == 1:
        # alike at one digit: said once, "each"
        assert beat.spoken.startswith("Both heads' weights differ by at most about") and beat.spoken.endswith(" each.")
        assert "times ten to the minus" in beat.spoken or "about ten to the minus" in beat.spoken
    assert not re.search(r"\de-|\d e minus", beat.spoken)
    # the caption writes a value once when the heads' differences show alike
    from lesson_data.display import fmt_sci
    shown = [fmt_sci(d) for d in diffs]
    if len(set(shown)) == 1 and any(diffs):
        assert beat.text == f"Both heads’ weights differ by at most {shown[0]} each."
        assert beat.text.count(shown[0]) == 1


def test_heat_maps_have_a_key():
    b = built(BiasesAndLibraryLayer, "river")
    assert "brightness = weight:" in texts_of(b)
    assert "FadeIn" in kinds(b.changes_in(b.beat_of("returns each head’s weights separately")))


def test_recap_prefix_fills_its_blank_and_the_ids_come_with_tokenize():
    b = built(RecapAndLoop, "river")
    # the prefix with its blank from the first beat; the prediction fills it in its own sentence
    assert "ReplacementTransform" in kinds(b.changes_in(b.beat_of("For the river sentence")))
    assert b.scene.filled.original_text == "water"
    # VOCAB: the 0, fisherman 1, sat 2, beside 3, river 4, bank 5, and 6, watched 7 (by hand)
    ids = b.by_tag("token_id")
    assert [ids[k].value for k in range(10)] == [0, 1, 2, 3, 0, 4, 5, 6, 7, 0]
    tokenize = b.beat_of("tokenize the prefix once")
    assert "token_id" in {m.tag for m in b.numbers_in(tokenize)}
    assert "ReplacementTransform" in kinds(b.changes_in(tokenize))          # the diagram shrinks into run
    run = b.scene.cycle.run[0]
    mini = b.scene.mini
    assert run.get_left()[0] < mini.get_left()[0] and mini.get_right()[0] < run.get_right()[0]
    # water's ID (12) joins the prefix in the last beat
    (new,) = b.all_with_tag("new_token_id")
    assert new.value == 12
    assert "new_token_id" in {m.tag for m in b.numbers_in(b.beats[-1])}
    # choose shows its word and probability in its own beat (the worksheet's: water 0.610) ...
    choose = b.beat_of("Choose the next token, and append it.")
    assert "p_chosen" in {m.tag for m in b.numbers_in(choose)}
    (p,) = b.all_with_tag("p_chosen")
    assert p.original_text == "0.610"
    # ... and the appended word is marked as the next receiver: row 11 = ten prefix rows + 1
    (row,) = b.all_with_tag("next_row")
    assert row.value == 11
    assert "next_row" in {m.tag for m in b.numbers_in(b.beats[-1])}
    assert b.scene.receiver_mark[0].color.to_hex().upper() == RECEIVER_COLOR.upper()
    # "parameters remain fixed" heads the loop (with "inference"), outside its circle
    heading = b.scene.inference_title
    assert [t.original_text for t in heading] == ["inference", "parameters remain fixed"]
    assert heading.get_right()[0] < b.scene.cycle.nodes[2].get_left()[0]


def test_recap_training_colours_and_shapes():
    from scenes.style import NEGATIVE_COLOR

    b = built(RecapAndLoop, "river")
    t = b.scene.training
    dashes = [m for m in t.back.get_family() if type(m).__name__ == "DashedLine"]
    from scenes.chapter2.library_and_recap import GRADIENT_COLOR

    # the gradient has a colour of its own: no head's, not the receiver's, not the orange-looking vermillion
    taken = {head_color(1), head_color(2), head_color(3), RECEIVER_COLOR, NEGATIVE_COLOR}
    assert GRADIENT_COLOR.upper() not in {c.upper() for c in taken}
    assert dashes and all(m.get_stroke_color().to_hex().upper() == GRADIENT_COLOR.upper() for m in dashes)
    # hue far from head 2's orange (#E69F00, about 41°): a red (by hand, #E8455A is about 353°)
    import colorsys

    hue = colorsys.rgb_to_hsv(*(int(GRADIENT_COLOR[i:i + 2], 16) / 255 for i in (1, 3, 5)))[0] * 360
    assert hue > 340 or hue < 10
    # the learners are outlined, not tinted, in the loss's beat
    back_beat = b.beat_of("The loss flows back and updates every parameter")
    assert "Indicate" not in kinds(b.changes_in(back_beat))
    assert t.target[0].color.to_hex().upper() != RECEIVER_COLOR.upper()
    # the example target is the training text's word, not the model's guess (river predicts
    # "water"; the example is the runner-up "boats", by the worksheet's probabilities), and the
    # predicted word leaves the blank in the target's beat
    assert "target: the observed next token (e.g. “boats”)" in texts_of(b)
    assert not any("“water”" in t for t in texts_of(b) if t.startswith("target:"))
    target_beat = b.beat_of("In training, the word that really comes next is the target")
    assert "FadeOut" in kinds(b.changes_in(target_beat))
    assert "from the training text, not the model’s output" in texts_of(b)
    # what that target costs, on screen in its own beat: the worksheet gives "boats" 0.1925 (river's
    # runner-up), and cross-entropy is -ln 0.1925 = 1.648 (e^-1.648 = 0.1925, by hand); shown with
    # three places, -ln 0.192 would read 1.650, so p keeps four (panel D, stop 37)
    cost = b.beat_of("If it is “boats”")
    assert cost.text == "If it is “boats”, the model gave it 0.1925, so the loss is −ln 0.1925 = 1.648."
    assert [m.original_text for m in b.all_with_tag("target_p")] == ["0.1925", "0.1925"]
    assert {"target_p", "target_loss"} <= {m.tag for m in b.numbers_in(cost)}
    (loss,) = b.by_tag("target_loss").values()
    assert loss.original_text == "1.648" and math.isclose(math.exp(-loss.value), b.by_tag("target_p")[None].value)
    # the rounding line is on screen with it
    assert any("All displayed numbers are rounded" in t and "natural log" in t for t in texts_of(b))
    # training's numbers leave before inference: nothing of the cost line is on the last frame
    on_stage = {id(m) for m in b.scene.mobjects for m in m.get_family()}
    assert not any(id(m) in on_stage for m in b.scene.target_cost.get_family())
    # the upward gradient into the MLP and the downward logits arrow stay apart
    assert abs(t.back[3][0].get_start()[0] - t.logit_arrow.get_start()[0]) >= 0.35
    # the MLP's matrices and the last row's shape appear with the MLP
    mlp = b.beat_of("Its last row goes through the prediction MLP")
    shown = {c.what for c in b.changes_in(mlp)}
    assert shown
    for label in ("W1 [4, 8]", "W2 [8, 20]", "[1, 4]"):
        assert label in texts_of(b), label
    # the notes' repeat-diagram caveat only in the first beat
    assert "FadeOut" in kinds(b.changes_in(b.beat_of("goes into both heads")))


def test_target_cost_reads_as_one_evenly_spaced_line():
    """p(“boats”) = 0.192, so the loss is −ln 0.192 = 1.648: no word pair further apart than the
    line's own spacing (0.1; the old line left 0.18 after "−ln"), and the "=" before the loss at the
    digits' height (it sat on their baseline, below the middle of 1.648)."""
    line = get_target_cost("boats", 0.1925, 1.6475)
    gaps = [b.get_left()[0] - a.get_right()[0] for a, b in zip(line, line[1:])]
    assert max(gaps) <= 0.12, gaps
    equals, loss = line[4], line[5]
    assert abs(equals.get_center()[1] - line[3].get_center()[1]) < 0.01
    assert equals.get_bottom()[1] > loss.get_bottom()[1] + 0.03


def test_the_loss_runs_back_along_each_way_into_the_block_that_learns():
    """Panel (stop 35): the dashed backflow stood still. A pulse of the loss now travels each way from
    the loss into one learning block (both heads, E, W_O, the MLP), ending at that block's foot; and the
    diagram, alone on screen at first, rises to make room for the training panel."""
    b = built(RecapAndLoop, "river")
    scene = b.scene
    beat = b.beat_of("The loss flows back and updates every parameter")
    t = scene.training
    assert sum(c.what.count("MoveAlongPath") for c in b.changes_in(beat)) == len(t.routes) == 5
    d = scene.diagram
    feet = {"E": d.e_box, "head 1": d.heads[0], "head 2": d.heads[1], "W_O": d.w_o, "MLP": d.mlp}
    for name, block in feet.items():
        ends = [r.get_end() for r in t.routes
                if block.get_left()[0] <= r.get_end()[0] <= block.get_right()[0]
                and abs(r.get_end()[1] - block.get_bottom()[1]) < 0.2]
        assert ends, f"no pulse ends under {name}"
    rise = [s for s in b.transitions if "diagram rises" in s.name]
    assert len(rise) == 1
