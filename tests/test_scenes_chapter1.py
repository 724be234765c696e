"""Chapter 1 (ThreeHeadsSevenRows, TheReceiver, ParallelHeads, OneSharedWeight): the scenes build
cleanly in beats, show the word-only examples exactly as the worksheet writes them (positions counted
here by hand), draw attention as arrows whose widths are the data layer's illustrative weights, show
what a head carries (scaled values in a message slot), keep the notes' caveats on screen (the general
caveat said once, then a badge), put each picture in the beat of the sentence that names it, and show
only the data layer's numbers, each with its own precision."""
from __future__ import annotations

import inspect
import math

import numpy as np
import pytest

from lesson_data.display import fmt, places_for
from lesson_data.word_examples import COAT, EVENT_AND_REFERENCE, OVERLAPPING_HEADS, SUBJECT_AGREEMENT, SUBSTITUTION, message
from lesson_data.worksheet import two_source_illustration
from scenes import chapter1_why_heads as ch1
from scenes.blocks.attention_arrows import arrow_stroke
from scenes.chapter1_why_heads import (
    ARROWS_NOTE,
    CAVEAT,
    CAVEAT_BADGE,
    ONE_HEAD_COLOR,
    OneSharedWeight,
    ParallelHeads,
    TheReceiver,
    ThreeHeadsSevenRows,
    chapter_head_color,
)
from scenes.style import BACKGROUND, DIM_TEXT_COLOR, HEAD_COLORS, SAFE_WIDTH, WIDE_HEAD_COLOR
from tests import coat_by_hand as hand
from tests.scene_harness import assert_builds_cleanly, assert_matrix_on_screen, blend, built

SCENES = (ThreeHeadsSevenRows, TheReceiver, ParallelHeads, OneSharedWeight)
WORD_SCENES = (ThreeHeadsSevenRows, TheReceiver, ParallelHeads)


def said(b) -> str:
    return " ".join(beat.spoken for beat in b.beats)


def written(b) -> str:
    return " ".join(beat.text for beat in b.beats)


def on_screen(b) -> set:
    return {t.original_text for t in b.texts}


def fine_prints(b) -> list[str]:
    return [f.sentence for f in b.scene.fine_prints]


def plays_in(b, part: str) -> list[str]:
    """The animation names of every play of the beat whose text contains `part`, without the
    caption's own fade in (the beat's first play) and out (its last)."""
    return [c.what for c in b.changes_in(b.beat_of(part)) if c.kind == "play"][1:-1]


def hex_of(m) -> str:
    return m.get_stroke_color().to_hex().upper()


def color_of(c) -> str:
    return (c if isinstance(c, str) else c.to_hex()).upper()


def on_stage(b, m) -> bool:
    """m is drawn in the last frame: in the scene's family and not faded out."""
    family = {id(x) for top in b.scene.mobjects for x in top.get_family()}
    return id(m) in family and max(m.get_stroke_opacity(), m.get_fill_opacity()) > 0.05


def words_of(row) -> list[str]:
    return [w.original_text for w in row.words]


def test_the_chapter_file_is_the_catalog_entry():
    from lesson_build.catalog import CHAPTERS

    entries = {e.name: e.file for e in CHAPTERS[0].scenes}
    assert entries == {cls.__name__: "scenes/chapter1_why_heads.py" for cls in SCENES}


def test_the_chapter_reads_no_sentence_switch_and_computes_no_numbers():
    """Chapter 1 shows the notes' own examples whatever LESSON_SENTENCE says, and its numbers come
    from lesson_data: the scene file reads no worksheet and does no arithmetic on weights."""
    source = inspect.getsource(ch1)
    assert "scene_worksheet" not in source and "LESSON_SENTENCE" not in source
    assert "fsum" not in source and "@" not in source.replace("@staticmethod", "")


@pytest.mark.parametrize("scene_cls", SCENES, ids=lambda c: c.__name__)
def test_scene_builds_cleanly(scene_cls):
    b = built(scene_cls)
    assert_builds_cleanly(b, min_sections=3, min_beats=8)
    # paced for a learner, no padding; scene 1 carries the chapter's argument (the one head's trade,
    # then each head's own query and slice, joined), the others are shorter
    assert 40 <= b.duration <= (140 if scene_cls is ThreeHeadsSevenRows else 110), b.duration
    for beat in b.beats:                            # a teaching script: short sentences
        assert len(beat.text.split()) <= 22, beat.text


@pytest.mark.parametrize("scene_cls", WORD_SCENES, ids=lambda c: c.__name__)
def test_word_scenes_show_no_numbers_and_end_under_the_badge(scene_cls):
    b = built(scene_cls)
    if scene_cls is ThreeHeadsSevenRows:
        # one exception: the one head's weights on its three useful arcs (what "under a third each"
        # names), unrounded underneath and shown to two places: three equal matches, three equal
        # weights (0.2969 each, softmax(3.5 · matches) in numpy) that read 0.30, nothing else
        assert sorted((m.tag, m.index, m.original_text) for m in b.numbers) == [
            ("one_head_w", (3,), "0.30"), ("one_head_w", (4,), "0.30"), ("one_head_w", (5,), "0.30")]
        assert [m.value for m in sorted(b.numbers, key=lambda m: m.index)] == pytest.approx(
            list(hand.weights("one head")[3:6]), abs=1e-15)
    else:
        assert b.numbers == []                      # word-only: the weights are drawn, not written
    assert b.scene.badge in b.scene.mobjects        # the general caveat stays on screen
    assert b.scene.badge.label.original_text == CAVEAT_BADGE


def test_the_general_caveat_and_the_arrows_note_are_said_once_in_scene_1_only():
    b1 = built(ThreeHeadsSevenRows)
    assert ARROWS_NOTE in fine_prints(b1)
    caveat_beat = b1.beat_of("not attention measured in our model")
    assert "illustration" in caveat_beat.spoken
    # said once, in the caption, and carried by the badge: no fine print repeats the same sentence
    assert CAVEAT not in fine_prints(b1)
    assert any("FadeOut" in w for w in plays_in(b1, "not attention measured in our model"))
    # the badge that carries the caveat afterwards comes in with the caveat's own sentence
    assert b1.scene.marks["badge"] == caveat_beat.id
    assert on_stage(b1, b1.scene.badge.label)
    for scene_cls in (TheReceiver, ParallelHeads):
        b = built(scene_cls)
        assert CAVEAT not in fine_prints(b) and ARROWS_NOTE not in fine_prints(b)
        assert "measured" not in said(b).replace("not measured trained heads", "")
        assert "not attention measured" not in written(b)
        # the badge comes with the title (a transition), not with a spoken caveat
        assert b.transitions[0].name == "title"


@pytest.mark.parametrize("scene_cls", WORD_SCENES, ids=lambda c: c.__name__)
def test_the_width_legend_sits_under_the_badge_that_says_illustration(scene_cls):
    b = built(scene_cls)
    legend = b.scene.legend
    # "illustration" is in the badge, always on screen with the legend: the legend does not repeat it
    assert legend.text.original_text == "arrow width = weight"
    assert on_stage(b, b.scene.badge) and b.scene.badge.get_bottom()[1] > legend.get_top()[1]
    thin, thick = legend.samples
    assert thin.get_stroke_width() < thick.get_stroke_width()


# ------------------------------------------------------------------- 1: three heads, seven rows


def test_scene_1_shows_the_seven_rows_and_the_receiver_coat():
    b = built(ThreeHeadsSevenRows)
    words = "Maya wore a hooded red wool coat".split()            # docs/WORKSHEET.md, by hand
    layout = b.scene.layout
    assert words_of(layout.row) == words
    assert [p.original_text for p in layout.positions] == [str(p) for p in range(1, 8)]
    assert layout.row.receiver == 7 and layout.receiver_label.original_text == "receiver"
    # the receiver's label appears in the sentence that names the receiver
    assert b.scene.marks["receiver label"] == b.beat_of("is the receiver").id
    # query, keys and values appear in their own sentences
    assert b.scene.marks["query"] == b.beat_of("asks with a query").id
    assert b.scene.marks["values"] == b.beat_of("a key, which the query is compared with").id
    # "seven tokens, seven rows": the rows (keys and value bars) appear in that sentence
    assert b.scene.marks["rows"] == b.beat_of("tokens, seven rows").id
    # keys (said first) sit right under the words, the values under the keys; the value tracks are named
    assert all(k.get_y() > c.get_y() for k, c in zip(layout.keys, layout.chips))
    assert [t.original_text for t in layout.features] == ["colour", "material", "detail"]
    assert layout.chips[0].track_length >= 0.6                     # larger than the old 0.5
    # the comparison sweeps over the keys in the sentence that says so
    assert b.scene.marks["key sweep"] == b.beat_of("compares the query with every key").id


