"""Chapter 3, scenes 18–20 (ThreeArchitectures, TheComparison, InsideTrainedModels).

They build without LaTeX; every number on screen is the committed trainer exports' number under the
display rule — means and sample standard deviations recomputed here from runs[] with statistics,
parameter counts from the protocol formula; the heat maps' pixels follow the exported weights; a
missing export stops a scene with a message naming the file.
"""
from __future__ import annotations

import copy
import json
import math
import shutil
import statistics

import numpy as np
import pytest
from manim import Scene

from lesson_data import comparison
from lesson_data.display import fmt, fmt_int
from scenes import chapter3_trained_models as ch3
from scenes.chapter3_trained_models import (
    CountText,
    InsideTrainedModels,
    TheComparison,
    ThreeArchitectures,
    get_heat_map,
    level_rgb,
)
from scenes.style import BACKGROUND, LessonScene
from tests.scene_harness import assert_builds_cleanly, build_scene, built, hex_to_rgb

SCENES = (ThreeArchitectures, TheComparison, InsideTrainedModels)
MODELS = ("mlp", "one_head", "four_heads")


def results():
    return comparison.load_results()


def runs_of(res, model):
    return sorted((r for r in res["runs"] if r["model"] == model), key=lambda r: r["seed"])


def counts(b, tag):
    """{index: CountText} of the integers on screen with this tag."""
    return {t.index: t for t in b.texts if isinstance(t, CountText) and t.tag == tag}


def protocol_parameters(p, model):
    """The parameter count written out from COMPARISON.md's layer list (weights and biases)."""
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
    assert_builds_cleanly(b, min_sections=3, min_subcaptions=5)
    for t in b.texts:                                     # every integer shown with separators is fmt_int's
        if isinstance(t, CountText):
            assert t.original_text == fmt_int(t.value)


# ------------------------------------------------------------------ missing exports stop the scene


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


def test_protocol_formula_matches_the_spec_and_the_recorded_counts():
    res = results()
    p = res["protocol"]
    # COMPARISON.md states these two totals in words
    assert protocol_parameters(p, "mlp") == 2_332_832
    assert protocol_parameters(p, "one_head") == protocol_parameters(p, "four_heads") == 1_321_120
    for model in MODELS:
        for run in runs_of(res, model):
            assert run["parameters"] == protocol_parameters(p, model)


def test_three_architectures_shows_the_parameter_counts_and_their_parts():
    res = results()
    p = res["protocol"]
    b = built(ThreeArchitectures)
    shown = counts(b, "parameters")
    assert set(shown) == set(MODELS)
    for model in MODELS:
        assert shown[model].value == protocol_parameters(p, model)
        assert shown[model].original_text == fmt_int(protocol_parameters(p, model))
    for model in ("mlp", "one_head"):
        parts = [t.value for _, t in sorted(counts(b, f"part_{model}").items())]
        assert sum(parts) == protocol_parameters(p, model)
    C = p["d_model"]
    # the MLP's first matrix against the attention model's prediction-MLP input, by hand
    assert counts(b, "part_mlp")[1].original_text == "1,048,832"          # 4096 * 256 + 256
    assert counts(b, "part_one_head")[3].original_text == "16,640"        # 64 * 256 + 256
    assert counts(b, "part_one_head")[2].value == 4 * C * C


def test_three_architectures_labels_the_real_shapes():
    p = results()["protocol"]
    T, C, H, V, h = p["context"], p["d_model"], p["d_hidden"], p["vocab_size"], p["n_heads_multi"]
    d = C // h
    b = built(ThreeArchitectures)
    texts = {t.original_text for t in b.texts}
    for label in (f"[{T}, {C}]", f"[1, {fmt_int(T * C)}]", f"[1, {fmt_int(H)}]", f"[1, {fmt_int(V)}]",
                  f"Linear {fmt_int(T * C)}→{fmt_int(H)}", f"Linear {fmt_int(H)}→{fmt_int(V)}", f"each [{T}, {C}]", f"÷√{C}\nmask\nsoftmax",
                  f"Qʰ, Kʰ, Vʰ\n[{T}, {d}]", f"Aʰ\n[{T}, {T}]", f"Hʰ = AʰVʰ\n[{T}, {d}]", "project", "reshape"):
        assert label in texts, label
    assert [lane.label.original_text for lane in b.scene.four_head_flow.lanes] == [f"head {k}" for k in
                                                                                   range(1, h + 1)]
    said = " ".join(s[2] for s in b.subcaptions)
    assert "The fixed concatenation order already distinguishes slots." in said
    assert "This baseline has no separate learned position table." in said
    assert "same next-token logits as taking the last row of this full diagram" in said
    assert "They do not assign disjoint slices of raw E to different heads." in said


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
    # perplexity is exp(cross-entropy) in every run (a second route to the same numbers)
    for run in res["runs"]:
        assert run["test_perplexity"] == pytest.approx(math.exp(run["test_loss"]), rel=1e-9)
    texts = {t.original_text for t in b.texts}
    assert f"wall time on {res['device']}, torch {res['torch_version']}" in texts
    if not res["complete"]:
        assert any(t.startswith(f"partial export: {len(res['runs'])} of 9 runs") for t in texts)


