"""The beat (scenes.style.LessonScene.beat) and the harness that checks it, on small scenes written
here: what a beat contains, how long it lasts, what its subtitle and sound are, and that the
harness catches the defects the beat exists to prevent (a picture a sentence early, two captions
at once, a still screen of numbers cut short, text below the legibility floor, a spoken line a
listener cannot follow), and that every scene of the lesson has its spoken lines checked."""
from __future__ import annotations

import wave

import numpy as np
import pytest
from manim import UP, Circle, Create, FadeIn, FadeOut, Square, VGroup

from narration.voice import estimated_seconds
from narration.spoken import spoken_form
from scenes.style import LessonScene, get_caption, get_number, get_text
from tests.scene_harness import assert_beats, assert_speakable, build_scene

SENTENCES = ("Head 1 puts most of its weight on river: 0.718.",
             "Every source contributes to the denominator, including the receiver itself.",
             "Twenty-four numbers arrive at once.")


class GoodScene(LessonScene):
    def construct(self):
        self.shot("one")
        with self.beat(SENTENCES[0]):
            self.circle = Circle()
            self.play(Create(self.circle))
        with self.beat(SENTENCES[1]):
            self.play(FadeIn(get_number(0.71812345).shift(UP * 2)))
        self.clear_stage()
        self.shot("two")
        with self.beat(SENTENCES[2]):
            grid = VGroup(*(get_number(k / 7, tag="grid", index=k) for k in range(24))).arrange_in_grid(4, 6)
            self.play(FadeIn(grid))


class EarlyPicture(LessonScene):
    """The defect beats prevent: a play between two sentences (it would run during the first)."""

    def construct(self):
        with self.beat(SENTENCES[0]):
            self.play(Create(Circle()))
        self.play(Create(Square()))          # belongs to no sentence and is no named transition
        with self.beat(SENTENCES[1]):
            self.wait(0.5)


class StrayAdd(LessonScene):
    def construct(self):
        with self.beat(SENTENCES[0]):
            self.wait(0.2)
        self.add(Square())                   # appears outside any beat
        with self.beat(SENTENCES[1]):
            self.wait(0.2)


class Nested(LessonScene):
    def construct(self):
        with self.beat(SENTENCES[0]):
            with self.beat(SENTENCES[1]):
                pass


class TinyText(LessonScene):
    def construct(self):
        with self.beat(SENTENCES[0]):
            self.play(FadeIn(get_text("far too small", font_size=11)))
        with self.beat(SENTENCES[1]):
            self.play(FadeIn(get_text("shrunk by a group", font_size=20).scale(0.5).shift(UP * 2)))


class LongBody(LessonScene):
    """Animations longer than the speech: the beat lasts as long as they do."""

    def construct(self):
        with self.beat("Short."):
            self.play(Create(Circle()), run_time=6)


@pytest.fixture(scope="module")
def good():
    return build_scene(GoodScene, pixel_height=180)


def test_a_well_made_scene_keeps_the_beat_contract(good):
    assert_beats(good, min_beats=3)
    assert [b.text for b in good.beats] == list(SENTENCES)
    # the cleared stage gives way in beat 3's first play, as the grid comes in: no transition, and
    # the circle and the number fade out in the same play that fades the grid in
    assert good.transitions == []
    third = good.beats[2]
    plays = [c.what for c in good.changes_in(third) if c.kind == "play"]
    assert "FadeOut, FadeOut, FadeIn" in plays, plays
    assert good.blank_moments == []


def test_each_picture_plays_inside_the_beat_of_its_sentence(good):
    first, second, third = good.beats
    creates = [c for c in good.changes if c.what == "Create"]
    assert len(creates) == 1 and creates[0].stage == f"beat:{first.id}"
    assert first.start <= creates[0].start < creates[0].end <= first.end
    grid = [m for m in good.numbers if m.tag == "grid"]
    assert len(grid) == 24 and all(m._first_seen == third.id for m in grid)


def test_the_spoken_text_is_the_spoken_form_of_the_caption(good):
    assert good.beats[0].spoken == spoken_form(SENTENCES[0]) == (
        "Head one puts most of its weight on river: zero point seven one eight.")


def test_the_silent_voice_times_each_beat_by_the_estimated_speech(good):
    for beat in good.beats:
        assert beat.source == "none"
        assert beat.speech_end - beat.speech_start == pytest.approx(estimated_seconds(beat.spoken), abs=1e-3)
        with wave.open(beat.audio) as w:
            assert w.getnframes() / w.getframerate() == pytest.approx(estimated_seconds(beat.spoken), abs=1e-3)
            assert not np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").any()    # silence


def test_a_beat_lasts_its_speech_plus_a_look_time_for_what_it_newly_shows(good):
    first, second, third = good.beats
    # one object or one number: the breath between sentences
    assert first.new_numbers == 0 and first.end - first.speech_end == pytest.approx(
        LessonScene.PAUSE_S + LessonScene.CAPTION_OUT_S, abs=1e-6)
    assert second.new_numbers == 1
    # 24 new numbers: at least 2 s of looking after the speech
    assert third.new_numbers == 24 and third.end - third.speech_end >= 2.0


