"""The attention-arrow block: one arrow per readable source, none for the future, widths ordered as
the weights, clear of the words and their position numbers, for any sentence of 1–20 words."""
from __future__ import annotations

import random

import numpy as np
import pytest
from manim import DOWN, UP

from lesson_data.worksheet import VOCAB, compute_worksheet
from scenes.blocks.attention_arrows import (MAX_STROKE, MIN_STROKE, RECEIVER_ROOM, SHARED_PLACE, arc_points, arrow_opacity, arrow_stroke,
                                            polylines_cross,
                                            get_attention_arrows, get_token_row)
from scenes.style import LABEL_SIZE, MIN_TEXT_SIZE, SAFE_WIDTH, head_color
from tests.scene_harness import effective_font_size


def random_sentences(count=40, seed=7):
    rng = random.Random(seed)
    out = [" ".join(rng.choice(VOCAB) for _ in range(rng.randint(1, 20))) for _ in range(count)]
    return out + [" ".join(["fisherman"] * 20), "river", " ".join(["deposited"] * 11)]


@pytest.mark.parametrize("sentence", ["river", "cheque"])
@pytest.mark.parametrize("head", [0, 1])
def test_one_arrow_per_readable_source_with_widths_ordered_as_the_weights(sentence, head):
    ws = compute_worksheet(sentence)
    row = get_token_row(ws.tokens, receiver=ws.n)
    weights = ws.heads[head].weights[-1]
    arrows = get_attention_arrows(row, weights, color=head_color(head + 1), side=(UP, DOWN)[head])
    assert arrows.sources == list(range(ws.n))
    assert [a.weight for a in arrows.arrows] == list(weights)          # unrounded, from A
    widths = np.array([a.get_stroke_width() for a in arrows.arrows])
    opacities = np.array([a.get_stroke_opacity() for a in arrows.arrows])
    order = np.argsort(weights, kind="stable")
    assert np.all(np.diff(widths[order]) >= 0) and np.all(np.diff(opacities[order]) >= 0)
    # the strongest source draws the widest arrow: head 1 river -> river (0.718), by hand from A
    assert arrows.strongest(1) == [int(np.argmax(weights))]
    assert widths.max() == pytest.approx(arrow_stroke(weights.max()))


def test_an_earlier_receiver_gets_no_arrow_from_a_future_source():
    ws = compute_worksheet("river")
    row = get_token_row(ws.tokens, receiver=4, future=True)
    arrows = get_attention_arrows(row, ws.heads[0].weights[3], color=head_color(1))
    assert arrows.sources == [0, 1, 2, 3]
    assert all(arrows.arrow(j) is None for j in range(4, ws.n))
    assert len(row.future) == ws.n - 4                                  # the future is seen, dimmed
    # the masked weights are exactly zero and never drawn
    assert np.all(ws.heads[0].weights[3, 4:] == 0.0)


def test_width_and_opacity_are_monotone_and_bounded():
    w = np.linspace(0, 1, 101)
    s = np.array([arrow_stroke(x) for x in w])
    o = np.array([arrow_opacity(x) for x in w])
    assert np.all(np.diff(s) > 0) and np.all(np.diff(o) > 0)
    assert s[0] == MIN_STROKE > 0 and s[-1] == MAX_STROKE and o[-1] == 1.0
    assert arrow_stroke(0.5) == pytest.approx((MIN_STROKE + MAX_STROKE) / 2)   # linear in the weight


@pytest.mark.parametrize("side", [UP, DOWN])
def test_arrows_stay_clear_of_the_words_and_the_position_numbers(side):
    ws = compute_worksheet("river")
    row = get_token_row(ws.tokens, receiver=ws.n)
    arrows = get_attention_arrows(row, ws.heads[0].weights[-1], side=side)
    word_top = max(b.get_top()[1] for b in row.boxes)
    label_bottom = min(p.get_bottom()[1] for p in row.positions)
    for a in arrows.arrows:
        ys = a.get_all_points()[:, 1]
        if np.allclose(side, UP):
            assert ys.min() >= word_top - 1e-6, a.source
        else:
            # a wide stroke is drawn about its centre line: room for half of the widest one
            assert ys.max() <= label_bottom - 0.1, a.source


