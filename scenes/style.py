"""The lesson's shared look: one declarative theme, text/number builders and the LessonScene base.

Every scene imports from here so colours, fonts and the number display rule live in one place.
Numbers are only ever shown through `get_number`, which formats with `lesson_data.display.fmt`
(the ONE rounding rule) and keeps the full-precision value on the mobject for tests.
No LaTeX anywhere: Text/MarkupText in DejaVu Sans only.
"""
from __future__ import annotations

import json
import math
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from manim import (
    UP,
    FadeIn,
    FadeOut,
    ManimColor,
    Text,
    VGroup,
    Wait,
    config,
)

from lesson_data.display import PLACES, fmt, fmt_int
from narration.speech import LessonSpeechService  # first: quiets pysox before manim-voiceover loads
from narration.spoken import spoken_form
from narration.voice import SAMPLE_RATE, voice_from_env
from manim_voiceover import VoiceoverScene  # noqa: E402  (after narration.speech)

# --------------------------------------------------------------------------------------------
# Theme (ManimML-like: one frozen object, plus module-level names for convenience)
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Theme:
    # Okabe–Ito palette: the two heads are sky blue vs orange, distinguishable under the
    # common colour-vision deficiencies and on a dark background.
    background: str = "#14161C"
    text: str = "#ECECEC"
    dim_text: str = "#9AA0AA"
    head_1: str = "#56B4E9"        # head 1, "setting"
    head_2: str = "#E69F00"        # head 2, "person"
    wide_head: str = "#CC79A7"     # the one wide head of the control
    receiver: str = "#F0E442"      # the receiver token / query row
    source: str = "#FFFFFF"        # the source currently walked (outline + light fill)
    mask: str = "#3C414D"          # blocked (future) attention cells
    positive: str = "#009E73"
    negative: str = "#D55E00"
    gradient: str = "#E8455A"      # training's correction flowing back from the loss (red, apart from head 2's orange)
    bracket: str = "#C8CCD4"
    highlight_opacity: float = 0.22  # fill opacity of highlight boxes (text stays readable)


THEME = Theme()

BACKGROUND = THEME.background
TEXT_COLOR = THEME.text
DIM_TEXT_COLOR = THEME.dim_text
HEAD_COLORS = {1: THEME.head_1, 2: THEME.head_2}
WIDE_HEAD_COLOR = THEME.wide_head
RECEIVER_COLOR = THEME.receiver
SOURCE_COLOR = THEME.source
MASK_COLOR = THEME.mask
POSITIVE_COLOR = THEME.positive
NEGATIVE_COLOR = THEME.negative
GRADIENT_COLOR = THEME.gradient
BRACKET_COLOR = THEME.bracket
HIGHLIGHT_OPACITY = THEME.highlight_opacity


def head_color(index: int) -> str:
    """Colour of head 1 or 2 (anything else is the wide head)."""
    return HEAD_COLORS.get(index, WIDE_HEAD_COLOR)


def hex_rgb(color: str) -> tuple[int, int, int]:
    """'#56B4E9' -> (86, 180, 233): the one colour parser of the scenes."""
    c = str(color).lstrip("#")
    return tuple(int(c[k:k + 2], 16) for k in (0, 2, 4))


def rgb_hex(rgb) -> str:
    r, g, b = (int(round(float(c))) for c in rgb)
    return f"#{r:02X}{g:02X}{b:02X}"


def blend_colors(color: str, t: float, background: str = None) -> str:
    """`background` (default: the scene's) moved toward `color` by t in [0, 1]: heat-map cells."""
    import numpy as np

    bg = np.array(hex_rgb(background or THEME.background), dtype=float)
    fg = np.array(hex_rgb(color), dtype=float)
    t = float(np.clip(t, 0.0, 1.0))
    return rgb_hex(bg * (1 - t) + fg * t)


FONT = "DejaVu Sans"

# Font sizes (Manim font_size units). NUMBER=16 keeps three [10, 4] matrices side by side in 16:9.
TITLE_SIZE = 36
BODY_SIZE = 26
CAPTION_SIZE = 24
LABEL_SIZE = 18
NUMBER_SIZE = 16
SMALL_SIZE = 16