def test_animations_longer_than_the_speech_stretch_the_beat():
    b = build_scene(LongBody, pixel_height=180)
    (beat,) = b.beats
    assert beat.speech_end - beat.speech_start < 2
    assert beat.end - beat.start >= 6 + LessonScene.CAPTION_OUT_S


def test_subtitles_are_the_beats_text_at_the_beats_times(good):
    for (start, end, text), beat in zip(good.subcaptions, good.beats):
        assert text == beat.text
        assert start == pytest.approx(beat.start, abs=1e-3) and end == pytest.approx(beat.end, abs=1e-3)
    assert len(good.subcaptions) == len(good.beats)


def test_one_caption_at_a_time_the_old_one_out_before_the_new_one_in(good):
    # caption in at the beat's start, out at its end, then the next beat's in: never two at once
    caption_plays = [c for c in good.changes
                     if (c.what, round(c.end - c.start, 6)) in (("FadeIn", LessonScene.CAPTION_FADE_S),
                                                                ("FadeOut", LessonScene.CAPTION_OUT_S))]
    kinds = [c.what for c in caption_plays]
    assert kinds == ["FadeIn", "FadeOut"] * len(good.beats)
    for beat, (fade_in, fade_out) in zip(good.beats, zip(caption_plays[::2], caption_plays[1::2])):
        assert fade_in.start == pytest.approx(beat.start) and fade_out.end == pytest.approx(beat.end)


def test_sounds_start_where_their_beats_start(good):
    assert good.sounds == [(b.audio, b.speech_start) for b in good.beats]
    assert all(b.speech_start == b.start for b in good.beats)


@pytest.mark.parametrize("scene,what", [(EarlyPicture, "Create"), (StrayAdd, "Square")])
def test_the_harness_flags_a_change_outside_every_beat(scene, what):
    b = build_scene(scene, pixel_height=180)
    stray = b.unstaged_changes
    assert len(stray) == 1 and what in stray[0].what
    with pytest.raises(AssertionError, match="outside any beat"):
        assert_beats(b, min_beats=2)


def test_beats_do_not_nest():
    with pytest.raises(RuntimeError, match="beats do not nest"):
        build_scene(Nested, pixel_height=180)


def test_the_harness_flags_text_below_the_legibility_floor():
    b = build_scene(TinyText, pixel_height=180)
    small = {text: size for _, text, size in b.small_texts}
    assert small == {"far too small": 11.0, "shrunk by a group": 10.0}


def test_a_caption_that_cannot_fit_is_an_error_not_a_tiny_caption():
    with pytest.raises(ValueError, match="split it into two beats"):
        get_caption(" ".join(["word"] * 120))
    assert get_caption(SENTENCES[1]).font_size >= 18


class Unspeakable(LessonScene):
    """Spoken lines as the old script had them: the normalizer is bypassed by writing them as voiced."""

    def construct(self):
        with self.beat("Head 1 reads “river”.", spoken="Head 1 reads “river”."):
            self.wait(0.2)
        for line in ("Skip the subtraction and the weight of, river, stays.",
                     "Two point three times (minus zero point one).",
                     "The product uses the unrounded weight, zero point seven one seven six four…",
                     "It is stored together in in proj bias."):
            with self.beat(line):
                self.wait(0.2)
        with self.beat("Head one puts most of its weight on “river”: 0.718."):
            self.wait(0.2)


def test_the_harness_flags_every_spoken_line_a_listener_cannot_follow():
    import narration.spoken as spoken
    b = build_scene(Unspeakable, pixel_height=180)
    # the normalizer cleans what it can: brackets and ellipses go, digits become words
    assert [spoken.speech_faults(beat.spoken) for beat in b.beats] == [[], ["comma-wrapped word ', river,'"], [], [],
                                                                       ["doubled word 'in in'"], []]
    with pytest.raises(AssertionError, match="2 fault"):
        assert_speakable(b)
    # and what the normalizer would let through is caught: a line spoken as written, unnormalized
    b.beats[0].spoken = "Head 1 reads “river”."
    with pytest.raises(AssertionError, match=r"Unspeakable-01: not speech: '1“”'"):
        assert_speakable(b)


def test_every_scene_of_the_lesson_has_its_spoken_lines_checked():
    """assert_speakable runs inside assert_builds_cleanly; each scene test file calls that in its
    test_scene_builds_cleanly. Ask pytest which scenes those tests build: all 21 of the catalog."""
    import subprocess
    import sys
    from pathlib import Path

    from lesson_build.catalog import all_scenes
    from tests import scene_harness

    root = Path(__file__).resolve().parents[1]
    assert "assert_speakable" in scene_harness.assert_builds_cleanly.__code__.co_names
    files = sorted(str(p.relative_to(root)) for p in (root / "tests").glob("test_scenes_*.py"))
    r = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-o", "addopts=", "-p", "no:cacheprovider",
                        "-k", "builds_cleanly", *files], cwd=root, capture_output=True, text=True)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    ids = [line for line in r.stdout.splitlines() if "builds_cleanly[" in line]
    missing = [s.name for s in all_scenes() if not any(f"[{s.name}" in i or f"-{s.name}" in i for i in ids)]
    assert missing == [] and len(all_scenes()) == 21
