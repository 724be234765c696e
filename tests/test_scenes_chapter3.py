"""Chapter 3, scenes 18–20 (ThreeArchitectures, TheComparison, InsideTrainedModels).

They build cleanly in beats; every number on screen is the committed exports' number under the display
rule (means and sample standard deviations recomputed here from runs[] with statistics, parameter counts
from the protocol formula, attention weights read straight from attention.json); the picture a sentence
names plays in that sentence's beat; a missing export stops a scene with a message naming the file.
"""
from __future__ import annotations

import copy
import json
import math
import re
import shutil
import statistics

import numpy as np
import pytest
from manim import ManimColor, Scene

from lesson_data import comparison
from lesson_data.display import fmt, fmt_int
from scenes import chapter3_trained_models as ch3
from scenes.blocks.heat_map import FUTURE_COLOR, HEAT_LEVELS, get_heat_map, level_hex, level_rgb
from scenes.blocks.attention_arrows import get_attention_arrows
from scenes.chapter3_trained_models import InsideTrainedModels, TheComparison, ThreeArchitectures, fold_gap_arrows
from scenes.style import BACKGROUND, CountText, LessonScene
from tests.scene_harness import assert_builds_cleanly, build_scene, built, hex_to_rgb

SCENES = (ThreeArchitectures, TheComparison, InsideTrainedModels)
MODELS = ("mlp", "one_head", "four_heads")


def results():
    return comparison.load_results()


def runs_of(res, model):
    return sorted((r for r in res["runs"] if r["model"] == model), key=lambda r: r["seed"])


def counts(b, tag):
    """{index: CountText} of the whole numbers on screen with this tag."""
    return {t.index: t for t in b.numbers if isinstance(t, CountText) and t.tag == tag}


def fine_print(b) -> set:
    """The sentences shown as fine print (get_fine_print keeps the unwrapped sentence)."""
    return {t.sentence for t in b.texts if getattr(t, "sentence", None)} - {bt.text for bt in b.beats}


def said(b) -> str:
    return " ".join(bt.text for bt in b.beats)


def kinds(changes) -> str:
    return " ".join(c.what for c in changes)


def protocol_parameters(p, model):
    """The parameter count written out from the layer list (weights and biases)."""
    V, T, C, H = p["vocab_size"], p["context"], p["d_model"], p["d_hidden"]
    embedding = V * C
    vocabulary_layer = H * V + V
    if model == "mlp":                                   # Linear(4096 -> 256) on the concatenated rows
        return embedding + (T * C * H + H) + vocabulary_layer
    attention = 4 * C * C                                # W_Q, W_K, W_V, W_O, no bias, any head count
    return embedding + T * C + attention + (C * H + H) + vocabulary_layer


# ------------------------------------------------------------------------------------ all scenes


@pytest.mark.parametrize("scene_cls", SCENES, ids=lambda c: c.__name__)
def test_scene_builds_cleanly(scene_cls):
    b = built(scene_cls)
    assert_builds_cleanly(b, min_sections=3, min_beats=12)
    for t in b.numbers:                                   # every whole number shown with separators is fmt_int's
        if isinstance(t, CountText):
            assert t.original_text == fmt_int(t.value)
    assert not any("locally" in t.original_text for t in b.texts)


@pytest.mark.parametrize("scene_cls, missing", [(ThreeArchitectures, "results.json"),
                                                (TheComparison, "results.json"),
                                                (InsideTrainedModels, "attention.json")],
                         ids=lambda v: getattr(v, "__name__", v))
def test_a_missing_export_stops_the_scene_naming_the_file(scene_cls, missing, tmp_path, monkeypatch):
    monkeypatch.setattr(comparison, "EXPORTS", tmp_path)
    played = []
    original = Scene.play
    monkeypatch.setattr(Scene, "play", lambda self, *a, **k: (played.append(a), original(self, *a, **k))[1])
    with pytest.raises(comparison.MissingExportError) as err:
        build_scene(scene_cls)
    assert str(tmp_path / missing) in str(err.value)
    assert "python -m trainer export" in str(err.value)
    assert played == []                                   # stopped at construct() start: nothing shown


def test_inside_trained_models_names_a_missing_continuations_file(tmp_path, monkeypatch):
    shutil.copy(comparison.EXPORTS / "attention.json", tmp_path / "attention.json")
    monkeypatch.setattr(comparison, "EXPORTS", tmp_path)
    with pytest.raises(comparison.MissingExportError, match="continuations.json"):
        build_scene(InsideTrainedModels)


# --------------------------------------------------------------------------- ThreeArchitectures


def test_protocol_formula_matches_the_recorded_counts():
    res = results()
    p = res["protocol"]
    assert protocol_parameters(p, "mlp") == 2_332_832
    assert protocol_parameters(p, "one_head") == protocol_parameters(p, "four_heads") == 1_321_120
    for model in MODELS:
        for run in runs_of(res, model):
            assert run["parameters"] == protocol_parameters(p, model)


def test_three_architectures_keeps_all_three_counts_on_screen_together():
    p = results()["protocol"]
    b = built(ThreeArchitectures)
    shown = counts(b, "parameters")
    assert set(shown) == set(MODELS)
    for model in MODELS:
        assert shown[model].value == protocol_parameters(p, model)
        assert shown[model].original_text == fmt_int(protocol_parameters(p, model))
    # the three lanes and their counts are all on screen at the end
    on_screen = {id(m) for top in b.scene.mobjects for m in top.get_family()}
    assert all(id(shown[m]) in on_screen for m in MODELS)
    # each count appears in the beat that says it ("2.33 million", "1.32 million"), not earlier
    for model, words in (("mlp", "2.33 million parameters"), ("one_head", "1.32 million parameters, against"),
                         ("four_heads", "1.32 million parameters again")):
        assert shown[model] in b.numbers_in(b.beat_of(words))


def test_three_architectures_parameter_parts_by_hand():
    p = results()["protocol"]
    b = built(ThreeArchitectures)
    for model in ("mlp", "one_head", "four_heads"):
        parts = [t.value for _, t in sorted(counts(b, f"part_{model}").items())]
        assert sum(parts) == protocol_parameters(p, model)
    C = p["d_model"]
    # the baseline's first matrix against the attention models' prediction-MLP input, by hand
    assert counts(b, "part_mlp")[1].original_text == "1,048,832"          # 4096 * 256 + 256
    assert counts(b, "part_one_head")[3].original_text == "16,640"        # 64 * 256 + 256
    assert counts(b, "part_one_head")[2].value == 4 * C * C == 16_384
    bars = b.scene.bars
    # bar lengths are proportional to the counts (2,332,832 : 1,321,120)
    ratio = bars["mlp"].segments.width / bars["one_head"].segments.width
    assert ratio == pytest.approx(2_332_832 / 1_321_120, rel=0.02)
    assert "4,096 × 256 + 256" in {t.original_text for t in b.texts}
    # each model's diagram folds into its own bar (not wiped, then bars grown on an empty stage)
    folds = kinds(b.changes_in(b.beat_of("Where do the parameters go?")))
    assert folds.count("ReplacementTransform") == len(bars) and "GrowFromEdge" not in folds
    assert "Create" in kinds(b.changes_in(b.beat_of("first layer alone")))
    # the voice says one rounded number there (4,096 × 256 + 256 = 1,048,832: about 1 million);
    # the exact product stays on screen
    first = b.beat_of("first layer alone")
    assert "about 1 million parameters" in first.text
    assert not any(ch.isdigit() for ch in first.text.replace("1 million", ""))


