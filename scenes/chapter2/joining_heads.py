"""Chapter 2, scenes 12–15: one wide head versus two, concat and W_O, the residual and the
prediction, and the cheque sentence beside the river sentence.

Scenes 12–14 follow the sentence chosen by LESSON_SENTENCE (default "river"). Scene 15 is the
comparison itself, so it always computes both named sentences, river and cheque, side by side and
ignores the switch. Every number comes from the data layer through get_number; captions follow
the lesson notes (docs/lesson-notes.txt).

    manim -pql scenes/chapter2/joining_heads.py WideHeadVersusTwo
    manim -pql scenes/chapter2/joining_heads.py ConcatAndOutputProjection
    manim -pql scenes/chapter2/joining_heads.py ResidualAndPrediction
    manim -pql scenes/chapter2/joining_heads.py ChequeSentence
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    Line,
    Rectangle,
    SurroundingRectangle,
    VGroup,
)

from lesson_data.display import fmt
from lesson_data.walkthrough import PooledRow, pool_attention_row
from lesson_data.worksheet import AXES, CANDIDATES, VOCAB, compute_worksheet
from scenes.blocks.concat_output_projection import get_concat_output_projection
from scenes.blocks.labeled_matrix import get_labeled_matrix, get_row_vector
from scenes.style import (
    BACKGROUND,
    BODY_SIZE,
    BUFF,
    BUFF_LARGE,
    CONTENT_BOTTOM,
    CONTENT_TOP,
    DIM_TEXT_COLOR,
    FRAME_WIDTH,
    HIGHLIGHT_OPACITY,
    LABEL_SIZE,
    NEGATIVE_COLOR,
    NUMBER_SIZE,
    POSITIVE_COLOR,
    RECEIVER_COLOR,
    SMALL_SIZE,
    TEXT_COLOR,
    WIDE_HEAD_COLOR,
    LessonScene,
    align_baseline,
    baseline_y,
    count_word,
    fit_content,
    format_shape,
    get_number,
    get_text,
    get_title,
    head_color,
    scene_worksheet,
    sub,
    sup,
    wrap_lines,
)

# ============================================================================================
# Pure helpers (no Manim): what a compact attention row shows
# ============================================================================================


def source_name(tokens, j: int) -> str:
    """A source word with its one-based position as a subscript, 'river₆' (words repeat)."""
    return f"{tokens[j]}{sub(j + 1)}"


def joined_names(d1: int = 2, d2: int = 2) -> list[str]:
    """The joined coordinates H¹a, H¹b, H²a, H²b (the rows of W_O)."""
    return [f"H{sup(1)}{c}" for c in "abcd"[:d1]] + [f"H{sup(2)}{c}" for c in "abcd"[:d2]]


def mixing_rows(W_O) -> list[int]:
    """Rows of W_O that feed more than one embedding coordinate: where W_O mixes."""
    W_O = np.asarray(W_O, dtype=float)
    return [i for i in range(W_O.shape[0]) if np.count_nonzero(W_O[i]) > 1]


def same_receiver_rows(a, b) -> bool:
    """True when both worksheets give the receiver identical q, k and v in both heads."""
    return all(np.array_equal(getattr(ha, f)[-1], getattr(hb, f)[-1])
               for ha, hb in zip(a.heads, b.heads) for f in ("Q", "K", "V"))


# ============================================================================================
# Builders
# ============================================================================================


def get_op(symbol: str, size: float = BODY_SIZE):
    return get_text(symbol, font_size=size)


def on_row_line(vector, *mobs) -> None:
    """Put operators/labels on a row vector's number line, not on the middle of its labels."""
    y = baseline_y(vector.cell(0, 0))
    for m in mobs:
        align_baseline(m, y)


def get_row_anchor(left: float, right: float, y: float, height: float) -> Rectangle:
    """An invisible rectangle marking a row, so highlight boxes follow the group when it moves."""
    anchor = Rectangle(width=right - left, height=height).set_stroke(width=0).set_fill(opacity=0)
    return anchor.move_to([(left + right) / 2, y, 0])


def get_anchor_box(anchor: Rectangle, color: str, fill_opacity: float = HIGHLIGHT_OPACITY * 0.6,
                   stroke_width: float = 2.0) -> Rectangle:
    box = Rectangle(width=anchor.width, height=anchor.height)
    return box.set_stroke(color, stroke_width).set_fill(color, fill_opacity).move_to(anchor)


@dataclass
class RowSpec:
    """One attention row to show compactly: its name, weights (a row of A), colour and tag."""

    name: str
    weights: np.ndarray
    color: str
    tag: str


class PooledTable(VGroup):
    """Built by get_pooled_table. Parts: `header`, `rows` (one VGroup per spec with `.name`,
    `.words`, `.tops`, `.others`, `.sum`, `.bar`, `.pooled`, `.anchor`), `tie_notes`."""

    def get_row_box(self, i: int, color: str = TEXT_COLOR) -> Rectangle:
        return get_anchor_box(self.rows[i].anchor, color)


