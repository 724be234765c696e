"""A box standing for an array, with its name above and its shape (e.g. "[10, 4]") below.

    box = get_shape_box("E", ws.E.shape)                      # size ∝ the shape
    box = get_shape_box("MLP", None, width=1.2, height=0.8)  # a fixed-size stage box, no shape

With `unit` set, the box is `cols × unit` wide and `rows × unit` tall (clamped), so a [10, 2]
is visibly narrower than a [10, 4] and a [10, 10] is square: the shape flow reads at a glance.
"""
from __future__ import annotations

from manim import DOWN, UP, Rectangle, VGroup

from scenes.style import BUFF_SMALL, LABEL_SIZE, SMALL_SIZE, TEXT_COLOR, DIM_TEXT_COLOR, format_shape, get_text


class ShapeBox(VGroup):
    """Built by get_shape_box. Parts: `box` (Rectangle), `name_label`, `shape_label`; `shape`."""


def get_shape_box(
    name: str,
    shape=None,
    *,
    color: str = TEXT_COLOR,
    unit: float = 0.13,
    width: float | None = None,
    height: float | None = None,
    min_side: float = 0.18,
    max_side: float = 1.6,
    fill_opacity: float = 0.25,
    name_size: float = LABEL_SIZE,
    shape_size: float = SMALL_SIZE,
    name_inside: bool = False,
    shape_text: str | None = None,
) -> ShapeBox:
    """A ShapeBox named `name` for an array of `shape` (tuple of ints, or None for no shape label).

    shape_text replaces the label under the box (default: format_shape(shape), e.g. "[10, 4]").
    """
    if shape is not None and len(shape) == 1:
        shape = (1, shape[0])
    if width is None:
        width = min(max_side, max(min_side, (shape[-1] if shape is not None else 4) * unit))
    if height is None:
        height = min(max_side, max(min_side, (shape[0] if shape is not None else 4) * unit))
    group = ShapeBox()
    group.shape = tuple(int(d) for d in shape) if shape is not None else None
    group.box = Rectangle(width=width, height=height).set_stroke(color, 2).set_fill(color, fill_opacity)
    group.name_label = get_text(name, font_size=name_size, color=color)
    if name_inside:
        group.name_label.move_to(group.box)
    else:
        group.name_label.next_to(group.box, UP, buff=BUFF_SMALL)
    group.shape_label = VGroup()
    if shape is not None:
        group.shape_label = get_text(shape_text or format_shape(shape), font_size=shape_size,
                                     color=DIM_TEXT_COLOR)
        group.shape_label.next_to(group.box, DOWN, buff=BUFF_SMALL)
    group.add(group.box, group.name_label, group.shape_label)
    return group


__all__ = ["ShapeBox", "get_shape_box"]
