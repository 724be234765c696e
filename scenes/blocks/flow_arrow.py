"""One arrow for "this becomes that" (shape flows, pipelines, diagrams): a straight arrow with a
fixed tip, so short and long arrows look alike. Attention itself is drawn with attention_arrows.

    get_arrow(box_a.get_right(), box_b.get_left())
"""
from __future__ import annotations

from manim import Arrow

from scenes.style import DIM_TEXT_COLOR


def get_arrow(start, end, color: str = DIM_TEXT_COLOR, buff: float = 0.1, stroke_width: float = 3,
              tip_length: float = 0.16, **kwargs) -> Arrow:
    return Arrow(start, end, buff=buff, stroke_width=stroke_width, tip_length=tip_length,
                 max_tip_length_to_length_ratio=0.5, max_stroke_width_to_length_ratio=20, color=color,
                 **kwargs)


__all__ = ["get_arrow"]