def test_scene_1_one_head_reads_every_row_with_the_illustrative_weights():
    b = built(ThreeHeadsSevenRows)
    arrows, reading = b.scene.one_head_arrows, COAT.reading(0)
    assert arrows.sources == list(range(7))                        # all seven rows, coat included
    assert list(arrows.weights) == list(reading.weights)           # the data layer's weights
    assert color_of(arrows.color) == ONE_HEAD_COLOR.upper() == WIDE_HEAD_COLOR.upper()
    # the three widest arrows come from hooded, red and wool (positions 4, 5, 6, by hand)
    assert sorted(arrows.strongest(3)) == [3, 4, 5]
    widths = [a.get_stroke_width() for a in arrows.arrows]
    w = hand.weights("one head")
    # hooded, red and wool: equal weights (equal matches), so equally wide, the widest
    assert widths[3] == widths[4] == widths[5] == pytest.approx(arrow_stroke(w[4]))
    assert widths == pytest.approx([arrow_stroke(x) for x in w])
    # the arrows are drawn in the beat that says the head reads all seven rows
    assert any("LaggedStart" in what for what in plays_in(b, "reads all seven rows"))


def test_scene_1_the_message_slot_holds_the_scaled_values():
    b = built(ThreeHeadsSevenRows)
    flow, slot = b.scene.one_head_flow, b.scene.layout.slot
    # the slot's filled fraction per feature is the one head's message (about 0.429, 0.313, 0.314:
    # the weights softmax(3.5 · matches) times the value rows, in numpy)
    assert flow.filled == pytest.approx(tuple(hand.message("one head")), abs=1e-12)
    assert tuple(flow.filled) == pytest.approx(message(COAT, COAT.reading(0)), abs=1e-15)
    # geometry: the segments of a track end to end span filled × track length
    for k in range(3):
        track = slot.tracks[k]
        segs = [s for s in flow.segments if abs(s.get_y() - track.get_y()) < 1e-6]
        assert sum(s.width for s in segs) == pytest.approx(flow.filled[k] * slot.track_length, rel=1e-6)
        assert min(s.get_left()[0] for s in segs) == pytest.approx(track.get_left()[0], abs=1e-6)
    # red's segment in the colour track is its weight × value: 0.297 × 1
    red = flow.by_source[4]
    assert len(red) == 1 and red[0].width == pytest.approx(hand.weights("one head")[4] * slot.track_length, rel=1e-6)
    assert [t.original_text for t in slot.labels] == ["colour", "material", "detail"]
    # the scaled copies appear in the "scaled by its weight" beat, the slot fills in the next one
    assert any("LaggedStart" in w for w in plays_in(b, "Each value shrinks by its weight"))
    assert "the weights add up to one" in b.beat_of("Each value shrinks by its weight").text   # every row keeps a share
    # every row with a non-zero value shows a scaled part, tiny for the thin arrows (Maya: 0.018 · 0.2)
    for j in range(7):
        if any(COAT.values[j]):
            assert flow.copy_widths[j] and min(flow.copy_widths[j]) >= 0.03 - 1e-9
    # the split is shown where it is said: each track's empty part appears in that beat
    assert b.scene.marks["split"] == b.beat_of("under a third each").id
    # in "all seven rows", a white frame steps across every column in each head at once
    assert len(b.scene.row_sweeps) == 3 and all(len(f) == 7 for f in b.scene.row_sweeps)
    assert any(w.count("Succession") == 3 for w in plays_in(b, "“coat” itself included"))
    assert len(b.scene.unfilled) == 3
    assert any("LaggedStart" in w for w in plays_in(b, "add up in the head’s message"))
    for lane_flow in b.scene.flows:                                 # the three heads' messages stay
        assert all(on_stage(b, seg) for seg in lane_flow.segments)


def test_scene_1_three_heads_each_read_all_seven_rows_at_once():
    b = built(ThreeHeadsSevenRows)
    lanes = b.scene.lanes
    roles = {1: ("colour", "red"), 2: ("material", "wool"), 3: ("detail", "hooded")}
    for k, lane in enumerate(lanes, start=1):
        assert words_of(lane.row) == "Maya wore a hooded red wool coat".split()
        assert lane.arrows.sources == list(range(7))
        assert list(lane.arrows.weights) == list(COAT.reading(k).weights)
        assert color_of(lane.arrows.color) == chapter_head_color(k).upper()
        role, word = roles[k]
        assert lane.arrows.strongest(1) == [COAT.tokens.index(word)]
        assert [t.original_text for t in lane.label.role_lines] == ["possible role:", f"{role} → {word}"]
        assert lane.label.head_text.original_text == f"head {k}"
    # one head colour per head, the lesson's for heads 1 and 2
    assert [color_of(lane.arrows.color) for lane in lanes][:2] == [HEAD_COLORS[1].upper(), HEAD_COLORS[2].upper()]
    assert len({color_of(lane.arrows.color) for lane in lanes} | {ONE_HEAD_COLOR.upper()}) == 4
    # the same play draws all three heads' arrows: none waits for another; thin and even at first
    plays = plays_in(b, "all at the same time")
    assert any(what.count("LaggedStart") == 3 for what in plays)
    for lane in lanes:
        assert list(lane.even.weights) == pytest.approx([1 / 7] * 7)         # a seventh each, by hand
    # each head's arrows thicken into its own reading in the sentence that names its word
    assert b.scene.marks["thicken"] == b.beat_of("head 1 might lean on red").id
    assert any(w.count("ReplacementTransform") == 3 for w in plays_in(b, "head 1 might lean on red"))
    assert all(lane.own.plain == "own W_Q, W_K, W_V" for lane in lanes)  # drawn with real subscripts
    # each head sends one slice: the coordinate its role names (about 0.809, 0.820, 0.820, worked in
    # numpy), fuller than the same coordinate of the one head's message
    for k, (lane, flow) in enumerate(zip(lanes, b.scene.flows)):
        assert lane.feature == k and [t.original_text for t in lane.slot.labels] == [COAT.features[k]]
        assert len(lane.slot.tracks) == 1
        assert tuple(flow.filled) == pytest.approx((hand.message(f"head {k + 1}")[k],), abs=1e-12)
        assert flow.filled[0] > b.scene.one_head_flow.filled[k]
    assert any(what.count("LaggedStart") == 3 for what in plays_in(b, "Each head sends one slice"))
    # "all seven rows, coat itself included": a flash runs along every arrow of every head (7 each)
    assert b.scene.marks["every arrow"] == b.beat_of("“coat” itself included").id
    flashes = [n for n in (w.count("ShowPassingFlash") for w in plays_in(b, "“coat” itself included")) if n]
    assert flashes == [3 * 7, 3]


def test_scene_1_fine_print_is_the_notes_words_and_no_still_frame():
    b = built(ThreeHeadsSevenRows)
    notes = open("docs/lesson-notes.txt", encoding="utf-8").read()
    for text in fine_prints(b):
        for sentence in text.split(". "):
            assert sentence.rstrip(".") in notes, sentence
    assert ch1.DIVISION_NOTE in fine_prints(b) and ch1.SEVERAL_NOTE in fine_prints(b)
    # every beat changes the picture (no still frame under several sentences)
    for beat in b.beats:
        assert b.changes_in(beat), beat.text


def test_scene_1_last_frame_fills_each_heads_message_in_its_colour():
    b = built(ThreeHeadsSevenRows)
    for k, (lane, flow) in enumerate(zip(b.scene.lanes, b.scene.flows)):
        seg = max(flow.segments, key=lambda s: s.width)              # the useful source's segment
        got = b.pixel(seg.get_center())
        assert np.abs(got - blend(chapter_head_color(k + 1), BACKGROUND, 0.95)).max() <= 8


# ------------------------------------------------------------------------------ 2: the receiver


