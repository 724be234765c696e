"""A head's weights as shares of one: a bar of fixed length, cut into one segment per source.

    share = get_weight_share(reading.weights, color=head_color(1), length=2.4,
                             words=example.tokens, named=(4, 5, 6))
    scene.play(share.grow_from(arrows))     # each arrow turns into its segment, in source order
    share.segment(j)                        # source j's part (zero-based): weight j of the bar's length
    share.total                             # "= 1" at the bar's end

Softmax gives one head one row of weights that adds up to one. Drawn at a fixed length for "one",
that row is a budget: a head that leans on three sources gives each about a third; a head with its
own row can give most of it to one source. Every head's bar has the same length, so two heads'
bars compare at a glance, whatever else the picture shows. The weights come from the data layer;
nothing is computed here but the picture's geometry.
"""
from __future__ import annotations

import math

from manim import DOWN, RIGHT, LaggedStart, Rectangle, TransformFromCopy, VGroup

from scenes.style import BACKGROUND, DIM_TEXT_COLOR, MIN_TEXT_SIZE, TEXT_COLOR, get_text

NAMED_OPACITY = 0.9      # a named (useful) source's segment
OTHER_OPACITY = 0.35     # every other source's: still read, still part of the one


class WeightShare(VGroup):
    """Built by get_weight_share. Parts: `segments` (one Rectangle per source, in source order,
    end to end), `frame` (the outline of the whole bar: the "one"), `total` (the "= 1" label),
    `labels` (the named sources' words, under their segments, {source index: Text}), `word_labels`
    (the same words as a VGroup), `weights`, `length` (the bar's length: a weight of one)."""

    def segment(self, j: int) -> Rectangle:
        return self.segments[j]

    def grow_from(self, arrows, lag_ratio: float = 0.06, run_time: float = 1.6):
        """Each attention arrow turns into its segment (the arrow's weight is the segment's share).
        The outline (`frame`) and the "= 1" (`total`) are the scene's to bring in with it."""
        steps = [TransformFromCopy(arrows.arrow(j), seg) for j, seg in enumerate(self.segments)
                 if arrows.arrow(j) is not None]
        return LaggedStart(*steps, lag_ratio=lag_ratio, run_time=run_time)


WORD_GAP = 0.2      # between neighbouring word labels: about a space at the label size


def get_weight_share(weights, *, color: str, length: float = 2.4, height: float = 0.16,
                     words=None, named=(), label_size: float = MIN_TEXT_SIZE,
                     total_text: str = "= 1", labelled: bool = True) -> WeightShare:
    """One head's row of weights (all >= 0, adding up to one) as a bar `length` long.

    words: the source words (one per weight), needed only for `named`; named: one-based positions
    of the sources whose segments are drawn strong (and, if `labelled`, named by their word below).
    """
    weights = [float(w) for w in weights]
    if not weights or any(w < 0 or not math.isfinite(w) for w in weights):
        raise ValueError(f"a weight share draws non-negative weights, got {weights}")
    if abs(math.fsum(weights) - 1.0) > 1e-9:
        raise ValueError(f"a head's weights add up to one; these add up to {math.fsum(weights)!r}")
    if named and labelled and (words is None or len(words) < len(weights)):
        raise ValueError("named sources need one word per weight")
    for p in named:
        if not 1 <= p <= len(weights):
            raise ValueError(f"named source {p} is not a position 1..{len(weights)}")
    share = WeightShare()
    share.weights, share.length = weights, length
    share.segments, share.labels = VGroup(), {}
    start = 0.0
    for j, w in enumerate(weights):
        seg = Rectangle(width=max(w * length, 1e-4), height=height)
        strong = (j + 1) in named
        seg.set_fill(color, NAMED_OPACITY if strong else OTHER_OPACITY).set_stroke(BACKGROUND, 1.0)
        seg.move_to(RIGHT * (start + w / 2) * length)
        seg.weight, seg.source = w, j
        start += w
        share.segments.add(seg)
    share.frame = Rectangle(width=length, height=height).set_stroke(DIM_TEXT_COLOR, 1.2)
    share.frame.move_to(RIGHT * length / 2)
    share.total = get_text(total_text, font_size=label_size, color=TEXT_COLOR)
    share.total.next_to(share.frame, RIGHT, buff=0.1)
    share.add(share.segments, share.frame, share.total)
    word_labels = VGroup()
    for p in (named if labelled else ()):
        label = get_text(words[p - 1], font_size=label_size, color=color)
        label.next_to(share.segments[p - 1], DOWN, buff=0.06)
        share.labels[p - 1] = label
        word_labels.add(label)
    # neighbouring words never overlap or run together: each at least a word space right of the one
    # before it (0.08 read as "hoodedred wool" at 720p)
    ordered = sorted(share.labels.items())
    for (_, a), (_, b) in zip(ordered, ordered[1:]):
        gap = a.get_right()[0] + WORD_GAP - b.get_left()[0]
        if gap > 0:
            b.shift(RIGHT * gap)
    share.word_labels = word_labels
    share.add(word_labels)
    return share
