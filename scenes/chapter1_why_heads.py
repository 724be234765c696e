"""Chapter 1, scenes 1–4: why several heads?

The word-only examples (coat, dogs near the gate, Ravi's glass), their ILLUSTRATIVE weights and value
rows come from `lesson_data.word_examples`; the numbers of scene 4 from
`lesson_data.worksheet.two_source_illustration`. Attention is drawn as arrows from each source word
to the receiver whose width is the weight (`scenes.blocks.attention_arrows`), and what a head carries
as a message slot beside the receiver filled by scaled copies of the values
(`scenes.blocks.message_slot`). The notes' caveats (docs/lesson-notes.txt, paragraphs 1–6) appear as
fine print in their own words; the general caveat is spoken once (scene 1) and then carried by a
badge, the arrows note once (scene 1) and then carried by the legend.

Colours: "one head" (a single head doing all the work) is the one-head colour in scenes 1 and 4
(the wide head's colour of chapter 2); heads 1, 2 and 3 of a multi-head picture keep their colours
through the chapter; words that no head relies on are drawn in grey, never in a head's colour.

    manim -pql scenes/chapter1_why_heads.py ThreeHeadsSevenRows
    manim -pql scenes/chapter1_why_heads.py TheReceiver
    manim -pql scenes/chapter1_why_heads.py ParallelHeads
    manim -pql scenes/chapter1_why_heads.py OneSharedWeight
"""
from __future__ import annotations

import numpy as np
from manim import (
    AnimationGroup,
    Circumscribe,
    CubicBezier,
    DOWN,
    LEFT,
    PI,
    RIGHT,
    UP,
    ArcBetweenPoints,
    Create,
    DashedVMobject,
    FadeIn,
    FadeTransform,
    FadeOut,
    Indicate,
    LaggedStart,
    MoveToTarget,
    Line,
    MoveAlongPath,
    ReplacementTransform,
    Rectangle,
    ShowPassingFlash,
    Succession,
    RoundedRectangle,
    Square,
    SurroundingRectangle,
    Text,
    Transform,
    TransformFromCopy,
    VGroup,
)

from lesson_data.display import fmt, places_for
from lesson_data.word_examples import (
    COAT,
    EVENT_AND_REFERENCE,
    OVERLAPPING_HEADS,
    SUBJECT_AGREEMENT,
    SUBSTITUTION,
    WordExample,
    contributions,
    even_weights,
    head_values,
    matches,
    slice_contributions,
)
from lesson_data.worksheet import SENTENCES, two_source_illustration
from scenes.blocks.attention_arrows import (TokenRow, arrow_opacity, arrow_stroke, get_attention_arrows, get_label_pill,
                                            get_token_row, path_along, place_weight_label)
from scenes.blocks.flow_arrow import get_arrow
from scenes.blocks.labeled_matrix import get_brackets, get_row_vector
from scenes.blocks.message_slot import BAR_OPACITY, get_message_flow, get_message_slot, get_value_chip
from scenes.blocks.weight_share import get_weight_share
from scenes.style import (
    BODY_SIZE,
    CONTENT_BOTTOM,
    CONTENT_TOP,
    DIM_TEXT_COLOR,
    GRADIENT_COLOR,
    HIGHLIGHT_OPACITY,
    LABEL_SIZE,
    MIN_TEXT_SIZE,
    NEGATIVE_COLOR,
    NUMBER_SIZE,
    RECEIVER_COLOR,
    SAFE_WIDTH,
    SOURCE_COLOR,
    TEXT_COLOR,
    THEME,
    WIDE_HEAD_COLOR,
    LessonScene,
    align_baseline,
    baseline_y,
    count_word,
    get_fine_print,
    get_number,
    get_text,
    get_title,
    head_color,
)

# ---- the notes' caveats, in their own words (docs/lesson-notes.txt) ----------------------------
CAVEAT = ("These next examples illustrate possible readings, not attention measured in our trained "
          "language model.")
QUERY_NOTE = ("A query is a numerical vector, not an English question. Each source also has a numerical "
              "key and value. In deeper layers, source rows can already contain context.")
# the note's first sentence with the query, the rest with the keys and values it names
QUERY_NOTE_QUERY = "A query is a numerical vector, not an English question."
QUERY_NOTE_ROWS = ("Each source also has a numerical key and value. In deeper layers, source rows can already "
                   "contain context.")
ARROWS_NOTE = ("The arrows highlight plausible useful sources; they do not mean all other sources are "
               "masked or have exactly zero weight.")
DIVISION_NOTE = "This is a possible division of work, not three manually assigned jobs."
PROJECTIONS_NOTE = "Head-specific projections can expose different matching and value features."
SEVERAL_NOTE = ("A single head may also encode several attributes; the extra capability is independent "
                "source weighting, not a rule that each head can understand only one concept.")
ROLES_NOTE = "These semantic roles are illustrative, not measured trained heads."
CONTEXT_NOTE = "Contextual input rows from earlier layers can help make these matches."
SUBSTITUTION_NOTE = ("The arrows are a schematic of useful information, not a promise that a trained "
                     "attention map remains unchanged after a word substitution.")
SHARED_NOTE = ("One head can read several words and carry several features in its message. It uses one "
               "shared set of source weights for all coordinates of that message.")
JOINT_NOTE = "All head projections learn jointly from prediction loss."
# scene 4's two weights add to one: said to be a simplification (scene 1: every source gets a weight)
TWO_SOURCES_NOTE = ("Only two sources here, to keep the numbers simple: in a sentence every known word, "
                    "the receiver included, gets a weight, and the weights add up to one.")
PRUNE_NOTE = ("Interpretable roles sometimes emerge, but some heads overlap or can be pruned; "
              "see Voita et al. (2019).")
CAPACITY_NOTE = "More heads are a capacity choice to test, not an automatic improvement."

# The general caveat, carried after it is said (scene 1) by a badge under the title.
CAVEAT_BADGE = "illustration: possible readings, not measured attention"
NUMBERS_BADGE = "illustrative numbers, invented for this comparison"
PATTERNS_BADGE = "illustrative patterns, not measured heads"

# "One head" (a single head doing all the work) is one colour through the chapter: the colour of the
# one wide head of chapter 2. A third head needs a third Okabe–Ito colour; chapter 1 shows no signs,
# so the bluish green is free.
ONE_HEAD_COLOR = WIDE_HEAD_COLOR
THIRD_HEAD_COLOR = THEME.positive
NOT_USED_COLOR = DIM_TEXT_COLOR       # a word the head does not rely on: grey, never a head's colour


def chapter_head_color(head: int) -> str:
    """Head 0 is "one head"; heads 1 and 2 the lesson's head colours; head 3 the bluish green."""
    return {0: ONE_HEAD_COLOR, 3: THIRD_HEAD_COLOR}.get(head, head_color(head))


# the three heads' lanes are short: their nested arcs start lower (each still a curve, none crossing)
LANE_ARC_HEIGHT = 0.14

# every head's weights drawn as shares of one bar this long (scene 1's three heads and the one head's ghost)
LANE_SHARE_LENGTH = 1.0

# how much higher the rows sit in the opening beats, before the arrows need the room above them
OPENING_LIFT = 0.8

# the one head's message and the three heads' joined message, enlarged this much for the conclusion
JOINED_ZOOM = 1.5

# "coat" in the three heads' lanes, widened so its seven arrowheads land apart
LANE_RECEIVER_WIDTH = 1.25
STALE_OPACITY = 0.35        # what followed from a word that has just been swapped out, until it changes

# the gap between the tracks of the one head's message kept beside the three heads (before scaling):
# the three slices join at the same spacing
JOIN_GAP = 0.17

# scene 1's overlap: wool's value row also carries some colour, so a head that reads red and wool alike
# mixes their colours (lesson_data.word_examples.COAT); the colour wool sends is drawn white in every message
MIXED_SOURCE, MIXED_FEATURE, LEAN_SOURCE = "wool", "colour", "red"
MIXED_COLOR = TEXT_COLOR

# the one head's weights on its arcs, rounded to two places for display (the arcs' room; unrounded in
# lesson_data, where they are the softmax of the matches): its three equal weights read alike
WEIGHT_LABEL_PLACES = 2

# the query drawn with as many cells in scene 2 as in scene 1 (the coat example's three features)
QUERY_CELLS = len(COAT.features)

# scene 2's agreement link is grammar, not attention: a head's colour there read as an arrow from
# "dogs" into the blank (the blank has no query), so it is drawn in the text's colour, no head's
AGREE_COLOR = TEXT_COLOR


# ============================================================================================
# Shared builders
# ============================================================================================