def get_pooled_table(tokens, specs, *, top: int = 2, stacked: bool = False, show_bars: bool = True,
                     bar_width: float = 2.0, font_size: float = NUMBER_SIZE, word_size: float = LABEL_SIZE,
                     name_size: float = LABEL_SIZE, gap: float = 0.4,
                     row_height: float | None = None) -> PooledTable:
    """Attention rows in aligned columns: name | largest | second | others (n−2) | sum | bar.

    stacked=True puts each source word above its weight (narrow columns, for split screens).
    Numbers: the top weights are tagged f"{tag}_top" with index = source j (zero-based); then
    f"{tag}_others" and f"{tag}_sum" (math.fsum of all the row's unrounded weights).
    """
    table = PooledTable()
    pooled = [pool_attention_row(s.weights, top) for s in specs]
    titles = ["largest", "second", "third"][:top] + [f"others ({pooled[0].n_others})", "sum"]
    header = [get_text(t, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR) for t in titles]

    rows = []
    for spec, p in zip(specs, pooled):
        row = VGroup()
        row.pooled, row.spec = p, spec
        row.name = get_text(spec.name, font_size=name_size, color=spec.color)
        row.words = [get_text(source_name(tokens, j), font_size=word_size) for j in p.top]
        row.tops = [get_number(spec.weights[j], tag=f"{spec.tag}_top", index=j, font_size=font_size,
                               color=spec.color) for j in p.top]
        row.others = get_number(p.others, tag=f"{spec.tag}_others", font_size=font_size, color=spec.color)
        row.sum = get_number(p.total, tag=f"{spec.tag}_sum", font_size=font_size)
        rows.append(row)

    # column widths: every row and its header fit; numbers right-aligned so the decimals line up
    word_gap = 0.12
    widths = []
    for k in range(top):
        word_w = max(r.words[k].width for r in rows)
        num_w = max(r.tops[k].width for r in rows)
        widths.append(max(max(word_w, num_w) if stacked else word_w + word_gap + num_w, header[k].width))
    widths.append(max(max(r.others.width for r in rows), header[top].width))
    widths.append(max(max(r.sum.width for r in rows), header[top + 1].width))
    rights, x = [], max(r.name.width for r in rows)
    for w in widths:
        x += gap + w
        rights.append(x)
    lefts = [r - w for r, w in zip(rights, widths)]
    right_end = rights[-1] + (gap + bar_width if show_bars else 0.0)

    if row_height is None:
        row_height = 0.8 if stacked else 0.5
    lift = 0.3 if stacked else 0.0          # the source word sits this far above its weight
    for i, row in enumerate(rows):
        y = -i * row_height
        numbers = [*row.tops, row.others, row.sum]
        for k, number in enumerate(numbers):
            number.move_to([rights[k], 0, 0], aligned_edge=RIGHT)
            align_baseline(number, y)
        for k, word in enumerate(row.words):
            x_right = rights[k] if stacked else rights[k] - row.tops[k].width - word_gap
            word.move_to([x_right, 0, 0], aligned_edge=RIGHT)
            align_baseline(word, y + lift)
        row.name.move_to([0, 0, 0], aligned_edge=LEFT)
        align_baseline(row.name, y + lift / 2)
        row.bar = VGroup()
        if show_bars:
            # a stacked bar of the whole row (largest, second, others): it fills bar_width
            # exactly because the row sums to one
            x0 = rights[-1] + gap
            shades = [0.9, 0.55, 0.4][:top] + [0.18]
            for weight, shade in zip(row.pooled.segments, shades):
                seg = Rectangle(width=max(bar_width * weight, 1e-3), height=0.26)
                seg.set_stroke(BACKGROUND, 1.5).set_fill(row.spec.color, shade)
                seg.move_to([x0, y + 0.08, 0], aligned_edge=LEFT)
                x0 += bar_width * weight
                row.bar.add(seg)
        row.anchor = get_row_anchor(-0.15, right_end + 0.15, y + lift / 2 + 0.08, row_height * 0.92)
        row.add(row.anchor, row.name, *row.words, *numbers, row.bar)
    table.rows = VGroup(*rows)
    for k, h in enumerate(header):
        h.set_x((lefts[k] + rights[k]) / 2)
        align_baseline(h, row_height * 0.5 + lift + 0.05)
    table.header = VGroup(*header)
    table.pooled = pooled
    table.add(table.header, table.rows)

    # where the top two were cut inside a displayed tie, say so under the table
    table.tie_notes = VGroup()
    for row in rows:
        for j in row.pooled.display_ties:
            note = VGroup(
                get_text(f"{row.spec.name}: {source_name(tokens, j)} also", font_size=SMALL_SIZE,
                         color=DIM_TEXT_COLOR),
                get_number(row.spec.weights[j], tag=f"{row.spec.tag}_tie", index=j, font_size=SMALL_SIZE,
                           color=row.spec.color),
                get_text("(counted in others)", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR),
            ).arrange(RIGHT, buff=0.1)
            for part in (note[0], note[2]):
                align_baseline(part, baseline_y(note[1]))
            table.tie_notes.add(note)
    if len(table.tie_notes):
        table.tie_notes.arrange(DOWN, buff=0.08, aligned_edge=LEFT)
        table.tie_notes.next_to(table.rows, DOWN, buff=0.15, aligned_edge=LEFT)
        table.add(table.tie_notes)
    return table


class WordRows(VGroup):
    """Built by get_word_rows. Parts: `header`, `rows` {vocabulary index: row with `.word`,
    `.logit`, `.p`, `.bar`, `.anchor`}."""

    def get_row_box(self, i: int, color: str = POSITIVE_COLOR) -> Rectangle:
        return get_anchor_box(self.rows[i].anchor, color)


