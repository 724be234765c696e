"""What a head carries: value rows as small bar charts, and the head's message slot beside the receiver.

    chips = VGroup(*(get_value_chip(v) for v in example.values))        # one per token, under its word
    slot = get_message_slot(example.features, color=head_color(1))       # beside the receiver
    flow = get_message_flow(chips, contributions(example, reading), slot, color=head_color(1))
    scene.play(flow.scale_copies())   # over each chip, a copy of its value scaled by its weight
    scene.play(flow.move_copies())    # the scaled copies move into the slot, end to end
    flow.segments                     # what stays in the slot: the message, one segment per source
    flow.get_unfilled()               # the empty rest of each track ("each feature arrives only in part")
    get_message_flow(..., min_copy_width=0.03)   # a thinly read row still shows a tiny scaled part

A value row is drawn without digits, as one track per coordinate with a bar as long as the value
(values in [0, 1], illustrative). A head's message is the weighted sum of the value rows, so each
source's scaled copy becomes one segment of each track of the slot, laid end to end: the longest
segment is the most-read source's contribution, and a track's filled length is the message's
coordinate. The contributions (weight times value) come from the data layer; nothing is computed
here but the picture's geometry.
"""
from __future__ import annotations

import numpy as np
from manim import (DOWN, LEFT, RIGHT, UP, AnimationGroup, LaggedStart, Line, MoveAlongPath, Rectangle,
                   ReplacementTransform, Succession, TransformFromCopy, VGroup, VMobject, smooth)

from scenes.blocks.attention_arrows import path_along
from scenes.style import BACKGROUND, DIM_TEXT_COLOR, MIN_TEXT_SIZE, TEXT_COLOR, get_text

TRACK_OPACITY = 0.7
BAR_OPACITY = 0.95
DIMMED_BAR_OPACITY = 0.25    # a value bar once its scaled copy has been taken from it


class ValueChip(VGroup):
    """Built by get_value_chip. Parts: `tracks` (one outline per coordinate), `bars` (one filled bar
    per non-zero coordinate, left-aligned in its track), `bar(k)` (None for a zero coordinate),
    `values`, `track_length`."""

    def bar(self, k: int):
        return self._bars.get(k)


def get_value_chip(values, *, color: str = TEXT_COLOR, track_length: float = 0.42, bar_height: float = 0.07,
                   gap: float = 0.035) -> ValueChip:
    """One value row (entries in [0, 1]) as a small bar chart, one track per coordinate, top to bottom."""
    values = [float(v) for v in values]
    if not all(0.0 <= v <= 1.0 for v in values):
        raise ValueError(f"a value chip draws entries in [0, 1], got {values}")
    chip = ValueChip()
    chip.values, chip.track_length, chip._bars = values, track_length, {}
    chip.tracks, chip.bars = VGroup(), VGroup()
    for k, v in enumerate(values):
        track = Rectangle(width=track_length, height=bar_height).set_stroke(DIM_TEXT_COLOR, 1, opacity=TRACK_OPACITY)
        track.shift(DOWN * k * (bar_height + gap))
        chip.tracks.add(track)
        if v > 0:
            bar = Rectangle(width=track_length * v, height=bar_height).set_stroke(width=0)
            bar.set_fill(color, BAR_OPACITY).align_to(track, LEFT).set_y(track.get_y())
            chip.bars.add(bar)
            chip._bars[k] = bar
    chip.add(chip.tracks, chip.bars)
    return chip


class MessageSlot(VGroup):
    """Built by get_message_slot. Parts: `tracks` (one outline per coordinate), `labels` (the
    coordinates' names, right of the tracks, or empty), `title` (above, or empty), `track_length`,
    `bar_height`, `color`; `segment(k, start, length)` is a bar of track k from `start` to
    `start + length` (fractions of the track)."""

    def segment(self, k: int, start: float, length: float) -> Rectangle:
        track = self.tracks[k]
        seg = Rectangle(width=max(length, 0.0) * self.track_length, height=self.bar_height)
        seg.set_fill(self.color, BAR_OPACITY).set_stroke(BACKGROUND, 1.0)
        seg.move_to(track.get_left() + RIGHT * (start + length / 2) * self.track_length)
        return seg


