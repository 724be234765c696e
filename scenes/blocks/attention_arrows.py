"""Attention drawn as what it is: arrows from each source word to the receiver, width = weight.

    row = get_token_row(ws.tokens, receiver=ws.n)              # the sentence, positions 1..n
    arrows = get_attention_arrows(row, ws.heads[0].weights[-1], color=head_color(1))
    scene.play(FadeIn(row)); scene.play(arrows.create())
    arrows.arrow(j)          # the arrow from source j (zero-based), None for a future source

One arrow per source the receiver may read (sources 1..receiver, the receiver itself as a small
loop), none for future sources: the mask is seen, not said. An arrow's stroke width and opacity
grow with its weight (the same weight draws the same arrow in every head and scene; a weight of
zero still draws a hairline, because every readable source is read). Head 1's arrows arc above the
words, head 2's below them, clear of the position numbers. Rows of 1–20 words fit the safe width:
on one line at the largest size from `font_size` down to the legibility floor, else on two (or, for
twenty long words, three) lines.

Weights come from the data layer (the worksheet's A, a word example's illustrative weights, a
trained model's exported final-query row); nothing is computed here but the picture.
"""
from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    UP,
    ArcBetweenPoints,
    BackgroundRectangle,
    Create,
    DashedVMobject,
    LaggedStart,
    Rectangle,
    VGroup,
    VMobject,
)
from manim.mobject.geometry.arc import TipableVMobject

from scenes.style import (
    BACKGROUND,
    BODY_SIZE,
    DIM_TEXT_COLOR,
    HIGHLIGHT_OPACITY,
    MASK_COLOR,
    MIN_TEXT_SIZE,
    RECEIVER_COLOR,
    SAFE_WIDTH,
    TEXT_COLOR,
    align_baseline,
    baseline_y,
    get_text,
)

# Tokens made only of these marks have no glyph on the baseline: they hang from the cap height.
_HANGING_MARKS = set("\"'“”‘’`´^*")

# Stroke width and opacity of an arrow of weight w (0..1): monotone, the same in every scene.
MIN_STROKE = 0.8
MAX_STROKE = 14.0
MIN_OPACITY = 0.3
# An arc between neighbouring words is at least this tall, so a short arrow reads as a curve, not a stub.
MIN_ARC_HEIGHT = 0.22
# A short arc nested under a farther one may be flattened to this fraction of the least height.
NESTED_HEIGHT_FLOOR = 0.5
# Arrows drawn below a row start and end this far under the lowest of word box and position number.
BELOW_GAP = 0.14
# A receiver box at least this wide (get_token_row's receiver_width) gives ten arrowheads room
# along its edge; a short receiver word ("the", "It") is otherwise a corner they knot in.
RECEIVER_ROOM = 1.0
# The receiver stands this far apart from the word before it, so that even its nearest source's arrow
# (often the heaviest) crosses open space: a visible arc, not a stub hidden under the other heads.
RECEIVER_GAP = 0.75


def arrow_stroke(weight: float) -> float:
    """Stroke width for a weight in [0, 1] (a weight of 1 draws the widest arrow)."""
    return MIN_STROKE + (MAX_STROKE - MIN_STROKE) * float(np.clip(weight, 0.0, 1.0))


def arrow_opacity(weight: float) -> float:
    return MIN_OPACITY + (1 - MIN_OPACITY) * float(np.sqrt(np.clip(weight, 0.0, 1.0)))


