"""One attention head's chain as its own stages, drawn the way the matrices multiply:

    Qʰ [T, d]  beside the scores, Kʰᵀ [d, T] above them  →  QʰKʰᵀ / √d  [T, T] (tokens × tokens)
    → masked, softmaxed in place: Aʰ [T, T]  ·  Vʰ [T, d]   (→ Hʰ = AʰVʰ [T, d], drawn by the caller)

    chain = get_head_chain(64, 64, 16, color=HEAD_COLORS[1], side=0.74)
    chain.q, chain.kt, chain.s, chain.v           # the four arrays (Rectangles)
    chain.s_text, chain.a_text, chain.mask        # the scores' name, Aʰ's name, the future triangle
    chain.box                                     # an invisible frame from Qʰ's left to Vʰ's right
    chain.to_attention()                          # the end state after mask and softmax (for a Transform)

Widths are to scale within the lane: a [T, d] block is d / C of a [T, C] box's width, so a head's
block is the same width as its column block of Q. Sizes are the caller's (read from the model config);
nothing is computed here but the picture.
"""
from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, UP, Polygon, Rectangle, VGroup

from scenes.blocks.heat_map import FUTURE_COLOR as FUTURE_FILL      # the cells a token cannot read
from scenes.style import BACKGROUND, BUFF_SMALL, DIM_TEXT_COLOR, SMALL_SIZE, TEXT_COLOR, get_text

SCORE_FILL, ATTENTION_FILL, BLOCK_FILL = 0.12, 0.32, 0.7


class HeadChain(VGroup):
    """Built by get_head_chain. Parts: `q`, `kt`, `s`, `v` (Rectangles), their labels `q_name`,
    `q_shape`, `kt_label` (`kt_name`, `kt_shape`), `s_text`, `s_shape`, `v_name`, `v_shape`; `dot` (the product sign before Vʰ);
    `mask` and `a_text` (members, to be shown by the softmax); `box` (the chain's extent); `shapes`
    ({name: (rows, cols)} of the arrays as drawn)."""

    def to_attention(self) -> VGroup:
        """What the scores become: the same square, filled as weights, the future masked, named Aʰ."""
        return VGroup(self.s.copy().set_fill(self.color, ATTENTION_FILL), self.mask, self.a_text)


def _mask(rect) -> Polygon:
    tri = Polygon(rect.get_corner(UP + LEFT), rect.get_corner(UP + RIGHT), rect.get_corner(DOWN + RIGHT))
    return tri.set_stroke(width=0).set_fill(FUTURE_FILL, 1.0)


def get_head_chain(tokens: int, d_model: int, d_head: int, *, color: str, side: float,
                   head: str = "ʰ") -> HeadChain:
    """Head `head`'s Qʰ, Kʰᵀ, scores and Vʰ (centred on the scores' square at the origin)."""
    T, C, d = tokens, d_model, d_head
    thin = side * d / C
    chain = HeadChain()
    chain.color = color
    chain.shapes = {"Q": (T, d), "K^T": (d, T), "S": (T, T), "V": (T, d)}

    s = Rectangle(width=side, height=side).set_stroke(color, 2).set_fill(color, SCORE_FILL)
    q = Rectangle(width=thin, height=side).set_stroke(BACKGROUND, 1.5).set_fill(color, BLOCK_FILL)
    q.next_to(s, LEFT, buff=0.16)
    kt = Rectangle(width=side, height=thin).set_stroke(BACKGROUND, 1.5).set_fill(color, BLOCK_FILL)
    kt.next_to(s, UP, buff=0.1)
    v = Rectangle(width=thin, height=side).set_stroke(BACKGROUND, 1.5).set_fill(color, BLOCK_FILL)
    v.next_to(s, RIGHT, buff=0.55)
    dot = get_text("·", font_size=SMALL_SIZE + 8, color=TEXT_COLOR).move_to((s.get_right() + v.get_left()) / 2)

    # labels beside their arrays, so that the chain is no taller than Kʰᵀ over the scores: Qʰ's name and
    # shape left of it (above and below the arrow that comes in), Kʰᵀ's left of it (over the arrow); the
    # scores' name inside the square, their shape and axes under it; Vʰ's name and shape over it (the space
    # under it is the next stage's labels')
    q_name = get_text(f"Q{head}", font_size=SMALL_SIZE, color=color)
    q_name.next_to(q, LEFT, buff=0.08).align_to(q, UP)
    q_shape = get_text(f"[{T}, {d}]", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    q_shape.next_to(q, LEFT, buff=0.08).align_to(q, DOWN)
    kt_shape = get_text(f"[{d}, {T}]", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    kt_shape.next_to(kt, LEFT, buff=0.08)
    kt_name = get_text(f"K{head}ᵀ", font_size=SMALL_SIZE, color=color)
    kt_name.next_to(kt_shape, LEFT, buff=0.1).align_to(kt_shape, DOWN)
    kt_label = VGroup(kt_name, kt_shape)
    s_text = get_text(f"Q{head}K{head}ᵀ\n/ √{d}", font_size=SMALL_SIZE, color=TEXT_COLOR, line_spacing=0.8)
    s_text.move_to(s)
    s_shape = get_text(f"[{T}, {T}]\ntokens ×\ntokens", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR,
                       line_spacing=0.8).next_to(s, DOWN, buff=BUFF_SMALL)
    v_shape = get_text(f"[{T}, {d}]", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).next_to(v, UP, buff=BUFF_SMALL)
    v_name = get_text(f"V{head}", font_size=SMALL_SIZE, color=color).next_to(v_shape, UP, buff=0.06)

    mask = _mask(s)
    # Aʰ's name in the lower-left half (the readable past), clear of the masked triangle
    a_text = get_text(f"A{head}", font_size=SMALL_SIZE + 2, color=TEXT_COLOR)
    a_text.move_to(s.get_corner(DOWN + LEFT) + side * 0.27 * (UP + RIGHT))

    # the mask and Aʰ's name belong to the chain from the start (they move with it) but are shown by the softmax
    chain.add(q, kt, s, v, dot, q_name, q_shape, kt_label, s_text, s_shape, v_name, v_shape, mask, a_text)
    chain.q, chain.kt, chain.s, chain.v, chain.dot = q, kt, s, v, dot
    chain.q_name, chain.q_shape, chain.kt_label, chain.kt_name, chain.kt_shape = q_name, q_shape, kt_label, kt_name, kt_shape
    chain.s_text, chain.s_shape, chain.v_name, chain.v_shape = s_text, s_shape, v_name, v_shape
    chain.mask, chain.a_text = mask, a_text
    box = Rectangle(width=v.get_right()[0] - q.get_left()[0], height=side).set_stroke(width=0).set_fill(opacity=0)
    box.move_to([(q.get_left()[0] + v.get_right()[0]) / 2, 0, 0])
    chain.box = box
    chain.add(box)
    return chain


__all__ = ["HeadChain", "get_head_chain"]
