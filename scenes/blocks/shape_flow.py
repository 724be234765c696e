"""Pieces of a shape flow (arrays drawn as boxes whose sides follow their shapes; see shape_box):
an attention box with its future triangle masked, a strip over one row of a box, a concatenation
box coloured by head, and a routed connector for a path that must go around other boxes.

    a = get_masked_box("A¹", (10, 10), color=head_color(1))        # a.mask_triangle
    strip = get_row_strip(q_box)                                     # the last row (the receiver)
    c = get_concat_box("[H¹ | H²]", (10, 4), widths=(2, 2), colors=(blue, orange))   # c.halves
    path = get_routed_arrow([start, corner_1, corner_2, end])       # straight legs, one tip

Used by chapter 2's shape flow (scene 6) and recap (scene 17).
"""
from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, UP, Circle, Line, Polygon, Rectangle, VGroup

from scenes.blocks.flow_arrow import get_arrow
from scenes.blocks.shape_box import ShapeBox, get_shape_box
from scenes.style import DIM_TEXT_COLOR, LABEL_SIZE, MASK_COLOR, RECEIVER_COLOR, TEXT_COLOR, get_text


def get_masked_box(name: str, shape, *, color: str, unit: float = 0.13, stepped: bool = False,
                   **kwargs) -> ShapeBox:
    """A square attention-shaped box with its future (upper-right) triangle in the mask colour:
    rows are receivers, columns sources, and a receiver cannot read a later source.

    stepped=True draws the mask as a staircase of whole cells (j > i), so the diagonal — each
    receiver reading itself — stays open; the default is the smooth half-square."""
    box = get_shape_box(name, shape, color=color, unit=unit, **kwargs)
    r = box.box
    if stepped:
        n = int(shape[0])
        left, top = r.get_left()[0], r.get_top()[1]
        w, h = r.width / n, r.height / n
        if n < 2:
            points = [r.get_corner(UP + RIGHT)] * 3          # nothing is in the future of one token
        else:
            points = [[left + w, top, 0], [left + n * w, top, 0], [left + n * w, top - (n - 1) * h, 0]]
            for k in range(n - 1, 0, -1):
                points += [[left + k * w, top - k * h, 0], [left + k * w, top - (k - 1) * h, 0]]
        tri = Polygon(*points)
    else:
        tri = Polygon(r.get_corner(UP + LEFT), r.get_corner(UP + RIGHT), r.get_corner(DOWN + RIGHT))
    tri.set_stroke(width=0).set_fill(MASK_COLOR, 1.0)
    box.add(tri)
    box.mask_triangle = tri
    return box


def get_row_strip(shape_box, row: int = -1, *, color: str = RECEIVER_COLOR, opacity: float = 0.6) -> Rectangle:
    """A filled strip over one row of a shape box (default: the last row, the receiver's), its
    height one row of the box (the box's height over its number of rows)."""
    r = shape_box.box if hasattr(shape_box, "box") else shape_box
    rows = shape_box.shape[0] if getattr(shape_box, "shape", None) else 1
    row = row % rows
    h = r.height / rows
    strip = Rectangle(width=r.width, height=h).set_stroke(color, 2).set_fill(color, opacity)
    return strip.move_to([r.get_x(), r.get_top()[1] - h * (row + 0.5), 0])


def get_column_strip(shape_box, column: int, *, color: str = RECEIVER_COLOR, opacity: float = 0.6) -> Rectangle:
    """A filled strip over one column of a shape box."""
    r = shape_box.box
    cols = shape_box.shape[1]
    w = r.width / cols
    strip = Rectangle(width=w, height=r.height).set_stroke(color, 2).set_fill(color, opacity)
    return strip.move_to([r.get_left()[0] + w * (column % cols + 0.5), r.get_y(), 0])


def get_concat_box(name: str, shape, *, widths, colors, unit: float = 0.13, opacity: float = 0.6,
                   **kwargs) -> ShapeBox:
    """A [n, d₁ + d₂ + …] box split into one filled block per head (`widths` columns each, in
    `colors`), so the joined messages still show which head each column came from."""
    box = get_shape_box(name, shape, unit=unit, **kwargs)
    total = sum(widths)
    x = box.box.get_left()[0]
    parts = VGroup()
    for w, color in zip(widths, colors):
        width = box.box.width * w / total
        part = Rectangle(width=width, height=box.box.height).set_stroke(width=0).set_fill(color, opacity)
        part.move_to([x + width / 2, box.box.get_y(), 0])
        parts.add(part)
        x += width
    box.box.set_fill(opacity=0)
    box.add_to_back(parts)
    box.halves = parts
    return box


def get_routed_arrow(points, *, color: str = DIM_TEXT_COLOR, stroke_width: float = 3) -> VGroup:
    """A connector through `points` (straight legs at right angles, say), the last leg an arrow:
    for a path that must go around the boxes between its ends."""
    if len(points) < 2:
        raise ValueError("a routed arrow needs at least two points")
    legs = VGroup(*(Line(a, b).set_stroke(color, stroke_width) for a, b in zip(points[:-2], points[1:-1])))
    tip = get_arrow(points[-2], points[-1], color=color, buff=0, stroke_width=stroke_width)
    path = VGroup(legs, tip)
    path.legs, path.tip = legs, tip
    return path


def get_plus_node(radius: float = 0.2, color: str = TEXT_COLOR) -> VGroup:
    """⊕: the residual sum. Parts: `circle`."""
    circle = Circle(radius=radius).set_stroke(color, 2)
    plus = get_text("+", font_size=LABEL_SIZE, color=color).move_to(circle)
    node = VGroup(circle, plus)
    node.circle = circle
    return node


__all__ = ["get_masked_box", "get_row_strip", "get_column_strip", "get_concat_box", "get_routed_arrow",
           "get_plus_node"]