def get_message_slot(features, *, color: str, title: str | None = "message", track_length: float = 1.26,
                     bar_height: float = 0.13, gap: float = 0.1, labels: bool = True,
                     label_size: float = MIN_TEXT_SIZE) -> MessageSlot:
    """A head's empty message: one track per coordinate, the coordinates' names to the right."""
    slot = MessageSlot()
    slot.track_length, slot.bar_height, slot.color = track_length, bar_height, color
    slot.tracks, slot.labels = VGroup(), VGroup()
    for k, name in enumerate(features):
        track = Rectangle(width=track_length, height=bar_height).set_stroke(color, 1.5, opacity=TRACK_OPACITY)
        track.shift(DOWN * k * (bar_height + gap))
        slot.tracks.add(track)
        if labels:
            slot.labels.add(get_text(name, font_size=label_size, color=DIM_TEXT_COLOR)
                            .next_to(track, RIGHT, buff=0.12))
    slot.add(slot.tracks, slot.labels)
    slot.title = VGroup()
    if title:
        slot.title = get_text(title, font_size=label_size, color=color).next_to(slot.tracks, UP, buff=0.1)
        slot.title.align_to(slot.tracks, LEFT)
        slot.add(slot.title)
    return slot


class MessageFlow(VGroup):
    """Built by get_message_flow. Parts: `segments` (what ends in the slot: one bar per source and
    non-zero coordinate), `by_source` ({source index: VGroup of its segments}), `cells` ({(source
    index, coordinate): its segment}, for the non-zero ones; `track(k)` the slot's track k with its
    segments), `copies` (the scaled
    copies over the chips, {source index: VGroup}), `filled` (each track's filled fraction: the
    message). Play `scale_copies()` then `move_copies()`, or `animation()` for both at once."""

    def _start(self, slot: MessageSlot) -> None:
        self.segments, self.by_source, self.copies, self._triples, self.cells = VGroup(), {}, {}, [], {}
        self.copy_widths = {}      # source index: the widths its scaled copies start with
        self._slot = slot

    def _add_source(self, j: int, parts) -> None:
        """Record source j's parts, (coordinate k, chip bar or None, scaled copy, segment) each."""
        mine, copies = VGroup(*(seg for *_, seg in parts)), VGroup(*(copy for _, _, copy, _ in parts))
        for k, _, _, seg in parts:
            self.cells[j, k] = seg
        self.by_source[j], self.copies[j] = mine, copies
        self.copy_widths[j] = [c.width for c in copies]
        self.segments.add(*mine)
        self._triples.append([(bar, copy, seg) for _, bar, copy, seg in parts])

    def scale_copies(self, lag_ratio: float = 0.08, run_time: float = 1.2, dim_to: float = DIMMED_BAR_OPACITY):
        """Over each chip, a copy of its bars shrinks to its weight times the value (head colour),
        while the full bar behind it dims to `dim_to`: what shrank stands out against what it was."""
        steps = [AnimationGroup(*(AnimationGroup(TransformFromCopy(bar, copy), bar.animate.set_fill(opacity=dim_to))
                                  for bar, copy, _ in triples))
                 for triples in self._triples if triples]
        return LaggedStart(*steps, lag_ratio=lag_ratio, run_time=run_time)

    def move_copies(self, lag_ratio: float = 0.12, run_time: float = 1.8, along=None):
        """The scaled copies travel into the slot, each source's after the ones before it. With
        `along` (the head's AttentionArrows), each source's copies travel together along its own
        arrow: up to where the arrow leaves the word, over its arc to the receiver, then into the
        slot, where each becomes its segment (see `path_of`)."""
        if along is None:
            steps = [AnimationGroup(*(ReplacementTransform(copy, seg) for _, copy, seg in triples))
                     for triples in self._triples if triples]
            return LaggedStart(*steps, lag_ratio=lag_ratio, run_time=run_time)
        steps = []
        self.paths = {}                            # the way each source's copies went, for the tests
        for j, triples in enumerate(self._triples):
            if not triples:
                continue
            # one path for the source, each copy on it at its own offset (no group is added to the
            # scene, so nothing is left behind once the copies have become their segments)
            path = self.paths[j] = self.path_of(j, along)   # from the centre of the source's copies
            steps.append(AnimationGroup(*(
                Succession(MoveAlongPath(copy, path.copy().shift(copy.get_center() - path.get_start()),
                                         rate_func=smooth,
                                         run_time=0.75),
                           ReplacementTransform(copy, seg, run_time=0.25))
                for _, copy, seg in triples)))
        return LaggedStart(*steps, lag_ratio=lag_ratio, run_time=run_time)

    def path_of(self, j: int, along) -> VMobject:
        """The way source j's copies travel: from over its chip, along its arrow's curve (source to
        receiver), to its segments in the slot."""
        arrow = along.arrow(j)
        if arrow is None:
            raise ValueError(f"source {j} has no arrow to travel along")
        copies = VGroup(*(copy for _, copy, _ in self._triples[j]))
        segments = VGroup(*(seg for _, _, seg in self._triples[j]))
        return path_along(arrow, copies.get_center(), segments.get_center())

    def track(self, k: int) -> VGroup:
        """Track k of the slot and the segments laid in it, in source order."""
        return VGroup(self._slot.tracks[k], *(seg for (_, kk), seg in self.cells.items() if kk == k))

    def get_unfilled(self, color: str = DIM_TEXT_COLOR, opacity: float = 0.3) -> VGroup:
        """The part of each track the message leaves empty (after its segments), as dim bars."""
        parts = VGroup()
        for k, track in enumerate(self._slot.tracks):
            rest = max(1.0 - float(self.filled[k]), 0.0)
            bar = Rectangle(width=max(rest, 1e-3) * self._slot.track_length, height=self._slot.bar_height)
            bar.set_fill(color, opacity).set_stroke(color, 1.0, opacity=0.8)
            bar.align_to(track, RIGHT).set_y(track.get_y())
            parts.add(bar)
        return parts

    def animation(self, lag_ratio: float = 0.12, run_time: float = 2.4):
        """Copies go straight from the chips into the slot (the scaled step skipped)."""
        steps = [AnimationGroup(*(TransformFromCopy(bar, seg) for bar, _, seg in triples))
                 for triples in self._triples if triples]
        return LaggedStart(*steps, lag_ratio=lag_ratio, run_time=run_time)