# The legibility floor: no text is drawn smaller than this, after any scaling (the harness checks
# every visible text at the end of every play). At the default render, 1280x720, a size-16 digit is
# 15 px tall and a head or token index (the ¹ of q¹, the ₁₀ of k₁₀) 8 px, the smallest a viewer can
# still read; at 854x480 the same indices were 5 px and a blind review could not read them.
MIN_TEXT_SIZE = 16
MIN_CAPTION_SIZE = 18

# Spacing (scene units; the frame is 14.22 × 8).
BUFF_SMALL = 0.1
BUFF = 0.25
BUFF_LARGE = 0.5
MARGIN = 0.4                                   # kept clear at every frame edge
FRAME_WIDTH = config.frame_width
FRAME_HEIGHT = config.frame_height
SAFE_WIDTH = FRAME_WIDTH - 2 * MARGIN          # widest anything may be
CAPTION_TOP = -FRAME_HEIGHT / 2 + 1.25         # captions live below this line
TITLE_BOTTOM = FRAME_HEIGHT / 2 - 0.85         # titles live above this line
CONTENT_TOP = TITLE_BOTTOM - 0.2
CONTENT_BOTTOM = CAPTION_TOP + 0.1
CONTENT_HEIGHT = CONTENT_TOP - CONTENT_BOTTOM
CONTENT_CENTER = (CONTENT_TOP + CONTENT_BOTTOM) / 2 * UP


# --------------------------------------------------------------------------------------------
# Unicode helpers: superscripts label heads, subscripts label tokens (no LaTeX).
# --------------------------------------------------------------------------------------------

