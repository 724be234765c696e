"""Chapter 1 (ThreeHeadsSevenRows, TheReceiver, ParallelHeads, OneSharedWeight): the scenes build
without LaTeX, show the word-only examples exactly as the worksheet writes them (positions counted
here by hand), keep the notes' caveats on screen, and show only the data layer's numbers."""
from __future__ import annotations

import numpy as np
import pytest

from lesson_data.display import fmt
from lesson_data.worksheet import two_source_illustration
from scenes.chapter1_why_heads import (
    CAVEAT,
    OneSharedWeight,
    ParallelHeads,
    TheReceiver,
    ThreeHeadsSevenRows,
    token_box,
)
from scenes.style import BACKGROUND, HIGHLIGHT_OPACITY, RECEIVER_COLOR
from tests.scene_harness import assert_builds_cleanly, blend, build_scene

SCENES = (ThreeHeadsSevenRows, TheReceiver, ParallelHeads, OneSharedWeight)
WORD_SCENES = (ThreeHeadsSevenRows, TheReceiver, ParallelHeads)
_CACHE: dict = {}


class _LogPlays:
    """Mixed into a scene: notes, for each mobject, the first play after which it is on screen."""

    def setup(self):
        super().setup()
        self.first_play = {}
        self.play_count = 0

    def play(self, *args, **kwargs):
        result = super().play(*args, **kwargs)
        self.play_count += 1
        for top in self.mobjects:
            for m in top.get_family():
                self.first_play.setdefault(id(m), self.play_count)
        return result


def built(scene_cls):
    if scene_cls.__name__ not in _CACHE:
        logged = type(scene_cls.__name__, (_LogPlays, scene_cls), {})
        _CACHE[scene_cls.__name__] = build_scene(logged, pixel_height=270)
    return _CACHE[scene_cls.__name__]


def said(b) -> str:
    return " ".join(s[2] for s in b.subcaptions)


def on_screen(b) -> set:
    return {t.original_text for t in b.texts}


def captions_shown(b) -> set:
    return {t.sentence for t in b.texts if hasattr(t, "sentence")}


def strip_words(strip) -> list[str]:
    return [token[1].original_text for token in strip.tokens]


def arc_sources(strip, arcs) -> list[int]:
    """Which token (1-based) each arrow starts at, found from geometry: the box under its start."""
    found = []
    receiver = token_box(strip, strip.example.receiver)
    for arc in arcs:
        x = arc.get_start()[0]
        hits = [p for p in range(1, len(strip.tokens) + 1)
                if abs(x - token_box(strip, p).get_x()) <= token_box(strip, p).width / 2]
        assert len(hits) == 1, f"arrow starting at x={x:.2f} is over {hits}"
        # every arrow ends on the receiver's box
        end = arc.get_end()[0]
        assert abs(end - receiver.get_x()) <= receiver.width / 2 + 0.05
        found.append(hits[0])
    return found


def test_the_chapter_file_is_the_catalog_entry():
    from lesson_build.catalog import CHAPTERS

    entries = {e.name: e.file for e in CHAPTERS[0].scenes}
    assert entries == {cls.__name__: "scenes/chapter1_why_heads.py" for cls in SCENES}


@pytest.mark.parametrize("scene_cls", SCENES, ids=lambda c: c.__name__)
def test_scene_builds_cleanly(scene_cls):
    b = built(scene_cls)
    assert_builds_cleanly(b, min_sections=3, min_subcaptions=3)
    assert 30 <= b.duration <= 110, b.duration   # paced for a learner


@pytest.mark.parametrize("scene_cls", WORD_SCENES, ids=lambda c: c.__name__)
def test_word_scenes_keep_the_caveat_on_screen_and_say_other_sources_are_not_zero(scene_cls):
    b = built(scene_cls)
    assert CAVEAT in captions_shown(b) and CAVEAT in said(b)
    assert "illustration: possible readings, not measured attention" in on_screen(b)
    # the badge is still there at the end
    assert b.scene.badge in b.scene.mobjects
    assert "not mean all other sources are masked or have exactly zero weight" in said(b)
    assert "every known row is read (not masked, weight not zero)" in on_screen(b)
    assert b.numbers == []                                  # word-only: no numbers


# ------------------------------------------------------------------- 1: three heads, seven rows


