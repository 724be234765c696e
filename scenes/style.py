"""The lesson's shared look: one declarative theme, text/number builders and the LessonScene base.

Every scene imports from here so colours, fonts and the number display rule live in one place.
Numbers are only ever shown through `get_number`, which formats with `lesson_data.display.fmt`
(the ONE rounding rule) and keeps the full-precision value on the mobject for tests.
No LaTeX anywhere: Text/MarkupText in DejaVu Sans only.
"""
from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass

from manim import (
    UP,
    FadeIn,
    FadeOut,
    ManimColor,
    Scene,
    Text,
    config,
)

from lesson_data.display import PLACES, fmt

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
BRACKET_COLOR = THEME.bracket
HIGHLIGHT_OPACITY = THEME.highlight_opacity


def head_color(index: int) -> str:
    """Colour of head 1 or 2 (anything else is the wide head)."""
    return HEAD_COLORS.get(index, WIDE_HEAD_COLOR)


FONT = "DejaVu Sans"

# Font sizes (Manim font_size units). NUMBER=16 keeps three [10, 4] matrices side by side in 16:9.
TITLE_SIZE = 36
BODY_SIZE = 26
CAPTION_SIZE = 24
LABEL_SIZE = 18
NUMBER_SIZE = 16
SMALL_SIZE = 14

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

# Reading pace for subcaptions and waits: a learner reading a new sentence while looking at numbers.
WORDS_PER_SECOND = 3.2
MIN_READ_SECONDS = 1.5

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
    """Forget the parsed SVG path of every glyph: used only to make the points, copied on every
    animation (FadeIn/Transform copy their mobject) and never read again."""
    for m in text.get_family():
        if getattr(m, "path_obj", None) is not None:
            m.path_obj = None
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
    return title.to_edge(UP, buff=MARGIN)


def wrap_lines(text: str, font_size: float = CAPTION_SIZE, max_width: float = SAFE_WIDTH) -> list[str]:
    """Split `text` into lines that each fit max_width at font_size.

    Measured, not guessed: the sentence is set once on one line and each word's glyphs give
    its extent (ligatures off: one submobject per character, spaces included).
    """
    full = get_text(text, font_size=font_size)
    if full.width <= max_width:
        return [text]
    glyphs = full.submobjects
    if len(glyphs) != len(text):  # unexpected layout: fall back to one measurement per line
        return _wrap_by_measuring(text, font_size, max_width)
    spans = [(m.start(), m.end() - 1) for m in re.finditer(r"\S+", text)]
    words = [text[a:b + 1] for a, b in spans]
    lines, start = [], 0
    for end in range(len(words)):
        width = glyphs[spans[end][1]].get_right()[0] - glyphs[spans[start][0]].get_left()[0]
        if width > max_width and end > start:
            lines.append(" ".join(words[start:end]))
            start = end
    lines.append(" ".join(words[start:]))
    return lines


def _wrap_by_measuring(text: str, font_size: float, max_width: float) -> list[str]:
    full = get_text(text, font_size=font_size)
    chars = max(8, int(len(text) * max_width / full.width))
    while True:
        lines = textwrap.wrap(text, width=chars, break_long_words=False)
        if all(get_text(line, font_size=font_size).width <= max_width for line in lines) or chars <= 8:
            return lines
        chars -= 2


def get_caption(text: str, font_size: float = CAPTION_SIZE, color: str = TEXT_COLOR,
                max_lines: int = 3) -> Text:
    """A bottom caption: wrapped to the 16:9 safe width, at most `max_lines` lines, above the edge."""
    lines = wrap_lines(text, font_size)
    while len(lines) > max_lines and font_size > SMALL_SIZE:
        font_size -= 2
        lines = wrap_lines(text, font_size)
    caption = get_text("\n".join(lines), font_size=font_size, color=color, line_spacing=0.8)
    caption.sentence = text  # the unwrapped sentence, for subtitles and tests
    if caption.width > SAFE_WIDTH:
        caption.scale_to_fit_width(SAFE_WIDTH)
    if caption.height > CAPTION_TOP + FRAME_HEIGHT / 2 - 0.2:
        caption.scale_to_fit_height(CAPTION_TOP + FRAME_HEIGHT / 2 - 0.2)
    caption.move_to((CAPTION_TOP + (-FRAME_HEIGHT / 2)) / 2 * UP)
    return caption


