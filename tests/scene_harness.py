"""Build a Manim scene in-process without writing video, and record what it put on screen.

    built = build_scene(Setup)                       # LESSON_SENTENCE=river (default)
    built = build_scene(Setup, sentence="cheque")
    built.numbers                 # every NumberText ever on screen, first-seen order
    built.by_tag("E")             # {index: NumberText} for one tag
    built.format_mismatches()     # numbers whose glyph text != fmt(value, places)   (want [])
    built.unregistered_numbers    # decimal-looking Text not built by get_number      (want [])
    built.out_of_frame            # mobjects left (partly) outside the 16:9 frame     (want [])
    built.text_overlaps           # pairs of texts overlapping at the end of a play    (want [])
    built.sections, built.subcaptions, built.duration
    built.pixel((x, y))           # RGB of the last frame at a scene point (low resolution)

How: animations are skipped (each play jumps to its end state, so a scene builds in seconds),
`dry_run` writes no files, and Scene.add / Scene.play are wrapped while the scene builds so
every mobject that is ever added — and the whole scene after every play — is walked.
"""
from __future__ import annotations

import os
import re
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
from manim import Scene, Text, config, tempconfig
from manim.renderer.cairo_renderer import CairoRenderer

from lesson_data.display import fmt
from scenes.style import NumberText

# A formatted decimal (e.g. "0.125", "-2.300", "12.5%"): must come from get_number.
_DECIMAL = re.compile(r"^[-−]?\d[\d,]*\.\d+%?$")
_FRAME_TOLERANCE = 0.02


@contextmanager
def lesson_sentence(sentence: str | None):
    """Set LESSON_SENTENCE for the duration (None leaves the environment's choice)."""
    old = os.environ.get("LESSON_SENTENCE")
    if sentence is not None:
        os.environ["LESSON_SENTENCE"] = sentence
    try:
        yield
    finally:
        if sentence is not None:
            if old is None:
                os.environ.pop("LESSON_SENTENCE", None)
            else:
                os.environ["LESSON_SENTENCE"] = old


def _bbox(m) -> tuple[float, float, float, float]:
    """(left, bottom, right, top) of all the points of m's family: what get_left/get_right/
    get_bottom/get_top give, in one pass instead of four."""
    points = [sub.points for sub in m.get_family() if len(sub.points)]
    if not points:
        c = m.get_center()
        return c[0], c[1], c[0], c[1]
    allp = np.concatenate(points) if len(points) > 1 else points[0]
    lo, hi = allp.min(axis=0), allp.max(axis=0)
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


@dataclass
class _Recorder:
    numbers: dict = field(default_factory=dict)       # id -> NumberText (insertion-ordered)
    texts: dict = field(default_factory=dict)         # id -> Text
    out_of_frame: list = field(default_factory=list)
    text_overlaps: list = field(default_factory=list)
    plays: int = 0
    sections: list = field(default_factory=list)

    def walk(self, mobjects):
        for top in mobjects:
            for m in top.get_family():
                if isinstance(m, NumberText):
                    self.numbers.setdefault(id(m), m)
                if isinstance(m, Text):
                    self.texts.setdefault(id(m), m)

    def check_layout(self, scene):
        half_w, half_h = config.frame_width / 2, config.frame_height / 2
        seen_texts = []
        for top in scene.mobjects:
            family = top.get_family()
            if any(m.has_points() for m in family):
                left, bottom, right, top_y = _bbox(top)
                if (left < -half_w - _FRAME_TOLERANCE or right > half_w + _FRAME_TOLERANCE
                        or bottom < -half_h - _FRAME_TOLERANCE or top_y > half_h + _FRAME_TOLERANCE):
                    self.out_of_frame.append((self.plays, repr(top), (left, bottom, right, top_y)))
            for m in family:
                # a text faded to (near) zero is not on screen for the reader
                if isinstance(m, Text) and len(m.submobjects) and m.get_fill_opacity() > 0.05:
                    seen_texts.append(m)
        if len(seen_texts) < 2:
            return
        boxes = np.array([_bbox(t) for t in seen_texts])
        shrink = 0.01  # touching glyph boxes are not an overlap
        l, b, r, t = (boxes[:, 0] + shrink, boxes[:, 1] + shrink, boxes[:, 2] - shrink, boxes[:, 3] - shrink)
        ox = np.minimum(r[:, None], r[None, :]) > np.maximum(l[:, None], l[None, :])
        oy = np.minimum(t[:, None], t[None, :]) > np.maximum(b[:, None], b[None, :])
        hits = np.argwhere(np.triu(ox & oy, k=1))
        for i, j in hits:
            pair = (seen_texts[i].original_text, seen_texts[j].original_text)
            entry = (self.plays, pair)
            if entry[1] not in {e[1] for e in self.text_overlaps}:
                self.text_overlaps.append(entry)