def test_three_heads_each_read_all_seven_rows_including_coat():
    b = built(ThreeHeadsSevenRows)
    words = "Maya wore a hooded red wool coat".split()            # WORKSHEET.md, by hand
    roles = {1: ("colour", "red", 5), 2: ("material", "wool", 6), 3: ("detail", "hooded", 4)}
    assert strip_words(b.scene.strip) == words
    assert [p.original_text for p in b.scene.strip.positions] == [str(p) for p in range(1, 8)]
    assert len(b.scene.heads) == 3
    for k, row in enumerate(b.scene.heads, start=1):
        role, word, position = roles[k]
        assert strip_words(row.strip) == words
        # one arrow from every row, the receiver "coat" (row 7) included
        sources = arc_sources(row.strip, row.arcs.faint) + arc_sources(row.strip, row.arcs.bright)
        assert sorted(sources) == list(range(1, 8))
        assert arc_sources(row.strip, row.arcs.bright) == [position]
        assert words[position - 1] == word
        assert f"head {k}" in on_screen(b)
        assert f"possible role: {role} → {word}" in on_screen(b)
    # the three heads come on screen together (in parallel), after the one-head picture
    first = b.scene.first_play
    for part in ("faint", "bright"):
        assert len({first[id(getattr(row.arcs, part)[0])] for row in b.scene.heads}) == 1
    assert first[id(b.scene.heads[0].arcs.faint[0])] > first[id(b.scene.one_head_arcs.bright[0])]
    # one head first: it reads every row and highlights all three attributes at once
    one = b.scene.one_head_arcs
    assert sorted(arc_sources(b.scene.strip, one.bright)) == [4, 5, 6]
    assert len(one.faint) + len(one.bright) == 7
    text = said(b)
    assert "This is a possible division of work, not three manually assigned jobs." in text
    assert "All three heads see all seven rows, including coat." in text
    assert "A single head may also encode several attributes" in text
    assert "In deeper layers, source rows can already contain context." in text


def test_three_heads_last_frame_highlights_the_receiver_coat():
    b = built(ThreeHeadsSevenRows)
    for row in b.scene.heads:
        box = token_box(row.strip, 7)
        x = (box.get_left()[0] + row.strip.tokens[6][1].get_left()[0]) / 2   # between edge and glyph
        assert np.abs(b.pixel((x, box.get_y())) - blend(RECEIVER_COLOR, BACKGROUND, HIGHLIGHT_OPACITY)).max() <= 3
        # the row before (wool) is not highlighted
        other = token_box(row.strip, 6)
        x = (other.get_left()[0] + row.strip.tokens[5][1].get_left()[0]) / 2
        assert np.abs(b.pixel((x, other.get_y())) - blend(BACKGROUND, BACKGROUND, 1.0)).max() <= 3


# ------------------------------------------------------------------------------ 2: the receiver


def test_receiver_is_usually_not_the_unknown_next_word():
    b = built(TheReceiver)
    strip = b.scene.strip
    assert strip_words(strip) == ["The", "dogs", "near", "the", "gate", "usually"]
    assert len(strip.blank) == 2 and strip.blank[1].original_text == "___"   # the unknown word: no token
    assert strip.positions[-1].original_text == "6"
    # the receiver box is the 6th, drawn in the receiver colour
    assert token_box(strip, 6).get_stroke_color().to_hex().upper() == RECEIVER_COLOR.upper()
    assert token_box(strip, 5).get_stroke_color().to_hex().upper() != RECEIVER_COLOR.upper()
    assert "receiver:" in on_screen(b) and "last known token" in on_screen(b)
    assert "unknown next word:" in on_screen(b)
    # dogs (row 2) is the highlighted source; every row 1..6 has an arrow
    assert arc_sources(strip, b.scene.arcs.bright) == [2]
    assert sorted(arc_sources(strip, b.scene.arcs.faint)) == [1, 3, 4, 5, 6]
    assert {"plural subject", "nearer singular noun", "does not control agreement"} <= on_screen(b)
    assert b.scene.guess.original_text == "bark" and b.scene.wrong[0].original_text == "barks"
    text = said(b)
    assert "The receiver is usually, the last known token—not the as-yet-unknown word bark." in text
    assert "“The dogs near the gate usually bark at visitors” is one possible continuation." in text
    assert "Dogs supports bark, not barks; the nearer singular noun gate does not control subject agreement." in text
    assert "Both useful source words occur before the receiver." in text
    assert "These semantic roles are illustrative, not measured trained heads." in text


def test_both_sources_lie_under_the_known_prefix_bracket():
    b = built(TheReceiver)
    strip, bracket = b.scene.strip, b.scene.prefix_bracket
    assert bracket[1].original_text == "known prefix: positions 1–6"
    left, right = bracket[0].get_left()[0], bracket[0].get_right()[0]
    for p in (2, 5):                                           # dogs, gate
        box = token_box(strip, p)
        assert left - 1e-6 <= box.get_left()[0] and box.get_right()[0] <= right + 1e-6
    assert strip.blank.get_left()[0] > right                  # the blank lies outside the prefix


# ---------------------------------------------------------------------------- 3: parallel heads


