"""Chapter 4, scene 21 (PatchesAndCLS): it builds without LaTeX, every number on screen is the data
layer's illustrative number under the display rule, and the chain image → patches → rows → CLS +
positions → encoder → logits → softmax → cross-entropy holds when recomputed from the numbers shown."""
from __future__ import annotations

import math

import numpy as np
import pytest

from lesson_data.display import fmt
from lesson_data.vision_roadmap import vision_roadmap
from scenes.chapter4_vision_roadmap import PIXEL_OFF, PIXEL_ON, PatchesAndCLS, get_patched_image, pixel_color
from scenes.style import NEGATIVE_COLOR
from tests.scene_harness import assert_builds_cleanly, build_scene, hex_to_rgb

_CACHE: dict = {}


@pytest.fixture(scope="module")
def b():
    if "b" not in _CACHE:
        _CACHE["b"] = build_scene(PatchesAndCLS, pixel_height=270)
    return _CACHE["b"]


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


def assert_on_screen(b, tag, expected):
    expected = np.asarray(expected, dtype=float)
    got = shown_array(b, tag, expected.shape)
    np.testing.assert_array_equal(got, expected)
    for m in b.by_tag(tag).values():
        assert m.original_text == fmt(m.value, m.places)


def test_scene_builds_cleanly(b):
    assert_builds_cleanly(b, min_sections=6, min_subcaptions=1)
    assert b.sections == ["image", "flatten", "projection", "CLS and positions", "encoder", "classifier"]


def test_every_array_is_the_data_layers(b, vr):
    assert_on_screen(b, "image", vr.image)
    assert_on_screen(b, "flattened", vr.flattened)
    assert_on_screen(b, "projection", vr.projection)
    assert_on_screen(b, "patch_rows", vr.patch_rows)
    assert_on_screen(b, "tokens", np.vstack([vr.cls_row, vr.patch_rows]))
    assert_on_screen(b, "position_rows", vr.position_rows)
    assert_on_screen(b, "encoder_input", vr.encoder_input)
    assert_on_screen(b, "encoder_attention", vr.encoder_attention)
    assert_on_screen(b, "encoder_output", vr.encoder_output)
    assert_on_screen(b, "cls_output", vr.cls_output[None, :])
    assert_on_screen(b, "classifier", vr.classifier)
    assert_on_screen(b, "logits", vr.logits[None, :])
    assert_on_screen(b, "probabilities", vr.probabilities[None, :])
    (ce,) = b.all_with_tag("cross_entropy")
    assert ce.value == vr.cross_entropy and ce.original_text == fmt(vr.cross_entropy)


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
    np.testing.assert_allclose(tokens + pos, shown_array(b, "encoder_input", (5, 4)), rtol=0, atol=1e-12)
    # no causal mask: every row of the encoder's attention reads all five rows
    att = shown_array(b, "encoder_attention", (5, 5))
    assert (att > 0).all()
    np.testing.assert_allclose(att.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    # the final CLS row is row 1 of the encoder output, then two logits, softmax, cross-entropy
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


def test_caveats_and_credit_are_on_screen(b):
    texts = " ".join(t.original_text for t in b.texts)
    assert "illustrative" in b.scene.badge.original_text and "untrained" in b.scene.badge.original_text
    assert "no causal mask" in texts
    assert "This is a roadmap, not a benchmark or a completed classifier." in texts
    assert "these probabilities are not a result" in texts
    assert "An Image is Worth 16×16 Words" in b.scene.credit.original_text
    for group in ("per-row MLP", "+ residual, then normalization"):
        assert group in texts
    said = " ".join(s[2] for s in b.subcaptions)
    for sentence in ("This is a tiny shape illustration, not a trained vision model",
                     "A Transformer encoder updates all five rows.",
                     "Image classification does not need a causal future-token mask.",
                     "which are grouped here rather than silently omitted.",
                     "The projection is learned from the image task.",
                     "For RGB images the flattened width is P²×3."):
        assert sentence in said, sentence


def test_pixel_shades():
    assert pixel_color(1.0) == PIXEL_ON and pixel_color(0.0) == PIXEL_OFF
    mid = hex_to_rgb(pixel_color(0.5))
    assert np.abs(mid - (hex_to_rgb(PIXEL_ON) + hex_to_rgb(PIXEL_OFF)) / 2).max() <= 1
    image = get_patched_image(vision_roadmap())
    # four patches of 16 numbers, the stripe's cells drawn in the light shade
    assert [len(p.numbers) for p in image.patches] == [16] * 4
    shades = {s.get_fill_color().to_hex().upper() for p in image.patches for s in p.cells}
    assert shades == {PIXEL_ON, PIXEL_OFF}


def test_last_frame_shows_the_roadmap_caveat_in_its_colour(b):
    roadmap = b.scene.roadmap
    want = hex_to_rgb(NEGATIVE_COLOR)
    ys = np.linspace(roadmap.get_bottom()[1], roadmap.get_top()[1], 12)
    xs = np.linspace(roadmap.get_left()[0], roadmap.get_right()[0], 80)
    best = min(np.abs(b.pixel((x, y)) - want).max() for x in xs for y in ys)
    assert best <= 40