def test_comparison_curves_are_the_exported_traces():
    res = results()
    b = built(TheComparison)
    for curves, axes, from_step in ((b.scene.curves, b.scene.plot.axes, 0),
                                    (b.scene.zoom_curves, b.scene.zoom.axes, res["protocol"]["eval_every"])):
        assert len(curves) == len(res["runs"])
        for curve, run in zip(curves, res["runs"]):
            assert (curve.model, curve.seed) == (run["model"], run["seed"])
            trace = [(t["step"], t["selection_loss"]) for t in run["trace"] if t["step"] >= from_step]
            points = curve.line.points                       # cubic segments: 4 control points each
            corners = [*points[::4], points[-1]]
            got = [tuple(axes.p2c(pt)) for pt in corners]
            assert len(got) == len(trace)
            for (x, y), (step, loss) in zip(got, trace):
                assert x == pytest.approx(step, abs=1e-6) and y == pytest.approx(loss, abs=1e-9)
            kept = next(t for t in run["trace"] if t["step"] == run["selected_step"])
            assert axes.p2c(curve.dot.get_center()) == pytest.approx([kept["step"], kept["selection_loss"]])
            # the kept state has the lowest selection loss of the run
            assert kept["selection_loss"] == min(t["selection_loss"] for t in run["trace"])
    steps = res["protocol"]["steps"]
    ticks = [t.value for _, t in sorted(counts(b, "x_tick").items())]
    assert ticks == [0, steps // 4, steps // 2, 3 * steps // 4, steps]


def test_comparison_caveats_follow_the_data():
    res = results()
    b = built(TheComparison)
    said = " ".join(s[2] for s in b.subcaptions)
    four = statistics.fmean(r["test_loss"] for r in runs_of(res, "four_heads"))
    one = statistics.fmean(r["test_loss"] for r in runs_of(res, "one_head"))
    helped = "More heads helped this experiment; this is not a guarantee for every dataset"
    assert (helped in said) == (four < one)
    assert "The comparison does not isolate the effect of position encoding" in said
    assert "Seeds 11, 29 and 47." in said


def nine_run_file(res):
    """The committed file grown to three seeds per model (test data only: perturbed copies of the
    seed-11 runs) with its summary recomputed here, as the trainer's final export will look."""
    out = copy.deepcopy(res)
    runs = []
    for model in MODELS:
        base = runs_of(res, model)[0]
        for k, seed in enumerate((11, 29, 47)):
            r = copy.deepcopy(base)
            r["seed"] = seed
            r["test_loss"] = base["test_loss"] + 0.013 * k * (1 if k % 2 else -1.5)
            r["test_perplexity"] = math.exp(r["test_loss"])
            r["train_seconds"] = base["train_seconds"] + 17.0 * k
            for t in r["trace"]:
                t["selection_loss"] += 0.01 * k
            runs.append(r)
    out["runs"] = runs
    out["complete"] = True
    summary = {}
    for model in MODELS:
        mine = runs_of(out, model)
        summary[model] = {"title": res["summary"][model]["title"], "parameters": mine[0]["parameters"],
                          "seeds": [r["seed"] for r in mine]}
        for key in ("test_loss", "test_perplexity", "val_loss", "val_perplexity", "train_seconds",
                    "final_train_loss"):
            values = [r[key] for r in mine]
            summary[model][key] = {"mean": statistics.fmean(values), "std": statistics.stdev(values),
                                   "values": values}
    out["summary"] = summary
    return out


def test_comparison_shows_mean_and_sample_std_once_seeds_arrive(tmp_path, monkeypatch):
    res = nine_run_file(results())
    (tmp_path / "results.json").write_text(json.dumps(res))
    monkeypatch.setattr(comparison, "EXPORTS", tmp_path)
    b = build_scene(TheComparison, pixel_height=270)
    assert b.format_mismatches() == [] and b.text_overlaps == [] and b.out_of_frame == []
    assert_spread_on_screen(b, res, "test_loss", 3)
    assert_spread_on_screen(b, res, "test_perplexity", 2)
    assert_spread_on_screen(b, res, "train_seconds", 0)
    assert len(b.scene.curves) == 9
    texts = {t.original_text for t in b.texts}
    assert "mean ± sample standard deviation across seeds" in texts
    assert not any(t.startswith("partial export") for t in texts)
    assert sum(len(row[0]) for row in b.scene.dots.rows) == 9         # one dot per run


def test_a_summary_that_disagrees_with_its_runs_is_refused():
    res = copy.deepcopy(results())
    res["summary"]["mlp"]["test_loss"]["values"] = [1.0]
    with pytest.raises(ValueError, match="does not match its runs"):
        ch3.spread(res, "mlp", "test_loss")


# ---------------------------------------------------------------------------- InsideTrainedModels


def test_heat_map_steps_follow_the_weights():
    W = np.asarray(comparison.load_attention()["models"]["one_head"]["heads"][0])
    hm = get_heat_map(W, ch3.MODEL_COLORS["one_head"], 4.0)
    n = W.shape[0]
    future = np.triu(np.ones((n, n), dtype=bool), 1)
    assert np.all(hm.steps[future] == -1) and np.all(hm.steps[~future] >= 0)
    for i in range(n):
        row_w, row_s = W[i, : i + 1], hm.steps[i, : i + 1]
        assert row_s[np.argmax(row_w)] == row_s.max()              # the brightest cell holds the max weight
        order = np.argsort(row_w, kind="stable")
        assert np.all(np.diff(row_s[order]) >= 0)                  # a larger weight is never darker
    # the colour paths cover exactly the cells with a step above 0 (step 0 is the background)
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
        W = np.asarray(comparison.load_attention()["models"]["one_head"]["heads"][0])
        self.hm = get_heat_map(W, ch3.MODEL_COLORS["one_head"], 7.0).move_to([0, 0, 0])
        self.add(self.hm)


def test_heat_map_pixels_show_the_exported_weights():
    b = build_scene(HeatProbe, pixel_height=540)
    hm = b.scene.hm
    W, n = hm.weights, hm.n
    color = ch3.MODEL_COLORS["one_head"]
    for i in (n - 1, n // 2, 5):
        pixels = np.array([b.pixel(hm.cell_center(i, j)) for j in range(i + 1)])
        brightness = pixels.sum(axis=1)
        j_max = int(np.argmax(W[i, : i + 1]))
        assert brightness[j_max] >= brightness.max() - 3            # the brightest cell is the max weight
        for j in range(i + 1):                                        # each cell shows its weight's colour
            step = round(math.sqrt(W[i, j]) * ch3.HEAT_LEVELS)
            want = level_rgb(step, color) if step else hex_to_rgb(BACKGROUND)
            assert np.abs(pixels[j] - want).max() <= 3, (i, j)
    assert np.abs(b.pixel(hm.cell_center(0, n - 1)) - hex_to_rgb(ch3.MASK_COLOR)).max() <= 3


def test_inside_trained_models_draws_the_exported_matrices_and_their_top_weights():
    att = comparison.load_attention()
    b = built(InsideTrainedModels)
    W1 = np.asarray(att["models"]["one_head"]["heads"][0])
    assert np.array_equal(b.scene.heat_one.weights, W1)
    for hm, W in zip(b.scene.heat_four, att["models"]["four_heads"]["heads"]):
        assert np.array_equal(hm.weights, np.asarray(W))
    assert len(b.scene.heat_four) == len(att["models"]["four_heads"]["heads"])
    n = len(att["tokens"])
    shown = b.by_tag("one_head_top")
    top3 = list(np.argsort(-W1[n - 1], kind="stable")[:3])
    assert sorted(shown) == sorted(int(j) for j in top3)
    for j, m in shown.items():
        assert m.value == W1[n - 1, j] and m.original_text == fmt(W1[n - 1, j])
    for (h, j), m in b.by_tag("four_heads_top").items():
        row = np.asarray(att["models"]["four_heads"]["heads"][h][n - 1])
        assert j == int(np.argmax(row)) and m.value == row[j]
    labels = {t.original_text for t in b.scene.one_labels}
    assert f"1 {att['tokens'][0]}" in labels and f"{n} {att['tokens'][n - 1]}" in labels


def test_inside_trained_models_shows_the_continuations_and_their_latency():
    cont = comparison.load_continuations()
    b = built(InsideTrainedModels)
    latency = b.by_tag("latency")
    for model, by_kind in cont["models"].items():
        for kind, rec in by_kind.items():
            m = latency[(model, kind)]
            assert m.value == rec["latency_ms_median"]
            assert m.original_text == fmt(rec["latency_ms_median"], 3)
    shown = {(row.model, kind): row.body.text for panel, kind in zip(b.scene.panels, ch3.KIND_ORDER)
             for row in panel.rows}
    assert shown == {(m, k): rec["continuation"] for m, by_kind in cont["models"].items()
                     for k, rec in by_kind.items()}
    texts = {t.original_text for t in b.texts}
    for kind, prompt in cont["prompts"].items():
        assert f"“{prompt} …”" in texts
    said = " ".join(s[2] for s in b.subcaptions)
    assert "run in PyTorch on the CPU" in said and "one seed" in said