def fit_content(mobject, width: float = SAFE_WIDTH, height: float = CONTENT_HEIGHT, center=True):
    """Scale `mobject` down (never up) to fit the content zone between title and caption."""
    factor = min(1.0, width / max(mobject.width, 1e-9), height / max(mobject.height, 1e-9))
    if factor < 1.0:
        mobject.scale(factor)
    if center:
        mobject.move_to(CONTENT_CENTER)
    return mobject


def reading_time(text: str) -> float:
    """Seconds a learner needs to read `text` (about 3.2 words a second, at least 1.5 s)."""
    words = len(text.split())
    return max(MIN_READ_SECONDS, 0.6 + words / WORDS_PER_SECOND)


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


class LessonScene(Scene):
    """Scene with the lesson's background, shots, subtitles and bottom captions.

    - `shot(name)`: start a new section (one per shot; the pipeline can cut on them).
    - `say(text)`: add `text` as a subtitle (.srt) lasting its reading time; subtitles queue one
      after another, never overlapping. Returns the duration.
    - `caption(text)`: show `text` as the on-screen bottom caption (replacing the previous one)
      and, by default, also `say` it.
    - `finish_reading(extra=0)`: wait until everything said so far has had its reading time.
    """

    def setup(self):
        super().setup()
        self.camera.background_color = ManimColor(BACKGROUND)
        self.current_caption: Text | None = None
        self._reading_until = 0.0

    # shots -----------------------------------------------------------------------------------
    def shot(self, name: str) -> None:
        self.next_section(name)

    # narration -------------------------------------------------------------------------------
    def say(self, text: str) -> float:
        duration = reading_time(text)
        start = max(self.time, self._reading_until)
        self.add_subcaption(text, duration=duration, offset=start - self.time)
        self._reading_until = start + duration
        return duration

    def caption(self, text: str, *, say: bool = True, run_time: float = 0.5) -> Text:
        if say:
            self.finish_reading()  # the previous caption stays until it has been read
        new = get_caption(text)
        if self.current_caption is not None:
            self.play(FadeOut(self.current_caption), FadeIn(new), run_time=run_time)
        else:
            self.play(FadeIn(new), run_time=run_time)
        self.current_caption = new
        if say:
            self.say(text)
        return new

    def clear_caption(self, run_time: float = 0.4) -> None:
        if self.current_caption is not None:
            self.finish_reading()
            self.play(FadeOut(self.current_caption), run_time=run_time)
            self.current_caption = None

    def finish_reading(self, extra: float = 0.0) -> None:
        remaining = self._reading_until + extra - self.time
        if remaining > 1e-3:
            self.wait(remaining)


__all__ = [
    "THEME", "Theme", "BACKGROUND", "TEXT_COLOR", "DIM_TEXT_COLOR", "HEAD_COLORS", "head_color",
    "WIDE_HEAD_COLOR", "RECEIVER_COLOR", "SOURCE_COLOR", "MASK_COLOR", "POSITIVE_COLOR",
    "NEGATIVE_COLOR", "BRACKET_COLOR", "HIGHLIGHT_OPACITY", "FONT", "TITLE_SIZE", "BODY_SIZE",
    "CAPTION_SIZE", "LABEL_SIZE", "NUMBER_SIZE", "SMALL_SIZE", "BUFF_SMALL", "BUFF", "BUFF_LARGE",
    "MARGIN", "count_word", "FRAME_WIDTH", "FRAME_HEIGHT", "SAFE_WIDTH", "CAPTION_TOP", "TITLE_BOTTOM",
    "CONTENT_TOP", "CONTENT_BOTTOM", "CONTENT_HEIGHT", "CONTENT_CENTER", "sup", "sub",
    "format_shape", "baseline_y", "align_baseline", "get_text", "NumberText", "get_number", "get_title", "wrap_lines",
    "get_caption", "fit_content", "reading_time", "scene_worksheet", "LessonScene", "PLACES", "fmt",
]
