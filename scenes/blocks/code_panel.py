"""Code on screen: monospace lines (plain Text in DejaVu Sans Mono, no Code object, no LaTeX), each
line its own Text so a beat can point at the line it talks about, `# comments` dimmed and aligned
in one column, indentation kept, an optional rounded frame.

    panel = get_code_panel([
        "mha = nn.MultiheadAttention(",
        ("    embed_dim=4, num_heads=2, bias=False)", "# no projection biases"),
    ])
    panel.line(1)                    # the Text of line 1 (zero-based)
    panel.get_line_box(1)            # a highlight bar behind line 1, across the panel
    panel.find("bias=False")         # index of the first line containing the text
"""
from __future__ import annotations

from manim import LEFT, UP, Rectangle, RoundedRectangle, Text, VGroup

from scenes.style import BACKGROUND, DIM_TEXT_COLOR, HIGHLIGHT_OPACITY, RECEIVER_COLOR, TEXT_COLOR, baseline_y

MONO_FONT = "DejaVu Sans Mono"
CODE_SIZE = 18

_ADVANCE: dict = {}


def mono_advance(font_size: float) -> float:
    """The width of one character cell of the monospace face at `font_size` (scene units)."""
    if font_size not in _ADVANCE:
        one = get_mono("M", font_size)
        many = get_mono("M" * 21, font_size)
        _ADVANCE[font_size] = (many.width - one.width) / 20
    return _ADVANCE[font_size]


_TEMPLATES: dict = {}


def get_mono(text: str, font_size: float = CODE_SIZE, color: str = TEXT_COLOR, t2c=None) -> Text:
    """One line (or identifier) in the code face; `base_extent` set for the legibility floor. Each
    distinct line is set once per process and copied after that (setting a Text is the slow part)."""
    key = (text, float(font_size), str(color), tuple(sorted((t2c or {}).items())))
    template = _TEMPLATES.get(key)
    if template is None:
        template = Text(text, font=MONO_FONT, font_size=font_size, color=color, t2c=t2c or {},
                        disable_ligatures=True)
        for m in template.get_family():          # the parsed SVG paths are never read again
            if getattr(m, "path_obj", None) is not None:
                m.path_obj = None
        template.base_extent = max(template.width, template.height)
        _TEMPLATES[key] = template
    return template.copy()


class CodePanel(VGroup):
    """Built by get_code_panel. Parts: `lines` (one Text per source line; an empty line is an empty
    VGroup), `source` (the lines as written), `frame` (RoundedRectangle or empty), `anchor` (the
    text block's extent), `pitch`."""

    def line(self, k: int):
        return self.lines[k]

    def find(self, text: str) -> int:
        for k, line in enumerate(self.source):
            if text in line:
                return k
        raise KeyError(text)

    @property
    def pitch(self) -> float:
        """Distance between two lines' baselines (follows the panel when it is scaled)."""
        return self.anchor.height / len(self.source)

    def get_line_box(self, k: int, color: str = RECEIVER_COLOR, opacity: float = HIGHLIGHT_OPACITY) -> Rectangle:
        """A bar behind line k, as wide as the panel's text block."""
        width = self.anchor.width + 0.2
        bar = Rectangle(width=width, height=self.pitch * 0.95).set_stroke(color, 1.5).set_fill(color, opacity)
        return bar.move_to([self.anchor.get_x(), self.line_y(k), 0])

    def line_y(self, k: int) -> float:
        return self.anchor.get_top()[1] - (k + 0.5) * self.pitch


def get_code_panel(lines, *, font_size: float = CODE_SIZE, color: str = TEXT_COLOR,
                   comment_color: str = DIM_TEXT_COLOR, line_spacing: float = 1.45, frame: bool = True,
                   frame_color: str = DIM_TEXT_COLOR, buff: float = 0.22) -> CodePanel:
    """lines: strings, or (code, comment) pairs whose comments line up in one column."""
    pairs = [(line, "") if isinstance(line, str) else tuple(line) for line in lines]
    column = max((len(code) for code, comment in pairs if comment), default=0) + 2
    source = [(code.ljust(column) + comment).rstrip() if comment else code for code, comment in pairs]
    advance = mono_advance(font_size)
    ref = get_mono("Mg", font_size)
    pitch = ref.height * line_spacing
    panel = CodePanel()
    panel.source = source
    texts = VGroup()
    for k, text in enumerate(source):
        stripped = text.lstrip(" ")
        if not stripped:
            texts.add(VGroup())
            continue
        comment_at = stripped.find("#")
        t2c = {stripped[comment_at:]: comment_color} if comment_at >= 0 else None
        t = get_mono(stripped, font_size, color, t2c)
        indent = len(text) - len(stripped)
        # every line on its own baseline row; the first glyph at its column
        t.move_to([indent * advance, -(k + 0.5) * pitch, 0], aligned_edge=LEFT)
        m_ref = get_mono("M", font_size).move_to([0, -(k + 0.5) * pitch, 0])
        t.shift(UP * (m_ref.get_bottom()[1] - baseline_y(t)))
        texts.add(t)
    panel.lines = texts
    block = VGroup(*(t for t in texts if len(t.submobjects)))
    # invisible: the text block's extent, one pitch per line (line_y and the bars read it)
    anchor = Rectangle(width=max(block.get_right()[0], 0.1), height=pitch * len(source)).set_stroke(width=0)
    anchor.set_fill(opacity=0).move_to([block.get_right()[0] / 2, -pitch * len(source) / 2, 0])
    panel.anchor = anchor
    panel.add(anchor, texts)
    panel.frame = VGroup()
    if frame:
        box = RoundedRectangle(corner_radius=0.12, width=anchor.width + 2 * buff, height=anchor.height + 2 * buff)
        box.set_stroke(frame_color, 1.5).set_fill(BACKGROUND, 0).move_to(anchor)
        panel.frame = box
        panel.add_to_back(box)
    return panel


__all__ = ["CodePanel", "get_code_panel", "get_mono", "mono_advance", "MONO_FONT", "CODE_SIZE"]
