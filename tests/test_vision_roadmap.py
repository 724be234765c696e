"""Chapter 4's data (lesson_data.vision_roadmap): the tiny ViT-style illustration's shapes, formulas
and determinism, recomputed by hand where short enough."""

import math

import numpy as np
import pytest

import lesson_data
from lesson_data import worksheet
from lesson_data.vision_roadmap import VISION_SEED, vision_roadmap


def test_vision_roadmap_shapes_and_formulas():
    v = vision_roadmap()
    assert v.illustrative
    assert v.image.shape == (8, 8)
    assert v.flattened.shape == (4, 16) and v.projection.shape == (16, 4)
    assert v.patch_rows.shape == (4, 4) and v.cls_row.shape == (4,)
    assert v.position_rows.shape == (5, 4) and v.encoder_input.shape == (5, 4)
    assert v.logits.shape == (2,) and v.probabilities.shape == (2,)
    # (H/P)(W/P) = (8/4)(8/4) = 4 patches; RGB patch width P^2 * 3 = 16 * 3 = 48
    assert v.n_patches == 4 and v.rgb_patch_width == 48 and v.patch_width == 16
    # a vertical stripe: every row of the image is the same
    assert np.all(v.image == v.image[0]) and v.image.any() and not v.image.all()
    # patch 2 (top-right) is rows 0-3, columns 4-7, flattened row by row
    np.testing.assert_array_equal(v.flattened[1], v.image[0:4, 4:8].reshape(-1))
    np.testing.assert_array_equal(v.flattened[2], v.image[4:8, 0:4].reshape(-1))
    np.testing.assert_allclose(v.patch_rows, v.flattened @ v.projection, rtol=0, atol=1e-15)
    np.testing.assert_allclose(v.encoder_input[0], v.cls_row + v.position_rows[0], rtol=0, atol=1e-15)
    np.testing.assert_allclose(v.encoder_input[1:], v.patch_rows + v.position_rows[1:], rtol=0, atol=1e-15)
    assert v.probabilities.sum() == pytest.approx(1.0, abs=1e-15)
    z = v.logits
    assert v.probabilities[0] == pytest.approx(math.exp(z[0]) / (math.exp(z[0]) + math.exp(z[1])), abs=1e-15)
    assert v.cross_entropy == pytest.approx(-math.log(v.probabilities[v.label]), abs=1e-15)
    # no causal mask: the CLS row (row 0) reads later rows
    np.testing.assert_allclose(v.encoder_attention.sum(axis=1), 1.0, rtol=0, atol=1e-15)
    assert np.all(v.encoder_attention[0, 1:] > 0)


def test_vision_roadmap_is_deterministic():
    a, b = vision_roadmap(), vision_roadmap()
    for field in ("projection", "cls_row", "position_rows", "encoder_output", "logits", "probabilities"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
    assert a.cross_entropy == b.cross_entropy


def test_identical_patches_differ_only_by_their_position_rows():
    v = vision_roadmap()
    # a vertical stripe repeats down the image: top-left = bottom-left (stripe), top-right = bottom-right (dark)
    assert v.identical_patches == ((0, 2), (1, 3))
    for a, b in v.identical_patches:
        np.testing.assert_array_equal(v.patch_rows[a], v.patch_rows[b])      # one shared projection
        ra, rb = a + 1, b + 1                                                # encoder rows: CLS is row 0
        assert not np.array_equal(v.encoder_input[ra], v.encoder_input[rb])
        np.testing.assert_allclose(v.encoder_input[ra] - v.encoder_input[rb],
                                   v.position_rows[ra] - v.position_rows[rb], rtol=0, atol=1e-15)


def test_the_module_owns_the_illustration():
    assert v_seed() == VISION_SEED == 20240607
    assert lesson_data.vision_roadmap is vision_roadmap                      # the package's name
    assert not hasattr(worksheet, "vision_roadmap") and not hasattr(worksheet, "VisionRoadmap")


def v_seed():
    return vision_roadmap().seed
