"""Small pictures of the patch arithmetic: an image cut into P × P patches with its sides named, and a
patch of a colour image as P × P × 3 (three channel layers). They stand beside the formulas
(H/P)×(W/P) and P²×3 so a formula has the thing it counts on screen (scene 21).

    cut = get_cut_image(vr.image, vr.P, shade=pixel_color, side=1.6)
    cut.pixels, cut.cuts            # the pixel squares; the lines between patches (draw them to cut)
    cut.patch(0)                    # the outline of patch 1
    block = get_channel_block(vr.P, side=0.9)
    block.layers                    # three P × P layers, front (red) first, each behind offset up-right

Nothing here computes a number: the labels are the caller's (get_count, registered).
"""
from __future__ import annotations

import numpy as np
from manim import Line, Rectangle, Square, VGroup

from scenes.style import BACKGROUND, DIM_TEXT_COLOR, TEXT_COLOR

CHANNEL_COLORS = ("#E06C75", "#98C379", "#61AFEF")   # red, green, blue layers (front to back)
LAYER_OFFSET = np.array([0.16, 0.13, 0.0])            # each layer behind sits this far up and right


class CutImage(VGroup):
    """Built by get_cut_image. Parts: `pixels` (H·W squares, row-major), `cuts` (the lines between
    patches), `frame`; `patch(k)` is an outline of patch k (row-major); `H`, `W`, `P`, `cell`."""

    def patch(self, k: int, color: str = TEXT_COLOR, stroke_width: float = 3.0) -> Rectangle:
        grid_w = self.W // self.P
        pr, pc = divmod(k, grid_w)
        side = self.P * self.cell
        left, top = self.frame.get_left()[0], self.frame.get_top()[1]
        box = Rectangle(width=side, height=side).set_stroke(color, stroke_width)
        return box.move_to([left + (pc + 0.5) * side, top - (pr + 0.5) * side, 0])


def get_cut_image(image, P: int, *, shade, side: float = 1.6, cut_color: str = TEXT_COLOR) -> CutImage:
    """The H × W image (values in [0, 1], drawn by `shade(value) -> colour`) at `side` wide, with the
    lines that cut it into P × P patches."""
    image = np.asarray(image, dtype=float)
    H, W = image.shape
    if H % P or W % P:
        raise ValueError(f"a {H}×{W} image does not cut into {P}×{P} patches")
    cell = side / W
    cut = CutImage()
    cut.H, cut.W, cut.P, cut.cell = H, W, P, cell
    cut.pixels = VGroup(*(Square(side_length=cell).set_stroke(BACKGROUND, 0.5)
                          .set_fill(shade(float(image[r, c])), 1.0).move_to([c * cell, -r * cell, 0])
                          for r in range(H) for c in range(W)))
    frame = Rectangle(width=W * cell, height=H * cell).set_stroke(DIM_TEXT_COLOR, 1.5).move_to(cut.pixels)
    left, right = frame.get_left()[0], frame.get_right()[0]
    top, bottom = frame.get_top()[1], frame.get_bottom()[1]
    cut.cuts = VGroup(
        *(Line([left + c * cell, top, 0], [left + c * cell, bottom, 0]) for c in range(P, W, P)),
        *(Line([left, top - r * cell, 0], [right, top - r * cell, 0]) for r in range(P, H, P)),
    ).set_stroke(cut_color, 3)
    cut.frame = frame
    cut.add(cut.pixels, frame, cut.cuts)
    return cut


class ChannelBlock(VGroup):
    """Built by get_channel_block. Parts: `layers` (front, red, first), each a VGroup of a backing, P·P
    squares (`.squares`) and `.outline`, each further back offset by LAYER_OFFSET; `P`."""


def get_channel_block(P: int, *, side: float = 0.9, colors=CHANNEL_COLORS) -> ChannelBlock:
    """A P × P patch of a colour image as three P × P layers stacked one behind the other (red in front)."""
    cell = side / P
    block = ChannelBlock()
    block.P = P
    block.layers = VGroup()
    for k, color in enumerate(colors):
        squares = VGroup(*(Square(side_length=cell).set_stroke(color, 1.0).set_fill(color, 0.28)
                           .move_to([j * cell, -i * cell, 0]) for i in range(P) for j in range(P)))
        outline = Rectangle(width=side, height=side).set_stroke(color, 2.5).move_to(squares)
        # an opaque backing so a layer hides the one behind it (a block, not a tangle of lines)
        backing = Rectangle(width=side, height=side).set_stroke(width=0).set_fill(BACKGROUND, 1.0).move_to(squares)
        layer = VGroup(backing, squares, outline)
        layer.squares, layer.outline = squares, outline
        layer.shift(LAYER_OFFSET * k)
        layer.set_z_index(len(colors) - k)       # the front layer stays in front, whenever the others come in
        block.layers.add(layer)
    block.add(*reversed(block.layers))     # the back layer drawn first
    return block


__all__ = ["CHANNEL_COLORS", "CutImage", "ChannelBlock", "get_cut_image", "get_channel_block"]