def get_message_flow(chips, contributions, slot: MessageSlot, *, min_copy_width: float = 0.0) -> MessageFlow:
    """The head's message built from its sources' scaled values: source j's contribution to
    coordinate k (its weight times its value, from the data layer) becomes a segment of track k,
    after the segments of sources 0..j-1. `chips` are the sources' value chips, in source order.
    min_copy_width: the scaled copy over a chip is drawn at least this wide, so a thinly read row
    still shows a (tiny) part moving; the segments in the slot keep their exact lengths."""
    parts = np.asarray(contributions, dtype=float)
    if parts.ndim != 2 or parts.shape[0] != len(chips) or parts.shape[1] != len(slot.tracks):
        raise ValueError(f"contributions of shape {parts.shape} for {len(chips)} chips and "
                         f"{len(slot.tracks)} tracks")
    if np.any(parts < 0) or np.any(parts.sum(axis=0) > 1 + 1e-9):
        raise ValueError("a slot draws non-negative contributions whose sums fit the track (at most 1)")
    flow = MessageFlow()
    flow._start(slot)          # (cells: (source index, coordinate) -> that source's segment in that track)
    start = np.zeros(parts.shape[1])
    for j, chip in enumerate(chips):
        mine = []
        for k in range(parts.shape[1]):
            c = parts[j, k]
            bar = chip.bar(k)
            if c <= 0 or bar is None:
                continue
            seg = slot.segment(k, start[k], c)
            start[k] += c
            # the scaled copy: over the chip's track, c of its length, in the head's colour
            copy = Rectangle(width=max(c * chip.tracks[k].width, min_copy_width), height=bar.height).set_stroke(width=0)
            copy.set_fill(slot.color, BAR_OPACITY).align_to(chip.tracks[k], LEFT).set_y(chip.tracks[k].get_y())
            mine.append((k, bar, copy, seg))
        flow._add_source(j, mine)
    flow.filled = start
    flow.add(flow.segments)
    return flow