@pytest.mark.parametrize("side", [UP, DOWN])
def test_arrowheads_land_along_the_receiver_nearest_leftmost(side):
    ws = compute_worksheet("river")
    row = get_token_row(ws.tokens, receiver=ws.n)
    arrows = get_attention_arrows(row, ws.heads[0].weights[-1], side=side)
    box = row.boxes[ws.n - 1]
    ends = [a.get_end()[0] for a in arrows.arrows if a.source != ws.n - 1]     # sources 1..9 in order
    assert np.all(np.diff(ends) < 0)                                # nested: the nearest source leftmost
    assert box.get_left()[0] < min(ends) and max(ends) < box.get_right()[0]   # all on the box's edge
    # spread along most of the edge (the old spread used its left third); river's 0.718, the
    # heaviest (ranked here), gets the widest place: its neighbours are the farthest apart
    assert max(ends) - min(ends) >= 0.6 * box.width
    w = ws.heads[0].weights[-1][:ws.n - 1]
    k = int(np.argmax(w))                                 # source index = position in `ends`
    gaps = -np.diff(ends)
    around = [g for i, g in enumerate(gaps) if i in (k - 1, k)]
    assert min(around) > max(g for i, g in enumerate(gaps) if i not in (k - 1, k))
    # the self-loop ends on the edge too, right of every other tip
    loop = arrows.arrow(ws.n - 1)
    assert max(ends) < loop.get_end()[0] < box.get_right()[0]


def _crossings(arcs) -> list:
    """Pairs of arcs that cross."""
    lines = {a.source: arc_points(a)[:, :2] for a in arcs}
    keys = sorted(lines)
    return [(a, b) for i, a in enumerate(keys) for b in keys[i + 1:] if polylines_cross(lines[a], lines[b])]


def test_the_crossing_check_finds_a_crossing():
    from manim import ArcBetweenPoints, LEFT, RIGHT
    a, b = ArcBetweenPoints(LEFT, RIGHT, angle=-1.0), ArcBetweenPoints(LEFT * 0.5, RIGHT * 2, angle=-1.0)
    a.source, b.source = 0, 1
    assert _crossings([a, b]) == [(0, 1)]
    c = ArcBetweenPoints(LEFT * 0.5, RIGHT * 0.5, angle=-1.0)     # inside a: nested, no crossing
    c.source = 2
    assert _crossings([a, c]) == []


TWENTY = " ".join(["the", "fisherman", "sat", "beside", "the", "river", "bank", "and", "watched", "the",
                   "boats", "and", "she", "deposited", "the", "cheque", "at", "the", "bank", "the"])


@pytest.mark.parametrize("sentence", ["river", "cheque", TWENTY], ids=["river", "cheque", "twenty"])
@pytest.mark.parametrize("side", [UP, DOWN])
def test_no_knot_at_the_receiver_no_two_arcs_cross_and_tips_stand_apart(sentence, side):
    """A knot: arcs crossing just before the receiver and tips on top of one another. Each tip has
    its own place (at least SHARED_PLACE from the next, on a receiver RECEIVER_ROOM wide, as the
    scenes give a word as short as "the"; the heaviest head clear of every other) and no two arcs on
    the receiver's line cross; the old layout (farthest source leftmost, on a third of the box)
    crossed nearly every pair."""
    ws = compute_worksheet(sentence)
    row = get_token_row(ws.tokens, receiver=ws.n, receiver_width=RECEIVER_ROOM)      # as the scenes draw it
    arrows = get_attention_arrows(row, ws.heads[0].weights[-1], side=side)
    r = ws.n - 1
    same_line = [a for a in arrows.arrows if a.source != r and row.line_of(a.source) == row.line_of(r)]
    ends = sorted(a.get_end()[0] for a in same_line)
    if row.lines == 1:         # (a 20-token row shares the edge with its first line's arrows)
        # every tip its own place (at least SHARED_PLACE along the edge), the heaviest head
        # (ranked here) overlapping no other
        assert len(same_line) >= 2 and min(np.diff(ends)) >= SHARED_PLACE - 1e-9
        tips = {a.source: a.get_tip() for a in same_line}
        top = max(tips, key=lambda j: ws.heads[0].weights[-1][j])
        lo, hi = tips[top].get_left()[0], tips[top].get_right()[0]
        assert not [j for j, t in tips.items() if j != top and t.get_left()[0] < hi and lo < t.get_right()[0]]
    assert _crossings(same_line) == []


@pytest.mark.parametrize("sentence", random_sentences())
def test_any_sentence_of_one_to_twenty_words_fits_legibly(sentence):
    tokens = sentence.split()
    row = get_token_row(tokens, receiver=len(tokens), blank=True)
    assert row.width <= SAFE_WIDTH + 1e-6
    assert row.font_size >= MIN_TEXT_SIZE
    assert all(effective_font_size(t) >= MIN_TEXT_SIZE - 1e-6 for t in [*row.words, *row.positions])
    one_line = sum(b.width for b in row.boxes) + 0.14 * (len(tokens) - 1) + 1.3 <= SAFE_WIDTH
    assert (row.lines == 1) == one_line and row.lines <= 3
    for a, b in zip(row.starts, [*row.starts[1:], row.n]):          # every line fits on its own
        assert row.boxes[b - 1].get_right()[0] - row.boxes[a].get_left()[0] <= SAFE_WIDTH + 1e-6
    weights = np.full(len(tokens), 1 / len(tokens))
    arrows = get_attention_arrows(row, weights)
    assert arrows.sources == list(range(len(tokens)))