def test_three_architectures_labels_the_real_shapes_and_the_reshape():
    p = results()["protocol"]
    T, C, H, V, h = p["context"], p["d_model"], p["d_hidden"], p["vocab_size"], p["n_heads_multi"]
    d = C // h
    b = built(ThreeArchitectures)
    texts = {t.original_text for t in b.texts}
    for label in (f"[{T}, {C}]", f"[1, {fmt_int(T * C)}]", f"[1, {fmt_int(H)}]", f"[1, {fmt_int(V)}]",
                  f"{fmt_int(T * C)}→{fmt_int(H)}", f"{fmt_int(H)}→{fmt_int(V)}", f"each [{T}, {C}]",
                  f"[1, {C}]", f"QʰKʰᵀ\n/ √{d}", f"{h} × [{T}, {d}]", f"[{T}, {C}] = {h} × {d} features",
                  "Q = E · W_Q", f"Q [{C}, {C}]", f"K, V: all {T} rows", "· W_O + E", "position rows"):
        assert label in texts, label
    flow = b.scene.four_head_flow
    assert len(flow.qkv.blocks) == h == len(flow.h.blocks)                    # the columns cut into heads
    assert [blk.get_fill_color().to_hex().upper() for blk in flow.qkv.blocks] == \
        [c.upper() for c in ch3.FOUR_HEAD_COLORS[:h]]
    # one head's query columns read every feature of E: head 1's [64, 16] block of W_Q lit (head 1's colour,
    # a quarter of W_Q's width), E outlined whole, the block carried up into Q's first column block
    wq = b.scene.wq_blocks
    assert len(wq.blocks) == h
    assert wq.blocks[0].width == pytest.approx(wq.frame.width * d / C)
    assert wq.blocks[0].get_fill_color().to_hex().upper() == ch3.FOUR_HEAD_COLORS[0].upper()
    assert wq.blocks[0].get_fill_opacity() > 3 * wq.blocks[1].get_fill_opacity()
    assert wq.label.original_text == f"head 1’s block of W_Q:\n{C} features in, [{C}, {d}]"
    assert abs(wq.frame.get_center()[0] - flow.qkv.front.get_center()[0]) < 0.05     # under the Q stack
    assert b.scene.whole_e.width > flow.e.box.width                                  # all of E, not a slice
    beat = b.beat_of("query columns come from its own block of the query matrix")
    assert "every feature of E" in beat.text and f"{d} query columns" in beat.text
    assert "Create" in kinds(b.changes_in(beat)) and "TransformFromCopy" in kinds(b.changes_in(beat))
    # the beat's fine print gives each head's shapes (d = 64 / 4 = 16)
    assert f"Each head has Q, K and V of shape {T}×{d}; its Aʰ is {T}×{T} and its Hʰ = AʰVʰ is {T}×{d}." \
        in " ".join(fine_print(b))
    # the arrow into head 1's chain arrives with the chain, not a beat early
    assert "GrowArrow" in kinds(b.changes_in(b.beat_of("Follow head 1")))
    assert "GrowArrow" not in kinds(b.changes_in(b.beat_of("then the 64 columns it made are cut")))
    # the projection E · W_Q [64, 64] is named in the sentence that says it, before the cut
    cut = b.beat_of("then the 64 columns it made are cut")
    assert "Indicate" in kinds(b.changes_in(cut)) and "ReplacementTransform" in kinds(b.changes_in(cut))
    # the final query marks Q's, A's and H's last rows only; K and V are labelled whole, in that beat
    final = b.beat_of("only the last row is needed")
    assert len(b.scene.final_row) == 3 and "FadeIn" in kinds(b.changes_in(final))
    # the four-head lane computes only the final query too: Q's back card, Qʰ's and Aʰ's last rows, the joined H
    assert len(b.scene.four_final_row) == 4
    assert "LaggedStart" in kinds(b.changes_in(b.beat_of("W_O mixes them, and the rest is as before")))
    one = b.scene.one_head_flow
    assert b.scene.final_row[0].get_center()[0] < one.qkv.front.get_center()[0]      # on the back card (Q)
    # the concatenated row's slots are numbered at both ends (1 and 64) when the sentence names the slots
    slots = counts(b, "slot")
    assert {k: m.value for k, m in slots.items()} == {1: 1, T: T}
    assert all(m in b.numbers_in(b.beat_of("The order of the slots")) for m in slots.values())
    # E keeps the token rows' and position rows' stripes
    for e in (one.e, flow.e):
        assert len(e.stripes) == 2 and len(e.stripes[0]) == T == len(e.stripes[1])
    # E is made from the token rows plus the position rows, in its own beat
    assert "ReplacementTransform" in kinds(b.changes_in(b.beat_of("plus a learned position row")))
    notes = fine_print(b)
    for sentence in ("The fixed concatenation order already distinguishes slots. This baseline has no separate "
                     "learned position table.",
                     "Implementations do not assign disjoint slices of raw E to different heads: each head's "
                     "block of W_Q reads every coordinate of E.",
                     "Its larger first MLP matrix helps explain its parameter count."):
        assert sentence in notes


def test_three_architectures_names_the_token_and_feature_axes():
    """context = d_model = 64, so E, Q, K, V, A and H all read [64, 64]: the words say which axis is which."""
    p = results()["protocol"]
    assert p["context"] == p["d_model"] == 64                 # why the labels are needed at all
    b = built(ThreeArchitectures)
    one = b.scene.one_head_flow
    notes = b.scene.axis_notes
    # rows are tokens everywhere; columns are features for E, Q/K/V and H, tokens for A
    expected = [(one.e, "tokens ×\nfeatures"), (one.qkv, "tokens ×\nfeatures"), (one.a, "tokens ×\ntokens"),
                (one.h, "tokens ×\nfeatures")]
    assert len(notes) == len(expected)
    for note, (stage, text) in zip(notes, expected):
        assert note.original_text == text
        assert abs(note.get_center()[0] - stage.box.get_center()[0]) < 0.05       # under its own box
        assert note.get_top()[1] < stage.shape_label.get_bottom()[1]             # under its shape label
    for a, c in zip(notes, notes[1:]):                                             # side by side, apart
        assert a.get_right()[0] < c.get_left()[0]
    # E's, Q/K/V's and A's words come in the beat that names the attention matrix "token against token"
    beat = b.beat_of("token against token")
    assert "64 features for each token" in beat.text
    assert kinds(b.changes_in(beat)).count("FadeIn") >= 3
    # in the four-head lane head 1's scores (then Aʰ) and the joined H carry the words themselves
    four = b.scene.four_head_flow
    assert four.heads.s_shape.original_text == "[64, 64]\ntokens ×\ntokens"
    assert four.h.shape_label.original_text == "[64, 64] = 4 × 16 features"
    # and the lane still fits the frame
    from scenes.style import SAFE_WIDTH
    assert four.get_right()[0] <= SAFE_WIDTH / 2 + 0.25


