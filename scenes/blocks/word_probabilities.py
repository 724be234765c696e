"""Vocabulary words as rows: word | logit | probability | bar (width ∝ probability).

    rows = get_word_rows(VOCAB, mlp.logits, mlp.probabilities, candidate_indices)
    rows.rows[i].p             # NumberText of word i's probability (tag f"{prefix}p", index = i)
    rows.get_row_box(i)        # a highlight over word i's whole row

The numbers are the data layer's (the prediction MLP's logits and softmax probabilities); a bar of
probability 1 would be `bar_unit` wide, so bars of different tables compare.
"""
from __future__ import annotations

from manim import DOWN, LEFT, RIGHT, Rectangle, VGroup

from scenes.style import (
    DIM_TEXT_COLOR,
    HIGHLIGHT_OPACITY,
    LABEL_SIZE,
    NUMBER_SIZE,
    POSITIVE_COLOR,
    SMALL_SIZE,
    TEXT_COLOR,
    align_baseline,
    get_number,
    get_text,
)


class WordRows(VGroup):
    """Built by get_word_rows. Parts: `header` (VGroup of Text), `columns` {"logit", "p": VGroup
    of that column's numbers}, `rows` {vocabulary index: row with `.word`, `.logit` (or None),
    `.p`, `.bar`, `.anchor`}."""

    def get_row_box(self, i: int, color: str = POSITIVE_COLOR, fill_opacity: float = HIGHLIGHT_OPACITY * 0.6,
                    stroke_width: float = 2.0) -> Rectangle:
        anchor = self.rows[i].anchor
        box = Rectangle(width=anchor.width, height=anchor.height)
        return box.set_stroke(color, stroke_width).set_fill(color, fill_opacity).move_to(anchor)


def get_word_rows(vocab, logits, probabilities, indices, *, show_logits: bool = True, show_bars: bool = True,
                  bar_unit: float = 3.0, tag_prefix: str = "", font_size: float = NUMBER_SIZE,
                  word_size: float = LABEL_SIZE, row_height: float = 0.3, bar_color: str = DIM_TEXT_COLOR,
                  word_color: str = TEXT_COLOR) -> WordRows:
    """Rows for the vocabulary `indices`, in that order. Numbers: f"{tag_prefix}logit" and
    f"{tag_prefix}p", index = the word's vocabulary index."""
    indices = list(indices)
    group = WordRows()
    group.rows = {}
    words = {i: get_text(vocab[i], font_size=word_size, color=word_color) for i in indices}
    logit_m = ({i: get_number(logits[i], tag=f"{tag_prefix}logit", index=i, font_size=font_size)
                for i in indices} if show_logits else {})
    prob_m = {i: get_number(probabilities[i], tag=f"{tag_prefix}p", index=i, font_size=font_size)
              for i in indices}
    x_word = max(w.width for w in words.values())
    x_logit = x_word + 0.35 + max((m.width for m in logit_m.values()), default=0.0)
    x_p = (x_logit if show_logits else x_word) + 0.35 + max(m.width for m in prob_m.values())
    x_bar = x_p + 0.2
    widest = max(float(probabilities[i]) for i in indices)
    right_end = x_bar + (bar_unit * widest if show_bars else 0.0)
    group.header = VGroup()
    for text, x in [("word", x_word)] + ([("logit", x_logit)] if show_logits else []) + [("p", x_p)]:
        h = get_text(text, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).move_to([x, 0, 0], aligned_edge=RIGHT)
        align_baseline(h, row_height * 1.05)
        if text == "p":        # no glyph of "p" sits on the baseline: drop it by its descender
            ref = get_text("op", font_size=SMALL_SIZE)
            h.shift(DOWN * (ref[0].get_bottom()[1] - ref[1].get_bottom()[1]))
        group.header.add(h)
    group.add(group.header)
    group.columns = {"logit": VGroup(*logit_m.values()), "p": VGroup(*prob_m.values())}
    for r, i in enumerate(indices):
        y = -r * row_height
        row = VGroup()
        row.word, row.p, row.logit = words[i], prob_m[i], logit_m.get(i)
        row.word.move_to([x_word, 0, 0], aligned_edge=RIGHT)
        row.p.move_to([x_p, 0, 0], aligned_edge=RIGHT)
        parts = [row.word, row.p]
        if show_logits:
            row.logit.move_to([x_logit, 0, 0], aligned_edge=RIGHT)
            parts.append(row.logit)
        for m in parts:
            align_baseline(m, y)
        row.bar = VGroup()
        if show_bars:
            row.bar = Rectangle(width=max(bar_unit * float(probabilities[i]), 1e-3), height=row_height * 0.55)
            row.bar.set_stroke(width=0).set_fill(bar_color, 0.85)
            row.bar.move_to([x_bar, y + 0.07, 0], aligned_edge=LEFT)
        row.anchor = Rectangle(width=right_end + 0.2, height=row_height).set_stroke(width=0).set_fill(opacity=0)
        row.anchor.move_to([right_end / 2, y + 0.07, 0])
        row.add(row.anchor, *parts, row.bar)
        group.rows[i] = row
        group.add(row)
    return group


__all__ = ["WordRows", "get_word_rows"]
