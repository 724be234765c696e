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

import copy
import enum
import io
import os
import re
import xml.etree.ElementTree as ET
import tempfile
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
import svgelements as se
from manim import RIGHT, Mobject, Scene, Text, VMobject, config, logger, tempconfig
from manim.mobject.svg.svg_mobject import SVGMobject
from manim.utils.color.core import ManimColor
from manim.renderer.cairo_renderer import CairoRenderer

from lesson_data.display import fmt
from scenes.style import CONTENT_BOTTOM, CONTENT_TOP, MIN_TEXT_SIZE, NumberText

# A formatted decimal (e.g. "0.125", "-2.300", "12.5%"): must come from get_number.
_DECIMAL = re.compile(r"^[-−]?\d[\d,]*\.\d+%?$")
_FRAME_TOLERANCE = 0.02


@contextmanager
def silent_voice():
    """Builds speak with the silent voice (the estimated speech length): no synthesis, same rhythm.
    Its silent files go to the harness's own folder, not the project's voice cache."""
    old = {k: os.environ.get(k) for k in ("LESSON_VOICE", "LESSON_VOICE_CACHE")}
    os.environ["LESSON_VOICE"] = "none"
    os.environ["LESSON_VOICE_CACHE"] = os.path.join(_media_dir(), "voice")
    try:
        yield
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


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


def effective_font_size(text: Text, box: tuple | None = None) -> float:
    """The size a text is drawn at after every scaling (group.scale, scale_to_fit_width): its font size
    times how much it has grown or shrunk since it was set (rotation does not count). `box`: the
    text's _bbox when the caller has it (its width and height are the text's own)."""
    base = getattr(text, "base_extent", None)
    if base:
        left, bottom, right, top = _bbox(text) if box is None else box
        return float(text._font_size) * max(right - left, top - bottom) / base
    return float(text.font_size)


@dataclass(frozen=True)
class Change:
    """A play or a top-level add/remove that changes what is visible, and what it belonged to."""

    kind: str          # "play" | "add" | "remove"
    start: float
    end: float
    stage: str | None  # "beat:<id>" | "transition:<name>" | None (outside both: a defect)
    what: str


def _stage_name(scene) -> str | None:
    stage = getattr(scene, "stage", None)
    if stage is None:
        return None
    return f"beat:{stage.id}" if hasattr(stage, "spoken") else f"transition:{stage.name}"


def _is_wait(animation) -> bool:
    return type(animation).__name__ == "Wait"


def _visible(mobjects) -> bool:
    return any(m.has_points() for top in mobjects for m in top.get_family())


# tools/stage_report.py sets it: count the pictures and measure their span (slower) after every play
MEASURE_STAGE = False


def _drawn(m) -> bool:
    """Drawn with some ink: a visible fill or stroke (a faded-out part is not on screen)."""
    fill = getattr(m, "fill_rgbas", None)
    if fill is None:
        return True                    # not a VMobject: its points are drawn as they are
    if len(fill) and fill[:, 3].max() > 0.05:
        return True
    stroke = getattr(m, "stroke_rgbas", None)
    return bool(stroke is not None and len(stroke) and np.max(m.stroke_width) > 0 and stroke[:, 3].max() > 0.05)


@dataclass(frozen=True)
class StageMoment:
    """The stage after one play: how many top-level pictures sit in the content zone and how much of
    it their bounding box spans (a fraction of the zone between the title and the caption)."""
    play: int
    time: float
    stage: str | None          # "beat:<id>" or "transition:<name>"
    pictures: int
    used: float
    after_first_beat: bool

    @property
    def blank(self) -> bool:
        return self.pictures == 0