def test_rows_outside_one_to_twenty_tokens_are_refused():
    with pytest.raises(ValueError, match="1 to 20 tokens"):
        get_token_row([])
    with pytest.raises(ValueError, match="1 to 20 tokens"):
        get_token_row(["the"] * 21)
    row = get_token_row(["the", "river"], receiver=2)
    with pytest.raises(ValueError, match="at least 2 weights"):
        get_attention_arrows(row, [1.0])


def test_a_quote_mark_token_hangs_from_the_cap_height_and_words_share_a_baseline():
    from scenes.style import baseline_y
    row = get_token_row(['"', "tim", "said", ",", "the"], receiver=5)
    quote, tim, said, comma = row.words[0], row.words[1], row.words[2], row.words[3]
    assert abs(baseline_y(tim) - baseline_y(said)) < 1e-6
    assert quote.get_top()[1] == pytest.approx(tim.get_top()[1], abs=0.02)   # not dropped to the line
    assert comma.get_bottom()[1] <= baseline_y(tim) + 1e-6                    # a comma sits on it


@pytest.mark.parametrize("side", [UP, DOWN])
def test_an_arrow_between_neighbours_is_a_curve_not_a_stub(side):
    from scenes.blocks.attention_arrows import MIN_ARC_HEIGHT, NESTED_HEIGHT_FLOOR
    ws = compute_worksheet("river")
    row = get_token_row(ws.tokens, receiver=ws.n)
    arrows = get_attention_arrows(row, ws.heads[0].weights[-1], side=side)
    for a in arrows.arrows:
        if a.source == ws.n - 1:
            continue
        ys = a.get_all_points()[:, 1]
        chord_y = row.word_top(a.source)[1] if np.allclose(side, UP) else row.word_bottom(a.source)[1]
        # the arc's farthest point from the row, measured from where it starts
        height = ys.max() - chord_y if np.allclose(side, UP) else chord_y - ys.min()
        # (an arc nested under a farther one may be flattened, never below the floor)
        assert height >= NESTED_HEIGHT_FLOOR * MIN_ARC_HEIGHT - 1e-3, (a.source, height)
        assert NESTED_HEIGHT_FLOOR * MIN_ARC_HEIGHT >= 0.1           # still a curve, not a stub


def test_an_arrowhead_is_at_most_about_a_fifth_of_its_arc():
    row = get_token_row(["It", "is", "a"], receiver=3)          # short words: short arcs
    arrows = get_attention_arrows(row, [0.0, 1.0, 0.0], color=head_color(1), side=DOWN)  # all on the neighbour
    neighbour = arrows.arrow(1)
    tip = neighbour.get_tip()
    assert neighbour.get_stroke_width() == MAX_STROKE
    assert tip.length <= 0.22 * (neighbour.get_arc_length() + tip.length) + 1e-6


# ---------------------------------------------------------------- each weight's label on its own arc

def old_label_spot(label, arrows, j):
    """Where scenes put a weight's label before place_weight_label: above the apex of its arc."""
    arrow = arrows.arrow(j)
    label.next_to(arrow.point_from_proportion(0.5), UP, buff=0.1 + arrow.get_stroke_width() / 90)


@pytest.mark.parametrize("sentence", ["river", "cheque"])
@pytest.mark.parametrize("head", [1, 2])
def test_every_weight_label_is_nearer_its_own_arc_than_any_other(sentence, head):
    from scenes.blocks.attention_arrows import nearest_arrow, place_weight_label
    from scenes.style import get_text
    ws = compute_worksheet(sentence)
    row = get_token_row(ws.tokens, receiver=ws.n)
    side = UP if head == 1 else DOWN
    arrows = get_attention_arrows(row, ws.heads[head - 1].weights[-1], side=side)
    for j in arrows.sources[:-1]:                  # the receiver's own loop has no room for a label
        label = get_text("0.718", font_size=MIN_TEXT_SIZE + 2)
        place_weight_label(label, arrows, j)
        # the arrow nearest the label's box (the one it abuts) is its own
        assert nearest_arrow(arrows, label) == j, (sentence, head, j)