def test_scene_2_the_receiver_is_the_last_known_token_not_the_blank():
    b = built(TheReceiver)
    row = b.scene.row
    assert words_of(row) == ["The", "dogs", "near", "the", "gate", "usually"]   # the blank is no token
    assert row.receiver == 6 and len(row.blank) == 2
    assert [p.original_text for p in b.scene.layout.positions] == [str(p) for p in range(1, 7)]
    assert {"receiver:", "last known token", "unknown next word:", "no query yet"} <= on_screen(b)
    # the token is quoted, so it cannot read as a hedge
    assert "The receiver is the word “usually”: the last known token, at position 6." in written(b)
    assert b.scene.guess.original_text == "bark" and b.scene.wrong[0].original_text == "barks"
    # "bark" is a neutral candidate with a question mark first, and resolves with the sentence that
    # calls it one possible continuation, still neutral white (no single head predicted it)
    assert b.scene.first_guess.original_text == "bark?"
    assert color_of(b.scene.guess.get_color()) == color_of(ch1.TEXT_COLOR)
    assert any("ReplacementTransform" in w for w in plays_in(b, "One possible continuation:"))
    # the receiver is highlighted in the sentence that names it, and keeps a tag and its position
    # numbers to the end (beat 9 speaks of "positions 1–6")
    assert b.scene.marks["receiver"] == b.beat_of("The receiver is the word “usually”").id
    assert on_stage(b, b.scene.receiver_tag) and b.scene.receiver_tag.original_text == "receiver"
    assert all(on_stage(b, p) for p in b.scene.layout.positions)
    # plural and singular are shown where they are said
    assert b.scene.plural_tag.original_text == "plural"
    assert b.scene.marks["plural"] == b.beat_of("which is plural").id
    assert b.scene.marks["singular"] == b.beat_of("is singular").id
    assert b.scene.tail.original_text == "at visitors"
    assert "One possible continuation: “The dogs near the gate usually bark at visitors”." in written(b)


def test_scene_2_two_heads_read_the_subject_and_the_place_and_gate_is_no_heads_colour():
    b = built(TheReceiver)
    subject, place = b.scene.subject_arrows, b.scene.place_arrows
    assert list(subject.weights) == list(SUBJECT_AGREEMENT.reading(1).weights)
    assert list(place.weights) == list(SUBJECT_AGREEMENT.reading(2).weights)
    assert subject.strongest(1) == [1] and place.strongest(1) == [4]           # dogs (2), gate (5)
    assert color_of(subject.color) == HEAD_COLORS[1].upper() and color_of(place.color) == HEAD_COLORS[2].upper()
    # the subject head still reads gate: a thin arrow, not none
    assert subject.arrow(4) is not None and 0 < subject.weights[4] < subject.weights[1]
    # "does not control agreement" is marked in grey, not in head 2's orange (or any head's colour)
    mark, label = b.scene.nearer
    assert hex_of(mark) == DIM_TEXT_COLOR.upper()
    assert hex_of(mark) not in {c.upper() for c in (*HEAD_COLORS.values(), WIDE_HEAD_COLOR, ch1.THIRD_HEAD_COLOR)}
    assert [t.original_text for t in label] == ["singular:", "does not control", "agreement"]
    # each head's arrows are drawn in the sentence that introduces it
    assert any("LaggedStart" in w for w in plays_in(b, "look back for the subject"))
    assert any("LaggedStart" in w for w in plays_in(b, "A second head might read"))
    # the role labels come with the notes' caveat about them
    assert ch1.ROLES_NOTE in fine_prints(b)


def test_scene_2_both_sources_lie_under_the_known_prefix_bracket():
    b = built(TheReceiver)
    row, bracket = b.scene.row, b.scene.prefix_bracket
    assert bracket.label.original_text == "known prefix: positions 1–6"
    left, right = bracket.lines.get_left()[0], bracket.lines.get_right()[0]
    for j in (1, 4):                                           # dogs, gate
        assert left - 1e-6 <= row.boxes[j].get_left()[0] and row.boxes[j].get_right()[0] <= right + 1e-6
    assert row.blank.get_left()[0] > right                     # the blank lies outside the prefix
    assert bracket.get_top()[1] < b.scene.place_arrows.get_bottom()[1]   # clear of head 2's arrows
    assert "FadeIn" in plays_in(b, "come before the receiver")[0]
    assert on_stage(b, bracket.label)
    # head 2's arrows start below the position numbers, which stay
    assert b.scene.place_arrows.get_top()[1] <= min(p.get_bottom()[1] for p in b.scene.layout.positions) + 1e-6


def test_scene_2_each_head_carries_a_small_vector_to_the_receiver():
    b = built(TheReceiver)
    msgs = b.scene.messages
    assert [item.name.original_text for item in msgs.items] == ["head 1: plural subject", "head 2: a place"]
    assert [color_of(item.name.get_color()) for item in msgs.items] == [HEAD_COLORS[1].upper(),
                                                                       HEAD_COLORS[2].upper()]
    assert "numbers, not words" in msgs.title.original_text
    assert any("LaggedStart" in w for w in plays_in(b, "Each head brings what it found"))
    assert all(on_stage(b, item.glyph.cells[0]) for item in msgs.items)


# ---------------------------------------------------------------------------- 3: parallel heads


def test_scene_3_punctuation_is_a_token_and_it_is_receiver_six():
    b = built(ParallelHeads)
    row = b.scene.row
    assert words_of(row)[0] == "Ravi" and words_of(row)[2:] == ["the", "glass", ".", "It"]
    assert b.scene.punctuation == 5
    assert {"punctuation", "is a token", "receiver", "6"} <= on_screen(b)
    heads = b.scene.layout.heads
    assert [h.arrows.strongest(1) for h in heads] == [[3], [1]]            # glass (4), dropped (2)
    for h, reading in zip(heads, EVENT_AND_REFERENCE.readings):
        assert list(h.arrows.weights) == list(reading.weights)
        assert color_of(h.arrows.color) == chapter_head_color(reading.head).upper()


def test_scene_3_layout_leaves_margins_and_head_2_clears_the_position_numbers():
    b = built(ParallelHeads)
    layout, row = b.scene.layout, b.scene.row
    assert layout.width <= SAFE_WIDTH - 1.0                    # not edge to edge
    below = layout.heads[1].arrows
    # head 2's arrows start below the position numbers, which stay to the end; so does the receiver's tag
    assert all(on_stage(b, p) for p in layout.positions)
    assert below.get_top()[1] <= min(p.get_bottom()[1] for p in layout.positions) + 1e-6
    assert on_stage(b, b.scene.receiver_tag) and b.scene.receiver_tag.original_text == "receiver"
    assert b.scene.marks["receiver"] == b.beat_of("the receiver.").id
    assert "FadeOut" in plays_in(b, "Two heads read the same six rows")[0]


def test_scene_3_the_two_heads_run_in_parallel_and_bring_their_findings():
    b = built(ParallelHeads)
    # the same play draws both heads' arrows
    assert any(w.count("LaggedStart") == 2 for w in plays_in(b, "Two heads read the same six rows"))
    assert b.scene.layout.parallel.text.original_text == "in parallel"
    # thin, even arrows first; each head's own reading in the sentence that names its word
    for h in b.scene.layout.heads:
        assert list(h.even.weights) == pytest.approx([1 / 6] * 6)             # a sixth each, by hand
    assert b.scene.marks["thicken"] == b.beat_of("Head 1 might find “glass”").id
    # "in parallel" as a timeline: two bars over the same span, the sequential picture crossed out
    timeline = b.scene.timeline
    assert b.scene.marks["timeline"] == b.beat_of("Neither waits for the other").id
    assert timeline.wrong.original_text == "head 2 after head 1"
    t1, t2 = timeline.together
    assert t1.get_left()[0] == pytest.approx(t2.get_left()[0]) and t1.width == pytest.approx(t2.width)
    s1, s2 = timeline.after
    assert s2.get_left()[0] >= s1.get_right()[0] - 1e-6
    # what reaches It: numbers (a small vector per head), named by the feature they carry, not the word
    assert [w.original_text for w in b.scene.slot_words] == ["glass features", "washed features"]  # after the swap
    assert all(len(g.cells) == 4 for g in b.scene.glyphs)
    assert any("TransformFromCopy" in w for w in plays_in(b, "Each head brings numbers to “It”"))
    assert ch1.CONTEXT_NOTE in fine_prints(b)