_SUP = str.maketrans("0123456789+-=()abT", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ᵃᵇᵀ")
_SUB = str.maketrans("0123456789+-=()aeijo", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎ₐₑᵢⱼₒ")


def sup(x: object) -> str:
    """Superscript form of a head index: sup(1) -> '¹'."""
    return str(x).translate(_SUP)


def sub(x: object) -> str:
    """Subscript form of a token position: sub(10) -> '₁₀'."""
    return str(x).translate(_SUB)


_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
          "fifteen sixteen seventeen eighteen nineteen twenty").split()


def count_word(n: int) -> str:
    """A count as the notes write it: 10 -> 'ten' (digits above twenty)."""
    return _WORDS[n] if 0 <= n < len(_WORDS) else str(n)


# The lesson notes' rounding line (docs/lesson-notes.txt), one wording wherever rounded numbers are
# added on screen; a scene may append to it (what else the fine print must say there).
ROUNDING_NOTE = "All displayed numbers are rounded; calculations use full precision."
# ...and its caveat wherever keys and values are shown as equal (scenes 9 and 15)
SEPARATE_PARAMETERS_NOTE = ("Our hand-chosen worksheet gives W_K and W_V equal entries, but they remain separate "
                            "parameters with different roles.")


def join_words(words) -> str:
    """Words as a sentence lists them: 'a', 'a and b', 'a, b and c'."""
    words = list(words)
    return " and ".join(words) if len(words) <= 2 else ", ".join(words[:-1]) + " and " + words[-1]


def format_shape(shape) -> str:
    """A shape as the lesson writes it: (10, 4) -> '[10, 4]'."""
    return "[" + ", ".join(str(int(d)) for d in shape) + "]"


# --------------------------------------------------------------------------------------------
# Text and number builders
# --------------------------------------------------------------------------------------------


# Building a Text costs ~40 ms (Pango to SVG, SVG parse, paths to points) and copying one kept
# ~30 ms only because every glyph holds its parsed svgelements path. Glyph paths are dropped once the
# points exist, and each distinct (text, size, colour, options) is built once per process and copied
# after that (~5 ms): scenes repeat the same labels and numbers many times.
_TEXT_TEMPLATES: dict = {}


def _drop_svg_paths(text: Text) -> Text:
    """Forget what the SVG import leaves behind once the points exist, all of it copied on every
    animation (FadeIn/Transform copy their mobject) and never read again: the parsed svgelements
    path of every glyph, and the SVG's group index (id_to_vgroup_dict: one empty VGroup per SVG
    element, about three per glyph, read only by Tex and Typst, never by Text). What is drawn, the
    family and its points and colours, stays as it was (tests/test_text_templates.py)."""
    for m in text.get_family():
        if getattr(m, "path_obj", None) is not None:
            m.path_obj = None
        if getattr(m, "id_to_vgroup_dict", None):
            m.id_to_vgroup_dict = {}
    return text


def _template_key(*parts, **kwargs) -> tuple:
    return (*parts, repr(sorted(kwargs.items())))


def get_text(text: str, font_size: float = BODY_SIZE, color: str = TEXT_COLOR, **kwargs) -> Text:
    """Plain lesson text in the theme font (ligatures off: one glyph per non-space character)."""
    kwargs.setdefault("disable_ligatures", True)
    key = _template_key(Text, text, float(font_size), str(color), **kwargs)
    template = _TEXT_TEMPLATES.get(key)
    if template is None:
        template = _TEXT_TEMPLATES[key] = _drop_svg_paths(
            Text(text, font=FONT, font_size=font_size, color=color, **kwargs))
        template.base_extent = max(template.width, template.height)   # for the legibility floor
    return template.copy()


class NumberText(Text):
    """A number on screen: shows fmt(value, places) and keeps the full-precision value.

    Attributes: `value` (float, unrounded), `places`, `shown` (the exact string displayed),
    `tag` (what it is, e.g. "E" or "q1") and `index` (its position in that array, or None).
    Animate numbers with ReplacementTransform/FadeTransform, never Transform: Transform would
    draw another number's glyphs on this object while `value` stays the old one.
    Build them with `make` (or `get_number`): same glyphs, built once and copied.
    """

    rule = staticmethod(fmt)        # the display rule; a subclass may name another one

    def __init__(self, value: float, places: int = PLACES, *, tag: str | None = None,
                 index=None, font_size: float = NUMBER_SIZE, color: str = TEXT_COLOR, **kwargs):
        self._set_number(value, places, tag, index)
        kwargs.setdefault("disable_ligatures", True)
        super().__init__(self.shown, font=FONT, font_size=font_size, color=color, **kwargs)
        _drop_svg_paths(self)
        self.base_extent = max(self.width, self.height)   # for the legibility floor

    def _set_number(self, value, places, tag, index) -> None:
        self.value = float(value)
        self.places = int(places)
        self.shown = self.rule(self.value, self.places)
        self.tag = tag
        self.index = index

    @classmethod
    def make(cls, value: float, places: int = PLACES, *, tag: str | None = None, index=None,
             font_size: float = NUMBER_SIZE, color: str = TEXT_COLOR, **kwargs):
        """Like the constructor, but numbers that look alike share one template's glyphs."""
        shown = cls.rule(float(value), int(places))
        key = _template_key(cls, shown, float(font_size), str(color), **kwargs)
        template = _TEXT_TEMPLATES.get(key)
        if template is None:
            template = _TEXT_TEMPLATES[key] = cls(value, places, font_size=font_size, color=color, **kwargs)
        number = template.copy()
        number._set_number(value, places, tag, index)
        return number


class CountText(NumberText):
    """A whole number on screen with thousands separators (display.fmt_int: 2332832 -> "2,332,832"):
    the same NumberText, with `.value` the exact integer it shows."""

    rule = staticmethod(lambda value, places=0: fmt_int(value))

    def __init__(self, value, places: int = 0, **kwargs):
        if int(value) != value:
            raise ValueError(f"a count must be a whole number, got {value!r}")
        super().__init__(int(value), 0, **kwargs)


def get_count(value: int, *, tag: str | None = None, index=None, font_size: float = NUMBER_SIZE,
              color: str = TEXT_COLOR, **kwargs) -> CountText:
    """A count (parameters, tokens, scalars) through the display rule for whole numbers."""
    if int(value) != value:
        raise ValueError(f"a count must be a whole number, got {value!r}")
    return CountText.make(int(value), 0, tag=tag, index=index, font_size=font_size, color=color, **kwargs)


def get_number(value: float, places: int = PLACES, *, tag: str | None = None, index=None,
               font_size: float = NUMBER_SIZE, color: str = TEXT_COLOR, **kwargs) -> NumberText:
    """A Text showing lesson_data.display.fmt(value) with `.value` = the full-precision float."""
    return NumberText.make(value, places, tag=tag, index=index, font_size=font_size, color=color, **kwargs)


_BASELINE_GLYPHS = set("abcdefhiklmnorstuvwxzABCDEFGHIJKLMNOPRSTUVWXYZ0123456789")


def baseline_y(text: Text) -> float:
    """y of the text's baseline: the bottom of its glyphs that sit on the line (no descenders).

    With ligatures off (as get_text/get_number set them), Text keeps one submobject per character
    of its string, spaces included, so characters and glyphs pair up by index.
    """
    chars = text.original_text
    if len(chars) == len(text.submobjects):
        bottoms = [g.get_bottom()[1] for c, g in zip(chars, text.submobjects) if c in _BASELINE_GLYPHS]
        if bottoms:
            return min(bottoms)
    return text.get_bottom()[1]


def align_baseline(text: Text, y: float) -> Text:
    """Shift `text` vertically so its baseline is at `y` (words with descenders line up with digits)."""
    return text.shift(UP * (y - baseline_y(text)))


def get_title(text: str, font_size: float = TITLE_SIZE, color: str = TEXT_COLOR) -> Text:
    """A scene title at the top edge, shrunk if it would not fit the safe width."""
    title = get_text(text, font_size=font_size, color=color)
    if title.width > SAFE_WIDTH:
        title.scale_to_fit_width(SAFE_WIDTH)
    title.furniture = True      # the frame around the picture, not the picture (tests' stage check)
    return title.to_edge(UP, buff=MARGIN)


_WIDTHS: dict = {}
_METRICS: dict = {}


def _font_metrics():
    """(Pillow font at 100 px, scene units per font unit per point) for the theme font, or None
    where fontconfig or the font file is missing. Measuring a word with the font's own advances
    costs microseconds; setting it as a Text costs tens of milliseconds."""
    if "font" not in _METRICS:
        _METRICS["font"] = None
        try:
            import subprocess

            from PIL import ImageFont

            path = subprocess.run(["fc-match", "-f", "%{file}", FONT], capture_output=True, text=True,
                                  timeout=10).stdout.strip()
            font = ImageFont.truetype(path, 100)
            # short and small: Pango wraps a line wider than the frame's pixels on its own, which at
            # a low resolution (the test harness) would shrink a long sample
            sample = "Every source contributes, the receiver too."
            scale = Text(sample, font=FONT, font_size=24).width / font.getlength(sample) / 24
            _METRICS["font"] = (font, scale)
        except Exception:  # no fontconfig or no Pillow font: measure with Text instead
            pass
    return _METRICS["font"]


def text_width(text: str, font_size: float) -> float:
    """Width of `text` set on one line at `font_size`: from the font's advance widths (a hair wider
    than the glyphs' ink, so a line measured to fit does fit), else from a Text of it."""
    key = (text, float(font_size))
    if key not in _WIDTHS:
        metrics = _font_metrics()
        if metrics is not None:
            font, scale = metrics
            _WIDTHS[key] = font.getlength(text) * scale * float(font_size)
        else:
            _WIDTHS[key] = get_text(text, font_size=font_size).width
    return _WIDTHS[key]


def wrap_lines(text: str, font_size: float = CAPTION_SIZE, max_width: float = SAFE_WIDTH) -> list[str]:
    """Split `text` into lines that each fit max_width at font_size.

    Measured word by word (a word's glyphs, plus one space's advance between words), never by
    setting the whole sentence on one line: Pango wraps a line that is wider than the frame on its
    own, which would hide where a long sentence really ends.
    """
    words = text.split()
    if not words:
        return [text]
    space = text_width("M M", font_size) - 2 * text_width("M", font_size)   # one space's advance
    lines, current, width = [], [], 0.0
    for word in words:
        w = text_width(word, font_size)
        grown = w if not current else width + space + w
        if current and grown > max_width:
            lines.append(" ".join(current))
            current, width = [word], w
        else:
            current.append(word)
            width = grown
    lines.append(" ".join(current))
    return lines


CAPTION_ZONE_HEIGHT = CAPTION_TOP + FRAME_HEIGHT / 2 - 0.15    # room for a caption below the content


def get_caption(text: str, font_size: float = CAPTION_SIZE, color: str = TEXT_COLOR,
                max_lines: int = 3) -> Text:
    """A bottom caption: wrapped to the 16:9 safe width, at most `max_lines` lines, inside the
    caption zone; a size smaller only where the sentence needs it, never below MIN_CAPTION_SIZE
    (a sentence that still does not fit is an error: split it into two beats)."""
    while True:
        lines = wrap_lines(text, font_size)
        caption = get_text("\n".join(lines), font_size=font_size, color=color, line_spacing=0.8)
        fits = (len(lines) <= max_lines and caption.height <= CAPTION_ZONE_HEIGHT
                and caption.width <= SAFE_WIDTH)
        if fits or font_size <= MIN_CAPTION_SIZE:
            break
        font_size -= 2
    if not fits:
        raise ValueError(f"caption does not fit {max_lines} lines at size {MIN_CAPTION_SIZE}: {text!r}; "
                         "split it into two beats")
    caption.sentence = text  # the unwrapped sentence, for subtitles and tests
    caption.move_to((CAPTION_TOP + (-FRAME_HEIGHT / 2)) / 2 * UP)
    return caption


FINE_PRINT_SIZE = MIN_TEXT_SIZE


def get_fine_print(text: str, max_width: float = SAFE_WIDTH, font_size: float = FINE_PRINT_SIZE,
                   color: str = DIM_TEXT_COLOR) -> Text:
    """The notes' caveat in their own words, small and dim but legible (never below the floor):
    what the picture must not be taken to claim. Wrapped to `max_width`; the scene places it."""
    lines = wrap_lines(text, font_size, max_width)
    note = get_text("\n".join(lines), font_size=font_size, color=color, line_spacing=0.8)
    if note.width > max_width:      # a measured line came out a hair wider: wrap a little tighter
        lines = wrap_lines(text, font_size, max_width * 0.95)
        note = get_text("\n".join(lines), font_size=font_size, color=color, line_spacing=0.8)
    note.sentence = text
    note.furniture = True       # a caveat beside the picture, not the picture
    return note


# --------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------


def scene_worksheet():
    """The worksheet for the sentence chosen by LESSON_SENTENCE (default "river")."""
    from lesson_data.worksheet import compute_worksheet, sentence_from_env

    return compute_worksheet(sentence_from_env())


# --------------------------------------------------------------------------------------------
# The base scene
# --------------------------------------------------------------------------------------------


@dataclass
class Beat:
    """One spoken sentence (or two short ones) and everything that illustrates it."""

    id: str                 # "<SceneClass>-NN": the name of its recording in a recordings folder
    text: str               # what the screen writes (caption, subtitle)
    spoken: str             # what the voice says
    start: float            # scene seconds
    end: float = math.nan
    speech_start: float = math.nan
    speech_end: float = math.nan
    audio: str = ""         # the sound file placed at speech_start
    source: str = ""        # "piper" | "none" | "recording"
    new_numbers: int = 0    # numbers newly on screen during the beat
    look: float = 0.0       # seconds held after the speech (and the picture) finished

    def as_dict(self) -> dict:
        return {k: (round(v, 6) if isinstance(v, float) else v) for k, v in self.__dict__.items()}


@dataclass
class Transition:
    """A change that belongs to no sentence (clearing the stage between shots)."""

    name: str
    start: float
    end: float = math.nan


def _parts_on_stage(group, on_stage: set) -> list:
    """The largest parts of `group` that are on the stage: the group itself, or (for a group made on
    the spot around parts added one by one) its parts. A FadeOut must be given what the scene holds:
    removing a group it does not hold removes nothing, and the faded parts come back."""
    if id(group) in on_stage:
        return [group]
    return [part for sub in group.submobjects for part in _parts_on_stage(sub, on_stage)]


def _leaving_parts(mobject, kept: set) -> list:
    """The largest parts of `mobject` that hold nothing kept (ids in `kept`): the mobject itself, or,
    for a group with a kept part inside, its other parts."""
    if not any(id(m) in kept for m in mobject.get_family()):
        return [mobject]
    return [part for sub in mobject.submobjects for part in _leaving_parts(sub, kept)]


class LessonScene(VoiceoverScene):
    """Scene with the lesson's background, shots, and narration in beats.

    - `shot(name)`: start a new section (one per shot; the pipeline can cut on them).
    - `with self.beat(text, spoken=None, look=None):` one spoken sentence and the animations that
      illustrate it, played inside the `with`. The caption fades in as the voice starts; after the
      speech (and the animations) the beat holds for the viewer to look — longer when it newly
      showed many numbers — then the caption fades out. Nothing of the next sentence starts before
      it. `spoken` replaces `text` as what the voice reads (still through narration.spoken, so its
      numbers and symbols are read as everywhere else).
    - `with self.transition(name):` a change that belongs to no sentence.
    - `clear_stage(*keep)`: everything but `keep` fades out as the next beat's picture arrives;
      `give_way(*mobjects)` the same for some pictures only.
    """

    # Look time after the speech, by how many numbers the beat newly showed (docs/NARRATION.md: number-
    # dense screens, 20 numbers or more, get at least 2 s).
    NUMBER_DENSE = 20
    DENSE_LOOK_S = 2.0
    SOME_NUMBERS = 8
    SOME_LOOK_S = 1.0
    PAUSE_S = 0.35              # the breath between two sentences
    CAPTION_FADE_S = 0.25       # the caption fades in as the voice starts...
    CAPTION_OUT_S = 0.08        # ...and leaves quickly at the beat's end: a frame 0.1 s before a
                                # cue ends still shows the whole caption (../tools/cue_frames.py)
    MIN_BEAT_S = 1.2

    def setup(self):
        super().setup()
        self.camera.background_color = ManimColor(BACKGROUND)
        self.voice = voice_from_env()
        self.set_speech_service(LessonSpeechService(self.voice), create_subcaption=False)
        self.current_caption: Text | None = None
        self.beats: list[Beat] = []
        self.transitions: list[Transition] = []
        self.stage: Beat | Transition | None = None    # what the current play belongs to
        self.giving_way: list = []      # clear_stage's leavers, waiting for the next picture
        self.named_words: set = set()   # quoted words the voice has introduced ("the word river")

    # shots -----------------------------------------------------------------------------------
    def shot(self, name: str) -> None:
        self.next_section(name)

    # beats -----------------------------------------------------------------------------------
    def _visible_numbers(self) -> set[int]:
        return {id(m) for top in self.mobjects for m in top.get_family()
                if isinstance(m, NumberText) and m.get_fill_opacity() > 0.05}

    @contextmanager
    def beat(self, text: str, *, spoken: str | None = None, look: float | None = None,
             caption: bool = True, id: str | None = None):
        if self.stage is not None:
            raise RuntimeError(f"beat {text[:40]!r} starts inside {self.stage!r}: beats do not nest")
        beat = Beat(id=id or f"{type(self).__name__}-{len(self.beats) + 1:02d}", text=" ".join(text.split()),
                    spoken=spoken_form(spoken if spoken is not None else text, named=self.named_words),
                    start=self.time)
        self.stage = beat
        before = self._visible_numbers()
        with self.voiceover(text=beat.spoken, beat_id=beat.id) as tracker:
            beat.speech_start, beat.speech_end = tracker.start_t, tracker.end_t
            beat.audio = tracker.data["final_audio"]
            beat.source = tracker.data["input_data"]["service"]
            if caption:
                self.current_caption = get_caption(beat.text)
                self.play(FadeIn(self.current_caption), run_time=self.CAPTION_FADE_S)
            yield beat
        beat.new_numbers = len(self._visible_numbers() - before)
        looking = (self.DENSE_LOOK_S if beat.new_numbers >= self.NUMBER_DENSE
                   else self.SOME_LOOK_S if beat.new_numbers >= self.SOME_NUMBERS else self.PAUSE_S)
        beat.look = max(looking, look or 0.0)
        tail = self.CAPTION_OUT_S if self.current_caption is not None else 0.0
        hold = max(beat.look, beat.start + self.MIN_BEAT_S - tail - self.time)
        self.wait(hold)
        if self.current_caption is not None:
            self.play(FadeOut(self.current_caption), run_time=self.CAPTION_OUT_S)
            self.current_caption = None
        beat.end = self.time
        self.add_subcaption(beat.text, duration=beat.end - beat.start, offset=beat.start - beat.end)
        self.beats.append(beat)
        self.stage = None

    @contextmanager
    def transition(self, name: str):
        if self.stage is not None:
            raise RuntimeError(f"transition {name!r} starts inside {self.stage!r}")
        step = Transition(name, self.time)
        self.stage = step
        yield step
        step.end = self.time
        self.transitions.append(step)
        self.stage = None

    def clear_stage(self, *keep) -> None:
        """Everything on screen but `keep` gives way to the next picture (see give_way). A kept part
        inside a group on stage stays, and the group's other parts go."""
        kept = {id(m) for k in keep for m in k.get_family()}
        self.give_way(*(part for m in self.mobjects if m is not self.current_caption
                        for part in _leaving_parts(m, kept)
                        if any(sub.has_points() for sub in part.get_family())))   # not the empty helpers

    def stand_in(self, mobject):
        """A copy of `mobject`, put on stage in its place (however its parts came there), to be
        transformed away: the original stays as it was built, for the beats (and tests) that read it."""
        copy = mobject.copy()
        self.remove(*mobject.get_family())
        self.add(copy)
        return copy

    def give_way(self, *mobjects) -> None:
        """These leave as the next picture arrives: they fade out in the next beat's first play that
        brings something in, so the stage is never blank between two shots (docs/VISUALS.md:
        objects live on and change by motion). A group made on the spot fades with its parts."""
        self.giving_way.extend(mobjects)

    def play(self, *animations, **kwargs):
        if self.giving_way and isinstance(self.stage, Beat) and self._brings_picture(animations):
            # what this play animates stays (a transform takes it over); the rest leaves with it
            moving = {id(m) for a in animations for m in getattr(a, "mobject", VGroup()).get_family()}
            leaving, self.giving_way = self.giving_way, []
            on_stage = {id(m) for top in self.mobjects for m in top.get_family()}
            fades = [FadeOut(m) for group in leaving for m in _parts_on_stage(group, on_stage)
                     if id(m) not in moving]
            animations = (*fades, *animations)
        return super().play(*animations, **kwargs)

    def _brings_picture(self, animations) -> bool:
        """Something that is not a wait, a fade-out or the caption's own fade."""
        return any(not isinstance(a, (Wait, FadeOut)) and getattr(a, "mobject", None) is not self.current_caption
                   for a in animations)

    def tear_down(self):
        super().tear_down()
        writer = self.renderer.file_writer
        # The sound track lasts as long as the picture: the stitched chapters join scenes end to end.
        if getattr(writer, "includes_sound", False):
            from pydub import AudioSegment

            writer.add_audio_segment(AudioSegment.silent(0, frame_rate=SAMPLE_RATE), time=self.time)
        movie = getattr(writer, "movie_file_path", None)
        if movie is not None and not config.dry_run:
            beats = {"scene": type(self).__name__, "voice": self.voice.label, "duration": round(self.time, 6),
                     "beats": [b.as_dict() for b in self.beats],
                     "transitions": [t.__dict__ for t in self.transitions]}
            path = Path(movie).with_suffix(".beats.json")
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".partial")
            tmp.write_text(json.dumps(beats, indent=2) + "\n", encoding="utf-8")
            os.replace(tmp, path)