def get_badge(text: str = CAVEAT_BADGE):
    """A small, persistent caveat under the title (the notes' "illustrative" stays on screen)."""
    label = get_text(text, font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
    frame = SurroundingRectangle(label, buff=0.08, corner_radius=0.06).set_stroke(DIM_TEXT_COLOR, 1)
    badge = VGroup(frame, label)
    badge.furniture = True     # the caveat's badge, not the picture
    badge.label = label
    return badge.move_to(CONTENT_TOP * UP + DOWN * badge.height / 2)


def place_fine_print(note, left: float | None = None):
    """The notes' words at the foot of the picture, just above the caption zone."""
    note.set_y(CONTENT_BOTTOM + 0.05 + note.height / 2)
    if left is None:
        note.set_x(0)
    else:
        note.set_x(left + note.width / 2)
    return note


def get_width_legend(color: str, weights=(0.05, 0.7)):
    """Two sample arrows (a light and a heavy weight, drawn as get_attention_arrows draws them):
    the width is the weight (that thin arrows are still read is said once, with the notes' fine print)."""
    def sample(w):
        a = ArcBetweenPoints(LEFT * 0.32, RIGHT * 0.32, angle=-PI / 3)
        a.set_stroke(color, arrow_stroke(w), opacity=arrow_opacity(w))
        return a

    thin, thick = sample(weights[0]), sample(weights[1])
    # "illustrative" is said by the badge above it (always on screen with the legend): not a third time
    text = get_text("arrow width = weight", font_size=MIN_TEXT_SIZE,
                    color=DIM_TEXT_COLOR)
    legend = VGroup(VGroup(thin, thick).arrange(RIGHT, buff=0.12), text).arrange(RIGHT, buff=0.2)
    legend.samples, legend.text = VGroup(thin, thick), text
    return legend


def flash_along(arrow, color: str):
    """A bright pulse that runs along an arrow and leaves nothing behind (however thin the arrow)."""
    return ShowPassingFlash(arrow.copy().set_stroke(color, 5, opacity=1), time_width=0.6)


def get_head_label(head: int, role: str | None = None, word: str | None = None, *, title: str | None = None):
    """'head k' (or a title) in the head's colour, optionally over 'possible role:' / 'role → word'."""
    color = chapter_head_color(head)
    lines = [get_text(title or (f"head {head}" if head else "one head"), font_size=LABEL_SIZE, color=color)]
    if role:
        lines.append(get_text("possible role:", font_size=MIN_TEXT_SIZE, color=color))
        lines.append(get_text(f"{role} → {word}", font_size=MIN_TEXT_SIZE, color=color))
    label = VGroup(*lines).arrange(DOWN, aligned_edge=LEFT, buff=0.06)
    label.head_text, label.role_lines = lines[0], VGroup(*lines[1:])
    return label


def get_word_label(lines, color=TEXT_COLOR, font_size=MIN_TEXT_SIZE):
    return VGroup(*(get_text(t, font_size=font_size, color=color) for t in lines)).arrange(DOWN, buff=0.05)


def get_positions(row: TokenRow):
    """One-based position numbers under the words (drawn apart from the row, so they can leave before
    arrows are drawn below the words)."""
    return VGroup(*(get_text(str(j + 1), font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
                    .next_to(row.boxes[j], DOWN, buff=0.08) for j in range(row.n)))


def word_in_box(text: str, box, *, font_size: float, color=TEXT_COLOR):
    """A word set in a box on the row's baseline (so it can replace the blank's mark)."""
    word = get_text(text, font_size=font_size, color=color).move_to(box)
    ref = get_text("Mx", font_size=font_size).move_to(box)
    return align_baseline(word, baseline_y(ref))


def get_prefix_bracket(row: TokenRow, last: int, text: str, y: float):
    """A flat bracket under tokens 1..last at height y, labelled below."""
    left, right = row.boxes[0].get_left()[0], row.boxes[last - 1].get_right()[0]
    lines = VGroup(Line([left, y + 0.1, 0], [left, y, 0]), Line([left, y, 0], [right, y, 0]),
                   Line([right, y, 0], [right, y + 0.1, 0])).set_stroke(TEXT_COLOR, 1.5)
    label = get_text(text, font_size=MIN_TEXT_SIZE, color=TEXT_COLOR).next_to(lines, DOWN, buff=0.08)
    bracket = VGroup(lines, label)
    bracket.lines, bracket.label = lines, label
    return bracket


def get_vector_glyph(d: int, color: str, *, cell: float = 0.12, filled: bool = True, shades=None):
    """A schematic vector of d numbers (no digits): d small cells between brackets; `shades` (values in
    [0, 1], from the data layer) set each cell's fill, so different vectors look different."""
    def opacity(k):
        if not filled:
            return 0.0
        return 0.55 if shades is None else 0.08 + 0.87 * float(shades[k])
    cells = VGroup(*(Square(cell).set_stroke(color, 1.2).set_fill(color, opacity(k))
                     for k in range(d))).arrange(RIGHT, buff=0.04)
    brackets = get_brackets(cell + 0.08, cells.width + 0.1, color=color, serif=0.05, stroke_width=1.5)
    glyph = VGroup(brackets.move_to(cells), cells)
    glyph.cells = cells
    return glyph


def hide_receiver(row: TokenRow) -> None:
    """Draw the receiver's box like any other until the sentence that names the receiver."""
    row.boxes[row.receiver - 1].set_stroke(DIM_TEXT_COLOR, 1.5).set_fill(opacity=0)


def reveal_receiver(row: TokenRow):
    """The animation that gives the receiver's box its receiver colour (as get_token_row draws it)."""
    return row.boxes[row.receiver - 1].animate.set_stroke(RECEIVER_COLOR, 3).set_fill(RECEIVER_COLOR,
                                                                                       HIGHLIGHT_OPACITY)


def get_dimmed(arrows, opacity: float = 0.3):
    """A copy of a group of arrows drawn fainter (strokes and filled tips), for "only a sketch"."""
    dim = arrows.copy()
    for m in dim.get_family():
        if m.get_stroke_opacity() > 0:
            m.set_stroke(opacity=min(m.get_stroke_opacity(), opacity))
        if m.get_fill_opacity() > 0:
            m.set_fill(opacity=min(m.get_fill_opacity(), opacity))
    return dim


def get_subscripted(base: str, sub: str, *, font_size: float = LABEL_SIZE, color=TEXT_COLOR):
    """A diagram label with a real subscript ("W" and a lowered "Q"), both legible Text (no LaTeX)."""
    big = get_text(base, font_size=font_size, color=color)
    small = get_text(sub, font_size=MIN_TEXT_SIZE, color=color)
    small.next_to(big, RIGHT, buff=0.015).align_to(big, DOWN).shift(DOWN * 0.07)
    label = VGroup(big, small)
    label.plain = f"{base}_{sub}"
    return label


def get_own_projections(color: str):
    """'own W_Q, W_K, W_V' with real subscripts, every part on the baseline of 'own'."""
    own = get_text("own", font_size=MIN_TEXT_SIZE, color=color)
    parts = [own]
    for k, sub in enumerate("QKV"):
        parts.append(get_subscripted("W", sub, font_size=MIN_TEXT_SIZE + 1, color=color))
        if k < 2:
            parts.append(get_text(",", font_size=MIN_TEXT_SIZE, color=color))
    label = VGroup(*parts).arrange(RIGHT, buff=0.07)
    base = baseline_y(own)
    for part in parts[1:]:
        if isinstance(part, VGroup) and hasattr(part, "plain"):
            part.shift(UP * (base - part[0].get_bottom()[1]))
        else:                     # a comma: on the baseline, tucked against its subscript
            align_baseline(part, base).shift(LEFT * 0.045)
    label.plain = "own W_Q, W_K, W_V"
    return label


def swap_fine_print(scene, text: str | None, *, left: float | None = None):
    """Animations that replace the fine print on screen with the notes' `text` (None: remove it)."""
    anims = []
    old = getattr(scene, "fine_print", None)
    if old is not None:
        anims.append(FadeOut(old))
    scene.fine_print = None
    if text:
        scene.fine_print = place_fine_print(get_fine_print(text), left)
        scene.fine_prints.append(scene.fine_print)
        anims.append(FadeIn(scene.fine_print))
    return anims


class ChapterOneScene(LessonScene):
    """Shared set-up: the fine print on screen and every fine print shown (for tests)."""

    # A longer breath after each sentence than the lesson's default: every beat here brings a new
    # picture (arrows, scaled values moving), and the voice alone runs at about 2.7 words a second.
    PAUSE_S = 0.75

    def setup(self):
        super().setup()
        self.fine_print = None
        self.fine_prints = []
        self.marks = {}          # picture name -> the id of the beat that first shows it (for tests)

    def mark(self, name: str) -> None:
        """Note that the picture `name` appears in the current beat."""
        self.marks.setdefault(name, self.stage.id)

    def show_title(self, text: str, badge: str | None = None):
        self.title = get_title(text)
        self.badge = get_badge(badge) if badge else None
        with self.transition("title"):
            self.play(FadeIn(self.title), *([FadeIn(self.badge)] if badge else []))


# ============================================================================================
# Scene 1 — Three heads, seven rows
# ============================================================================================


# Scene 1's row shares the frame with the query and the message (and, in the lanes, a third of its
# height): its receiver stands a little less apart than the blocks' default.
COAT_RECEIVER_GAP = 0.45
# The one-head layout (row, query and message across the frame) is width-bound: a narrower receiver
# and a smaller gap keep its text at the legibility floor or above.
ONE_HEAD_RECEIVER_WIDTH = 1.0
ONE_HEAD_RECEIVER_GAP = 0.3


def get_coat_row(ex: WordExample, font_size: float, receiver_width: float = 0.0,
                 receiver_gap: float = COAT_RECEIVER_GAP) -> TokenRow:
    return get_token_row(ex.tokens, receiver=ex.receiver, font_size=font_size, positions=False,
                         receiver_width=receiver_width, receiver_gap=receiver_gap)


def get_value_chips(row: TokenRow, ex: WordExample, below, buff: float = 0.12, values=None, **kw) -> VGroup:
    """Each token's illustrative value row as a small bar chart under its column (`values`: the rows
    as one head sees them, lesson_data.word_examples.head_values; the example's own by default)."""
    chips = VGroup()
    for j, values in enumerate(ex.values if values is None else values):
        chip = get_value_chip(values, **kw)
        chip.next_to(below[j] if below is not None else row.boxes[j], DOWN, buff=buff)
        chip.set_x(row.boxes[j].get_x())
        chips.add(chip)
    return chips


class ThreeHeadsSevenRows(ChapterOneScene):
    """Scene 1: seven rows and a receiver; a query, keys and values; one head reads every row and
    carries several features, splitting one set of weights. Wool's value carries some colour, so the
    one head's colour is part wool's; leaning on red to keep it clean would starve wool and hooded
    (one set of weights cannot do both). Three heads each ask with their own query and weight the rows
    their own way, all at once; each sends one slice (head 1's colour is almost all red's), and the
    three slices join into one message as wide as the one head's, each part from its own word."""

    def construct(self):
        ex = self.example = COAT
        self.show_title(f"Three heads, {count_word(ex.n)} rows")
        # --- Shot 1: seven rows, the receiver, query, keys and values --------------------------
        self.shot("rows")
        self.show_phrase(ex)
        self.show_receiver(ex)
        self.show_query(ex)
        self.show_keys_and_values(ex)
        # --- Shot 2: one head reads every row and fills one message ----------------------------
        self.shot("one head")
        self.show_one_head(ex)
        self.show_useful_sources(ex)
        self.show_scaled_values(ex)
        self.show_one_message(ex)
        self.show_split_weight(ex)
        self.show_mixed_colour(ex)
        self.show_trade(ex)
        # --- Shot 3: three heads, each with its own weights, at the same time ------------------
        self.shot("three heads")
        self.show_three_heads(ex)
        self.show_queries(ex)
        self.show_roles(ex)
        self.show_slices()
        self.show_joined_slices()
        self.show_independent_weighting()

    # pictures ---------------------------------------------------------------------------------
    def get_one_head_layout(self, ex):
        row = get_coat_row(ex, BODY_SIZE, receiver_width=ONE_HEAD_RECEIVER_WIDTH, receiver_gap=ONE_HEAD_RECEIVER_GAP)
        hide_receiver(row)
        positions = get_positions(row)
        # keys first (they set how much a row is read), then the values (what it sends)
        # each key shaded by its row's features (here a key carries what its value carries), so the
        # comparison has a visible cause: the query lights the cells the head looks for
        keys = VGroup(*(get_vector_glyph(len(ex.features), TEXT_COLOR, cell=0.17, filled=True, shades=ex.values[j])
                        .next_to(positions[j], DOWN, buff=0.14).set_x(row.boxes[j].get_x()) for j in range(ex.n)))
        chips = get_value_chips(row, ex, keys, buff=0.18, track_length=0.62, bar_height=0.12, gap=0.1)
        r = ex.receiver - 1
        query = get_vector_glyph(len(ex.features), RECEIVER_COLOR, cell=0.2, shades=ex.reading(0).query)
        query.next_to(row.boxes[r], RIGHT, buff=0.3)
        query_label = get_text("query", font_size=MIN_TEXT_SIZE, color=RECEIVER_COLOR).next_to(query, DOWN, buff=0.12)
        slot = get_message_slot(ex.features, color=ONE_HEAD_COLOR, title="one head’s message", gap=0.12)
        slot.next_to(row.boxes[r], RIGHT, buff=0.35)
        slot.shift(UP * (row.boxes[r].get_y() - slot.tracks.get_y()))
        # the value tracks named once, beside the first row's chip
        features = VGroup(*(get_text(name, font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
                            .next_to(chips[0].tracks[k], LEFT, buff=0.32) for k, name in enumerate(ex.features)))
        value_label = get_text("values", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
        value_label.next_to(features, LEFT, buff=0.25)
        key_label = get_text("keys", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
        key_label.next_to(keys[0], LEFT, buff=0.15).align_to(features, RIGHT)
        label = get_head_label(0).next_to(row.boxes[0], LEFT, buff=0.35)
        rlabel = get_text("receiver", font_size=MIN_TEXT_SIZE, color=RECEIVER_COLOR)
        rlabel.next_to(chips[r], DOWN, buff=0.12)
        # each row's frame (its key and value inside, its number above), drawn when the rows are named
        frames = VGroup(*(SurroundingRectangle(VGroup(keys[j], chips[j]), buff=0.07,
                                               corner_radius=0.06).set_stroke(DIM_TEXT_COLOR, 1, opacity=0.6)
                          for j in range(ex.n)))
        # the head's one row of weights as shares of one, under its message (shown with "split three ways")
        reading = ex.reading(0)
        share = get_weight_share(reading.weights, color=ONE_HEAD_COLOR, length=1.6 * slot.tracks.width,
                                 words=ex.tokens, named=reading.useful)
        share_title = get_text("its weights", font_size=MIN_TEXT_SIZE, color=ONE_HEAD_COLOR)
        share.next_to(slot.tracks, DOWN, buff=0.95).align_to(slot.tracks, LEFT)
        share_title.next_to(share.frame, UP, buff=0.1).align_to(share.frame, LEFT)
        group = VGroup(label, row, positions, chips, keys, query, query_label, slot, value_label, key_label, rlabel,
                       features, frames, share, share_title)
        # as large as the space between the legend and the fine print allows
        top = get_badge().get_bottom()[1] - 0.5 - 1.1     # the legend, then room for the arrows
        bottom = CONTENT_BOTTOM + 0.75                    # two lines of fine print
        factor = min((SAFE_WIDTH - 0.6) / group.width, (top - bottom) / group.height)
        group.scale(factor).move_to(UP * (top + bottom) / 2).set_x(0)
        # the slot draws its segments to its (now scaled) tracks
        slot.track_length, slot.bar_height = slot.track_length * factor, slot.bar_height * factor
        layout = group
        layout.row, layout.positions, layout.chips, layout.keys = row, positions, chips, keys
        layout.query, layout.query_label, layout.slot, layout.label = query, query_label, slot, label
        layout.value_label, layout.key_label, layout.receiver_label = value_label, key_label, rlabel
        layout.features, layout.frames = features, frames
        layout.share, layout.share_title = share, share_title
        return layout

    def get_three_heads(self, ex):
        """One row per head: its label, the words, the value chips, its arrows and its message slot."""
        lanes = VGroup()
        for head in (1, 2, 3):
            reading = ex.reading(head)
            color = chapter_head_color(head)
            # "coat" widened: seven arrowheads each get their own place on its edge, the nearest too
            row = get_coat_row(ex, BODY_SIZE - 6, receiver_width=LANE_RECEIVER_WIDTH)
            # value bars larger than the default (wider, a little taller): legible at 720p beside the words
            full = get_value_chips(row, ex, None, buff=0.09, track_length=0.55, bar_height=0.078)
            # the rows as this head sees them through its own projections: one feature each, in its key
            # (what the query is compared with) and in its value (what it sends), shaded and drawn as
            # the one head's keys and values were
            seen = head_values(ex, reading)
            keys = VGroup(*(get_vector_glyph(1, TEXT_COLOR, cell=0.16, shades=v).next_to(row.boxes[j], DOWN, buff=0.08)
                            .set_x(row.boxes[j].get_x()) for j, v in enumerate(seen)))
            chips = get_value_chips(row, ex, keys, values=seen, buff=0.05, track_length=0.6, bar_height=0.12)
            arrows = get_attention_arrows(row, reading.weights, color=color, angle=PI / 5.5, min_height=LANE_ARC_HEIGHT)
            # before the head has chosen: every row read alike (thin, even arrows)
            even = get_attention_arrows(row, even_weights(ex.receiver), color=color, angle=PI / 5.5,
                                        min_height=LANE_ARC_HEIGHT)
            # its slice of the message: the one coordinate its own value projection keeps (its role's
            # feature), so the three slices together are as wide as the one head's message
            slot = get_message_slot((reading.role,), color=color, title=None, track_length=1.0, bar_height=0.1)
            slot.next_to(row.boxes[ex.receiver - 1], RIGHT, buff=0.4)
            slot.shift(UP * (VGroup(row.boxes, chips).get_y() - slot.tracks.get_y()))
            # its own query, where its slice will be: one cell, as its keys have, the feature it asks for
            query = get_vector_glyph(1, RECEIVER_COLOR, cell=0.16, shades=(reading.query[ex.feature_index(reading.role)],))
            query.next_to(row.boxes[ex.receiver - 1], RIGHT, buff=0.4).set_y(slot.tracks.get_y())
            query.label = get_text("query", font_size=MIN_TEXT_SIZE, color=RECEIVER_COLOR)
            query.label.next_to(query, DOWN, buff=0.08)
            query.add(query.label)
            label = get_head_label(head, reading.role, ex.word_at(reading.useful[0]))
            own = get_own_projections(color)
            own.next_to(label, DOWN, buff=0.08).align_to(label, LEFT)
            # its own weights as shares of one (shown last): as long as every other head's
            share = get_weight_share(reading.weights, color=color, length=LANE_SHARE_LENGTH, named=reading.useful,
                                     labelled=False, height=0.1)
            # on the line of "head k", so the lane grows no taller
            share.next_to(label.head_text, RIGHT, buff=0.2)
            column = VGroup(label, own, share)
            column.next_to(row.boxes[0], LEFT, buff=0.45).set_y(VGroup(row.boxes, chips).get_y())
            lane = VGroup(column, row, full, keys, chips, arrows, slot, query)
            lane.label, lane.row, lane.chips, lane.arrows, lane.slot = label, row, chips, arrows, slot
            lane.full_chips, lane.keys = full, keys
            # the key its query matches best (the useful source's), framed once the comparison is made
            lane.match = SurroundingRectangle(keys[reading.useful[0] - 1], buff=0.04, corner_radius=0.03)
            lane.match.set_stroke(color, 2.5)
            lane.add(lane.match)            # moved and scaled with its lane
            lane.reading, lane.own, lane.even, lane.share, lane.query = reading, own, even, share, query
            lane.feature = ex.feature_index(reading.role)
            lanes.add(lane)
        lanes.arrange(DOWN, buff=0.04)
        for lane in lanes:              # the rows one above another (the slices' names differ in width)
            lane.shift(RIGHT * (lanes[0].row.get_x() - lane.row.get_x()))
        left = min(lane.label.get_left()[0] for lane in lanes)
        for lane in lanes:
            VGroup(lane.label, lane.own, lane.share).shift(RIGHT * (left - lane.label.get_left()[0]))
        for lane in lanes:
            lane.even.move_to(lane.arrows)
        group = VGroup(lanes, *(lane.even for lane in lanes))
        top = self.badge.get_bottom()[1] - 0.1
        bottom = CONTENT_BOTTOM + 0.75         # room for two lines of fine print
        factor = min(1.15, (top - bottom) / group.height, SAFE_WIDTH / group.width)
        group.scale(factor).move_to(UP * (top + bottom) / 2).set_x(0)
        for lane in lanes:             # the slots draw their segments to their (now scaled) tracks
            lane.slot.track_length, lane.slot.bar_height = (lane.slot.track_length * factor,
                                                            lane.slot.bar_height * factor)
        # the one head's kept message spaces its tracks this far apart (the slices join at its spacing)
        lanes.pitch = lanes[0].slot.bar_height + JOIN_GAP * factor
        return lanes

    # beats ------------------------------------------------------------------------------------
    def show_phrase(self, ex):
        layout = self.layout = self.get_one_head_layout(ex)
        row = self.row = layout.row
        # until the first arrows need the room above the words, the rows sit higher, in the middle of
        # the stage (show_one_head brings them down)
        layout.shift(UP * OPENING_LIFT)
        # the chapter's question first, then its first example
        with self.beat(f"Why use several attention heads, not one? Take “{ex.text}”.",
                       spoken=f"Why use several attention heads, not one? Take the phrase: {ex.text}."):
            self.play(LaggedStart(*(FadeIn(row.token(j), shift=0.2 * UP) for j in range(row.n)), lag_ratio=0.12),
                      run_time=1.6)

    def show_receiver(self, ex):
        layout, r = self.layout, ex.receiver - 1
        with self.beat(f"{count_word(ex.n).capitalize()} tokens, {count_word(ex.n)} rows. The last, "
                       f"“{ex.receiver_word}”, is the receiver: it gathers from all {count_word(ex.n)}."):
            # seven rows: each token's position and an empty row under it (its parts are named next)
            self.play(LaggedStart(*(FadeIn(VGroup(p, f), shift=0.1 * UP)
                                    for p, f in zip(layout.positions, layout.frames)),
                                  lag_ratio=0.1), run_time=1.4)
            self.mark("rows")
            self.play(FadeIn(layout.receiver_label, shift=0.1 * UP), reveal_receiver(self.row))
            self.mark("receiver label")

    def show_query(self, ex):
        layout = self.layout
        with self.beat(f"“{ex.receiver_word.capitalize()}” asks with a query: a vector of numbers, not an "
                       "English question."):
            self.play(FadeIn(layout.query, shift=0.2 * RIGHT), FadeIn(layout.query_label),
                      *swap_fine_print(self, QUERY_NOTE_QUERY))
            self.mark("query")

    def show_keys_and_values(self, ex):
        layout = self.layout
        with self.beat("Each row also has a key, which the query is compared with, and a value, what it sends."):
            # the rows are already there: now their two parts fill them, keys first, then values
            self.play(LaggedStart(*(FadeIn(k, shift=0.1 * DOWN) for k in layout.keys), lag_ratio=0.08),
                      FadeIn(layout.key_label), *swap_fine_print(self, QUERY_NOTE_ROWS), run_time=1.2)
            self.play(LaggedStart(*(FadeIn(c, shift=0.1 * DOWN) for c in layout.chips), lag_ratio=0.08),
                      FadeIn(layout.value_label), FadeIn(layout.features), run_time=1.2)
            self.mark("values")

    def show_one_head(self, ex):
        layout, row = self.layout, self.row
        reading = ex.reading(0)
        badge = self.badge = get_badge()
        # the caveat said as the first arrows appear, then carried by the badge (no fine print repeating it)
        with self.beat(f"One head compares the query with every key and reads all {count_word(ex.n)} rows: "
                       "an illustration, not attention measured in our model."):
            # the rows make room above them for the arrows (what is not yet shown moves with them)
            hidden = (layout.label, layout.slot, layout.share, layout.share_title)
            shown = VGroup(*(m for m in layout.submobjects if all(m is not h for h in hidden)))
            VGroup(*hidden).shift(DOWN * OPENING_LIFT)
            self.play(shown.animate.shift(DOWN * OPENING_LIFT), run_time=0.8)
            arrows = self.one_head_arrows = get_attention_arrows(row, reading.weights, color=ONE_HEAD_COLOR)
            # before the weights are read off: every row drawn alike (thin, even arrows)
            even = self.one_head_even = get_attention_arrows(row, even_weights(ex.receiver), color=ONE_HEAD_COLOR)
            # the comparison: a white frame steps from key to key, the query flashing at each
            sweep = SurroundingRectangle(layout.keys[0], buff=0.06, corner_radius=0.04).set_stroke(TEXT_COLOR, 2.5)
            self.play(FadeIn(layout.label), Indicate(layout.query, color=RECEIVER_COLOR), Create(sweep),
                      run_time=0.8)
            self.mark("key sweep")
            # each key pulses as strongly as it matches the query (their dot product, from the data layer)
            match = matches(ex, reading)
            for j, k in enumerate(layout.keys[1:], start=1):
                self.play(sweep.animate.move_to(k), Indicate(k, color=TEXT_COLOR, scale_factor=1.05 + 0.35 * match[j]),
                          run_time=0.28)
            # the keys it matches best (hooded, red and wool: their dot products with the query are the
            # largest) stay framed while the arrows appear, the cause of the weights they will get
            marks = self.match_marks = VGroup(*(
                SurroundingRectangle(layout.keys[p - 1], buff=0.05, corner_radius=0.04).set_stroke(TEXT_COLOR, 2.5)
                for p in reading.useful))
            self.play(ReplacementTransform(sweep, marks), even.create(run_time=1.6))
            self.play(FadeIn(badge, shift=0.2 * DOWN), *swap_fine_print(self, None))
            self.mark("badge")

    def get_weight_labels(self, arrows, weights, positions, tag: str) -> VGroup:
        """The weights of the sources at `positions` (one-based), each on its own arc near its source
        (where the arcs into one receiver are still apart), in the head's colour."""
        labels = VGroup(*(place_weight_label(get_number(weights[p - 1], WEIGHT_LABEL_PLACES, tag=tag,
                                                        index=(p - 1,), color=arrows.color, font_size=NUMBER_SIZE + 2),
                                             arrows, p - 1, at=0.2)
                          for p in positions))
        # on a dark pill: where the nested arcs leave no room beside its arc, a label sits on it like a tag
        for label in labels:
            label.background_rectangle = get_label_pill(label)
            label.add_to_back(label.background_rectangle)
        return labels

    def show_useful_sources(self, ex):
        reading = ex.reading(0)
        arrows = self.one_head_arrows
        legend = self.legend = get_width_legend(ONE_HEAD_COLOR)
        legend.set_y(self.badge.get_bottom()[1] - 0.12 - legend.height / 2).set_x(0)
        words = " and ".join([", ".join(ex.word_at(p) for p in reading.useful[:-1]), ex.word_at(reading.useful[-1])])
        boxes = self.row.boxes
        with self.beat(f"Thick arrows mark plausible useful sources: {words}. Thin ones still count."):
            # the even arrows take the head's weights: three thicken, the rest stay thin; their words tint
            self.play(ReplacementTransform(self.one_head_even, arrows), FadeOut(self.match_marks),
                      *(boxes[p - 1].animate.set_fill(ONE_HEAD_COLOR, HIGHLIGHT_OPACITY).set_stroke(ONE_HEAD_COLOR, 2.5)
                        for p in reading.useful), run_time=1.6)
            self.mark("one head thickens")
            # each useful source's weight on its own arc (the amounts "under a third each" will name)
            labels = self.weight_labels = self.get_weight_labels(arrows, reading.weights, reading.useful, "one_head_w")
            self.play(FadeIn(legend), FadeIn(labels), *swap_fine_print(self, ARROWS_NOTE))

    def show_scaled_values(self, ex):
        layout = self.layout
        flow = self.one_head_flow = get_message_flow(layout.chips, contributions(ex, ex.reading(0)), layout.slot,
                                                     min_copy_width=0.03)
        with self.beat("Each value shrinks by its weight; the weights add up to one, so a thin arrow sends a tiny part."):
            self.play(FadeOut(VGroup(layout.query, layout.query_label)))
            self.play(flow.scale_copies(run_time=1.6))

    def show_one_message(self, ex):
        slot = self.layout.slot
        with self.beat(f"The scaled values add up in the head’s message, beside “{ex.receiver_word}”."):
            self.play(FadeIn(slot))
            # each row's scaled copy travels along its own arrow into the message
            self.play(self.one_head_flow.move_copies(run_time=3.0, along=self.one_head_arrows))

    def show_split_weight(self, ex):
        slot, flow, arrows = self.layout.slot, self.one_head_flow, self.one_head_arrows
        useful = ex.reading(0).useful
        unfilled = self.unfilled = flow.get_unfilled()
        share = self.layout.share
        # under the weights' bar, what it shows: hooded, red and wool match the query alike and get
        # equal weights, 0.297 each (lesson_data.word_examples.COAT, the softmax of the matches)
        part = self.part_label = get_text("under a third each", font_size=MIN_TEXT_SIZE, color=TEXT_COLOR)
        part.next_to(share.word_labels, DOWN, buff=0.1).align_to(share.frame, LEFT)
        with self.beat("One head carries colour, material and detail with one set of weights: hooded, red and "
                       "wool get under a third each."):
            self.play(*swap_fine_print(self, SHARED_NOTE))
            # each feature in turn: its name and its track light up
            self.play(LaggedStart(*(AnimationGroup(Indicate(slot.labels[k], color=TEXT_COLOR, scale_factor=1.0),
                                                   Indicate(flow.track(k), color=TEXT_COLOR,
                                                            scale_factor=1.1))
                                    for k in range(len(ex.features))), lag_ratio=0.6), run_time=1.6)
            # the one set of weights: each arrow turns into its share of one bar of fixed length
            self.play(FadeIn(share.frame), FadeIn(self.layout.share_title),
                      share.grow_from(arrows, run_time=1.6))
            self.play(FadeIn(share.total), *(FadeIn(w, shift=0.05 * UP) for w in share.word_labels),
                      *(Indicate(share.segment(p - 1), color=ONE_HEAD_COLOR, scale_factor=1.15) for p in useful))
            self.mark("share")
            # so what is left empty in every track
            self.play(FadeIn(unfilled), FadeIn(part, shift=0.1 * UP))
            self.mark("split")

    def get_track_zoom(self, flow, k: int, ex):
        """Track k of the one head's message, enlarged above the message to the safe area's right edge
        (its parts too small to name at 720p otherwise), red's and wool's parts named under them."""
        slot = self.layout.slot
        cells = {j: seg.copy() for (j, kk), seg in flow.cells.items() if kk == k}
        parts = VGroup(slot.tracks[k].copy(), *cells.values())
        anchor = slot.tracks[k].get_left()
        parts.scale((SAFE_WIDTH / 2 - 0.1 - anchor[0]) / slot.tracks[k].width, about_point=anchor)
        parts.shift(UP * (slot.title.get_top()[1] + 0.75 - parts.get_bottom()[1]))
        names = VGroup(*(get_text(word, font_size=MIN_TEXT_SIZE, color=TEXT_COLOR)
                         .next_to(cells[ex.tokens.index(word)], DOWN, buff=0.08) for word in (LEAN_SOURCE, MIXED_SOURCE)))
        if names[1].get_left()[0] < names[0].get_right()[0] + 0.08:       # never overlapping
            names[1].shift(RIGHT * (names[0].get_right()[0] + 0.08 - names[1].get_left()[0]))
        title = get_text(f"its {ex.features[k]}, enlarged", font_size=MIN_TEXT_SIZE, color=ONE_HEAD_COLOR)
        title.next_to(parts, UP, buff=0.1).align_to(parts, LEFT)
        zoom = VGroup(parts, names, title)
        zoom.parts, zoom.names, zoom.title, zoom.cells = parts, names, title, cells
        return zoom

    def show_mixed_colour(self, ex):
        layout, flow = self.layout, self.one_head_flow
        wool, colour = ex.tokens.index(MIXED_SOURCE), ex.feature_index(MIXED_FEATURE)
        # "about a quarter": wool's share of the one head's colour is 0.28 (lesson_data.word_examples.feature_shares)
        with self.beat(f"{MIXED_SOURCE.capitalize()}’s value carries some {MIXED_FEATURE} too: about a quarter of "
                       f"this message’s {MIXED_FEATURE} comes from {MIXED_SOURCE}, drawn white."):
            # the cause first: wool's own colour bar, then what it sent turns white in the message
            self.play(Indicate(layout.chips[wool].bar(colour), color=MIXED_COLOR, scale_factor=1.3),
                      Circumscribe(VGroup(self.row.boxes[wool], layout.frames[wool]), color=MIXED_COLOR),
                      run_time=1.2)
            self.play(flow.cells[wool, colour].animate.set_fill(MIXED_COLOR, BAR_OPACITY), run_time=0.8)
            self.mark("mixed")
            # the colour track, enlarged above the message: red's part and wool's, each named
            zoom = self.colour_zoom = self.get_track_zoom(flow, colour, ex)
            self.play(TransformFromCopy(flow.track(colour), zoom.parts),
                      FadeIn(zoom.title), run_time=1.2)
            self.play(LaggedStart(*(FadeIn(n, shift=0.05 * UP) for n in zoom.names), lag_ratio=0.4))

    def show_trade(self, ex):
        """The one head leans on red to keep its colour clean: its query asks mostly for colour, and
        arrows, weights and message all change with it (one set of weights), wool and hooded fading;
        then it returns to its split."""
        layout, flow, arrows, share = self.layout, self.one_head_flow, self.one_head_arrows, self.layout.share
        lean, split = ex.alternative(LEAN_SOURCE), ex.reading(0)
        wool = ex.tokens.index(MIXED_SOURCE)
        lean_arrows = get_attention_arrows(self.row, lean.weights, color=ONE_HEAD_COLOR)
        lean_flow = get_message_flow(layout.chips, contributions(ex, lean), layout.slot, min_copy_width=0.03)
        lean_flow.cells[wool, ex.feature_index(MIXED_FEATURE)].set_fill(MIXED_COLOR, BAR_OPACITY)
        # the same bar with its cuts moved: the three words stay named under their (new) parts
        lean_share = get_weight_share(lean.weights, color=ONE_HEAD_COLOR, length=share.frame.width,
                                      height=share.frame.height, words=ex.tokens, named=split.useful)
        lean_share.shift(share.frame.get_center() - lean_share.frame.get_center())
        lean_zoom = self.get_track_zoom(lean_flow, ex.feature_index(MIXED_FEATURE), ex)
        zoom = self.colour_zoom
        # the weights on the arcs change with them (the lean's own numbers, on the lean's arcs)
        lean_labels = self.lean_labels = self.get_weight_labels(lean_arrows, lean.weights, split.useful, "lean_w")
        for new, old in zip(lean_labels, self.weight_labels):     # where the split's were: only the amounts change
            new.move_to(old)
        parts = VGroup(arrows, flow.segments, self.unfilled, share.segments, share.word_labels, zoom.parts, zoom.names,
                       self.weight_labels)
        leaning = VGroup(lean_arrows, lean_flow.segments, lean_flow.get_unfilled(), lean_share.segments,
                         lean_share.word_labels, lean_zoom.parts, lean_zoom.names, lean_labels)
        self.lean_message = lean_flow.filled
        before = parts.copy()
        # the cause of the new weights: the head's query, back above its label, asking mostly for colour
        query = self.trade_query = get_vector_glyph(len(ex.features), RECEIVER_COLOR, cell=0.2, shades=split.query)
        query.next_to(layout.label, UP, buff=0.35).align_to(layout.label, RIGHT)
        query_name = get_text("its query", font_size=MIN_TEXT_SIZE, color=RECEIVER_COLOR)
        query_name.next_to(query, UP, buff=0.1).align_to(query, RIGHT)
        lean_query = self.lean_query = get_vector_glyph(len(ex.features), RECEIVER_COLOR, cell=0.2,
                                                        shades=lean.query).move_to(query)
        with self.beat(f"A query asking mostly for {MIXED_FEATURE} keeps it pure: {LEAN_SOURCE} gets most weight; "
                       f"{MIXED_SOURCE} and hooded fade. One set can’t have both.") as beat:
            self.play(FadeIn(query), FadeIn(query_name), run_time=0.6)
            self.play(FadeOut(self.part_label), Transform(query, lean_query), Transform(parts, leaning), run_time=2.0)
            self.mark("lean")
            # held through the whole sentence, "can't have both" included, to the beat's end: the lean is
            # what is argued against
            self.wait(max(0.5, beat.speech_end - self.time))
        # then, between sentences, back to its split: the one head's weights as they were (what the three
        # heads are compared with)
        with self.transition("back to the split"):
            self.play(Transform(parts, before), FadeIn(self.part_label), FadeOut(VGroup(query, query_name)),
                      run_time=1.4)

    def show_three_heads(self, ex):
        lanes = self.lanes = self.get_three_heads(ex)
        layout, flow = self.layout, self.one_head_flow
        ghost = self.ghost = self.get_one_head_ghost()
        self.clear_stage(self.title, self.badge)      # the one head gives way as the three arrive
        with self.beat(f"Now three heads read all {count_word(ex.n)} rows, “{ex.receiver_word}” itself included, "
                       "all at the same time.", look=1.5):
            # the one head's rows are copied into three lanes, and its message and weights move to the
            # corner, kept for comparison: the same rows, now read three times (no wipe, no redraw)
            rows = VGroup(self.row, layout.chips)
            share = layout.share
            self.play(*(TransformFromCopy(rows, VGroup(lane.row, lane.full_chips)) for lane in lanes),
                      TransformFromCopy(VGroup(layout.slot.tracks, flow.segments, self.unfilled), ghost.bars),
                      TransformFromCopy(VGroup(share.segments, share.frame, share.total),
                                        VGroup(ghost.share.segments, ghost.share.frame, ghost.share.total)),
                      FadeIn(ghost.title), FadeIn(ghost.names),
                      *(FadeIn(lane.label.head_text) for lane in lanes), run_time=1.8)
            self.mark("ghost")
            # the same play draws all three heads, thin and even to begin with: none waits for another
            self.play(*(lane.even.create(run_time=1.8) for lane in lanes))
            self.play_every_row_read(ex)

    def show_queries(self, ex):
        lanes = self.lanes
        features = [ex.features[lane.feature] for lane in lanes]
        # "Here": this picture's choice, not a rule (the notes: a head may also encode several attributes)
        with self.beat(f"Here each head’s own projections keep one feature in its keys and values: {features[0]}, "
                       f"{features[1]} or {features[2]}. Its query asks for it."):
            # each head's own projection, as motion: of every full row it keeps one feature's bar, which
            # moves up under the word, and the other two fade
            keep, drop = [], []
            for lane in lanes:
                k = lane.feature
                for full, key, own in zip(lane.full_chips, lane.keys, lane.chips):
                    kept = VGroup(full.tracks[k], *([full.bar(k)] if full.bar(k) is not None else []))
                    keep.extend((TransformFromCopy(kept, key), ReplacementTransform(kept, own)))
                    drop.extend(m for m in (*full.tracks, *full.bars) if all(m is not x for x in kept))
            self.play(*keep, FadeOut(VGroup(*drop)), *(FadeIn(lane.own) for lane in lanes),
                      *swap_fine_print(self, PROJECTIONS_NOTE), run_time=1.6)
            self.mark("own rows")
            self.play(*(FadeIn(lane.query, shift=0.1 * LEFT) for lane in lanes))
            self.mark("queries")
            # the comparison: each query's lit cell, then every key of its lane, pulsing as strongly as it
            # matches (the query asks for one feature, so the match is that feature's bar)
            self.play(*(Indicate(lane.query.cells[0], color=RECEIVER_COLOR, scale_factor=1.4)
                        for lane in lanes), run_time=0.8)
            self.play(*(Indicate(key.cells[0], color=chapter_head_color(k + 1), scale_factor=1.0 + 0.6 * score)
                        for k, lane in enumerate(lanes)
                        for key, score in zip(lane.keys, matches(ex, lane.reading))
                        if score > 0), run_time=1.2)
            # and the key each query matches best stays framed until the arrows take it up
            self.play(*(Create(lane.match) for lane in lanes), run_time=0.6)

    def show_roles(self, ex):
        lanes = self.lanes
        words = [ex.word_at(lane.reading.useful[0]) for lane in lanes]
        # "division of work" is in the fine print shown with it: the caption does not repeat it
        with self.beat(f"So head 1 might lean on {words[0]}, head 2 on {words[1]}, head 3 on {words[2]}: one "
                       "possible split.", look=1.2):
            self.play(*(FadeIn(lane.label.role_lines) for lane in lanes), *swap_fine_print(self, DIVISION_NOTE))
            # each head's arrows thicken into its own reading
            self.play(*(ReplacementTransform(lane.even, lane.arrows) for lane in lanes),
                      *(FadeOut(lane.match) for lane in lanes), run_time=1.6)
            self.mark("thicken")
            self.play(*(Indicate(lane.arrows.arrow(lane.reading.useful[0] - 1), color=chapter_head_color(k + 1),
                                 scale_factor=1.05) for k, lane in enumerate(lanes)))

    def play_every_row_read(self, ex):
        """All seven rows read, in every head at once (played in the three heads' first beat, on their
        even arrows)."""
        lanes, r = self.lanes, ex.receiver - 1
        # a bright flash runs along every arrow, the thinnest too, while in each head at once a white
        # frame steps across all the columns: all seven rows are read
        sweeps = self.row_sweeps = [
            [SurroundingRectangle(VGroup(lane.row.boxes[j], lane.full_chips[j]), buff=0.04, corner_radius=0.04)
             .set_stroke(SOURCE_COLOR, 2) for j in range(ex.n)] for lane in lanes]
        self.play(*(flash_along(a, TEXT_COLOR) for lane in lanes for a in lane.even.arrows),
                  *(Succession(Create(frames[0], run_time=0.2),
                               *(Transform(frames[0], f, run_time=0.2) for f in frames[1:]),
                               FadeOut(frames[0], run_time=0.2)) for frames in sweeps), run_time=1.8)
        self.mark("every arrow")
        # and the receiver's own loop, in each head
        self.play(*(Indicate(lane.row.boxes[r], color=RECEIVER_COLOR) for lane in lanes),
                  *(flash_along(lane.even.arrow(r), RECEIVER_COLOR) for lane in lanes), run_time=1.2)

    def get_one_head_ghost(self):
        """The one head's message from before (each track only part full), in the top right corner, set
        apart from the three heads' messages: the same tracks, segments and empty parts, drawn as long as
        the three heads' tracks, each named by its feature."""
        slot, flow = self.layout.slot, self.one_head_flow
        ghost = VGroup(slot.tracks.copy(), flow.segments.copy(), self.unfilled.copy())
        target = self.lanes[0].slot
        ghost.scale(target.tracks.width / slot.tracks.width)
        # its tracks as tall and as far apart as the three heads' slices once joined: room for the
        # feature names beside them, and the two messages compare track by track
        ys = [t.get_y() for t in ghost[0]]
        for part in (*ghost[0], *ghost[1], *ghost[2]):
            k = min(range(len(ys)), key=lambda i: abs(part.get_y() - ys[i]))
            part.stretch_to_fit_height(target.bar_height).set_y(ys[0] - k * self.lanes.pitch)
        title = VGroup(get_text("one head:", font_size=MIN_TEXT_SIZE, color=ONE_HEAD_COLOR))
        ghost.next_to(title, DOWN, buff=0.1, aligned_edge=LEFT)
        names = VGroup(*(get_text(name, font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
                         .next_to(ghost[0][k], RIGHT, buff=0.1) for k, name in enumerate(self.example.features)))
        names.align_to(names[0], LEFT)
        # and its one row of weights, split three ways, as long as each of the three heads' rows
        reading, lane_share = self.example.reading(0), self.lanes[0].share
        share = get_weight_share(reading.weights, color=ONE_HEAD_COLOR, length=lane_share.frame.width,
                                 height=lane_share.frame.height, named=reading.useful, labelled=False)
        share.next_to(ghost, DOWN, buff=0.14, aligned_edge=LEFT)
        group = VGroup(title, ghost, names, share)
        group.align_to(target.tracks, LEFT).to_edge(UP, buff=0.2)
        group.shift(LEFT * max(0.0, group.get_right()[0] - SAFE_WIDTH / 2))     # inside the safe area
        group.title, group.bars, group.names, group.share = title, ghost, names, share
        return group

    def show_slices(self):
        lanes, ex = self.lanes, self.example
        self.flows = [get_message_flow(lane.chips, slice_contributions(ex, lane.reading), lane.slot,
                                       min_copy_width=0.025) for lane in lanes]
        wool, colour = ex.tokens.index(MIXED_SOURCE), ex.feature_index(MIXED_FEATURE)
        for lane, flow in zip(lanes, self.flows):     # wool's colour lands white, as in the one head's message
            if lane.feature == colour:
                flow.cells[wool, 0].set_fill(MIXED_COLOR, BAR_OPACITY)
        ghost = self.ghost
        # "hardly any": wool's share of head 1's colour is 0.05 (lesson_data.word_examples.feature_shares)
        with self.beat(f"Each head sends one slice of the message: head 1 its {MIXED_FEATURE}, almost all from "
                       f"{LEAN_SOURCE}, hardly any from {MIXED_SOURCE}."):
            # each query gives way to its head's slice, filled from the rows it weighted
            self.play(*(FadeOut(lane.query) for lane in lanes),
                      *(FadeIn(VGroup(lane.slot.tracks, lane.slot.labels)) for lane in lanes), run_time=0.8)
            self.play(*(flow.scale_copies(run_time=1.2) for flow in self.flows))
            self.play(*(flow.move_copies(run_time=2.6, along=lane.arrows) for flow, lane in zip(self.flows, lanes)))
            # head 1's colour against the one head's, kept in the corner: there a quarter was wool's
            self.play(Indicate(self.flows[0].track(0), color=TEXT_COLOR, scale_factor=1.1),
                      Indicate(VGroup(ghost.bars[0][colour], *(seg for seg in ghost.bars[1]
                                                             if abs(seg.get_y() - ghost.bars[0][colour].get_y()) < 1e-6)),
                               color=ONE_HEAD_COLOR, scale_factor=1.1))
            self.mark("compare ghost")

    def show_joined_slices(self):
        lanes, ghost = self.lanes, self.ghost
        # the conclusion gets the room right of the lanes, enlarged: the one head's message comes down
        # from the corner, and under it the three slices gather into one message, track under track as
        # the one head's are, each keeping its name: as wide, each part from its own word
        left = max(lane.row.boxes[-1].get_right()[0] for lane in lanes) + 0.45
        widest = max(ghost.width, *(VGroup(lane.slot.tracks, lane.slot.labels).width for lane in lanes))
        zoom = min(JOINED_ZOOM, (SAFE_WIDTH / 2 - left) / widest)          # as large as the room allows
        one = ghost.copy().scale(zoom)
        one.align_to([left, 0, 0], LEFT)
        slices = [VGroup(lane.slot.tracks, flow.segments, lane.slot.labels) for lane, flow in zip(lanes, self.flows)]
        title = self.joined_title = get_text("three heads:", font_size=MIN_TEXT_SIZE * zoom, color=TEXT_COLOR)
        title.next_to(one, DOWN, buff=0.35).align_to(one, LEFT)
        pitch = one.bars[0][1].get_y() - one.bars[0][0].get_y()          # negative: downwards
        for piece, lane in zip(slices, lanes):
            piece.generate_target()
            piece.target.scale(zoom, about_point=lane.slot.tracks[0].get_left())
            track = piece.target[0][0]
            piece.target.shift([left - track.get_left()[0],
                                title.get_bottom()[1] - 0.12 - track.height / 2 + lane.feature * pitch - track.get_y(), 0])
        column = VGroup(one, title, *(p.target for p in slices))
        # the column centred on the lanes, inside the frame
        column.shift(UP * (VGroup(*lanes).get_center()[1] - column.get_center()[1]))
        self.joined = VGroup(*slices)
        with self.beat("Joined, the three slices make one message as wide as the single head’s, each part from its "
                       "own word."):
            self.play(Transform(ghost, one), *(MoveToTarget(p) for p in slices), FadeIn(title), run_time=1.8)
            self.mark("joined")
            # each part against the one head's, track by track: full where the one head's was a third
            self.play(LaggedStart(*(AnimationGroup(Indicate(slices[k][0], color=TEXT_COLOR, scale_factor=1.1),
                                                   Indicate(ghost.bars[0][lane.feature], color=ONE_HEAD_COLOR,
                                                            scale_factor=1.1))
                                    for k, lane in enumerate(lanes)), lag_ratio=0.5), run_time=1.8)

    def show_independent_weighting(self):
        # the notes' "independent source weighting", shown by each head's own bar of weights
        with self.beat("That is what the extra heads add: each weights the sources on its own, so none must trade "
                       "one word for another."):
            self.play(*swap_fine_print(self, SEVERAL_NOTE))
            # each head's arrows turn into its own bar of shares, as long as the one head's
            self.play(*(FadeIn(lane.share.frame) for lane in self.lanes),
                      *(lane.share.grow_from(lane.arrows, run_time=1.6) for lane in self.lanes))
            self.play(*(FadeIn(lane.share.total) for lane in self.lanes),
                      *(Indicate(VGroup(lane.share.segment(lane.reading.useful[0] - 1),
                                        flow.by_source[lane.reading.useful[0] - 1]),
                                 color=TEXT_COLOR, scale_factor=1.1)
                        for flow, lane in zip(self.flows, self.lanes)))
            self.mark("own shares")


# ============================================================================================
# Scene 2 — The receiver
# ============================================================================================


class TheReceiver(ChapterOneScene):
    """Scene 2: the receiver is the last known token, not the unknown next word; one head reads the
    plural subject (dogs supports bark, not barks; the nearer noun gate does not control agreement);
    a second head reads gate for the place; both useful sources lie in the known prefix, and each
    head carries what it read to the receiver."""

    def construct(self):
        ex = self.example = SUBJECT_AGREEMENT
        self.show_title("The receiver", CAVEAT_BADGE)
        # --- Shot 1: the prefix, the receiver and the unknown next word ------------------------
        self.shot("receiver")
        self.show_phrase(ex)
        self.show_receiver(ex)
        self.show_blank()
        # --- Shot 2: the subject controls agreement, the nearer noun does not ------------------
        self.shot("agreement")
        self.show_subject_head(ex)
        self.show_nearer_noun(ex)
        self.show_bark(ex)
        self.show_continuation(ex)
        # --- Shot 3: a second head; both sources lie in the known prefix -----------------------
        self.shot("known prefix")
        self.show_place_head(ex)
        self.show_known_prefix(ex)
        self.show_messages(ex)

    # pictures ---------------------------------------------------------------------------------
    def get_layout(self, ex):
        # the positions belong to the row, so head 2's arrows start below them and they can stay
        # (its messages sit under the blank, at the frame's edge: no room for the receiver to stand apart)
        row = get_token_row(ex.tokens, receiver=ex.receiver, font_size=BODY_SIZE, positions=True, blank=True,
                            receiver_width=LANE_RECEIVER_WIDTH, receiver_gap=0.0)
        hide_receiver(row)
        row.move_to(UP * 0.35).set_x(0.25)
        layout = VGroup(row)
        layout.row, layout.positions = row, row.positions
        return layout

    def get_message_glyphs(self, ex):
        """What each head carries to the receiver: a small vector (numbers, not words) in its colour,
        named by what it could hold."""
        glyphs = VGroup()
        for r, what in zip(ex.readings, ("plural subject", "a place")):
            color = chapter_head_color(r.head)
            glyph = get_vector_glyph(4, color, cell=0.2)
            name = get_text(f"head {r.head}: {what}", font_size=MIN_TEXT_SIZE, color=color)
            item = VGroup(glyph, name).arrange(RIGHT, buff=0.2)
            item.glyph, item.name = glyph, name
            glyphs.add(item)
        glyphs.arrange(DOWN, buff=0.2, aligned_edge=LEFT)
        title = get_word_label([f"what reaches “{ex.receiver_word}”:", "numbers, not words"], TEXT_COLOR)
        title.original_text = f"what reaches “{ex.receiver_word}”: numbers, not words"
        group = VGroup(title, glyphs).arrange(DOWN, buff=0.18, aligned_edge=LEFT)
        group.title, group.items = title, glyphs
        return group

    # beats ------------------------------------------------------------------------------------
    def show_phrase(self, ex):
        layout = self.layout = self.get_layout(ex)
        row = self.row = layout.row
        with self.beat(f"Next: “{' '.join(ex.tokens)}”, and then a blank."):
            self.play(LaggedStart(*(FadeIn(row.token(j), shift=0.2 * UP) for j in range(row.n)), lag_ratio=0.12),
                      run_time=1.5)
            self.play(FadeIn(row.blank))

    def show_receiver(self, ex):
        r = ex.receiver - 1
        label = self.receiver_label = get_word_label(["receiver:", "last known token"], RECEIVER_COLOR)
        label.next_to(self.row.boxes[r], UP, buff=0.25)
        with self.beat(f"The receiver is the word “{ex.receiver_word}”: the last known token, at position {ex.receiver}."):
            self.play(LaggedStart(*(FadeIn(p) for p in self.layout.positions), lag_ratio=0.08), run_time=1.0)
            self.play(FadeIn(label, shift=0.1 * DOWN), reveal_receiver(self.row))
            self.mark("receiver")

    def show_blank(self):
        label = self.blank_label = get_word_label(["unknown next word:", "no query yet"], DIM_TEXT_COLOR)
        label.next_to(self.row.blank, UP, buff=0.25)
        # clear of the receiver's label on its left
        shift = self.receiver_label.get_right()[0] + 0.2 - label.get_left()[0]
        if shift > 0:
            label.shift(RIGHT * shift)
        row, r = self.row, self.example.receiver - 1
        # under the receiver a query (it asks); under the blank an empty outline (nothing to ask with)
        y = row.positions.get_bottom()[1] - 0.5
        # three cells, as the query in scene 1
        query = get_vector_glyph(QUERY_CELLS, RECEIVER_COLOR, cell=0.22).move_to([row.boxes[r].get_x(), y, 0])
        q_label = get_text("query", font_size=MIN_TEXT_SIZE, color=RECEIVER_COLOR).next_to(query, DOWN, buff=0.1)
        none = get_vector_glyph(QUERY_CELLS, DIM_TEXT_COLOR, cell=0.22, filled=False).set_opacity(0.5)
        none.move_to([row.blank.get_x(), y, 0])
        n_label = get_text("no query", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR).next_to(none, DOWN, buff=0.1)
        cross = VGroup(Line(none.get_corner(UP + LEFT), none.get_corner(DOWN + RIGHT)),
                       Line(none.get_corner(DOWN + LEFT), none.get_corner(UP + RIGHT))).set_stroke(NEGATIVE_COLOR, 2.5)
        self.queries = VGroup(query, q_label, none, n_label, cross)
        with self.beat("Not the blank. The next word is unknown, so it has no query yet."):
            self.play(FadeIn(label, shift=0.1 * DOWN), Indicate(self.row.blank, color=TEXT_COLOR))
            self.play(FadeIn(VGroup(query, q_label), shift=0.1 * DOWN), FadeIn(VGroup(none, n_label)))
            self.play(Create(cross))
            self.mark("no query")

    def show_subject_head(self, ex):
        reading = ex.reading(1)
        color = chapter_head_color(1)
        r = ex.receiver - 1
        arrows = self.subject_arrows = get_attention_arrows(self.row, reading.weights, color=color)
        label = self.subject_label = get_head_label(1, reading.role, ex.word_at(reading.useful[0]))
        label.next_to(self.row.boxes[0], LEFT, buff=0.35).align_to(self.row.boxes, DOWN).shift(UP * 0.45)
        legend = self.legend = get_width_legend(color)
        legend.set_y(self.badge.get_bottom()[1] - 0.12 - legend.height / 2).set_x(0)
        subject = ex.word_at(reading.useful[0])
        # the receiver keeps a small tag, above its head-1 arrows
        tag = self.receiver_tag = get_text("receiver", font_size=MIN_TEXT_SIZE, color=RECEIVER_COLOR)
        tag.move_to([self.row.boxes[r].get_x(), arrows.get_top()[1] + 0.05 + tag.height / 2, 0])
        plural = self.plural_tag = get_text("plural", font_size=MIN_TEXT_SIZE, color=color)
        plural.next_to(self.layout.positions[reading.useful[0] - 1], DOWN, buff=0.12)
        with self.beat(f"One head might look back for the subject: “{subject}”, which is plural."):
            self.play(ReplacementTransform(self.receiver_label, tag), FadeIn(label), FadeIn(legend),
                      FadeOut(self.queries), *swap_fine_print(self, ROLES_NOTE))
            self.play(arrows.create())
            self.play(FadeIn(plural, shift=0.1 * UP))
            self.mark("plural")

    def show_nearer_noun(self, ex):
        gate = ex.source("nearer singular noun")
        j = gate.position - 1
        box = self.row.boxes[j]
        mark = box.copy().set_fill(NOT_USED_COLOR, 0.18).set_stroke(NOT_USED_COLOR, 2.5)
        label = get_word_label(["singular:", "does not control", "agreement"], NOT_USED_COLOR)
        label.next_to(self.layout.positions[j], DOWN, buff=0.12)
        self.nearer = VGroup(mark, label)
        with self.beat(f"The nearer noun, “{gate.word}”, is singular, but it does not control the verb."):
            self.play(Create(mark), FadeIn(label, shift=0.1 * UP))
            self.mark("singular")

    def show_bark(self, ex):
        blank = self.row.blank
        # a candidate, not yet a continuation: neutral, with a question mark
        guess = self.first_guess = word_in_box(f"{ex.next_word}?", blank[0], font_size=self.row.font_size)
        wrong = get_text(ex.not_next_word, font_size=BODY_SIZE - 4, color=DIM_TEXT_COLOR)
        # low under the blank: the link from the subject rises past it into the candidate
        wrong.next_to(blank, DOWN, buff=0.7).align_to(blank, LEFT).shift(LEFT * 0.4)
        strike = Line(wrong.get_left() + LEFT * 0.05, wrong.get_right() + RIGHT * 0.05).set_stroke(NEGATIVE_COLOR, 3.5)
        self.wrong = VGroup(wrong, strike)
        r1 = ex.reading(1)
        subject = ex.word_at(r1.useful[0])
        gate = ex.source("nearer singular noun")
        # the agreement as two links: the plural subject to "bark" (agrees), the singular gate to "barks" (no)
        plural, singular = self.plural_tag, self.nearer[1]
        start = plural.get_bottom() + DOWN * 0.08
        # into the candidate's lower right corner, from below and to the right of the struck "barks"
        end = blank[0].get_corner(DOWN + RIGHT) + LEFT * 0.12 + DOWN * 0.06
        # well below the struck "barks" (head 1's clue, in head 1's colour), the tick where it lands
        low = min(singular.get_bottom()[1], wrong.get_bottom()[1]) - 0.85
        agree = CubicBezier(start, [start[0] + 0.8, low, 0], [end[0] + 0.8, low, 0], end)
        agree.set_stroke(AGREE_COLOR, 3)
        tick = get_text("✓", font_size=BODY_SIZE, color=AGREE_COLOR)
        tick.next_to(end, RIGHT, buff=0.1).shift(DOWN * 0.12)
        g_start = singular.get_right() + RIGHT * 0.1
        g_end = wrong.get_left() + LEFT * 0.12
        no_link = DashedVMobject(Line(g_start, g_end), num_dashes=8).set_stroke(NOT_USED_COLOR, 2.5)
        cross = get_text("✗", font_size=LABEL_SIZE + 2, color=NEGATIVE_COLOR)
        cross.next_to(no_link.get_center(), UP, buff=0.08)
        # a grammar link, not an attention arrow (those all end at the receiver): said on the link itself
        kind = get_text("grammar: agreement in number, not attention", font_size=MIN_TEXT_SIZE, color=AGREE_COLOR)
        kind.next_to(agree.point_from_proportion(0.5), DOWN, buff=0.08)
        self.links = VGroup(agree, tick, no_link, cross, kind)
        with self.beat(f"So “{subject}”, a plural, supports “{ex.next_word}”, not “{ex.not_next_word}”: they agree "
                       "in number."):
            # the blank's "no query yet" label leaves before a candidate is written into it
            self.play(FadeOut(self.blank_label), FadeOut(blank[1]), FadeIn(guess))
            self.play(Create(agree), FadeIn(tick), FadeIn(kind), run_time=1.0)
            self.play(FadeIn(wrong), Create(no_link), FadeIn(cross))
            self.play(Create(strike))
            self.mark("agreement links")

    def show_continuation(self, ex):
        blank = self.row.blank
        # neutral white: no single head predicted it
        guess = self.guess = word_in_box(ex.next_word, blank[0], font_size=self.row.font_size)
        tail = self.tail = get_text(ex.continuation_rest, font_size=self.row.font_size, color=DIM_TEXT_COLOR)
        tail.next_to(self.row.blank, RIGHT, buff=0.2)
        align_baseline(tail, baseline_y(guess))
        possible = self.possible = get_text("one possible continuation", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
        possible.next_to(VGroup(self.row.blank, tail), UP, buff=0.25).align_to(self.row.blank, LEFT)
        with self.beat(f"One possible continuation: “{ex.continuation}”."):
            self.play(ReplacementTransform(self.first_guess, guess))
            self.play(FadeIn(tail, shift=0.2 * LEFT), FadeIn(possible))

    def show_place_head(self, ex):
        reading = ex.reading(2)
        color = chapter_head_color(2)
        # a deeper arc, so the short gate -> receiver arrow is a curve, not a stub
        arrows = self.place_arrows = get_attention_arrows(self.row, reading.weights, color=color, side=DOWN,
                                                          angle=PI / 1.9)
        label = self.place_label = get_head_label(2, reading.role, ex.word_at(reading.useful[0]))
        label.next_to(self.row.boxes[0], LEFT, buff=0.35).align_to(self.row.boxes, UP).shift(DOWN * 0.55)
        label.align_to(self.subject_label, LEFT)
        place = ex.word_at(reading.useful[0])
        with self.beat(f"A second head might read “{place}” for something else: where the dogs are.",
                       spoken=f"A second head might read the word {place} for something else: where the dogs are."):
            # the agreement notes have been said: they leave room for head 2's arrows (the positions stay)
            # "barks" has been ruled out: it leaves with the agreement links, clear of head 2's arrows
            # the continuation was one possibility: it greys back, the known prefix stays bright
            self.play(FadeOut(VGroup(self.nearer, self.plural_tag, self.links, self.wrong)), FadeIn(label),
                      VGroup(self.guess, self.tail, self.possible).animate.set_opacity(0.3),
                      *swap_fine_print(self, None))
            self.play(arrows.create())

    def show_known_prefix(self, ex):
        y = self.place_arrows.get_bottom()[1] - 0.15
        bracket = self.prefix_bracket = get_prefix_bracket(self.row, ex.receiver,
                                                           f"known prefix: positions 1–{ex.receiver}", y)
        words = [ex.word_at(r.useful[0]) for r in ex.readings]
        with self.beat(f"“{words[0].capitalize()}” and “{words[1]}” both come before the receiver, in the "
                       "known prefix."):
            self.play(FadeIn(bracket), Indicate(self.layout.positions, color=TEXT_COLOR, scale_factor=1.15))
            self.play(*(Indicate(self.row.token(r.useful[0] - 1), color=chapter_head_color(r.head))
                        for r in ex.readings))

    def show_messages(self, ex):
        msgs = self.messages = self.get_message_glyphs(ex)
        r = ex.receiver - 1
        box = self.row.boxes[r]
        # right under the blank, beside the receiver
        msgs.next_to(box, RIGHT, buff=0.4)
        msgs.shift(UP * (self.row.blank.get_bottom()[1] - 0.2 - msgs.get_top()[1]))
        if msgs.get_right()[0] > SAFE_WIDTH / 2:
            msgs.shift(LEFT * (msgs.get_right()[0] - SAFE_WIDTH / 2))
        arrows = (self.subject_arrows, self.place_arrows)
        with self.beat(f"Each head brings what it found to “{ex.receiver_word}”: a plural subject, and a place."):
            self.play(FadeIn(msgs.title))
            # along each head's strongest arrow into the receiver, and out into that head's message
            self.play(LaggedStart(*(AnimationGroup(
                flash_along(a.arrow(rd.useful[0] - 1), chapter_head_color(rd.head)),
                TransformFromCopy(box, item.glyph), FadeIn(item.name, shift=0.1 * RIGHT))
                for a, rd, item in zip(arrows, ex.readings, msgs.items)), lag_ratio=0.5), run_time=2.2)
            self.mark("messages")


# ============================================================================================
# Scene 3 — Parallel heads
# ============================================================================================


class ParallelHeads(ChapterOneScene):
    """Scene 3: the full stop is a token, It is receiver 6; two heads read the row at the same time
    (the referent, the event) and bring what they found to It as numbers (small vectors); swapping
    dropped for washed keeps the object clue and changes the event clue (and a possible next word)."""

    def construct(self):
        ex = self.example = EVENT_AND_REFERENCE
        self.show_title("Parallel heads", CAVEAT_BADGE)
        # --- Shot 1: punctuation is a token; It is receiver 6 ----------------------------------
        self.shot("tokens")
        self.show_phrase(ex)
        self.show_tokens(ex)
        # --- Shot 2: two heads, at the same time -----------------------------------------------
        self.shot("two heads in parallel")
        self.show_two_heads(ex)
        self.show_roles(ex)
        self.show_no_waiting()
        # --- Shot 3: what the heads bring to It, and a possible next word ----------------------
        self.shot("messages")
        self.show_messages(ex)
        self.show_next_word(ex)
        # --- Shot 4: one word swapped ------------------------------------------------------------
        self.shot("substitution")
        self.show_substitution()
        self.show_new_next_word()
        self.show_schematic()

    # pictures ---------------------------------------------------------------------------------
    def get_layout(self, ex):
        # the positions belong to the row: head 2's arrows start below them, so they can stay
        row = get_token_row(ex.tokens, receiver=ex.receiver, font_size=BODY_SIZE - 4, positions=True, blank=True,
                            receiver_width=LANE_RECEIVER_WIDTH)
        hide_receiver(row)
        # a little high: head 2's arrows and the message slots below stay clear of the fine print
        row.move_to(UP * 0.5)
        # the blank widens to hold the longest possible next word the scene will write in it, with room
        widest = max(get_text(w, font_size=row.font_size).width for w in
                     (SUBSTITUTION.before.next_word, SUBSTITUTION.after.next_word))
        if widest + 0.5 > row.blank.width:
            row.blank[0].stretch_to_fit_width(widest + 0.5).next_to(row.boxes[-1], RIGHT, buff=0.14)
            row.blank[1].move_to(row.blank[0])
        heads = VGroup()
        for r, side in zip(ex.readings, (UP, DOWN)):
            color = chapter_head_color(r.head)
            arrows = get_attention_arrows(row, r.weights, color=color, side=side)
            # before the heads have chosen: every known row read alike
            even = get_attention_arrows(row, even_weights(ex.receiver), color=color, side=side)
            label = get_head_label(r.head, r.role, ex.word_at(r.useful[0]))
            label.next_to(row.boxes[0], LEFT, buff=0.5)
            label.set_y(row.boxes.get_y() + (0.78 if side is UP else -0.85))
            slot = self.get_vector_slot(color)
            heads.add(VGroup(arrows, label, slot))
            heads[-1].arrows, heads[-1].label, heads[-1].slot, heads[-1].reading = arrows, label, slot, r
            heads[-1].even = even
        labels = VGroup(*(h.label for h in heads))
        left = labels.get_left()[0]
        for label in labels:
            label.shift(RIGHT * (left - label.get_left()[0]))
        parallel = self.get_parallel_mark(heads[0].label, heads[1].label, row.boxes.get_y())
        # as wide as the frame allows (the message slots go below, in the lower third)
        reading = VGroup(row, *(h.label for h in heads), *(h.arrows for h in heads), parallel)
        factor = min(1.3, (SAFE_WIDTH - 1.2) / reading.width)
        self.layout_factor = factor
        evens = VGroup(*(h.even for h in heads))
        VGroup(reading, evens).scale(factor).set_x(0)
        # the slots stacked right under the receiver, below head 2's arrows; room on the right of
        # each slot for its name ("dropped features") and "kept" (with room to spare)
        name_room = get_text("dropped features unchanged", font_size=MIN_TEXT_SIZE).width + 0.3
        slots = VGroup(*(h.slot for h in heads)).arrange(DOWN, buff=0.08)
        slots.next_to(heads[1].arrows, DOWN, buff=0.1)
        slots.set_x(row.boxes[ex.receiver - 1].get_x())
        right = slots.get_right()[0] + name_room
        if right > SAFE_WIDTH / 2 - 0.05:
            slots.shift(LEFT * (right - SAFE_WIDTH / 2 + 0.05))
        # the rows the heads read: the known prefix, 1 to the receiver
        self.prefix = get_prefix_bracket(row, ex.receiver, f"known prefix 1–{ex.receiver}",
                                         heads[1].even.get_bottom()[1] - 0.12)
        layout = VGroup(row, heads, parallel)
        layout.row, layout.heads, layout.parallel = row, heads, parallel
        layout.positions = row.positions
        return layout

    @staticmethod
    def get_vector_slot(color):
        """A head's message slot: a small vector of numbers (drawn without digits) in a frame."""
        frame = RoundedRectangle(width=1.4, height=0.42, corner_radius=0.08).set_stroke(color, 2)
        frame.set_fill(color, 0.08)
        return frame

    @staticmethod
    def get_parallel_mark(label_1, label_2, y: float):
        """A bracket joining the two heads' labels, "in parallel" between them: one step, no waiting."""
        x = min(label_1.get_left()[0], label_2.get_left()[0]) - 0.15
        top, bottom = label_1.get_top()[1], label_2.get_bottom()[1]
        lines = VGroup(Line([x + 0.1, top, 0], [x, top, 0]), Line([x, top, 0], [x, bottom, 0]),
                       Line([x, bottom, 0], [x + 0.1, bottom, 0])).set_stroke(TEXT_COLOR, 1.5)
        text = get_text("in parallel", font_size=MIN_TEXT_SIZE, color=TEXT_COLOR)
        text.move_to([x + 0.15 + text.width / 2, y, 0])
        mark = VGroup(lines, text)
        mark.lines, mark.text = lines, text
        return mark

    @staticmethod
    def get_timeline(colors):
        """Two bars over the same span of time (the heads run together), beside the sequential
        picture crossed out (head 2 after head 1)."""
        def bars(offset):
            group = VGroup()
            for k, color in enumerate(colors):
                bar = Rectangle(width=1.3, height=0.14).set_stroke(width=0).set_fill(color, 0.9)
                bar.shift(DOWN * k * 0.24 + RIGHT * (offset * k * 1.3))
                group.add(bar)
            return group

        together = bars(0.0)
        axis = get_arrow(together.get_corner(DOWN + LEFT) + DOWN * 0.12,
                         together.get_corner(DOWN + RIGHT) + DOWN * 0.12 + RIGHT * 0.3, buff=0.0)
        time = get_text("time", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR).next_to(axis, RIGHT, buff=0.1)
        ok = get_text("both at once", font_size=MIN_TEXT_SIZE, color=TEXT_COLOR).next_to(together, UP, buff=0.1)
        left = VGroup(ok, together, axis, time)
        after = bars(1.0)
        wrong = get_text("head 2 after head 1", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
        wrong.next_to(after, UP, buff=0.1)
        after.set_opacity(0.35)
        right = VGroup(wrong, after).next_to(left, RIGHT, buff=0.8).align_to(left, UP)
        strike = Line(wrong.get_left(), wrong.get_right()).set_stroke(TEXT_COLOR, 2.5)
        timeline = VGroup(left, right, strike)
        timeline.together, timeline.after, timeline.wrong, timeline.strike = together, after, wrong, strike
        return timeline

    def get_glyph(self, head, example=None):
        """Head `head`'s message in its slot: a vector of numbers, in the head's colour, its cells
        shaded by the useful source's illustrative features (data layer)."""
        ex = example or self.example
        source = next(s for s in ex.sources if s.position == head.reading.useful[0])
        glyph = get_vector_glyph(4, chapter_head_color(head.reading.head), cell=0.17, shades=source.features)
        glyph.features = source.features
        return glyph.move_to(head.slot)

    def get_slot_name(self, word: str, head) -> Text:
        name = get_text(f"{word} features", font_size=MIN_TEXT_SIZE, color=chapter_head_color(head.reading.head))
        return name.next_to(head.slot, RIGHT, buff=0.12)

    # beats ------------------------------------------------------------------------------------
    def show_phrase(self, ex):
        layout = self.layout = self.get_layout(ex)
        row = self.row = layout.row
        self.word_size = row.font_size * self.layout_factor     # the row was scaled with the layout
        with self.beat(f"Now: “{' '.join(ex.tokens)}”, and then a blank.",
                       spoken=f"Now the prefix: {' '.join(ex.tokens[:4])}, full stop, then the word "
                              f"{' '.join(ex.tokens[5:])}, and then a blank."):
            self.play(LaggedStart(*(FadeIn(row.token(j), shift=0.2 * UP) for j in range(row.n)), lag_ratio=0.12),
                      run_time=1.5)
            self.play(FadeIn(row.blank))

    def show_tokens(self, ex):
        punct = self.punctuation = ex.punctuation[0]
        row, r = self.row, ex.receiver - 1
        punct_label = get_word_label(["punctuation", "is a token"])
        receiver_label = get_text("receiver", font_size=MIN_TEXT_SIZE, color=RECEIVER_COLOR)
        receiver_label.next_to(row.boxes[r], UP, buff=0.3)
        # the "." box is narrow and next to the receiver: its label sits up and to the left, with a tick
        punct_label.next_to(row.boxes[punct - 1], UP, buff=0.55)
        punct_label.shift(LEFT * max(0.0, punct_label.get_right()[0] + 0.2 - receiver_label.get_left()[0]))
        tick = Line(punct_label.get_bottom() + DOWN * 0.04, row.boxes[punct - 1].get_top() + UP * 0.04)
        tick.set_stroke(TEXT_COLOR, 1.5)
        self.token_labels = VGroup(VGroup(punct_label, tick))
        self.receiver_tag = receiver_label
        with self.beat(f"We treat the full stop as a token too, so “{ex.receiver_word}” is token {ex.receiver}: "
                       "the receiver."):
            self.play(LaggedStart(*(FadeIn(p) for p in self.layout.positions), lag_ratio=0.08), run_time=1.0)
            self.play(FadeIn(punct_label), Create(tick), Indicate(row.token(punct - 1), color=TEXT_COLOR))
            self.play(FadeIn(receiver_label), reveal_receiver(row))
            self.mark("receiver")

    def show_two_heads(self, ex):
        heads = self.layout.heads
        self.legend = get_width_legend(chapter_head_color(1))
        self.legend.set_y(self.badge.get_bottom()[1] - 0.12 - self.legend.height / 2).set_x(0)
        tag = self.receiver_tag
        with self.beat(f"Two heads read the same {count_word(ex.receiver)} rows at once: one seeks what "
                       f"“{ex.receiver_word}” refers to, one what happened."):
            # the punctuation note has been said; the receiver's tag moves up, clear of head 1's arrows
            self.play(FadeOut(self.token_labels),
                      tag.animate.set_y(heads[0].even.get_top()[1] + 0.1 + tag.height / 2),
                      *(FadeIn(h.label.head_text) for h in heads), FadeIn(self.legend))
            # the same play draws both heads, thin and even at first: neither waits for the other
            self.play(*(h.even.create() for h in heads))
            self.play(FadeIn(self.prefix))

    def show_roles(self, ex):
        heads = self.layout.heads
        referent, event = (ex.word_at(h.reading.useful[0]) for h in heads)
        with self.beat(f"Head 1 might find “{referent}”; head 2 might find the event, “{event}”."):
            self.play(*(FadeIn(h.label.role_lines) for h in heads))
            # each head's arrows thicken into its own reading
            self.play(*(ReplacementTransform(h.even, h.arrows) for h in heads), run_time=1.4)
            self.mark("thicken")
            self.play(*(Indicate(h.arrows.arrow(h.reading.useful[0] - 1), color=chapter_head_color(h.reading.head),
                                 scale_factor=1.05) for h in heads))
        # the caveat in its own sentence (it was a 12 s voice under a ten-word caption), on screen as said:
        # the rows the heads read may already carry context from earlier layers
        with self.beat("In a deep model, rows from earlier layers can already carry context, which helps such "
                       "matches."):
            self.play(*swap_fine_print(self, CONTEXT_NOTE),
                      Indicate(self.layout.row.boxes, color=TEXT_COLOR, scale_factor=1.04), run_time=1.2)

    def show_no_waiting(self):
        heads = self.layout.heads
        timeline = self.timeline = self.get_timeline([chapter_head_color(h.reading.head) for h in heads])
        timeline.next_to(self.layout.row, DOWN, buff=0.2).set_y(heads[1].arrows.get_bottom()[1] - 0.2
                                                                  - timeline.height / 2)
        timeline.set_x(self.row.boxes.get_x())
        with self.beat("Neither waits for the other: the event head does not need the reference head’s result.",
                       look=1.2):
            self.play(FadeOut(self.prefix), FadeIn(self.layout.parallel), FadeIn(timeline[0]))
            self.play(FadeIn(timeline[1]))
            self.play(Create(timeline.strike))
            self.mark("timeline")

    def show_messages(self, ex):
        heads = self.layout.heads
        self.glyphs = VGroup(*(self.get_glyph(h) for h in heads))
        self.slot_words = VGroup(*(self.get_slot_name(ex.word_at(h.reading.useful[0]), h) for h in heads))
        title = self.slot_title = get_text(f"what reaches “{ex.receiver_word}”", font_size=MIN_TEXT_SIZE,
                                           color=TEXT_COLOR)
        title.next_to(VGroup(*(h.slot for h in heads)), LEFT, buff=0.25)
        r = ex.receiver - 1
        with self.beat(f"Each head brings numbers to “{ex.receiver_word}”: features of the glass, and of the "
                       "dropping."):
            self.play(FadeOut(self.timeline), FadeIn(VGroup(*(h.slot for h in heads))), FadeIn(title))
            # along each head's strongest arrow into "It", and down into that head's slot: numbers, not a word
            self.play(*(flash_along(h.arrows.arrow(h.reading.useful[0] - 1), chapter_head_color(h.reading.head))
                        for h in heads), run_time=0.9)
            self.play(*(TransformFromCopy(self.row.boxes[r], glyph) for glyph in self.glyphs), run_time=1.2)
            self.play(FadeIn(self.slot_words))

    def show_next_word(self, ex):
        blank = self.row.blank
        guess = self.guess = word_in_box(ex.next_word, blank[0], font_size=self.word_size)
        possible = self.possible = get_word_label(["possible", "next word"], DIM_TEXT_COLOR)
        possible.next_to(blank, DOWN, buff=0.15).align_to(blank, LEFT).shift(RIGHT * 0.1)
        with self.beat(f"Together they make a next word like “{ex.next_word}” likely.",
                       spoken=f"Together they make “{ex.next_word}” a likely next word."):
            self.play(FadeOut(blank[1]), FadeIn(guess), FadeIn(possible))

    def show_substitution(self):
        old, new = SUBSTITUTION.changed
        j = SUBSTITUTION.position - 1
        new_word = word_in_box(new.word, self.row.boxes[j], font_size=self.word_size)
        box = self.row.boxes[j]
        wider = max(box.width, new_word.width + 0.22)
        heads = self.layout.heads
        event = self.event = next(k for k, h in enumerate(heads) if h.reading.head == SUBSTITUTION.changed_head)
        color = chapter_head_color(heads[event].reading.head)
        role = heads[event].label.role_lines[1]
        new_role = get_text(f"{new.role} → {new.word}", font_size=MIN_TEXT_SIZE, color=color)
        new_role.scale(self.layout_factor)               # the labels were scaled with the layout
        new_role.move_to(role, aligned_edge=LEFT)
        new_name = self.get_slot_name(new.word, heads[event])
        align_baseline(new_name, baseline_y(self.slot_words[event]))
        with self.beat(f"Change one word: Ravi {new.word} the glass."):
            # only the word changes here; what followed from the old word (the event role, its message,
            # the guessed next word) dims at once, and changes with the next sentence
            stale = VGroup(role, self.slot_words[event], self.glyphs[event], self.guess)
            self.play(box.animate.stretch_to_fit_width(wider), ReplacementTransform(self.row.words[j], new_word),
                      stale.animate.set_opacity(STALE_OPACITY))
            self.play(Indicate(VGroup(box, new_word), color=TEXT_COLOR, scale_factor=1.2))
        self.event_word = new_word
        self.swap_labels = (role, new_role, new_name)

    def show_new_next_word(self):
        old, new = SUBSTITUTION.changed
        after = SUBSTITUTION.after
        kept = SUBSTITUTION.kept[0]
        heads = self.layout.heads
        event = self.event
        new_glyph = self.get_glyph(heads[event], after).match_height(self.glyphs[event]).move_to(self.glyphs[event])
        stays = self.stays = get_text("kept", font_size=MIN_TEXT_SIZE, color=TEXT_COLOR)
        stays.next_to(self.slot_words[1 - event], RIGHT, buff=0.1)
        new_guess = word_in_box(after.next_word, self.row.blank[0], font_size=self.word_size)
        role, new_role, new_name = self.swap_labels
        # "the next word might be gleamed": the sentence already makes it a word (no "the word" added)
        with self.beat(f"The object clue stays; the event clue changes, and the next word might be "
                       f"“{after.next_word}”.",
                       spoken=f"The object clue stays; the event clue changes, and the next word might be "
                              f"{after.next_word}."):
            self.play(Indicate(VGroup(self.glyphs[1 - event], self.slot_words[1 - event]), color=TEXT_COLOR,
                               scale_factor=1.05),
                      Indicate(self.row.token(kept.position - 1), color=TEXT_COLOR), FadeIn(stays))
            # the event head's role, its message (new shading) and the message's name change together
            self.play(ReplacementTransform(role, new_role), ReplacementTransform(self.slot_words[event], new_name),
                      FadeOut(self.glyphs[event], shift=0.2 * DOWN),
                      TransformFromCopy(self.row.boxes[SUBSTITUTION.position - 1], new_glyph), run_time=1.2)
            self.mark("event clue changes")
            # the old guess no longer follows
            self.play(ReplacementTransform(self.guess, new_guess))
        self.glyphs.submobjects[event] = new_glyph
        self.slot_words.submobjects[event] = new_name
        heads[event].label.role_lines.submobjects[1] = new_role
        self.kept, self.first_guess, self.guess = kept, self.guess, new_guess

    def show_schematic(self):
        with self.beat("These arrows are only a sketch: trained attention may shift after such a swap.",
                       look=1.2):
            self.play(*swap_fine_print(self, SUBSTITUTION_NOTE))
            # the sketch fades back: dimmer arrows while the caveat is said
            self.play(*(Transform(h.arrows, get_dimmed(h.arrows)) for h in self.layout.heads), run_time=1.2)
            self.mark("dim arrows")


# ============================================================================================
# Scene 4 — One shared weight per head
# ============================================================================================


def get_weight_number(value: float, tag: str, index, color: str):
    return get_number(value, places_for([value]), tag=tag, index=index, font_size=NUMBER_SIZE + 2, color=color)


def get_source_column(ill, *, tag: str, column_colors=None, gap: float = 0.55):
    """The two sources, each a word box with its value row beside it."""
    rows = VGroup()
    for s, word in enumerate(ill.sources):
        label = get_text(word, font_size=LABEL_SIZE)
        box = SurroundingRectangle(label, buff=0.1).set_stroke(DIM_TEXT_COLOR, 1.5)
        vec = get_row_vector(ill.V[s], list(ill.coordinates) if s == 0 else None, tag=tag, places=None,
                             column_colors=column_colors)
        # one tag for the whole [2, 2] table: row s of V
        for k, cell in enumerate(vec.entries[0]):
            cell.index = (s, k)
        vec.next_to(box, RIGHT, buff=0.25)
        vec.shift(UP * (box.get_y() - vec.cell_center(0, 0)[1]))
        rows.add(VGroup(VGroup(box, label), vec))
        rows[-1].word, rows[-1].vector = VGroup(box, label), vec
    rows.arrange(DOWN, buff=gap, aligned_edge=LEFT)
    # every value row's bracket in one column, right of the longest word
    x = max(row.word.get_right()[0] for row in rows) + 0.25
    for row in rows:
        row.vector.shift(RIGHT * (x - row.vector.brackets.get_left()[0]))
    return rows


def get_receiver_box(word: str):
    label = get_text(word, font_size=LABEL_SIZE)
    box = SurroundingRectangle(label, buff=0.12).set_stroke(RECEIVER_COLOR, 3).set_fill(RECEIVER_COLOR,
                                                                                        HIGHLIGHT_OPACITY)
    return VGroup(box, label)


def get_flow_curve(start, end, weight: float, color: str, angle: float = 0.0):
    """A source-to-receiver arrow drawn as the attention block draws one: width and opacity from the weight."""
    curve = ArcBetweenPoints(start, end, angle=angle) if angle else Line(start, end)
    curve.set_stroke(color, arrow_stroke(weight), opacity=arrow_opacity(weight))
    size = 0.1 + 0.012 * arrow_stroke(weight)
    curve.add_tip(tip_length=size, tip_width=size * 0.9)
    curve.get_tip().set_fill(color, opacity=arrow_opacity(weight)).set_stroke(color, 0)
    curve.weight = weight
    return curve


def get_product_line(alpha: float, vector, product, *, s: int, color: str):
    """α × [v_a v_b] = [αv_a αv_b], each number with its own precision."""
    a = get_weight_number(alpha, "one_w", s, color)
    times = get_text("×", font_size=LABEL_SIZE)
    vec = get_row_vector(vector, tag="one_v", places=None)
    for k, cell in enumerate(vec.entries[0]):
        cell.index = (s, k)
    equals = get_text("=", font_size=LABEL_SIZE)
    prod = get_row_vector(product, tag="one_product", places=places_for(product), color=color)
    for k, cell in enumerate(prod.entries[0]):
        cell.index = (s, k)
    line = VGroup(a, times, vec, equals, prod).arrange(RIGHT, buff=0.15)
    for m in (a, times, equals):
        m.set_y(vec.cell_center(0, 0)[1])
    line.alpha, line.vector, line.product = a, vec, prod
    return line


def get_sum_line(weights, values, total, *, k: int, color: str, coordinate: str, head: int):
    """head h (coordinate): w₁·v₁ + w₂·v₂ = total, the weights in the head's colour."""
    parts = [get_text(f"head {head} ({coordinate}):", font_size=MIN_TEXT_SIZE + 1, color=color)]
    for s, (w, v) in enumerate(zip(weights, values)):
        if s:
            parts.append(get_text("+", font_size=LABEL_SIZE))
        parts += [get_weight_number(w, "two_w", (k, s), color), get_text("·", font_size=LABEL_SIZE),
                  get_number(v, places_for([v]), tag="two_v", index=(k, s), font_size=NUMBER_SIZE + 2)]
    parts += [get_text("=", font_size=LABEL_SIZE),
              get_number(total, places_for([total]), tag="two_terms_sum", index=k, font_size=NUMBER_SIZE + 2,
                         color=color)]
    line = VGroup(*parts).arrange(RIGHT, buff=0.1)
    for p in parts[1:]:
        p.set_y(parts[1].get_y())
    line.total = parts[-1]
    return line


class OneSharedWeight(ChapterOneScene):
    """Scene 4: one head scales each source's whole value row by one weight and sums them; two heads
    weight the sources separately for their own coordinates; heads learn jointly from the loss, some
    overlap or can be pruned (Voita et al., 2019); more heads are a capacity choice to test."""

    def construct(self):
        ill = self.ill = two_source_illustration()
        self.show_title("One shared weight per head", NUMBERS_BADGE)
        # --- Shot 1: one head, one weight per source ------------------------------------------
        self.shot("one head")
        self.show_sources(ill)
        self.show_one_head_weights(ill)
        self.show_scaled_copies(ill)
        self.show_one_message(ill)
        self.show_shared_weight(ill)
        # --- Shot 2: two heads, each coordinate its own weights --------------------------------
        self.shot("two heads")
        self.show_two_heads(ill)
        self.show_head_lines(ill)
        self.show_difference(ill)
        # --- Shot 3: how heads come to differ ----------------------------------------------------
        self.shot("learning")
        self.show_heads_and_loss()
        self.show_loss_flows_back()
        self.show_overlap()
        self.show_pruning()
        self.show_capacity_choice()

    # pictures ---------------------------------------------------------------------------------
    def get_one_head_panel(self, ill):
        sources = get_source_column(ill, tag="V")
        receiver = get_receiver_box(ill.receiver).next_to(sources, RIGHT, buff=1.2).set_y(sources.get_y())
        message = get_row_vector(ill.one_head_message, list(ill.coordinates), tag="one_message", places=None,
                                 color=ONE_HEAD_COLOR)
        message.next_to(receiver, RIGHT, buff=0.3).shift(UP * (receiver.get_y() - message.cell_center(0, 0)[1]))
        m_label = get_text("message", font_size=MIN_TEXT_SIZE, color=ONE_HEAD_COLOR)
        m_label.next_to(message.brackets, DOWN, buff=0.12)
        arrows, weights = VGroup(), VGroup()
        for s, row in enumerate(sources):
            w = ill.one_head_weights[s]
            start = row.vector.brackets.get_right() + RIGHT * 0.12
            end = receiver.get_left() + (UP if s == 0 else DOWN) * 0.08
            arrows.add(get_flow_curve(start, end, w, ONE_HEAD_COLOR))
            num = get_weight_number(w, "one_arrow_w", s, ONE_HEAD_COLOR)
            num.move_to(arrows[-1].point_from_proportion(0.45) + (UP if s == 0 else DOWN) * 0.22)
            weights.add(num)
        products = VGroup(*(get_product_line(ill.one_head_weights[s], ill.V[s], ill.one_head_products[s], s=s,
                                             color=ONE_HEAD_COLOR) for s in range(len(ill.sources))))
        products.arrange(DOWN, buff=0.2, aligned_edge=RIGHT)
        # close under the sources: the worked sum stays clear of the two-line fine print below it
        products.next_to(VGroup(sources, receiver), DOWN, buff=0.25).align_to(sources, LEFT).shift(RIGHT * 0.35)
        plus = get_text("+", font_size=LABEL_SIZE).next_to(products[1], LEFT, buff=0.15)
        right = products[0].product
        total = get_row_vector(ill.one_head_message, tag="one_sum", places=None, color=ONE_HEAD_COLOR)
        rule = Line(LEFT, RIGHT).set_stroke(TEXT_COLOR, 1.5)
        rule.scale_to_fit_width(right.width + 0.1).next_to(products[1].product, DOWN, buff=0.1)
        rule.set_x(products[1].product.get_x())
        total.next_to(rule, DOWN, buff=0.1).set_x(products[1].product.get_x())
        equals = get_text("=", font_size=LABEL_SIZE).next_to(total, LEFT, buff=0.15)
        equals.set_y(total.cell_center(0, 0)[1])
        # the same weight on every coordinate: a line under both entries of each product, labelled
        spans = VGroup()
        for s, line in enumerate(products):
            cells = line.product.entries[0]
            under = Line(cells.get_corner(DOWN + LEFT) + DOWN * 0.08, cells.get_corner(DOWN + RIGHT) + DOWN * 0.08)
            under.set_stroke(ONE_HEAD_COLOR, 3)
            label = VGroup(get_text("×", font_size=MIN_TEXT_SIZE, color=ONE_HEAD_COLOR),
                           get_number(ill.one_head_weights[s], places_for([ill.one_head_weights[s]]), tag="one_w",
                                      index=s, font_size=MIN_TEXT_SIZE, color=ONE_HEAD_COLOR),
                           get_text(f"on {' and '.join(ill.coordinates)}", font_size=MIN_TEXT_SIZE,
                                    color=ONE_HEAD_COLOR)).arrange(RIGHT, buff=0.08)
            for m in label[::2]:
                align_baseline(m, baseline_y(label[1]))
            label.next_to(line.product.brackets, RIGHT, buff=0.2).set_y(line.product.cell_center(0, 0)[1])
            spans.add(VGroup(under, label))
        addition = VGroup(plus, rule, equals, total)
        addition.plus, addition.rule, addition.equals, addition.total = plus, rule, equals, total
        header = get_head_label(0)
        # the receiver named where it stands, as in scenes 1-3
        tag = get_text("receiver", font_size=MIN_TEXT_SIZE, color=RECEIVER_COLOR).next_to(receiver, UP, buff=0.1)
        panel = VGroup(header, sources, receiver, message, m_label, arrows, weights, products, addition, tag, spans)
        panel.receiver_tag, panel.spans = tag, spans
        header.next_to(VGroup(sources, receiver, message), UP, buff=0.3).align_to(sources, LEFT)
        panel.header, panel.sources, panel.receiver, panel.message = header, sources, receiver, message
        panel.m_label, panel.arrows, panel.weights, panel.products = m_label, arrows, weights, products
        panel.addition = addition
        return panel

    def get_two_head_panel(self, ill):
        colors = [chapter_head_color(h) for h in ill.coordinate_heads]
        # the rows further apart: room between them for the two crossing arrows' weights
        sources = get_source_column(ill, tag="V2", column_colors=colors, gap=1.0)
        receiver = get_receiver_box(ill.receiver).next_to(sources, RIGHT, buff=1.2).set_y(sources.get_y())
        message = get_row_vector(ill.two_head_message, list(ill.coordinates), tag="two_message", places=None,
                                 column_colors=colors)
        message.next_to(receiver, RIGHT, buff=0.3).shift(UP * (receiver.get_y() - message.cell_center(0, 0)[1]))
        m_label = get_text("messages", font_size=MIN_TEXT_SIZE, color=TEXT_COLOR)
        m_label.next_to(message.brackets, DOWN, buff=0.12)
        arrows, arrow_weights = VGroup(), VGroup()
        n_src = len(sources)
        # on the receiver's left edge, top to bottom: river's two arrows, then fisherman's (no crossings)
        left = receiver.get_left()
        for k, (coord, head) in enumerate(zip(ill.coordinates, ill.coordinate_heads)):
            group = VGroup()
            for s, row in enumerate(sources):
                w = ill.two_head_weights[coord][s]
                start = np.array([row.vector.brackets.get_right()[0] + 0.12, row.vector.cell_center(0, 0)[1]
                                  + (0.09 if k == 0 else -0.09), 0])
                slot = s * 2 + k                                 # 0 .. 3, top to bottom
                end = left + UP * (0.15 - 0.1 * slot) + LEFT * 0.02
                group.add(get_flow_curve(start, end, w, colors[k], angle=(-0.25 if s == 0 else 0.25)))
                # each arrow carries its weight at its source end: head 1's above, head 2's below; where
                # the arrow turns towards the number's side (fisherman's up, river's down), the number
                # steps back over the bracket's corner, beside its arrow rather than on it
                num = get_weight_number(w, "two_arrow_w", (k, s), colors[k])
                turns_towards = (k == 0) == (s == 1)
                if turns_towards:
                    num.next_to(start, UP if k == 0 else DOWN, buff=0.2, aligned_edge=RIGHT)
                else:
                    num.next_to(start + RIGHT * 0.05, UP if k == 0 else DOWN, buff=0.1, aligned_edge=LEFT)
                arrow_weights.add(num)
            arrows.add(group)
        lines = VGroup(*(get_sum_line(ill.two_head_weights[c], ill.V[:, k], ill.two_head_message[k], k=k,
                                      color=colors[k], coordinate=c, head=h)
                         for k, (c, h) in enumerate(zip(ill.coordinates, ill.coordinate_heads))))
        lines.arrange(DOWN, buff=0.3, aligned_edge=LEFT)
        lines.next_to(VGroup(sources, receiver), DOWN, buff=0.5).align_to(sources, LEFT)
        header = VGroup(get_head_label(1), get_text("+", font_size=LABEL_SIZE), get_head_label(2)).arrange(RIGHT,
                                                                                                         buff=0.15)
        one_each = get_text("each head: one coordinate", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
        panel = VGroup(header, sources, receiver, message, m_label, arrows, lines, arrow_weights, one_each)
        header.next_to(VGroup(sources, receiver, message), UP, buff=0.3).align_to(sources, LEFT)
        one_each.next_to(header, RIGHT, buff=0.3).align_to(header, DOWN)
        panel.arrow_weights, panel.one_each = arrow_weights, one_each
        panel.header, panel.sources, panel.receiver, panel.message = header, sources, receiver, message
        panel.m_label, panel.arrows, panel.lines = m_label, arrows, lines
        return panel

    def get_panels(self, ill):
        one, two = self.get_one_head_panel(ill), self.get_two_head_panel(ill)
        panels = VGroup(one, two).arrange(RIGHT, buff=0.7, aligned_edge=UP)
        top = get_badge().get_bottom()[1] - 0.25
        bottom = CONTENT_BOTTOM + 0.55
        factor = min(1.0, SAFE_WIDTH / panels.width, (top - bottom) / panels.height)
        panels.scale(factor).move_to(UP * (top + bottom) / 2).set_x(0)
        # the one-head panel starts larger, in the middle, and makes room when the two heads arrive
        self.one_home = one.header.get_center().copy()
        low = CONTENT_BOTTOM + 0.85                    # two lines of fine print under it
        self.one_zoom = max(1.0, min(1.3, SAFE_WIDTH / one.width, (top - low) / one.height))
        one.scale(self.one_zoom).move_to([0, (top + low) / 2, 0])
        return one, two

    # beats: one head --------------------------------------------------------------------------
    def show_sources(self, ill):
        one, two = self.one, self.two = self.get_panels(ill)
        # the values said as well as shown: the message's 8.4 and 2.4 are heard as made from them
        v = [[fmt(x, places_for(ill.V)) for x in row] for row in ill.V]
        # heard before chapter 2 reads it: the sentence said as a preview, and the values said as made up
        # (chapter 2's own rows for these words differ)
        with self.beat(f"Two words from chapter 2’s sentence, {ill.sources[0]} and {ill.sources[1]}, with "
                       f"made-up value rows [{', '.join(v[0])}] and [{', '.join(v[1])}].",
                       spoken=f"A preview of the next chapter’s sentence: {SENTENCES['river']}. Take two of its "
                              f"words with simple made-up values: {ill.sources[0]} sends {' and '.join(v[0])}; "
                              f"{ill.sources[1]} sends {' and '.join(v[1])}."):
            self.play(LaggedStart(*(FadeIn(row) for row in one.sources), lag_ratio=0.3), run_time=1.2)

    def show_one_head_weights(self, ill):
        one = self.one
        shown = [fmt(x, places_for([x])) for x in ill.one_head_weights]
        with self.beat(f"One head reads them for “{ill.receiver}”, with one weight per source: "
                       f"{shown[0]} and {shown[1]}.",
                       spoken=f"One head reads them for the last known word, “{ill.receiver}”, with one "
                              f"weight per source: {shown[0]} and {shown[1]}."):
            self.play(FadeIn(one.header), FadeIn(one.receiver), FadeIn(one.receiver_tag))
            self.play(*(Create(a) for a in one.arrows), FadeIn(one.weights), *swap_fine_print(self, TWO_SOURCES_NOTE))

    def show_scaled_copies(self, ill):
        one = self.one
        w = [fmt(x, places_for([x])) for x in ill.one_head_weights]
        chips = self.scaled_chips = self.get_scaled_chips(one)
        with self.beat(f"Each value row is scaled by its weight: {ill.sources[0]}’s by {w[0]}, "
                       f"{ill.sources[1]}’s by {w[1]}."):
            for s, (line, chip) in enumerate(zip(one.products, chips)):
                # the weight and the row light up where they are, and the product line fades in below
                # (nothing flies across the other rows)
                self.play(Indicate(one.weights[s], color=ONE_HEAD_COLOR, scale_factor=1.3),
                          Indicate(one.sources[s].vector.entries, color=TEXT_COLOR, scale_factor=1.1), run_time=0.7)
                self.play(FadeIn(VGroup(line.alpha, line[1], line.vector), shift=0.15 * DOWN), run_time=0.6)
                self.play(FadeIn(VGroup(line[3], line.product), shift=0.2 * RIGHT), run_time=0.6)
                # a copy of the scaled row rides its source's arrow into the head's message slot
                self.play(MoveAlongPath(chip, path_along(one.arrows[s], chip.get_center(), chip.slot)), run_time=1.0)

    def get_scaled_chips(self, one) -> VGroup:
        """Each source's scaled value row as a copy of its written product, parked in the message slot
        (the first source's above the slot's middle, the second's below) until they add."""
        chips = VGroup()
        slot = one.message.entries.get_center()
        for s, line in enumerate(one.products):
            chip = line.product.entries.copy()
            chip.slot = slot + (UP if s == 0 else DOWN) * 0.24
            chips.add(chip)
        return chips

    def show_one_message(self, ill):
        one = self.one
        m = ill.one_head_message
        shown = [fmt(x, places_for(m)) for x in m]
        add = one.addition
        with self.beat(f"Added up, they give the head’s message: {shown[0]} and {shown[1]}."):
            # written out: a plus, a rule, the sum ...
            self.play(FadeIn(add.plus), Create(add.rule))
            self.play(FadeIn(VGroup(add.equals, add.total), shift=0.15 * DOWN), run_time=0.8)
            # ... and in the slot the two scaled copies add into the head's message, coordinate by coordinate
            river, fisherman = self.scaled_chips
            # (they fade into the sum as they meet: a glyph morph of 8.0 and 0.4 into 8.4 garbles mid-way)
            self.play(*(FadeTransform(VGroup(a, b), cell) for a, b, cell in
                        zip(river[0], fisherman[0], one.message.entries[0])),
                      FadeIn(VGroup(one.message.brackets, one.message.col_labels)), FadeIn(one.m_label),
                      run_time=1.2)
            self.mark("sum")

    def show_shared_weight(self, ill):
        one = self.one
        with self.beat("The same weight scales every coordinate: one shared set of weights for the whole "
                       "message."):
            self.play(*swap_fine_print(self, SHARED_NOTE), run_time=0.5)
            # each weight glows, and one line spans both coordinates of its product: "× 0.8 on a and b"
            for line, span in zip(one.products, one.spans):
                self.play(Indicate(line.alpha, color=ONE_HEAD_COLOR, scale_factor=1.3), run_time=0.6)
                self.play(Create(span[0]), FadeIn(span[1], shift=0.1 * LEFT),
                          *(Indicate(cell, color=ONE_HEAD_COLOR, scale_factor=1.2) for cell in line.product.entries[0]),
                          run_time=0.9)
            self.mark("shared weight")

    # beats: two heads -------------------------------------------------------------------------
    def show_two_heads(self, ill):
        two = self.two
        with self.beat("With two heads, each head’s part of the message gets that head’s weights."):
            # the spans leave the panel (a faded part of a group would stay drawn with it)
            spans = self.one.spans
            self.one.remove(spans)
            self.play(FadeOut(spans), *swap_fine_print(self, None), run_time=0.5)
            home = self.one.copy().scale(1 / self.one_zoom)
            self.play(self.one.animate.scale(1 / self.one_zoom).shift(self.one_home - home.header.get_center()))
            self.play(FadeIn(two.header), FadeIn(two.sources), FadeIn(two.receiver), FadeIn(two.one_each))

    def show_head_lines(self, ill):
        two = self.two
        c1, c2 = ill.coordinates
        big = ill.leans_on
        # short enough for one line (no coordinate name left alone on a second line)
        w = [fmt(max(ill.two_head_weights[c]), places_for([max(ill.two_head_weights[c])])) for c in (c1, c2)]
        with self.beat(f"Head 1 puts {w[0]} on {big[0]} for coordinate {c1}; head 2 puts {w[1]} on {big[1]} for {c2}.",
                       spoken=f"Head one puts {w[0]} on {big[0]} for the first coordinate; head two puts {w[1]} on "
                              f"{big[1]} for the second."):
            # the arrows, each with its weight, arrive with the sentence that reads them
            self.play(*(Create(a) for group in two.arrows for a in group), FadeIn(two.arrow_weights), run_time=1.4)
            self.mark("two arrows")
            for k, line in enumerate(two.lines):
                self.play(FadeIn(line), Indicate(two.arrows[k], color=line[0].get_color(), scale_factor=1.03),
                          run_time=1.0)
            self.play(*(FadeOut(line.total.copy(), target_position=two.message.entries[0][k])
                        for k, line in enumerate(two.lines)), FadeIn(two.message.entries, scale=0.8),
                      FadeIn(VGroup(two.message.brackets, two.message.col_labels)), FadeIn(two.m_label))

    def show_difference(self, ill):
        k = ill.most_different
        c = ill.coordinates[k]
        one_v, two_v = ill.one_head_message[k], ill.two_head_message[k]
        p = places_for([one_v, two_v])
        # boxes drawn around the numbers themselves, clear of the closing brackets
        boxes = self.compare_boxes = VGroup(
            SurroundingRectangle(self.one.message.cell(0, k), buff=0.07).set_stroke(TEXT_COLOR, 2),
            SurroundingRectangle(self.two.message.cell(0, k), buff=0.07).set_stroke(
                chapter_head_color(ill.coordinate_heads[k]), 2))
        text = (f"So coordinate {c} rises from {fmt(one_v, p)} to {fmt(two_v, p)}: the {ill.sources[1]}’s "
                "feature comes through.")
        # a lone "a" or "b" is heard as a word: the voice names the coordinate by its place instead
        with self.beat(text, spoken=text.replace(f"coordinate {c} ", f"the {('first', 'second')[k]} coordinate ")):
            self.play(Create(boxes))

    # beats: learning --------------------------------------------------------------------------
    def get_learning_diagram(self):
        patterns = OVERLAPPING_HEADS
        heads = VGroup()
        for h, pattern in zip(patterns.heads, patterns.patterns):
            color = chapter_head_color(h)
            frame = RoundedRectangle(width=1.6, height=0.7, corner_radius=0.1).set_stroke(color, 2.5)
            frame.set_fill(color, 0.08)
            bars = VGroup(*(Line(ORIGIN_DOWN, ORIGIN_DOWN + UP * (0.08 + 0.75 * w)).set_stroke(color, 7)
                            for w in pattern)).arrange(RIGHT, buff=0.18, aligned_edge=DOWN)
            bars.move_to(frame).align_to(frame, DOWN).shift(UP * 0.12)
            name = get_text(f"head {h}", font_size=MIN_TEXT_SIZE, color=color).next_to(frame, LEFT, buff=0.15)
            # what learns: the head's own projections, on a tab at the box's right edge (the arrows land there)
            own = VGroup(*(get_subscripted("W", sub, font_size=MIN_TEXT_SIZE + 1, color=color) for sub in "QKV"))
            own.arrange(RIGHT, buff=0.1)
            tab = RoundedRectangle(width=own.width + 0.2, height=frame.height, corner_radius=0.1)
            tab.set_stroke(color, 2).set_fill(color, 0.18).next_to(frame, RIGHT, buff=0)
            own.move_to(tab)
            head = VGroup(frame, bars, name, tab, own)
            head.frame, head.bars, head.name, head.index = frame, bars, name, h
            head.tab, head.own = tab, own
            heads.add(head)
        heads.arrange(DOWN, buff=0.22, aligned_edge=RIGHT)

        def block(text, color=TEXT_COLOR, label=None, height=0.6):
            label = label or get_text(text, font_size=LABEL_SIZE, color=color)
            frame = RoundedRectangle(width=label.width + 0.4, height=height, corner_radius=0.1).set_stroke(color, 2)
            return VGroup(frame, label.move_to(frame))

        # W_O with a real subscript, tall enough for one arrow in and one back per head
        w_o = block("W_O", label=get_subscripted("W", "O", font_size=LABEL_SIZE + 2), height=1.2)
        prediction = block("prediction")
        loss = block("loss vs. the next word", GRADIENT_COLOR)
        chain = VGroup(w_o, prediction, loss).arrange(RIGHT, buff=0.7)
        chain.next_to(heads, RIGHT, buff=1.2)
        # what W_O is for, said once (chapter 1 never introduced it)
        w_o.name = get_text("combines the heads", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
        # under the box, clear of the heads' arrows in and back
        w_o.name.next_to(w_o, DOWN, buff=0.12).align_to(w_o, LEFT).shift(RIGHT * 0.1)
        # on W_O's left edge, top to bottom: head 1 in, head 1 back, head 2 in, ... (no crossings)
        n = len(heads)
        ends = [w_o.get_left() + UP * (0.5 - 1.0 * i / (2 * n - 1)) for i in range(2 * n)]
        forward = VGroup(*(get_arrow(h.tab.get_right() + UP * 0.1, ends[2 * k], buff=0.26)
                           for k, h in enumerate(heads)),
                         get_arrow(w_o.get_right(), prediction.get_left()),
                         get_arrow(prediction.get_right(), loss.get_left()))
        # the correction flows back along the same path, just under it: loss -> prediction -> W_O -> heads
        def back(start, end):
            line = DashedVMobject(get_arrow(start, end, color=GRADIENT_COLOR, buff=0.05), num_dashes=12)
            return line.set_stroke(GRADIENT_COLOR, 2.5)

        low = DOWN * 0.26
        back_chain = VGroup(back(loss.get_left() + low, prediction.get_right() + low),
                            back(prediction.get_left() + low, w_o.get_right() + low))
        # each head's arrow back runs parallel to its arrow in, just under it (no X at the head)
        def back_to(k, h):
            start, tail = ends[2 * k + 1], h.tab.get_right() + UP * 0.1
            end = tail + (ends[2 * k + 1] - ends[2 * k])
            return back(start, end + (start - end) / np.linalg.norm(start - end) * 0.2)

        backward = VGroup(*(back_to(k, h) for k, h in enumerate(heads)))
        title = get_text("attention patterns", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
        title.next_to(heads, UP, buff=0.15).align_to(heads[0].frame, LEFT)
        diagram = VGroup(title, heads, chain, w_o.name, forward, back_chain, backward)
        diagram.heads, diagram.chain, diagram.forward, diagram.backward = heads, chain, forward, backward
        diagram.back_chain, diagram.loss, diagram.title = back_chain, loss, title
        return diagram

    def show_heads_and_loss(self):
        diagram = self.diagram = self.get_learning_diagram()
        top = self.badge.get_bottom()[1] - 0.3
        bottom = CONTENT_BOTTOM + 0.5 + 0.8          # the fine print, then the head-count choice
        # a margin of ~40 px each side: the loss box clear of the frame's right edge
        factor = min(1.15, (SAFE_WIDTH - 0.9) / diagram.width, (top - bottom) / diagram.height)
        diagram.scale(factor).move_to(UP * (top + bottom) / 2).set_x(0)
        two = self.two
        # the numbers are about to go: the badge now says what is illustrative here
        badge = get_badge(PATTERNS_BADGE)
        with self.transition("patterns badge"):
            self.play(ReplacementTransform(self.badge, badge), run_time=0.5)
        self.badge = badge
        # the numbers give way as the diagram arrives, but for the two heads' names and arrows, which
        # move on into it
        self.clear_stage(self.title, self.badge, two.header, two.arrows)
        with self.beat("In a trained model with more heads, no one picks the projections behind such weights."):
            # the two heads just seen become the first rows of a bigger model: their names move to
            # its rows and their arrows fold into the rows' patterns; a third head joins them
            heads = diagram.heads
            names = [two.header[0], two.header[2]]
            # the numbers leave first (the stage clears as the diagram's title arrives)...
            self.play(FadeIn(diagram.title), FadeOut(two.header[1]), run_time=0.7)
            # ...then the two heads move across into their rows
            self.play(*(ReplacementTransform(name, h.name) for name, h in zip(names, heads)),
                      *(FadeOut(a, target_position=h.frame.get_center(), scale=0.3) for a, h in zip(two.arrows, heads)),
                      *(FadeIn(VGroup(h.frame, h.bars, h.tab, h.own), target_position=a.get_center(), scale=0.5)
                        for a, h in zip(two.arrows, heads)), run_time=1.4)
            self.play(LaggedStart(*(FadeIn(h) for h in heads[len(names):]), lag_ratio=0.2), run_time=0.6)
            self.add(*heads)    # each head's parts back in one group, so later beats move a head whole
            self.play(*(Indicate(h.own, color=chapter_head_color(h.index), scale_factor=1.15) for h in diagram.heads))
        with self.beat("Every head feeds one prediction, scored by one loss."):
            self.play(LaggedStart(*(Create(a) for a in diagram.forward), *(FadeIn(b) for b in diagram.chain),
                                  FadeIn(diagram.chain[0].name), lag_ratio=0.15), run_time=1.6)

    def show_loss_flows_back(self):
        diagram = self.diagram
        with self.beat("Its correction flows back into every head at once: all their projections learn "
                       "together."):
            self.play(Indicate(diagram.loss, color=GRADIENT_COLOR), *swap_fine_print(self, JOINT_NOTE))
            self.play(LaggedStart(*(Create(b) for b in diagram.back_chain), lag_ratio=1.0), run_time=1.0)
            # into every head at once
            self.play(*(Create(b) for b in diagram.backward), run_time=1.0)

    def show_overlap(self):
        heads = self.diagram.heads
        a, b = OVERLAPPING_HEADS.closest_pair
        pair = [h for h in heads if h.index in (a, b)]
        # around the two whole rows (name, pattern and W tab), padded clear of them all
        frame = SurroundingRectangle(VGroup(*(VGroup(h.frame, h.name, h.tab) for h in pair)), buff=0.11,
                                     corner_radius=0.08).set_stroke(TEXT_COLOR, 1.5)
        label = get_text("read almost alike", font_size=MIN_TEXT_SIZE, color=TEXT_COLOR)
        label.next_to(frame, DOWN, buff=0.1).align_to(frame, LEFT)
        self.overlap_mark = VGroup(frame, label)
        with self.beat(f"With more heads, clear roles sometimes emerge, but some overlap: here heads {a} and {b} "
                       "read almost alike.",
                       spoken=f"With more heads, clear roles sometimes emerge, but some overlap: here, head "
                              f"{count_word(a)} and head {count_word(b)} read almost alike."):
            self.play(*(Indicate(h.bars, color=TEXT_COLOR, scale_factor=1.15) for h in pair),
                      *swap_fine_print(self, PRUNE_NOTE))
            self.play(Create(frame), FadeIn(label))

    def show_pruning(self):
        diagram = self.diagram
        k = OVERLAPPING_HEADS.heads.index(OVERLAPPING_HEADS.prunable)
        head = diagram.heads[k]
        ghost = DashedVMobject(head.frame.copy().set_fill(opacity=0), num_dashes=30).set_stroke(DIM_TEXT_COLOR, 2)
        pruned = get_text("pruned", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR).move_to(head.frame)
        self.pruned = VGroup(ghost, pruned)
        # the authors said once; the full citation stays in the fine print (the notes' words)
        with self.beat("Some heads can even be pruned away: see Voita and colleagues."):
            self.play(FadeOut(head.frame), FadeOut(head.bars), FadeOut(head.tab), FadeOut(head.own),
                      FadeOut(diagram.forward[k]), FadeOut(self.overlap_mark),
                      FadeOut(diagram.backward[k]), FadeIn(ghost), FadeIn(pruned), head.name.animate.set_opacity(0.5),
                      run_time=1.4)

    def show_capacity_choice(self):
        # chapter 3 compares one head with four: those two stand out
        # emphasis in white (yellow is the receiver's alone)
        choices = VGroup(*(get_text(str(n), font_size=BODY_SIZE,
                                    color=TEXT_COLOR if n in (1, 4) else DIM_TEXT_COLOR) for n in (1, 2, 4, 8)))
        choices.arrange(RIGHT, buff=0.5)
        question = get_text("how many heads?", font_size=LABEL_SIZE, color=TEXT_COLOR)
        row = VGroup(question, choices).arrange(RIGHT, buff=0.4)
        group = self.capacity = VGroup(row)
        group.next_to(self.diagram, DOWN, buff=0.35).set_x(0)
        # drawn where the numbers now stand
        marks = self.capacity_marks = VGroup(*(SurroundingRectangle(choices[k], buff=0.1, corner_radius=0.05)
                                               .set_stroke(TEXT_COLOR, 2) for k in (0, 2)))
        with self.beat("How many heads? A choice to test: chapter 3 compares one head with four."):
            self.play(*swap_fine_print(self, CAPACITY_NOTE))
            self.play(FadeIn(question, shift=0.2 * UP))
            self.play(LaggedStart(*(FadeIn(c, scale=1.3) for c in choices), lag_ratio=0.3), run_time=1.2)
            self.play(Create(marks))


ORIGIN_DOWN = np.array([0.0, 0.0, 0.0])


__all__ = [
    "CAVEAT", "ARROWS_NOTE", "CAVEAT_BADGE", "NUMBERS_BADGE", "ONE_HEAD_COLOR", "THIRD_HEAD_COLOR",
    "chapter_head_color", "get_badge", "get_width_legend", "get_head_label", "ThreeHeadsSevenRows",
    "TheReceiver", "ParallelHeads", "OneSharedWeight",
]