def get_word_rows(ws, indices, *, show_logits: bool = True, bar_unit: float = 3.0, tag_prefix: str = "",
                  font_size: float = NUMBER_SIZE, word_size: float = LABEL_SIZE - 2,
                  row_height: float = 0.3, bar_color: str = DIM_TEXT_COLOR, show_bars: bool = True) -> WordRows:
    """Vocabulary words as rows: word | logit | p | bar (width ∝ p; p = 1 would be bar_unit wide).

    Numbers: f"{tag_prefix}logit" and f"{tag_prefix}p", index = the word's vocabulary index.
    """
    mlp = ws.mlp
    group = WordRows()
    group.rows = {}
    words = {i: get_text(VOCAB[i], font_size=word_size) for i in indices}
    logits = ({i: get_number(mlp.logits[i], tag=f"{tag_prefix}logit", index=i, font_size=font_size)
               for i in indices} if show_logits else {})
    probs = {i: get_number(mlp.probabilities[i], tag=f"{tag_prefix}p", index=i, font_size=font_size)
             for i in indices}
    x_word = max(w.width for w in words.values())
    x_logit = x_word + 0.3 + max((m.width for m in logits.values()), default=0.0)
    x_p = (x_logit if show_logits else x_word) + 0.3 + max(m.width for m in probs.values())
    x_bar = x_p + 0.2
    right_end = x_bar + (bar_unit * max(float(mlp.probabilities[i]) for i in indices) if show_bars else 0.0)
    group.header = VGroup()
    for text, x in [("word", x_word)] + ([("logit", x_logit)] if show_logits else []) + [("p", x_p)]:
        h = get_text(text, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).move_to([x, 0, 0], aligned_edge=RIGHT)
        align_baseline(h, row_height * 0.95)
        group.header.add(h)
    group.add(group.header)
    for r, i in enumerate(indices):
        y = -r * row_height
        row = VGroup()
        row.word, row.p, row.logit = words[i], probs[i], logits.get(i)
        row.word.move_to([x_word, 0, 0], aligned_edge=RIGHT)
        row.p.move_to([x_p, 0, 0], aligned_edge=RIGHT)
        parts = [row.word, row.p]
        if show_logits:
            row.logit.move_to([x_logit, 0, 0], aligned_edge=RIGHT)
            parts.append(row.logit)
        for m in parts:
            align_baseline(m, y)
        row.bar = VGroup()
        if show_bars:
            row.bar = Rectangle(width=max(bar_unit * float(mlp.probabilities[i]), 1e-3), height=row_height * 0.55)
            row.bar.set_stroke(width=0).set_fill(bar_color, 0.85)
            row.bar.move_to([x_bar, y + 0.07, 0], aligned_edge=LEFT)
        row.anchor = get_row_anchor(-0.1, right_end + 0.1, y + 0.07, row_height)
        row.add(row.anchor, *parts, row.bar)
        group.rows[i] = row
        group.add(row)
    return group


def get_sentence_header(ws, width: float) -> VGroup:
    """The sentence's name and its prefix (wrapped to `width`), the receiver's word marked."""
    name = get_text(ws.name, font_size=BODY_SIZE, color=TEXT_COLOR)
    lines = wrap_lines(f"“{ws.text} ___”", SMALL_SIZE, width)
    text = get_text("\n".join(lines), font_size=SMALL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.8)
    header = VGroup(name, text).arrange(DOWN, buff=0.12)
    header.name, header.text = name, text
    return header


# ============================================================================================
# Scene 12 — One wide head versus two
# ============================================================================================


def get_joined_projections(ws) -> VGroup:
    """The wide head's W_Q, W_K, W_V [4, 4]: each head's [4, 2] side by side, in head colours."""
    wide = ws.wide_head
    d1, d2 = ws.heads[0].W_Q.shape[1], ws.heads[1].W_Q.shape[1]
    colors = [head_color(1)] * d1 + [head_color(2)] * d2
    mats = VGroup()
    for k, (name, W) in enumerate((("W_Q", wide.W_Q), ("W_K", wide.W_K), ("W_V", wide.W_V))):
        m = get_labeled_matrix(W, list(AXES) if k == 0 else None, joined_names(d1, d2),
                               name=f"{name} = [{name}{sup(1)} | {name}{sup(2)}]  {format_shape(W.shape)}",
                               tag=f"wide_{name}", column_colors=colors, name_color=WIDE_HEAD_COLOR)
        mats.add(m)
    return mats.arrange(RIGHT, buff=0.6, aligned_edge=DOWN)


def get_scale_line(text: str, value: float, color: str, tag: str, tail: str) -> VGroup:
    """'one wide head: scores ÷ √4 =' 2.000 ', one softmax' on one baseline."""
    line = VGroup(get_text(text, font_size=LABEL_SIZE, color=color),
                  get_number(value, tag=tag, font_size=NUMBER_SIZE + 2, color=color),
                  get_text(tail, font_size=LABEL_SIZE, color=color)).arrange(RIGHT, buff=0.12)
    for part in (line[0], line[2]):
        align_baseline(part, baseline_y(line[1]))
    return line


