"""A trained language model's causal attention map as a small labelled panel: the real map of one head
(heat_map.get_heat_map, the same square-root colour steps and dark future as scene 20's), a title that
says which model it is, and a legend for the masked future. For a "full grid beside the triangle"
comparison (scene 21), where the triangle is chapter 3's real one, not a schematic.

    panel = get_causal_map_panel(amap.model("one_head").heads[0], color, side=3.6,
                                 title="chapter 3’s language model: causal mask",
                                 about="one head, 64 tokens of a test story")
    panel.map.mask        # the future cells (the triangle a row may not read)
    panel.map.weights     # the weights drawn, as given

No number is computed here but the picture: the weights come from the caller (lesson_data.comparison).
"""
from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, UP, Rectangle, VGroup

from scenes.blocks.heat_map import FUTURE_COLOR, get_heat_map
from scenes.style import DIM_TEXT_COLOR, LABEL_SIZE, SMALL_SIZE, get_text


class CausalMapPanel(VGroup):
    """Built by get_causal_map_panel. Parts: `map` (a HeatMap), `title`, `legend` (`.swatch`,
    `.label`), `about` (a dim line under the legend, or an empty group)."""


def get_causal_map_panel(weights, color: str, side: float, *, title: str, about: str | None = None,
                         mask_label: str = "masked (future)", title_color: str = DIM_TEXT_COLOR) -> CausalMapPanel:
    """The map (row i: receiver i, column j: source j; the future dark), its title above, the
    mask's legend below it (left-aligned with the map) and an optional line about the data."""
    panel = CausalMapPanel()
    hm = get_heat_map(weights, color, side)
    head = get_text(title, font_size=LABEL_SIZE, color=title_color)
    head.next_to(hm.frame, UP, buff=0.15)
    swatch = Rectangle(width=0.3, height=0.3).set_stroke(DIM_TEXT_COLOR, 0.8).set_fill(FUTURE_COLOR, 1.0)
    label = get_text(mask_label, font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
    legend = VGroup(swatch, label).arrange(RIGHT, buff=0.12)
    legend.next_to(hm.frame, DOWN, buff=0.2).align_to(hm.frame, LEFT)
    legend.swatch, legend.label = swatch, label
    line = VGroup()
    if about:
        line = get_text(about, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        line.next_to(legend, DOWN, buff=0.12).align_to(hm.frame, LEFT)
    panel.add(head, hm, legend, line)
    panel.map, panel.title, panel.legend, panel.about = hm, head, legend, line
    return panel


__all__ = ["CausalMapPanel", "get_causal_map_panel"]