@dataclass
class _Recorder:
    numbers: dict = field(default_factory=dict)       # id -> NumberText (insertion-ordered)
    texts: dict = field(default_factory=dict)         # id -> Text
    out_of_frame: list = field(default_factory=list)
    text_overlaps: list = field(default_factory=list)
    plays: int = 0
    sections: list = field(default_factory=list)
    changes: list = field(default_factory=list)       # Change: every visible change, with its stage
    sounds: list = field(default_factory=list)        # (file, scene time) of every add_sound
    small_texts: list = field(default_factory=list)   # (play, text, effective size) below the floor
    stage: list = field(default_factory=list)         # StageMoment after every play
    in_play: int = 0

    def walk(self, mobjects, stage=None):
        for top in mobjects:
            for m in top.get_family():
                if isinstance(m, NumberText) and id(m) not in self.numbers:
                    self.numbers[id(m)] = m
                    m._first_seen = stage
                if isinstance(m, Text) and id(m) not in self.texts:
                    self.texts[id(m)] = m
                    m._first_seen = stage

    def check_stage(self, scene):
        """What the content zone (between the title and the caption) holds after a play: pictures,
        not furniture (a top-level title, fine print or caveat badge: `furniture = True`) nor the
        caption. In the tests only whether anything is there (the first drawn part ends the look);
        with MEASURE_STAGE (tools/stage_report.py) also how many pictures and how much they span."""
        caption = getattr(scene, "current_caption", None)
        boxes, found = [], False
        for top in scene.mobjects:
            if top is caption or getattr(top, "furniture", False):
                continue
            for m in top.get_family():
                if not len(m.points) or not _drawn(m):
                    continue
                low, high = m.points[:, 1].min(), m.points[:, 1].max()
                if CONTENT_BOTTOM <= (low + high) / 2 <= CONTENT_TOP:
                    found = True
                    if MEASURE_STAGE:
                        boxes.append(_bbox(top))
                    break
            if found and not MEASURE_STAGE:
                break
        used = 0.0
        if boxes:
            b, width = np.array(boxes), config.frame_width
            used = ((min(b[:, 2].max(), width / 2) - max(b[:, 0].min(), -width / 2))
                    * (min(b[:, 3].max(), CONTENT_TOP) - max(b[:, 1].min(), CONTENT_BOTTOM)))
            used = max(used, 0.0) / (width * (CONTENT_TOP - CONTENT_BOTTOM))
        self.stage.append(StageMoment(self.plays, scene.time, _stage_name(scene),
                                      len(boxes) if MEASURE_STAGE else int(found), round(used, 3),
                                      after_first_beat=len(getattr(scene, "beats", [])) >= 1))

    def check_layout(self, scene):
        self.check_stage(scene)
        half_w, half_h = config.frame_width / 2, config.frame_height / 2
        seen_texts = []
        for top in scene.mobjects:
            family = top.get_family()
            points = [m.points for m in family if len(m.points)]
            if points:
                allp = np.concatenate(points) if len(points) > 1 else points[0]
                (left, bottom), (right, top_y) = allp[:, :2].min(axis=0).tolist(), allp[:, :2].max(axis=0).tolist()
                if (left < -half_w - _FRAME_TOLERANCE or right > half_w + _FRAME_TOLERANCE
                        or bottom < -half_h - _FRAME_TOLERANCE or top_y > half_h + _FRAME_TOLERANCE):
                    self.out_of_frame.append((self.plays, repr(top), (left, bottom, right, top_y)))
            for m in family:
                # a text faded to (near) zero is not on screen for the reader
                if isinstance(m, Text) and len(m.submobjects) and m.get_fill_opacity() > 0.05:
                    seen_texts.append(m)
        boxes = [_bbox(t) for t in seen_texts]
        for t, box in zip(seen_texts, boxes):
            size = effective_font_size(t, box)
            if size < MIN_TEXT_SIZE - 0.05 and t.original_text.strip():
                entry = (t.original_text, round(size, 1))
                if entry not in {e[1:] for e in self.small_texts}:
                    self.small_texts.append((self.plays, *entry))
        if len(seen_texts) < 2:
            return
        boxes = np.array(boxes)
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

    original_remove, original_sound = Scene.remove, Scene.add_sound

    def add(self, *mobjects):
        beat = getattr(self, "stage", None)
        recorder.walk(mobjects, getattr(beat, "id", None) if hasattr(beat, "spoken") else None)
        if not recorder.in_play and _visible(mobjects):
            recorder.changes.append(Change("add", self.time, self.time, _stage_name(self),
                                           ", ".join(repr(m) for m in mobjects)[:120]))
        return original_add(self, *mobjects)

    def remove(self, *mobjects):
        if not recorder.in_play and _visible([m for m in mobjects if m in self.mobjects]):
            recorder.changes.append(Change("remove", self.time, self.time, _stage_name(self),
                                           ", ".join(repr(m) for m in mobjects)[:120]))
        return original_remove(self, *mobjects)

    def play(self, *args, **kwargs):
        start, stage = self.time, _stage_name(self)
        recorder.in_play += 1
        try:
            result = original_play(self, *args, **kwargs)
        finally:
            recorder.in_play -= 1
        if not all(_is_wait(a) for a in args):
            recorder.changes.append(Change("play", start, self.time, stage,
                                           ", ".join(type(a).__name__ for a in args)))
        recorder.plays += 1
        beat = getattr(self, "stage", None)
        recorder.walk(self.mobjects, getattr(beat, "id", None) if hasattr(beat, "spoken") else None)
        recorder.check_layout(self)
        return result

    def add_sound(self, sound_file, time_offset=0, gain=None, **kwargs):
        # recorded, not mixed: the harness writes no video, so it needs no sound track
        recorder.sounds.append((str(sound_file), self.time + time_offset))

    def next_section(self, name="unnamed", *args, **kwargs):
        # recorded here: without video output Manim drops every (empty) section
        recorder.sections.append(name)
        return original_section(self, name, *args, **kwargs)

    Scene.add, Scene.play, Scene.next_section = add, play, next_section
    Scene.remove, Scene.add_sound = remove, add_sound
    CairoRenderer.update_frame, CairoRenderer.save_static_frame_data = _no_frame, _no_static_frame
    try:
        yield
    finally:
        Scene.add, Scene.play, Scene.next_section = original_add, original_play, original_section
        Scene.remove, Scene.add_sound = original_remove, original_sound
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
    beats: list = field(default_factory=list)          # scenes.style.Beat, in order
    transitions: list = field(default_factory=list)    # scenes.style.Transition, in order
    changes: list = field(default_factory=list)        # Change, in order
    sounds: list = field(default_factory=list)         # (file, scene time)
    small_texts: list = field(default_factory=list)    # (play, text, size) below MIN_TEXT_SIZE
    stage: list = field(default_factory=list)          # StageMoment after every play, in order
    _frame: np.ndarray | None = None

    @property
    def blank_moments(self) -> list:
        """Plays after the first beat that leave nothing in the content zone (want []): a stage
        wiped to black and redrawn (docs/VISUALS.md: objects live on and change by motion)."""
        return [m for m in self.stage if m.blank and m.after_first_beat and m.time < self.duration - 1e-6]

    def stage_report(self) -> str:
        """Per beat: what played, how many pictures it faded in, and the most of the content zone
        its pictures spanned. For reading while a scene is redrawn; no assertion rides on it."""
        lines = [f"{type(self.scene).__name__}: {self.duration:.1f} s, {len(self.beats)} beats"]
        for beat in self.beats:
            plays = [c.what for c in self.changes_in(beat) if c.kind == "play"]
            moments = [m for m in self.stage if m.stage == f"beat:{beat.id}"]
            used = max((m.used for m in moments), default=0.0)
            fades = sum(p.count("FadeIn") for p in plays)
            lines.append(f"  {beat.id}  {beat.end - beat.start:5.1f} s  frame used {used:4.0%}  "
                         f"{len(plays)} plays, {fades} fade-ins: {'; '.join(plays)[:90]}")
        for m in self.blank_moments:
            lines.append(f"  BLANK after play {m.play} at {m.time:.1f} s ({m.stage})")
        return "\n".join(lines)

    @property
    def unstaged_changes(self) -> list:
        """Visible changes that belong to no beat and no named transition (want [])."""
        return [c for c in self.changes if c.stage is None]

    def beat_of(self, text_part: str):
        """The first beat whose text contains `text_part` (AssertionError when none does)."""
        for beat in self.beats:
            if text_part in beat.text:
                return beat
        raise AssertionError(f"no beat says {text_part!r}; beats: {[b.text[:50] for b in self.beats]}")

    def changes_in(self, beat) -> list:
        """The visible changes that play during `beat`."""
        return [c for c in self.changes if c.stage == f"beat:{beat.id}"]

    def numbers_in(self, beat) -> list:
        """NumberTexts first shown by a play of `beat` (by the recorder's first sighting)."""
        return [m for m in self.numbers if getattr(m, "_first_seen", None) == beat.id]

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