def get_mixtures(ws) -> VGroup:
    """The wide head's one message (one row of weights for all four value coordinates) above the
    two heads' messages side by side (two rows of weights: two mixtures before W_O)."""
    n, wide, h1 = ws.n, ws.wide_head, ws.heads[0]
    d1, d = h1.messages.shape[1], ws.H_joined.shape[1]
    coords = [str(k + 1) for k in range(d)]
    wide_vec = get_row_vector(wide.messages[-1], coords, tag="wide_m", column_colors=[WIDE_HEAD_COLOR] * d)
    two_vec = get_row_vector(ws.H_joined[-1], None, tag="two_m",
                             column_colors=[head_color(1)] * d1 + [head_color(2)] * (d - d1))
    # the head boundary inside the joined row
    x_mid = (two_vec.cell_center(0, d1 - 1)[0] + two_vec.cell_center(0, d1)[0]) / 2
    divider = Line(UP * two_vec.row_height / 2, DOWN * two_vec.row_height / 2).set_stroke(TEXT_COLOR, 2)
    two_vec.add(divider.move_to([x_mid, two_vec.cell_center(0, 0)[1], 0]))
    two_vec.next_to(wide_vec, DOWN, buff=0.35).align_to(wide_vec, LEFT)

    rows = VGroup()
    for vec, name, color, note in (
        (wide_vec, f"one wide head: m{sub(n)}", WIDE_HEAD_COLOR, "one row of weights for all four value coordinates"),
        (two_vec, f"two heads: [m{sup(1)}{sub(n)} | m{sup(2)}{sub(n)}]", TEXT_COLOR,
         "two rows of weights: two mixtures before W_O"),
    ):
        label = get_text(name, font_size=LABEL_SIZE, color=color)
        label.next_to(vec.brackets, LEFT, buff=BUFF)
        text = get_text(note, font_size=SMALL_SIZE + 2, color=DIM_TEXT_COLOR).next_to(vec.brackets, RIGHT, buff=BUFF)
        on_row_line(vec, label, text)
        row = VGroup(label, vec, text)
        row.label, row.vector, row.note = label, vec, text
        rows.add(row)
    # labels right-aligned against the vectors
    right = min(r.label.get_right()[0] for r in rows)
    for r in rows:
        r.label.shift(RIGHT * (right - r.label.get_right()[0]))
    rows.wide, rows.two = rows[0], rows[1]
    return rows


class WideHeadVersusTwo(LessonScene):
    def construct(self):
        ws = scene_worksheet()
        self.ws = ws
        n = ws.n
        wide, h1, h2 = ws.wide_head, *ws.heads
        d_wide, d_head = wide.W_Q.shape[1], h1.W_Q.shape[1]
        title = get_title("One wide head versus two heads")
        self.play(FadeIn(title))

        # --- Shot 1: the same projections, joined to width four ---------------------------------
        self.shot("joined projections")
        mats = get_joined_projections(ws)
        scales = VGroup(
            get_scale_line(f"one wide head: scores ÷ √{d_wide} =", wide.scale, WIDE_HEAD_COLOR, "wide_scale",
                           ", one softmax"),
            get_scale_line(f"heads 1 and 2: scores ÷ √{d_head} =", h1.scale, TEXT_COLOR, "head_scale",
                           ", each head its own softmax"),
        ).arrange(DOWN, buff=0.25, aligned_edge=LEFT)
        fit_content(VGroup(mats, scales).arrange(DOWN, buff=BUFF_LARGE))
        self.mats, self.scales = mats, scales
        self.play(LaggedStart(*(FadeIn(m) for m in mats), lag_ratio=0.4), run_time=2.0)
        self.caption("For this controlled comparison, concatenate the two existing Q, K and V projections "
                     "into width-four projections.")
        self.play(FadeIn(scales[0]))
        self.caption(f"A single wide head scales its dot products by √{d_wide}.")
        self.play(FadeIn(scales[1]))
        self.caption(f"The two narrower heads each scale by √{d_head} and normalize separately.")
        self.caption("The example changes no projection entries and does not compare separately trained models.")

        # --- Shot 2: row n of each, compact: the top two sources and "others" ---------------------
        self.shot("attention rows")
        self.finish_reading()
        self.play(FadeOut(mats), FadeOut(scales))
        specs = [
            RowSpec(f"one wide head  ÷√{d_wide}", wide.weights[-1], WIDE_HEAD_COLOR, "wide"),
            RowSpec(f"head 1 ({h1.name})  ÷√{d_head}", h1.weights[-1], head_color(1), "A1"),
            RowSpec(f"head 2 ({h2.name})  ÷√{d_head}", h2.weights[-1], head_color(2), "A2"),
        ]
        table = get_pooled_table(ws.tokens, specs, bar_width=2.2)
        heading = get_text(f"row {n} of A: receiver “{ws.tokens[-1]}”, sources 1–{n}", font_size=LABEL_SIZE,
                           color=RECEIVER_COLOR)
        heading.next_to(table, UP, buff=0.3).align_to(table, LEFT)
        mixtures = get_mixtures(ws)
        verdict = get_text("a useful choice, not proof", font_size=BODY_SIZE, color=RECEIVER_COLOR)
        credit = get_text("Attention Is All You Need, §3.2.2", font_size=SMALL_SIZE + 2, color=DIM_TEXT_COLOR)
        closing = VGroup(verdict, credit).arrange(RIGHT, buff=0.6)
        align_baseline(credit, baseline_y(verdict))
        # lay out the whole shot sequence once, so later shots never push earlier ones
        page = VGroup(VGroup(heading, table), mixtures, closing).arrange(DOWN, buff=0.5)
        mixtures.align_to(table, LEFT)
        closing.set_x(0)
        fit_content(page)
        self.table, self.mixtures, self.verdict, self.credit = table, mixtures, verdict, credit
        self.play(FadeIn(heading), FadeIn(table.header))
        self.caption(f"Every displayed attention row sums to one over all {count_word(n)} sources; "
                     f"“others” combines the remaining {count_word(n - 2)}.")
        for row in table.rows:
            self.play(FadeIn(row), run_time=0.8)
            self.wait(1.0)  # time to read the two source names and three weights
        if len(table.tie_notes):
            self.play(FadeIn(table.tie_notes))
        self.play(LaggedStart(*(Indicate(row.sum, color=RECEIVER_COLOR, scale_factor=1.2) for row in table.rows),
                              lag_ratio=0.3), run_time=1.5)

        # --- Shot 3: one row for four coordinates versus two mixtures ------------------------------
        self.shot("mixtures")
        wide_box = table.get_row_box(0, WIDE_HEAD_COLOR)
        self.play(Create(wide_box), FadeIn(mixtures.wide), run_time=1.0)
        self.caption("One wide head uses its single row for all four value coordinates.")
        head_boxes = VGroup(table.get_row_box(1, head_color(1)), table.get_row_box(2, head_color(2)))
        self.play(FadeOut(wide_box), Create(head_boxes), FadeIn(mixtures.two), run_time=1.0)
        self.caption("The two heads use different rows for their two-coordinate values, preserving both "
                     "mixtures before W_O combines them.")

        # --- Shot 4: a useful choice, not proof ---------------------------------------------------
        self.shot("not proof")
        self.finish_reading()
        self.play(FadeOut(head_boxes), FadeIn(closing))
        self.caption("This is a useful architectural choice, not proof that one wide head cannot learn useful "
                     "relationships or that more heads always improve accuracy. See Attention Is All You Need, §3.2.2.")
        self.finish_reading(extra=1.0)


