"""One source's contribution to a message: α × [v_a, v_b] = [α v_a, α v_b].

    svp = get_scalar_vector_product(head.weights[-1, j], head.V[j], color=head_color(1))
    svp.alpha, svp.vector, svp.product       # NumberText / row vectors (LabeledMatrix)
    svp.expanded                             # optional middle step [α × v_a, α × (v_b)] (expanded=True)

The product is the unrounded α times the unrounded value row (the lesson: "all products use the
unrounded weights"); pass `product=` to show an array the data layer computed instead.
`vector_places` shows the value row with its own precision (3.1, not 3.100); `stacked=True` puts
the three terms on three lines, each "=" under the one before (for a narrow panel).
"""
from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, RIGHT, VGroup

from scenes.blocks.labeled_matrix import get_brackets, get_row_vector
from scenes.style import (
    BUFF_SMALL,
    LABEL_SIZE,
    NUMBER_SIZE,
    PLACES,
    TEXT_COLOR,
    get_number,
    get_text,
)


class ScalarVectorProduct(VGroup):
    """Built by get_scalar_vector_product. Parts: `alpha`, `times`, `vector`, `equals`,
    `expanded` (empty unless expanded=True), `equals_2`, `product`."""


def _get_expanded(alpha: float, vector, *, places, font_size, color, tag, vector_places=None) -> VGroup:
    """[α × v_a, α × (v_b)] written out, each factor a NumberText (so the harness sees them); a
    negative factor in parentheses, as a person writes it: 0.718 × (-0.1)."""
    terms = VGroup()
    for k, v in enumerate(vector):
        factor = get_number(v, places if vector_places is None else vector_places, tag=f"{tag}_v" if tag else None,
                            index=k, font_size=font_size)
        if v < 0:
            factor = VGroup(get_text("(", font_size=font_size), factor,
                            get_text(")", font_size=font_size)).arrange(RIGHT, buff=0.03)
        term = VGroup(
            get_number(alpha, places, tag=f"{tag}_alpha" if tag else None, index=k,
                       font_size=font_size, color=color),
            get_text("×", font_size=font_size),
            factor,
        ).arrange(RIGHT, buff=0.08)
        terms.add(term)
    terms.arrange(RIGHT, buff=0.3)
    brackets = get_brackets(terms.height + 0.2, terms.width + 0.2).move_to(terms)
    return VGroup(brackets, terms)


def get_scalar_vector_product(
    alpha: float,
    vector,
    *,
    product=None,
    color: str = TEXT_COLOR,
    vector_color: str = TEXT_COLOR,
    col_labels=None,
    tag: str | None = None,
    places: int = PLACES,
    font_size: float = NUMBER_SIZE,
    expanded: bool = False,
    vector_places: int | None = None,
    stacked: bool = False,
) -> ScalarVectorProduct:
    """α × v = α v laid out on one line; `alpha` in `color` (the head's), vector entries in `vector_color`."""
    vector = np.asarray(vector, dtype=float).ravel()
    product = alpha * vector if product is None else np.asarray(product, dtype=float).ravel()
    g = ScalarVectorProduct()
    g.alpha = get_number(alpha, places, tag=f"{tag}_alpha" if tag else None, font_size=font_size + 2,
                         color=color)
    g.times = get_text("×", font_size=LABEL_SIZE + 4)
    g.vector = get_row_vector(vector, col_labels, tag=f"{tag}_v" if tag else None, font_size=font_size,
                              color=vector_color, places=PLACES if vector_places is None else vector_places)
    g.equals = get_text("=", font_size=LABEL_SIZE + 4)
    g.expanded = VGroup()
    g.equals_2 = VGroup()
    if expanded:
        g.expanded = _get_expanded(alpha, vector, places=places, font_size=font_size, color=color,
                                   tag=f"{tag}_exp" if tag else None, vector_places=vector_places)
        g.equals_2 = get_text("=", font_size=LABEL_SIZE + 4)
    g.product = get_row_vector(product, col_labels, tag=f"{tag}_product" if tag else None,
                               font_size=font_size, color=color)
    if stacked:
        return _stack(g, expanded)
    parts = [g.alpha, g.times, g.vector, g.equals]
    if expanded:
        parts += [g.expanded, g.equals_2]
    parts.append(g.product)
    g.add(*parts)
    g.arrange(RIGHT, buff=BUFF_SMALL * 2)
    # keep the operators on the numbers' line, not the labels' line
    line_y = g.vector.cell_center(0, 0)[1]
    for m in (g.alpha, g.times, g.equals):
        m.set_y(line_y)
    if expanded:
        g.equals_2.set_y(line_y)
        g.expanded.set_y(line_y)
    return g


def _stack(g: ScalarVectorProduct, expanded: bool) -> ScalarVectorProduct:
    """α × v on the first line; "= [α·v_a, α·v_b]" and "= αv" below it, the "=" signs in one column
    and each line's numbers on that line's middle."""
    first = VGroup(g.alpha, g.times, g.vector).arrange(RIGHT, buff=BUFF_SMALL * 2)
    line_y = g.vector.cell_center(0, 0)[1]
    for m in (g.alpha, g.times):
        m.set_y(line_y)
    lines = [first]
    if expanded:
        lines.append(VGroup(g.equals, g.expanded).arrange(RIGHT, buff=BUFF_SMALL * 2))
        lines.append(VGroup(g.equals_2, g.product).arrange(RIGHT, buff=BUFF_SMALL * 2))
    else:
        lines.append(VGroup(g.equals, g.product).arrange(RIGHT, buff=BUFF_SMALL * 2))
    previous = first
    for line in lines[1:]:
        line.next_to(previous, DOWN, buff=0.22)
        line.align_to(first, LEFT)
        sign, body = line
        centre = body.cell_center(0, 0)[1] if hasattr(body, "cell_center") else body.get_center()[1]
        sign.set_y(centre)
        previous = line
    g.add(*lines)
    g.lines = VGroup(*lines)
    return g


__all__ = ["ScalarVectorProduct", "get_scalar_vector_product"]