# Copies are the largest cost of a build (every Transform and fade copies its mobjects). While the
# harness builds, a mobject copies itself as Manim's own __deepcopy__ does (same memo, so shared
# references stay shared), but without recursing into values that cannot change in place:
# numbers, strings, enums, colours (Manim shares ManimColor objects between mobjects itself), and
# plain numeric arrays copied directly. Rendering keeps Manim's copy; a test checks both agree.
_IMMUTABLE = (int, float, bool, str, type(None), np.floating, np.integer, ManimColor, enum.Enum)


def _lean_deepcopy(self, memo):
    result = self.__class__.__new__(self.__class__)
    memo[id(self)] = result
    for key, value in self.__dict__.items():
        if isinstance(value, _IMMUTABLE):
            setattr(result, key, value)
        elif type(value) is np.ndarray and value.dtype != object:
            twin = memo.get(id(value))
            if twin is None:
                twin = memo[id(value)] = value.copy()
                memo.setdefault(id(memo), []).append(value)   # keep it alive, as deepcopy does
            setattr(result, key, twin)
        else:
            setattr(result, key, copy.deepcopy(value, memo))
    result.original_id = str(id(self))
    return result


@contextmanager
def lean_copies():
    """Mobject copies without the generic deepcopy walk over immutable values (see above)."""
    original = Mobject.__deepcopy__
    had_colour = ManimColor in copy._deepcopy_dispatch
    Mobject.__deepcopy__ = _lean_deepcopy
    copy._deepcopy_dispatch[ManimColor] = copy._deepcopy_atomic   # colours inside lists and dicts
    try:
        yield
    finally:
        Mobject.__deepcopy__ = original
        if not had_colour:
            copy._deepcopy_dispatch.pop(ManimColor, None)


