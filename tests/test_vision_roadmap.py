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


def test_the_stripe_pair_and_the_dark_patches_by_hand():
    v = vision_roadmap()
    # the stripe sits in columns 3-4 (one-based), inside the left patches 1 and 3; 2 and 4 are dark
    assert v.stripe_pair == (0, 2)
    assert v.dark_patches == (1, 3)
    np.testing.assert_array_equal(v.patch_rows[1], np.zeros(4))
    np.testing.assert_array_equal(v.patch_rows[3], np.zeros(4))


def test_patch_1_reads_eight_rows_of_the_projection_and_sums_them_by_hand():
    v = vision_roadmap()
    # patch 1 read row by row is [0, 0, 1, 1] four times: pixels 3, 4, 7, 8, 11, 12, 15, 16 (one-based)
    assert v.read_rows(0) == (2, 3, 6, 7, 10, 11, 14, 15)
    assert v.read_rows(1) == ()
    terms = v.projection_terms(0)
    assert terms.shape == (16, 4)
    # a dark pixel contributes a zero row; a lit one (value 1) contributes its projection row unchanged
    np.testing.assert_array_equal(terms[[0, 1, 4, 5, 8, 9, 12, 13]], np.zeros((8, 4)))
    np.testing.assert_array_equal(terms[list(v.read_rows(0))], v.projection[list(v.read_rows(0))])
    # column 1 worked by hand from the projection's entries: 0.1 - 0.5 + 0.5 - 0.2 + 0.3 + 0.4 + 0.0 + 0.1
    assert [v.projection[i, 0] for i in v.read_rows(0)] == [0.1, -0.5, 0.5, -0.2, 0.3, 0.4, 0.0, 0.1]
    assert math.fsum(terms[:, 0]) == pytest.approx(0.7, abs=1e-12)
    # all four columns, by hand: patch 1's row is [0.7, 0.4, 0.8, -0.6]
    np.testing.assert_allclose(terms.sum(axis=0), [0.7, 0.4, 0.8, -0.6], rtol=0, atol=1e-12)
    # second method: an explicit loop over pixels and columns equals the data layer's patch row
    loop = [math.fsum(v.flattened[0][i] * v.projection[i, j] for i in range(16)) for j in range(4)]
    np.testing.assert_allclose(loop, v.patch_rows[0], rtol=0, atol=1e-12)


def test_untrained_attention_is_nearly_even_and_the_untrained_classifier_prefers_the_wrong_class():
    v = vision_roadmap()
    lo, hi = v.attention_range
    assert lo == v.encoder_attention.min() and hi == v.encoder_attention.max()
    # five rows: an even split would be 1/5 each; these are within 0.01 of it
    assert 0.19 < lo < 0.2 < hi < 0.21
    # the image is the vertical stripe (label 0); the untrained model gives it about 0.336 and 0.664
    # to the horizontal stripe (logits -1.151 and -0.467: the second is larger)
    assert v.classes[v.label] == "vertical stripe"
    assert v.logits[1] > v.logits[0]
    assert v.predicted == 1 != v.label
    assert round(float(v.probabilities[0]), 3) == 0.336


def test_grid_channels_and_rounded_attention_bounds_by_hand():
    v = vision_roadmap()
    assert v.grid == (2, 2) and v.grid[0] * v.grid[1] == v.n_patches      # (8/4, 8/4)
    assert v.rgb_channels == 3 and v.patch_width * v.rgb_channels == 48   # 16 × 3
    lo, hi = v.attention_bounds()
    assert (lo, hi) == (0.19, 0.21)
    # outward rounding keeps the claim true: every weight lies inside the short bounds
    assert lo <= v.encoder_attention.min() and v.encoder_attention.max() <= hi
    assert v.attention_bounds(3) == (0.190, 0.210)                       # 0.19045… → 0.190, 0.20952… → 0.210
    assert v.attention_bounds(1) == (0.1, 0.3)


def test_attention_extremes_are_the_cells_bounding_the_range_by_a_plain_scan():
    v = vision_roadmap()
    cells = [(float(v.encoder_attention[i, j]), i, j) for i in range(5) for j in range(5)]
    # a second method: sort every (value, row, column) and take the ends
    lo, hi = min(cells), max(cells, key=lambda c: (c[0], -c[1], -c[2]))
    assert v.attention_extremes == ((lo[1], lo[2]), (hi[1], hi[2]))
    # the screen's grid shows them as 0.190 and 0.210: CLS reading patch 3, CLS reading patch 2
    assert v.attention_extremes == ((0, 3), (0, 2))
    assert (round(lo[0], 3), round(hi[0], 3)) == (0.190, 0.210)