def test_punctuation_is_a_token_and_it_is_receiver_six():
    b = built(ParallelHeads)
    strip = b.scene.strip
    assert strip_words(strip) == ["Ravi", "dropped", "the", "glass", ".", "It"]
    assert b.scene.punctuation == 5
    assert {"punctuation", "is a token", "receiver", "6"} <= on_screen(b)
    above, below = b.scene.arcs
    assert arc_sources(strip, above.bright) == [4]            # head 1: glass (the referent)
    assert arc_sources(strip, below.bright) == [2]            # head 2: dropped (the event)
    for arcs in (above, below):
        assert sorted(arc_sources(strip, arcs.faint) + arc_sources(strip, arcs.bright)) == list(range(1, 7))
    assert above.get_bottom()[1] >= strip.tokens.get_top()[1] - 0.05
    assert below.get_top()[1] <= strip.tokens.get_bottom()[1]
    assert {"possible role: referent → glass", "possible role: event → dropped", "parallel",
            "possible next word"} <= on_screen(b)
    assert b.scene.guess.original_text == "broke"
    text = said(b)
    assert "We treat punctuation as a token in this illustration: It is receiver 6." in text
    assert "the event head does not wait for the reference head’s result" in text
    assert "Contextual input rows from earlier layers can help make these matches." in text


def test_the_event_head_does_not_wait_for_the_reference_head():
    b = built(ParallelHeads)
    above, below = b.scene.arcs
    first = b.scene.first_play
    # both heads' arrows (faint, then bright) come on screen in the same plays
    assert first[id(above.faint[0])] == first[id(below.faint[0])]
    assert first[id(above.bright[0])] == first[id(below.bright[0])]


# ------------------------------------------------------------------------ 4: one shared weight


def assert_row(b, tag, expected):
    shown = b.by_tag(tag)
    expected = np.atleast_1d(np.asarray(expected, dtype=float))
    assert set(shown) == {(0, j) for j in range(len(expected))}, tag
    for (_, j), m in shown.items():
        assert m.value == expected[j] and m.original_text == fmt(expected[j]), (tag, j)


def test_one_shared_weight_shows_the_illustrations_numbers():
    ill = two_source_illustration()
    b = built(OneSharedWeight)
    V = b.by_tag("V")
    assert {k: m.value for k, m in V.items()} == {(i, j): ill.V[i, j] for i in range(2) for j in range(2)}
    assert [t.original_text for t in b.scene.values.row_labels] == ["river", "fisherman"]
    # one head: one weight per source, times that source's whole value row
    for s, word in enumerate(ill.sources):
        alpha = b.by_tag(f"one_{s}_alpha")[None]
        assert alpha.value == ill.one_head_weights[s]
        assert_row(b, f"one_{s}_v", ill.value_rows[word])
        assert_row(b, f"one_{s}_product", ill.one_head_weights[s] * np.asarray(ill.value_rows[word]))
    assert_row(b, "one_message", ill.one_head_message)
    # two heads: coordinate k mixes the sources with its own weights
    for k, coord in enumerate(ill.coordinates):
        for s in range(2):
            assert b.by_tag("two_w")[(k, s)].value == ill.two_head_weights[coord][s]
            assert b.by_tag("two_v")[(k, s)].value == ill.V[s, k]
        assert b.by_tag("two_terms_sum")[k].value == ill.two_head_message[k]
    assert_row(b, "two_message", ill.two_head_message)


def test_one_shared_weight_worked_by_hand():
    b = built(OneSharedWeight)
    # 0.8·[10, 1] + 0.2·[2, 8] = [8 + 0.4, 0.8 + 1.6]
    assert [b.by_tag("one_0_product")[(0, j)].original_text for j in range(2)] == ["8.000", "0.800"]
    assert [b.by_tag("one_1_product")[(0, j)].original_text for j in range(2)] == ["0.400", "1.600"]
    assert [b.by_tag("one_message")[(0, j)].original_text for j in range(2)] == ["8.400", "2.400"]
    # a: 0.8·10 + 0.2·2 = 8.4; b: 0.2·1 + 0.8·8 = 6.6
    assert [b.by_tag("two_message")[(0, j)].original_text for j in range(2)] == ["8.400", "6.600"]
    # a second method: the shown products' unrounded values add up to the shown message
    for j in range(2):
        total = b.by_tag("one_0_product")[(0, j)].value + b.by_tag("one_1_product")[(0, j)].value
        assert total == pytest.approx(b.by_tag("one_message")[(0, j)].value, abs=1e-12)
    for k in range(2):
        terms = sum(b.by_tag("two_w")[(k, s)].value * b.by_tag("two_v")[(k, s)].value for s in range(2))
        assert terms == pytest.approx(b.by_tag("two_terms_sum")[k].value, abs=1e-12)


def test_one_shared_weight_says_illustrative_and_credits_voita():
    b = built(OneSharedWeight)
    texts = on_screen(b)
    assert "illustrative numbers, invented for this comparison" in texts
    assert "value rows (illustrative)" in texts
    assert any("Voita et al., 2019" in t for t in texts)
    text = said(b)
    assert "These numbers are illustrative." in text
    assert "It uses one shared set of source weights for all coordinates of that message." in text
    assert "All head projections learn jointly from prediction loss." in text
    assert "see Voita et al. (2019)" in text
    assert "More heads are a capacity choice to test, not an automatic improvement." in text