def test_the_old_spot_above_the_apex_put_a_label_nearer_another_arc():
    """The check above can fail: river's head-1 weight above its own apex sat on fisherman's arc."""
    from scenes.blocks.attention_arrows import nearest_arrow
    from scenes.style import get_text
    ws = compute_worksheet("river")
    row = get_token_row(ws.tokens, receiver=ws.n)
    arrows = get_attention_arrows(row, ws.heads[0].weights[-1], side=UP)
    label = get_text("0.718", font_size=MIN_TEXT_SIZE + 2)
    old_label_spot(label, arrows, 5)               # source 6, "river"
    assert nearest_arrow(arrows, label) != 5


@pytest.mark.parametrize("sentence", ["river", "cheque"])
def test_the_two_versus_wide_panels_label_each_strongest_weight_on_its_own_arc(sentence):
    from scenes.blocks.attention_arrows import nearest_arrow
    from scenes.chapter2.joining_heads import get_arrow_panels
    panels = get_arrow_panels(compute_worksheet(sentence))
    for arrow_set in (panels.a1, panels.a2, panels.aw):
        if not arrow_set.beside_name:
            assert nearest_arrow(arrow_set.arrows, arrow_set.label) == arrow_set.top


def test_a_short_receiver_can_be_given_room_for_its_tips():
    """A comma receiving nineteen arrows: its box widened to receiver_width, the other boxes as they
    were, and the tips then at least 0.05 apart (on the bare comma they are not)."""
    tokens = ["tim", "said", "the", "dog", "ran", "to", "the", "park", "and", "tim", "was", "happy", "he",
              "ran", "and", "ran", "to", "tim", "'", ","]
    weights = np.full(20, 1 / 20)
    bare = get_token_row(tokens, receiver=20, positions=False)
    wide = get_token_row(tokens, receiver=20, positions=False, receiver_width=1.2)
    assert wide.boxes[-1].width == pytest.approx(1.2) and bare.boxes[-1].width < 0.6
    assert [b.width for b in wide.boxes[:-1]] == pytest.approx([b.width for b in bare.boxes[:-1]])

    def gaps(row):
        arrows = get_attention_arrows(row, weights)
        ends = sorted(a.get_end()[0] for a in arrows.arrows if a.source != 19 and row.line_of(a.source) == row.line_of(19))
        return min(np.diff(ends))
    assert gaps(bare) < 0.05 <= gaps(wide)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_heavy_arrows_get_their_own_place_on_a_crowded_edge(seed):
    """Seventeen arrows into a comma as scene 20's story line of 18 entries draws it (as wide and as
    far apart as STORY_RECEIVER_WIDTH and STORY_RECEIVER_GAP): far more heads than the edge holds side
    by side. The heaviest keep full-size heads that no other head overlaps; the lightest share what
    is left. The order stays nested (nearer sources land further left), every head on the receiver's
    edge."""
    from scenes.chapter3_trained_models import STORY_RECEIVER_GAP, STORY_RECEIVER_WIDTH
    rng = np.random.default_rng(seed)
    logits = rng.normal(0, 1.5, 18)
    weights = np.exp(logits) / np.exp(logits).sum()
    tokens = ["…", "tim", ".", "tim", "…", "wanted", "…", "tim", "why", "it", "was", "big", "to", "share", ".",
              '"', "tim", ","]
    row = get_token_row(tokens, receiver=18, positions=False, receiver_width=STORY_RECEIVER_WIDTH,
                        receiver_gap=STORY_RECEIVER_GAP, font_size=LABEL_SIZE + 2)
    assert row.lines == 1                     # as scene 20's story line: every source to the left
    arrows = get_attention_arrows(row, weights)
    box = row.boxes[17]
    tips = {a.source: a.get_tip() for a in arrows.arrows if a.source != 17}
    ends = [arrows.arrow(j).get_end()[0] for j in range(16, -1, -1)]       # nearest source first
    assert ends == sorted(ends)
    assert all(box.get_left()[0] < t.get_center()[0] < box.get_right()[0] for t in tips.values())
    extent = {j: (t.get_left()[0], t.get_right()[0]) for j, t in tips.items()}
    for j in sorted(tips, key=lambda j: -weights[j])[:3]:                  # the three heaviest, ranked here
        lo, hi = extent[j]
        assert not [k for k, (l2, h2) in extent.items() if k != j and l2 < hi and lo < h2], (j, weights[j])
        # a full-size head: as long as its stroke's rule gives (0.1 + 0.012 × width)
        assert tips[j].length == pytest.approx(0.1 + 0.012 * arrows.arrow(j).get_stroke_width(), rel=1e-6)