def get_signed_message_flow(contributions, starts, names, *, color: str, track_length: float = 2.4,
                            bar_height: float = 0.13, gap: float = 0.1, min_copy_width: float = 0.03) -> MessageFlow:
    """A message whose coordinates may be negative or larger than one (the worksheet's α·v rows),
    built as get_message_flow builds one: source j's contribution to coordinate k becomes a segment
    of track k. One zero line runs through every track; positive parts are laid end to end to its
    right, negative parts to its left, in source order, so no two segments overlap and the message's
    coordinate is the right extent less the left (a `totals` tick marks it on each track). One scale
    for all tracks: the longest extent fills `track_length`, so a coordinate that gets little
    (finance in head 1) looks little.

    starts: where each source's scaled copy begins, one point per coordinate (its products' cells),
    in source order; each copy is one bar per coordinate, centred there, as long as its segment and at
    least `min_copy_width`. Play
    `move_copies(along=arrows)`. Parts as get_message_flow's, and `slot` (the tracks and names), `zero`
    (the zero line), `totals` (one tick per track at the message's coordinate), `scale` (length per
    unit)."""
    parts = np.asarray(contributions, dtype=float)
    if parts.ndim != 2 or parts.shape[0] != len(starts) or parts.shape[1] != len(names):
        raise ValueError(f"contributions of shape {parts.shape} for {len(starts)} sources and {len(names)} names")
    positive, negative = np.clip(parts, 0, None).sum(axis=0), -np.clip(parts, None, 0).sum(axis=0)
    left, right = float(negative.max()), float(positive.max())
    if left + right <= 0:
        raise ValueError("a message with every contribution zero has nothing to draw")
    unit = 1.0 / (left + right)                  # fraction of a track per unit of value
    origin = left * unit                         # where zero is, as a fraction of the track
    slot = get_message_slot(names, color=color, title=None, track_length=track_length, bar_height=bar_height, gap=gap)
    flow = MessageFlow()
    flow._start(slot)
    ahead, behind = np.zeros(parts.shape[1]), np.zeros(parts.shape[1])
    for j, start in enumerate(starts):
        mine = []
        for k in range(parts.shape[1]):
            c = float(parts[j, k])
            if c == 0.0:
                continue
            if c > 0:
                seg = slot.segment(k, origin + ahead[k] * unit, c * unit)
                ahead[k] += c
            else:
                behind[k] += -c
                seg = slot.segment(k, origin - behind[k] * unit, -c * unit)
            copy = Rectangle(width=max(seg.width, min_copy_width), height=bar_height).set_stroke(width=0)
            copy.set_fill(color, BAR_OPACITY).move_to(np.asarray(start[k], dtype=float))
            mine.append((k, None, copy, seg))
        flow._add_source(j, mine)
    tracks = slot.tracks
    x0 = tracks[0].get_left()[0] + origin * track_length
    flow.zero = Line([x0, tracks.get_top()[1] + 0.06, 0], [x0, tracks.get_bottom()[1] - 0.06, 0]).set_stroke(TEXT_COLOR, 1.5, 0.8)
    flow.totals = VGroup(*(
        Line(UP * (bar_height / 2 + 0.04), DOWN * (bar_height / 2 + 0.04)).set_stroke(TEXT_COLOR, 3)
        .move_to([x0 + (ahead[k] - behind[k]) * unit * track_length, track.get_y(), 0])
        for k, track in enumerate(tracks)))
    flow.filled = ahead - behind
    flow.scale = unit * track_length
    flow.slot = slot
    flow.add(flow.segments)
    return flow


__all__ = ["ValueChip", "MessageSlot", "MessageFlow", "get_value_chip", "get_message_slot", "get_message_flow",
           "get_signed_message_flow"]