def test_chapter_1_arrows_under_the_row_stay_clear_of_the_position_numbers():
    for arrows, row in ((built(TheReceiver).scene.place_arrows, built(TheReceiver).scene.row),
                        (built(ParallelHeads).scene.layout.heads[1].arrows, built(ParallelHeads).scene.row)):
        lowest_digit = min(p.get_bottom()[1] for p in row.positions)
        for a in arrows.arrows:
            assert max(a.get_start()[1], a.get_end()[1]) < lowest_digit - 0.1


def test_scene_2_the_blank_label_leaves_before_bark_is_written():
    b = built(TheReceiver)
    assert any("FadeOut" in w and "FadeIn" in w for w in plays_in(b, "supports “bark”, not “barks”"))
    assert not on_stage(b, b.scene.blank_label)


def test_scene_3_the_substitution_keeps_the_object_clue_and_changes_the_event():
    b = built(ParallelHeads)
    row = b.scene.row
    # "dropped" becomes "washed" in the substitution's own beat; "glass" stays
    assert any("ReplacementTransform" in w for w in plays_in(b, "Change one word: Ravi washed the glass."))
    # only the word changes in its sentence; head 2's role label, slot name and message switch in the
    # next one ("the event clue changes")
    assert sum(w.count("ReplacementTransform") for w in plays_in(b, "Change one word")) == 1
    assert any("TransformFromCopy" in w and w.count("ReplacementTransform") == 2
               for w in plays_in(b, "The object clue stays"))
    assert b.scene.marks["event clue changes"] == b.beat_of("the event clue changes").id
    assert not any("TransformFromCopy" in w for w in plays_in(b, "Change one word"))
    # "kept", not "unchanged": earlier-layer context may still reach these rows (the notes' caveat)
    assert b.scene.stays.original_text == "kept"
    # the swapped word's box flashes with the word
    assert any("Indicate" in w for w in plays_in(b, "Change one word"))
    # while the caveat is said, the sketch's arrows dim
    assert b.scene.marks["dim arrows"] == b.beat_of("only a sketch").id
    assert not on_stage(b, row.words[1]) and on_stage(b, b.scene.event_word)
    assert b.scene.event_word.original_text == "washed" and row.words[3].original_text == "glass"
    assert [t.original_text for t in b.scene.layout.heads[1].label.role_lines] == ["possible role:", "event → washed"]
    # the possible next word changes from broke to gleamed, in the sentence that says so
    assert b.scene.first_guess.original_text == "broke" and b.scene.guess.original_text == "gleamed"
    assert any("ReplacementTransform" in w for w in plays_in(b, "the next word might be “gleamed”"))
    assert b.scene.guess.width < row.blank[0].width                # the blank holds the longer word
    assert ch1.SUBSTITUTION_NOTE in fine_prints(b)
    assert "not a promise" in ch1.SUBSTITUTION_NOTE


# ------------------------------------------------------------------------ 4: one shared weight


def test_scene_4_shows_the_illustrations_numbers_each_with_its_own_precision():
    ill = two_source_illustration()
    b = built(OneSharedWeight)
    assert_matrix_on_screen(b, "V", ill.V)                       # hand-chosen whole numbers: "10", "1"
    assert_matrix_on_screen(b, "V2", ill.V)
    assert_matrix_on_screen(b, "one_message", ill.one_head_message)
    assert_matrix_on_screen(b, "two_message", ill.two_head_message)
    assert_matrix_on_screen(b, "one_v", ill.V)
    for s in range(2):
        alpha = b.by_tag("one_w")[s]
        assert alpha.value == ill.one_head_weights[s] and alpha.original_text == fmt(alpha.value, 1)
        assert b.by_tag("one_arrow_w")[s].value == ill.one_head_weights[s]
        for k in range(2):
            product = b.by_tag("one_product")[(s, k)]
            assert product.value == ill.one_head_products[s, k]
            assert product.original_text == fmt(product.value, places_for(ill.one_head_products[s]))
    for k, coord in enumerate(ill.coordinates):
        for s in range(2):
            assert b.by_tag("two_w")[(k, s)].value == ill.two_head_weights[coord][s]
            assert b.by_tag("two_v")[(k, s)].value == ill.V[s, k]
        assert b.by_tag("two_terms_sum")[k].value == ill.two_head_message[k]


def test_scene_4_worked_by_hand():
    b = built(OneSharedWeight)
    shown = lambda tag, keys: [b.by_tag(tag)[key].original_text for key in keys]  # noqa: E731
    assert shown("V", [(0, 0), (0, 1), (1, 0), (1, 1)]) == ["10", "1", "2", "8"]
    # 0.8·[10, 1] = [8.0, 0.8]; 0.2·[2, 8] = [0.4, 1.6]; the message [8.4, 2.4]
    assert shown("one_product", [(0, 0), (0, 1)]) == ["8.0", "0.8"]
    assert shown("one_product", [(1, 0), (1, 1)]) == ["0.4", "1.6"]
    assert shown("one_message", [(0, 0), (0, 1)]) == ["8.4", "2.4"]
    assert shown("one_sum", [(0, 0), (0, 1)]) == ["8.4", "2.4"]              # written under the products
    # the arrows on the two-head side carry their weights: 0.8 / 0.2 for head 1, 0.2 / 0.8 for head 2
    assert shown("two_arrow_w", [(0, 0), (0, 1), (1, 0), (1, 1)]) == ["0.8", "0.2", "0.2", "0.8"]
    # two heads: a = 0.8·10 + 0.2·2 = 8.4; b = 0.2·1 + 0.8·8 = 6.6
    assert shown("two_message", [(0, 0), (0, 1)]) == ["8.4", "6.6"]
    # a second method: the shown parts' unrounded values add up to the shown totals
    for k in range(2):
        parts = [b.by_tag("one_product")[(s, k)].value for s in range(2)]
        assert math.fsum(parts) == pytest.approx(b.by_tag("one_message")[(0, k)].value, abs=1e-12)
        terms = [b.by_tag("two_w")[(k, s)].value * b.by_tag("two_v")[(k, s)].value for s in range(2)]
        assert math.fsum(terms) == pytest.approx(b.by_tag("two_terms_sum")[k].value, abs=1e-12)


def test_scene_4_pictures_play_in_their_sentences():
    b = built(OneSharedWeight)
    # the weights appear as arrows in the sentence that gives them: 0.8 and 0.2 (by hand)
    beat = b.beat_of("with one weight per source: 0.8 and 0.2")
    assert {m.tag for m in b.numbers_in(beat)} == {"one_arrow_w"}
    assert any("Create" in w for w in plays_in(b, "with one weight per source"))
    # the scaled copies in "scaled by its weight", the message in "Added up"
    assert {m.tag for m in b.numbers_in(b.beat_of("scaled by its weight"))} == {"one_w", "one_v", "one_product"}
    assert "one_message" in {m.tag for m in b.numbers_in(b.beat_of("Added up"))}
    assert "one_sum" in {m.tag for m in b.numbers_in(b.beat_of("Added up"))}
    assert b.scene.marks["sum"] == b.beat_of("Added up").id
    assert b.scene.one.addition.plus.original_text == "+"
    # the value rows' brackets stand in one column on each side
    for panel in (b.scene.one, b.scene.two):
        lefts = [row.vector.brackets.get_left()[0] for row in panel.sources]
        assert lefts[0] == pytest.approx(lefts[1], abs=1e-6)
    # the two heads' arrows (with their weights) come with the sentence that reads them, not before
    assert not {"two_arrow_w", "two_w", "two_message"} & {m.tag for m in b.numbers_in(b.beat_of("With two heads"))}
    assert b.scene.marks["two arrows"] == b.beat_of("on river for coordinate a").id
    assert b.scene.two.one_each.original_text == "each head: one coordinate"
    assert not {"one_w", "one_v", "two_message"} & {m.tag for m in b.numbers_in(b.beat_of("Added up"))}
    assert {m.tag for m in b.numbers_in(b.beat_of("on river for coordinate a"))} >= {
        "two_w", "two_v", "two_terms_sum", "two_message", "two_arrow_w"}
    # the difference is boxed where it is said: b rises from 2.4 to 6.6
    assert "So coordinate b rises from 2.4 to 6.6" in written(b)
    assert plays_in(b, "rises from 2.4 to 6.6") == ["Create"]
    # one head is one colour in scenes 1 and 4
    assert b.scene.one.arrows[0].get_stroke_color().to_hex().upper() == ONE_HEAD_COLOR.upper()
    assert b.scene.one.header.head_text.original_text == "one head"
    # the receiver is tagged where it stands, with the sentence that names it
    assert b.scene.one.receiver_tag.original_text == "receiver"
    assert b.scene.one.receiver_tag.get_bottom()[1] > b.scene.one.receiver.get_top()[1]
    assert "One head reads them for “the”, with one weight per source: 0.8 and 0.2." in written(b)


