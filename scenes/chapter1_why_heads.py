"""Chapter 1, scenes 1–4: why several heads?

The word-only examples (coat, dogs near the gate, Ravi's glass) come from
`lesson_data.word_examples`; the numbers of scene 4 from `lesson_data.worksheet.two_source_illustration`.
Captions follow the lesson notes (docs/lesson-notes.txt), paragraphs 1–5: the arrows are possible readings
of plausible useful sources, not measured attention, and every other source still gets some weight.

    manim -pql scenes/chapter1_why_heads.py ThreeHeadsSevenRows
    manim -pql scenes/chapter1_why_heads.py TheReceiver
    manim -pql scenes/chapter1_why_heads.py ParallelHeads
    manim -pql scenes/chapter1_why_heads.py OneSharedWeight
"""
from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    PI,
    RIGHT,
    UP,
    ArcBetweenPoints,
    Create,
    DashedVMobject,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    Line,
    Rectangle,
    SurroundingRectangle,
    VGroup,
)

from lesson_data.word_examples import COAT, EVENT_AND_REFERENCE, SUBJECT_AGREEMENT, WordExample
from lesson_data.worksheet import two_source_illustration
from scenes.blocks.labeled_matrix import get_labeled_matrix, get_row_vector
from scenes.blocks.scalar_vector_product import get_scalar_vector_product
from scenes.style import (
    BODY_SIZE,
    BUFF,
    BUFF_SMALL,
    CONTENT_BOTTOM,
    CONTENT_CENTER,
    CONTENT_TOP,
    DIM_TEXT_COLOR,
    HIGHLIGHT_OPACITY,
    LABEL_SIZE,
    NEGATIVE_COLOR,
    NUMBER_SIZE,
    RECEIVER_COLOR,
    SAFE_WIDTH,
    SMALL_SIZE,
    TEXT_COLOR,
    THEME,
    WIDE_HEAD_COLOR,
    LessonScene,
    align_baseline,
    baseline_y,
    count_word,
    get_number,
    get_text,
    get_title,
    head_color,
)

# The notes' caveat for the word-only examples (paragraph 1); on screen in scenes 1–3.
CAVEAT = ("These next examples illustrate possible readings, not attention measured in our trained "
          "language model.")
CAVEAT_BADGE = "illustration: possible readings, not measured attention"
ARROWS_NOTE = ("The arrows highlight plausible useful sources; they do not mean all other sources are "
               "masked or have exactly zero weight.")
# A third head needs a third Okabe–Ito colour; chapter 1 shows no signs, so the bluish green is free.
THIRD_HEAD_COLOR = THEME.positive
FAINT_OPACITY = 0.45


def role_head_color(k: int) -> str:
    """Colour of head k (1-based) in the word-only illustrations."""
    return THIRD_HEAD_COLOR if k == 3 else head_color(k)


# ============================================================================================
# Shared builders: token strip, reading arcs, legend, badge
# ============================================================================================