# ============================================================================================
# Scene 13 — Concat and W_O
# ============================================================================================


def get_general_shape_note(ws) -> VGroup:
    """W_O's general shape, evaluated from this worksheet's shapes."""
    n_heads = len(ws.heads)
    d_v = ws.heads[0].messages.shape[1]
    d_model = ws.E.shape[1]
    lines = VGroup(
        get_text("in general", font_size=LABEL_SIZE - 2, color=DIM_TEXT_COLOR),
        get_text("W_O: [n_heads × d_v, d_model]", font_size=LABEL_SIZE),
        get_text(f"here [{n_heads} × {d_v}, {d_model}] = {format_shape(ws.W_O.shape)}", font_size=LABEL_SIZE - 2,
                 color=DIM_TEXT_COLOR),
    ).arrange(DOWN, buff=0.12, aligned_edge=LEFT)
    return lines


class ConcatAndOutputProjection(LessonScene):
    def construct(self):
        ws = scene_worksheet()
        self.ws = ws
        n = ws.n
        h1, h2 = ws.heads
        title = get_title("Concat and W_O: each head contributes an update")
        self.play(FadeIn(title))

        cop = get_concat_output_projection(h1.messages[-1], h2.messages[-1], ws.W_O, h1.contribution[-1],
                                           h2.contribution[-1], ws.delta_E[-1], axes=AXES, receiver=n)
        d1 = h1.messages.shape[1]
        mixing = mixing_rows(ws.W_O)
        names = joined_names(d1, h2.messages.shape[1])
        mix_note = VGroup(*(
            get_text(f"{names[i]} feeds {' and '.join(AXES[j] for j in np.flatnonzero(ws.W_O[i]))}",
                     font_size=LABEL_SIZE, color=head_color(1 if i < d1 else 2))
            for i in mixing))
        mix_note.add(get_text("W_O mixes head outputs;", font_size=LABEL_SIZE),
                     get_text("it is no inverse of the input projections", font_size=LABEL_SIZE))
        mix_note.arrange(DOWN, buff=0.14, aligned_edge=LEFT)
        shape_note = get_general_shape_note(ws)
        notes = VGroup(mix_note, shape_note).arrange(RIGHT, buff=1.2, aligned_edge=UP)
        fit_content(cop)
        # the notes replace the per-block products in the last shot, once those have been read
        notes.move_to(cop.bottom)
        self.cop, self.notes = cop, notes

        # --- Shot 1: concatenate the two messages, one multiplication -----------------------------
        self.shot("concatenate")
        self.play(FadeIn(cop.concat))
        self.caption(f"H¹ and H² concatenate to {format_shape(ws.H_joined.shape)}. At the receiver, row {n} "
                     f"joins m¹ and m² into one row of width {ws.H_joined.shape[1]}.")
        self.play(FadeIn(VGroup(*cop.top[1:])))
        self.caption(f"W_O {format_shape(ws.W_O.shape)} gives ΔE {format_shape(ws.delta_E.shape)}; "
                     f"row {n} of ΔE is the receiver’s update Δe.")

        # --- Shot 2: W_O as one two-row block per head -------------------------------------------
        self.shot("blocks")
        blocks = VGroup(
            get_block_box(cop.W_O, range(0, d1), head_color(1)),
            get_block_box(cop.W_O, range(d1, cop.W_O.n_rows), head_color(2)),
        )
        self.play(Create(blocks))
        self.caption("Equivalently, split W_O into a two-row block per head.")
        self.play(FadeIn(cop.bottom))
        self.play(FadeIn(cop.bottom_sum))
        self.caption("Then Δe = m¹ W_O¹ + m² W_O²: each head contributes a four-coordinate update.")
        for c, h in ((cop.c1, 1), (cop.c2, 2)):
            self.play(Indicate(c.entries, color=head_color(h), scale_factor=1.1), run_time=0.8)
        self.wait(0.8)

        # --- Shot 3: one multiplication computes exactly that sum ----------------------------------
        self.shot("same sum")
        same = VGroup(SurroundingRectangle(cop.delta, color=RECEIVER_COLOR, buff=0.08),
                      SurroundingRectangle(cop.delta_2, color=RECEIVER_COLOR, buff=0.08))
        self.play(FadeOut(blocks), Create(same))
        self.caption("Concatenation followed by one matrix multiplication computes exactly that sum. "
                     "We retain the standard concat notation from the original Transformer paper.")

        # --- Shot 4: W_O mixes; its general shape --------------------------------------------------
        self.shot("W_O mixes")
        self.finish_reading()
        mix_boxes = VGroup(*(cop.W_O.get_row_box(i, color=head_color(1 if i < d1 else 2), include_label=True)
                             for i in mixing))
        self.play(FadeOut(same), FadeOut(cop.bottom))
        self.play(Create(mix_boxes), FadeIn(mix_note))
        self.caption("Here the joined width already equals the embedding width. "
                     "W_O still learns to mix head outputs into embedding coordinates.")
        self.play(FadeIn(shape_note))
        self.caption("In general its shape is [n_heads × d_v, d_model]. It is not an inverse of the input projections.")
        self.finish_reading(extra=1.0)