def test_three_architectures_draws_one_heads_chain_to_scale_and_by_motion():
    """Head 1's chain as its own stages before the heads join: Qʰ [T, d] beside the scores and Kʰᵀ [d, T]
    above them, QʰKʰᵀ / √d [T, T] (tokens × tokens), masked and softmaxed in place into Aʰ, · Vʰ [T, d],
    into H's first column block (Hʰ = AʰVʰ [T, d]), then every head's block side by side: H [T, C]."""
    p = results()["protocol"]
    T, C, n = p["context"], p["d_model"], p["n_heads_multi"]
    d = C // n                                               # the head width, by hand: 64 / 4 = 16
    assert d * n == C
    b = built(ThreeArchitectures)
    flow = b.scene.four_head_flow
    ch, h, e = flow.heads, flow.h, flow.e
    # the shapes as written
    assert ch.q_shape.original_text == f"[{T}, {d}]"
    assert ch.kt_shape.original_text == f"[{d}, {T}]"
    assert ch.s_shape.original_text.startswith(f"[{T}, {T}]\ntokens")
    assert ch.v_name.original_text == "Vʰ" and ch.v_shape.original_text == f"[{T}, {d}]"
    assert ch.s_text.original_text == f"QʰKʰᵀ\n/ √{d}" and ch.a_text.original_text == "Aʰ"
    assert h.head_name.original_text == f"Hʰ = AʰVʰ\n[{T}, {d}]"
    # ... and as drawn, to the lane's scale: E is [T, C]; a [T, d] block is d / C of its width, T rows high
    unit_w, unit_h = e.box.width / C, e.box.height / T
    for rect, (rows, cols) in ((ch.q, (T, d)), (ch.kt, (d, T)), (ch.s, (T, T)), (ch.v, (T, d))):
        assert rect.width == pytest.approx(cols * unit_w, abs=0.01)
        assert rect.height == pytest.approx(rows * unit_h, abs=0.01)
    assert ch.q.width == pytest.approx(flow.qkv.blocks[0].width, abs=0.01)       # the block that slid out
    assert all(blk.width == pytest.approx(ch.v.width, abs=0.01) for blk in h.blocks)  # n messages, d wide
    assert len(h.blocks) == n and sum(blk.width for blk in h.blocks) == pytest.approx(h.box.width, abs=0.01)
    # laid out as the product multiplies: Qʰ's rows left of the scores, Kʰᵀ's columns above them
    assert ch.q.get_right()[0] < ch.s.get_left()[0] and ch.q.get_top()[1] == pytest.approx(ch.s.get_top()[1])
    assert ch.kt.get_bottom()[1] > ch.s.get_top()[1] and ch.kt.get_left()[0] == pytest.approx(ch.s.get_left()[0])
    # in order along the lane: Q stack, the chain, H, then e′
    assert flow.qkv.box.get_right()[0] < ch.q_shape.get_left()[0]
    assert ch.v.get_right()[0] < h.box.get_left()[0] < flow.last.box.get_left()[0]
    # the objects change by motion: the block slides out of Q (a transform of a copy), Qʰ and Kʰᵀ sweep into
    # the scores; the scores become Aʰ in place; Aʰ and Vʰ go into H's block; each other head's too
    scores = kinds(b.changes_in(b.beat_of("Follow head 1")))
    assert scores.count("ReplacementTransform") >= 2 + 1          # Qʰ, Kʰᵀ (and the Q stack's name back)
    message = kinds(b.changes_in(b.beat_of("Masked and softmaxed")))
    assert re.search(r"\bTransform\b", message) and "TransformFromCopy" in message
    join = kinds(b.changes_in(b.beat_of("Every head does the same")))
    # (head 1's name cross-fades into H's shape label: a glyph morph between two texts garbled, panel E)
    assert join.count("TransformFromCopy") == n - 1 and "FadeTransform" in join
    # the lane still fits the frame, and head 1's chain stays clear of the one-head lane above
    from scenes.style import SAFE_WIDTH
    assert flow.get_right()[0] <= SAFE_WIDTH / 2 + 0.02
    assert ch.get_top()[1] < b.scene.one_head_flow.get_bottom()[1]


def test_three_architectures_widths_read_as_totals():
    """'Our two-head toy used width 4' must not read as a per-head width: two heads of width 2, 4 in all."""
    b = built(ThreeArchitectures)
    toy, model = counts(b, "toy_width"), counts(b, "model_width")
    assert (toy["heads"].value, toy["width"].value, toy["total"].value) == (2, 2, 4)
    assert (model["heads"].value, model["width"].value, model["total"].value) == (4, 16, 64)
    assert "2 heads of width 2, 4 in total" in said(b)


# ---------------------------------------------------------------------------------- TheComparison


def assert_spread_on_screen(b, res, key, places):
    for model in MODELS:
        values = [r[key] for r in runs_of(res, model)]
        mean = statistics.fmean(values)
        shown = b.by_tag(key)[model]
        assert shown.value == pytest.approx(mean, rel=1e-12, abs=1e-12)
        assert shown.original_text == fmt(mean, places)
        stds = b.by_tag(f"{key}_std")
        if len(values) >= 2:
            std = statistics.stdev(values)
            assert stds[model].value == pytest.approx(std, rel=1e-9, abs=1e-12)
            assert stds[model].original_text == fmt(std, places)
        else:
            assert model not in stds                       # no spread from a single seed


def test_comparison_shows_losses_perplexities_and_times_of_the_committed_file():
    res = results()
    b = built(TheComparison)
    assert_spread_on_screen(b, res, "test_loss", 3)
    assert_spread_on_screen(b, res, "test_perplexity", 2)
    assert_spread_on_screen(b, res, "train_seconds", 0)
    for model in MODELS:
        assert counts(b, "parameters")[model].value == protocol_parameters(res["protocol"], model)
    for run in res["runs"]:                  # perplexity is exp(cross-entropy) in every run (a second route)
        assert run["test_perplexity"] == pytest.approx(math.exp(run["test_loss"]), rel=1e-9)
    texts = {t.original_text for t in b.texts}
    assert f"wall time on {res['device']}, torch {res['torch_version']}" in texts
    # worked by hand: four heads 3.290372 / 3.302026 / 3.286424 -> 3.292941 -> "3.293"
    assert b.by_tag("test_loss")["four_heads"].original_text == "3.293"
    assert b.by_tag("test_loss")["one_head"].original_text == "3.357"


def test_comparison_opens_on_the_nine_runs_not_a_text_slide():
    b = built(TheComparison)
    first = b.beats[0]
    assert "seeds 11, 29 and 47" in first.text
    grid = b.scene.grid
    assert [[t.seed for t in row] for row in grid.tiles] == [[11, 29, 47]] * 3
    assert not any("in this file" in t.original_text for t in b.texts)
    assert {c.value for c in counts(b, "seed").values()} == {11, 29, 47}


def test_comparison_curves_are_the_exported_traces():
    res = results()
    b = built(TheComparison)
    split = res["protocol"]["eval_every"]
    drawn = {"full": b.scene.full_points, "zoomed": [c.late.points for c in b.scene.curves],
             "target": [c.late.points for c in b.scene.zoom_curves]}
    for view, plot in (("full", b.scene.plot), ("zoomed", b.scene.zoom), ("target", b.scene.zoom)):
        curves = b.scene.curves if view != "target" else b.scene.zoom_curves
        assert len(curves) == len(res["runs"])
        for curve, run, points in zip(curves, res["runs"], drawn[view]):
            assert (curve.model, curve.seed) == (run["model"], run["seed"])
            trace = [(t["step"], t["selection_loss"]) for t in run["trace"] if t["step"] >= split]
            # points: cubic segments, 4 control points each
            corners = [*points[::4], points[-1]]
            got = [plot.p2c(pt) for pt in corners]
            assert len(got) == len(trace)
            for (x, y), (step, loss) in zip(got, trace):
                assert x == pytest.approx(step, abs=1e-6) and y == pytest.approx(loss, abs=1e-9)
            kept = next(t for t in run["trace"] if t["step"] == run["selected_step"])
            if view != "full":                              # the dots moved with the zoom
                assert plot.p2c(curve.dot.get_center()) == pytest.approx((kept["step"], kept["selection_loss"]))
            assert kept["selection_loss"] == min(t["selection_loss"] for t in run["trace"])


def test_comparison_zoom_is_an_axes_change_in_its_own_beat():
    res = results()
    b = built(TheComparison)
    zoom, full = b.scene.zoom, b.scene.plot
    assert full.x_range == (0, res["protocol"]["steps"])
    assert zoom.x_range[0] == res["protocol"]["eval_every"] > 0            # the zoomed x axis does not start at 0
    lo, hi, _ = comparison.loss_range(res, res["protocol"]["eval_every"])
    assert zoom.y_range == (lo, hi)
    beat = b.beat_of("Zoom in, from step")
    changes = kinds(b.changes_in(beat))
    assert "Transform" in changes and "FadeOut" in changes and "FadeIn" in changes
    # the zoom happens in its beat, not during the sentence before it
    before = b.beats[b.beats.index(beat) - 1]
    assert "Transform" not in kinds(b.changes_in(before))
    # every traced point from the split on lies inside the zoomed frame
    for run in res["runs"]:
        for t in run["trace"]:
            if t["step"] >= zoom.x_range[0]:
                assert lo <= t["selection_loss"] <= hi


