"""Chapter 4, scene 21 (PatchesAndCLS): it builds cleanly in beats, every number on screen is the data
layer's illustrative number with its own precision, each picture plays in the beat of the sentence
that names it, and the chain image → patches → rows → CLS + positions → encoder → logits → softmax
→ cross-entropy holds when recomputed from the numbers shown. The scene does not take
LESSON_SENTENCE (its image is fixed), so it is built once."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lesson_data.vision_roadmap import vision_roadmap
from scenes.blocks.attention_arrows import arrow_stroke, get_token_row
from scenes.blocks.unmasked_attention import (get_attention_grid, get_causal_pattern, get_source_weights,
                                             get_unmasked_arrows)
from scenes.chapter4_vision_roadmap import (
    CLS_COLOR,
    PIXEL_OFF,
    PIXEL_ON,
    PATCH_COLOR,
    PatchesAndCLS,
    get_patched_image,
    pixel_color,
)
from scenes.style import BACKGROUND
from tests.scene_harness import assert_builds_cleanly, assert_matrix_on_screen, blend, built, hex_to_rgb


@pytest.fixture(scope="module")
def b():
    return built(PatchesAndCLS)


@pytest.fixture(scope="module")
def vr():
    return vision_roadmap()


def shown_array(b, tag, shape) -> np.ndarray:
    """The unrounded values shown under `tag`, as an array; every index must be present."""
    numbers = b.by_tag(tag)
    out = np.full(shape, np.nan)
    for index, m in numbers.items():
        out[index if isinstance(index, tuple) else (index,)] = m.value
    assert not np.isnan(out).any(), f"{tag}: missing entries"
    assert len(numbers) == out.size, f"{tag}: {len(numbers)} numbers for shape {shape}"
    return out


def tags_in(b, beat) -> dict:
    """{tag: how many numbers of that tag a beat first shows} (moving copies count under their tag)."""
    counts: dict = {}
    for m in b.numbers_in(beat):
        counts[m.tag] = counts.get(m.tag, 0) + 1
    return counts


def draws(b, beat) -> bool:
    """Whether the beat draws an outline (Create, alone or lagged)."""
    return any("Create" in c.what or "LaggedStart" in c.what for c in b.changes_in(beat))


def said(b) -> str:
    return " ".join(beat.spoken for beat in b.beats)


@pytest.mark.parametrize("scene_cls", [PatchesAndCLS], ids=lambda c: c.__name__)
def test_scene_builds_cleanly(scene_cls):
    b = built(scene_cls)
    assert_builds_cleanly(b, min_sections=8, min_beats=25)
    assert b.sections == ["image", "flatten", "projection", "formulas", "CLS and positions", "encoder",
                          "classifier", "roadmap"]


def test_every_array_is_the_data_layers_with_its_own_precision(b, vr):
    assert_matrix_on_screen(b, "image", vr.image)                      # 0 and 1: no decimals
    assert_matrix_on_screen(b, "flattened", vr.flattened)
    assert_matrix_on_screen(b, "patch_pixels", vr.flattened[vr.stripe_pair[0]][:, None])
    assert_matrix_on_screen(b, "projection", vr.projection)            # illustrative tenths: 0.4, not 0.400
    assert_matrix_on_screen(b, "patch_rows", vr.patch_rows)
    assert_matrix_on_screen(b, "tokens", np.vstack([vr.cls_row, vr.patch_rows]))
    assert_matrix_on_screen(b, "position_rows", vr.position_rows)
    assert_matrix_on_screen(b, "encoder_input", vr.encoder_input)
    assert_matrix_on_screen(b, "encoder_attention", vr.encoder_attention)   # computed: three places
    assert_matrix_on_screen(b, "encoder_output", vr.encoder_output)
    assert_matrix_on_screen(b, "cls_output", vr.cls_output)
    assert_matrix_on_screen(b, "classifier", vr.classifier)
    assert_matrix_on_screen(b, "logits", vr.logits)
    assert_matrix_on_screen(b, "probabilities", vr.probabilities)
    (ce,) = b.all_with_tag("cross_entropy")
    assert ce.value == vr.cross_entropy and ce.original_text == "1.092"
    assert {m.original_text for m in b.all_with_tag("projection")} <= {f"{k / 10:.1f}" for k in range(-5, 6)}


def test_image_is_a_vertical_stripe_worked_by_hand(b):
    image = shown_array(b, "image", (8, 8))
    # the stripe: columns 3 and 4 (one-based) are 1 in every row, everything else 0
    for r in range(8):
        assert [b.by_tag("image")[(r, c)].original_text for c in range(8)] == ["0", "0", "1", "1", "0", "0", "0", "0"]
    assert image.sum() == 16


def test_patches_flatten_row_major_second_method(b):
    image = shown_array(b, "image", (8, 8))
    flat = shown_array(b, "flattened", (4, 16))
    # by explicit loops: patch k is (k // 2, k % 2) in the 2 × 2 grid, read row by row
    for k in range(4):
        pr, pc = divmod(k, 2)
        values = [image[pr * 4 + i, pc * 4 + j] for i in range(4) for j in range(4)]
        assert list(flat[k]) == values
    # worked by hand: the stripe is in the left patches (1 and 3); the right ones are blank
    assert list(flat[0]) == [0, 0, 1, 1] * 4 == list(flat[2])
    assert not flat[1].any() and not flat[3].any()


def test_the_sweep_adds_the_rows_patch_1_reads_worked_by_hand(b, vr):
    terms = b.by_tag("sum_term")
    # patch 1's lit pixels are 3, 4, 7, 8, 11, 12, 15, 16 (one-based): those rows of column 1 are summed
    assert sorted(terms) == [2, 3, 6, 7, 10, 11, 14, 15]
    signed = [terms[i].sign * terms[i].value for i in sorted(terms)]
    assert signed == [0.1, -0.5, 0.5, -0.2, 0.3, 0.4, 0.0, 0.1]
    assert signed == [vr.projection[i, 0] for i in sorted(terms)]
    # the later terms show their magnitude; the operator carries the sign
    assert [terms[i].original_text for i in sorted(terms)] == ["0.1", "0.5", "0.5", "0.2", "0.3", "0.4", "0.0", "0.1"]
    total = b.by_tag("column_sum")[0]        # (and its copy, which moves under the column)
    assert {m.original_text for m in b.all_with_tag("column_sum")} == {"0.7"}
    assert total.value == vr.patch_rows[0, 0]
    assert math.fsum(signed) == pytest.approx(total.value, abs=1e-12)
    # the patch's four numbers under the projection's columns: [0.7, 0.4, 0.8, -0.6] by hand
    assert [b.by_tag("patch_rows")[(0, j)].original_text for j in range(4)] == ["0.7", "0.4", "0.8", "-0.6"]


def test_the_chain_holds_on_the_shown_numbers(b, vr):
    flat = shown_array(b, "flattened", (4, 16))
    proj = shown_array(b, "projection", (16, 4))
    rows = shown_array(b, "patch_rows", (4, 4))
    np.testing.assert_allclose(flat @ proj, rows, rtol=0, atol=1e-12)
    # one shared projection: identical patches give identical rows, blank patches the zero row
    np.testing.assert_array_equal(rows[0], rows[2])
    assert not rows[1].any() and not rows[3].any()
    tokens = shown_array(b, "tokens", (5, 4))
    np.testing.assert_array_equal(tokens[1:], rows)          # CLS prepended, patches follow
    pos = shown_array(b, "position_rows", (5, 4))
    enc_in = shown_array(b, "encoder_input", (5, 4))
    np.testing.assert_allclose(tokens + pos, enc_in, rtol=0, atol=1e-12)
    # patches 1 and 3: the same patch row, different position rows, so different encoder inputs
    assert not np.array_equal(enc_in[1], enc_in[3])
    np.testing.assert_allclose(enc_in[1] - enc_in[3], pos[1] - pos[3], rtol=0, atol=1e-12)
    # no causal mask: every row of the encoder's attention reads all five rows
    att = shown_array(b, "encoder_attention", (5, 5))
    assert (att > 0).all()
    np.testing.assert_allclose(att.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    out = shown_array(b, "encoder_output", (5, 4))
    cls = shown_array(b, "cls_output", (1, 4))[0]
    np.testing.assert_array_equal(cls, out[0])
    logits = shown_array(b, "logits", (1, 2))[0]
    np.testing.assert_allclose(cls @ shown_array(b, "classifier", (4, 2)) + vr.classifier_bias, logits,
                               rtol=0, atol=1e-12)
    probs = shown_array(b, "probabilities", (1, 2))[0]
    np.testing.assert_allclose(np.exp(logits) / np.exp(logits).sum(), probs, rtol=0, atol=1e-12)
    (p_label,) = b.all_with_tag("p_label")
    assert p_label.value == probs[vr.label]
    (ce,) = b.all_with_tag("cross_entropy")
    assert ce.value == pytest.approx(-math.log(probs[vr.label]), abs=1e-12)


def test_general_formulas_worked_by_hand(b):
    def one(tag):
        values = {m.value for m in b.all_with_tag(tag)}
        assert len(values) == 1, tag
        return values.pop()

    assert (one("H"), one("W"), one("P")) == (8, 8, 4)
    assert (one("grid_h"), one("grid_w"), one("n_patches")) == (2, 2, 4)        # (8/4)·(8/4) = 4
    assert one("patch_width") == 16                                              # 4 × 4
    assert (one("channels"), one("rgb_patch_width")) == (3, 48)                  # 4 × 4 × 3
    assert {m.original_text for m in b.all_with_tag("rgb_patch_width")} == {"48"}
    # said as a person says them, not as superscripts (which mean heads elsewhere in the lesson)
    beat = b.beat_of("(H/P)×(W/P)")
    assert "image of height H and width W" in beat.text
    # heard as height and width: the letters H and W are not said (H is the heads' output elsewhere)
    assert "its height over P times its width over P" in beat.spoken
    assert " H " not in f" {beat.spoken} " and " W " not in f" {beat.spoken} "
    assert "P squared times three" in b.beat_of("P²×3").spoken
    assert "head" not in said(b)
    # one notation for one quantity, the notes' own (P²×3, (H/P)×(W/P)): on screen, in captions, in the picture
    shown = " ".join([t.original_text for t in b.texts] + [bt.text for bt in b.beats])
    assert "P²×3" in shown and "(H/P)×(W/P)" in shown
    assert not any(other in shown for other in ("P²·3", "P×P×3", "(H/P)·(W/P)", ")·("))


# ----------------------------------------------------------------- each picture in its sentence


def test_the_image_the_patches_and_the_flattening_play_in_their_sentences(b):
    assert tags_in(b, b.beat_of("Here is a tiny one")) == {"image": 64}
    assert any("Create" in c.what for c in b.changes_in(b.beat_of("Cut it into four 4×4 patches")))
    # the pixels' moving copies become the flattened rows
    assert tags_in(b, b.beat_of("Read patch 1 row by row"))["flattened"] == 16
    assert tags_in(b, b.beat_of("The other patches do the same"))["flattened"] == 48
    assert "flattened" not in tags_in(b, b.beat_of("Cut it into four 4×4 patches"))


def test_the_projection_and_its_sweep_play_in_their_sentences(b):
    assert tags_in(b, b.beat_of("one shared 16×4 projection"))["projection"] == 64
    assert tags_in(b, b.beat_of("one shared 16×4 projection"))["patch_pixels"] == 16
    column = b.beat_of("Column 1 gives 0.7")
    assert draws(b, column)                                                    # the column box
    shown = tags_in(b, column)
    assert (shown["sum_term"], shown["patch_rows"]) == (8, 1)                  # the sum and its result
    assert "sum_term" not in tags_in(b, b.beat_of("rows drop out"))
    assert tags_in(b, b.beat_of("Columns 2 to 4 give 0.4, 0.8 and -0.6"))["patch_rows"] == 3
    same = b.beat_of("so it gets the same row")
    assert tags_in(b, same)["patch_rows"] >= 12
    assert draws(b, same)                                                      # the pair's boxes


def test_position_rows_tell_patches_1_and_3_apart_in_their_sentences(b, vr):
    assert tags_in(b, b.beat_of("CLS, a row of its own")) == {"tokens": 20}
    assert draws(b, b.beat_of("have identical rows"))
    assert tags_in(b, b.beat_of("position row added")) == {"position_rows": 20, "encoder_input": 20}
    differ = b.beat_of("different position rows")
    assert draws(b, differ)
    assert vr.stripe_pair == (0, 2) and "patches 1 and 3" in differ.text


def test_no_mask_is_a_full_grid_beside_a_triangle(b, vr):
    scene = b.scene
    arrows = scene.cls_arrows
    # the CLS row's attention as arrows: one from each of the five rows, the later patches included
    assert arrows.sources == [0, 1, 2, 3, 4]
    np.testing.assert_array_equal(arrows.weights, vr.encoder_attention[0])
    assert any("LaggedStart" in c.what for c in b.changes_in(b.beat_of("the CLS row read all five")))
    # each arrow's weight is written under its source in that sentence, the values of row 1 itself
    arrow_weights = b.by_tag("cls_arrow_weight")
    assert [arrow_weights[j].value for j in range(5)] == list(vr.encoder_attention[0])
    assert {m.tag for m in b.numbers_in(b.beat_of("the CLS row read all five"))} == {"cls_arrow_weight"}
    grid_beat = b.beat_of("Those weights are row 1 of a grid")
    assert tags_in(b, grid_beat) == {"encoder_attention": 25}
    # the CLS row's arrows become the grid's first row, in that sentence
    assert any("ReplacementTransform" in c.what for c in b.changes_in(grid_beat))
    # ...and the weights under them move into that row's cells (ten transforms: five arrows, five numbers)
    assert sum(c.what.count("ReplacementTransform") for c in b.changes_in(grid_beat)) >= 10
    # the image encoder's grid is full; beside it, chapter 3's real map blocks its 64·63/2 future cells
    assert len(scene.grids.grid.blocked) == 0 and len(scene.grids.grid.numbers) == 25
    assert int((scene.grids.causal.steps == -1).sum()) == 64 * 63 // 2
    triangle = b.beat_of("its real map is a triangle")
    assert any("FadeIn" in c.what for c in b.changes_in(triangle))
    lo, hi = vr.attention_bounds(2)
    assert (lo, hi) == (0.19, 0.21) and "0.19 and 0.21" in b.beat_of("nearly even").text
    shown = [m.value for m in b.all_with_tag("encoder_attention")]
    assert lo <= min(shown) and max(shown) <= hi                               # the caption's bounds hold


def test_unmasked_arrows_read_every_token_with_the_shared_width_rule():
    row = get_token_row(["CLS", "patch 1", "patch 2", "patch 3", "patch 4"], receiver=1, positions=False)
    weights = [0.1, 0.2, 0.3, 0.15, 0.25]
    arrows = get_unmasked_arrows(row, weights)
    # one arrow per token, those after the receiver included (attention_arrows would draw only the loop)
    assert arrows.sources == [0, 1, 2, 3, 4]
    assert [a.get_stroke_width() for a in arrows.arrows] == pytest.approx([arrow_stroke(w) for w in weights])
    # arrows from later tokens arc above the row, over to the receiver on their left
    for j in range(1, 5):
        arc = arrows.arrow(j)
        assert arc.get_top()[1] > row.boxes.get_top()[1]
        assert arc.get_left()[0] < row.boxes[j].get_center()[0]
    with pytest.raises(ValueError):
        get_unmasked_arrows(row, weights[:4])
    # the full grid has no blocked cell; the causal pattern blocks the n(n-1)/2 future cells and shows no number
    grid = get_attention_grid(np.full((3, 3), 1 / 3), ["a", "b", "c"])
    assert len(grid.blocked) == 0 and len(grid.numbers) == 9
    assert len(get_causal_pattern(4).blocked) == 6


def test_the_classifier_steps_play_in_their_sentences(b):
    assert tags_in(b, b.beat_of("Out come five updated rows")) == {"encoder_output": 20}
    logits = b.beat_of("gives two logits")
    assert tags_in(b, logits) == {"cls_output": 4, "classifier": 8, "logits": 2}
    assert tags_in(b, b.beat_of("Softmax turns them")) == {"probabilities": 2}
    assert "0.336 for vertical stripe and 0.664 for horizontal stripe" in b.beat_of("Softmax turns them").text
    assert tags_in(b, b.beat_of("the cross-entropy is")) == {"p_label": 1, "cross_entropy": 1}
    assert "favours the wrong class" in b.beat_of("Untrained, the model").text


def test_caveats_are_the_notes_words_and_no_developer_language(b):
    texts = " ".join(t.original_text.replace("\n", " ") for t in b.texts)
    for sentence in ("This is a tiny shape illustration, not a trained vision model",
                     "a shared 16×4 projection produces four-dimensional rows.",
                     "The projection is learned from the image task.",
                     "For RGB images the flattened width is P²×3.",
                     "prepend one learned CLS token to the four patch embeddings",
                     "Image classification does not need a causal future-token mask.",
                     "which are grouped here rather than silently omitted.",
                     "This is a roadmap, not a benchmark or a completed classifier.",
                     "Cross-attention remains a separate optional continuation.",
                     "All displayed numbers are rounded; calculations use full precision.",
                     "illustrative parameters", "An Image is Worth 16×16 Words"):
        assert sentence in texts, sentence
    for word in ("seeded", "random", "tenths"):
        assert word not in texts.lower() and word not in said(b).lower(), word
    # "this image model", not "this scene": the scene also shows chapter 3's trained model's map
    assert "nothing in this image model was trained" in said(b) and "in this scene was trained" not in said(b)
    # CLS is a row a real model learns; this one's numbers are illustrative (never "a learned row")
    assert "a real model learns it, and its numbers here are illustrative" in said(b)
    assert "a learned row" not in said(b)
    assert "not a benchmark or a completed classifier" in said(b)
    # cross-attention is named once, at the end, so that sentence says what it is; the notes' words stay
    cross = [bt for bt in b.beats if "cross-attention" in bt.spoken.lower()]
    assert len(cross) == 1
    assert "where queries come from one sequence and keys and values from another" in cross[0].spoken
    assert "where queries come from one sequence and keys and values from another" in cross[0].text
    assert "separate, optional continuation" in cross[0].spoken


def test_pixel_shades():
    assert pixel_color(1.0) == PIXEL_ON and pixel_color(0.0) == PIXEL_OFF
    mid = hex_to_rgb(pixel_color(0.5))
    assert np.abs(mid - (hex_to_rgb(PIXEL_ON) + hex_to_rgb(PIXEL_OFF)) / 2).max() <= 1
    image = get_patched_image(vision_roadmap())
    # four patches of 16 numbers, the stripe's cells drawn in the light shade
    assert [len(p.numbers) for p in image.patches] == [16] * 4
    shades = {s.get_fill_color().to_hex().upper() for p in image.patches for s in p.cells}
    assert shades == {PIXEL_ON, PIXEL_OFF}


def test_last_frame_shows_the_roadmap_with_the_cls_chips_in_their_colour(b):
    road = b.scene.road
    chip = road.chips[3]                        # "+ CLS row"
    assert chip.label.original_text == "+ CLS row"
    inside = chip.box.get_left() + np.array([0.08, 0, 0])
    assert np.abs(b.pixel(inside) - blend(CLS_COLOR, BACKGROUND, 0.08)).max() <= 3


def test_review_fixes_play_in_their_sentences(b, vr):
    from manim import ManimColor, VGroup
    from scenes.blocks.heat_map import FUTURE_COLOR
    scene = b.scene
    # every column's sum is written out, stacked, in the sentence that gives columns 2 to 4
    cols = b.beat_of("Columns 2 to 4 give")
    shown = tags_in(b, cols)
    for j in (1, 2, 3):
        assert shown[f"sum_term_{j}"] == 8 and shown[f"column_sum_{j}"] >= 1
        terms = b.by_tag(f"sum_term_{j}")
        signed = [terms[i].sign * terms[i].value for i in sorted(terms)]
        assert math.fsum(signed) == pytest.approx(vr.patch_rows[0, j], abs=1e-12)
    # column 2 by hand: rows 3, 4, 7, 8, 11, 12, 15, 16 of column 2 are 0.2 0.0 0.2 -0.1 -0.4 0.4 0.1 0.0 → 0.4
    t2 = b.by_tag("sum_term_1")
    assert [t2[i].sign * t2[i].value for i in sorted(t2)] == [0.2, 0.0, 0.2, -0.1, -0.4, 0.4, 0.1, 0.0]
    # the dark patches are outlined when named
    assert draws(b, b.beat_of("The dark patches, 2 and 4"))
    # the real map's masked future dark and named, its legend swatch the same dark
    causal = scene.grids.causal
    assert ManimColor(causal.mask.get_fill_color()).to_hex().upper() == FUTURE_COLOR.upper()
    assert ManimColor(scene.grids.legend.swatch.get_fill_color()).to_hex().upper() == FUTURE_COLOR.upper()
    assert "masked (future)" in {t.original_text for t in b.texts}
    # the rounding note while the 25 weights are on screen; the two extreme cells ringed when named
    assert any("All displayed numbers are rounded" in (getattr(t, "sentence", "") or "")
               for t in b.texts)
    even = b.beat_of("nearly even")
    assert draws(b, even) and len(scene.extreme_rings) == 2
    # the encoder box no longer implies post-norm ordering
    items = [t.original_text for t in scene.encoder.items]
    assert "each: residual, normalization" in items and not any("then" in t for t in items)
    # the encoder overview fits the frame with a margin (the output matrix was 25 px from the edge)
    overview = VGroup(scene.enc_in, scene.encoder, scene.enc_out)
    assert overview.get_left()[0] > -7.11 + 0.3 and overview.get_right()[0] < 7.11 - 0.3


def test_flattened_rows_clear_their_right_bracket(b):
    flat = b.scene.flat
    # rows other than patch 1 fade out where they stood (patch 1's numbers travel on to the projection)
    last = max(m.get_right()[0] for row in list(flat.entries)[1:] for m in row)
    # the bracket's serifs reach 0.1 inward: its upright stands clear of them and of the last digit
    assert flat.brackets[1][0].get_x() - last >= 0.15          # was 0.09: the serif touched the last "1"


def test_loss_says_natural_log_and_the_roadmap_badge_stays(b):
    texts = {t.original_text for t in b.texts}
    assert any(t.endswith("−ln") for t in texts)                       # ln, not an ambiguous log
    assert any("natural log" in n and "full precision" in n
               for n in (getattr(t, "sentence", "") or "" for t in b.texts))
    assert "a roadmap, not a benchmark or a completed classifier" in texts
    assert "FadeIn" in " ".join(c.what for c in b.changes_in(b.beat_of("This is a roadmap, not a benchmark")))
    assert b.scene.badge in b.scene.mobjects                            # still on screen at the end


def test_the_cross_entropy_caption_checks_at_the_precision_it_shows(b):
    """−ln 0.336 is 1.091, not the 1.092 shown: the caption names the unrounded probability the
    1.092 comes from, and that one checks (by hand: −ln 0.33552 = 1.0921)."""
    vr = vision_roadmap()
    p = vr.probabilities[vr.label]
    caption = b.beat_of("so the cross-entropy is minus the natural log of").text
    shown_p5 = f"{p:.5f}"
    assert shown_p5 in caption and f"{vr.cross_entropy:.3f}" in caption
    assert f"{-math.log(float(shown_p5)):.3f}" == f"{vr.cross_entropy:.3f}"
    assert f"{-math.log(round(p, 3)):.3f}" != f"{vr.cross_entropy:.3f}"      # why the note is needed
    # and the equation on screen shows those five places, so −ln of what it shows is what it shows
    (p_label,) = b.all_with_tag("p_label")
    assert p_label.original_text == shown_p5


def test_cls_is_expanded_once_and_the_series_credits_close_the_scene():
    b = built(PatchesAndCLS)
    first = next(bt for bt in b.beats if "CLS" in bt.text)
    assert "a classification token, CLS" in first.text and "classification token, C L S" in first.spoken
    assert sum("classification token" in bt.text for bt in b.beats) == 1
    # the credits scene 20 closed with now close the series (chapter 4 comes after chapter 3)
    from lesson_build.catalog import all_scenes
    order = [e.number for e in all_scenes()]
    assert max(order) == next(e.number for e in all_scenes() if e.file.endswith("chapter4_vision_roadmap.py"))
    assert b.beats[-1].text.startswith("The formula comes from Attention Is All You Need")
    assert "three blue one brown" in b.beats[-1].spoken and b.beats[-1].look >= 2.5
    assert {t.original_text for t in b.scene.credits} == {
        "Formula source: Attention Is All You Need, §3.2.2.",
        "Visual teaching references: 3Blue1Brown and Jay Alammar."}        # the notes' words
    assert b.scene.badge in b.scene.mobjects and b.scene.credit in b.scene.mobjects


def test_the_triangle_beside_the_full_grid_is_chapter_3s_real_map(b):
    """The masked map beside the image encoder's grid is the one-head model's real final-query map (scene
    20's), read here straight from the export with json, not through lesson_data; each cell's colour step
    is round(√w · 32) worked from the raw weight, the future cells (j > i) the dark mask."""
    import json
    from pathlib import Path

    from scenes.blocks.heat_map import HEAT_LEVELS

    raw = json.loads((Path(__file__).resolve().parents[1] / "lesson_data/exports/attention.json").read_text())
    heads = np.array(raw["models"]["one_head"]["heads"], dtype=float)
    assert heads.shape == (1, 64, 64)
    causal = b.scene.grids.causal
    np.testing.assert_array_equal(causal.weights, heads[0])
    # the export's own invariants: nothing after the window's end, every row sums to one
    assert not np.triu(heads[0], 1).any()
    np.testing.assert_allclose(heads[0].sum(axis=1), 1.0, atol=1e-5)
    # the last row's heaviest cell, by hand: its step is the rounded square root of its weight, in 32 steps
    j = int(np.argmax(heads[0, 63]))
    w = heads[0, 63, j]
    assert causal.steps[63, j] == math.floor(math.sqrt(w) * HEAT_LEVELS + 0.5)
    assert causal.steps[0, 0] == HEAT_LEVELS                 # the first token reads only itself: weight 1
    assert causal.steps[10, 11] == -1 and causal.steps[11, 10] >= 0
    texts = {t.original_text for t in b.texts}
    assert "chapter 3’s language model: causal mask" in texts          # which is which, in words
    assert "image encoder: no mask, all 25 weights" in texts


class _Watched(PatchesAndCLS):
    """PatchesAndCLS that notes, after each attention beat, whether the encoder box is on stage and how
    wide it is (the zoom: opened while its attention is shown, closed again after)."""

    def note_box(self, name):
        box = self.encoder.box
        on = any(box is m or box in m.get_family() for m in self.mobjects)
        self.watched = getattr(self, "watched", {})
        self.watched[name] = (on, box.width, box.get_center().copy())
        self.bounds = getattr(self, "bounds", {})
        for key, m in (("row", getattr(self, "token_row", None)), ("grid", getattr(self, "grids", None))):
            if m is not None and key not in self.bounds:
                from manim import VGroup
                m = m.left if key == "grid" else VGroup(m, *self.cls_arrows.arrows)   # the row and its arrows
                self.bounds[key] = (m.get_left()[0], m.get_right()[0], m.get_bottom()[1], m.get_top()[1])
        if getattr(self, "grids", None) is not None and "map" not in self.bounds:
            self.bounds["map"] = self.grids.right.get_left()[0]

    def show_encoder(self, vr):
        super().show_encoder(vr)
        self.note_box("before")

    def show_cls_reads_all(self, vr):
        super().show_cls_reads_all(vr)
        self.note_box("arrows")

    def show_full_grid(self, vr):
        super().show_full_grid(vr)
        self.note_box("grid")

    def show_triangle(self, vr):
        super().show_triangle(vr)
        self.note_box("triangle")

    def show_nearly_even(self, vr):
        super().show_nearly_even(vr)
        self.note_box("even")

    def show_encoder_output(self, vr):
        super().show_encoder_output(vr)
        self.note_box("after")


def test_the_attention_beats_happen_inside_the_opened_encoder_box():
    w = built(_Watched)
    scene, seen = w.scene, w.scene.watched
    assert all(on for on, _, _ in seen.values()), seen          # the box never leaves the stage
    small, big = seen["before"][1], seen["arrows"][1]
    assert big > 1.5 * small                                    # it opens for its attention...
    assert [seen[k][1] for k in ("grid", "triangle", "even")] == pytest.approx([big] * 3)
    assert seen["after"][1] == pytest.approx(small)             # ...and closes where it stood
    np.testing.assert_allclose(seen["after"][2], seen["before"][2])
    # the token row, its arrows and the full grid lie inside the opened box; the real map outside it
    box = scene.zoom_box
    for key in ("row", "grid"):              # (where they stood in those beats)
        left, right, bottom, top = scene.bounds[key]
        assert box.get_left()[0] < left and right < box.get_right()[0], key
        assert box.get_bottom()[1] < bottom and top < box.get_top()[1], key
    assert scene.bounds["map"] > box.get_right()[0]
    # the zoom is a play inside the sentence that says "Inside" (the box transformed, not faded)
    inside = w.beat_of("Inside, attention lets the CLS row")
    assert any("Transform" in c.what for c in w.changes_in(inside))


def test_cls_arrow_tips_land_spread_along_its_edge():
    from scenes.blocks.attention_arrows import RECEIVER_ROOM
    from scenes.blocks.unmasked_attention import spread_landings

    # by hand: CLS first of five on an edge from 0 to 1 (margin 0.06, loop room 0.3): its loop at 0.21,
    # the four patches over 0.36 … 0.94, the farthest (patch 4) by the loop, patch 1 at the right end
    x = spread_landings(0.0, 1.0, 0, 5)
    assert x[0] == pytest.approx(0.21)
    assert [x[j] for j in (4, 3, 2, 1)] == pytest.approx([0.36, 0.36 + 0.58 / 3, 0.36 + 2 * 0.58 / 3, 0.94])
    row = get_token_row(["CLS", "patch 1", "patch 2", "patch 3", "patch 4"], receiver=1, positions=False,
                        receiver_width=RECEIVER_ROOM)
    arrows = get_unmasked_arrows(row, [0.2] * 5, spread=True)
    ends = [arrows.arrow(j).get_end()[0] for j in range(1, 5)]
    assert min(np.diff(sorted(ends))) > 0.15                     # every tip its own place, not a knot
    box = row.boxes[0]
    assert all(box.get_left()[0] < e < box.get_right()[0] for e in ends)


def test_patch_1_drawn_upright_says_it_is_still_a_row(b):
    """21_05 shows patch 1 as a row of 16; beside the projection it stands upright. A label beside the
    column says that is a way of drawing it (still a row of 16), in the beat that stands it up."""
    scene = b.scene
    note = scene.upright_note
    assert note.original_text.replace("\n", " ") == "a row of 16, drawn upright"
    beat = b.beat_of("Next, one shared 16×4 projection")
    assert any("FadeIn" in c.what for c in b.changes_in(beat))
    assert note.get_right()[0] < scene.pixels.get_left()[0]            # beside the column, left of it
    assert note.get_top()[1] <= scene.pixels.get_top()[1] + 1e-6
    assert scene.pixels.n_rows == 16 and scene.pixels.n_cols == 1


def test_the_general_formulas_have_their_pictures(b, vr):
    """21_13-14 draw what the formulas count: the 8×8 image cut by lines into (8/4)·(8/4) patches, its
    sides H and W and one patch side P named; patch 1 lifted out as P × P; the colour patch as three
    P × P layers (P×P×3). Counted here from the picture, by hand: 8·8 pixels, one vertical and one
    horizontal cut, 16 squares a patch, three layers of 16."""
    pics = b.scene.formula_pics
    assert len(pics.cut.pixels) == 8 * 8 and len(pics.cut.cuts) == 2          # (8/4 - 1) lines each way
    # the cut is seen: its lines in the patches' own colour, unlike any pixel (the vertical one runs
    # along the stripe's white edge, where a white line vanished)
    pixel_shades = {m.get_fill_color().to_hex().upper() for m in pics.cut.pixels}
    for line in pics.cut.cuts:
        assert line.get_stroke_color().to_hex().upper() == PATCH_COLOR.upper() not in pixel_shades
    assert len(pics.patch.pixels) == 4 * 4
    assert [len(layer.squares) for layer in pics.block.layers] == [16, 16, 16]
    # patch 1's picture has the image's top-left 4×4 shades (the stripe in its columns 3 and 4)
    shades = [m.get_fill_color().to_hex().upper() for m in pics.patch.pixels]
    image = [m.get_fill_color().to_hex().upper() for m in pics.cut.pixels]
    assert shades == [image[r * 8 + c] for r in range(4) for c in range(4)]
    assert shades[2] == PIXEL_ON and shades[0] == PIXEL_OFF
    # the labels are the registered numbers of the formulas (H, W, P, 16, 48), nothing typed
    for part in (pics.sides, pics.p_label, pics.gray_label, pics.rgb_label):
        assert any(hasattr(m, "value") for m in part.get_family())
    # the cut in the sentence that gives (H/P)×(W/P); the layers in the one that gives P²×3
    assert any("Create" in c.what for c in b.changes_in(b.beat_of("(H/P)×(W/P)")))
    assert any("TransformFromCopy" in c.what for c in b.changes_in(b.beat_of("P²×3")))
    # the front (red) layer is drawn over the two behind it
    z = [layer.z_index for layer in pics.block.layers]
    assert z == sorted(z, reverse=True) and len(set(z)) == 3


def test_the_roadmap_stages_are_pictures_too(b, vr):
    """21_30-32: each chip carries a small picture of its stage, made from the scene's own shapes and
    counted here by hand: the 8×8 image (64 pixels), four patches, the 16×4 projection (64 cells), a CLS row
    of 4, five position rows of 4 (20), the encoder's full 5×5 grid (25, none masked), the final CLS row, and
    the two probabilities as bars whose heights keep their ratio (softmax of the logits, worked by hand)."""
    road = b.scene.road
    icons = {chip.label.original_text: chip.icon for chip in road.chips}
    assert len(icons["8×8 image"][0]) == 64
    assert len(icons["4 patches × 16 values"]) == 4
    assert len(icons["shared 16×4 projection"].cells) == 16 * 4
    assert len(icons["+ CLS row"].cells) == 4 and len(icons["final CLS row"].cells) == 4
    assert len(icons["+ position rows"].cells) == 5 * 4
    assert len(icons["encoder, no mask: 5 rows"].cells) == 5 * 5
    z = np.exp(vr.logits - vr.logits.max())
    p = z / z.sum()                                                  # softmax, by hand
    bars = icons["2 logits → softmax"].bars
    assert bars[1].height / bars[0].height == pytest.approx(p[1] / p[0], rel=1e-6)
    loss = icons["cross-entropy with the label"]
    assert loss.mark.get_center()[0] == pytest.approx(loss.bars[vr.label].get_center()[0])
    # every icon inside its chip's box, above its words
    for chip in road.chips:
        assert chip.box.get_left()[0] < chip.icon.get_left()[0] and chip.icon.get_right()[0] < chip.box.get_right()[0]
        assert chip.icon.get_bottom()[1] > chip.label.get_top()[1] and chip.icon.get_top()[1] < chip.box.get_top()[1]


def test_source_weights_sit_under_their_own_boxes_on_one_baseline():
    from scenes.style import baseline_y

    row = get_token_row(["CLS", "patch 1", "patch 2"], receiver=1, positions=False, font_size=20)
    weights = [0.5, 0.25, 0.25]
    labels = get_source_weights(row, weights, tag="w")
    assert [m.value for m in labels] == weights and [m.index for m in labels] == [0, 1, 2]
    for m, box in zip(labels, row.boxes):
        assert abs(m.get_x() - box.get_x()) < 1e-6 and m.get_top()[1] < box.get_bottom()[1]
    assert len({round(baseline_y(m), 9) for m in labels}) == 1
    with pytest.raises(ValueError, match="need 3 weights"):
        get_source_weights(row, [0.5, 0.5], tag="w")