def get_block_box(matrix, rows, color) -> Rectangle:
    """A box around a run of whole rows of a LabeledMatrix (a block of W_O)."""
    rows = list(rows)
    top = matrix.cell_center(rows[0], 0)[1] + matrix.row_height / 2
    bottom = matrix.cell_center(rows[-1], 0)[1] - matrix.row_height / 2
    left = matrix.cell_center(0, 0)[0] - matrix.cell_width / 2
    right = matrix.cell_center(0, matrix.n_cols - 1)[0] + matrix.cell_width / 2
    box = Rectangle(width=right - left, height=top - bottom).set_stroke(color, 2.5)
    return box.set_fill(color, HIGHLIGHT_OPACITY * 0.6).move_to([(left + right) / 2, (top + bottom) / 2, 0])


# ============================================================================================
# Scene 14 — Residual and prediction
# ============================================================================================


def get_residual_line(ws) -> VGroup:
    """e_n + Δe_n = e′_n on one line (the receiver's rows of E, ΔE and E′)."""
    n = ws.n
    e = get_row_vector(ws.E[-1], list(AXES), name=f"e{sub(n)} (row {n} of E)", tag="e_row",
                       color=RECEIVER_COLOR, name_color=RECEIVER_COLOR)
    delta = get_row_vector(ws.delta_E[-1], list(AXES), name=f"Δe{sub(n)} (row {n} of ΔE)", tag="delta_row")
    e_prime = get_row_vector(ws.E_prime[-1], list(AXES), name=f"e′{sub(n)} (row {n} of E′)", tag="e_prime_row",
                             name_color=POSITIVE_COLOR)
    plus, equals = get_op("+"), get_op("=")
    line = VGroup(e, plus, delta, equals, e_prime).arrange(RIGHT, buff=0.35)
    for op in (plus, equals):
        op.set_y(e.cell_center(0, 0)[1])
    line.e, line.delta, line.e_prime, line.ops = e, delta, e_prime, VGroup(plus, equals)
    return line


def get_mlp_rows(ws) -> VGroup:
    """pre-activation = e′·W1 + b1 and hidden h = ReLU(pre-activation), one [1, 8] row each."""
    mlp = ws.mlp
    k = len(mlp.hidden)
    units = [f"h{sub(u + 1)}" for u in range(k)]
    pre_colors = [NEGATIVE_COLOR if v < 0 else TEXT_COLOR for v in mlp.pre_activation]
    hid_colors = [DIM_TEXT_COLOR if v == 0 else POSITIVE_COLOR for v in mlp.hidden]
    pre = get_row_vector(mlp.pre_activation, units, tag="pre_activation", column_colors=pre_colors)
    hidden = get_row_vector(mlp.hidden, units, tag="hidden", column_colors=hid_colors)
    hidden.col_labels.set_opacity(0)
    hidden.next_to(pre, DOWN, buff=0.55).align_to(pre, LEFT)
    labels = VGroup(get_text(f"pre-activation  e′ · W1 + b1  {format_shape((1, k))}", font_size=LABEL_SIZE),
                    get_text(f"hidden  h = ReLU(…)  {format_shape((1, k))}", font_size=LABEL_SIZE))
    for label, vec in zip(labels, (pre, hidden)):
        label.next_to(vec.brackets, LEFT, buff=BUFF)
        on_row_line(vec, label)
    right = min(label.get_right()[0] for label in labels)
    for label in labels:
        label.shift(RIGHT * (right - label.get_right()[0]))
    rows = VGroup(labels, pre, hidden)
    rows.pre, rows.hidden, rows.labels = pre, hidden, labels
    return rows