def test_scene_4_learning_loss_flows_back_into_every_head_and_a_head_is_pruned():
    b = built(OneSharedWeight)
    diagram = b.scene.diagram
    assert [h.index for h in diagram.heads] == list(OVERLAPPING_HEADS.heads)
    assert len(diagram.backward) == len(diagram.heads)
    # the two heads of the numbers move on into the diagram (not wiped, then redrawn): their names
    # turn into its first two rows' names, in the sentence that brings the diagram
    arrive = " ".join(plays_in(b, "no one picks the projections"))
    assert arrive.count("ReplacementTransform") == 2
    # the correction flowing back has training's own colour, as in scene 17 (yellow is the receiver's)
    from scenes.style import GRADIENT_COLOR, HEAD_COLORS, RECEIVER_COLOR
    assert GRADIENT_COLOR.upper() not in {RECEIVER_COLOR.upper(), *(c.upper() for c in HEAD_COLORS.values())}
    for dash in [*diagram.backward.family_members_with_points(), *diagram.back_chain.family_members_with_points()]:
        assert dash.get_stroke_color().to_hex().upper() == GRADIENT_COLOR.upper()
    # all the backward arrows are drawn in one play: every head at once
    creates = [w for w in plays_in(b, "flows back into every head at once") if "Create" in w]
    assert creates and creates[0].count("Create") == len(diagram.heads)
    # the head that overlaps most with another fades out, in the pruning sentence
    k = OVERLAPPING_HEADS.heads.index(OVERLAPPING_HEADS.prunable)
    assert not on_stage(b, diagram.heads[k].frame) and on_stage(b, b.scene.pruned[1])
    assert all(on_stage(b, diagram.heads[j].frame) for j in range(len(diagram.heads)) if j != k)
    assert "FadeOut" in plays_in(b, "can even be pruned away")[0]
    assert ch1.PRUNE_NOTE in fine_prints(b) and "Voita et al. (2019)" in ch1.PRUNE_NOTE
    assert "Voita and colleagues" in said(b)
    assert "(2019)" not in written(b)                     # the year is in the fine print, not said twice
    assert ch1.CAPACITY_NOTE in fine_prints(b) and ch1.JOINT_NOTE in fine_prints(b)
    texts = on_screen(b)
    assert "illustrative numbers, invented for this comparison" in texts
    # once the numbers are gone the badge speaks of patterns
    assert b.scene.badge.label.original_text == ch1.PATTERNS_BADGE and on_stage(b, b.scene.badge.label)
    assert "how many heads?" in texts and {"1", "2", "4", "8"} <= texts
    assert "chapter 3 compares one head with four" in written(b)
    # on W_O's left edge each head's arrow in lies just above its arrow back: no crossings
    ins = [a.get_end()[1] for a in diagram.forward[:len(diagram.heads)]]
    backs = [a[0].get_start()[1] for a in diagram.backward]          # each back arrow's first dash
    order = [y for pair in zip(ins, backs) for y in pair]
    assert order == sorted(order, reverse=True)
    # each arrow back runs parallel to its arrow in (no X at the head)
    for fwd, bwd in zip(diagram.forward[:len(diagram.heads)], diagram.backward):
        d1 = fwd.get_end() - fwd.get_start()
        d2 = bwd[0].get_start() - bwd[-1].get_end()
        assert abs(d1[0] * d2[1] - d1[1] * d2[0]) / (np.linalg.norm(d1) * np.linalg.norm(d2)) < 0.05
    # W_O is named for what it does, with the diagram
    assert diagram.chain[0].name.original_text == "combines the heads"
    assert any("FadeIn" in w for w in plays_in(b, "no one picks the projections"))
    assert any("LaggedStart" in w for w in plays_in(b, "Every head feeds one prediction"))
    assert "projections behind such weights" in written(b)
    # chapter 3's comparison, one head with four, stands out of 1 2 4 8
    colors = {c.original_text: color_of(c.get_color()) for c in b.scene.capacity[0][1]}
    assert colors["1"] == colors["4"] == color_of(ch1.TEXT_COLOR)          # emphasis in white, not yellow
    assert colors["2"] == colors["8"] != colors["1"]


def test_scene_4_the_shared_weight_goes_into_every_coordinate():
    b = built(OneSharedWeight)
    beat = b.beat_of("The same weight scales every coordinate")
    assert b.scene.marks["shared weight"] == beat.id
    # each weight spans both coordinates of its product: a line under both entries, "× 0.8 on a and b"
    spans = [w for w in plays_in(b, "The same weight scales every coordinate") if "Create" in w and "Indicate" in w]
    assert len(spans) == 2 and all(w.count("Indicate") == 2 for w in spans)
    ill = two_source_illustration()
    for s, span in enumerate(b.scene.one.spans):
        under, label = span
        cells = b.scene.one.products[s].product.entries[0]
        # the line spans both coordinates (it stays at the panel's first size when the panel shrinks)
        assert under.width >= cells.width * b.scene.one_zoom - 1e-6
        assert label[1].value == ill.one_head_weights[s] and label[2].original_text == "on a and b"
    assert [span[1][1].shown for span in b.scene.one.spans] == ["0.8", "0.2"]             # by hand
    # the two-line fine print stands clear of the worked sum
    note = next(n for n in b.scene.fine_prints if n.sentence == ch1.SHARED_NOTE)
    assert b.scene.one.addition.total.get_bottom()[1] > note.get_top()[1] + 0.05


# ----------------------------------------------------------- third review: pictures in their beats


def test_scene_1_rows_first_empty_then_keys_and_values_fill_them():
    b = built(ThreeHeadsSevenRows)
    layout = b.scene.layout
    assert len(layout.frames) == 7                                  # one empty row per token
    # the rows' parts and their names come with the sentence that names them, not a beat early
    beat = b.beat_of("a key, which the query is compared with")
    assert any("FadeIn" in w for w in plays_in(b, "a key, which the query is compared with"))
    # the note's half about keys and values comes with them; the query's half with the query
    assert fine_prints(b)[:2] == [ch1.QUERY_NOTE_QUERY, ch1.QUERY_NOTE_ROWS]
    assert f"{ch1.QUERY_NOTE_QUERY} {ch1.QUERY_NOTE_ROWS}" == ch1.QUERY_NOTE
    assert beat.id == b.beat_of("what it sends").id
    # the key cells are real shaded cells, not glyph-sized outlines
    assert all(c.width >= 0.15 and c.get_fill_opacity() > 0 for k in layout.keys for c in k.cells)


def test_scene_1_the_sweep_compares_every_key_then_even_arrows_thicken_with_the_useful_words():
    b = built(ThreeHeadsSevenRows)
    # the comparison: the sweep frame steps over the six keys after the first, one play each
    moves = [w for w in plays_in(b, "compares the query with every key") if w == "_AnimationBuilder, Indicate"]
    assert len(moves) == 6
    # even arrows in that sentence (a seventh each, by hand), the head's weights two sentences later
    assert list(b.scene.one_head_even.weights) == pytest.approx([1 / 7] * 7)
    assert b.scene.marks["one head thickens"] == b.beat_of("Thick arrows mark plausible useful sources").id
    assert any("ReplacementTransform" in w for w in plays_in(b, "Thick arrows mark plausible useful sources"))
    # the caveat in one short clause, after what the head does
    assert len(b.beat_of("not attention measured").text.split(": ")[-1].split()) <= 8