# Setting a Text is the other large cost, and a third of it went into one empty VGroup per SVG
# element (about three per glyph) that Manim's SVG import files under the element's id, an index
# (id_to_vgroup_dict) that Tex and Typst read and Text never does (scenes.style drops it from every
# template). While the harness builds, a Text imports its SVG as Manim does, element by element in
# the same order, without those groups; any other SVG keeps Manim's import. A test checks both agree.
_SVG_SHAPES = (se.Path, se.SimpleLine, se.Rect, se.Circle, se.Ellipse, se.Polygon, se.Polyline, se.Text)


def _lean_mobjects_from(self, svg):
    if not isinstance(self, Text):
        return _MANIM_MOBJECTS_FROM(self, svg)
    result, stack = [], [svg]
    while stack:
        element = stack.pop()
        if isinstance(element, (se.Group, se.Use)):
            stack.extend(element[::-1])
        try:
            if isinstance(element, _SVG_SHAPES):
                mob = self.get_mob_from_shape_element(element)
                if mob is not None:
                    result.append(mob)
        except Exception as e:      # as Manim's import: logged, the element skipped
            logger.error(f"Exception occurred in 'get_mobjects_from'. Details: {e}")
    return result, {}


_MANIM_MOBJECTS_FROM = SVGMobject.get_mobjects_from


# Half of what is left of setting a Text is svgelements re-parsing each glyph's outline at every
# place it is used (a caption of 80 letters parses ~25 outlines 80 times) and turning each into
# points. Pango's SVG is plain: glyph outlines as <symbol>s, and <use href x y> inside styled <g>s.
# While the harness builds, a Text's glyph is imported Manim's way once per (outline, style), at
# the origin, and copied and shifted to each place it is used; any SVG with something else in it
# (a transform, another element) takes Manim's import. Same family, styles and structure; points
# equal to rounding (a translation applied after Manim's curve conversion, not before), which a
# test checks (tests/test_text_templates.py). Rendering keeps Manim's import.
_SVG_NS = "{http://www.w3.org/2000/svg}"
_XLINK_HREF = "{http://www.w3.org/1999/xlink}href"
_GLYPHS: dict = {}


class _NotPlain(Exception):
    """The SVG is not the plain glyphs-and-uses kind this import knows."""