class ResidualAndPrediction(LessonScene):
    def construct(self):
        ws = scene_worksheet()
        self.ws = ws
        n, mlp = ws.n, ws.mlp
        vocab = len(mlp.probabilities)
        title = get_title("Residual and prediction")
        self.play(FadeIn(title))

        # --- Shot 1: E′ = E + ΔE, the receiver's row -----------------------------------------------
        self.shot("residual")
        residual = get_residual_line(ws)
        mlp_rows = get_mlp_rows(ws)
        fit_content(VGroup(residual, mlp_rows).arrange(DOWN, buff=0.7))
        self.residual, self.mlp_rows = residual, mlp_rows
        self.play(FadeIn(residual.e))
        self.play(FadeIn(residual.ops[0]), FadeIn(residual.delta))
        self.caption(f"E′ = E + ΔE is also {format_shape(ws.E_prime.shape)}: row {n}, the receiver "
                     f"“{ws.tokens[-1]}”, keeps its own row and adds its update.")
        self.play(FadeIn(residual.ops[1]), FadeIn(residual.e_prime))
        self.wait(1.0)

        # --- Shot 2: the last row through the prediction MLP ----------------------------------------
        self.shot("prediction MLP")
        self.caption(f"Its last row {format_shape((1, ws.E.shape[1]))} feeds the prediction MLP: "
                     f"h = ReLU(e′ · W1 + b1).")
        self.play(FadeIn(mlp_rows.labels[0]), FadeIn(mlp_rows.pre))
        self.wait(1.0)
        self.play(FadeIn(mlp_rows.labels[1]), FadeIn(mlp_rows.hidden))
        negatives = [u for u, v in enumerate(mlp.pre_activation) if v < 0]
        if negatives:
            boxes = VGroup(*(mlp_rows.hidden.get_cell_box(0, u, color=NEGATIVE_COLOR) for u in negatives))
            self.play(Create(boxes))
            self.caption("ReLU sets each negative pre-activation to zero.")
            self.finish_reading()
            self.play(FadeOut(boxes))

        # --- Shot 3: logits and the twenty word probabilities ----------------------------------------
        self.shot("probabilities")
        self.finish_reading()
        self.play(FadeOut(residual), FadeOut(mlp_rows))
        formula = get_text(f"logits = h · W2 + b2,   p = softmax(logits) over the {vocab} words",
                           font_size=LABEL_SIZE)
        sentence_idx = [i for i, w in enumerate(VOCAB) if w not in CANDIDATES]
        candidate_idx = [VOCAB.index(w) for w in CANDIDATES]
        # the sentence words' probabilities are tiny: their numbers are shown, their bars would be slivers
        left = get_word_rows(ws, sentence_idx, bar_unit=2.5, tag_prefix="", show_bars=False)
        right = get_word_rows(ws, candidate_idx, bar_unit=2.5, tag_prefix="")
        left_title = get_text(f"the {count_word(len(sentence_idx))} sentence words", font_size=LABEL_SIZE,
                              color=DIM_TEXT_COLOR)
        right_title = get_text(f"the {count_word(len(candidate_idx))} candidate next words", font_size=LABEL_SIZE)
        left_title.next_to(left, UP, buff=0.15).align_to(left, LEFT)
        right_title.next_to(right, UP, buff=0.15).align_to(right, LEFT)
        total = VGroup(get_text(f"sum of all {vocab} p =", font_size=LABEL_SIZE),
                       get_number(math.fsum(mlp.probabilities), tag="p_sum", font_size=NUMBER_SIZE + 2))
        total.arrange(RIGHT, buff=0.15)
        align_baseline(total[0], baseline_y(total[1]))
        right_col = VGroup(VGroup(right_title, right), total).arrange(DOWN, buff=0.45, aligned_edge=LEFT)
        columns = VGroup(VGroup(left_title, left), right_col).arrange(RIGHT, buff=1.2, aligned_edge=UP)
        # the predicted word's highlight is laid out now (shown in the last shot), so it fits the frame
        best = VOCAB.index(mlp.prediction)
        rows = right if best in right.rows else left
        box = rows.get_row_box(best, POSITIVE_COLOR)
        label = get_text("predicted next word", font_size=LABEL_SIZE, color=POSITIVE_COLOR)
        label.next_to(box, RIGHT, buff=0.15)
        page = VGroup(formula, VGroup(columns, box, label)).arrange(DOWN, buff=0.35)
        fit_content(page)
        self.formula, self.word_rows, self.candidate_rows, self.total = formula, left, right, total
        self.play(FadeIn(formula))
        self.caption(f"The hidden row gives {vocab} logits, one per vocabulary word; "
                     f"softmax turns them into {vocab} probabilities.")
        self.play(FadeIn(VGroup(left_title, left)), run_time=1.0)
        self.play(FadeIn(VGroup(right_title, right)), run_time=1.0)
        self.wait(1.0)
        self.play(FadeIn(total))
        self.caption(f"All {count_word(vocab)} probabilities sum to one.")

        # --- Shot 4: the predicted next word ---------------------------------------------------------
        self.shot("prediction")
        rows.rows[best].bar.set_fill(POSITIVE_COLOR)  # (an empty group when that block has no bars)
        self.prediction_box, self.prediction_label = box, label
        self.play(Create(box), FadeIn(label))
        self.caption(f"The most probable next word is “{mlp.prediction}”: "
                     f"“{ws.text} {mlp.prediction}”.")
        self.finish_reading(extra=1.0)


# ============================================================================================
# Scene 15 — The cheque sentence, beside the river sentence
# ============================================================================================

COMPARED = ("river", "cheque")   # scene 15 always computes both named sentences
COLUMN_WIDTH = FRAME_WIDTH / 2 - 0.7


def get_receiver_qkv(ws) -> VGroup:
    """q, k, v of both heads at the receiver as one [6, 2] table (rows in head colours)."""
    n = ws.n
    rows, labels, colors = [], [], []
    for head in ws.heads:
        for f in ("Q", "K", "V"):
            rows.append(getattr(head, f)[-1])
            labels.append(f"{f.lower()}{sup(head.index)}{sub(n)}")
            colors.append(head_color(head.index))
    m = get_labeled_matrix(np.array(rows), labels, ["a", "b"], tag=f"{ws.name}_qkv",
                           name=f"at the receiver “{ws.tokens[-1]}” (slot {n})")
    for i, color in enumerate(colors):
        for j in range(m.n_cols):
            m.cell(i, j).set_color(color)
        m.row_labels[i].set_color(color)
    return m


def get_messages_line(ws) -> VGroup:
    n = ws.n
    vecs = VGroup()
    for head in ws.heads:
        h = head.index
        vec = get_row_vector(head.messages[-1], ["a", "b"], tag=f"{ws.name}_m{h}", color=head_color(h))
        label = get_text(f"m{sup(h)}{sub(n)}", font_size=LABEL_SIZE, color=head_color(h))
        label.next_to(vec.brackets, LEFT, buff=0.15)
        on_row_line(vec, label)
        vecs.add(VGroup(label, vec))
    return vecs.arrange(RIGHT, buff=0.6, aligned_edge=DOWN)