def test_comparison_seed_dots_never_cover_each_other():
    b = built(TheComparison)
    dots = [d for band in b.scene.bands for d in band.dots]
    assert len(dots) == 9
    for i, a in enumerate(dots):
        for c in dots[i + 1:]:
            assert np.linalg.norm(a.get_center() - c.get_center()) > a.width, (a.model, a.seed, c.model, c.seed)


def test_comparison_animates_the_key_contrast():
    res = results()
    b = built(TheComparison)
    one = statistics.fmean(r["test_loss"] for r in runs_of(res, "one_head"))
    four = statistics.fmean(r["test_loss"] for r in runs_of(res, "four_heads"))
    gap = b.by_tag("gap")[None]
    assert gap.value == pytest.approx(one - four, abs=1e-12)
    assert gap.original_text == "0.064"                   # 3.357128 - 3.292941 = 0.064187, by hand
    beat = b.beat_of("every four-head run beats every one-head run")
    assert gap in b.numbers_in(beat) and "GrowArrow" in kinds(b.changes_in(beat))
    assert max(r["test_loss"] for r in runs_of(res, "four_heads")) < min(r["test_loss"] for r in runs_of(res, "one_head"))
    same = b.beat_of("exactly the same number of parameters: 1.32 million each")
    assert {counts(b, "dot_parameters")[m].original_text for m in ("one_head", "four_heads")} == {"1,321,120"}
    assert "Transform" in kinds(b.changes_in(same))                         # the second zoom
    assert b.scene.dot_zoom.x_range == (3.28, 3.38)


def test_comparison_review_pictures_play_in_their_sentences():
    res = results()
    b = built(TheComparison)
    scene = b.scene
    # one marker per scored state, every eval_every updates, in the sentence that says so
    every = res["protocol"]["eval_every"]
    assert [len(m) for m in scene.marks] == [len(r["trace"]) for r in res["runs"]]
    for run, dots in zip(res["runs"], scene.marks):
        assert [t["step"] for t in run["trace"]] == list(range(every, every * (len(run["trace"]) + 1), every)) or \
            all(b2 - a2 == every for a2, b2 in zip([t["step"] for t in run["trace"]][1:], [t["step"] for t in run["trace"]][2:]))
        for t, d in zip(run["trace"], dots):
            assert scene.plot.p2c(d.get_center()) == pytest.approx((t["step"], t["selection_loss"]))
    measured = kinds(b.changes_in(b.beat_of(f"Every {fmt_int(every)} updates")))
    assert "LaggedStart" in measured
    # the nine run tiles are not wiped: each shrinks into its own run's first point
    assert measured.count("ReplacementTransform") == len(res["runs"])
    # the baseline's early checkpoints are ringed (and stay) in their sentence
    early = b.beat_of("The baseline’s checkpoint comes early")
    assert "LaggedStart" in kinds(b.changes_in(early)) and len(scene.rings) == 3
    # seed labels sit on the side away from their model's mean mark, so the mark never crosses them
    for band in scene.bands:
        x = band.mean.get_center()[0]
        for seed in band.seeds:
            assert not (seed.get_left()[0] < x < seed.get_right()[0]), (band.model, seed.original_text)
    # the zoomed gap arrow clears both means' labels and the seeds
    arrow, number = scene.gap[0], scene.gap[1]
    for band in scene.bands:
        if band.model != "mlp":
            assert arrow.get_bottom()[1] > band.label.get_top()[1] + 0.05
    # the spread bars have their own row and their name
    assert all(bar[1].original_text == "mean ± sd" for bar in scene.stds)
    # the timing caveat sits beside the time column, in the sentence about the times
    assert scene.rough.original_text == "rough: not a speed benchmark"
    assert "FadeIn" in kinds(b.changes_in(b.beat_of("read the wall times loosely")))


def test_chapter_3_calls_the_kept_parameters_checkpoints_in_one_word():
    # the trainer keeps the lowest-selection-loss state as checkpoint.pt and exports those: one thing,
    # one word in what is said and shown (a listener heard "state" and "checkpoint" as two)
    comparison_beats, inside_beats = built(TheComparison).beats, built(InsideTrainedModels).beats
    for beat in (*comparison_beats, *inside_beats):
        for line in (beat.text, beat.spoken):
            assert not re.search(r"\bstates?\b", line), line
    kept = next(bt for bt in comparison_beats if "at its lowest point" in bt.text)
    assert "checkpoint, a copy of its parameters" in kept.spoken
    # "dot" names one thing, the test plot's one dot per run, not also the curve's kept point
    assert "dot" not in kept.spoken and any("one dot per run" in bt.text for bt in comparison_beats)
    assert any("Each checkpoint is then scored once on the test stories" in bt.text for bt in comparison_beats)
    assert any("these checkpoints" in bt.spoken for bt in inside_beats)


def protocol_json():
    return json.loads((comparison.EXPORTS / "protocol.json").read_text())


def test_comparison_shows_each_models_optimizer_where_the_protocol_is_said():
    cfg = protocol_json()["config"]
    b = built(TheComparison)
    # protocol.json, read here: the baseline 1e-3 / 1e-4, both attention models 3e-3 / 1e-3
    assert (cfg["lr"]["mlp"], cfg["weight_decay"]["mlp"]) == (0.001, 0.0001)
    assert cfg["lr"]["one_head"] == cfg["lr"]["four_heads"] == 0.003
    assert cfg["weight_decay"]["one_head"] == cfg["weight_decay"]["four_heads"] == 0.001
    shown = {tag: b.by_tag(tag) for tag in ("lr", "weight_decay")}
    for m in MODELS:
        assert shown["lr"][m].value == cfg["lr"][m] and shown["weight_decay"][m].value == cfg["weight_decay"][m]
    assert shown["lr"]["mlp"].original_text == "0.001" and shown["weight_decay"]["mlp"].original_text == "0.0001"
    assert shown["lr"]["four_heads"].original_text == "0.003"
    beat = b.beat_of("The optimizer is the same, but its settings differ")
    assert "0.001, weight decay 0.0001" in beat.text and "share 0.003 and 0.001" in beat.text
    # by hand from the config: 0.001 < 0.003 and 0.0001 < 0.001, so the voice's "smaller" is true
    assert cfg["lr"]["mlp"] < cfg["lr"]["one_head"] and cfg["weight_decay"]["mlp"] < cfg["weight_decay"]["one_head"]
    assert "smaller learning rate and weight decay" in beat.spoken
    clean = b.beat_of("one head against four heads is the clean comparison")
    assert "position table" in clean.text and "optimizer settings" in clean.text
    # said right after the pair's equal parameter counts, before the gap between them
    same = b.beat_of("exactly the same number of parameters")
    assert b.beats.index(clean) == b.beats.index(same) + 1
    assert b.beats.index(b.beat_of("every four-head run beats every one-head run")) == b.beats.index(clean) + 1
    assert shown["lr"]["mlp"] in b.numbers_in(beat)
    assert b.beats.index(beat) == b.beats.index(b.beat_of("share one protocol")) + 1
    assert "fixed budget of 6,000 updates" in b.beat_of("share one protocol").text
    # each model's settings sit on its own row of runs
    for row, tiles in zip(b.scene.optimizer.rows, b.scene.grid.tiles):
        assert abs(row.get_center()[1] - tiles.get_center()[1]) < 0.05


def test_comparison_explains_loss_and_perplexity_once_with_the_numbers():
    res = results()
    b = built(TheComparison)
    first = b.beat_of("validation loss")
    assert b.beats.index(first) == 3 and "minus the log of the probability" in first.text
    assert "first 20,000 validation windows" in first.text
    ppl = b.beat_of("Perplexity is e to the loss")
    four = statistics.fmean(r["test_perplexity"] for r in runs_of(res, "four_heads"))     # 26.92
    one = statistics.fmean(r["test_perplexity"] for r in runs_of(res, "one_head"))       # 28.71
    assert f"{four:.2f} against {one:.2f}" in ppl.text and "26.92 against 28.71" in ppl.text
    assert f"choosing among about {round(four)} or {round(one)} tokens" in ppl.text
    assert "e to the power of the loss" in ppl.spoken and "about twenty-seven tokens for four heads" in ppl.spoken
    assert sum("e to the" in bt.text for bt in b.beats) == 1