class TokenRow(VGroup):
    """Built by get_token_row. Parts: `words` (one Text per token), `boxes` (one frame per token;
    the receiver's in the receiver colour), `positions` (one-based numbers below the words, or an
    empty group), `blank` (the dashed next-word slot, or an empty group), `lines` (how many lines:
    1 or 2), `receiver` (one-based, or None), `n`, `font_size`."""

    def token(self, j: int) -> VGroup:
        """Box and word of token j (zero-based)."""
        return VGroup(self.boxes[j], self.words[j])

    def word_top(self, j: int) -> np.ndarray:
        box = self.boxes[j]
        return np.array([box.get_center()[0], box.get_top()[1], 0.0])

    def word_bottom(self, j: int) -> np.ndarray:
        """Below the word and its position number, with room for an arrow's tip and stroke, so arrows
        underneath stay clear of both."""
        box = self.boxes[j]
        bottom = box.get_bottom()[1]
        if len(self.positions):
            bottom = min(bottom, self.positions[j].get_bottom()[1])
        return np.array([box.get_center()[0], bottom - BELOW_GAP, 0.0])

    def line_of(self, j: int) -> int:
        return sum(1 for start in self.starts if start <= j) - 1

    def get_future_mask(self) -> VGroup:
        """Dim boxes over the tokens after the receiver: sources the receiver cannot read."""
        masks = VGroup()
        if self.receiver is None:
            return masks
        for j in range(self.receiver, self.n):
            box = self.boxes[j]
            masks.add(Rectangle(width=box.width, height=box.height).move_to(box)
                      .set_fill(MASK_COLOR, 0.85).set_stroke(width=0))
        return masks


def _layout_words(tokens, font_size, receiver=None, receiver_width: float = 0.0):
    words = [get_text(t, font_size=font_size) for t in tokens]
    ref = get_text("Mx", font_size=font_size)
    box_h = ref.height * 1.9
    boxes = [Rectangle(width=max(w.width + 0.22, box_h * 0.9,
                                 receiver_width if receiver is not None and j == receiver - 1 else 0.0), height=box_h)
             for j, w in enumerate(words)]
    return words, boxes, ref


def _pack(boxes, gap, max_width, extra, before=None):
    """Start index of each line when boxes fill lines of max_width in order (the last line also
    holds `extra`, the blank slot; `before`: {j: extra room before box j}, the receiver's apartness)."""
    before = before or {}
    starts, width = [0], 0.0
    for j, box in enumerate(boxes):
        add = box.width + ((gap + before.get(j, 0.0)) if j > starts[-1] else 0.0)
        if j > starts[-1] and width + add > max_width:
            starts.append(j)
            width = box.width
        else:
            width += add
    if width + extra > max_width and len(boxes) - starts[-1] > 1:
        starts.append(len(boxes) - 1)
    return starts