class ChequeSentence(LessonScene):
    def construct(self):
        sheets = [compute_worksheet(name) for name in COMPARED]   # not the switch: both, always
        self.sheets = sheets
        river, cheque = sheets
        title = get_title("The cheque sentence: the same parameters, a new prefix")
        self.play(FadeIn(title))

        # --- Shot 1: two prefixes side by side -----------------------------------------------------
        self.shot("two prefixes")
        xs = (-FRAME_WIDTH / 4, FRAME_WIDTH / 4)
        headers = VGroup(*(get_sentence_header(ws, COLUMN_WIDTH) for ws in sheets))
        for header, x in zip(headers, xs):
            header.move_to([x, 0, 0]).align_to(UP * CONTENT_TOP, UP)
        divider = Line(UP * CONTENT_TOP, UP * (CONTENT_BOTTOM + 0.1)).set_stroke(DIM_TEXT_COLOR, 1.5)
        self.headers = headers
        self.play(FadeIn(headers), Create(divider))
        self.caption("Change to the cheque sentence. These controls recalculate Q, K, V, both attention rows, "
                     "the messages and the vocabulary prediction from the hand-chosen parameters.")
        panel_top = headers.get_bottom()[1] - 0.35
        panel_height = panel_top - CONTENT_BOTTOM

        def place(panels):
            for panel, x in zip(panels, xs):
                factor = min(1.0, COLUMN_WIDTH / panel.width, panel_height / panel.height)
                panel.scale(factor)
                # centred in the space under the headers, each column on its own centre line
                panel.move_to([x, (panel_top + CONTENT_BOTTOM) / 2, 0])
            return panels

        # --- Shot 2: the receiver's q, k, v ---------------------------------------------------------
        self.shot("receiver q k v")
        qkv = place(VGroup(*(get_receiver_qkv(ws) for ws in sheets)))
        self.qkv = qkv
        self.play(FadeIn(qkv))
        if same_receiver_rows(river, cheque):
            self.caption(f"Both receivers are “{river.tokens[-1]}” at slot {river.n}: the same row of E gives "
                         "the same q, k and v in each head. The sources’ keys and values differ.")
        else:
            self.caption("The receivers differ, so their queries differ too.")

        # --- Shot 3: both heads' attention rows ------------------------------------------------------
        self.shot("attention rows")
        self.finish_reading()
        tables = VGroup()
        for ws in sheets:
            specs = [RowSpec(f"head {h.index}\n({h.name})", h.weights[-1], head_color(h.index), f"{ws.name}_A{h.index}")
                     for h in ws.heads]
            table = get_pooled_table(ws.tokens, specs, stacked=True, show_bars=False, gap=0.3,
                                     name_size=SMALL_SIZE + 2, row_height=1.0)
            tables.add(table)
        place(tables)
        self.tables = tables
        self.play(FadeOut(qkv), FadeIn(tables))
        self.caption("Each head’s row of weights follows the new sources: "
                     f"head 1 now reads “{source_name(cheque.tokens, pool_attention_row(cheque.heads[0].weights[-1]).top[0])}”, "
                     f"head 2 “{source_name(cheque.tokens, pool_attention_row(cheque.heads[1].weights[-1]).top[0])}”.")

        # --- Shot 4: messages and prediction ---------------------------------------------------------
        self.shot("messages and prediction")
        self.finish_reading()
        candidate_idx = [VOCAB.index(w) for w in CANDIDATES]
        outcomes = VGroup()
        for ws in sheets:
            msgs = get_messages_line(ws)
            words = get_word_rows(ws, candidate_idx, show_logits=False, bar_unit=2.6, tag_prefix=f"{ws.name}_",
                                  row_height=0.27)
            best = VOCAB.index(ws.mlp.prediction)
            words.rows[best].bar.set_fill(POSITIVE_COLOR)
            box = words.get_row_box(best, POSITIVE_COLOR)
            label = get_text(f"prediction: {ws.mlp.prediction}", font_size=LABEL_SIZE, color=POSITIVE_COLOR)
            chart = VGroup(words, box)
            outcome = VGroup(msgs, chart, label).arrange(DOWN, buff=0.3)
            outcome.msgs, outcome.words, outcome.box, outcome.label = msgs, words, box, label
            outcomes.add(outcome)
        place(outcomes)
        self.outcomes = outcomes
        self.play(FadeOut(tables), *(FadeIn(VGroup(o.msgs)) for o in outcomes))
        self.caption("The messages change with the sources they mix.")
        self.play(*(FadeIn(o.words) for o in outcomes), run_time=1.2)
        self.play(*(Create(o.box) for o in outcomes), *(FadeIn(o.label) for o in outcomes))
        self.caption(f"Same parameters, different prefix: “{river.mlp.prediction}” after the river sentence, "
                     f"“{cheque.mlp.prediction}” after the cheque sentence.")
        self.caption("This is a worked arithmetic explorer, not a trained language model.")
        self.finish_reading(extra=1.0)


__all__ = [
    "PooledRow", "pool_row", "source_name", "joined_names", "mixing_rows", "same_receiver_rows",
    "RowSpec", "PooledTable", "get_pooled_table", "WordRows", "get_word_rows", "get_sentence_header",
    "get_joined_projections", "get_mixtures", "get_residual_line", "get_mlp_rows", "get_receiver_qkv",
    "get_messages_line", "WideHeadVersusTwo", "ConcatAndOutputProjection", "ResidualAndPrediction",
    "ChequeSentence", "COMPARED",
]