def test_comparison_the_gap_is_said_as_it_can_be_heard_and_against_the_seeds():
    res = results()
    b = built(TheComparison)
    one = statistics.fmean(r["test_loss"] for r in runs_of(res, "one_head"))
    four = statistics.fmean(r["test_loss"] for r in runs_of(res, "four_heads"))
    mlp = statistics.fmean(r["test_loss"] for r in runs_of(res, "mlp"))
    means = b.beat_of("On average")
    # the two attention means are said to three places, so what is heard subtracts to the gap shown
    heard = [round(one, 3), round(four, 3)]
    assert heard == [3.357, 3.293] and round(heard[0] - heard[1], 3) == 0.064 == round(one - four, 3)
    assert "three point three five seven" in means.spoken and "three point two nine three" in means.spoken
    # one rounding rule for all three: the baseline to three places too (3.864), none said "about"
    assert round(mlp, 3) == 3.864 and "the baseline three point eight six four;" in means.spoken
    assert "about" not in means.spoken
    sd = max(statistics.stdev(r["test_loss"] for r in runs_of(res, m)) for m in ("one_head", "four_heads"))
    assert round((one - four) / sd) == 8                              # 0.0642 / 0.0081 = 7.9
    gap = b.beat_of("every four-head run beats every one-head run")
    # measured against the wider of the two spreads, and that model named: against one head's it is 17
    four_sd = statistics.stdev(r["test_loss"] for r in runs_of(res, "four_heads"))
    one_sd = statistics.stdev(r["test_loss"] for r in runs_of(res, "one_head"))
    assert sd == four_sd > one_sd and round((one - four) / one_sd) == 17
    assert "about eight times the seed-to-seed standard deviation of four heads" in gap.text
    assert "own spread" not in gap.text
    assert "Indicate" in kinds(b.changes_in(gap))


def test_comparison_says_why_test_sits_below_the_curves():
    res = results()
    b = built(TheComparison)
    beat = b.beat_of("left of the curves’ rings")
    below = {m: statistics.fmean(r["selection_loss"] - r["test_loss"] for r in runs_of(res, m)) for m in MODELS}
    assert {f"{v:.2f}" for v in below.values()} == {"0.17"}
    assert "about 0.17" in beat.text and "first 20,000 validation windows" in beat.text
    assert res["protocol"]["selection_windows"] == 20000
    # the full-validation diamonds in the next beat of their own
    full = b.beat_of("the diamonds")
    assert b.beats.index(full) == b.beats.index(beat) + 1
    worst = max(abs(statistics.fmean(r["val_loss"] for r in runs_of(res, m))
                    - statistics.fmean(r["test_loss"] for r in runs_of(res, m))) for m in MODELS)
    assert worst < 0.03 and "within 0.03" in full.text                 # 3.8376 vs 3.8645 for the baseline
    # a seed average, said so: one run alone is farther (the baseline's seed 11, 0.033)
    assert max(abs(r["val_loss"] - r["test_loss"]) for r in res["runs"]) > 0.03
    assert "seed average" in full.text and "average over its seeds" in full.spoken
    plot = b.scene.dot_plot
    for mark in b.scene.slice_marks:
        sel = statistics.fmean(r["selection_loss"] for r in runs_of(res, mark.model))
        val = statistics.fmean(r["val_loss"] for r in runs_of(res, mark.model))
        assert plot.p2c(mark.ring.get_center())[0] == pytest.approx(sel, abs=1e-9)
        assert plot.p2c(mark.diamond.get_center())[0] == pytest.approx(val, abs=1e-9)
    assert "120,695" in " ".join(t.original_text for t in b.texts)
    # the average over every window, not a claim about each window
    assert res["corpus"]["targets"]["val"] == 120695
    assert full.text.startswith("Scored over all 120,695 validation windows") and "every validation window" not in full.text
    assert "over the whole validation split" in full.spoken             # the count is on screen, not read out
    # the full plot's axis carries rings and diamonds (validation losses) as well as test dots: "loss"
    assert [t.original_text for t in plot.titles] == ["loss"]
    zoom = b.beat_of("Zoom in on the two attention models")
    assert [t.original_text for t in b.scene.dot_zoom.titles] == ["test loss"]
    assert "FadeTransform" in kinds(b.changes_in(zoom))                # the title changes as the rings leave


def test_comparison_says_the_budget_was_fixed_and_holds_the_table():
    res = results()
    b = built(TheComparison)
    last = [(r["model"], r["seed"]) for r in res["runs"] if r["selected_step"] == res["protocol"]["steps"]]
    assert sorted(last) == [("four_heads", 47), ("one_head", 11), ("one_head", 29), ("one_head", 47)]
    beat = b.beat_of("kept the last step, 6,000")
    assert beat.text.startswith("Every one-head run and one of the three four-head runs")
    assert len(b.scene.budget_rings) == 4
    assert b.beats[-1].look >= 3.0
    assert "the stories each model writes" in b.beat_of("no guarantee").text
    times = b.beat_of("read the wall times loosely")
    secs = {m: [r["train_seconds"] for r in runs_of(res, m)] for m in MODELS}
    widest = max(MODELS, key=lambda m: max(secs[m]) - min(secs[m]))
    assert f"{round(min(secs[widest]))} to {fmt_int(round(max(secs[widest])))} seconds" in times.text
    assert "AMD EPYC CPU limited to two threads" in times.text and res["device"] == "CPU (AMD EPYC), 2 threads"
    # screen and voice name the same runs (the widest spread: one head's three, 337 to 1,147 s) and the
    # voice's minutes are those seconds: 5.6 and 19.1 minutes
    assert widest == "one_head" and "The three one-head runs, for example," in times.text
    assert "The three one-head runs, for example," in times.spoken
    assert [round(min(secs[widest]) / 60), round(max(secs[widest]) / 60)] == [6, 19]
    assert "between about six and nineteen minutes" in times.spoken
    assert "Epic processor" in times.spoken


def test_comparison_caveats_follow_the_data():
    res = results()
    b = built(TheComparison)
    four = statistics.fmean(r["test_loss"] for r in runs_of(res, "four_heads"))
    one = statistics.fmean(r["test_loss"] for r in runs_of(res, "one_head"))
    assert ("More heads helped this experiment. That is no guarantee" in said(b)) == (four < one)
    notes = fine_print(b)
    assert any(n.startswith("The comparison does not isolate the effect of position encoding") for n in notes)
    assert ("Same 6,000-document TinyStories subset, tokenizer, 64-token context, 6,000-update budget and "
            "validation selection. Seeds 11, 29 and 47.") in notes


def partial_file(res):
    """The committed file cut to the seed-11 runs (as it looked while training was under way), its
    summary recomputed by the trainer's own function."""
    from trainer.export import summarize

    out = copy.deepcopy(res)
    out["runs"] = [r for r in res["runs"] if r["seed"] == 11]
    out["complete"] = False
    out["summary"] = summarize(out["runs"])
    return out


def test_comparison_shows_a_partial_file_without_spread(tmp_path, monkeypatch):
    res = partial_file(results())
    for name in ("protocol.json",):
        shutil.copy(comparison.EXPORTS / name, tmp_path / name)
    (tmp_path / "results.json").write_text(json.dumps(res))
    monkeypatch.setattr(comparison, "EXPORTS", tmp_path)
    b = build_scene(TheComparison, pixel_height=270)
    assert b.format_mismatches() == [] and b.text_overlaps == [] and b.out_of_frame == []
    assert_spread_on_screen(b, res, "test_loss", 3)
    assert "This results file holds 3 of 9 runs so far" in said(b)
    assert sum(len(band.dots) for band in b.scene.bands) == 3


