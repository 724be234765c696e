"""The harness and the guards themselves: each check must be able to fail."""
from __future__ import annotations

import numpy as np
import pytest
from manim import LEFT, RIGHT, UP, FadeIn, FadeOut, MathTex, Text, Transform

from scenes.blocks.labeled_matrix import get_labeled_matrix
from scenes.blocks.masked_matrix import get_masked_matrix
from scenes.style import (
    BACKGROUND,
    HIGHLIGHT_OPACITY,
    MASK_COLOR,
    RECEIVER_COLOR,
    LessonScene,
    get_number,
)
from tests.scene_harness import blend, build_scene, hex_to_rgb


def test_latex_use_fails_loudly():
    with pytest.raises(RuntimeError, match="LaTeX was requested"):
        MathTex(r"\alpha")


class _Numbers(LessonScene):
    def construct(self):
        self.shot("one")
        a = get_number(0.1234, tag="a")
        with self.transition("first number"):
            self.play(FadeIn(a))
        self.shot("two")
        b = get_number(-2.5, tag="b", index=3).next_to(a, RIGHT)
        with self.beat("A short caption for the harness."):
            self.add(b)
            self.wait(0.5)


def test_harness_collects_every_number_sections_and_subtitles():
    built = build_scene(_Numbers)
    assert {m.tag: m.value for m in built.numbers} == {"a": 0.1234, "b": -2.5}
    assert built.by_tag("b")[3].original_text == "-2.500"
    assert built.format_mismatches() == []
    assert built.unregistered_numbers == []
    assert built.sections == ["one", "two"]
    assert [s[2] for s in built.subcaptions] == ["A short caption for the harness."]
    start, end, _ = built.subcaptions[0]
    assert end - start >= LessonScene.MIN_BEAT_S
    assert built.duration >= 1.0
    assert built.unstaged_changes == [] and [c.stage for c in built.changes][:1] == ["transition:first number"]


class _Bad(LessonScene):
    def construct(self):
        self.add(Text("0.125"))                                 # a number bypassing get_number
        self.add(Text("far away").shift(RIGHT * 9))             # off the frame
        self.add(Text("here"), Text("there"))                    # on top of each other ...
        n = get_number(0.5, tag="n").shift(UP * 2)
        self.add(n)
        self.play(Transform(n, get_number(0.75).shift(UP * 2)))  # glyphs change, value does not


def test_harness_reports_bypassed_numbers_out_of_frame_and_overlaps():
    built = build_scene(_Bad)
    assert built.unregistered_numbers == ["0.125"]
    assert any("far away" in entry[1] for entry in built.out_of_frame)
    assert any(set(pair) == {"here", "there"} for _, pair in built.text_overlaps)
    # Transform is why scenes must use ReplacementTransform for numbers: the recorded value of n
    # is still 0.5 although 0.75's glyphs are drawn. The harness cannot see glyph shapes, so
    # the rule is documented; here we only pin down that the value stayed.
    assert built.by_tag("n")[None].value == 0.5


class _Pixels(LessonScene):
    def construct(self):
        self.matrix = get_labeled_matrix(np.arange(8.0).reshape(2, 4)).shift(LEFT * 3 + UP)
        self.box = self.matrix.get_row_box(1)
        self.mm = get_masked_matrix(np.tril(np.full((3, 3), 1 / 3)), side=0.8).shift(RIGHT * 3)
        self.add(self.box, self.matrix, self.mm)
        self.wait(0.1)


def test_last_frame_pixels_show_theme_colours():
    built = build_scene(_Pixels, pixel_height=270)
    scene = built.scene
    # background far from everything
    assert np.abs(built.pixel((-6.8, -3.8)) - hex_to_rgb(BACKGROUND)).max() <= 2
    # a blocked (future) cell: solid mask colour
    corner = scene.mm.square(0, 2).get_center()
    assert np.abs(built.pixel(corner) - hex_to_rgb(MASK_COLOR)).max() <= 2
    # the highlighted row, between the box edge and the first digit: receiver colour over background
    box, first = scene.box, scene.matrix.cell(1, 0)
    x = (box.get_left()[0] + first.get_left()[0]) / 2
    expected = blend(RECEIVER_COLOR, BACKGROUND, HIGHLIGHT_OPACITY)
    assert np.abs(built.pixel((x, box.get_center()[1])) - expected).max() <= 3
    # and an unhighlighted row at the same x is plain background
    y0 = scene.matrix.cell_center(0, 0)[1]
    assert np.abs(built.pixel((x, y0)) - hex_to_rgb(BACKGROUND)).max() <= 2


def _family_state(mob):
    """Everything a frame or a check reads from each mobject of a family, in family order."""
    out = []
    for m in mob.get_family():
        out.append((type(m).__name__, m.points.tobytes(), m.z_index,
                    *(np.asarray(getattr(m, a, [])).tobytes()
                      for a in ("fill_rgbas", "stroke_rgbas", "background_stroke_rgbas")),
                    getattr(m, "stroke_width", None), getattr(m, "original_text", None),
                    getattr(m, "value", None), getattr(m, "tag", None), str(m.color)))
    return out