# Drawing frames is what a skipped play still spends time on (the static background of every play,
# the held frame of every wait); the harness draws one frame only, the last, on request.
_DRAW_FRAME = CairoRenderer.update_frame


def _no_frame(self, *args, **kwargs):
    if not self.skip_animations:
        return _DRAW_FRAME(self, *args, **kwargs)
    return None


def _no_static_frame(self, scene, static_mobjects):
    self.static_image = None
    return None


@contextmanager
def _recording(recorder: _Recorder):
    original_add, original_play, original_section = Scene.add, Scene.play, Scene.next_section
    original_frame, original_static = CairoRenderer.update_frame, CairoRenderer.save_static_frame_data

    def add(self, *mobjects):
        recorder.walk(mobjects)
        return original_add(self, *mobjects)

    def play(self, *args, **kwargs):
        result = original_play(self, *args, **kwargs)
        recorder.plays += 1
        recorder.walk(self.mobjects)
        recorder.check_layout(self)
        return result

    def next_section(self, name="unnamed", *args, **kwargs):
        # recorded here: without video output Manim drops every (empty) section
        recorder.sections.append(name)
        return original_section(self, name, *args, **kwargs)

    Scene.add, Scene.play, Scene.next_section = add, play, next_section
    CairoRenderer.update_frame, CairoRenderer.save_static_frame_data = _no_frame, _no_static_frame
    try:
        yield
    finally:
        Scene.add, Scene.play, Scene.next_section = original_add, original_play, original_section
        CairoRenderer.update_frame, CairoRenderer.save_static_frame_data = original_frame, original_static


@dataclass
class BuiltScene:
    scene: Scene
    numbers: list
    texts: list
    out_of_frame: list
    text_overlaps: list
    sections: list             # shot names, in order
    subcaptions: list          # (start_s, end_s, text)
    duration: float
    pixel_width: int
    pixel_height: int
    _frame: np.ndarray | None = None

    def by_tag(self, tag: str) -> dict:
        """{index: NumberText} for numbers with this tag (the last one wins for repeated indices)."""
        return {m.index: m for m in self.numbers if m.tag == tag}

    def all_with_tag(self, tag: str) -> list:
        return [m for m in self.numbers if m.tag == tag]

    def tags(self) -> set:
        return {m.tag for m in self.numbers}

    def format_mismatches(self) -> list:
        """Numbers whose rendered string differs from the display rule applied to their value."""
        return [(m.original_text, m.value) for m in self.numbers
                if m.original_text != type(m).rule(m.value, m.places)]

    @property
    def unregistered_numbers(self) -> list:
        """Decimal-looking Text objects that did not come from get_number (bypassing the rule)."""
        return [t.original_text for t in self.texts
                if not isinstance(t, NumberText) and _DECIMAL.match(t.original_text.strip())]

    # ---- last frame -------------------------------------------------------------------------
    def last_frame(self) -> np.ndarray:
        """RGB array [h, w, 3] of the scene's final state (rendered once, at low resolution)."""
        if self._frame is None:
            renderer = self.scene.renderer
            renderer.static_image = None
            _DRAW_FRAME(renderer, self.scene, ignore_skipping=True)
            self._frame = renderer.get_frame()[:, :, :3].copy()
        return self._frame

    def to_pixel(self, point) -> tuple[int, int]:
        """(row, col) of a scene point, from the frame geometry (independent of Manim's camera code)."""
        x, y = float(point[0]), float(point[1])
        col = int((x / config.frame_width + 0.5) * self.pixel_width)
        row = int((0.5 - y / config.frame_height) * self.pixel_height)
        return row, col

    def pixel(self, point) -> np.ndarray:
        row, col = self.to_pixel(point)
        return self.last_frame()[row, col].astype(int)