# ---------------------------------------------------------------------------- InsideTrainedModels


def test_heat_map_steps_follow_the_weights():
    W = comparison.load_attention_map().model("one_head").heads[0]
    hm = get_heat_map(W, ch3.MODEL_COLORS["one_head"], 4.0)
    n = W.shape[0]
    future = np.triu(np.ones((n, n), dtype=bool), 1)
    assert np.all(hm.steps[future] == -1) and np.all(hm.steps[~future] >= 0)
    for i in range(n):
        row_w, row_s = W[i, : i + 1], hm.steps[i, : i + 1]
        assert row_s[np.argmax(row_w)] == row_s.max()              # the brightest cell holds the max weight
        order = np.argsort(row_w, kind="stable")
        assert np.all(np.diff(row_s[order]) >= 0)                  # a larger weight is never darker
    cell = hm.frame.width / n
    area = sum(abs(_polygon_area(sp)) for p in hm.levels.values() for sp in p.get_subpaths())
    assert area == pytest.approx(np.count_nonzero(hm.steps > 0) * cell * cell, rel=1e-9)
    mask_area = sum(abs(_polygon_area(sp)) for sp in hm.mask.get_subpaths())
    assert mask_area == pytest.approx(n * (n - 1) / 2 * cell * cell, rel=1e-9)


def _polygon_area(subpath):
    xy = subpath[::4, :2]                                  # the corners of a straight-edged subpath
    x, y = xy[:, 0], xy[:, 1]
    return 0.5 * float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))


class HeatProbe(LessonScene):
    """Only the exported one-head map, large, to read its pixels."""

    def construct(self):
        W = comparison.load_attention_map().model("one_head").heads[0]
        self.hm = get_heat_map(W, ch3.MODEL_COLORS["one_head"], 7.0).move_to([0, 0, 0])
        self.add(self.hm)