def test_scene_1_the_one_head_message_stays_as_a_ghost_beside_the_three():
    b = built(ThreeHeadsSevenRows)
    ghost = b.scene.ghost
    # it moves to the corner as the three heads arrive (copied from the one head's message, no redraw),
    # and is pointed at when the three messages fill
    assert b.scene.marks["ghost"] == b.beat_of("Now three heads").id
    assert sum("TransformFromCopy" in w for w in plays_in(b, "Now three heads")[:1]) == 1
    assert b.scene.marks["compare ghost"] == b.beat_of("Each head sends one slice").id
    assert [t.original_text for t in ghost.title] == ["one head:"]
    assert [t.original_text for t in ghost.names] == list(COAT.features)
    # set apart from the three heads' messages: wholly above head 1's message, with room between
    # beside the lanes at the end, where it came down to for the conclusion
    assert ghost.get_left()[0] > max(lane.row.boxes[-1].get_right()[0] for lane in b.scene.lanes)
    # the ghost's tracks are as long as the three heads' tracks, and filled as the one head's message was
    tracks, segments, unfilled = ghost.bars
    assert tracks[0].width == pytest.approx(b.scene.lanes[0].slot.tracks[0].width)
    for k in range(3):
        y = tracks[k].get_y()
        filled = sum(s.width for s in segments if abs(s.get_y() - y) < 0.3 * tracks[k].height) / tracks[k].width
        assert filled == pytest.approx(hand.message("one head")[k], abs=1e-9)      # numpy, as above
    assert on_stage(b, ghost.title)


def test_scene_3_the_event_message_changes_shade_and_the_object_message_stays():
    b = built(ParallelHeads)
    glass, washed = b.scene.glyphs
    # the cells are shaded by the data layer's illustrative features: glass as before, washed new
    assert glass.features == EVENT_AND_REFERENCE.source("referent").features
    assert washed.features == SUBSTITUTION.changed[1].features
    fills = [c.get_fill_opacity() for c in washed.cells]
    assert fills == pytest.approx([0.08 + 0.87 * f for f in (0.25, 0.85, 0.15, 0.95)])   # by hand
    assert max(fills) - min(fills) > 0.6                                # visibly different cells
    # the two messages stacked right under "It", each arriving along its head's strongest arrow
    it = b.scene.row.boxes[EVENT_AND_REFERENCE.receiver - 1]
    for h in b.scene.layout.heads:
        assert h.slot.get_left()[0] <= it.get_x() <= h.slot.get_right()[0] + 0.3
    assert any("ShowPassingFlash" in w for w in plays_in(b, "Each head brings numbers"))
    # "the same six rows": the known prefix bracket comes with that sentence
    assert b.scene.prefix.label.original_text == "known prefix 1–6"
    assert "the same six rows" in b.beat_of("Two heads read").text


def test_scene_2_query_agreement_links_and_messages_in_their_sentences():
    b = built(TheReceiver)
    # the receiver has a query, the blank none (crossed), in the sentence that says so
    assert b.scene.marks["no query"] == b.beat_of("so it has no query yet").id
    texts = [m.original_text for m in b.scene.queries if hasattr(m, "original_text")]
    assert texts == ["query", "no query"]
    # the query has three cells, as in scene 1 (one length for a query throughout the chapter)
    assert len(b.scene.queries[0].cells) == len(b.scene.queries[2].cells) == 3
    assert len(built(ThreeHeadsSevenRows).scene.layout.query.cells) == 3
    # once said, the continuation greys back while the known prefix is stressed
    assert b.scene.tail.get_fill_opacity() == pytest.approx(0.3)
    assert any("FadeOut" in w and "FadeIn" in w for w in plays_in(b, "A second head might read"))
    # the agreement as links: dogs to "bark" in the text's colour with a tick, gate to "barks" in grey with a red cross
    agree, tick, no_link, cross, kind = b.scene.links
    # ...and the link says what it is: grammar, not an attention arrow (which would end at the receiver)
    assert kind.original_text == "grammar: agreement in number, not attention"
    assert b.scene.marks["agreement links"] == b.beat_of("supports “bark”, not “barks”").id
    assert (tick.original_text, cross.original_text) == ("✓", "✗")
    # grammar, not attention: not a head's colour (head 1's blue read as an arrow from "dogs" into the blank)
    assert hex_of(agree) == ch1.TEXT_COLOR.upper() and hex_of(cross) == ch1.NEGATIVE_COLOR.upper()
    assert hex_of(agree) not in {ch1.chapter_head_color(h).upper() for h in (1, 2, 3)}
    assert hex_of(b.scene.wrong[1]) == ch1.NEGATIVE_COLOR.upper()        # the strike through "barks"
    # gate is marked solid grey, not dashed like the unknown blank
    assert not isinstance(b.scene.nearer[0], ch1.DashedVMobject)
    # the messages sit beside the receiver and arrive along each head's strongest arrow
    assert b.scene.marks["messages"] == b.beat_of("Each head brings what it found").id
    assert any("LaggedStart" in w for w in plays_in(b, "Each head brings what it found"))
    box = b.scene.row.boxes[SUBJECT_AGREEMENT.receiver - 1]
    assert b.scene.messages.get_left()[0] > box.get_right()[0]
    assert b.scene.messages.get_top()[1] < box.get_bottom()[1]


def test_scene_4_two_head_arrows_do_not_cross_and_the_heads_projections_are_named():
    b = built(OneSharedWeight)
    two = b.scene.two
    # ends on the receiver's edge top to bottom: river's two arrows, then fisherman's
    ends = [two.arrows[k][s].get_end()[1] for s in range(2) for k in range(2)]
    assert ends == sorted(ends, reverse=True)
    # each weight at its own arrow's source end (left of the arrows' middle)
    for k in range(2):
        for s in range(2):
            num, arrow = two.arrow_weights[2 * k + s], two.arrows[k][s]
            assert num.get_x() < (arrow.get_start()[0] + arrow.get_end()[0]) / 2
    assert two.one_each.original_text == "each head: one coordinate"
    # the learning diagram names what learns on each head box, where the arrows land
    for h in b.scene.diagram.heads:
        assert [part.plain for part in h.own] == ["W_Q", "W_K", "W_V"]
    assert "with more heads" in b.beat_of("no one picks the projections").text
    # the one-head panel starts centred, then makes room for the two heads
    assert b.scene.one_zoom >= 1.0


def test_scene_4_capacity_marks_box_one_and_four_and_the_spans_leave():
    b = built(OneSharedWeight)
    choices = b.scene.capacity[0][1]
    for mark, k in zip(b.scene.capacity_marks, (0, 2)):               # "1" and "4"
        assert np.allclose(mark.get_center()[:2], choices[k].get_center()[:2], atol=1e-6)
        assert on_stage(b, mark)
    # the "× 0.8 on a and b" spans leave before the two heads arrive, and are no part of the panel
    assert all(not on_stage(b, span[1][0]) for span in b.scene.one.spans)
    assert b.scene.one.spans not in b.scene.one.submobjects
    # the panel comes back to its place beside the two heads, clear of them (their source column is
    # the two-head panel's left edge; its head names later move on into the learning diagram)
    assert b.scene.one.get_right()[0] < b.scene.two.sources.get_left()[0]


def test_scene_1_one_softmax_row_is_split_three_ways_and_each_head_has_its_own():
    """The argument by weights, not bar length: a head's weights add up to one, drawn as one bar of
    fixed length; the one head's three useful sources share it equally (0.297 each, under a third),
    each of the three heads gives three quarters or more of its own bar to its own word (0.76, 0.80,
    0.80; softmax(3.5 · matches), worked in numpy)."""
    b = built(ThreeHeadsSevenRows)
    share = b.scene.layout.share
    length = share.frame.width
    # hooded's, red's and wool's parts are equal, each its weight's part of the bar
    w = hand.weights("one head")
    for j in (3, 4, 5):
        assert share.segment(j).width == pytest.approx(w[j] * length, rel=1e-6)
        assert share.segment(j).width < length / 3                                   # "under a third each"
    assert share.segment(3).width == pytest.approx(share.segment(4).width, rel=1e-9)
    assert share.segment(5).width == pytest.approx(share.segment(4).width, rel=1e-9)
    assert sum(s.width for s in share.segments) == pytest.approx(length, rel=1e-6)
    assert [share.labels[j].original_text for j in sorted(share.labels)] == ["hooded", "red", "wool"]
    # it is drawn out of the arrows in the sentence that says the weights add up to one
    assert b.scene.marks["share"] == b.beat_of("with one set of weights: hooded").id
    assert any("LaggedStart" in w for w in plays_in(b, "with one set of weights: hooded"))
    # every head's bar (and the one head's, kept in the ghost) is one length: the same "one"
    # (the one head's, kept in the ghost, enlarged with it for the conclusion, as every part of it)
    bars = [lane.share for lane in b.scene.lanes]
    assert len({round(bar.frame.width, 9) for bar in bars}) == 1
    zoom = b.scene.ghost.bars[0][0].width / b.scene.lanes[0].share.frame.width
    assert b.scene.ghost.share.frame.width == pytest.approx(zoom * bars[0].frame.width)
    for k, (lane, useful) in enumerate(zip(b.scene.lanes, ("red", "wool", "hooded")), start=1):
        j = COAT.tokens.index(useful)
        assert lane.share.segment(j).width == pytest.approx(hand.weights(f"head {k}")[j] * lane.share.frame.width,
                                                            rel=1e-6)
        assert lane.share.segment(j).width > 0.75 * lane.share.frame.width
        assert on_stage(b, lane.share.segment(j))
    assert b.scene.marks["own shares"] == b.beat_of("weights the sources on its own").id
    assert any("LaggedStart" in w for w in plays_in(b, "weights the sources on its own"))


