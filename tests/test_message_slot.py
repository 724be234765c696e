"""The message-slot block: a value row as a small bar chart (bar length = value), a head's message
slot, and the flow of scaled copies into it (segments end to end, each as long as its
contribution), checked against contributions worked by hand."""
from __future__ import annotations

import numpy as np
import pytest
from manim import DOWN, RIGHT, VGroup

from scenes.blocks.message_slot import get_message_flow, get_message_slot, get_value_chip
from scenes.style import MIN_TEXT_SIZE, head_color


def test_a_chip_draws_one_track_per_coordinate_and_a_bar_as_long_as_the_value():
    chip = get_value_chip((1.0, 0.0, 0.25), track_length=0.4)
    assert len(chip.tracks) == 3 and len(chip.bars) == 2          # no bar for the zero
    assert chip.bar(1) is None
    assert chip.bar(0).width == pytest.approx(0.4) and chip.bar(2).width == pytest.approx(0.1)
    # bars start at their track's left edge, tracks top to bottom
    assert chip.bar(2).get_left()[0] == pytest.approx(chip.tracks[2].get_left()[0])
    assert chip.tracks[0].get_y() > chip.tracks[1].get_y() > chip.tracks[2].get_y()
    with pytest.raises(ValueError, match=r"entries in \[0, 1\]"):
        get_value_chip((1.2, 0.0))


def test_a_slot_labels_its_tracks_legibly():
    slot = get_message_slot(("colour", "material"), color=head_color(1), title="message")
    assert [t.original_text for t in slot.labels] == ["colour", "material"]
    assert all(t.font_size >= MIN_TEXT_SIZE - 1e-9 for t in [*slot.labels, slot.title])
    assert slot.labels[0].get_left()[0] > slot.tracks[0].get_right()[0]


def test_the_flow_lays_each_sources_contribution_end_to_end():
    chips = VGroup(get_value_chip((1.0, 0.5)), get_value_chip((0.0, 1.0)), get_value_chip((0.5, 0.5)))
    slot = get_message_slot(("a", "b"), color=head_color(2), track_length=2.0)
    # weights 0.6, 0.3, 0.1 by hand: contributions 0.6·(1, 0.5), 0.3·(0, 1), 0.1·(0.5, 0.5)
    parts = [(0.6, 0.3), (0.0, 0.3), (0.05, 0.05)]
    flow = get_message_flow(chips, parts, slot)
    # the message, by hand: a = 0.6 + 0 + 0.05 = 0.65, b = 0.3 + 0.3 + 0.05 = 0.65
    assert tuple(flow.filled) == pytest.approx((0.65, 0.65))
    assert len(flow.by_source[1]) == 1                              # no segment for a zero contribution
    a_segments = sorted((s for s in flow.segments if abs(s.get_y() - slot.tracks[0].get_y()) < 1e-9),
                        key=lambda s: s.get_x())
    assert [s.width for s in a_segments] == pytest.approx([1.2, 0.1])   # 0.6·2, 0.05·2
    assert a_segments[0].get_left()[0] == pytest.approx(slot.tracks[0].get_left()[0])
    assert a_segments[1].get_left()[0] == pytest.approx(a_segments[0].get_right()[0])
    # cells name each source's segment in each track: source 2's in track b starts after 0.3 + 0.3
    assert set(flow.cells) == {(0, 0), (0, 1), (1, 1), (2, 0), (2, 1)}        # (1, 0) sends nothing
    assert flow.cells[0, 0] is a_segments[0] and flow.cells[2, 0] is a_segments[1]
    assert flow.cells[2, 1].get_left()[0] == pytest.approx(slot.tracks[1].get_left()[0] + 0.6 * 2.0)
    # track(k): the slot's track k and its segments, in source order
    assert list(flow.track(0)) == [slot.tracks[0], *a_segments]
    assert list(flow.track(1)) == [slot.tracks[1], flow.cells[0, 1], flow.cells[1, 1], flow.cells[2, 1]]
    # the scaled copies sit over their chip, as long as the contribution on the chip's scale
    copy = flow.copies[0][0]
    assert copy.width == pytest.approx(0.6 * chips[0].track_length)
    assert copy.get_left()[0] == pytest.approx(chips[0].tracks[0].get_left()[0])


def test_the_copies_can_travel_along_their_own_arrows():
    """With the head's arrows, each source's copies go up its own arrow's curve to the receiver and on
    into the slot: the path starts over the chip, passes every point of that arrow's curve in order,
    and ends on the source's segments."""
    import numpy as np
    from manim import Succession
    from scenes.blocks.attention_arrows import arc_points, get_attention_arrows, get_token_row

    row = get_token_row(["red", "wool", "coat"], receiver=3, positions=False)
    chips = VGroup(*(get_value_chip(v).next_to(row.boxes[j], DOWN) for j, v in enumerate(((1.0,), (0.4,), (0.2,)))))
    slot = get_message_slot(("colour",), color=head_color(1)).next_to(row.boxes[2], RIGHT)
    arrows = get_attention_arrows(row, (0.7, 0.2, 0.1))
    flow = get_message_flow(chips, [(0.7,), (0.08,), (0.02,)], slot)
    for j in range(3):
        path = flow.path_of(j, arrows).points
        curve = arc_points(arrows.arrow(j))
        assert np.allclose(path[0], flow.copies[j].get_center())
        assert np.allclose(path[-1], flow.by_source[j].get_center())
        # the arrow's curve, in order, inside the path (each point an anchor of the path)
        anchors = path[::4]
        hits = [int(np.argmin(np.linalg.norm(anchors - p, axis=1))) for p in curve]
        assert hits == sorted(hits) and all(np.linalg.norm(anchors[h] - p) < 1e-6 for h, p in zip(hits, curve))
    animation = flow.move_copies(along=arrows)
    assert len(animation.animations) == 3
    assert all(isinstance(s, Succession) for a in animation.animations for s in a.animations)