def _plain_uses(root):
    """(symbol id -> (path d, path style)), [(href, x, y, style chain)] in document order."""
    symbols, uses = {}, []

    def tag(e):
        return e.tag[len(_SVG_NS):] if e.tag.startswith(_SVG_NS) else e.tag

    def walk(e, chain, in_defs):
        t = tag(e)
        if "transform" in e.attrib:
            raise _NotPlain(t)
        if t == "symbol":
            paths = [c for c in e if tag(c) == "path"]
            if len(paths) != len(e) or len(paths) > 1 or any("transform" in c.attrib for c in paths):
                raise _NotPlain("symbol")
            symbols[e.get("id")] = (paths[0].get("d", ""), paths[0].get("style", "")) if paths else ("", "")
            return
        if t == "use":
            if in_defs or len(e):
                raise _NotPlain("use")
            uses.append((e.get(_XLINK_HREF, e.get("href", "")).lstrip("#"), float(e.get("x", 0)),
                         float(e.get("y", 0)), chain))
            return
        if t not in ("svg", "g", "defs"):
            raise _NotPlain(t)
        style = tuple(sorted((k, v) for k, v in e.attrib.items() if k in _STYLE_KEYS))
        for c in e:
            walk(c, chain + (style,), in_defs or t == "defs")

    walk(root, (), False)
    return symbols, uses


_STYLE_KEYS = ("fill", "fill-opacity", "stroke", "stroke-opacity", "stroke-width", "style")


def _glyph_at_origin(self, d: str, path_style: str, chain) -> VMobject | None:
    key = (d, path_style, chain, tuple(sorted(self.path_string_config.items())))
    if key not in _GLYPHS:
        opened = "".join("<g %s>" % " ".join(f'{k}="{v}"' for k, v in style) for style in chain)
        doc = (f'<svg xmlns="http://www.w3.org/2000/svg">{opened}<path style="{path_style}" d="{d}"/>'
               f'{"</g>" * len(chain)}</svg>')
        shapes = [e for e in se.SVG.parse(io.StringIO(doc)).elements() if isinstance(e, se.Path)]
        mob = self.get_mob_from_shape_element(shapes[0]) if len(shapes) == 1 else None
        if mob is not None:
            mob.path_obj = None                  # (as scenes.style drops it from every template)
        _GLYPHS[key] = mob
    return _GLYPHS[key]


def _glyph_generate_mobject(self):
    if not isinstance(self, Text):
        return _MANIM_GENERATE(self)
    tree = self.modify_xml_tree(ET.parse(self.get_file_path()))
    try:
        symbols, uses = _plain_uses(tree.getroot())
    except _NotPlain:
        return _MANIM_GENERATE(self)
    mobjects = []
    for href, x, y, chain in uses:
        d, path_style = symbols[href]
        glyph = _glyph_at_origin(self, d, path_style, chain)
        if glyph is not None:
            mobjects.append(glyph.copy().shift(np.array([x, y, 0.0])))
    self.add(*mobjects)
    self.id_to_vgroup_dict = {}
    self.flip(RIGHT)
    return self


_MANIM_GENERATE = SVGMobject.generate_mobject


@contextmanager
def lean_text_import():
    """Text's SVG import without the unread group index (see above)."""
    SVGMobject.get_mobjects_from = _lean_mobjects_from
    SVGMobject.generate_mobject = _glyph_generate_mobject
    try:
        yield
    finally:
        SVGMobject.get_mobjects_from = _MANIM_MOBJECTS_FROM
        SVGMobject.generate_mobject = _MANIM_GENERATE


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
    with tempconfig(options), lesson_sentence(sentence), silent_voice(), _recording(recorder), lean_copies(), \
            lean_text_import():
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
            beats=list(getattr(scene, "beats", [])),
            transitions=list(getattr(scene, "transitions", [])),
            changes=list(recorder.changes),
            sounds=list(recorder.sounds),
            small_texts=list(recorder.small_texts),
            stage=list(recorder.stage),
        )
        built.last_frame()  # render while the low-resolution config is active
    return built


__all__ = ["BuiltScene", "Change", "StageMoment", "build_scene", "lesson_sentence", "silent_voice", "hex_to_rgb", "blend",
           "assert_builds_cleanly", "assert_beats", "assert_speakable", "assert_matrix_on_screen", "built", "effective_font_size",
           "lean_copies", "lean_text_import"]