def test_scene_1_each_value_bar_dims_behind_its_shrunk_copy():
    """"Each value shrinks by its weight": the full bar behind each scaled copy dims, so the copy reads
    as the bar shrunk (a copy laid over an unchanged full bar did not)."""
    from scenes.blocks.message_slot import BAR_OPACITY, DIMMED_BAR_OPACITY
    b = built(ThreeHeadsSevenRows)
    assert DIMMED_BAR_OPACITY < 0.5 * BAR_OPACITY
    for lane in b.scene.lanes:
        bars = [bar for chip in lane.chips for bar in chip.bars]
        assert bars and all(bar.get_fill_opacity() == pytest.approx(DIMMED_BAR_OPACITY) for bar in bars)
        assert all(on_stage(b, bar) for bar in bars)


def test_scene_1_the_keys_and_the_query_show_why_the_useful_rows_match():
    """The comparison has a visible cause: each key's cells are shaded by its row's features and the
    query by what the head looks for (colour, material and detail, all three); the keys it matches
    best are the useful sources (hooded, red and wool: dot product 1 each, by hand in test_word_examples)."""
    b = built(ThreeHeadsSevenRows)
    layout = b.scene.layout
    for j, key in enumerate(layout.keys):
        assert [c.get_fill_opacity() for c in key.cells] == pytest.approx([0.08 + 0.87 * v for v in COAT.values[j]])
    assert [c.get_fill_opacity() for c in layout.query.cells] == pytest.approx([0.95, 0.08 + 0.87 * 0.6, 0.95])
    red, wool, hooded = (COAT.tokens.index(w) for w in ("red", "wool", "hooded"))
    # red's key lights the colour cell only, wool's the material cell (and its colour, 0.4, half lit),
    # hooded's the detail cell
    assert [c.get_fill_opacity() > 0.5 for c in layout.keys[red].cells] == [True, False, False]
    assert [c.get_fill_opacity() > 0.5 for c in layout.keys[wool].cells] == [False, True, False]
    assert layout.keys[wool].cells[0].get_fill_opacity() == pytest.approx(0.08 + 0.87 * 0.4)
    assert [c.get_fill_opacity() > 0.5 for c in layout.keys[hooded].cells] == [False, False, True]


def test_scene_1_wool_s_colour_turns_white_in_every_message():
    """The overlap, drawn: the colour wool sends lands white in the one head's message and in each of the three,
    in the beat that says so; the one head's colour track is about a quarter white (0.119 of 0.429,
    worked in numpy), head 1's hardly any (0.037 of 0.809)."""
    from scenes.blocks.message_slot import BAR_OPACITY
    b = built(ThreeHeadsSevenRows)
    wool, red = COAT.tokens.index("wool"), COAT.tokens.index("red")
    assert b.scene.marks["mixed"] == b.beat_of("about a quarter of this message’s colour").id
    assert "drawn white" in b.beat_of("about a quarter of this message’s colour").text
    # the one head's message, and head 1's slice (its colour): track 0 of each is colour
    flows = [(b.scene.one_head_flow, b.scene.layout.slot), (b.scene.flows[0], b.scene.lanes[0].slot)]
    for flow, slot in flows:
        # wool's colour only: red's segments stay in the head's colour
        assert color_of(flow.cells[wool, 0].get_fill_color()) == ch1.TEXT_COLOR.upper()
        assert flow.cells[wool, 0].get_fill_opacity() == pytest.approx(BAR_OPACITY)
        assert all(color_of(seg.get_fill_color()) == color_of(slot.color) for seg in flow.by_source[red])
    # wool's material stays in the one head's colour; heads 2 and 3 send no colour, so nothing white
    assert color_of(flows[0][0].cells[wool, 1].get_fill_color()) == color_of(flows[0][1].color)
    for flow, lane in zip(b.scene.flows[1:], b.scene.lanes[1:]):
        assert all(color_of(seg.get_fill_color()) == color_of(lane.slot.color) for seg in flow.segments)
    # the white part of each colour track, measured on screen as a share of what the track holds
    def white_share(flow, slot):
        y = slot.tracks[0].get_y()
        segs = [s for s in flow.segments if abs(s.get_y() - y) < 1e-6]
        white = sum(s.width for s in segs if color_of(s.get_fill_color()) == ch1.TEXT_COLOR.upper())
        return white / sum(s.width for s in segs)
    assert white_share(*flows[0]) == pytest.approx(hand.share("one head", "wool", 0), rel=1e-6)
    assert 0.2 < white_share(*flows[0]) < 0.3                                      # "about a quarter"
    assert white_share(*flows[1]) == pytest.approx(hand.share("head 1", "wool", 0), rel=1e-6)
    assert white_share(*flows[1]) < 0.05                                           # "hardly any"
    assert "hardly any from wool" in b.beat_of("Each head sends one slice").text
    # the colour track, enlarged above the message, names red's part and wool's under them: red's is
    # its weight (0.297) of the track, wool's its weight times 0.4 (back at the split once the trade
    # has played)
    zoom = b.scene.colour_zoom
    track = zoom.parts[0]
    w = hand.weights("one head")
    assert zoom.cells[red].width == pytest.approx(w[red] * track.width, rel=1e-6)
    assert zoom.cells[wool].width == pytest.approx(w[wool] * 0.4 * track.width, rel=1e-6)
    assert track.width > 2 * b.scene.layout.slot.tracks[0].width                   # legible parts
    assert [n.original_text for n in zoom.names] == ["red", "wool"]
    assert zoom.names[0].get_right()[0] < zoom.names[1].get_left()[0]
    assert track.get_right()[0] <= ch1.SAFE_WIDTH / 2


def test_scene_1_the_one_head_leans_on_red_and_comes_back():
    """The trade, as motion: arrows, weight bar and message change together into the reading that
    leans on red (colour 0.711, material 0.100, detail 0.136, worked in numpy), then return, so the
    ghost keeps the one head's split."""
    b = built(ThreeHeadsSevenRows)
    assert b.scene.marks["lean"] == b.beat_of("red gets most weight").id
    assert tuple(b.scene.lean_message) == pytest.approx(tuple(hand.message("lean")), abs=1e-12)
    # it keeps its colour mostly red's, more so than the split did
    assert hand.share("lean", "red", 0) > 0.9 > hand.share("one head", "red", 0)
    plays = plays_in(b, "red gets most weight")
    assert len(plays) == 2 and "FadeIn" in plays[0] and plays[1].count("Transform") == 2
    # the cause, on screen: the query comes back and changes from asking for all three (material at
    # 0.6) to asking mostly for colour (1, 0, 0.5), the lean's own query; gone again after the return
    shade = lambda q: [0.08 + 0.87 * v for v in q]
    assert [c.get_fill_opacity() for c in b.scene.lean_query.cells] == pytest.approx(shade((1.0, 0.0, 0.5)))
    assert [c.get_fill_opacity() for c in b.scene.layout.query.cells] == pytest.approx(shade((1.0, 0.6, 1.0)))
    assert [c.get_fill_opacity() for c in b.scene.trade_query.cells] == pytest.approx(shade((1.0, 0.0, 0.5)))
    assert not on_stage(b, b.scene.trade_query)
    # held to the beat's end, so its last frame shows the lean; the return plays between sentences
    beat = b.beat_of("red gets most weight")
    back = [t for t in b.transitions if t.name == "back to the split"]
    assert len(back) == 1 and back[0].start == pytest.approx(beat.end)
    # the weights on the arcs change with them, where the split's stood: hooded 0.1153, red 0.6637,
    # wool 0.0813 (numpy) read 0.12, 0.66, 0.08; the split's three equal 0.2969 read 0.30
    lean, split = b.scene.lean_labels, b.scene.weight_labels
    assert [m.original_text for m in lean] == ["0.12", "0.66", "0.08"]
    assert [m.value for m in lean] == pytest.approx(list(hand.weights("lean")[3:6]), abs=1e-15)
    assert [m.original_text for m in split] == ["0.30", "0.30", "0.30"]
    assert all(np.allclose(n.get_center(), o.get_center()) for n, o in zip(lean, split))
    assert "One set can’t have both" in b.beat_of("red gets most weight").text
    # back where it was: red's arrow and its part of the bar as the split drew them
    share, arrows = b.scene.layout.share, b.scene.one_head_arrows
    w = hand.weights("one head")[red := COAT.tokens.index("red")]
    assert share.segment(red).width == pytest.approx(w * share.frame.width, rel=1e-6)
    assert arrows.arrow(red).get_stroke_width() == pytest.approx(arrow_stroke(w))