def test_lean_copies_copy_exactly_what_manims_deepcopy_copies():
    """The harness's faster copy (used only while it builds) against Manim's own deepcopy: the same
    state, shared references mapped to the copies (not the originals), and a copy independent of
    its original."""
    from scenes.blocks.attention_arrows import get_attention_arrows, get_token_row
    from lesson_data.worksheet import compute_worksheet
    from tests.scene_harness import lean_copies
    from scenes.style import head_color
    ws = compute_worksheet("river")
    row = get_token_row(ws.tokens, receiver=ws.n)
    arrows = get_attention_arrows(row, ws.heads[0].weights[-1], color=head_color(1))
    matrix = get_labeled_matrix(ws.E, row_labels=list(ws.tokens))
    for mob in (row, arrows, matrix):
        default = mob.copy()
        with lean_copies():
            lean = mob.copy()
        assert _family_state(lean) == _family_state(default) == _family_state(mob)
        assert {id(m) for m in lean.get_family()}.isdisjoint(id(m) for m in mob.get_family())
    with lean_copies():
        lean = arrows.copy()
    # a dict of submobjects points at the copy's own arrows, as deepcopy's memo makes it
    assert lean.arrow(9) is lean.arrows[9] and lean.arrow(9) is not arrows.arrows[9]
    before = arrows.arrows[9].points.copy()
    lean.arrows[9].shift(RIGHT).set_color("#FF0000")
    assert np.array_equal(arrows.arrows[9].points, before)
    assert arrows.arrows[9].get_stroke_color() != lean.arrows[9].get_stroke_color()
    # outside the context Manim's copy is back
    from manim import Mobject
    assert Mobject.__deepcopy__.__module__.startswith("manim")


class _Wiped(LessonScene):
    """Two shots; between them the stage is wiped (a transition fades the first picture out)."""
    cross_fade = False

    def construct(self):
        from scenes.style import get_text, get_title
        title = get_title("Wiped")
        first, second = get_text("first picture").shift(LEFT * 2), get_text("second picture").shift(RIGHT * 2)
        with self.beat("The first picture."):
            self.play(FadeIn(title), FadeIn(first))
        if self.cross_fade:
            self.clear_stage(title)          # gives way as the second picture comes in
        else:
            with self.transition("wipe"):
                self.play(FadeOut(first))
        with self.beat("The second picture."):
            self.play(FadeIn(second))


class _CrossFaded(_Wiped):
    cross_fade = True


def test_the_harness_finds_a_blank_stage_after_the_first_beat_and_none_in_a_cross_fade():
    wiped = build_scene(_Wiped)
    # blank from the wipe until the second picture arrives (the next beat's caption is no picture)
    assert [m.stage for m in wiped.blank_moments] == ["transition:wipe", "beat:_Wiped-02"]
    assert "BLANK after play" in wiped.stage_report()
    with pytest.raises(AssertionError, match="a blank stage inside the scene"):
        from tests.scene_harness import assert_builds_cleanly
        assert_builds_cleanly(wiped, min_sections=0, min_beats=2)
    crossed = build_scene(_CrossFaded)
    assert crossed.blank_moments == [] and crossed.transitions == []
    # clear_stage's leaver fades out in the play that fades the second picture in
    assert "FadeOut, FadeIn" in [c.what for c in crossed.changes_in(crossed.beats[1])]
    # the title is furniture: it alone does not make a stage
    assert all(m.pictures >= 1 for m in crossed.stage if m.after_first_beat)


class _KeepsAPart(LessonScene):
    """A panel on stage as one group; clear_stage keeps one of its parts, which moves on."""

    def construct(self):
        from manim import DOWN, UP, VGroup
        from scenes.style import get_text
        self.kept, self.other = get_text("kept").shift(LEFT * 2), get_text("other").shift(RIGHT * 2)
        self.panel = VGroup(self.kept, self.other)
        with self.beat("The panel."):
            self.play(FadeIn(self.panel))
        self.clear_stage(self.kept)
        with self.beat("The next picture."):
            self.play(FadeIn(get_text("next").shift(DOWN * 2)), self.kept.animate.shift(UP))


def test_clear_stage_keeps_a_part_inside_a_group_and_lets_the_rest_go():
    b = build_scene(_KeepsAPart)
    family = {id(m) for top in b.scene.mobjects for m in top.get_family()}
    assert id(b.scene.kept) in family and id(b.scene.other) not in family
    # the other part fades in the play that brings the next picture, beside the kept part's move
    assert any("FadeOut" in c.what for c in b.changes_in(b.beats[1]))


def test_the_legibility_floor_reads_a_texts_size_as_manims_width_and_height_do():
    """effective_font_size measures a text's box in one pass over its points; Manim's own width and
    height (a second method) give the same size, for a text scaled down, stretched and rotated."""
    from scenes.style import get_text
    from tests.scene_harness import effective_font_size

    for change in (lambda t: t.scale(0.5), lambda t: t.stretch(1.7, 0), lambda t: t.rotate(0.4)):
        t = change(get_text("weights 0.718", font_size=30))
        by_manim = float(t._font_size) * max(t.width, t.height) / t.base_extent
        assert effective_font_size(t) == pytest.approx(by_manim, rel=1e-12)
    assert effective_font_size(get_text("x", font_size=30).scale(0.5)) == pytest.approx(15, rel=1e-9)


def test_the_slow_files_named_first_are_test_files_here():
    """conftest.SLOW_FILES_FIRST orders the files by name; a renamed file would silently fall back to
    the end of the queue."""
    from pathlib import Path

    from tests.conftest import SLOW_FILES_FIRST

    here = {p.name for p in Path(__file__).parent.glob("test_*.py")}
    assert [name for name in SLOW_FILES_FIRST if name not in here] == []
    assert len(set(SLOW_FILES_FIRST)) == len(SLOW_FILES_FIRST)