def get_badge(text: str = CAVEAT_BADGE) -> VGroup:
    """A small, persistent caveat under the title (the notes' 'illustrative' stays on screen)."""
    label = get_text(text, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    frame = SurroundingRectangle(label, buff=0.08, corner_radius=0.06).set_stroke(DIM_TEXT_COLOR, 1)
    badge = VGroup(frame, label)
    badge.move_to(CONTENT_TOP * UP + DOWN * badge.height / 2)
    return badge


def fit_below_badge(mob, badge, bottom: float = CONTENT_BOTTOM):
    """Scale `mob` down (never up) into the space between the badge and `bottom`, and centre it there."""
    top = badge.get_bottom()[1] - 0.2
    factor = min(1.0, SAFE_WIDTH / mob.width, (top - bottom) / mob.height)
    if factor < 1.0:
        mob.scale(factor)
    return mob.move_to(UP * (top + bottom) / 2)


def place_in_box(text, box):
    """Centre a word in its box on a common baseline (so “the”, “dogs” and “.” sit on one line)."""
    ref = get_text("Mx", font_size=text.font_size).move_to(box)
    text.set_x(box.get_x())
    return align_baseline(text, baseline_y(ref))


def get_token_strip(example: WordExample, font_size: float = BODY_SIZE - 4, *, positions=True,
                    box_height: float = 0.56) -> VGroup:
    """The example's known tokens as boxes (receiver in the receiver colour), its blank (if any) as a
    dashed box, and the one-based positions below."""
    tokens = VGroup()
    for p, word in enumerate(example.tokens, start=1):
        text = get_text(word, font_size=font_size)
        box = Rectangle(width=max(text.width + 0.26, 0.5), height=box_height)
        if p == example.receiver:
            box.set_stroke(RECEIVER_COLOR, 3).set_fill(RECEIVER_COLOR, HIGHLIGHT_OPACITY)
        else:
            box.set_stroke(DIM_TEXT_COLOR, 1.5)
        tokens.add(VGroup(box, text))
    row = VGroup(*tokens)
    blank = VGroup()
    if example.has_blank:
        blank_text = get_text("___", font_size=font_size, color=DIM_TEXT_COLOR)
        blank_box = DashedVMobject(Rectangle(width=1.2, height=box_height), num_dashes=26)
        blank_box.set_stroke(DIM_TEXT_COLOR, 1.5)
        blank = VGroup(blank_box, blank_text)
        row.add(blank)
    row.arrange(RIGHT, buff=0.12)
    for token in row:
        place_in_box(token[1], token[0])
    numbers = VGroup()
    if positions:
        for p, token in enumerate(tokens, start=1):
            numbers.add(get_text(str(p), font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
                        .next_to(token, DOWN, buff=0.1))
    strip = VGroup(row, numbers)
    strip.tokens, strip.blank, strip.positions, strip.example = tokens, blank, numbers, example
    return strip


def token_box(strip, position: int):
    """The box of the token at a one-based position."""
    return strip.tokens[position - 1][0]


def get_reading_arc(strip, source: int, *, color=DIM_TEXT_COLOR, width=1.5, opacity=FAINT_OPACITY,
                    below=False, angle=PI / 3):
    """One arrow from a source row to the receiver, curving above (or below) the strip.

    The receiver reads itself too: that arrow is a small loop over its own box.
    """
    receiver = strip.example.receiver
    rbox = token_box(strip, receiver)
    side = DOWN if below else UP
    edge = (strip.get_bottom()[1] - 0.08) if below else None

    def anchor(box, dx=0.0):
        y = edge if below else box.get_top()[1] + 0.04
        return np.array([box.get_center()[0] + dx, y, 0.0])

    if source == receiver:
        start, end = anchor(rbox, -0.16), anchor(rbox, 0.16)
        arc = ArcBetweenPoints(start, end, angle=(1.4 * PI) * (1 if below else -1))
    else:
        # land left of the receiver's centre so the loop stays readable
        start, end = anchor(token_box(strip, source)), anchor(rbox, -0.08)
        arc = ArcBetweenPoints(start, end, angle=angle * (1 if below else -1))
    arc.set_stroke(color, width, opacity=opacity)
    arc.add_tip(tip_length=0.13 if width < 3 else 0.18, tip_width=0.11 if width < 3 else 0.16)
    arc.get_tip().set_fill(color, opacity=opacity).set_stroke(color, 0, opacity=opacity)
    arc.side = side
    return arc


def get_reading_arcs(strip, highlights: dict, *, below=False, angle=PI / 3) -> VGroup:
    """Faint arrows from EVERY known row (receiver included) to the receiver, and bright arrows in
    a head's colour from the plausible useful sources in `highlights` ({position: colour})."""
    receiver = strip.example.receiver
    faint = VGroup(*(get_reading_arc(strip, p, below=below, angle=angle)
                     for p in range(1, receiver + 1) if p not in highlights))
    bright = VGroup(*(get_reading_arc(strip, p, color=c, width=4, opacity=1.0, below=below, angle=angle)
                      for p, c in highlights.items()))
    arcs = VGroup(faint, bright)
    arcs.faint, arcs.bright = faint, bright
    arcs.count = receiver  # one arrow per known row
    return arcs


def get_arrow_legend(color=head_color(1)) -> VGroup:
    """Faint arrow = read, not masked, weight not zero; bright = a plausible useful source."""
    def sample(c, w, o):
        a = ArcBetweenPoints(LEFT * 0.3, RIGHT * 0.3, angle=-PI / 3).set_stroke(c, w, opacity=o)
        a.add_tip(tip_length=0.13, tip_width=0.11)
        a.get_tip().set_fill(c, opacity=o).set_stroke(c, 0, opacity=o)
        return a

    faint = VGroup(sample(DIM_TEXT_COLOR, 1.5, FAINT_OPACITY),
                   get_text("every known row is read (not masked, weight not zero)", font_size=SMALL_SIZE,
                            color=DIM_TEXT_COLOR)).arrange(RIGHT, buff=0.15)
    bright = VGroup(sample(color, 4, 1.0),
                    get_text("plausible useful source", font_size=SMALL_SIZE, color=TEXT_COLOR)
                    ).arrange(RIGHT, buff=0.15)
    legend = VGroup(bright, faint).arrange(RIGHT, buff=0.6)
    legend.move_to((CONTENT_BOTTOM + 0.22) * UP)
    return legend


def get_role_label(k: int, role: str, word: str, color: str) -> VGroup:
    """'head k' over 'possible role: role → word' in the head's colour."""
    head = get_text(f"head {k}", font_size=LABEL_SIZE, color=color)
    role_text = get_text(f"possible role: {role} → {word}", font_size=SMALL_SIZE + 1, color=color)
    return VGroup(head, role_text).arrange(DOWN, aligned_edge=LEFT, buff=0.08)


def get_word_label(lines, color=TEXT_COLOR, font_size=SMALL_SIZE) -> VGroup:
    return VGroup(*(get_text(t, font_size=font_size, color=color) for t in lines)).arrange(DOWN, buff=0.06)


def show_caveat(scene: LessonScene, title_text: str) -> None:
    """Title, the persistent badge and the notes' caveat sentence as the first caption."""
    title = get_title(title_text)
    scene.badge = get_badge()
    scene.play(FadeIn(title), FadeIn(scene.badge))
    scene.caption(CAVEAT)


# ============================================================================================
# Scene 1 — Three heads, seven rows
# ============================================================================================


class ThreeHeadsSevenRows(LessonScene):
    def construct(self):
        ex = COAT
        self.example = ex
        n, receiver = ex.n, ex.receiver_word
        # --- Shot 1: the caveat -----------------------------------------------------------------
        self.shot("caveat")
        show_caveat(self, f"Three heads, {count_word(n)} rows")

        # --- Shot 2: seven rows, the receiver coat ---------------------------------------------
        self.shot("rows")
        self.finish_reading()
        strip = get_token_strip(ex).move_to(CONTENT_CENTER + DOWN * 0.2)
        self.strip = strip
        self.play(LaggedStart(*(FadeIn(t, shift=0.2 * UP) for t in strip.tokens), lag_ratio=0.12), run_time=1.6)
        self.play(FadeIn(strip.positions))
        receiver_label = get_text("receiver", font_size=LABEL_SIZE, color=RECEIVER_COLOR)
        receiver_label.next_to(strip.positions[-1], DOWN, buff=0.12)
        self.receiver_label = receiver_label
        self.play(FadeIn(receiver_label, shift=0.2 * UP), Indicate(token_box(strip, ex.receiver),
                                                                    color=RECEIVER_COLOR))
        self.caption("A query is a numerical vector, not an English question. "
                     "Each source also has a numerical key and value.")

        # --- Shot 3: one head reads every row, several attributes at once ----------------------
        self.shot("one head")
        self.finish_reading()
        one_color = head_color(1)
        arcs = get_reading_arcs(strip, {s.position: one_color for s in ex.sources})
        self.one_head_arcs = arcs
        label = get_text("one head", font_size=LABEL_SIZE, color=one_color)
        label.next_to(strip.tokens, LEFT, buff=0.4)
        legend = get_arrow_legend(one_color)
        self.legend = legend
        self.play(FadeIn(label), Create(arcs.faint), run_time=1.5)
        self.play(Create(arcs.bright), FadeIn(legend), run_time=1.2)
        self.caption(ARROWS_NOTE)
        self.caption("One head can read several words and carry several features in its message. "
                     "It uses one shared set of source weights for all coordinates of that message.")

        # --- Shot 4: three heads, each reading all seven rows ----------------------------------
        self.shot("three heads")
        self.finish_reading()
        self.play(FadeOut(VGroup(strip, arcs, label, receiver_label)))
        rows = self.get_three_heads(ex, self.badge, self.legend.get_top()[1] + 0.15)
        self.heads = rows
        # parallel: all three heads appear together
        self.play(*(FadeIn(VGroup(r.strip, r.label)) for r in rows))
        self.play(*(Create(r.arcs.faint) for r in rows), run_time=1.5)
        self.play(*(Create(r.arcs.bright) for r in rows), run_time=1.2)
        self.caption("This is a possible division of work, not three manually assigned jobs.")
        loops = [a for r in rows for a in r.arcs.faint if self.is_self_loop(a, r.strip)]
        self.play(*(Indicate(token_box(r.strip, ex.receiver), color=RECEIVER_COLOR) for r in rows),
                  *(a.animate.set_stroke(opacity=1.0) for a in loops))
        self.caption(f"All three heads see all {count_word(n)} rows, including {receiver}.")
        self.caption("Head-specific projections can expose different matching and value features.")
        self.caption("A single head may also encode several attributes; the extra capability is independent "
                     "source weighting, not a rule that each head can understand only one concept.")
        self.caption("In deeper layers, source rows can already contain context.")
        self.finish_reading(extra=1.0)

    @staticmethod
    def is_self_loop(arc, strip) -> bool:
        box = token_box(strip, strip.example.receiver)
        return abs(arc.get_start()[0] - box.get_center()[0]) < 0.3

    @staticmethod
    def get_three_heads(ex, badge, bottom) -> VGroup:
        """One strip per head, each with arrows from all rows; the head's possible role at the left."""
        rows = VGroup()
        for k, source in enumerate(ex.sources, start=1):
            color = role_head_color(k)
            strip = get_token_strip(ex, font_size=BODY_SIZE - 6, positions=False, box_height=0.46)
            arcs = get_reading_arcs(strip, {source.position: color}, angle=PI / 4)
            label = get_role_label(k, source.role, source.word, color)
            label.next_to(strip, LEFT, buff=0.5)
            row = VGroup(label, strip, arcs)
            row.label, row.strip, row.arcs, row.source = label, strip, arcs, source
            rows.add(row)
        rows.arrange(DOWN, buff=0.22, aligned_edge=RIGHT)
        left = min(r.label.get_left()[0] for r in rows)
        for r in rows:
            r.label.set_x(left + r.label.width / 2)
        fit_below_badge(rows, badge, bottom)
        return rows


# ============================================================================================
# Scene 2 — The receiver
# ============================================================================================


def get_prefix_bracket(strip, last: int, text: str, y: float | None = None) -> VGroup:
    """A flat bracket spanning tokens 1..last, at height y (default: just below the positions)."""
    left = strip.tokens[0].get_left()[0]
    right = strip.tokens[last - 1].get_right()[0]
    y = strip.get_bottom()[1] - 0.15 if y is None else y
    lines = VGroup(Line([left, y + 0.1, 0], [left, y, 0]), Line([left, y, 0], [right, y, 0]),
                   Line([right, y, 0], [right, y + 0.1, 0])).set_stroke(TEXT_COLOR, 1.5)
    label = get_text(text, font_size=SMALL_SIZE, color=TEXT_COLOR).next_to(lines, DOWN, buff=0.1)
    return VGroup(lines, label)


class TheReceiver(LessonScene):
    def construct(self):
        ex = SUBJECT_AGREEMENT
        self.example = ex
        subject, nearer = ex.sources
        # --- Shot 1: the caveat -----------------------------------------------------------------
        self.shot("caveat")
        show_caveat(self, "The receiver")

        # --- Shot 2: the prefix, the receiver and the unknown next word ------------------------
        self.shot("receiver")
        self.finish_reading()
        strip = get_token_strip(ex, font_size=BODY_SIZE - 2).move_to(CONTENT_CENTER + UP * 0.1)
        self.strip = strip
        self.play(LaggedStart(*(FadeIn(t, shift=0.2 * UP) for t in strip.tokens), lag_ratio=0.12), run_time=1.5)
        self.play(FadeIn(strip.blank), FadeIn(strip.positions))
        rbox = token_box(strip, ex.receiver)
        receiver_label = get_word_label(["receiver:", "last known token"], RECEIVER_COLOR)
        receiver_label.next_to(strip.positions[-1], DOWN, buff=0.12)
        blank_label = get_word_label(["unknown next word:", "no query yet"], DIM_TEXT_COLOR)
        blank_label.next_to(strip.blank, DOWN, buff=0.12).align_to(receiver_label, UP)
        blank_label.shift(RIGHT * max(0.0, receiver_label.get_right()[0] + 0.2 - blank_label.get_left()[0]))
        self.receiver_label, self.blank_label = receiver_label, blank_label
        self.play(FadeIn(receiver_label), Indicate(rbox, color=RECEIVER_COLOR))
        self.play(FadeIn(blank_label))
        self.caption(f"The receiver is {ex.receiver_word}, the last known token—not the as-yet-unknown word "
                     f"{ex.next_word}.")

        # --- Shot 3: dogs controls agreement, gate does not ------------------------------------
        self.shot("sources")
        self.finish_reading()
        color = head_color(1)
        arcs = get_reading_arcs(strip, {subject.position: color})
        self.arcs = arcs
        self.play(Create(arcs.faint), run_time=1.2)
        self.play(Create(arcs.bright), Indicate(token_box(strip, subject.position), color=color))
        subject_label = get_word_label([subject.role], color).next_to(strip.positions[subject.position - 1],
                                                                      DOWN, buff=0.12)
        nearer_label = get_word_label([nearer.role, nearer.note.replace("subject ", "")], NEGATIVE_COLOR)
        nearer_label.next_to(strip.positions[nearer.position - 1], DOWN, buff=0.12)
        # keep the gate label clear of the receiver's label on its right
        overlap = nearer_label.get_right()[0] + 0.2 - receiver_label.get_left()[0]
        if overlap > 0:
            nearer_label.shift(LEFT * overlap)
        self.subject_label, self.nearer_label = subject_label, nearer_label
        # outlines tie each label to its word
        subject_mark = token_box(strip, subject.position).copy().set_fill(opacity=0).set_stroke(color, 3)
        nearer_mark = token_box(strip, nearer.position).copy().set_fill(opacity=0).set_stroke(NEGATIVE_COLOR, 3)
        legend = get_arrow_legend(color)
        self.legend = legend
        self.play(FadeIn(subject_label), FadeIn(subject_mark), FadeIn(legend))
        self.caption(ARROWS_NOTE)
        self.play(FadeIn(nearer_label), FadeIn(nearer_mark))

        # --- Shot 4: one possible continuation -------------------------------------------------
        self.shot("continuation")
        self.finish_reading()
        guess = place_in_box(get_text(ex.next_word, font_size=BODY_SIZE - 2, color=color), strip.blank[0])
        wrong = get_text(ex.not_next_word, font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
        wrong.next_to(strip.blank, UP, buff=0.45)
        strike = Line(wrong.get_left(), wrong.get_right()).set_stroke(NEGATIVE_COLOR, 2.5)
        possible = get_text("possible", font_size=SMALL_SIZE, color=color).next_to(strip.blank, RIGHT, buff=0.12)
        self.guess, self.wrong = guess, VGroup(wrong, strike)
        self.play(FadeOut(strip.blank[1]), FadeIn(guess), FadeIn(possible))
        self.caption(f"“{ex.continuation}” is one possible continuation.")
        self.play(FadeIn(wrong), Create(strike))
        self.caption(f"{subject.word.capitalize()} supports {ex.next_word}, not {ex.not_next_word}; "
                     f"the nearer singular noun {nearer.word} does not control subject agreement.")

        # --- Shot 5: both sources lie in the known prefix --------------------------------------
        self.shot("known prefix")
        self.finish_reading()
        lowest = min(m.get_bottom()[1] for m in (subject_label, nearer_label, receiver_label, blank_label))
        bracket = get_prefix_bracket(strip, ex.receiver, f"known prefix: positions 1–{ex.receiver}",
                                     y=lowest - 0.15)
        self.prefix_bracket = bracket
        self.play(FadeIn(bracket))
        self.play(*(Indicate(token_box(strip, s.position), color=TEXT_COLOR) for s in ex.sources))
        self.caption("Both useful source words occur before the receiver.")
        self.caption("These semantic roles are illustrative, not measured trained heads.")
        self.finish_reading(extra=1.0)


# ============================================================================================
# Scene 3 — Parallel heads
# ============================================================================================


class ParallelHeads(LessonScene):
    def construct(self):
        ex = EVENT_AND_REFERENCE
        self.example = ex
        referent, event = ex.source("referent"), ex.source("event")
        # --- Shot 1: the caveat -----------------------------------------------------------------
        self.shot("caveat")
        show_caveat(self, "Parallel heads")

        # --- Shot 2: punctuation is a token; It is receiver 6 ----------------------------------
        self.shot("tokens")
        self.finish_reading()
        layout = self.get_layout(ex, referent, event)
        strip, above, below = layout.strip, layout.above, layout.below
        self.strip, self.arcs, self.head_labels = strip, VGroup(above, below), layout.labels
        self.play(LaggedStart(*(FadeIn(t, shift=0.2 * UP) for t in strip.tokens), lag_ratio=0.12), run_time=1.5)
        self.play(FadeIn(strip.blank), FadeIn(strip.positions))
        punct = next(p for p, w in enumerate(ex.tokens, start=1) if not w[0].isalnum())
        self.punctuation = punct
        punct_label = get_word_label(["punctuation", "is a token"], TEXT_COLOR).next_to(
            token_box(strip, punct), UP, buff=0.3)
        receiver_label = get_word_label(["receiver", str(ex.receiver)], RECEIVER_COLOR).next_to(
            token_box(strip, ex.receiver), UP, buff=0.3)
        # the "." box is narrow and next to the receiver: spread the two labels apart
        gap = punct_label.get_right()[0] + 0.2 - receiver_label.get_left()[0]
        if gap > 0:
            punct_label.shift(LEFT * gap / 2)
            receiver_label.shift(RIGHT * gap / 2)
        self.play(FadeIn(punct_label), Indicate(strip.tokens[punct - 1], color=TEXT_COLOR))
        self.play(FadeIn(receiver_label), Indicate(token_box(strip, ex.receiver), color=RECEIVER_COLOR))
        self.caption(f"We treat punctuation as a token in this illustration: {ex.receiver_word} is "
                     f"receiver {ex.receiver}.")

        # --- Shot 3: two heads, at the same time -----------------------------------------------
        self.shot("two heads in parallel")
        self.finish_reading()
        self.play(FadeOut(punct_label), FadeOut(receiver_label))
        label_1, label_2 = layout.labels
        self.parallel_mark = layout.parallel
        # the same plays draw both heads: neither waits for the other
        self.play(FadeIn(label_1), FadeIn(label_2), Create(above.faint), Create(below.faint), run_time=1.5)
        self.play(Create(above.bright), Create(below.bright), run_time=1.2)
        self.play(FadeIn(layout.parallel), FadeIn(layout.legend))
        self.caption("Both useful sources are in its known prefix. The two heads run in parallel, so the "
                     "event head does not wait for the reference head’s result.")
        self.caption(ARROWS_NOTE)

        # --- Shot 4: a possible next word, and context from earlier layers ---------------------
        self.shot("next word")
        self.finish_reading()
        guess = place_in_box(get_text(ex.next_word, font_size=BODY_SIZE - 2, color=TEXT_COLOR), strip.blank[0])
        self.guess = guess
        self.play(FadeOut(strip.blank[1]), FadeIn(guess), FadeIn(layout.possible))
        self.caption("Contextual input rows from earlier layers can help make these matches. "
                     "In deeper layers, source rows can already contain context.")
        self.play(FadeIn(layout.context))
        self.caption("The arrows are a schematic of useful information, not a promise that a trained "
                     "attention map remains unchanged after a word substitution.")
        self.finish_reading(extra=1.0)

    def get_layout(self, ex, referent, event) -> VGroup:
        """Strip in the middle, head 1's arrows above it, head 2's below, their labels at the left."""
        strip = get_token_strip(ex, font_size=BODY_SIZE - 2).move_to(CONTENT_CENTER + DOWN * 0.05)
        c1, c2 = head_color(1), head_color(2)
        above = get_reading_arcs(strip, {referent.position: c1})
        below = get_reading_arcs(strip, {event.position: c2}, below=True)
        label_1 = get_role_label(1, referent.role, referent.word, c1)
        label_2 = get_role_label(2, event.role, event.word, c2)
        labels = VGroup(label_1, label_2)
        for label, arcs in zip(labels, (above, below)):
            label.next_to(strip.tokens, LEFT, buff=0.5).set_y(arcs.get_y())
        labels[1].align_to(labels[0], LEFT)
        parallel = self.get_parallel_mark(label_1, label_2)
        possible = get_text("possible next word", font_size=SMALL_SIZE, color=TEXT_COLOR)
        possible.next_to(strip.blank, RIGHT, buff=0.15)
        context = get_text("input rows may already hold context from earlier layers", font_size=SMALL_SIZE,
                           color=DIM_TEXT_COLOR).next_to(below, DOWN, buff=0.2).align_to(strip, LEFT)
        layout = VGroup(strip, above, below, labels, parallel, possible, context)
        if layout.width > SAFE_WIDTH:
            layout.scale_to_fit_width(SAFE_WIDTH)
        layout.set_x(0)
        legend = get_arrow_legend(c1)
        layout.strip, layout.above, layout.below, layout.labels = strip, above, below, labels
        layout.parallel, layout.possible, layout.context, layout.legend = parallel, possible, context, legend
        return layout

    @staticmethod
    def get_parallel_mark(label_1, label_2) -> VGroup:
        """A bracket joining the two heads' labels: same step, no waiting."""
        x = min(label_1.get_left()[0], label_2.get_left()[0]) - 0.2
        top, bottom = label_1.get_top()[1], label_2.get_bottom()[1]
        lines = VGroup(Line([x + 0.1, top, 0], [x, top, 0]), Line([x, top, 0], [x, bottom, 0]),
                       Line([x, bottom, 0], [x + 0.1, bottom, 0])).set_stroke(TEXT_COLOR, 1.5)
        text = get_word_label(["in", "parallel"], TEXT_COLOR).next_to(lines, LEFT, buff=0.1)
        return VGroup(lines, text)


# ============================================================================================
# Scene 4 — One shared weight per head
# ============================================================================================


def get_one_head_panel(ill) -> VGroup:
    """One head: each source's ONE weight scales its whole value row; the products add to the message."""
    color = WIDE_HEAD_COLOR
    coords = list(ill.coordinates)
    header = get_text(f"one head: one weight per source, shared by {' and '.join(coords)}",
                      font_size=LABEL_SIZE, color=color)
    products = VGroup()
    for s, (word, alpha) in enumerate(zip(ill.sources, ill.one_head_weights)):
        # no a/b labels here: the value rows above and the message below carry them
        svp = get_scalar_vector_product(alpha, ill.value_rows[word], color=color, tag=f"one_{s}")
        name = get_text(word, font_size=SMALL_SIZE + 1, color=DIM_TEXT_COLOR)
        name.next_to(svp, LEFT, buff=0.2).set_y(svp.vector.cell_center(0, 0)[1])
        row = VGroup(name, svp)
        row.svp, row.name = svp, name
        products.add(row)
    products.arrange(DOWN, buff=0.3, aligned_edge=RIGHT)
    message = get_row_vector(ill.one_head_message, coords, tag="one_message", color=color)
    m_label = get_text("message  =  sum", font_size=SMALL_SIZE + 1, color=color)
    m_row = VGroup(m_label, message).arrange(RIGHT, buff=0.2)
    m_label.set_y(message.cell_center(0, 0)[1])
    m_row.next_to(products, DOWN, buff=0.3).align_to(products, RIGHT)
    half = (products[0].svp.product.width + 0.1) / 2
    rule = Line(LEFT * half, RIGHT * half).set_stroke(DIM_TEXT_COLOR, 1.5)
    rule.next_to(message, UP, buff=0.06).set_x(message.get_x())
    panel = VGroup(header, products, rule, m_row)
    header.next_to(products, UP, buff=0.3).align_to(products, LEFT)
    panel.header, panel.products, panel.message, panel.message_row = header, products, message, m_row
    return panel


def get_two_head_panel(ill) -> VGroup:
    """Two heads: coordinate a mixes the sources with one head's weights, b with the other's."""
    header = get_text("two heads: each with its own source weights", font_size=LABEL_SIZE, color=TEXT_COLOR)
    lines = VGroup()
    V = np.asarray(ill.V, dtype=float)
    for k, coord in enumerate(ill.coordinates):
        color = head_color(k + 1)
        weights = ill.two_head_weights[coord]
        parts = [get_text(f"{coord} (head {k + 1}):", font_size=SMALL_SIZE + 1, color=color)]
        for s, word in enumerate(ill.sources):
            if s:
                parts.append(get_text("+", font_size=LABEL_SIZE))
            parts += [get_number(weights[s], tag="two_w", index=(k, s), color=color),
                      get_text("·", font_size=LABEL_SIZE),
                      get_number(V[s, k], tag="two_v", index=(k, s))]
        parts += [get_text("=", font_size=LABEL_SIZE),
                  get_number(ill.two_head_message[k], tag="two_terms_sum", index=k, color=color)]
        line = VGroup(*parts).arrange(RIGHT, buff=0.1)
        for p in parts[1:]:
            p.set_y(parts[1].get_y())
        lines.add(line)
    lines.arrange(DOWN, buff=0.45, aligned_edge=LEFT)
    message = get_row_vector(ill.two_head_message, list(ill.coordinates), tag="two_message",
                             column_colors=[head_color(1), head_color(2)])
    m_label = get_text("message", font_size=SMALL_SIZE + 1, color=TEXT_COLOR)
    m_row = VGroup(m_label, message).arrange(RIGHT, buff=0.2)
    m_label.set_y(message.cell_center(0, 0)[1])
    m_row.next_to(lines, DOWN, buff=0.35).align_to(lines, RIGHT)
    header.next_to(lines, UP, buff=0.3).align_to(lines, LEFT)
    panel = VGroup(header, lines, m_row)
    panel.header, panel.lines, panel.message, panel.message_row = header, lines, message, m_row
    return panel


class OneSharedWeight(LessonScene):
    def construct(self):
        ill = two_source_illustration()
        self.ill = ill
        title = get_title("One shared weight per head")
        badge = get_badge("illustrative numbers, invented for this comparison")
        self.badge = badge
        self.play(FadeIn(title), FadeIn(badge))

        # --- Shot 1: two sources, two value rows -----------------------------------------------
        self.shot("value rows")
        self.finish_reading()
        values = get_labeled_matrix(ill.V, list(ill.sources), list(ill.coordinates),
                                    name="value rows (illustrative)", tag="V")
        one = get_one_head_panel(ill)
        two = get_two_head_panel(ill)
        panels = VGroup(one, two).arrange(RIGHT, buff=1.0, aligned_edge=UP)
        two.message_row.set_y(one.message_row.get_y())  # the two messages side by side, to compare
        layout = VGroup(values, panels).arrange(DOWN, buff=0.45)
        fit_below_badge(layout, badge)
        self.values, self.one_panel, self.two_panel = values, one, two
        self.play(FadeIn(values))
        self.caption("One head can read several words and carry several features in its message. "
                     "These numbers are illustrative.")

        # --- Shot 2: one head, one weight per source for every coordinate ----------------------
        self.shot("one head")
        self.finish_reading()
        self.play(FadeIn(one.header))
        for row in one.products:
            word = row.name.original_text
            box = values.get_row_box(list(ill.sources).index(word), color=WIDE_HEAD_COLOR, include_label=True)
            self.play(FadeIn(box), FadeIn(row), run_time=0.8)
            self.wait(1.2)  # time to read the scalar-vector product
            self.play(FadeOut(box), run_time=0.4)
        self.play(FadeIn(one[2]), FadeIn(one.message_row))
        self.caption("It uses one shared set of source weights for all coordinates of that message.")
        weights = VGroup(*(row.svp.alpha for row in one.products))
        self.play(Indicate(weights, color=WIDE_HEAD_COLOR, scale_factor=1.2))

        # --- Shot 3: two heads weight the sources differently ----------------------------------
        self.shot("two heads")
        self.finish_reading()
        self.play(FadeIn(two.header))
        for line in two.lines:
            self.play(FadeIn(line), run_time=0.8)
            self.wait(1.0)
        self.play(FadeIn(two.message_row))
        self.caption("The extra capability is independent source weighting, not a rule that each head can "
                     "understand only one concept.")
        b = 1  # the coordinate the two mixtures disagree on most
        boxes = VGroup(one.message.get_cell_box(0, b, color=TEXT_COLOR),
                       two.message.get_cell_box(0, b, color=head_color(2)))
        self.compare_boxes = boxes
        self.play(Create(boxes))
        self.wait(1.5)

        # --- Shot 4: how heads come to differ ---------------------------------------------------
        self.shot("learning")
        self.finish_reading()
        self.play(FadeOut(VGroup(values, one, two, boxes)))
        points = fit_below_badge(self.get_learning_points(), self.badge)
        self.learning_points = points
        self.caption("All head projections learn jointly from prediction loss.")
        self.play(FadeIn(points[0], shift=0.2 * UP))
        self.caption("Interpretable roles sometimes emerge, but some heads overlap or can be pruned; "
                     "see Voita et al. (2019).")
        self.play(FadeIn(points[1], shift=0.2 * UP))
        self.caption("More heads are a capacity choice to test, not an automatic improvement.")
        self.play(FadeIn(points[2], shift=0.2 * UP))
        self.finish_reading(extra=1.0)

    @staticmethod
    def get_learning_points() -> VGroup:
        items = [
            ("Heads learn jointly", "all head projections learn together from the prediction loss"),
            ("Roles may overlap", "some heads overlap or can be pruned (Voita et al., 2019)"),
            ("More heads: a capacity choice", "to test, not an automatic improvement"),
        ]
        points = VGroup()
        for k, (head, body) in enumerate(items, start=1):
            dot = get_text(f"{k}.", font_size=BODY_SIZE, color=role_head_color(k))
            h = get_text(head, font_size=BODY_SIZE, color=TEXT_COLOR)
            b = get_text(body, font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
            text = VGroup(h, b).arrange(DOWN, aligned_edge=LEFT, buff=0.1)
            points.add(VGroup(dot, text).arrange(RIGHT, aligned_edge=UP, buff=0.2))
        return points.arrange(DOWN, aligned_edge=LEFT, buff=0.45)


__all__ = [
    "CAVEAT", "ARROWS_NOTE", "get_badge", "get_token_strip", "token_box", "get_reading_arc",
    "get_reading_arcs", "get_arrow_legend", "get_role_label", "ThreeHeadsSevenRows", "TheReceiver",
    "ParallelHeads", "OneSharedWeight",
]