@pytest.mark.parametrize("side", [UP, DOWN])
def test_the_receiver_stands_apart_so_its_nearest_sources_arrow_has_length(side):
    """The panel's knot: the nearest source (often the heaviest) was a stub hidden under the other
    heads, because the receiver touched it. The receiver now stands RECEIVER_GAP further from the word
    before it than the words stand from each other, and the nearest arrow spans at least that gap;
    the words before the receiver do not move, and a row without a receiver has no gap."""
    from scenes.blocks.attention_arrows import RECEIVER_GAP
    ws = compute_worksheet("river")
    apart = get_token_row(ws.tokens, receiver=ws.n, receiver_width=RECEIVER_ROOM)
    close = get_token_row(ws.tokens, receiver=ws.n, receiver_width=RECEIVER_ROOM, receiver_gap=0.0)
    r = ws.n - 1

    def space(row, j):        # open space between box j-1 and box j
        return row.boxes[j].get_left()[0] - row.boxes[j - 1].get_right()[0]
    assert space(apart, r) == pytest.approx(space(apart, 1) + RECEIVER_GAP)
    assert space(close, r) == pytest.approx(space(close, 1))
    assert apart.boxes[r].get_right()[0] - apart.boxes[0].get_left()[0] == pytest.approx(
        close.boxes[r].get_right()[0] - close.boxes[0].get_left()[0] + RECEIVER_GAP)
    plain = get_token_row(ws.tokens)
    assert all(space(plain, j) == pytest.approx(space(plain, 1)) for j in range(2, ws.n))
    nearest = get_attention_arrows(apart, ws.heads[0].weights[-1], side=side).arrow(r - 1)
    stub = get_attention_arrows(close, ws.heads[0].weights[-1], side=side).arrow(r - 1)
    start, end = nearest.get_start(), nearest.get_end()
    assert np.linalg.norm(end - start) >= RECEIVER_GAP
    assert nearest.get_arc_length() > stub.get_arc_length() + 0.5 * RECEIVER_GAP


@pytest.mark.parametrize("sentence", ["river", "cheque"])
@pytest.mark.parametrize("side", [UP, DOWN])
def test_arrows_come_down_onto_the_receiver_side_by_side_not_converging_on_a_corner(sentence, side):
    """The panel's knot (01_06, 08_13): every arc reached the receiver along the same diagonal, so
    their last stretches ran together into one corner under a pile of heads. Now each arrow's head
    points into the receiver's edge (within 15° of straight down onto it, or up from below), the
    last 0.15 of each arc stays apart from its neighbour's by at least half their places' spacing,
    and no two heads with places of their own overlap. On the old layout (circular arcs) the heads
    came in at 35° from the edge (55° from straight down)."""
    from scenes.blocks.attention_arrows import arc_points
    ws = compute_worksheet(sentence)
    row = get_token_row(ws.tokens, receiver=ws.n, receiver_width=RECEIVER_ROOM)
    arrows = get_attention_arrows(row, ws.heads[0].weights[-1], side=side)
    r = ws.n - 1
    inward = np.array([0.0, -1.0]) if np.allclose(side, UP) else np.array([0.0, 1.0])
    same_line = sorted((a for a in arrows.arrows if a.source != r), key=lambda a: a.get_end()[0])
    for a in same_line:
        tip = a.get_tip()
        direction = (tip.tip_point - tip.base)[:2]
        cos = direction @ inward / np.linalg.norm(direction)
        assert cos >= np.cos(np.radians(15)), (a.source, np.degrees(np.arccos(cos)))

    def last_stretch(a, length=0.15):
        pts = arc_points(a)[:, :2]
        end = pts[-1]
        return pts[np.linalg.norm(pts - end, axis=1) <= length]
    for a, b in zip(same_line, same_line[1:]):
        spacing = b.get_end()[0] - a.get_end()[0]
        gap = min(float(np.min(np.linalg.norm(last_stretch(a)[:, None] - last_stretch(b)[None], axis=2))), spacing)
        assert gap >= 0.5 * spacing, (a.source, b.source, gap, spacing)
    # heads at full size (those with places of their own) overlap no other head
    heads = {a.source: (a.get_tip().get_left()[0], a.get_tip().get_right()[0]) for a in same_line}
    own = [a.source for a in same_line
           if a.get_tip().length == pytest.approx(0.1 + 0.012 * a.get_stroke_width(), rel=1e-6)]
    assert own
    for j in own:
        lo, hi = heads[j]
        assert not [k for k, (l2, h2) in heads.items() if k != j and l2 < hi - 1e-6 and lo + 1e-6 < h2], j