def test_scene_1_the_split_label_stays_clear_of_the_receivers_column():
    """'under a third each' sits under the one head's bar of weights, wholly right of coat's key and value
    column (the longer label overlapped coat's key at 720p)."""
    b = built(ThreeHeadsSevenRows)
    layout, part = b.scene.layout, b.scene.part_label
    r = COAT.receiver - 1
    column_right = max(layout.keys[r].get_right()[0], layout.chips[r].get_right()[0], layout.frames[r].get_right()[0])
    assert part.get_left()[0] > column_right
    assert part.original_text == "under a third each"


def test_scene_1_each_head_asks_with_its_own_query_before_its_arrows_thicken():
    """The cause before the result: each lane gets its own query, lit in the one feature its head
    asks for (head 1 colour, head 2 material, head 3 detail), and the bars of that feature pulse in
    its lane, a sentence before the arrows thicken onto red, wool and hooded."""
    b = built(ThreeHeadsSevenRows)
    queries = b.beat_of("Its query asks for it")
    assert b.scene.marks["queries"] == queries.id
    order = [bt.id for bt in b.beats]
    assert order.index(queries.id) < order.index(b.scene.marks["thicken"])
    for k, lane in enumerate(b.scene.lanes):
        # one cell, as its keys have one: the feature it asks for, lit (its query's shade there is 1)
        assert len(lane.query.cells) == 1 == len(lane.keys[0].cells) and lane.feature == k
        assert lane.query.cells[0].get_fill_opacity() == pytest.approx(0.95)
        # where its slice comes (beside the receiver, at the slice's height), and gone once it comes
        assert lane.query.get_left()[0] > lane.row.boxes[-1].get_right()[0]
        assert abs(lane.query.get_y() - lane.row.get_y()) < 0.5
        assert not on_stage(b, lane.query)
    # one pulse per lane on its feature's bars and one on its query's lit cell, in one play
    # the best-matching key framed, on its key (the useful source's), until the arrows thicken
    for lane in b.scene.lanes:
        key = lane.keys[lane.reading.useful[0] - 1]
        assert np.allclose(lane.match.get_center(), key.get_center(), atol=1e-6) and not on_stage(b, lane.match)
    # each query's lit cell pulses, then each key of its lane that matches it at all (4 + 4 + 4 rows)
    assert any(w.count("Indicate") == 3 for w in plays_in(b, "Its query asks for it"))
    assert any(w.count("Indicate") == 12 for w in plays_in(b, "Its query asks for it"))
    assert "colour, material or detail" in queries.text
    # before it, each head's own projection keeps one feature of every row: its chips have one track,
    # the bar as long as that feature (head 1: red 1.0, wool 0.4, a 0.1, coat 0.2; by hand from COAT.values)
    assert b.scene.marks["own rows"] == queries.id
    lane_1 = b.scene.lanes[0]
    assert all(len(chip.tracks) == 1 for lane in b.scene.lanes for chip in lane.chips)
    widths = [chip.bar(0).width / chip.tracks[0].width if chip.bar(0) is not None else 0.0 for chip in lane_1.chips]
    assert widths == pytest.approx([0.0, 0.0, 0.1, 0.0, 1.0, 0.4, 0.2])
    assert not any(on_stage(b, m) for lane in b.scene.lanes for chip in lane.full_chips for m in chip.bars)


def test_scene_1_the_three_slices_join_into_one_message_as_wide_as_the_one_heads():
    """The conclusion, enlarged right of the lanes: the one head's message, and under it the three
    slices gathered track under track as its tracks are, each as long and keeping its name: three
    coordinates, each fuller (0.809, 0.820, 0.820 of the track against 0.429, 0.313, 0.314, worked in
    numpy)."""
    b = built(ThreeHeadsSevenRows)
    ghost, joined, lanes = b.scene.ghost, b.scene.joined, b.scene.lanes
    assert b.scene.marks["joined"] == b.beat_of("Joined, the three slices").id
    tracks = [piece[0][0] for piece in joined]
    right_of_lanes = max(lane.row.boxes[-1].get_right()[0] for lane in lanes)
    for k, (track, above) in enumerate(zip(tracks, ghost.bars[0])):
        assert track.get_left()[0] == pytest.approx(above.get_left()[0])          # one column
        assert track.width == pytest.approx(above.width) and track.height == pytest.approx(above.height)
        assert track.get_top()[1] < ghost.get_bottom()[1]                          # under the one head's
        assert track.get_left()[0] > right_of_lanes
        assert joined[k][2][0].original_text == COAT.features[k]                   # its name beside it
        assert joined[k][2][0].get_left()[0] > track.get_right()[0]
    pitch = [b2.get_y() - a.get_y() for a, b2 in zip(tracks, tracks[1:])]
    ghost_pitch = [b2.get_y() - a.get_y() for a, b2 in zip(ghost.bars[0], ghost.bars[0][1:])]
    assert pitch == pytest.approx(ghost_pitch)
    # enlarged: longer than the lanes' tracks were
    assert tracks[0].width > 1.15 * lanes[0].share.frame.width
    for k, piece in enumerate(joined):
        segs = piece[1]
        assert all(abs(seg.get_y() - tracks[k].get_y()) < 1e-6 for seg in segs)
        filled = sum(seg.width for seg in segs) / tracks[k].width
        assert filled == pytest.approx(hand.message(f"head {k + 1}")[k], rel=1e-6)
        assert filled > hand.message("one head")[k] * 1.5
        assert on_stage(b, tracks[k]) and all(on_stage(b, seg) for seg in segs)
    assert b.scene.joined_title.original_text == "three heads:" and on_stage(b, b.scene.joined_title)


def test_scene_4_scaled_copies_ride_their_arrows_into_the_message_slot_and_add_there():
    """Storyboard 4: "a scaled copy of each value moving into that head's message slot beside the
    receiver". Each scaled row (0.8 × [10, 1] = [8, 0.8], 0.2 × [2, 8] = [0.4, 1.6], by hand) travels
    along its own arrow and waits in the slot; the two then add into the message [8.4, 2.4]."""
    b = built(OneSharedWeight)
    scene, one = b.scene, b.scene.one
    beat = b.beat_of("Each value row is scaled by its weight")
    assert sum(c.what.count("MoveAlongPath") for c in b.changes_in(beat)) == 2
    by_hand = [[8.0, 0.8], [0.4, 1.6]]
    for s, chip in enumerate(scene.scaled_chips):
        assert [float(c.value) for c in chip[0]] == pytest.approx(by_hand[s], abs=1e-12)
    message = b.beat_of("Added up, they give the head’s message")
    assert any("FadeTransform" in c.what for c in b.changes_in(message))
    assert [float(c.value) for c in one.message.entries[0]] == pytest.approx([8.4, 2.4], abs=1e-12)
    assert not any(on_stage(b, chip) for chip in scene.scaled_chips)
