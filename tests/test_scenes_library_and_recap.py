"""Chapter 2, scenes 16–17 (BiasesAndLibraryLayer, RecapAndLoop): they build without LaTeX, and every
number on screen is the data layer's number under the display rule — for both sentences. The bias
row, the 16 extra scalars and the parity figures are also checked against a second method (numpy by
hand, the shapes of a real torch layer, a fresh parity run)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lesson_data.display import fmt, fmt_sci
from lesson_data.worksheet import B_Q_ILLUSTRATION, W_Q1, bias_illustration, compute_worksheet
from scenes.chapter2.library_and_recap import (
    BiasesAndLibraryLayer,
    RecapAndLoop,
    SciNumberText,
    get_inference_cycle,
)
from scenes.style import BACKGROUND, head_color
from tests.scene_harness import assert_builds_cleanly, blend, built

SENTENCES = ("river", "cheque")


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


def said(b) -> str:
    return " ".join(s[2] for s in b.subcaptions)


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("scene_cls", [BiasesAndLibraryLayer, RecapAndLoop], ids=lambda c: c.__name__)
def test_scene_builds_cleanly(scene_cls, sentence):
    b = built(scene_cls, sentence)
    assert_builds_cleanly(b, min_sections=2, min_subcaptions=4)


# ------------------------------------------------------------------ BiasesAndLibraryLayer


@pytest.mark.parametrize("sentence", SENTENCES)
def test_bias_row_is_the_data_layers(sentence):
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
    assert [b.by_tag("q_without")[(0, k)].original_text for k in range(2)] == ["2.300", "2.300"]
    assert [b.by_tag("b_Q")[(0, k)].original_text for k in range(2)] == ["0.200", "-0.100"]
    assert [b.by_tag("q_with")[(0, k)].original_text for k in range(2)] == ["2.500", "2.200"]


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
    for item in ("position rows", "the residual E′ = E + ΔE", "the vocabulary classifier (prediction MLP)",
                 "attn_mask = future"):
        assert item in texts, item
    code_texts = [t for t in b.texts if "nn.MultiheadAttention(" in t.original_text]
    code = " ".join(t.original_text for t in code_texts)
    assert "average_attn_weights=False" in code and "attn_mask=future" in code and "bias=True" in code
    assert len(code_texts) == 2 and all(t.font == "DejaVu Sans Mono" for t in code_texts)
    words = said(b)
    for sentence in ("A projection bias is shared across token positions (and batches).",
                     "Position embeddings depend on the position, so these are different operations.",
                     "16 additional trainable scalars.",
                     "The library layer does not add position embeddings, the residual or the vocabulary classifier.",
                     "attn_mask=future blocks future sources.",
                     "not how the head messages combine."):
        assert sentence in words, sentence
    assert "b_Q (illustrative)" in texts


def test_bias_highlight_marks_the_most_shifted_source():
    b = built(BiasesAndLibraryLayer, "river")
    bias = b.scene.bias
    j = b.scene.biggest_shift
    assert b.scene.ws.tokens[j] == "river"   # 0.718 -> 0.767, the largest move (worked from the data)
    assert j == int(np.argmax(np.abs(bias.weights_with - bias.weights_without)))


def test_bias_last_frame_colours_the_two_heads_parity_rows():
    b = built(BiasesAndLibraryLayer, "river")
    for k, label in enumerate(b.scene.parity_table.labels[1:]):
        # some pixel of the label carries its head's colour
        left, right = label.get_left()[0], label.get_right()[0]
        y = label.get_y()
        colours = [b.pixel((x, y)) for x in np.linspace(left, right, 60)]
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
    assert {"tokenize", "run", "choose", "append", "training", "inference"} <= texts
    assert "target: the observed\nnext-token ID" in texts
    words = said(b)
    assert "This repeats the same two-head diagram after the detailed arithmetic" in words
    assert "At training time, the observed next-token ID is the target for the vocabulary logits." in words
    assert "The worksheet uses ten rows of width four." in words


def test_inference_cycle_runs_clockwise_between_the_boxes():
    cycle = get_inference_cycle(compute_worksheet("river"))
    nodes = cycle.nodes
    for k, arc in enumerate(cycle.arcs):
        start, end = arc.get_start(), arc.get_end()
        a, nxt = nodes[k][0], nodes[(k + 1) % 4][0]
        # each arc leaves node k and arrives near node k+1, outside both boxes
        assert np.linalg.norm(start - a.get_center()) < np.linalg.norm(start - nxt.get_center())
        assert np.linalg.norm(end - nxt.get_center()) < np.linalg.norm(end - a.get_center())
        for box in (a, nxt):
            for point in (start, end):
                inside = (abs(point[0] - box.get_x()) < box.width / 2 and abs(point[1] - box.get_y()) < box.height / 2)
                assert not inside


def test_recap_last_frame_shows_the_concat_in_head_colours():
    b = built(RecapAndLoop, "river")
    concat = b.scene.diagram.concat
    halves = [m for m in concat.submobjects[:2]]
    for half, index in zip(sorted(halves, key=lambda m: m.get_x()), (1, 2)):
        want = blend(head_color(index), BACKGROUND, 0.6)
        assert np.abs(b.pixel(half.get_center()) - want).max() <= 3