def assert_builds_cleanly(b: BuiltScene, *, min_sections: int = 2, min_beats: int = 3) -> None:
    """What every scene owes a viewer: numbers shown by the one display rule and registered,
    nothing off the 16:9 frame, no text on text, no text below the legibility floor, one section
    per shot, and narration in beats (assert_beats)."""
    assert b.format_mismatches() == []
    assert b.unregistered_numbers == []            # every decimal went through get_number
    assert b.out_of_frame == []
    assert b.text_overlaps == []
    assert b.small_texts == [], f"texts below MIN_TEXT_SIZE={MIN_TEXT_SIZE}: {b.small_texts[:8]}"
    assert len(b.sections) >= min_sections
    assert b.blank_moments == [], "a blank stage inside the scene:\n" + b.stage_report()
    assert_beats(b, min_beats=min_beats)
    assert_speakable(b)


def assert_speakable(b: BuiltScene) -> None:
    """Every spoken line is what a listener can follow (narration.spoken.speech_faults): no bracket, no
    ellipsis, no doubled word, no single word between bare commas, nothing Piper would not read as
    speech. Checked in assert_builds_cleanly, so it runs on every beat of every scene each scene test
    file builds (and on its other sentences), with the builds those files already share."""
    from narration.spoken import speech_faults

    faults = [(beat.id, fault, beat.spoken) for beat in b.beats for fault in speech_faults(beat.spoken)]
    assert faults == [], f"{len(faults)} fault(s) in spoken lines: " + "; ".join(
        f"{i}: {fault} in {line!r}" for i, fault, line in faults[:6])


def assert_beats(b: BuiltScene, *, min_beats: int = 3) -> None:
    """The beat contract (docs/NARRATION.md): every visible change starts inside a beat or a named
    transition; beats never overlap; each beat's speech lies inside it and its sound is placed where
    it starts; a number-dense beat holds at least 2 s after the speech; the subtitles are the beats'
    text at the beats' times, one after another, inside the video."""
    beats = b.beats
    assert len(beats) >= min_beats, f"{len(beats)} beats"
    assert b.unstaged_changes == [], f"changes outside any beat or transition: {b.unstaged_changes[:5]}"
    eps = 1e-6
    for cur, nxt in zip(beats, beats[1:]):
        assert cur.end <= nxt.start + eps, f"{cur.id} ends at {cur.end} after {nxt.id} starts at {nxt.start}"
    for beat in beats:
        assert beat.start - eps <= beat.speech_start <= beat.speech_end <= beat.end + eps, beat
        if beat.new_numbers >= 20:
            assert beat.end - beat.speech_end >= 2.0 - eps, f"{beat.id}: {beat.new_numbers} new numbers"
    for t in b.transitions:
        assert all(not (bt.start + eps < t.end and t.start < bt.end - eps) for bt in beats), t
    assert b.sounds == [(bt.audio, bt.speech_start) for bt in beats]
    subs = [(round(s, 3), round(e, 3), text) for s, e, text in b.subcaptions]
    assert subs == [(round(bt.start, 3), round(bt.end, 3), bt.text) for bt in beats]
    assert beats[-1].end <= b.duration + eps
    assert len({bt.id for bt in beats}) == len(beats)


def assert_matrix_on_screen(b, tag, expected, places=None):
    """Every entry of `expected` is on screen under `tag`, at its index, unrounded, shown by fmt
    with the table's own precision (display.places_for), or with `places` when given."""
    from lesson_data.display import places_for

    expected = np.atleast_2d(np.asarray(expected, dtype=float))
    places = places_for(expected) if places is None else places
    shown = b.by_tag(tag)
    want = {(i, j) for i in range(expected.shape[0]) for j in range(expected.shape[1])}
    assert set(shown) == want, f"{tag}: indices on screen {sorted(shown)} != {sorted(want)}"
    for (i, j), m in shown.items():
        assert m.value == expected[i, j], f"{tag}[{i},{j}] = {m.value} != {expected[i, j]}"
        assert m.original_text == fmt(expected[i, j], places), f"{tag}[{i},{j}] shows {m.original_text!r}"


_BUILT: dict = {}


def built(scene_cls, sentence: str | None = None) -> BuiltScene:
    """build_scene at 270p, once per (scene, sentence) for the whole test session: scene tests
    read the same build many times, and a build is the slow part."""
    key = (scene_cls, sentence)
    if key not in _BUILT:
        _BUILT[key] = build_scene(scene_cls, sentence=sentence, pixel_height=270)
    return _BUILT[key]