def test_heat_map_pixels_show_the_exported_weights_and_a_darker_future():
    b = build_scene(HeatProbe, pixel_height=540)
    hm = b.scene.hm
    W, n = hm.weights, hm.n
    color = ch3.MODEL_COLORS["one_head"]
    for i in (n - 1, n // 2, 5):
        pixels = np.array([b.pixel(hm.cell_center(i, j)) for j in range(i + 1)])
        brightness = pixels.sum(axis=1)
        assert brightness[int(np.argmax(W[i, : i + 1]))] >= brightness.max() - 3
        for j in range(i + 1):
            step = round(math.sqrt(W[i, j]) * HEAT_LEVELS)
            want = level_rgb(step, color) if step else hex_to_rgb(BACKGROUND)
            assert np.abs(pixels[j] - want).max() <= 3, (i, j)
    future = b.pixel(hm.cell_center(0, n - 1))
    assert np.abs(future - hex_to_rgb(FUTURE_COLOR)).max() <= 3
    # the blocked triangle is darker than any weight's colour, weight 0 (the background) included
    assert future.sum() < hex_to_rgb(BACKGROUND).sum() <= level_rgb(1, color).sum()


def test_inside_draws_the_honest_map_and_makes_its_last_row_legible():
    amap = comparison.load_attention_map()
    b = built(InsideTrainedModels)
    r = amap.n - 1
    W1 = amap.model("one_head").heads[0]
    assert np.array_equal(b.scene.heat_one.weights, W1)
    inset = b.by_tag("inset")
    assert sorted(inset) == [60, 61, 62, 63]
    for j, m in inset.items():
        assert m.value == W1[r, j] and m.original_text == fmt(W1[r, j])
    assert inset[62].original_text == "0.431"                               # 'tim', position 63 (the brief)
    beat = b.beat_of("Its brightest cell is")
    assert inset[62] in b.numbers_in(beat) and "Create" in kinds(b.changes_in(beat))
    labels = {t.original_text for t in b.scene.heat_panel.labels.rows}
    assert f"1 {amap.tokens[0]}" in labels and f"{amap.n} {amap.tokens[r]}" in labels
    assert any(n.startswith("Row i: the final-query weights of the window that ends at token i") for n in fine_print(b))


def test_inside_builds_the_map_from_the_row_of_arrows():
    """'That was one row… stacked, they make this map': the one-head arrows turn into their sources' cells,
    which land in the map's bottom row; that row equals the arrows' weights, read here straight from
    attention.json's window weights (not the loader's by-position array the scene draws from)."""
    raw = json.loads((comparison.EXPORTS / "attention.json").read_text(encoding="utf-8"))
    n = raw["n"]
    r = n - 1                                                         # the window that ends the story
    window = raw["windows"]
    sources, n_pad = window["sources"][r], window["n_pad"][r]
    by_slot = raw["models"]["one_head"]["window_weights"][0][r]
    export = {j: float(by_slot[n_pad + k]) for k, j in enumerate(sources)}
    assert math.isclose(math.fsum(export.values()), 1.0, abs_tol=1e-5)
    b = built(InsideTrainedModels)
    scene, line = b.scene, b.scene.line
    hm = scene.heat_one
    # the arrows carry the export's weights: a token's own, a folded box's the sum over the tokens it hides
    for k, e in enumerate(line.entries):
        want = math.fsum(export[j] for j in range(e.first, e.last + 1))
        assert scene.one_arrows.arrow(k).weight == pytest.approx(want, abs=1e-12)
    # over each box, one cell per source it holds, with that source's weight: together the arrow's weight
    cells = scene.row_cells
    for k, e in enumerate(line.entries):
        group = cells.entries[k]
        assert [c.source for c in group] == list(range(e.first, e.last + 1))
        assert math.fsum(c.weight for c in group) == pytest.approx(scene.one_arrows.arrow(k).weight, abs=1e-12)
    # the cells land in the bottom row, one per source of the window, where the map draws that cell, and
    # that row of the map is the export's row, shaded step round(√w · levels) (0: the background)
    landed = scene.landed_cells
    assert sorted(c.source for c in landed) == sorted(export) == list(range(n))
    for c in landed:
        w = export[c.source]
        assert c.weight == pytest.approx(w, abs=1e-7) and hm.weights[r, c.source] == pytest.approx(w, abs=1e-7)
        step = int(math.floor(math.sqrt(w) * HEAT_LEVELS + 0.5))
        assert hm.steps[r, c.source] == step == c.step
        assert np.allclose(c.get_center(), hm.cell_center(r, c.source), atol=1e-6)
        assert c.width == pytest.approx(hm.cell_side) and c.height == pytest.approx(hm.cell_side)
        shade = BACKGROUND if step == 0 else level_hex(step, hm.color)
        assert c.get_fill_color().to_hex().upper() == ManimColor(shade).to_hex().upper()
    # by motion, in the sentence that says it: every arrow turns into its cells, then they travel
    beat = b.beat_of("one row of cells")
    assert kinds(b.changes_in(beat)).count("ReplacementTransform") >= len(line.entries)
    assert "LaggedStart" in kinds(b.changes_in(beat))


def test_inside_tells_the_story_on_the_token_line():
    amap = comparison.load_attention_map()
    b = built(InsideTrainedModels)
    r = amap.n - 1
    line, row = b.scene.line, b.scene.row
    # the line covers the receiver's window exactly once, in order, the receiver last
    covered = [j for e in line.entries for j in range(e.first, e.last + 1)]
    assert covered == list(amap.sources[r]) and line.entries[-1] == comparison.LineEntry(r, r)
    assert len(line.entries) <= ch3.LINE_ENTRIES and row.lines == 1
    # the arrows are the exported weights (a gap's arrow: the numpy sum of what it hides)
    arrows = b.scene.one_arrows
    row_w = amap.model("one_head").heads[0, r]
    for k, e in enumerate(line.entries):
        assert arrows.weights[k] == pytest.approx(row_w[e.first:e.last + 1].sum(), abs=1e-12)
    assert arrows.weights.sum() == pytest.approx(1.0, abs=1e-5)
    shown = b.by_tag("line_one_head")
    assert {j: m.original_text for j, m in shown.items()} == {62: "0.431", 61: "0.166"}    # the brief's figures
    assert all(m.value == row_w[j] for j, m in shown.items())
    beat = b.beat_of("the thicker the arrow, the more weight")
    assert "LaggedStart" in kinds(b.changes_in(beat))                       # the arrows' Create
    assert shown[62] in b.numbers_in(b.beat_of("0.431"))


def test_inside_folded_boxes_draw_dashed_grey_arrows_labelled_with_count_and_total():
    amap = comparison.load_attention_map()
    b = built(InsideTrainedModels)
    r = amap.n - 1
    line = b.scene.line
    gaps = [(k, e) for k, e in enumerate(line.entries) if e.is_gap]
    assert gaps
    heads = [("one_head", 0, b.scene.one_arrows, "fold_one_head")] + [
        ("four_heads", h, b.scene.arrows_of[h], f"fold_four_heads_{h}") for h in range(4)]
    for model, h, arrows, tag in heads:
        shown = b.by_tag(tag)
        W = amap.model(model).heads[h, r]
        for k, e in gaps:
            assert getattr(arrows.arrow(k), "folded", False)                 # dashed and greyed
            hidden = [W[j] for j in range(e.first, e.last + 1)]          # summed here, one by one
            assert shown[(e.first, e.last)].value == pytest.approx(math.fsum(hidden), abs=1e-12)
        for k, e in enumerate(line.entries):
            if not e.is_gap:
                assert not getattr(arrows.arrow(k), "folded", False)
    # the 20–49 box hides 30 tokens (worked by hand: 49 − 20 + 1), and says so under its arrow
    counts_shown = {t.original_text for t in b.texts}
    assert any(e.first == 19 and e.last == 48 for _, e in gaps) and "30 tokens" in counts_shown
    # head 1's largest single weight (0.100 on 'wanted') is smaller than the box's total, which is why
    # the box is labelled: the viewer reads the box's arrow as 30 tokens together, not one token
    box = b.by_tag("fold_four_heads_0")[(19, 48)]
    assert box.value > 0.100
    # the labels arrive in the sentence about the grey boxes' arrows
    beat = b.beat_of("dashed arrow carries the summed weight")
    assert all(m in b.numbers_in(beat) for m in b.by_tag("fold_one_head").values())


def test_inside_gives_each_head_its_colour_and_makes_head_3s_point():
    amap = comparison.load_attention_map()
    b = built(InsideTrainedModels)
    r = amap.n - 1
    scene = b.scene
    assert sorted(scene.arrows_of) == [0, 1, 2, 3]
    for h, arrows in scene.arrows_of.items():
        assert ManimColor(arrows.color).to_hex().upper() == ch3.FOUR_HEAD_COLORS[h].upper()
        assert np.allclose(arrows.weights, scene.line.weights("four_heads", h), atol=0)
    assert len(set(ch3.FOUR_HEAD_COLORS)) == 4 and ch3.MODEL_COLORS["one_head"] not in ch3.FOUR_HEAD_COLORS
    # head 3 (index 2): the four 'tim' tokens, 0.894 together at full precision (rounded terms add to 0.895)
    tims = [j for j in amap.sources[r] if amap.tokens[j] == "tim"]
    assert tims == [16, 18, 53, 62]
    total = b.by_tag("token_sum")[(2, "tim")]
    weights = amap.model("four_heads").heads[2, r]
    assert total.value == pytest.approx(math.fsum(weights[j] for j in tims), abs=1e-15)
    assert total.original_text == "0.894"
    terms = b.by_tag("sum_term")
    assert [terms[j].original_text for j in tims] == ["0.199", "0.291", "0.169", "0.236"]
    assert sum(float(terms[j].original_text) for j in tims) == pytest.approx(0.895)   # why the fine print
    beat = b.beat_of("puts 0.894 of its weight")
    assert total in b.numbers_in(beat)
    shown = b.by_tag("shown_sum")[2]                                  # the rounded parts' sum, pointed at
    assert shown.original_text == "0.895" and shown in b.numbers_in(beat)
    assert any(n.startswith("All displayed numbers are rounded; calculations use full precision")
               and "last digit" in n for n in fine_print(b))                    # says why 0.895 ≠ 0.894
    assert "Head 2 looks at the quote mark: 0.701." in said(b) and "Head 4 also looks at the quote mark: 0.665." in said(b)
    weights_1 = amap.model("four_heads").heads[0, r]
    top1 = max(amap.sources[r], key=lambda j: weights_1[j])
    assert amap.tokens[top1] == "wanted" and f"{weights_1[top1]:.3f}" == "0.100"
    # the top weight is 0.1003: "the most any token gets", never "no more than 0.100"
    assert weights_1[top1] > 0.100 and all(weights_1[j] <= weights_1[top1] for j in amap.sources[r])
    assert "Head 1 spreads its weight thin: the most any single token gets is 0.100, which goes to “wanted”." in said(b)
    assert "no single token gets more than" not in said(b)
    # head 1's widest arrow is a grey box's (tokens 20-49 hold more than "wanted"'s 0.100 together):
    # the sentence says so, with the box's own sum and count, recomputed from the export here
    folded = math.fsum(float(weights_1[j]) for j in range(19, 49))
    assert folded > weights_1[top1]
    assert (f"The widest arrow is a grey box's: 30 tokens, {folded:.3f} together, about {folded / 30:.3f} each."
            in b.beat_of("Head 1 spreads its weight thin").text)
    # the repeated token is counted in the window the model read (the story is longer than the window)
    assert amap.story_tokens > amap.context and all(j in amap.sources[r] for j in tims)
    assert "Head 3 finds every “tim” in the window, four of them." in said(b) and "in the story, four" not in said(b)
    assert math.fsum(weights[j] for j in tims) > 0.5 and "most of it, on one word" in beat.text
    # head 1's folded boxes read as sums: the total and what it is per token
    for (first, last), each in b.by_tag("fold_four_heads_0_each").items():
        total = math.fsum(float(x) for x in amap.model("four_heads").heads[0, r, first:last + 1])
        assert each.value == pytest.approx(total / (last - first + 1), abs=1e-12)
        assert b.by_tag("fold_four_heads_0")[(first, last)].value == pytest.approx(total, abs=1e-12)
    # a share shown is a share: no box says "≈ 0.000 each" (head 2's boxes hold 0.001 over 16 tokens)
    shares = [m for tag in b.tags() if tag.endswith("_each") for m in b.by_tag(tag).values()]
    assert shares and all(m.original_text != "0.000" for m in shares)


def test_inside_shows_all_four_heads_together_before_the_caveat():
    b = built(InsideTrainedModels)
    scene = b.scene
    heads = sorted({a.head for a in scene.glimpse})
    assert heads == [0, 1, 2, 3]
    # head 3 (index 2) finds the four 'tim's; the other heads each their one top source: 3 + 4 arrows
    assert len(scene.glimpse) == 7
    beat = b.beat_of("a glimpse of these checkpoints")
    assert "LaggedStart" in kinds(b.changes_in(beat))
    # the model's name is not drawn in any of its heads' colours (its curve blue is head 1's)
    from scenes.chapter3_trained_models import FOUR_HEAD_COLORS
    name = scene.four_heads_name.get_color().to_hex().upper()
    assert name not in {c.upper() for c in FOUR_HEAD_COLORS}


def test_inside_shows_the_continuations_as_read_and_their_latency():
    cont = comparison.load_continuation_set()
    b = built(InsideTrainedModels)
    latency = b.by_tag("latency")
    for (model, kind), run in cont.runs.items():
        assert latency[(model, kind)].value == run.latency_ms_median
        assert latency[(model, kind)].original_text == fmt(run.latency_ms_median, 3)
    shown = {(row.model, kind): row.text for kind, panel in b.scene.panels.items() for row in panel.rows}
    assert shown == {key: run.text for key, run in cont.runs.items()}
    for kind, panel in b.scene.panels.items():
        prompt = cont.prompts[kind]
        assert [w.original_text for w in panel.line.words] == list(prompt.tokens)
        assert [t[0].original_text for t in panel.line.typed] == [w for _, w in prompt.unknown]
    outside = cont.prompts["outside_domain"]
    assert outside.text == "the <UNK> bank raised <UNK> <UNK> because <UNK>"
    assert cont.of("four_heads", "outside_domain").unk_positions == (1, 16)
    assert "The four-head model even writes <UNK> itself, twice" in said(b)
    assert "The four-head model even writes the unknown token itself, twice" in " ".join(bt.spoken for bt in b.beats)
    # each continuation panel holds still long enough to read: a look of at least 7 s after the speech
    for words in ("Read what each model wrote", "All three name the boy tim", "None of the three picks up"):
        beat = b.beat_of(words)
        assert beat.look >= 7.0 and beat.end - beat.speech_end >= 7.0
    assert any(comparison.device_words(cont.device) in n for n in fine_print(b))
    # the latencies read honestly: the baseline is faster on every prompt by at least 0.016 ms;
    # one head and four heads differ by at most 0.0028 ms, less than one head's own 0.0082 across prompts
    lat = {key: run.latency_ms_median for key, run in cont.runs.items()}
    kinds_ = ("training", "held_out", "outside_domain")
    margin = min(min(lat[("one_head", k)], lat[("four_heads", k)]) - lat[("mlp", k)] for k in kinds_)
    gap = max(abs(lat[("one_head", k)] - lat[("four_heads", k)]) for k in kinds_)
    own = min(max(lat[(m, k)] for k in kinds_) - min(lat[(m, k)] for k in kinds_) for m in ("one_head", "four_heads"))
    assert margin > 0 and gap < own
    assert (f"The baseline is faster on every prompt, by at least {margin:.3f} ms. One head and four heads are "
            "effectively tied: their gap is smaller than either one’s spread across prompts.") in said(b)
    # the voice says where the latencies were measured: cont.device is "CPU (AMD EPYC), 1 thread"
    assert comparison.cpu_threads(cont.device) == ("AMD EPYC", 1)
    assert "on one thread of an AMD EPYC CPU" in b.beat_of("On the right: the median time").text
    # what the continuations are said to do, checked on their tokens
    one = cont.of("one_head", "training").tokens
    assert " ".join(one).count("he wanted to") == 2
    assert "The one-head model already repeats itself: “he wanted to” comes twice." in said(b)
    for m in ("mlp", "one_head", "four_heads"):
        assert not {"bank", "raised", "because"} & set(cont.of(m, "outside_domain").tokens)
    assert "None of the three picks up the prompt’s topic: none writes bank, raised or because." in said(b)
    assert "All three name the boy tim; two of the three already repeat a phrase." in said(b)
    # the latency column arrives with the sentence that explains it, right after the first panel's rows
    order = [bt.text for bt in b.beats]
    first = next(i for i, t in enumerate(order) if "Read what each model wrote" in t)
    assert "On the right: the median time" in order[first + 1]
    assert "The baseline is faster on every prompt" in order[first + 2]
    # ...with its evidence: every prompt's medians on screen in that beat, not only this panel's
    every = b.by_tag("latency_all")
    assert set(every) == set(cont.runs)
    reading_beat = b.beat_of("The baseline is faster on every prompt")
    for key, run in cont.runs.items():
        assert every[key].value == run.latency_ms_median and every[key] in b.numbers_in(reading_beat)
    beat = b.beat_of("On the right: the median time")
    assert latency[("mlp", "training")] in b.numbers_in(beat)
    assert latency[("mlp", "training")] not in b.numbers_in(b.beat_of("Read what each model wrote"))


def test_inside_closes_with_what_is_beyond_and_leaves_the_credits_to_the_series_end():
    b = built(InsideTrainedModels)
    notes = fine_print(b)
    assert "Normalization, full Transformer blocks and complexity remain in the optional Part 2B reference." in notes
    assert not hasattr(b.scene, "credits") and "3Blue1Brown" not in said(b)     # they close scene 21
    # the folded-box sentence reads a sum as a sum: one head's heaviest box, its count, total and share
    amap = comparison.load_attention_map()
    line = b.scene.line
    w = line.weights("one_head", 0)
    gaps = [k for k, e in enumerate(line.entries) if e.is_gap]
    k = max(gaps, key=lambda g: w[g])
    e = line.entries[k]
    total = math.fsum(float(x) for x in amap.model("one_head").heads[0, amap.n - 1, e.first:e.last + 1])
    assert f"here {e.last - e.first + 1} tokens, {total:.3f} in all, about {total / (e.last - e.first + 1):.3f} each" \
        in said(b)


def test_scene_20_the_heaviest_arrows_heads_stand_clear_of_every_other_head():
    """The story line's receiver (a comma) takes nineteen arrows. The panel found the heaviest ones
    (tim's 0.431, head 3's 0.236) hidden in a knot of arrowheads: tips were spaced by position on
    the edge, ~0.05 apart, for heads ~0.1 wide. Now no head of the three heaviest arrows of each
    head drawn overlaps any other head along the edge, and the edge is the receiver's."""
    from scenes.chapter3_trained_models import STORY_RECEIVER_WIDTH
    b = built(InsideTrainedModels)
    row = b.scene.row
    r = row.receiver - 1
    box = row.boxes[r]
    assert box.width >= STORY_RECEIVER_WIDTH - 1e-9
    line = b.scene.line
    for model, head in (("one_head", 0), ("four_heads", 0), ("four_heads", 2)):
        arrows = fold_gap_arrows(get_attention_arrows(row, line.weights(model, head)), line, "#ffffff")
        tips = {a.source: (a[1] if getattr(a, "folded", False) else a.get_tip()) for a in arrows.arrows
                if a.source != r}
        extent = {j: (t.get_left()[0], t.get_right()[0]) for j, t in tips.items()}
        assert all(box.get_left()[0] - 1e-6 <= lo and hi <= box.get_right()[0] + 1e-6 for lo, hi in extent.values())
        w = line.weights(model, head)
        heaviest = sorted(extent, key=lambda j: -w[j])[:3]          # ranked here, from the data
        for j in heaviest:
            lo, hi = extent[j]
            clash = [k for k, (l2, h2) in extent.items() if k != j and l2 < hi - 1e-9 and lo < h2 - 1e-9]
            assert not clash, (model, head, j, float(w[j]), clash)




def test_scene_20_the_maps_row_leaves_with_the_map():
    """The panel's frames showed the map's bottom row still on screen, dim, from the four-head shot
    to the end: the token line's cells, reshaped into it, stayed in a group after the map had gone.
    After the map leaves, nothing of the map's cell size remains on screen."""
    b = built(InsideTrainedModels)
    side = b.scene.heat_one.cell_side
    left = [m for top in b.scene.mobjects for m in top.get_family()
            if m.has_points() and abs(m.width - side) < 1e-6 and abs(m.height - side) < 1e-6]
    assert not left, len(left)


def test_no_plot_axis_title_outlives_its_plot():
    """The results table replaces the dot plots: no axis title of theirs ("test loss") stays behind."""
    b = built(TheComparison)
    scene = b.scene
    family = {id(x) for top in scene.mobjects for x in top.get_family()}
    left = [t.original_text for plot in (scene.dot_plot, scene.dot_zoom) for t in plot.titles.get_family()
            if hasattr(t, "original_text") and id(t) in family and t.get_fill_opacity() > 0.05]
    assert left == []


def test_inside_story_label_says_it_shows_the_first_tokens_of_a_longer_story():
    b = built(InsideTrainedModels)
    amap = comparison.load_attention_map()
    assert amap.story_tokens == 243 and amap.n == 64          # the committed export: 64 of 243 tokens
    texts = {t.original_text for t in b.texts}
    assert "the first 64 of a held-out test story's 243 tokens, as the models read them" in texts
    assert not any(t.endswith(": 64 tokens") for t in texts)