def test_the_flow_refuses_contributions_that_do_not_fit():
    chips = VGroup(get_value_chip((1.0,)), get_value_chip((1.0,)))
    slot = get_message_slot(("a",), color=head_color(1))
    with pytest.raises(ValueError, match="fit the track"):
        get_message_flow(chips, [(0.7,), (0.6,)], slot)
    with pytest.raises(ValueError, match="for 2 chips"):
        get_message_flow(chips, [(0.5,)], slot)


def test_a_thinly_read_row_still_shows_a_tiny_scaled_copy_but_its_segment_keeps_its_length():
    chips = VGroup(get_value_chip((0.2,), track_length=0.5), get_value_chip((1.0,), track_length=0.5))
    slot = get_message_slot(("a",), color=head_color(1), track_length=1.0)
    # weights 0.04 and 0.96 by hand: contributions 0.008 and 0.96
    flow = get_message_flow(chips, [(0.008,), (0.96,)], slot, min_copy_width=0.03)
    assert flow.copies[0][0].width == pytest.approx(0.03)            # 0.008 · 0.5 = 0.004, drawn at 0.03
    assert flow.copies[1][0].width == pytest.approx(0.48)            # 0.96 · 0.5, above the minimum
    assert sorted(s.width for s in flow.segments) == pytest.approx([0.008, 0.96])


def test_the_unfilled_part_of_each_track_is_what_the_message_leaves_empty():
    chips = VGroup(get_value_chip((1.0, 0.5)), get_value_chip((0.0, 1.0)))
    slot = get_message_slot(("a", "b"), color=head_color(1), track_length=2.0)
    # by hand: a = 0.6 + 0 = 0.6, b = 0.3 + 0.3 = 0.6
    flow = get_message_flow(chips, [(0.6, 0.3), (0.0, 0.3)], slot)
    rest = flow.get_unfilled()
    assert [r.width for r in rest] == pytest.approx([0.8, 0.8])          # (1 − 0.6) · 2
    for r, track in zip(rest, slot.tracks):
        assert r.get_right()[0] == pytest.approx(track.get_right()[0])   # it ends where the track ends
        assert r.get_y() == pytest.approx(track.get_y())


def test_a_signed_message_lays_positive_parts_right_of_zero_and_negative_left_without_overlap():
    """Worked by hand: parts [[2, -1], [1, 0.5], [-0.5, -1]] give coordinate 0: +3 right, 0.5 left
    (net 2.5), coordinate 1: 0.5 right, 2 left (net -1.5); the widest side sum is 3 + 2 = 5 units of
    value over 2.5 of track, so 0.5 of track per unit."""
    from scenes.blocks.message_slot import get_signed_message_flow
    parts = [[2.0, -1.0], [1.0, 0.5], [-0.5, -1.0]]
    starts = [[np.array([x, -2.0, 0.0]), np.array([x + 0.5, -2.0, 0.0])] for x in (-3.0, -2.0, -1.0)]
    flow = get_signed_message_flow(parts, starts, ["water", "finance"], color="#ffffff", track_length=2.5)
    assert flow.scale == pytest.approx(0.5)
    zero = flow.zero.get_x()
    assert flow.slot.tracks[0].get_left()[0] == pytest.approx(zero - 2 * 0.5)    # the widest left side: 2
    for k, net in ((0, 2.5), (1, -1.5)):
        assert flow.totals[k].get_x() == pytest.approx(zero + net * 0.5)
        segs = sorted((flow.cells[j, k] for j in range(3)), key=lambda m: m.get_left()[0])
        for a, b in zip(segs, segs[1:]):
            assert a.get_right()[0] <= b.get_left()[0] + 1e-9          # end to end, never on top
    # source order outward from zero: source 0's +2 is the first right of zero, its -1 the first left
    assert flow.cells[0, 0].get_left()[0] == pytest.approx(zero)
    assert flow.cells[0, 1].get_right()[0] == pytest.approx(zero)
    assert flow.cells[2, 1].get_right()[0] == pytest.approx(zero - 1.0 * 0.5)   # after source 0's -1 (1's +0.5 is right)
    # each copy starts at its source's cells, one bar per coordinate as long as its segment
    assert [c.get_x() for c in flow.copies[1]] == pytest.approx([-2.0, -1.5])
    assert [c.width for c in flow.copies[0]] == pytest.approx([1.0, 0.5])


def test_a_signed_message_of_nothing_is_refused():
    from scenes.blocks.message_slot import get_signed_message_flow
    with pytest.raises(ValueError, match="nothing to draw"):
        get_signed_message_flow([[0.0, 0.0]], [[np.zeros(3), np.zeros(3)]], ["a", "b"], color="#ffffff")