__all__ = [
    "THEME", "Theme", "BACKGROUND", "TEXT_COLOR", "DIM_TEXT_COLOR", "HEAD_COLORS", "head_color",
    "hex_rgb", "rgb_hex", "blend_colors", "WIDE_HEAD_COLOR", "RECEIVER_COLOR", "SOURCE_COLOR", "MASK_COLOR", "POSITIVE_COLOR",
    "NEGATIVE_COLOR", "GRADIENT_COLOR", "BRACKET_COLOR", "HIGHLIGHT_OPACITY", "FONT", "TITLE_SIZE", "BODY_SIZE",
    "ROUNDING_NOTE", "SEPARATE_PARAMETERS_NOTE", "join_words", "CAPTION_SIZE", "LABEL_SIZE", "NUMBER_SIZE", "SMALL_SIZE", "MIN_TEXT_SIZE", "MIN_CAPTION_SIZE", "BUFF_SMALL", "BUFF", "BUFF_LARGE",
    "MARGIN", "count_word", "FRAME_WIDTH", "FRAME_HEIGHT", "SAFE_WIDTH", "CAPTION_TOP", "TITLE_BOTTOM",
    "CONTENT_TOP", "CONTENT_BOTTOM", "CONTENT_HEIGHT", "CONTENT_CENTER", "sup", "sub",
    "format_shape", "baseline_y", "align_baseline", "get_text", "NumberText", "CountText", "get_count", "get_number", "get_title", "wrap_lines",
    "get_caption", "get_fine_print", "FINE_PRINT_SIZE", "scene_worksheet", "LessonScene", "Beat", "Transition",
    "PLACES", "fmt",
]