def get_token_row(tokens, *, receiver: int | None = None, font_size: float = BODY_SIZE - 4,
                  positions: bool = True, blank: bool = False, max_width: float = SAFE_WIDTH,
                  gap: float = 0.14, future: bool = False, receiver_width: float = 0.0,
                  receiver_gap: float = RECEIVER_GAP) -> TokenRow:
    """The sentence as word boxes on one line (more when even the legibility floor does not fit).

    receiver: one-based position drawn in the receiver colour (None: no receiver). blank: a dashed
    slot after the last token (the unknown next word, which has no query). future: dim the tokens
    after the receiver (when the row shows a longer sentence than the receiver may read).
    receiver_width: the receiver's box at least this wide, room for many arrows' tips on a short
    token (a comma receiving twenty arrows). receiver_gap: open space before the receiver (when it has
    a word before it on its line), so its nearest source's arrow has length.
    """
    tokens = list(tokens)
    if not 1 <= len(tokens) <= 20:
        raise ValueError(f"a token row holds 1 to 20 tokens, got {len(tokens)}")
    sizes = [s for s in np.arange(font_size, MIN_TEXT_SIZE - 1e-9, -1.0)] or [MIN_TEXT_SIZE]
    extra = 1.3 if blank else 0.0
    before = {receiver - 1: receiver_gap} if receiver is not None and receiver > 1 else {}
    chosen = None
    # fewest lines first (one line at any legible size beats two larger lines), then the largest size
    for n_lines in (1, 2, 3):
        for size in sizes:
            words, boxes, ref = _layout_words(tokens, size, receiver, receiver_width)
            starts = _pack(boxes, gap, max_width, extra, before)
            if len(starts) <= n_lines:
                chosen = size
                break
        if chosen is not None:
            break
    if chosen is None:
        raise ValueError(f"{len(tokens)} tokens do not fit three lines at the legibility floor")
    row = TokenRow()
    row.n, row.receiver, row.font_size, row.starts = len(tokens), receiver, chosen, starts
    row.lines = len(starts)
    box_group, word_group = VGroup(*boxes), VGroup(*words)
    for j, box in enumerate(boxes):
        if receiver is not None and j == receiver - 1:
            box.set_stroke(RECEIVER_COLOR, 3).set_fill(RECEIVER_COLOR, HIGHLIGHT_OPACITY)
        else:
            box.set_stroke(DIM_TEXT_COLOR, 1.5).set_fill(opacity=0)
    previous = None
    for a, b in zip(starts, [*starts[1:], len(boxes)]):
        line = VGroup(*boxes[a:b]).arrange(RIGHT, buff=gap)
        for j, room in before.items():     # the receiver and what follows it stand apart
            if a < j < b:
                VGroup(*boxes[j:b]).shift(RIGHT * room)
        if previous is not None:   # room between the lines for arrows and the position numbers
            line.next_to(previous, DOWN, buff=1.1, aligned_edge=LEFT)
        previous = line
    for word, box in zip(words, boxes):
        ref = get_text("Mx", font_size=chosen).move_to(box)
        word.move_to(box)
        if set(word.original_text) <= _HANGING_MARKS:   # a quote mark hangs from the cap height
            word.align_to(ref, UP)
        else:                                           # everything else sits on one baseline
            align_baseline(word, baseline_y(ref))
    row.boxes, row.words = box_group, word_group
    row.add(box_group, word_group)
    row.positions = VGroup()
    if positions:
        for j, box in enumerate(boxes):
            row.positions.add(get_text(str(j + 1), font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
                              .next_to(box, DOWN, buff=0.08))
        row.add(row.positions)
    row.blank = VGroup()
    if blank:
        slot = DashedVMobject(Rectangle(width=1.1, height=boxes[0].height), num_dashes=24)
        slot.set_stroke(DIM_TEXT_COLOR, 1.5).next_to(boxes[-1], RIGHT, buff=gap)
        mark = get_text("___", font_size=chosen, color=DIM_TEXT_COLOR).move_to(slot)
        row.blank = VGroup(slot, mark)
        row.add(row.blank)
    row.future = row.get_future_mask() if future else VGroup()
    if future:
        row.add(row.future)
    return row


class AttentionArrows(VGroup):
    """Built by get_attention_arrows. Parts: `arrows` (VGroup in source order), `sources` (the
    zero-based source index of each arrow), `weights` (the full-precision weight of each), `color`,
    `side` (UP: above the words, DOWN: below), `receiver` (zero-based)."""

    def arrow(self, j: int):
        """The arrow from source j (zero-based), or None for a source the receiver cannot read."""
        return self._by_source.get(j)

    def create(self, lag_ratio: float = 0.08, run_time: float = 1.5):
        """Draw every arrow, the strongest last so the eye ends on it."""
        order = np.argsort(self.weights, kind="stable")
        return LaggedStart(*(Create(self.arrows[k]) for k in order), lag_ratio=lag_ratio, run_time=run_time)

    def strongest(self, k: int = 1) -> list[int]:
        """Zero-based sources of the k largest weights (ties: the earlier source first)."""
        order = sorted(range(len(self.sources)), key=lambda i: (-self.weights[i], self.sources[i]))
        return [self.sources[i] for i in order[:k]]


def tip_size(width: float) -> float:
    """An arrowhead's length for a stroke of this width (its width is 0.9 of that)."""
    return 0.1 + 0.012 * width


def _tip(curve: VMobject, width: float, color: str, opacity: float, cap: float | None = None) -> None:
    # a wide arrow gets a larger head, but never more than about a fifth of a short arc, nor more
    # than its place on the receiver's edge (`cap`)
    size = min(tip_size(width), max(0.1, 0.22 * curve.get_arc_length()))
    if cap is not None:
        size = min(size, cap)
    curve.add_tip(tip_length=size, tip_width=size * 0.9)
    curve.get_tip().set_fill(color, opacity=opacity).set_stroke(color, 0, opacity=opacity)


# Where tips land on the receiver's edge: from this far inside its left end to this far inside its
# right end (the self-loop sits over the right end).
LANDING_MARGIN = 0.05
LOOP_ROOM = 0.2


# Places on the receiver's edge. Every arrow comes down onto the edge head first (its last stretch
# perpendicular to the edge), so a head spans TIP_WIDTH times its length along the edge, centred on
# where it lands, and the arrows' last stretches stand side by side like the teeth of a comb instead
# of converging on one corner. A head with a place of its own gets its width, TIP_GAP, and the width
# of a shared head (half a shared neighbour's head may reach in on each side). Light
# arrows that have to share the edge (many sources, little edge) get at least SHARED_PLACE each,
# their heads shrunk (down to SHARED_TIP long) and overlapping one another, never a heavy arrow's head.
TIP_WIDTH = 0.9
TIP_GAP = 0.03
SHARED_PLACE = 0.012
SHARED_TIP = 0.05


def landings(row: TokenRow, r: int, weights) -> dict[int, tuple[float, float]]:
    """{source j: (x, tip length)} for the arrows from sources 0..r-1 into receiver r. Nested: the
    nearest source lands leftmost, the farthest rightmost, so no two arcs cross. Each arrowhead gets
    a place on the edge as wide as itself, the heaviest first; what is left when the edge runs out is
    shared by the lightest, whose heads shrink (down to SHARED_TIP) and may overlap each other.
    So the heavy arrows never hide in a knot of light ones, whatever the number of sources."""
    box = row.boxes[r]
    left = box.get_left()[0] + LANDING_MARGIN
    right = box.get_right()[0] - LOOP_ROOM
    if r == 0:
        return {}
    if r == 1:                     # one source before the receiver: the middle of the edge
        return {0: ((left + right) / 2, tip_size(arrow_stroke(weights[0])))}
    room = right - left
    full = {j: tip_size(arrow_stroke(weights[j])) for j in range(r)}
    need = {j: TIP_GAP + TIP_WIDTH * (full[j] + SHARED_TIP) for j in range(r)}
    least = SHARED_PLACE
    own: set[int] = set()
    used = 0.0
    for j in sorted(range(r), key=lambda j: (-weights[j], r - 1 - j)):      # heaviest first
        if own and used + need[j] + least * (r - len(own) - 1) > room:
            break             # (never a lighter arrow's head in its own place, a heavier one's shared)
        own.add(j)            # (the heaviest always: on an edge too short for it, everything shrinks)
        used += need[j]
    shared = [j for j in range(r) if j not in own]
    place = dict(need)
    if shared:        # the lightest share the rest, evenly (never below the least place)
        each = max(least, (room - used) / len(shared))
        place.update({j: each for j in shared})
    total = sum(place.values())
    spare = (room - total) / r if total < room else 0.0
    scale = min(1.0, room / total)            # (only when even the least places do not fit)
    out, x = {}, left
    for j in range(r - 1, -1, -1):            # nearest source first, at the left end
        width = (place[j] + spare) * scale
        if j in own:
            head = full[j] * scale
        else:
            head = min(full[j], max(SHARED_TIP, (width - TIP_GAP) / TIP_WIDTH)) * scale
        out[j] = (x + width / 2, head)        # each head centred in its place
        x += width
    return out


# How far along the chord the source end's handle leans (0: straight up, like the receiver end).
SOURCE_LEAN = 0.3


class Bridge(TipableVMobject):
    """An attention arrow's curve: up from the source leaning towards the receiver, over, and straight
    down onto its place on the receiver's edge (perpendicular to the row), `height` at its highest.
    A cubic Bézier, cut into pieces so that distances along it are measured finely."""

    def __init__(self, start, end, height: float, **kwargs):
        start, end = np.asarray(start, dtype=float), np.asarray(end, dtype=float)
        # both handles at one level: a cubic whose ends are level peaks at 3/4 of its handles' height
        self._start, self._end, self._handle_y = start, end, start[1] + float(height) / 0.75
        super().__init__(**kwargs)

    def generate_points(self) -> None:
        start, end = self._start, self._end
        lean = SOURCE_LEAN * (end[0] - start[0])
        self.set_points(np.array([start, [start[0] + lean, self._handle_y, 0.0], [end[0], self._handle_y, 0.0], end]))
        self.insert_n_curves(11)

    def reset_endpoints_based_on_tip(self, tip, at_start: bool):
        # the curve ends at the head's base, still coming straight down (Manim would turn and
        # scale the whole curve to reach it, tilting the head and lifting the arc)
        self._end = np.asarray(tip.base, dtype=float)
        self.generate_points()
        return self


def _bridge_height(start: np.ndarray, end: np.ndarray, angle: float, min_height: float) -> float:
    """How high the arrow from start to end rises: as high as a circular arc of that bend would
    (so a flatter `angle` still draws flatter rows), and at least `min_height`."""
    chord = float(np.linalg.norm(end - start))
    return max(chord / 2 * np.tan(angle / 4), min_height)


def _self_loop(row: TokenRow, r: int, anchor: np.ndarray, sign: int):
    """The receiver reading itself: a small loop over the right end of its edge, within the box's
    width, clear of the tips that land along the rest of the edge."""
    right = row.boxes[r].get_right()[0]
    start = np.array([right - 0.02, anchor[1], 0.0])
    end = np.array([right - 0.15, anchor[1], 0.0])
    # sign: -1 with the arcs above the words (the loop bulges up), 1 below (it bulges down)
    return ArcBetweenPoints(start, end, angle=-sign * 1.5 * PI)


def get_attention_arrows(row: TokenRow, weights, *, receiver: int | None = None, color: str = TEXT_COLOR,
                         side=UP, angle: float = PI / 2.6, tips: bool = True,
                         min_height: float = MIN_ARC_HEIGHT) -> AttentionArrows:
    """Arrows into the receiver from every source it may read, for one head's row of weights.

    weights: the receiver's attention row (length >= receiver; entries after the receiver, the
    future, are never read). receiver: one-based (default: the row's receiver). side: UP or DOWN.
    min_height: the least height of a short arc (a curve, not a stub). The arcs into the receiver
    nest, the nearest source's lowest and landing leftmost; an arc is flattened (down to
    NESTED_HEIGHT_FLOOR of min_height) only where it would cross a farther source's arc, so none
    cross, the farthest keep their height and every tip has its own place on the edge.
    """
    receiver = receiver if receiver is not None else row.receiver
    if receiver is None or not 1 <= receiver <= row.n:
        raise ValueError(f"receiver {receiver!r} is not a position of the row (1..{row.n})")
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 1 or len(weights) < receiver:
        raise ValueError(f"need a row of at least {receiver} weights, got shape {weights.shape}")
    r = receiver - 1
    below = np.allclose(side, DOWN)
    anchor = row.word_bottom if below else row.word_top
    sign = 1 if below else -1
    group = AttentionArrows()
    group.arrows, group.sources, group.weights = VGroup(), [], []
    group.color, group.side, group.receiver, group._by_source = color, side, r, {}
    end_base = anchor(r)

    landing = landings(row, r, weights)

    def styled(curve, j):
        w = float(weights[j])
        curve.set_stroke(color, arrow_stroke(w), opacity=arrow_opacity(w))
        if tips:   # (a tip moves the arc's end to the tip's base: check crossings after it)
            _tip(curve, arrow_stroke(w), color, arrow_opacity(w), landing[j][1] if j in landing else None)
        curve.weight, curve.source = w, j
        return curve

    curves = {r: styled(_self_loop(row, r, end_base, sign), r)}   # the receiver reads itself
    outer = []                 # arcs on the receiver's line built so far, the farthest source's first
    for j in range(r):
        start = anchor(j)
        # tips along the receiver's edge, nested (the nearest source leftmost), each in its place
        end = np.array([landing[j][0], end_base[1], 0.0])
        if row.line_of(j) == row.line_of(r):
            # bent as the rule says, and flatter where it would cross a farther source's arc (down
            # to NESTED_HEIGHT_FLOOR of the least height): the farthest arcs keep their height
            height = _bridge_height(start, end, angle, min_height)
            floor = min_height * NESTED_HEIGHT_FLOOR
            curve = styled(Bridge(start, end, -sign * height), j)
            # (under the next farther arc is under them all: each of those lies under the one before)
            while height > floor and outer and _crosses(curve, outer[-1]):
                height = max(floor, height - 0.02)
                curve = styled(Bridge(start, end, -sign * height), j)
            outer.append(curve)
        else:  # a source on the first line, the receiver on the second
            start = row.word_bottom(j)
            end = np.array([landing[j][0], row.word_top(r)[1], 0.0])
            curve = styled(ArcBetweenPoints(start, end, angle=-PI / 8), j)
        curves[j] = curve
    for j in range(receiver):
        group.arrows.add(curves[j])
        group.sources.append(j)
        group.weights.append(curves[j].weight)
        group._by_source[j] = curves[j]
    group.weights = np.array(group.weights)
    group.add(group.arrows)
    return group


# A cubic Bézier segment evaluated at a few parameters, as one matrix product.
_T = np.linspace(0.0, 1.0, 9)[:, None]
_BERNSTEIN = np.hstack([(1 - _T) ** 3, 3 * (1 - _T) ** 2 * _T, 3 * (1 - _T) * _T ** 2, _T ** 3])


def arc_points(curve: VMobject) -> np.ndarray:
    """Points along an arrow's own curve (not its tip), for distances: each of its cubic segments
    evaluated at nine parameters."""
    quads = curve.points[: len(curve.points) // 4 * 4].reshape(-1, 4, 3)
    return np.einsum("pk,nkd->npd", _BERNSTEIN, quads).reshape(-1, 3)


def path_along(arrow: VMobject, start, end) -> VMobject:
    """The way something carried by an arrow travels: from `start` (where it was) to the arrow's
    source end, over its arc to the receiver, then to `end` (where it lands)."""
    path = VMobject()
    path.set_points_as_corners([np.asarray(start, dtype=float), *arc_points(arrow), np.asarray(end, dtype=float)])
    return path


def polylines_cross(p: np.ndarray, q: np.ndarray) -> bool:
    """Whether two polylines (n × 2 points) properly cross: some segment of each has the other's
    ends on opposite sides (signs of cross products; touching ends do not count)."""
    def orient(a, b, c):
        return np.sign((b[..., 0] - a[..., 0]) * (c[..., 1] - a[..., 1])
                       - (b[..., 1] - a[..., 1]) * (c[..., 0] - a[..., 0]))
    a, b = p[:-1, None, :], p[1:, None, :]
    c, d = q[None, :-1, :], q[None, 1:, :]
    return bool(np.any((orient(a, b, c) * orient(a, b, d) < 0) & (orient(c, d, a) * orient(c, d, b) < 0)))


def _crosses(a: VMobject, b: VMobject) -> bool:
    return polylines_cross(arc_points(a)[:, :2], arc_points(b)[:, :2])


def _arc_sets(arrows: AttentionArrows) -> dict:
    return {j: arc_points(arrows.arrow(j))[:, :2] for j in arrows.sources}


def _box_distance(pts: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Each point's distance from the box lo..hi (zero inside it)."""
    return np.linalg.norm(np.maximum(np.maximum(lo - pts, pts - hi), 0.0), axis=1)


def nearest_arrow(arrows: AttentionArrows, where, arcs: dict | None = None) -> int:
    """The source whose arrow passes nearest to `where` (what a reader takes a label there to name):
    a point, or a label (the arrow nearest to the label's box, the one it touches or abuts)."""
    arcs = _arc_sets(arrows) if arcs is None else arcs
    if isinstance(where, VMobject):
        lo, hi = where.get_corner(DOWN + LEFT)[:2], where.get_corner(UP + RIGHT)[:2]
    else:
        lo = hi = np.asarray(where, dtype=float)[:2]
    return min(arrows.sources, key=lambda j: float(np.min(_box_distance(arcs[j], lo, hi))))


def label_touches_an_arc(label, arcs: dict, pad: float = 0.04) -> bool:
    """Whether any arc (points along it, as `_arc_sets` gives them) runs through the label's box,
    widened by `pad` for the strokes' width."""
    lo = label.get_corner(DOWN + LEFT)[:2] - pad
    hi = label.get_corner(UP + RIGHT)[:2] + pad
    return any(bool(np.any(np.all((pts >= lo) & (pts <= hi), axis=1))) for pts in arcs.values())


def place_weight_label(label, arrows: AttentionArrows, j: int, *, at: float = 0.5, direction=None,
                       buff: float | None = None, pad: float = 0.04):
    """Put `label` (the weight of source j) where a reader takes it for arrow j's: where arrow j is
    the arrow nearest the label's box. The first spot clear of every arc (by `pad`) in this order:
    over its source word, just before where the arrow leaves it (the weight a source sends, written
    at the source); beside the arc on the side `direction` (default: the arcs' own side, away from
    the words), from `at` of its length (0 = the source) outwards. Where nested arcs leave no such
    spot, on its own stroke, where the label is farthest from every other arc (give it a background
    pill: its own arc then runs into it and out of it, like a tag). Returns label."""
    arrow = arrows.arrow(j)
    if direction is None:
        direction = UP if np.allclose(arrows.side, UP) else DOWN
    if buff is None:                  # clear of the arc's own stroke (a thick arc is up to 14 px wide)
        buff = 0.1 + arrow.get_stroke_width() / 90
    arcs = _arc_sets(arrows)
    others = np.vstack([pts for k, pts in arcs.items() if k != j]) if len(arcs) > 1 else np.zeros((0, 2))

    def room() -> float:              # how far the label's box is from every other arc
        lo, hi = label.get_corner(DOWN + LEFT)[:2], label.get_corner(UP + RIGHT)[:2]
        return float(np.min(_box_distance(others, lo, hi))) if len(others) else np.inf

    start = arrow.get_start()
    along = sorted(np.linspace(0.1, 0.9, 17), key=lambda t: abs(t - at))
    label.next_to(start, direction, buff=0.06).align_to(start + LEFT * 0.04, RIGHT)   # at the source
    if nearest_arrow(arrows, label, arcs) == j and room() >= pad and not label_touches_an_arc(label, {j: arcs[j]}, pad / 2):
        return label
    for t in along:                   # beside the arc
        label.next_to(arrow.point_from_proportion(t), direction, buff=buff)
        if nearest_arrow(arrows, label, arcs) == j and room() >= pad:
            return label
    best, most = at, -1.0             # on its own stroke, as far from the others as it can be
    for t in along:
        label.move_to(arrow.point_from_proportion(t))
        if room() > most:
            best, most = t, room()
    return label.move_to(arrow.point_from_proportion(best))


def get_label_pill(label, *, buff: float = 0.04, outline: str | None = None) -> BackgroundRectangle:
    """The dark pill behind a weight label on an arc: the thin arcs behind it stop at its edge, and
    its own arc runs into it like a tag. `outline`: a faint rim in the head's colour."""
    pill = BackgroundRectangle(label, color=BACKGROUND, fill_opacity=0.9, buff=buff)
    if outline is not None:
        pill.set_stroke(outline, 1, opacity=0.6)
    return pill


__all__ = ["get_label_pill", "TokenRow", "AttentionArrows", "get_token_row", "get_attention_arrows", "arrow_stroke", "RECEIVER_ROOM",
           "RECEIVER_GAP", "arrow_opacity", "landings", "tip_size", "SHARED_PLACE", "place_weight_label", "label_touches_an_arc", "nearest_arrow", "polylines_cross", "arc_points", "MIN_STROKE", "MAX_STROKE", "BELOW_GAP"]
