"""The weight-share bar (scenes/blocks/weight_share.py): a head's row of weights drawn as parts of
one bar of fixed length. Expected lengths are worked by hand from the weights."""
from __future__ import annotations

import pytest

from scenes.blocks.weight_share import WORD_GAP, get_weight_share

WEIGHTS = (0.5, 0.25, 0.125, 0.125)      # adds up to one exactly in binary


def test_each_segment_is_its_weight_of_the_bar_and_they_lie_end_to_end():
    share = get_weight_share(WEIGHTS, color="#FFFFFF", length=4.0, words=("a", "b", "c", "d"), named=(1,))
    widths = [s.width for s in share.segments]
    assert widths == pytest.approx([2.0, 1.0, 0.5, 0.5])            # 4 × each weight, by hand
    left = share.frame.get_left()[0]
    assert share.segments[0].get_left()[0] == pytest.approx(left)
    for a, b in zip(share.segments, share.segments[1:]):
        assert b.get_left()[0] == pytest.approx(a.get_right()[0])
    assert share.segments[-1].get_right()[0] == pytest.approx(share.frame.get_right()[0])
    assert share.frame.width == pytest.approx(4.0)
    assert share.total.original_text == "= 1"
    # the named source is drawn stronger than the others, and named by its word under its segment
    assert share.segment(0).get_fill_opacity() > share.segment(1).get_fill_opacity()
    assert list(share.labels) == [0] and share.labels[0].original_text == "a"
    assert share.labels[0].get_top()[1] < share.segment(0).get_bottom()[1]


def test_two_heads_bars_have_one_length_whatever_their_weights():
    a = get_weight_share((0.9, 0.1), color="#FFFFFF", length=1.3, labelled=False, named=(1,))
    b = get_weight_share((0.2, 0.3, 0.5), color="#FFFFFF", length=1.3, labelled=False, named=(3,))
    assert a.frame.width == pytest.approx(b.frame.width)
    assert sum(s.width for s in a.segments) == pytest.approx(sum(s.width for s in b.segments))


def test_neighbouring_word_labels_do_not_overlap():
    share = get_weight_share((0.02, 0.49, 0.49), color="#FFFFFF", length=1.0, words=("Maya", "hooded", "wool"),
                             named=(1, 2, 3))
    labels = [share.labels[j] for j in sorted(share.labels)]
    for a, b in zip(labels, labels[1:]):
        assert b.get_left()[0] - a.get_right()[0] >= WORD_GAP - 1e-9      # a word space apart, not run together


@pytest.mark.parametrize("weights, message", [
    ((0.5, 0.4), "add up to"),
    ((1.2, -0.2), "non-negative"),
    ((), "non-negative"),
])
def test_a_row_that_is_not_a_row_of_weights_is_refused(weights, message):
    with pytest.raises(ValueError, match=message):
        get_weight_share(weights, color="#FFFFFF")


def test_named_sources_must_be_positions_with_words():
    with pytest.raises(ValueError, match="not a position"):
        get_weight_share((0.5, 0.5), color="#FFFFFF", words=("a", "b"), named=(3,))
    with pytest.raises(ValueError, match="one word per weight"):
        get_weight_share((0.5, 0.5), color="#FFFFFF", named=(1,))


def test_the_bar_grows_out_of_the_arrows_one_segment_per_arrow():
    from manim import TransformFromCopy
    from scenes.blocks.attention_arrows import get_attention_arrows, get_token_row
    weights = (0.1, 0.2, 0.7)
    row = get_token_row(("a", "b", "c"), receiver=3)
    arrows = get_attention_arrows(row, weights)
    share = get_weight_share(weights, color="#FFFFFF")
    steps = share.grow_from(arrows).animations
    assert all(isinstance(s, TransformFromCopy) for s in steps)
    # manim's TransformFromCopy(a, b) keeps a in place and morphs a copy of it into b: it stores b as
    # its mobject and a as its target
    assert [s.target_mobject for s in steps] == [arrows.arrow(j) for j in range(3)]
    assert [s.mobject for s in steps] == list(share.segments)