def hex_to_rgb(color: str) -> np.ndarray:
    color = color.lstrip("#")
    return np.array([int(color[k:k + 2], 16) for k in (0, 2, 4)])


def blend(fill: str, background: str, opacity: float) -> np.ndarray:
    """Expected RGB of `fill` at `opacity` over `background` (plain alpha compositing)."""
    return opacity * hex_to_rgb(fill) + (1 - opacity) * hex_to_rgb(background)


_MEDIA: list = []


def _media_dir() -> str:
    """One media folder per process: Manim keeps each text's SVG there, so a text set by one build
    is not set again by the next."""
    if not _MEDIA:
        _MEDIA.append(tempfile.mkdtemp(prefix="scene_harness_"))
    return _MEDIA[0]


def build_scene(scene_cls, sentence: str | None = None, *, pixel_height: int = 216) -> BuiltScene:
    """Construct `scene_cls` with skipped animations and no output files; see the module doc."""
    pixel_width = pixel_height * 16 // 9
    recorder = _Recorder()
    media = _media_dir()
    options = {
        "dry_run": True,
        "disable_caching": True,
        "media_dir": media,
        "pixel_height": pixel_height,
        "pixel_width": pixel_width,
        "frame_rate": 15,
        "verbosity": "WARNING",
        "progress_bar": "none",
        "preview": False,
    }
    with tempconfig(options), lesson_sentence(sentence), _recording(recorder):
        scene = scene_cls(skip_animations=True)
        scene.render()
        subs = [(s.start.total_seconds(), s.end.total_seconds(), s.content)
                for s in scene.renderer.file_writer.subcaptions]
        built = BuiltScene(
            scene=scene,
            numbers=list(recorder.numbers.values()),
            texts=list(recorder.texts.values()),
            out_of_frame=recorder.out_of_frame,
            text_overlaps=recorder.text_overlaps,
            sections=list(recorder.sections),
            subcaptions=subs,
            duration=float(scene.time),
            pixel_width=pixel_width,
            pixel_height=pixel_height,
        )
        built.last_frame()  # render while the low-resolution config is active
    return built


__all__ = ["BuiltScene", "build_scene", "lesson_sentence", "hex_to_rgb", "blend"]


def assert_builds_cleanly(b: BuiltScene, *, min_sections: int = 2, min_subcaptions: int = 3) -> None:
    """What every scene owes a viewer: numbers shown by the one display rule and registered,
    nothing off the 16:9 frame, no text on text, one section per shot, and a subtitle track of
    the notes' sentences, one after another, never overlapping, ending inside the video."""
    assert b.format_mismatches() == []
    assert b.unregistered_numbers == []            # every decimal went through get_number
    assert b.out_of_frame == []
    assert b.text_overlaps == []
    assert len(b.sections) >= min_sections
    subs = b.subcaptions
    assert len(subs) >= min_subcaptions
    assert all(end > start for start, end, _ in subs)
    assert all(nxt[0] >= cur[1] - 1e-9 for cur, nxt in zip(subs, subs[1:]))
    assert subs[-1][1] <= b.duration + 1e-6


def assert_matrix_on_screen(b, tag, expected):
    """Every entry of `expected` is on screen under `tag`, at its index, unrounded, shown by fmt."""
    expected = np.atleast_2d(np.asarray(expected, dtype=float))
    shown = b.by_tag(tag)
    want = {(i, j) for i in range(expected.shape[0]) for j in range(expected.shape[1])}
    assert set(shown) == want, f"{tag}: indices on screen {sorted(shown)} != {sorted(want)}"
    for (i, j), m in shown.items():
        assert m.value == expected[i, j], f"{tag}[{i},{j}] = {m.value} != {expected[i, j]}"
        assert m.original_text == fmt(expected[i, j]), f"{tag}[{i},{j}] shows {m.original_text!r}"


_BUILT: dict = {}


def built(scene_cls, sentence: str | None = None) -> BuiltScene:
    """build_scene at 270p, once per (scene, sentence) for the whole test session: scene tests
    read the same build many times, and a build is the slow part."""
    key = (scene_cls, sentence)
    if key not in _BUILT:
        _BUILT[key] = build_scene(scene_cls, sentence=sentence, pixel_height=270)
    return _BUILT[key]
