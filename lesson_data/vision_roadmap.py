"""Chapter 4's data: a roadmap to vision, as one tiny ViT-style shape illustration (not trained).

An 8×8 grayscale image (a vertical stripe) is cut into four 4×4 patches; each patch's 16 values are
flattened and multiplied by one shared 16×4 projection; a CLS row is prepended and position rows are
added (identical patches, 1 and 3 here, get different rows only through them); one unmasked attention sublayer and a
per-row MLP (each with a residual and a normalization) form the encoder group; the CLS row's output
goes through a 4×2 classifier to two logits, a softmax and a cross-entropy. Everything is float64 and
unrounded (rounding happens only at display). Pure numpy: no torch, no manim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lesson_data.worksheet import softmax

VISION_SEED = 20240607  # illustrative parameters only; not a trained vision model
RGB_CHANNELS = 3


@dataclass(frozen=True, eq=False)
class VisionRoadmap:
    """A tiny, deterministic shape illustration of a ViT-style classifier (not trained).

    The projection, CLS row, position rows, encoder and classifier weights are drawn from a seeded
    numpy RNG (tenths, so the screen shows short numbers); every number is illustrative.
    """

    H: int
    W: int
    P: int
    image: np.ndarray  # [8, 8] grayscale, a vertical stripe
    patches: np.ndarray  # [4, 4, 4] row-major order: top-left, top-right, bottom-left, bottom-right
    flattened: np.ndarray  # [4, 16]
    projection: np.ndarray  # [16, 4] shared by all patches
    patch_rows: np.ndarray  # [4, 4]
    cls_row: np.ndarray  # [4]
    position_rows: np.ndarray  # [5, 4]
    encoder_input: np.ndarray  # [5, 4] = [CLS; patch rows] + position rows
    encoder_attention: np.ndarray  # [5, 5] one unmasked softmax attention (no causal mask)
    encoder_output: np.ndarray  # [5, 4] the grouped encoder's output rows
    cls_output: np.ndarray  # [4] final CLS row
    classifier: np.ndarray  # [4, 2]
    classifier_bias: np.ndarray  # [2]
    classes: tuple[str, str]
    logits: np.ndarray  # [2]
    probabilities: np.ndarray  # [2]
    label: int  # index into classes
    cross_entropy: float  # -log p[label], natural log
    n_patches: int  # (H/P)(W/P)
    patch_width: int  # P^2 (grayscale)
    rgb_patch_width: int  # P^2 * 3
    seed: int
    illustrative: bool = True

    @property
    def identical_patches(self) -> tuple[tuple[int, int], ...]:
        """Pairs (a, b), a < b, zero-based, of patches with the same pixels: the same patch rows, so
        only their position rows tell them apart in the encoder input. Here ((0, 2), (1, 3)): the stripe
        repeats down the image, so patches 1 and 3 (the stripe) and 2 and 4 (dark) are pairs."""
        n = len(self.flattened)
        return tuple((a, b) for a in range(n) for b in range(a + 1, n)
                     if np.array_equal(self.flattened[a], self.flattened[b]))

    @property
    def stripe_pair(self) -> tuple[int, int]:
        """The first identical pair whose pixels are not all dark (zero-based): the pair the lesson
        follows, because the same patch row for two places in the image is why position rows exist.
        Here (0, 2): patches 1 and 3, the two halves of the stripe."""
        for a, b in self.identical_patches:
            if self.flattened[a].any():
                return a, b
        raise ValueError("no identical pair of patches with lit pixels")

    @property
    def dark_patches(self) -> tuple[int, ...]:
        """Patches (zero-based) whose pixels are all 0: the projection sends them to the zero row.
        Here (1, 3): patches 2 and 4."""
        return tuple(k for k in range(len(self.flattened)) if not self.flattened[k].any())

    def read_rows(self, k: int) -> tuple[int, ...]:
        """Zero-based rows of the projection that patch k reads: its non-zero pixels. A pixel of 0
        multiplies its row by 0, so patch k's row is the pixel-weighted sum of these rows alone."""
        return tuple(int(i) for i in np.flatnonzero(self.flattened[k]))

    def projection_terms(self, k: int) -> np.ndarray:
        """[P², 4]: pixel i of patch k times row i of the projection. Column j sums to
        patch_rows[k, j] (the row-times-column sweep, one term per pixel)."""
        return _frozen(self.flattened[k][:, None] * self.projection)

    @property
    def attention_range(self) -> tuple[float, float]:
        """Smallest and largest encoder attention weight (untrained: all close to 1/5)."""
        return float(self.encoder_attention.min()), float(self.encoder_attention.max())

    @property
    def grid(self) -> tuple[int, int]:
        """Patches down and across: (H/P, W/P), here (2, 2); their product is n_patches."""
        return self.H // self.P, self.W // self.P

    @property
    def rgb_channels(self) -> int:
        """Colour channels of an RGB image: the 3 in P²·3."""
        return self.rgb_patch_width // self.patch_width

    def attention_bounds(self, places: int = 2) -> tuple[float, float]:
        """attention_range widened outward to `places` decimals (floor, ceil), so "every weight lies
        between lo and hi" stays true when said with short numbers: here (0.19, 0.21)."""
        lo, hi = self.attention_range
        scale = 10 ** places
        return math.floor(lo * scale) / scale, math.ceil(hi * scale) / scale

    @property
    def attention_extremes(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """(row, column) of the smallest and of the largest encoder weight (ties: the first in
        row-major order): the two cells that bound attention_range."""
        a = self.encoder_attention
        lo = np.unravel_index(int(np.argmin(a)), a.shape)
        hi = np.unravel_index(int(np.argmax(a)), a.shape)
        return (int(lo[0]), int(lo[1])), (int(hi[0]), int(hi[1]))

    @property
    def predicted(self) -> int:
        """Index into classes of the larger probability (ties: the first class)."""
        return int(np.argmax(self.probabilities))


def _frozen(arr) -> np.ndarray:
    out = np.array(arr, dtype=np.float64)  # always a fresh copy
    out.setflags(write=False)
    return out


def _layer_norm(x: np.ndarray, eps: float = 1e-5) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def vision_roadmap() -> VisionRoadmap:
    H = W = 8
    P = 4
    image = np.zeros((H, W))
    image[:, 2:4] = 1.0  # a vertical stripe, inside the left patches
    grid_h, grid_w = H // P, W // P
    patches = image.reshape(grid_h, P, grid_w, P).transpose(0, 2, 1, 3).reshape(grid_h * grid_w, P, P)
    flattened = patches.reshape(grid_h * grid_w, P * P)

    rng = np.random.default_rng(VISION_SEED)

    def tenths(*shape):
        return rng.integers(-5, 6, size=shape) / 10.0

    projection = tenths(P * P, 4)
    cls_row = tenths(4)
    position_rows = tenths(grid_h * grid_w + 1, 4)
    w_q, w_k, w_v = tenths(4, 4), tenths(4, 4), tenths(4, 4)
    w_mlp1, w_mlp2 = tenths(4, 8), tenths(8, 4)
    classifier = tenths(4, 2)
    classifier_bias = np.zeros(2)

    patch_rows = flattened @ projection
    encoder_input = np.vstack([cls_row, patch_rows]) + position_rows
    # The encoder group: one unmasked attention sublayer and one per-row MLP, each with a residual
    # and a normalization (post-norm), so the CLS row can gather the patches.
    q, k, v = encoder_input @ w_q, encoder_input @ w_k, encoder_input @ w_v
    attention = np.vstack([softmax(row) for row in (q @ k.T) / math.sqrt(4)])
    x = _layer_norm(encoder_input + attention @ v)
    encoder_output = _layer_norm(x + np.maximum(x @ w_mlp1, 0.0) @ w_mlp2)
    cls_output = encoder_output[0]
    logits = cls_output @ classifier + classifier_bias
    probabilities = softmax(logits)
    label = 0
    return VisionRoadmap(
        H=H, W=W, P=P, image=_frozen(image), patches=_frozen(patches), flattened=_frozen(flattened),
        projection=_frozen(projection), patch_rows=_frozen(patch_rows), cls_row=_frozen(cls_row),
        position_rows=_frozen(position_rows), encoder_input=_frozen(encoder_input),
        encoder_attention=_frozen(attention), encoder_output=_frozen(encoder_output),
        cls_output=_frozen(cls_output), classifier=_frozen(classifier),
        classifier_bias=_frozen(classifier_bias), classes=("vertical stripe", "horizontal stripe"),
        logits=_frozen(logits), probabilities=_frozen(probabilities), label=label,
        cross_entropy=float(-math.log(probabilities[label])),
        n_patches=(H // P) * (W // P), patch_width=P * P, rgb_patch_width=P * P * RGB_CHANNELS,
        seed=VISION_SEED,
    )


__all__ = ["VISION_SEED", "VisionRoadmap", "vision_roadmap"]
