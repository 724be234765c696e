"""Chapter 2, scenes 12–15: one wide head versus two, concat and W_O, the residual and the
prediction, and the cheque sentence beside the river sentence.

Scenes 12–14 follow the sentence chosen by LESSON_SENTENCE (default "river"). Scene 15 is the
comparison itself, so it always computes both named sentences, river and cheque, and ignores the
switch. Every number comes from the data layer (lesson_data.worksheet, lesson_data.joining) through
get_number; the fine print is the lesson notes' own words (docs/lesson-notes.txt).

    manim -pql scenes/chapter2/joining_heads.py WideHeadVersusTwo
    manim -pql scenes/chapter2/joining_heads.py ConcatAndOutputProjection
    manim -pql scenes/chapter2/joining_heads.py ResidualAndPrediction
    manim -pql scenes/chapter2/joining_heads.py ChequeSentence
"""
from __future__ import annotations

import math

import numpy as np
from manim import (
    DOWN,
    AnimationGroup,
    LEFT,
    PI,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeTransform,
    FadeOut,
    Indicate,
    LaggedStart,
    Line,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    TransformFromCopy,
    VGroup,
    VMobject,
)

from lesson_data.display import fmt, fmt_about as about, places_for
from lesson_data.joining import (
    put_back_update,
    carried_axes,
    coordinate_terms,
    closest_head,
    copy_units,
    dominant_axis,
    gap_word,
    logit_terms,
    mixed_axes,
    mixture_gap,
    off_carrier_entries,
    pool_on_sources,
    relu_zeroed,
    runner_up_source,
    same_receiver_input,
    same_receiver_rows,
    unchanged_sources,
    largest_update_axis,
    score_split,
    score_story,
    shown_rows,
    strongest_source,
    sum_of_shown,
    update_terms,
    word_groups,
)
from lesson_data.walkthrough import rounding_shows_in_sum
from lesson_data.worksheet import AXES, VOCAB, compute_worksheet
from scenes.blocks.attention_arrows import (RECEIVER_ROOM, get_attention_arrows, get_label_pill, get_token_row,
                                           place_weight_label)
from scenes.blocks.concat_output_projection import get_concat_output_projection
from scenes.blocks.flow_arrow import get_arrow
from scenes.blocks.labeled_matrix import get_labeled_matrix, get_row_vector
from scenes.blocks.pooled_rows import PooledRowSpec, get_pooled_rows, source_name
from scenes.blocks.shape_box import get_shape_box
from scenes.blocks.word_probabilities import get_word_rows
from scenes.style import (
    ROUNDING_NOTE,
    SEPARATE_PARAMETERS_NOTE,
    BODY_SIZE,
    BUFF,
    BUFF_SMALL,
    CONTENT_BOTTOM,
    CONTENT_CENTER,
    CONTENT_HEIGHT,
    CONTENT_TOP,
    DIM_TEXT_COLOR,
    FINE_PRINT_SIZE,
    HIGHLIGHT_OPACITY,
    LABEL_SIZE,
    NUMBER_SIZE,
    POSITIVE_COLOR,
    RECEIVER_COLOR,
    SAFE_WIDTH,
    SMALL_SIZE,
    TEXT_COLOR,
    WIDE_HEAD_COLOR,
    LessonScene,
    align_baseline,
    baseline_y,
    count_word,
    format_shape,
    get_fine_print,
    get_number,
    get_text,
    get_title,
    head_color,
    join_words,
    scene_worksheet,
    sub,
    sup,
)

FALL_COLOR = "#E8675F"        # a neutral red for "negative / falls" (orange is head 2's colour)
PREDICTED_COLOR = POSITIVE_COLOR   # green means "predicted", nothing else
MLP_NOTE = "The prediction MLP's W1, b1, W2 and b2 are hand-chosen, like every parameter here."
PENDING_FADE = 0.5              # how far the pending arrows dim while the new weights are not yet computed
ARROW_ANGLE = PI / 4          # flatter arcs than the default, so two token rows fit one screen
ARROW_ANGLE_BELOW = PI / 6    # head 2's arcs under a row with numbers below them: flatter still


# ============================================================================================
# Small builders shared by the four scenes
# ============================================================================================


def article(word: str) -> str:
    """"a" or "an" before a number word (an eight, a four)."""
    return "an" if word.startswith(("e", "a", "i", "o")) and not word.startswith("one") else "a"


def said_source(tokens, j: int) -> str:
    """A source as a sentence says it: “river”, or “the” at 5 when the word repeats."""
    word = tokens[j]
    return f"“{word}”" if list(tokens).count(word) == 1 else f"“{word}” at {j + 1}"


def get_line(*parts, buff: float = 0.12) -> VGroup:
    """Texts and numbers side by side on one baseline (the numbers' line)."""
    line = VGroup(*parts).arrange(RIGHT, buff=buff)
    for k, p in enumerate(parts):          # a comma or semicolon sits against the word before it
        if k and getattr(p, "original_text", "")[:1] in (",", ";", "."):
            for q in parts[k:]:
                q.shift(LEFT * buff * 0.85)
    numbers = [p for p in parts if hasattr(p, "value")]
    y = baseline_y(numbers[0]) if numbers else baseline_y(parts[0])
    for p in parts:
        align_baseline(p, y)
    return line


def put_fine_print(note, left: float = -SAFE_WIDTH / 2, bottom: float = CONTENT_BOTTOM + 0.05):
    """Fine print at the bottom left of the content zone."""
    return note.move_to([left, bottom, 0], aligned_edge=LEFT + DOWN)


def get_fine(text: str, max_width: float = SAFE_WIDTH):
    """The notes' words as fine print at the bottom of the content. A long note is set in chunks of
    whole sentences (scenes.style.wrap_lines measures a sentence set on one line, and Pango wraps a
    line wider than its canvas by itself at a low pixel width, as the test harness uses)."""
    chunks, current = [], ""
    for sentence in text.replace(". ", ".\n").replace("; ", ";\n").split("\n"):
        if current and len(current) + len(sentence) > 190:
            chunks.append(current)
            current = sentence
        else:
            current = f"{current} {sentence}".strip()
    chunks.append(current)
    parts = [get_fine_print(chunk, max_width=max_width) for chunk in chunks]
    note = VGroup(*parts).arrange(DOWN, buff=0.08, aligned_edge=LEFT) if len(parts) > 1 else parts[0]
    note.sentence = text
    return put_fine_print(note)


def get_shown_sum_note(values, lead: str, *, tag: str, places: int = 3) -> VGroup:
    """The notes' rounding line as fine print, followed (only where rounding shows in the sum,
    lesson_data decides) by what the rounded values shown add to: 'Head 2's shown weights add to 1.002.'"""
    size = FINE_PRINT_SIZE
    parts = [get_text(ROUNDING_NOTE, font_size=size, color=DIM_TEXT_COLOR)]
    if rounding_shows_in_sum(values, math.fsum(values), places):
        parts += [get_text(lead, font_size=size, color=DIM_TEXT_COLOR),
                  get_number(sum_of_shown(values, places), tag=tag, font_size=size, color=DIM_TEXT_COLOR),
                  get_text(".", font_size=size, color=DIM_TEXT_COLOR)]
    line = VGroup(*parts).arrange(RIGHT, buff=0.1)
    for part in parts[1:]:
        align_baseline(part, baseline_y(parts[0]))
    if len(parts) > 1:
        parts[-1].shift(LEFT * 0.07)
    return put_fine_print(line)


def dim_zero_entries(matrix, opacity: float = 0.4):
    """Fade exact zeros of a LabeledMatrix that keeps its column colours."""
    for i in range(matrix.n_rows):
        for j in range(matrix.n_cols):
            if matrix.values[i, j] == 0.0:
                matrix.cell(i, j).set_opacity(opacity)
    return matrix


def get_labeled_vector(label: str, values, col_labels, *, tag: str, color: str, column_colors=None,
                       label_color: str | None = None, places=None, font_size=NUMBER_SIZE + 2, h_buff: float = 0.22):
    """'label  [v₁ v₂ …]' with the label on the numbers' line."""
    vec = get_row_vector(values, col_labels, tag=tag, places=places, font_size=font_size,
                         color=color, column_colors=column_colors, label_size=SMALL_SIZE, h_buff=h_buff)
    name = get_text(label, font_size=LABEL_SIZE, color=label_color or color)
    name.next_to(vec.brackets, LEFT, buff=BUFF)
    align_baseline(name, baseline_y(vec.cell(0, 0)))
    group = VGroup(name, vec)
    group.name, group.vector = name, vec
    return group


def get_arrow_set(row, weights, color, side, tag: str, angle: float = ARROW_ANGLE, at: float = 0.5,
                  index: int | None = None, direction=None):
    """One head's arrows into the receiver, with the weight of its strongest source (or of source
    `index`) written beside that arrow (tag f"{tag}_top", index = the source), `at` along it from
    the source (0.5: the apex). The label sits on a background pill, so no thin arc runs through it;
    `badge` is the pill and the label together."""
    arrows = get_attention_arrows(row, weights, color=color, side=side, angle=angle)
    j = strongest_source(weights[: row.receiver]) if index is None else index
    arrow = arrows.arrow(j)
    label = get_number(weights[j], tag=f"{tag}_top" if index is None else tag, index=j,
                       font_size=NUMBER_SIZE + 2, color=color)
    # on the arrow; an arrow between two lines of a wrapped row has its apex among the
    # position numbers, so its label goes beside the panel's name instead (placed by the caller)
    group = VGroup(arrows)
    group.beside_name = row.line_of(j) != row.line_of(row.receiver - 1)
    if not group.beside_name:
        place_weight_label(label, arrows, j, at=at, direction=direction)
    pill = get_label_pill(label, buff=0.05)
    badge = VGroup(pill, label)
    group.add(badge)
    group.arrows, group.label, group.pill, group.badge, group.top = arrows, label, pill, badge, j
    return group


# ============================================================================================
# Scene 12 — One wide head versus two
# ============================================================================================


def get_joined_projection(ws, name: str, with_axes: bool) -> VGroup:
    """The wide head's W_Q, W_K or W_V [4, 4]: head 1's [4, 2] and head 2's [4, 2] side by side,
    each half in its head's colour under its own name; the exact zeros faded."""
    W = getattr(ws.wide_head, name)
    d1 = ws.heads[0].W_Q.shape[1]
    colors = [head_color(1)] * d1 + [head_color(2)] * (W.shape[1] - d1)
    m = get_labeled_matrix(W, list(AXES) if with_axes else None, None, tag=f"wide_{name}", places=None,
                           column_colors=colors, label_size=SMALL_SIZE, font_size=NUMBER_SIZE + 2)
    dim_zero_entries(m)
    halves = VGroup(VGroup(*(m.column(j) for j in range(d1))),
                    VGroup(*(m.column(j) for j in range(d1, W.shape[1]))))
    labels = VGroup()
    for h, half in zip((1, 2), halves):
        label = get_text(f"{name}{sup(h)}", font_size=SMALL_SIZE, color=head_color(h))
        label.next_to(m.brackets, UP, buff=BUFF_SMALL).set_x(half.get_center()[0])
        labels.add(label)
    title = get_text(f"{name}  {format_shape(W.shape)}", font_size=LABEL_SIZE, color=WIDE_HEAD_COLOR)
    title.next_to(labels, UP, buff=BUFF_SMALL).set_x(m.brackets.get_center()[0])
    group = VGroup(m, labels, title)
    group.matrix, group.halves, group.half_labels, group.title = m, halves, labels, title
    return group


def get_score_rules(ws) -> VGroup:
    """The wide head's score, and each narrow head's, as one line each (√4 and √2 as numbers)."""
    wide, h1 = ws.wide_head, ws.heads[0]
    d_wide, d_head = wide.W_Q.shape[1], h1.W_Q.shape[1]
    size = LABEL_SIZE + 2
    wide_line = get_line(
        get_text("one wide head:", font_size=size, color=WIDE_HEAD_COLOR),
        get_text(f"(q{sup(1)}·k{sup(1)} + q{sup(2)}·k{sup(2)}) ÷ √{d_wide},", font_size=size),
        get_text(f"√{d_wide} =", font_size=size, color=DIM_TEXT_COLOR),
        get_number(wide.scale, places_for([wide.scale]), tag="wide_scale", font_size=size),
        get_text(",  one softmax", font_size=size, color=DIM_TEXT_COLOR),
    )
    head_line = get_line(
        get_text("two heads:", font_size=size),
        get_text(f"q{sup(1)}·k{sup(1)} ÷ √{d_head}", font_size=size, color=head_color(1)),
        get_text("and", font_size=size, color=DIM_TEXT_COLOR),
        get_text(f"q{sup(2)}·k{sup(2)} ÷ √{d_head},", font_size=size, color=head_color(2)),
        get_text(f"√{d_head} =", font_size=size, color=DIM_TEXT_COLOR),
        get_number(h1.scale, places_for([h1.scale]), tag="head_scale", font_size=size),
        get_text(",  a softmax each", font_size=size, color=DIM_TEXT_COLOR),
    )
    rules = VGroup(wide_line, head_line).arrange(DOWN, buff=0.3, aligned_edge=LEFT)
    rules.wide, rules.heads = wide_line, head_line
    return rules


def get_arrow_panels(ws):
    """The receiver's weights as arrows: the two heads on one token row (head 1 above, head 2
    below), the one wide head on a second row above it. `stacked` is False when the two rows do not
    fit one screen (a long prefix wraps): then the wide panel takes the two-head panel's place."""
    n = ws.n
    kw = dict(receiver=n, font_size=20, max_width=SAFE_WIDTH - 2.1, receiver_width=RECEIVER_ROOM)
    two_row = get_token_row(ws.tokens, **kw)
    wide_row = get_token_row(ws.tokens, **kw)
    h1, h2 = ws.heads
    a1 = get_arrow_set(two_row, h1.weights[-1], head_color(1), UP, "A1")
    a2 = get_arrow_set(two_row, h2.weights[-1], head_color(2), DOWN, "A2")
    aw = get_arrow_set(wide_row, ws.wide_head.weights[-1], WIDE_HEAD_COLOR, UP, "wide")
    names = [get_text(t, font_size=LABEL_SIZE, color=c) for t, c in
             (("head 1", head_color(1)), ("head 2", head_color(2)), ("one wide head", WIDE_HEAD_COLOR))]
    for name, arrows, row in ((names[0], a1, two_row), (names[1], a2, two_row), (names[2], aw, wide_row)):
        name.move_to([row.get_left()[0] - 0.3, arrows.arrows.get_center()[1], 0], aligned_edge=RIGHT)
        if arrows.beside_name:
            arrows.badge.next_to(name, DOWN, buff=0.1).align_to(name, RIGHT)
    two = VGroup(two_row, a1, a2, names[0], names[1])
    wide = VGroup(wide_row, aw, names[2])
    panels = VGroup(wide, two).arrange(DOWN, buff=0.35)
    wide.shift(RIGHT * (two_row.get_left()[0] - wide_row.get_left()[0]))
    stacked = panels.height <= CONTENT_HEIGHT - 0.1
    if not stacked:
        wide.move_to(two)
        panels = VGroup(wide, two)
    panels.move_to(CONTENT_CENTER)
    panels.two, panels.wide, panels.stacked = two, wide, stacked
    panels.a1, panels.a2, panels.aw = a1, a2, aw
    panels.two_row, panels.wide_row, panels.names = two_row, wide_row, names
    return panels


SPLIT_COLUMNS = (   # (key, header, colour of the head it belongs to)
    ("s1", f"q{sup(1)}·k{sup(1)}", 1),
    ("scaled1", "÷ √2", 1),
    ("w1", "head 1\nweight", 1),
    ("s2", f"q{sup(2)}·k{sup(2)}", 2),
    ("scaled2", "÷ √2", 2),
    ("w2", "head 2\nweight", 2),
    ("sum", f"q{sup(1)}·k{sup(1)}\n+ q{sup(2)}·k{sup(2)}", 0),
    ("scaled_wide", "÷ √4", 0),
    ("w_wide", "wide head\nweight", 0),
)
WIDE_UNDER = {"sum": "s2", "scaled_wide": "scaled2", "w_wide": "w2"}   # the wide row sits under head 2's


def get_score_table(ws, sources) -> VGroup:
    """Two blocks, one row per followed source in each. Top: head 1's dot product, ÷ √2 and weight,
    then head 2's. Below, column under column with head 2's: the wide head's summed dot product,
    ÷ √4 and weight (its weights land close to head 2's). Columns (dict `columns`, each a VGroup)
    appear one beat at a time; numbers tagged f"split_{key}", index = the source."""
    splits = [score_split(ws, j) for j in sources]
    d_head = ws.heads[0].W_Q.shape[1]
    d_wide = ws.wide_head.W_Q.shape[1]
    raw_places = places_for([v for s in splits for v in (*s.head_scores, s.wide_score)])
    values = {
        "s1": ([s.head_scores[0] for s in splits], raw_places),
        "scaled1": ([s.head_scaled[0] for s in splits], 3),
        "w1": ([s.head_weights[0] for s in splits], 3),
        "s2": ([s.head_scores[1] for s in splits], raw_places),
        "scaled2": ([s.head_scaled[1] for s in splits], 3),
        "w2": ([s.head_weights[1] for s in splits], 3),
        "sum": ([s.wide_score for s in splits], raw_places),
        "scaled_wide": ([s.wide_scaled for s in splits], 3),
        "w_wide": ([s.wide_weight for s in splits], 3),
    }
    headers = {"scaled1": f"÷ √{d_head}", "scaled2": f"÷ √{d_head}", "scaled_wide": f"÷ √{d_wide}"}
    size = NUMBER_SIZE + 6
    row_h = 0.62
    block_gap = len(sources) * row_h + 1.05          # from the top block's first row to the wide block's
    def names_at(y0):
        names = VGroup(*(get_text(source_name(ws.tokens, j), font_size=LABEL_SIZE + 4) for j in sources))
        for r, name in enumerate(names):
            name.move_to([0, 0, 0], aligned_edge=RIGHT)
            align_baseline(name, y0 - r * row_h)
        return names
    names = names_at(0.0)
    wide_names = names_at(-block_gap)
    table = VGroup(names, wide_names)
    table.columns, table.numbers, table.right_x = {}, {}, {}
    gaps = {"s1": 0.45, "scaled1": 0.35, "w1": 0.35, "s2": 0.7, "scaled2": 0.35, "w2": 0.35}
    x = 0.0
    for key, header_text, h in SPLIT_COLUMNS:
        color = head_color(h) if h else WIDE_HEAD_COLOR
        header = get_text(headers.get(key, header_text), font_size=16, color=color, line_spacing=0.8)
        y0 = -block_gap if key in WIDE_UNDER else 0.0
        nums = [get_number(v, values[key][1], tag=f"split_{key}", index=j, font_size=size, color=color)
                for v, j in zip(values[key][0], sources)]
        width = max([header.width] + [m.width for m in nums])
        if key in WIDE_UNDER:
            right = table.right_x[WIDE_UNDER[key]]
        else:
            x += gaps[key] + width
            right = x
        table.right_x[key] = right
        for r, m in enumerate(nums):
            m.move_to([right, 0, 0], aligned_edge=RIGHT)
            align_baseline(m, y0 - r * row_h)
        header.move_to([right - width / 2, 0, 0])
        header.align_to(np.array([0, y0 + row_h * 0.62, 0]), DOWN)
        col = VGroup(header, *nums)
        table.columns[key], table.numbers[key] = col, nums
        table.add(col)
    # each weight as a bar under it (width ∝ weight: a weight of one is 1.4 wide)
    table.bars = {}
    for key, h in (("w1", 1), ("w2", 2), ("w_wide", 0)):
        bars = VGroup()
        for r, m in enumerate(table.numbers[key]):
            w = values[key][0][r]
            bar = Rectangle(width=max(1.4 * w, 0.01), height=0.1).set_stroke(width=0)
            bar.set_fill(head_color(h) if h else WIDE_HEAD_COLOR, 0.9)
            bar.next_to(m, DOWN, buff=0.08).align_to(m, RIGHT)
            bars.add(bar)
        table.bars[key] = bars
        table.columns[key].add(bars)
    # a thin line between head 1's columns and head 2's
    top = row_h * 0.5
    bottom = -(len(sources) - 1) * row_h - 0.25
    xs = (table.columns["w1"].get_right()[0] + table.columns["s2"].get_left()[0]) / 2
    table.rules = VGroup(Line([xs, top + 0.55, 0], [xs, bottom, 0]).set_stroke(DIM_TEXT_COLOR, 1, opacity=0.5))
    table.add(table.rules)
    # the comparison: head 2's weights and the wide head's, one box around both columns
    both = VGroup(*table.numbers["w2"], *table.bars["w2"], *table.numbers["w_wide"], *table.bars["w_wide"])
    table.compare_box = SurroundingRectangle(both, color=TEXT_COLOR, buff=0.12, stroke_width=2)
    # the lower block is the one wide head's: named in its colour at the left, over its source names
    wide_label = get_text("one wide head", font_size=LABEL_SIZE + 2, color=WIDE_HEAD_COLOR)
    wide_label.move_to([0, -block_gap + row_h * 0.85, 0], aligned_edge=RIGHT + DOWN)
    table.wide_label = wide_label
    table.add(wide_label)
    table.names, table.wide_names, table.splits, table.sources = names, wide_names, splits, sources
    return table


def get_bar_legend(tokens, row, colors=None) -> VGroup:
    """What each shade of the stacked bars is: the named sources, then "others" (the pooled rest).
    Each swatch is shaded like the bars: one stripe per row colour (`colors`) at that shade."""
    from scenes.blocks.pooled_rows import BAR_SHADES

    colors = list(colors) if colors else [TEXT_COLOR]

    names = [source_name(tokens, j) for j in row.sources] + (["others"] if row.n_others else [])
    shades = list(BAR_SHADES[:len(row.sources)]) + ([BAR_SHADES[-1]] if row.n_others else [])
    items = VGroup()
    for name, shade in zip(names, shades):
        swatch = VGroup(*(Rectangle(width=0.2, height=0.26).set_stroke(width=0).set_fill(c, shade)
                          for c in colors)).arrange(RIGHT, buff=0)
        item = VGroup(swatch, get_text(name, font_size=16, color=TEXT_COLOR)).arrange(RIGHT, buff=0.12)
        # a light outline, so the darkest shade ("others") still reads against the background
        item.add(SurroundingRectangle(swatch, color=DIM_TEXT_COLOR, buff=0.02, stroke_width=1.2))
        items.add(item)
    title = get_text("bar:", font_size=16, color=DIM_TEXT_COLOR)
    return VGroup(title, *items).arrange(RIGHT, buff=0.25)


def get_mixtures(ws) -> VGroup:
    """The wide head's one message (one row of weights for all four value coordinates) above the
    two heads' messages side by side (two rows of weights, two mixtures before W_O)."""
    n, wide = ws.n, ws.wide_head
    d1, d = ws.heads[0].messages.shape[1], ws.H_joined.shape[1]
    names = carried_axes(np.hstack([h.W_V for h in ws.heads]))
    wide_vec = get_labeled_vector(f"one wide head:  m{sub(n)} =", wide.messages[-1], list(names), tag="wide_m",
                                  color=WIDE_HEAD_COLOR)
    two_vec = get_labeled_vector(f"two heads:  [m{sup(1)}{sub(n)} | m{sup(2)}{sub(n)}] =", ws.H_joined[-1],
                                 list(names), tag="two_m", color=TEXT_COLOR, label_color=TEXT_COLOR,
                                 column_colors=[head_color(1)] * d1 + [head_color(2)] * (d - d1))
    two_vec.vector.remove(two_vec.vector.col_labels)     # the same columns as the wide row's, named once
    v = two_vec.vector
    x_mid = (v.cell(0, d1 - 1).get_right()[0] + v.cell(0, d1).get_left()[0]) / 2    # midway between the digits
    divider = Line(UP * v.row_height / 2, DOWN * v.row_height / 2).set_stroke(TEXT_COLOR, 2)
    v.add(divider.move_to([x_mid, v.cell_center(0, 0)[1], 0]))
    two_vec.vector.next_to(wide_vec.vector, DOWN, buff=0.25).align_to(wide_vec.vector, LEFT)
    two_vec.name.next_to(two_vec.vector.brackets, LEFT, buff=BUFF)
    align_baseline(two_vec.name, baseline_y(two_vec.vector.cell(0, 0)))
    # the wide head's message minus the two heads', under the coordinate each head carries most
    gap = mixture_gap(ws)
    gaps = VGroup()
    carried = []
    for h, own in ((1, range(d1)), (2, range(d1, d))):
        carried.append(max(own, key=lambda i: (abs(ws.H_joined[-1][i]), -i)))
    for k in range(d):                      # every coordinate's gap, none left out
        word = gap_word(gap[k])
        m = get_number(gap[k], 3, tag="mix_gap", index=k, font_size=NUMBER_SIZE + 2,
                       color=FALL_COLOR if word == "lower" else POSITIVE_COLOR if word == "higher" else TEXT_COLOR)
        m.move_to([two_vec.vector.cell_center(0, k)[0], 0, 0])
        align_baseline(m, baseline_y(two_vec.vector.cell(0, 0)) - 0.5)
        gaps.add(m)
    gap_name = get_text("wide − two (full precision):", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
    gap_name.move_to([two_vec.name.get_right()[0], 0, 0], aligned_edge=RIGHT)
    align_baseline(gap_name, baseline_y(gaps[0]))
    gap_row = VGroup(gap_name, gaps)
    rows = VGroup(wide_vec, two_vec, gap_row)
    rows.wide, rows.two, rows.gap, rows.gaps, rows.carried = wide_vec, two_vec, gap_row, gaps, carried
    return rows


def get_term_lines(ws, joined: int, wide: bool, color: str, tag: str) -> VGroup:
    """The two largest parts of one message coordinate, one line each: 'fisherman₂: 0.708 × 2.0 = 1.417'
    (lesson_data.joining.coordinate_terms), to sit right of the message they make."""
    terms = coordinate_terms(ws, joined, wide)
    head = ws.wide_head if wide else ws.heads[0 if joined < ws.heads[0].V.shape[1] else 1]
    k = joined if wide else joined % ws.heads[0].V.shape[1]
    v_places = places_for(head.V[:, k])
    lines = VGroup()
    for t in terms:
        size = SMALL_SIZE + 1
        lines.add(get_line(get_text(f"{source_name(ws.tokens, t.source)}:", font_size=size, color=color),
                           get_number(t.weight, 3, tag=f"{tag}_w", index=t.source, font_size=size, color=color),
                           get_text("×", font_size=size, color=DIM_TEXT_COLOR),
                           get_number(t.value, v_places, tag=f"{tag}_v", index=t.source, font_size=size,
                                      color=color),
                           get_text("=", font_size=size, color=DIM_TEXT_COLOR),
                           get_number(t.product, 3, tag=f"{tag}_p", index=t.source, font_size=size, color=color),
                           buff=0.1))
        lines[-1][2].shift(UP * 0.02)     # × and = at the digits' mid-height, not on the baseline
        lines[-1][4].shift(UP * 0.05)
    lines.arrange(DOWN, buff=0.14, aligned_edge=LEFT)
    lines.terms = terms
    return lines


class WideHeadVersusTwo(LessonScene):
    """Scene 12: the same projections joined into one width-4 head; its score is both heads' dot
    products added, ÷ √4, one softmax; the weights move (river falls, fisherman rises); arrows of
    the one head beside the two heads'; the rows with "others"; one mixture versus two."""

    def construct(self):
        ws = self.ws = scene_worksheet()
        self.story = score_story(ws)
        self.sources = tuple(s.source for s in self.story.splits)
        title = self.title = get_title("One wide head versus two heads")
        with self.transition("title"):
            self.play(FadeIn(title))
        # --- Shot 1: the same projections, joined to width four --------------------------------
        self.shot("joined projections")
        self.show_joined_projections(ws)
        self.show_wide_score(ws)
        self.show_head_scores(ws)
        # --- Shot 2: the receiver's weights as arrows, two heads and one --------------------------
        self.shot("arrows")
        self.badge = get_fine("Joined projections, not separately trained models.")
        self.badge.move_to([-SAFE_WIDTH / 2, CONTENT_TOP + 0.05, 0], aligned_edge=LEFT + UP)   # clear of the arcs
        self.clear_stage(title)
        with self.transition("the caveat stays as a badge"):
            self.play(FadeIn(self.badge))
        self.show_two_heads_arrows(ws)
        self.show_wide_arrows(ws)
        # --- Shot 3: why they move: the wide score adds both dot products ----------------------
        self.shot("scores")
        self.clear_stage(title, self.badge)
        self.show_head1_scores(ws)
        self.show_head2_scores(ws)
        self.show_wide_sums(ws)
        self.show_wide_weights(ws)
        # --- Shot 4: the three rows, "others" pooling the rest -----------------------------------
        self.shot("rows")
        self.clear_stage(title)
        self.show_rows(ws)
        # --- Shot 5: one mixture versus two ----------------------------------------------------
        self.shot("mixtures")
        self.show_wide_mixture(ws)
        self.show_two_mixtures(ws)
        # --- Shot 6: a useful choice, not proof --------------------------------------------------
        self.shot("not proof")
        self.show_not_proof()

    def said(self, j: int) -> str:
        return said_source(self.ws.tokens, j)

    # shot 1 -----------------------------------------------------------------------------------
    def show_joined_projections(self, ws):
        mats = VGroup(*(get_joined_projection(ws, name, k == 0) for k, name in enumerate(("W_Q", "W_K", "W_V"))))
        mats.arrange(RIGHT, buff=0.7, aligned_edge=DOWN)
        rules = self.rules = get_score_rules(ws)
        page = VGroup(mats, rules).arrange(DOWN, buff=0.7)
        page.move_to(CONTENT_CENTER + UP * 0.25)   # clear of the two-line fine print
        self.mats = mats
        note = self.note = get_fine(
            "For this controlled comparison, concatenate the two existing Q, K and V projections into "
            "width-four projections. The example changes no projection entries and does not compare "
            "separately trained models.")
        width = ws.wide_head.W_Q.shape[1]

        def join(g):
            """head 1's half slides in from the left, head 2's from the right, and they meet"""
            return [FadeIn(VGroup(g.matrix.brackets, g.matrix.row_labels, g.title)),
                    FadeIn(VGroup(g.halves[0], g.half_labels[0]), shift=RIGHT * 1.4),
                    FadeIn(VGroup(g.halves[1], g.half_labels[1]), shift=LEFT * 1.4)]

        with self.beat("A control: set head 1's W_Q beside head 2's W_Q, making one wide W_Q."):
            self.play(*join(mats[0]), run_time=2.2)
        with self.beat(f"W_K and W_V the same way: one wide head of width {count_word(width)}; "
                       "no entry changes, nothing is trained."):
            self.play(*join(mats[1]), run_time=1.8)
            self.play(*join(mats[2]), run_time=1.8)
            self.play(FadeIn(note))

    def show_wide_score(self, ws):
        d = ws.wide_head.W_Q.shape[1]
        with self.beat(f"Its score adds both heads' dot products and divides by √{d}, before one softmax."):
            self.play(FadeIn(self.rules.wide, shift=UP * 0.2))

    def show_head_scores(self, ws):
        d = ws.heads[0].W_Q.shape[1]
        with self.beat(f"The two heads keep them apart: each divides by √{d} and runs its own softmax."):
            self.play(FadeIn(self.rules.heads, shift=UP * 0.2))

    # shot 2 -----------------------------------------------------------------------------------
    def show_two_heads_arrows(self, ws):
        panels = self.panels = get_arrow_panels(ws)
        with self.beat(f"As arrows: head 1 reads {self.said(panels.a1.top)} most, "
                       f"head 2 reads {self.said(panels.a2.top)}."):
            self.play(FadeIn(VGroup(panels.two_row, panels.names[0], panels.names[1])))
            self.play(panels.a1.arrows.create(), panels.a2.arrows.create(), run_time=2.0)
            self.play(FadeIn(panels.a1.badge), FadeIn(panels.a2.badge))

    def show_wide_arrows(self, ws):
        panels = self.panels
        tw = panels.aw.top
        with self.beat(f"The wide head has one row of weights, mostly on {self.said(tw)}: "
                       f"{fmt(ws.wide_head.weights[-1, tw])}."):
            # unstacked (a long sentence), the two-head panel gives way as the wide one comes in
            self.play(*([] if panels.stacked else [FadeOut(panels.two)]),
                      FadeIn(VGroup(panels.wide_row, panels.names[2])))
            self.play(panels.aw.arrows.create(), run_time=1.6)
            self.play(FadeIn(panels.aw.badge))

    # shot 3 -----------------------------------------------------------------------------------
    def show_head1_scores(self, ws):
        table = self.table = get_score_table(ws, self.sources)
        table.move_to(CONTENT_CENTER + UP * 0.3)
        st = self.story
        by = {x.source: x for x in st.splits}
        lead = by[st.head1_order[0]]
        raw = lambda x: fmt(x, places_for([x]))  # noqa: E731  (a raw score as the table shows it: 6.9)
        scored = " and ".join(f"{self.said(x.source)} {raw(x.head_scores[0])}" for x in st.splits)
        # "raw": the listener last heard a scaled score (4.879), and head 1's raw 4.83 sounds like it
        with self.beat(f"Why? Head 1's raw scores: {scored}, so {self.said(lead.source)} gets "
                       f"{fmt(lead.head_weights[0])}." if len(st.splits) > 1 else
                       f"Why? Head 1's raw score: {scored}, so the only source gets {fmt(lead.head_weights[0])}."):
            # the voice says the scores too: the wide head's sums below are made of them. The arrows
            # give way, but the followed words come down out of the sentence to name the rows, and head
            # 1's weight on its arc goes to its place in the table: the numbers now explain it
            panels, w1 = self.panels, table.numbers["w1"]
            words = [panels.two_row.words[j] for j in self.sources]
            lead_cell = (w1[self.sources.index(panels.a1.top)]
                         if panels.a1.top in self.sources and not panels.a1.beside_name else None)
            # (a word cross-fades into its row name: "fisherman" morphed glyph by glyph into "fisherman₂" garbles)
            self.play(*(FadeTransform(word.copy(), name) for word, name in zip(words, table.names)),
                      *([TransformFromCopy(panels.a1.label, lead_cell)] if lead_cell is not None else []),
                      run_time=1.2)
            self.play(FadeIn(table.columns["s1"]))
            self.play(FadeIn(table.columns["scaled1"], shift=RIGHT * 0.2))
            self.play(FadeIn(VGroup(*(m for m in table.columns["w1"] if m is not lead_cell)), shift=RIGHT * 0.2))

    def show_head2_scores(self, ws):
        table, st = self.table, self.story
        raw = lambda x: fmt(x, places_for([x]))  # noqa: E731
        lead = max(st.splits, key=lambda x: x.head_weights[1])
        scored = " and ".join(f"{self.said(x.source)} {raw(x.head_scores[1])}"
                              for x in sorted(st.splits, key=lambda x: -x.head_scores[1]))
        with self.beat(f"Head 2 scores {scored}: {self.said(lead.source)} gets {fmt(lead.head_weights[1])}."):
            self.play(FadeIn(table.rules[0]), FadeIn(table.columns["s2"], shift=RIGHT * 0.2))
            self.play(FadeIn(table.columns["scaled2"], shift=RIGHT * 0.2))
            self.play(FadeIn(table.columns["w2"], shift=RIGHT * 0.2))

    def show_wide_sums(self, ws):
        table, st = self.table, self.story
        by = {x.source: x for x in st.splits}
        lead = by[st.wide_order[0]]
        rest = [by[j] for j in st.wide_order[1:]]
        tail = (f"{self.said(lead.source)} {'now ' if st.flipped else ''}leads, {fmt(lead.wide_scaled)} to "
                f"{fmt(rest[0].wide_scaled)}" if rest else f"{self.said(lead.source)} scores {fmt(lead.wide_scaled)}")
        with self.beat(f"Summed, then divided by {fmt(ws.wide_head.scale, 0)}: {tail}.",
                       spoken=f"The wide head adds the two raw scores and divides by root "
                              f"{count_word(ws.wide_head.W_Q.shape[1])}, which is {fmt(ws.wide_head.scale, 0)}: "
                              f"{tail}."):
            sums = table.numbers["sum"]
            self.play(FadeIn(table.wide_names), FadeIn(table.wide_label), FadeIn(table.columns["sum"][0]),
                      *(TransformFromCopy(VGroup(a, b), c) for a, b, c in
                        zip(table.numbers["s1"], table.numbers["s2"], sums)), run_time=1.6)
            self.play(FadeIn(table.columns["scaled_wide"], shift=RIGHT * 0.2))

    def show_wide_weights(self, ws):
        table, st = self.table, self.story
        near = self.closest = closest_head(st.splits)
        weights = " and ".join(f"{self.said(x.source)} {fmt(x.wide_weight)}" for x in st.splits)
        key = f"w{near}"
        boxes = self.compare_boxes = VGroup(*(SurroundingRectangle(VGroup(*table.numbers[k], *table.bars[k]),
                                                                   color=TEXT_COLOR, buff=0.1, stroke_width=2)
                                              for k in (key, "w_wide")))
        text = (f"After one softmax: {weights}, closer to head {near}'s row than to head {3 - near}'s."
                if len(st.splits) > 1 else
                f"After its one softmax, the only source keeps {fmt(st.splits[0].wide_weight)}.")
        top = max(st.splits, key=lambda x: x.wide_weight)
        # its weight was said with the wide head's arrows: heard once, not repeated
        spoken = (f"After one soft max, {self.said(top.source)} takes the most weight: closer to head {near}'s "
                  f"row than to head {3 - near}'s." if len(st.splits) > 1 else None)
        with self.beat(text, spoken=spoken):
            self.play(FadeIn(table.columns["w_wide"], shift=RIGHT * 0.2))
            if len(st.splits) > 1:
                self.play(LaggedStart(*(Create(b) for b in boxes), lag_ratio=0.3))

    # shot 4 -----------------------------------------------------------------------------------
    def show_rows(self, ws):
        n = ws.n
        wide, h1, h2 = ws.wide_head, *ws.heads
        specs = [
            PooledRowSpec("one wide head", pool_on_sources(wide.weights[-1], self.sources), WIDE_HEAD_COLOR, "wide"),
            PooledRowSpec("head 1", pool_on_sources(h1.weights[-1], self.sources), head_color(1), "A1"),
            PooledRowSpec("head 2", pool_on_sources(h2.weights[-1], self.sources), head_color(2), "A2"),
        ]
        table = self.rows_table = get_pooled_rows(ws.tokens, specs, bar_width=1.8)
        legend = self.bar_legend = get_bar_legend(ws.tokens, specs[0].row, colors=[sp.color for sp in specs])
        heading = get_text(f"row {n} of each attention matrix: receiver “{ws.tokens[-1]}”",
                           font_size=LABEL_SIZE, color=RECEIVER_COLOR)
        heading.next_to(table, UP, buff=0.3).align_to(table, LEFT)
        # the legend on the heading's line when both fit, else under the table
        legend.next_to(table, UP, buff=0.3).align_to(table, RIGHT)
        if legend.get_left()[0] < heading.get_right()[0] + 0.4:
            legend.next_to(table, DOWN, buff=0.15).align_to(table, RIGHT)
        else:
            legend.shift(UP * (heading.get_center()[1] - legend.get_center()[1]))
        self.rows_heading = heading
        mixtures = self.mixtures = get_mixtures(ws)
        page = VGroup(VGroup(heading, table, legend), mixtures).arrange(DOWN, buff=0.3)
        mixtures.shift(RIGHT * (table.get_left()[0] - mixtures.get_left()[0]))
        page.move_to([0, CONTENT_TOP - 0.08 - page.height / 2, 0])
        pooled = specs[0].row.n_others
        note_text = (f"Every displayed attention row sums to one over all {count_word(n)} sources; "
                     f"“others” combines the remaining {count_word(pooled)}. " if pooled else "") + ROUNDING_NOTE
        # where a row's rounded parts do not add to the 1.000 shown, say so, with the numbers
        odd = []
        for spec in specs:
            r = spec.row
            parts = list(r.shown) + ([r.others] if r.n_others else [])
            shown = sum_of_shown(parts, 3)
            if fmt(shown, 3) != fmt(r.total, 3):
                odd.append((spec, shown))
        note = self.rows_note = get_fine(note_text)
        if odd:
            spec, shown = odd[0]
            size = 16
            line = get_line(get_text(f"{spec.name}: its rounded parts shown add to", font_size=size,
                                     color=DIM_TEXT_COLOR),
                            get_number(shown, tag=f"{spec.tag}_shown_sum", font_size=size, color=DIM_TEXT_COLOR),
                            get_text("; its full-precision sum is", font_size=size, color=DIM_TEXT_COLOR),
                            get_number(spec.row.total, tag=f"{spec.tag}_sum", font_size=size, color=DIM_TEXT_COLOR),
                            buff=0.1)
            note = self.rows_note = VGroup(note, line).arrange(DOWN, buff=0.08, aligned_edge=LEFT)
            note.sentence = note_text
            put_fine_print(note)
        text = (f"All three rows: each sums to one over all {count_word(n)} sources; "
                f"the slice marked “others” holds the remaining {count_word(pooled)}." if pooled else
                f"All three rows: each sums to one over all {count_word(n)} sources.")
        with self.beat(text):
            self.play(FadeIn(heading), FadeIn(table.header))
            self.play(LaggedStart(*(FadeIn(row) for row in table.rows), lag_ratio=0.4), run_time=2.0)
            self.play(FadeIn(legend), FadeIn(note))

    # shot 5 -----------------------------------------------------------------------------------
    def coordinate(self, head, ws):
        """(name, index in the joined row) of the coordinate a head's message carries most."""
        names = carried_axes(np.hstack([h.W_V for h in ws.heads]))
        d1 = ws.heads[0].messages.shape[1]
        own = names[:d1] if head.index == 1 else names[d1:]
        axis = dominant_axis(head.messages[-1], own)
        return axis, names.index(axis)

    def show_wide_mixture(self, ws):
        table, mixtures = self.rows_table, self.mixtures
        axis, k = self.coordinate(ws.heads[0], ws)
        box = self.mix_box = table.get_row_box(0, WIDE_HEAD_COLOR)
        cell = self.mix_cell = SurroundingRectangle(mixtures.wide.vector.cell(0, k), color=WIDE_HEAD_COLOR, buff=0.07)
        terms = self.wide_terms = get_term_lines(ws, k, True, WIDE_HEAD_COLOR, "wide_term")
        terms.next_to(mixtures.wide.vector.brackets, RIGHT, buff=0.45)
        lead = terms.terms[0]
        # the shown parts are products of unrounded weights and leave out the other sources: said
        # where the first such products appear (it moves down under head 1's when they come)
        parts_note = self.parts_note = get_text("unrounded weights; others add the rest", font_size=SMALL_SIZE,
                                                color=DIM_TEXT_COLOR).next_to(terms, DOWN, buff=0.14, aligned_edge=LEFT)
        with self.beat(f"The wide head mixes all four value coordinates with that one row; its {axis}, "
                       f"{fmt(ws.wide_head.messages[-1][k])}, is mostly {self.said(lead.source)}: "
                       f"{fmt(lead.weight)} × {fmt(lead.value, places_for(ws.wide_head.V[:, k]))}.",
                       # the product stays on screen; the voice gives the rounded total and where it came from
                       spoken=f"The wide head mixes all four value coordinates with that one row; its {axis}, "
                              f"about {about(ws.wide_head.messages[-1][k])}, comes mostly from "
                              f"{self.said(lead.source)}."):
            self.play(Create(box))
            self.play(FadeIn(mixtures.wide, shift=DOWN * 0.2))
            self.play(Create(cell), FadeIn(terms, shift=LEFT * 0.2), FadeIn(parts_note, shift=LEFT * 0.2))

    def show_two_mixtures(self, ws):
        table, mixtures = self.rows_table, self.mixtures
        h1, h2 = ws.heads
        (axis, k), (axis2, k2) = self.coordinate(h1, ws), self.coordinate(h2, ws)
        cells = VGroup(*(SurroundingRectangle(mixtures.two.vector.cell(0, j), color=head_color(h.index), buff=0.07)
                         for h, j in ((h1, k), (h2, k2))))
        boxes = VGroup(table.get_row_box(1, head_color(1)), table.get_row_box(2, head_color(2)))
        note = get_fine("One wide head uses its single row for all four value coordinates. The two heads use "
                        "different rows for their two-coordinate values, preserving both mixtures before W_O "
                        "combines them.")
        terms = get_term_lines(ws, k, False, head_color(1), "head1_term")
        terms.next_to(mixtures.two.vector.brackets, RIGHT, buff=0.45).align_to(self.wide_terms, LEFT)
        parts_note = self.parts_note
        under_terms = parts_note.copy().next_to(terms, DOWN, buff=0.14, aligned_edge=LEFT)
        lead = terms.terms[0]
        with self.beat(f"Head 1's {axis}, {fmt(ws.H_joined[-1][k])}, is mostly {self.said(lead.source)}: "
                       f"{fmt(lead.weight)} × {fmt(lead.value, places_for(h1.V[:, k]))}; head 2's {axis2} "
                       f"is {fmt(ws.H_joined[-1][k2])}.",
                       spoken=f"Head one's {axis}, about {about(ws.H_joined[-1][k])}, comes mostly from "
                              f"{self.said(lead.source)}; head two's {axis2} is about "
                              f"{about(ws.H_joined[-1][k2])}."):
            self.play(ReplacementTransform(self.mix_box, boxes))
            self.play(FadeIn(mixtures.two, shift=DOWN * 0.2), FadeOut(self.rows_note), FadeIn(note))
            self.play(Create(cells), FadeIn(terms, shift=LEFT * 0.2), parts_note.animate.move_to(under_terms))
            terms.add(parts_note)
            self.add(terms)         # the note now one of head 1's term lines' parts, held once
        gap = mixture_gap(ws)[k]
        wide_cells = VGroup(*(SurroundingRectangle(mixtures.wide.vector.cell(0, j), color=WIDE_HEAD_COLOR, buff=0.07)
                              for j in mixtures.carried))
        wide_lead = self.wide_terms.terms[0].source
        moved = (f"The wide head moved weight from {self.said(lead.source)} to {self.said(wide_lead)}, so its "
                 if wide_lead != lead.source else "The wide head's ")
        verdict = (f"{axis} is about {about(abs(gap))} {gap_word(gap)}" if gap_word(gap) != "no different"
                   else f"{axis} is the same")
        with self.beat(f"{moved}{verdict}; the bottom row shows all four differences."):
            self.play(ReplacementTransform(self.mix_cell, wide_cells))
            self.play(FadeIn(mixtures.gap, shift=DOWN * 0.1))
        self.mix_cell = wide_cells
        self.mix_note, self.mix_boxes, self.mix_cells = note, boxes, VGroup(cells, terms, self.wide_terms)

    # shot 6 -----------------------------------------------------------------------------------
    def show_not_proof(self):
        """The verdict takes the heading's place over the rows and mixtures it is about."""
        verdict = get_text("a useful choice, not proof", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
        frame = SurroundingRectangle(verdict, color=DIM_TEXT_COLOR, buff=0.1, corner_radius=0.08, stroke_width=1.5)
        credit = VGroup()     # the paper is cited once: in the notes' fine print below
        line = VGroup(frame, verdict)
        # right of the two messages it judges, where their worked parts were (the table keeps its heading)
        two = self.mixtures.two.vector.brackets
        line.next_to(two, RIGHT, buff=0.45).align_to(self.wide_terms, LEFT)
        line.set_y((self.mixtures.wide.vector.brackets.get_center()[1] + two.get_center()[1]) / 2)
        note = get_fine("This is a useful architectural choice, not proof that one wide head cannot learn useful "
                        "relationships or that more heads always improve accuracy. See Attention Is All You "
                        "Need, §3.2.2.")
        self.verdict, self.credit = verdict, credit
        # "kept both readings" was read against the screen (the wide head carries water and person too):
        # what the rows show is one mixture for all four coordinates against one per head
        with self.beat("Here each head kept its own mixture; that is a design choice, not proof: "
                       "wide heads can learn too.",
                       spoken="Here each head kept its own mixture. That is a design choice, not proof that one wide "
                              "head cannot learn such relations, or that more heads always help."):
            self.play(FadeOut(VGroup(self.mix_boxes, self.mix_cells, self.mix_cell)),
                      FadeIn(line, shift=LEFT * 0.2), FadeOut(self.mix_note), FadeIn(note))


# ============================================================================================
# Scene 13 — Concat and W_O
# ============================================================================================


def get_block_box(matrix, rows, color) -> Rectangle:
    """A box around a run of whole rows of a LabeledMatrix (one head's block of W_O), labels included."""
    rows = list(rows)
    top = matrix.cell_center(rows[0], 0)[1] + matrix.row_height / 2
    bottom = matrix.cell_center(rows[-1], 0)[1] - matrix.row_height / 2
    left = matrix.cell_center(0, 0)[0] - matrix.cell_width / 2
    if len(matrix.row_labels):
        left = min(matrix.row_labels[i].get_left()[0] for i in rows) - BUFF_SMALL
    right = matrix.cell_center(0, matrix.n_cols - 1)[0] + matrix.cell_width / 2
    box = Rectangle(width=right - left, height=top - bottom).set_stroke(color, 2.5)
    return box.set_fill(color, HIGHLIGHT_OPACITY * 0.6).move_to([(left + right) / 2, (top + bottom) / 2, 0])


def get_general_shape_note(ws) -> VGroup:
    """W_O's general shape, and this worksheet's numbers in it."""
    n_heads = len(ws.heads)
    d_v = ws.heads[0].messages.shape[1]
    d_model = ws.E.shape[1]
    return get_line(
        get_text("in general  W_O: [n_heads × d_v, d_model];", font_size=LABEL_SIZE + 2),
        get_text(f"here  [{n_heads} × {d_v}, {d_model}] = {format_shape(ws.W_O.shape)}", font_size=LABEL_SIZE + 2,
                 color=DIM_TEXT_COLOR), buff=0.3)


class ConcatAndOutputProjection(LessonScene):
    """Scene 13: the two messages side by side, times W_O, give the receiver's update Δe; W_O split
    into one two-row block per head gives the same Δe as a sum of two four-coordinate updates; W_O
    mixes (head 2's person also writes into water), is no inverse, and is [n_heads·d_v, d_model]."""

    def construct(self):
        ws = self.ws = scene_worksheet()
        h1, h2 = ws.heads
        self.carried = carried_axes(np.hstack([h.W_V for h in ws.heads]))
        self.d1 = h1.messages.shape[1]
        cop = self.cop = get_concat_output_projection(
            h1.messages[-1], h2.messages[-1], ws.W_O, h1.contribution[-1], h2.contribution[-1], ws.delta_E[-1],
            axes=AXES, receiver=ws.n, places=None, coordinate_names=self.carried, h_buff=0.12, stacked=True,
            entry_places=True)
        for product in (cop.c1, cop.c2):          # a product's exact zeros as W_O's: a dimmed "0"
            for j, old in enumerate(product.grid[0]):
                if old.value == 0.0:
                    new = get_number(0.0, places_for([0.0]), tag=old.tag, index=old.index,
                                     font_size=old.font_size, color=old.get_color())
                    new.move_to(product.cell_center(0, j))
                    align_baseline(new, baseline_y(old))
                    product.grid[0][j] = new
                    product.entries[0].submobjects[j] = new
            dim_zero_entries(product, opacity=0.45)
        cop.top.move_to(CONTENT_CENTER + UP * 0.45)
        # two lines, centred: [m¹ | m²] · W_O above, "= Δe" under W_O (the frame's width is not enough
        # for all three side by side with room around the dot)
        dot, eq = cop.top[1], cop.top[3]
        cop.concat.shift(LEFT * 0.25)
        dot.shift(LEFT * 0.1)
        line = VGroup(cop.concat, dot, cop.W_O)
        line.shift(RIGHT * (0 - line.get_center()[0]) + UP * 0.3)
        cop.delta.next_to(cop.W_O, DOWN, buff=0.3).align_to(cop.W_O.brackets, LEFT)
        eq.next_to(cop.delta.brackets, LEFT, buff=0.25).set_y(cop.delta.cell_center(0, 0)[1])
        VGroup(cop.bottom, cop.bottom_sum).move_to(CONTENT_CENTER + UP * 0.55)
        title = get_title("Concat and W_O: each head contributes an update")
        with self.transition("title"):
            self.play(FadeIn(title))
        # --- Shot 1: two messages, one row, one multiplication ------------------------------------
        self.shot("concatenate")
        self.show_messages(ws)
        self.show_concat(ws)
        self.show_projection(ws)
        # --- Shot 2: W_O as one two-row block per head ----------------------------------------------
        self.shot("blocks")
        self.show_blocks()
        self.show_block_products()
        self.show_contributions()
        self.show_same_sum()
        # --- Shot 3: W_O mixes; no inverse; its general shape --------------------------------------
        self.shot("W_O mixes")
        self.show_mixing(ws)
        self.show_no_inverse()
        self.show_general_shape(ws)

    def swap_note(self, text: str):
        """The play that replaces the fine print on screen with `text` (the notes' words)."""
        note = get_fine(text)
        old = getattr(self, "note", None)
        self.note = note
        return [FadeIn(note)] + ([FadeOut(old)] if old is not None else [])

    # shot 1 -----------------------------------------------------------------------------------
    def show_messages(self, ws):
        n, d1, names = ws.n, self.d1, self.carried
        concat = self.cop.concat
        msgs = VGroup()
        for h, cols in zip(ws.heads, (names[:d1], names[d1:])):
            vec = get_row_vector(h.messages[-1], list(cols), name=f"m{sup(h.index)}{sub(n)}", tag=f"m{h.index}",
                                 places=None, color=head_color(h.index), name_color=head_color(h.index),
                                 font_size=NUMBER_SIZE + 8, label_size=LABEL_SIZE, name_size=LABEL_SIZE + 4)
            msgs.add(vec)
        msgs.arrange(RIGHT, buff=2.0)
        msgs[1].shift(UP * (msgs[0].cell_center(0, 0)[1] - msgs[1].cell_center(0, 0)[1]))
        msgs.move_to([0, concat.get_center()[1], 0])
        self.msgs = msgs
        said = [" and ".join(names[:d1]), " and ".join(names[d1:])]
        with self.beat(f"Each head hands the receiver a message: m¹ carries {said[0]}, m² carries {said[1]}."):
            self.play(FadeIn(msgs[0], shift=RIGHT * 0.3), FadeIn(msgs[1], shift=LEFT * 0.3))

    def show_concat(self, ws):
        concat, d1, cop = self.cop.concat, self.d1, self.cop
        cells = lambda js: VGroup(*(concat.cell(0, j) for j in js))  # noqa: E731
        left, right = list(range(d1)), list(range(d1, concat.n_cols))
        self.concat_home = concat.get_center().copy()     # its place in the line with W_O (next beat)
        concat.move_to([0, concat.get_center()[1], 0])
        with self.beat(f"Concatenating sets them side by side: one row of width {count_word(concat.n_cols)}."):
            self.play(ReplacementTransform(self.msgs[0].entries, cells(left)),
                      ReplacementTransform(self.msgs[1].entries, cells(right)),
                      FadeOut(VGroup(self.msgs[0].brackets, self.msgs[0].name_label, self.msgs[0].col_labels,
                                     self.msgs[1].brackets, self.msgs[1].name_label, self.msgs[1].col_labels)),
                      FadeIn(VGroup(concat.brackets, cop.divider, concat.name_label)), run_time=1.5)
            self.play(*self.swap_note(f"H¹ and H² concatenate to {format_shape(ws.H_joined.shape)} "
                                      f"(row {ws.n} shown)."))

    def show_projection(self, ws):
        cop = self.cop
        with self.beat(f"Times W_O, {count_word(ws.W_O.shape[0])} by {count_word(ws.W_O.shape[1])}: the receiver's "
                       "update Δe, one number per axis.",
                       spoken=f"Times W O, {count_word(ws.W_O.shape[0])} by {count_word(ws.W_O.shape[1])}: the "
                              f"receiver's update row, one number for each of its "
                              f"{count_word(ws.W_O.shape[1])} coordinates."):
            self.play(cop.concat.animate.move_to(self.concat_home))
            self.play(FadeIn(cop.top[1]), FadeIn(cop.W_O))
            delta = cop.delta
            self.play(FadeIn(cop.top[3]), FadeIn(VGroup(delta.brackets, delta.col_labels, delta.name_label)),
                      *self.swap_note(f"H¹ and H² concatenate to {format_shape(ws.H_joined.shape)} (row {ws.n} shown). "
                                      f"W_O {format_shape(ws.W_O.shape)} gives ΔE {format_shape(ws.delta_E.shape)}."))
            # each coordinate of Δe is the joined row times one column of W_O: the row and that
            # column travel into its cell, column by column
            for k in range(cop.W_O.n_cols):
                column = cop.W_O.get_column_box(k, color=TEXT_COLOR, fill_opacity=0.08)
                self.play(FadeIn(column), self.into_cell(cop.concat, cop.W_O, delta, k), run_time=0.7)
                self.play(FadeOut(column), run_time=0.2)

    @staticmethod
    def into_cell(row, matrix, product, k: int):
        """Cell k of row · matrix made before the eye: the row and column k travel into it."""
        return TransformFromCopy(VGroup(row.row(0), matrix.column(k)), product.cell(0, k))

    # shot 2 -----------------------------------------------------------------------------------
    def show_blocks(self):
        cop, d1 = self.cop, self.d1
        blocks = self.blocks = VGroup(get_block_box(cop.W_O, range(0, d1), head_color(1)),
                                      get_block_box(cop.W_O, range(d1, cop.W_O.n_rows), head_color(2)))
        with self.beat("Now split W_O into one two-row block per head."):
            self.play(LaggedStart(*(Create(b) for b in blocks), lag_ratio=0.5),
                      *self.swap_note("Equivalently, split W_O into a two-row block per head."))

    def show_block_products(self):
        cop, d1 = self.cop, self.d1
        concat = cop.concat
        cells = lambda js: VGroup(*(concat.cell(0, j) for j in js))  # noqa: E731
        rows = lambda a, b: VGroup(*(cop.W_O.row(i) for i in range(a, b)),  # noqa: E731
                                   *(cop.W_O.row_labels[i] for i in range(a, b)))
        n_rows = cop.W_O.n_rows
        with self.beat("The equation splits: each head's message meets its own block."):
            self.play(ReplacementTransform(cells(range(d1)), cop.m1),
                      ReplacementTransform(rows(0, d1), cop.W_O1),
                      ReplacementTransform(cells(range(d1, concat.n_cols)), cop.m2),
                      ReplacementTransform(rows(d1, n_rows), cop.W_O2),
                      FadeOut(VGroup(concat.brackets, cop.divider, concat.name_label, cop.W_O.brackets,
                                     cop.W_O.col_labels, cop.W_O.name_label, cop.block_rule, self.blocks,
                                     cop.top[1], cop.top[3], cop.delta)),
                      FadeIn(VGroup(cop.lines[0].dot, cop.lines[1].dot)), run_time=2.0)

    def show_contributions(self):
        cop = self.cop
        frames = VGroup(*(VGroup(c.brackets, c.col_labels, c.name_label) for c in (cop.c1, cop.c2)))
        with self.beat("Each product is a four-coordinate update, one per head."):
            self.play(FadeIn(VGroup(cop.lines[0].eq, cop.lines[1].eq)), FadeIn(frames),
                      *self.swap_note("Δe = m¹ W_O¹ + m² W_O²: each head contributes a four-coordinate update."),
                      run_time=0.5)
            # each head's message goes through its own block, column by column, into its update
            for k in range(cop.c1.n_cols):
                self.play(self.into_cell(cop.m1, cop.W_O1, cop.c1, k), self.into_cell(cop.m2, cop.W_O2, cop.c2, k),
                          run_time=0.55)

    def show_same_sum(self):
        cop = self.cop
        # the one multiplication's Δe, kept from the first shot, under the sum column for column
        ghost = self.ghost = VGroup(cop.delta.entries.copy(), cop.delta.brackets.copy())
        ghost.set_opacity(0.75)
        ghost.shift(cop.delta_2.brackets.get_center() - cop.delta.brackets.get_center()
                    + DOWN * (cop.delta_2.brackets.height + 0.15))
        label = get_text("one multiplication, [m¹ | m²] · W_O =", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
        label.next_to(ghost, LEFT, buff=0.3)
        align_baseline(label, baseline_y(next(m for m in ghost.get_family() if hasattr(m, "value"))))
        check = get_text("✓", font_size=LABEL_SIZE + 6, color=TEXT_COLOR).next_to(ghost, RIGHT, buff=0.2)
        self.ghost_group = VGroup(label, ghost, check)
        with self.beat("Add the two updates: the same Δe that one multiplication gave."):
            self.play(Create(cop.sum_rule), FadeIn(cop.sum_label), FadeIn(cop.delta_2, shift=DOWN * 0.3))
            self.play(FadeIn(VGroup(label, ghost), shift=UP * 0.2),
                      *self.swap_note("Concatenation followed by one matrix multiplication computes exactly that sum. "
                                      + ROUNDING_NOTE))
            self.play(FadeIn(check, scale=1.4), Indicate(cop.delta_2.entries, color=TEXT_COLOR, scale_factor=1.0))

    # shot 3 -----------------------------------------------------------------------------------
    def show_mixing(self, ws):
        cop, carried, d1 = self.cop, self.carried, self.d1
        entries = off_carrier_entries(ws.W_O, carried)
        self.mix_marks = VGroup()
        if not entries:
            return
        i, j = entries[0]
        h = 1 if i < d1 else 2
        m, block, c = (cop.m1, cop.W_O1, cop.c1) if h == 1 else (cop.m2, cop.W_O2, cop.c2)
        r = i if h == 1 else i - d1
        marks = self.mix_marks = VGroup(
            m.get_cell_box(0, r, color=TEXT_COLOR, fill_opacity=0.0, stroke_width=3),
            block.get_cell_box(r, j, color=TEXT_COLOR, fill_opacity=0.0, stroke_width=3),
            c.get_cell_box(0, j, color=TEXT_COLOR, fill_opacity=0.0, stroke_width=3),
        )
        value = ws.heads[h - 1].contribution[-1][j]
        with self.beat(f"W_O also mixes: head {h}'s {carried[i]} coordinate writes "
                       f"{fmt(ws.W_O[i, j], places_for([ws.W_O[i, j]]))} of itself into {AXES[j]}, "
                       f"so its update has {AXES[j]} {fmt(value)}.",
                       spoken=f"W O also mixes: head {h}'s {carried[i]} coordinate writes a quarter of itself "
                              f"into {AXES[j]}, so its update has {AXES[j]} {fmt(value)}."
                       if ws.W_O[i, j] == 0.25 else None):
            self.play(LaggedStart(*(Create(mk) for mk in marks), lag_ratio=0.6), run_time=2.0)

    def show_no_inverse(self):
        cop, ws = self.cop, self.ws
        entries = off_carrier_entries(ws.W_O, self.carried)
        d1 = self.d1
        cells = VGroup()
        for i, j in entries:
            block, r = (cop.W_O1, i) if i < d1 else (cop.W_O2, i - d1)
            cells.add(block.cell(r, j))
        zeros = VGroup(*(blk.cell(r, j) for blk in (cop.W_O1, cop.W_O2) for r in range(blk.n_rows)
                         for j in range(blk.n_cols) if blk.values[r, j] == 0.0))
        where_text = (f"this one also writes {self.carried[entries[0][0]]} into {AXES[entries[0][1]]}"
                      if len(entries) else "this one does exactly that")
        # the update a put-it-back W_O would give (its mixing entries 0), in the one multiplication's slot
        pb = put_back_update(ws)
        self.put_back = None
        leave = ""
        if len(entries):
            j0 = entries[0][1]
            vec = get_row_vector(pb, None, tag="put_back", places=3, font_size=NUMBER_SIZE, h_buff=0.12)
            widen = cop.delta_2.cell_width - vec.cell_width        # the same columns as the real Δe above
            if widen > 0:
                vec = get_row_vector(pb, None, tag="put_back", places=3, font_size=NUMBER_SIZE, h_buff=0.12 + widen)
            vec.shift(self.ghost[1].get_center() - vec.brackets.get_center())
            vec.shift(RIGHT * (cop.delta_2.cell_center(0, 0)[0] - vec.cell_center(0, 0)[0]))
            vec.entries.shift(RIGHT * (cop.delta_2.cell(0, 0).get_right()[0] - vec.cell(0, 0).get_right()[0]))
            label = get_text(f"if W_O only put each back:  Δe{sub(ws.n)} =", font_size=LABEL_SIZE,
                             color=DIM_TEXT_COLOR)
            label.next_to(vec.brackets, LEFT, buff=0.3)
            align_baseline(label, baseline_y(vec.cell(0, 0)))
            # boxes hugging the digits, clear of the brackets
            pb_box = SurroundingRectangle(vec.cell(0, j0), color=TEXT_COLOR, buff=0.035, stroke_width=2.5)
            real_box = SurroundingRectangle(cop.delta_2.cell(0, j0), color=TEXT_COLOR, buff=0.035, stroke_width=2.5)
            self.put_back = VGroup(label, vec, pb_box, real_box)
            leave = f", {AXES[j0]} would stay at {fmt(pb[j0])}"
        # (each head's W_V is [4, 2]: no inverse of its own; the picture is a W_O that only puts back)
        lead = "If W_O only put each coordinate back where W_V took it" if leave else \
            "W_O could just put each coordinate back where W_V took it"
        with self.beat(f"{lead}{leave}; {where_text}.", look=0.8):
            self.play(FadeOut(self.mix_marks))
            self.play(Indicate(zeros, color=TEXT_COLOR, scale_factor=1.0), run_time=1.0)
            if self.put_back is not None:
                self.play(FadeOut(self.ghost_group), FadeIn(VGroup(label, vec), shift=UP * 0.2))
                self.play(Create(pb_box), Create(real_box))
                self.ghost_group = self.put_back
            if len(entries):
                # where the off-carrier entry sends its coordinate, kept to the end of the next sentence
                i, j = entries[0]
                block, r = (cop.W_O1, i) if i < d1 else (cop.W_O2, i - d1)
                box = block.get_cell_box(r, j, color=TEXT_COLOR, fill_opacity=0.0, stroke_width=3)
                where = get_text(f"{self.carried[i]} → {AXES[j]}", font_size=LABEL_SIZE, color=TEXT_COLOR)
                # beside the block's name, clear of its column labels and of m²
                where.next_to(block.name_label, LEFT, buff=0.4)
                align_baseline(where, baseline_y(block.name_label))
                self.land_mark = VGroup(box, where)
                self.play(Create(box), FadeIn(where, shift=RIGHT * 0.1))
        # no bracket: said aloud, "(hand-chosen here …)" became commas and attached to "land"
        with self.beat("So W_O is no inverse of the input projections: it decides where each head’s output lands. "
                       "We chose it by hand; a real model learns it.", look=0.3):
            self.play(*self.swap_note("Here the joined width already equals the embedding width. W_O still learns "
                                      "to mix head outputs into embedding coordinates. It is not an inverse of the "
                                      "input projections."))
            if len(cells):
                self.play(Indicate(cells, color=TEXT_COLOR, scale_factor=1.2), run_time=1.2)
        if len(entries):
            with self.transition("the landing mark leaves"):
                self.play(FadeOut(self.land_mark))

    def show_general_shape(self, ws):
        shape = self.shape_note = get_general_shape_note(ws)
        shape.next_to(self.cop.bottom_sum, DOWN, buff=0.3).align_to(self.cop.m2, LEFT)
        n_heads, d_v, d_model = len(ws.heads), ws.heads[0].messages.shape[1], ws.E.shape[1]
        cop = self.cop
        self.row_blocks = VGroup(get_block_box(cop.W_O1, range(cop.W_O1.n_rows), head_color(1)),
                                 get_block_box(cop.W_O2, range(cop.W_O2.n_rows), head_color(2)))
        with self.beat(f"In general W_O is [n_heads × d_v, d_model]: one block of rows per head. Here "
                       f"[{n_heads} × {d_v}, {d_model}], {count_word(ws.W_O.shape[0])} by {count_word(ws.W_O.shape[1])}.",
                       spoken=f"So W O has one block of rows per head: here {count_word(n_heads)} blocks of "
                              f"{count_word(d_v)} rows, {count_word(ws.W_O.shape[0])} by "
                              f"{count_word(ws.W_O.shape[1])} in all."):
            self.play(FadeOut(self.ghost_group))
            self.play(FadeIn(shape, shift=UP * 0.2), LaggedStart(*(Create(b) for b in self.row_blocks), lag_ratio=0.4),
                      *self.swap_note("We retain the standard concat notation from the original Transformer paper."))


# ============================================================================================
# Scene 14 — Residual and prediction
# ============================================================================================


def get_residual_tables(ws) -> VGroup:
    """E + ΔE = E′, each [n, 4] (the last ten rows when n > 10), words as E's row labels, the axes once
    over E; numbers tagged E, delta_E, E_prime with their true (row, column) index."""
    rows = shown_rows(ws.n)
    words = [ws.tokens[i] for i in rows]
    kw = dict(dim_zeros=True, font_size=NUMBER_SIZE, label_size=SMALL_SIZE, v_buff=0.06, h_buff=0.12)

    def table(values, name, tag, labels, cols, color=TEXT_COLOR):
        m = get_labeled_matrix(values[rows], labels, cols, name=f"{name}  {format_shape(values.shape)}", tag=tag,
                               places=places_for(values), name_color=color, **kw)
        for r, i in enumerate(rows):
            for j in range(values.shape[1]):
                m.cell(r, j).index = (i, j)
        return m

    e_m = table(ws.E, "E", "E", words, list(AXES))
    d_m = table(ws.delta_E, "ΔE", "delta_E", None, None)
    p_m = table(ws.E_prime, "E′", "E_prime", None, None)
    plus, equals = get_text("+", font_size=BODY_SIZE), get_text("=", font_size=BODY_SIZE)
    group = VGroup(e_m, plus, d_m, equals, p_m).arrange(RIGHT, buff=0.3)
    for m in (d_m, p_m):
        m.shift(UP * (e_m.cell_center(0, 0)[1] - m.cell_center(0, 0)[1]))
        m.name_label.align_to(e_m.name_label, DOWN)
    middle = (e_m.cell_center(0, 0)[1] + e_m.cell_center(len(rows) - 1, 0)[1]) / 2
    plus.set_y(middle)
    equals.set_y(middle)
    group.e, group.delta, group.e_prime, group.ops, group.rows = e_m, d_m, p_m, VGroup(plus, equals), rows
    group.more = VGroup()
    if rows[0] > 0:
        more = get_text(f"rows 1–{rows[0]} above", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        group.more = more.next_to(e_m.row_labels, UP, buff=0.15).align_to(e_m.row_labels, RIGHT)
        group.add(group.more)
    return group


def get_mlp_chain(ws) -> VGroup:
    """The prediction MLP as shapes, left to right: e′ [1, 4] → · W1 [4, 8] + b1 [8] → ReLU → h [1, 8]
    → · W2 [8, 20] + b2 [20] → softmax → p [1, 20]."""
    from lesson_data.worksheet import B1, B2, W1, W2
    unit = 0.085
    n = ws.n
    kw = dict(unit=unit, shape_size=16, name_size=LABEL_SIZE + 2)
    e_in = get_shape_box(f"e′{sub(n)}", (1, ws.E.shape[1]), color=RECEIVER_COLOR, **kw)
    w1 = get_shape_box("W1", W1.shape, **kw)
    b1 = get_shape_box("b1", B1.shape, shape_text=format_shape(B1.shape), **kw)
    relu = get_shape_box("ReLU", None, width=1.0, height=0.55, name_inside=True, name_size=LABEL_SIZE + 2)
    hidden = get_shape_box("h", (1, len(ws.mlp.hidden)), **kw)
    w2 = get_shape_box("W2", W2.shape, **kw)
    b2 = get_shape_box("b2", B2.shape, shape_text=format_shape(B2.shape), **kw)
    probs = get_shape_box("p", (1, len(ws.mlp.probabilities)), color=PREDICTED_COLOR, **kw)
    layer1 = VGroup(get_text("·", font_size=BODY_SIZE), w1, get_text("+", font_size=BODY_SIZE), b1)
    layer2 = VGroup(get_text("·", font_size=BODY_SIZE), w2, get_text("+", font_size=BODY_SIZE), b2)
    for layer in (layer1, layer2):
        layer.arrange(RIGHT, buff=0.1)
        for k in (1, 3):
            layer[k].shift(UP * (0 - layer[k].box.get_center()[1]))
        for k in (0, 2):
            layer[k].set_y(0)
    stages = [e_in, layer1, relu, hidden, layer2, probs]
    chain = VGroup(*stages).arrange(RIGHT, buff=0.55)
    for st in (e_in, relu, hidden, probs):
        st.shift(UP * (0 - st.box.get_center()[1]))
    arrows = VGroup(*(get_arrow([a.get_right()[0], 0, 0], [b.get_left()[0], 0, 0]) for a, b in zip(stages, stages[1:])))
    softmax = get_text("softmax", font_size=16, color=DIM_TEXT_COLOR).next_to(arrows[-1], UP, buff=0.08)
    softmax.set_x(arrows[-1].get_center()[0])
    if softmax.width > arrows[-1].width:          # room for the word over its arrow
        probs.shift(RIGHT * (softmax.width - arrows[-1].width + 0.1))
        arrows[-1].put_start_and_end_on(arrows[-1].get_start(), [probs.get_left()[0] - 0.1, 0, 0])
        softmax.set_x(arrows[-1].get_center()[0])
    chain.add(arrows, softmax)
    chain.input, chain.layer1, chain.relu, chain.hidden, chain.layer2, chain.probs = e_in, layer1, relu, hidden, layer2, probs
    chain.arrows, chain.softmax = arrows, softmax
    return chain


def get_hidden_rows(ws) -> VGroup:
    """e′ (the receiver's row of E′) above pre-activation = e′ · W1 + b1 above h = ReLU(pre-activation),
    one [1, 8] row each, units 1–8."""
    mlp = ws.mlp
    n = ws.n
    k = len(mlp.hidden)
    units = [str(u + 1) for u in range(k)]
    pre_colors = [TEXT_COLOR for v in mlp.pre_activation]          # negatives turn red in ReLU's sentence
    hid_colors = [DIM_TEXT_COLOR if v == 0 else TEXT_COLOR for v in mlp.hidden]
    pre = get_row_vector(mlp.pre_activation, units, tag="pre_activation", column_colors=pre_colors,
                         places=None, font_size=NUMBER_SIZE + 2, label_size=SMALL_SIZE)
    hidden = get_row_vector(mlp.hidden, units, tag="hidden", column_colors=hid_colors, places=None,
                            font_size=NUMBER_SIZE + 2, label_size=SMALL_SIZE)
    hidden.remove(hidden.col_labels)
    hidden.col_labels = VGroup()
    hidden.next_to(pre, DOWN, buff=0.45)
    # the same columns as the pre-activations above it: each unit under its own number
    y = hidden.cell_center(0, 0)[1]
    for j in range(k):
        hidden.anchors[0][j].move_to([pre.cell_center(0, j)[0], y, 0])
        hidden.cell(0, j).align_to(pre.cell(0, j), RIGHT)
    hidden.brackets.become(pre.brackets.copy().set_y(y))
    e_row = get_row_vector(ws.E_prime[-1], list(AXES), tag="e_prime_row", places=places_for(ws.E_prime),
                           color=RECEIVER_COLOR, font_size=NUMBER_SIZE + 2, label_size=SMALL_SIZE)
    e_row.next_to(pre, UP, buff=0.45).align_to(pre, LEFT)
    labels = VGroup(get_text(f"e′{sub(n)} =", font_size=LABEL_SIZE, color=RECEIVER_COLOR),
                    get_text("e′ · W1 + b1 =", font_size=LABEL_SIZE), get_text("h = ReLU(…) =", font_size=LABEL_SIZE))
    for label, vec in zip(labels, (e_row, pre, hidden)):
        label.next_to(vec.brackets, LEFT, buff=BUFF)
        align_baseline(label, baseline_y(vec.cell(0, 0)))
    right = max(label.get_right()[0] for label in labels)
    for label in labels:
        label.shift(RIGHT * (right - label.get_right()[0]))
    unit_label = get_text("unit", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).next_to(pre.col_labels, LEFT, buff=BUFF)
    unit_label.align_to(labels[1], RIGHT)
    rows = VGroup(labels, e_row, pre, hidden, unit_label)
    rows.e_row, rows.pre, rows.hidden, rows.labels, rows.unit_label = e_row, pre, hidden, labels, unit_label
    return rows


def get_logit_rows(ws, rows, parts) -> VGroup:
    """One word's logit worked on h's columns (`rows`: get_hidden_rows, as built; `parts`:
    lesson_data.joining.logit_terms for the word): W2's column for the word at the pre-activations'
    height, each unit's product h_u · W2[u, word] at h's, the sum at the products' right end. h itself
    goes up to e′'s height (`rows.h_target`: where its entries and brackets go)."""
    from lesson_data.worksheet import B2, W2

    pre, hidden = rows.pre, rows.hidden
    word = VOCAB[parts.word]
    k = len(ws.mlp.hidden)
    column = W2[:, parts.word]
    used = {t.unit for t in parts.terms}
    products = [ws.mlp.hidden[u] * column[u] if u in used else 0.0 for u in range(k)]

    def aligned(values, tag, places, colors, y):
        vec = get_row_vector(values, [str(u + 1) for u in range(k)], tag=tag, column_colors=colors,
                             places=places, font_size=NUMBER_SIZE + 2, label_size=SMALL_SIZE)
        vec.remove(vec.col_labels)
        vec.col_labels = VGroup()
        for j in range(k):                  # each unit under its own column
            vec.anchors[0][j].move_to([pre.cell_center(0, j)[0], y, 0])
            vec.cell(0, j).align_to(pre.cell(0, j), RIGHT).set_y(y)
        vec.brackets.become(pre.brackets.copy().set_y(y))
        return vec

    dim = [TEXT_COLOR if u in used else DIM_TEXT_COLOR for u in range(k)]
    weights = aligned(column, "w2_column", 1, dim, pre.cell_center(0, 0)[1])
    parts_row = aligned(products, "logit_part", 3, [POSITIVE_COLOR if u in used else DIM_TEXT_COLOR
                                                    for u in range(k)], hidden.cell_center(0, 0)[1])
    labels = VGroup(get_text(f"W2 to “{word}” =", font_size=LABEL_SIZE),
                    get_text("h × weight =", font_size=LABEL_SIZE))
    for label, vec in zip(labels, (weights, parts_row)):
        label.next_to(vec.brackets, LEFT, buff=BUFF)
        align_baseline(label, baseline_y(vec.cell(0, 0)))
    right = rows.labels.get_right()[0]
    for label in labels:
        label.shift(RIGHT * (right - label.get_right()[0]))
    total = VGroup(get_text("=", font_size=LABEL_SIZE),
                   get_number(parts.total, tag="logit_total", font_size=NUMBER_SIZE + 2, color=POSITIVE_COLOR))
    total.arrange(RIGHT, buff=0.15).next_to(parts_row.brackets, RIGHT, buff=0.15)
    align_baseline(total[1], baseline_y(parts_row.cell(0, 0)))
    total[0].set_y(total[1].get_y())              # "=" has no baseline glyph: centred on the number
    # b2's entry for the word, at W2's row end: the sum below includes it (0.0 for a candidate word)
    bias = VGroup(get_text("b2:", font_size=LABEL_SIZE),
                  get_number(parts.bias, places_for(B2), tag="logit_bias", font_size=NUMBER_SIZE + 2))
    bias.arrange(RIGHT, buff=0.12).next_to(weights.brackets, RIGHT, buff=0.15)
    for m in bias:
        align_baseline(m, baseline_y(weights.cell(0, 0)))
    group = VGroup(labels, weights, parts_row, total, bias)
    group.weights, group.products, group.labels, group.total, group.bias = weights, parts_row, labels, total, bias
    group.used = sorted(used)
    return group


def get_probability_page(ws) -> VGroup:
    """All twenty words: the twelve sentence words in two short columns (word, logit, p), the eight
    candidates with bars; the sum of all p and what the rounded values shown add up to."""
    mlp = ws.mlp
    words, candidates = word_groups()
    half = (len(words) + 1) // 2
    kw = dict(font_size=NUMBER_SIZE, word_size=LABEL_SIZE, row_height=0.32)
    left_a = get_word_rows(VOCAB, mlp.logits, mlp.probabilities, words[:half], show_bars=False,
                           word_color=DIM_TEXT_COLOR, **kw)
    left_b = get_word_rows(VOCAB, mlp.logits, mlp.probabilities, words[half:], show_bars=False,
                           word_color=DIM_TEXT_COLOR, **kw)
    left = VGroup(left_a, left_b).arrange(RIGHT, buff=0.3, aligned_edge=UP)
    right = get_word_rows(VOCAB, mlp.logits, mlp.probabilities, candidates, bar_unit=2.6, bar_color=TEXT_COLOR, **kw)
    left_title = get_text(f"the other {count_word(len(words))} vocabulary words", font_size=LABEL_SIZE,
                          color=DIM_TEXT_COLOR)
    right_title = get_text(f"the {count_word(len(candidates))} candidate next words", font_size=LABEL_SIZE)
    columns = VGroup(VGroup(left_title, left), VGroup(right_title, right))
    for title, block in columns:
        title.next_to(block, UP, buff=0.22).align_to(block, LEFT)
    columns.arrange(RIGHT, buff=0.9, aligned_edge=UP)
    vocab = len(mlp.probabilities)
    total = get_line(get_text(f"sum of all {vocab} p =", font_size=LABEL_SIZE),
                     get_number(math.fsum(mlp.probabilities), tag="p_sum", font_size=NUMBER_SIZE + 2))
    shown = get_line(get_text(f"the {vocab} rounded values shown add to", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR),
                     get_number(sum_of_shown(mlp.probabilities, 3), tag="p_shown_sum", font_size=SMALL_SIZE,
                                color=DIM_TEXT_COLOR))
    sums = VGroup(total, shown).arrange(DOWN, buff=0.12, aligned_edge=LEFT)
    sums.next_to(left, DOWN, buff=0.25).align_to(left, LEFT)
    page = VGroup(columns, sums)
    page.blocks = VGroup(left_a, left_b, right)
    page.rows = {**left_a.rows, **left_b.rows, **right.rows}
    page.left, page.right, page.titles, page.sums = left, right, VGroup(left_title, right_title), sums
    page.columns = {key: VGroup(*(b.columns[key] for b in page.blocks)) for key in ("logit", "p")}
    page.bars = VGroup(*(right.rows[i].bar for i in candidates))
    return page


class ResidualAndPrediction(LessonScene):
    """Scene 14: E′ = E + ΔE; the receiver's row travels into the prediction MLP (W1 [4, 8], b1,
    ReLU, W2 [8, 20], b2 as shapes, its numbers below); twenty logits, twenty probabilities (their
    rounded parts add to 1.003: the rounding note); the predicted word fills the sentence's blank."""

    def construct(self):
        ws = self.ws = scene_worksheet()
        title = self.title = get_title("Residual and prediction")
        with self.transition("title"):
            self.play(FadeIn(title))
        # --- Shot 1: E′ = E + ΔE --------------------------------------------------------------------
        self.shot("residual")
        self.show_residual(ws)
        self.show_receiver_row(ws)
        self.show_what_attention_brought(ws)
        # --- Shot 2: the receiver's row through the prediction MLP -----------------------------------
        self.shot("prediction MLP")
        self.show_row_travels(ws)
        self.show_first_layer(ws)
        self.show_relu(ws)
        # --- Shot 3: twenty logits, twenty probabilities ---------------------------------------------
        self.shot("probabilities")
        self.show_word_score(ws)
        self.show_logits(ws)
        self.show_probabilities(ws)
        # --- Shot 4: the predicted word fills the blank ----------------------------------------------
        self.shot("prediction")
        self.show_prediction(ws)
        self.show_filled_blank(ws)

    # shot 1 -----------------------------------------------------------------------------------
    def show_residual(self, ws):
        tables = self.tables = get_residual_tables(ws)
        tables.move_to(CONTENT_CENTER + UP * 0.2)
        note = self.note = get_fine(f"E′ = E + ΔE is also {format_shape(ws.E_prime.shape)}. Its last row "
                                    f"{format_shape((1, ws.E.shape[1]))} feeds the prediction MLP.")
        with self.beat(f"The residual: each token keeps its own row of E and adds its update. "
                       f"E′ = E + ΔE, still {format_shape(ws.E_prime.shape)}."):
            self.play(FadeIn(VGroup(tables.e, tables.more)))
            self.play(FadeIn(tables.ops[0]), FadeIn(tables.delta, shift=LEFT * 0.3))
            self.play(FadeIn(tables.ops[1]), FadeIn(tables.e_prime, shift=LEFT * 0.3), FadeIn(note))

    def show_receiver_row(self, ws):
        t, r = self.tables, len(self.tables.rows) - 1
        boxes = self.row_boxes = VGroup(t.e.get_row_box(r, include_label=True), t.delta.get_row_box(r),
                                        t.e_prime.get_row_box(r))
        with self.beat(f"Row {ws.n}, the receiver, the word “{ws.tokens[-1]}”, predicts the next word.",
                       look=1.0):
            self.play(LaggedStart(*(Create(b) for b in boxes), lag_ratio=0.3), run_time=1.5)

    def show_what_attention_brought(self, ws):
        # the receiver's own row lacked what attention brought it: the other rows step back, and the
        # one coordinate the update moves most is boxed in E, ΔE and E′ (water: 0.0 + 3.005 = 3.005)
        t, r = self.tables, len(self.tables.rows) - 1
        a = largest_update_axis(ws)
        word, axis = ws.tokens[-1], AXES[a]
        tables = (t.e, t.delta, t.e_prime)
        e, d, p = (ws.E[-1, a], ws.delta_E[-1, a], ws.E_prime[-1, a])
        cells = self.brought = VGroup(*(SurroundingRectangle(m.cell(r, a), color=POSITIVE_COLOR, buff=0.06)
                                        for m in tables))
        others = VGroup(*(m.row(i) for m in tables for i in range(r)), *(t.e.row_labels[i] for i in range(r)))
        had = f"{fmt(e, places_for(ws.E))} {axis}" if e else f"no {axis}"
        with self.beat(f"In E, “{word}” has {had}; the update brings {fmt(d, places_for(ws.delta_E))}, "
                       f"so E′ has {fmt(p, places_for(ws.E_prime))}.", look=1.0):
            self.play(others.animate.set_opacity(0.3), run_time=0.8)
            self.play(LaggedStart(*(Create(c) for c in cells), lag_ratio=0.4), run_time=1.5)

    # shot 2 -----------------------------------------------------------------------------------
    def show_row_travels(self, ws):
        chain = self.chain = get_mlp_chain(ws)
        chain.move_to([0, CONTENT_TOP - 0.1 - chain.height / 2, 0])
        rows = self.hidden_rows = get_hidden_rows(ws)
        rows.move_to([0, (chain.get_bottom()[1] + CONTENT_BOTTOM) / 2 + 0.1, 0])
        t = self.tables
        self.old_note = self.note
        ent = rows.e_row.entries                  # padded inside the brackets, clear of both
        self.e_row_box = Rectangle(width=ent.width + 0.1, height=ent.height + 0.2).move_to(ent)
        self.e_row_box.set_stroke(RECEIVER_COLOR, 2)
        self.e_row_box.set_fill(RECEIVER_COLOR, HIGHLIGHT_OPACITY * 0.5)
        last = t.e_prime.row(len(t.rows) - 1)
        self.mark = SurroundingRectangle(chain.input, color=TEXT_COLOR, buff=0.08)
        note = self.note = get_fine(MLP_NOTE)
        with self.beat("Its row of E′ travels into the prediction MLP: W1, a ReLU, then W2.",
                       spoken="Its row of E prime travels into the prediction M L P: a first layer, a relu, then "
                              "a second layer."):
            self.play(FadeOut(VGroup(t.e, t.delta, t.ops, t.more, self.row_boxes[:2], self.old_note, self.brought)),
                      ReplacementTransform(self.row_boxes[2], self.e_row_box),
                      FadeOut(VGroup(*(m for m in t.e_prime if m is not t.e_prime.entries))),
                      FadeOut(VGroup(*(t.e_prime.row(i) for i in range(len(t.rows) - 1)))),
                      ReplacementTransform(last, rows.e_row.entries),
                      FadeIn(VGroup(rows.e_row.brackets, rows.e_row.col_labels, rows.labels[0])), run_time=1.6)
            # the row enters the MLP's first slot, then the layers it goes through appear
            self.play(TransformFromCopy(VGroup(rows.e_row.entries, rows.e_row.brackets), chain.input.box),
                      FadeIn(VGroup(chain.input.name_label, chain.input.shape_label)), FadeIn(note), run_time=1.2)
            self.play(LaggedStart(*(FadeIn(m) for m in chain if m is not chain.input), lag_ratio=0.15), run_time=2.0)
            self.play(Create(self.mark))

    def show_first_layer(self, ws):
        rows = self.hidden_rows
        from lesson_data.worksheet import B1, W1
        with self.beat(f"First layer: times W1, {count_word(W1.shape[0])} by {count_word(W1.shape[1])}, plus b1: "
                       f"{count_word(W1.shape[1])} numbers.",
                       spoken=f"First layer: times {article(count_word(W1.shape[0]))} {count_word(W1.shape[0])} by {count_word(W1.shape[1])} "
                              f"matrix, plus a bias: {count_word(W1.shape[1])} numbers."):
            self.play(Transform(self.mark, SurroundingRectangle(self.chain.layer1, color=TEXT_COLOR, buff=0.08)))
            self.play(FadeIn(VGroup(rows.labels[1], rows.pre, rows.unit_label), shift=DOWN * 0.2))
            copies = copy_units(W1, B1)
            if copies:      # why units 1–3 equal e′'s water, finance and person (one fine print at a time)
                units = [u + 1 for u, _ in copies]
                span = (f"Units {units[0]}–{units[-1]} copy" if len(units) > 2 and units == list(
                    range(units[0], units[-1] + 1)) else f"Unit{'s' if len(units) > 1 else ''} "
                    f"{' and '.join(map(str, units))} cop{'y' if len(units) > 1 else 'ies'}")
                names = [a for _, a in copies]
                said = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else names[0]
                note = get_fine(f"{MLP_NOTE} {span} {said} unchanged.")
                self.play(FadeOut(self.note))
                self.play(FadeIn(note))
                self.note = note

    def show_relu(self, ws):
        rows = self.hidden_rows
        zeroed = relu_zeroed(ws.mlp.pre_activation)
        boxes = self.relu_boxes = VGroup(*(rows.pre.get_cell_box(0, u, color=FALL_COLOR) for u in zeroed))
        units = " and ".join(str(u + 1) for u in zeroed)
        text = (f"ReLU sets the negative numbers to zero: units {units}." if len(zeroed) > 1 else
                f"ReLU sets the negative number to zero: unit {units}." if zeroed else
                "ReLU would set negative numbers to zero; here none is negative.")
        with self.beat(text, spoken=text.replace("ReLU", "relu")):
            self.play(Transform(self.mark, SurroundingRectangle(self.chain.relu, color=TEXT_COLOR, buff=0.08)))
            if zeroed:
                self.play(LaggedStart(*(Create(b) for b in boxes), lag_ratio=0.3),
                          *(rows.pre.cell(0, u).animate.set_color(FALL_COLOR) for u in zeroed))
            self.play(FadeIn(VGroup(rows.labels[2], rows.hidden), shift=DOWN * 0.2))

    # shot 3 -----------------------------------------------------------------------------------
    def show_word_score(self, ws):
        """Why the predicted word wins, on h's own columns: W2's column for it, h times it unit by unit,
        the products added. The unit that copies e′'s strongest axis carries most of it."""
        from lesson_data.worksheet import B1, B2, W1, W2

        mlp, rows, layer2 = ws.mlp, self.hidden_rows, self.chain.layer2
        best = VOCAB.index(mlp.prediction)
        parts = logit_terms(mlp.hidden, W2, B2, best)
        score = self.word_score = get_logit_rows(ws, rows, parts)
        lead, word = parts.lead, mlp.prediction
        copies = dict(copy_units(W1, B1))
        rest = len(parts.terms) - 1
        tail = (f"; {count_word(rest)} smaller part{'s' if rest > 1 else ''} add{'' if rest > 1 else 's'} "
                f"the rest: {fmt(parts.total)}" if rest else f": {fmt(parts.total)}")
        if lead.unit in copies:
            text = (f"Second layer: why “{word}”? W2 weighs unit {lead.unit + 1}, a copy of the {copies[lead.unit]} "
                    f"coordinate, by {fmt(lead.weight, 1)}{tail}.")
        else:
            text = f"Second layer: why “{word}”? W2 weighs unit {lead.unit + 1} most, by {fmt(lead.weight, 1)}{tail}."
        hidden = rows.hidden
        up = UP * (rows.e_row.cell_center(0, 0)[1] - hidden.cell_center(0, 0)[1])
        head_up = UP * (rows.e_row.cell_center(0, 0)[1] - rows.pre.cell_center(0, 0)[1])
        with self.beat(text):
            # e′ and the pre-activations leave; h, with its unit numbers, rises to make room under it
            self.play(Transform(self.mark, SurroundingRectangle(layer2, color=TEXT_COLOR, buff=0.08)),
                      FadeOut(VGroup(rows.e_row, rows.pre.entries, rows.pre.brackets, rows.labels[:2],
                                     self.relu_boxes, self.e_row_box)),
                      VGroup(hidden, rows.labels[2]).animate.shift(up),
                      VGroup(rows.pre.col_labels, rows.unit_label).animate.shift(head_up), run_time=1.2)
            self.play(FadeIn(VGroup(score.labels[0], score.weights, score.bias), shift=DOWN * 0.2))
            # each unit's product comes from its h and its weight; then they add up
            self.play(*(TransformFromCopy(VGroup(hidden.cell(0, u), score.weights.cell(0, u)), score.products.cell(0, u))
                        for u in score.used),
                      FadeIn(VGroup(score.labels[1], score.products.brackets,
                                    *(score.products.cell(0, u) for u in range(len(mlp.hidden)) if u not in score.used))),
                      run_time=1.4)
            # the used products and b2's entry add up to the logit
            self.play(TransformFromCopy(VGroup(*(score.products.cell(0, u) for u in score.used), score.bias[1]),
                                        score.total[1]),
                      FadeIn(score.total[0]), run_time=1.0)

    def show_logits(self, ws):
        page = self.page = get_probability_page(ws)
        page.move_to([0, self.chain.get_bottom()[1] - 0.25 - page.height / 2, 0])
        from lesson_data.worksheet import W2
        vocab = len(ws.mlp.probabilities)
        rows, layer2, score = self.hidden_rows, self.chain.layer2, self.word_score
        h = VGroup(rows.hidden.brackets, rows.hidden.entries)
        best = VOCAB.index(ws.mlp.prediction)
        with self.beat(f"Every word is scored the same way: h times W2, {count_word(W2.shape[0])} by "
                       f"{count_word(W2.shape[1])}, plus b2: {count_word(vocab)} logits, one per vocabulary word.",
                       spoken=f"Every word is scored the same way: h times {article(count_word(W2.shape[0]))} "
                              f"{count_word(W2.shape[0])} by {count_word(W2.shape[1])} matrix, plus a bias: "
                              f"{count_word(vocab)} logits, one score per vocabulary word."):
            # the worked word gives way; h itself travels up into the second layer (its input)...
            self.play(FadeOut(VGroup(score.labels, score.weights, score.products, score.total[0], score.bias,
                                     rows.pre.col_labels, rows.unit_label)))
            self.play(FadeOut(h, target_position=layer2, scale=0.3), FadeOut(rows.labels[2]), run_time=1.2)
            # ...and the twenty logits come out of it, one per word; the worked one moves into its row
            words = VGroup(*(row.word for row in page.rows.values()))
            headers = VGroup(*(h for b in page.blocks for h in b.header if h.original_text != "p"))
            worked = page.rows[best].logit
            self.play(FadeIn(page.titles), FadeIn(words), FadeIn(headers),
                      FadeIn(VGroup(*(m for column in page.columns["logit"] for m in column if m is not worked)),
                             target_position=layer2, scale=0.3),
                      ReplacementTransform(score.total[1], worked), run_time=1.5)

    def show_probabilities(self, ws):
        page = self.page
        vocab = len(ws.mlp.probabilities)
        p_headers = VGroup(*(h for b in page.blocks for h in b.header if h.original_text == "p"))
        note = get_fine(ROUNDING_NOTE)
        note.next_to(page.sums, DOWN, buff=0.12).align_to(page.sums, LEFT)
        with self.beat(f"Softmax turns them into {count_word(vocab)} probabilities that sum to one.",
                       spoken=f"Soft max turns them into {count_word(vocab)} probabilities that sum to one."):
            self.play(Transform(self.mark, SurroundingRectangle(self.chain.probs, color=TEXT_COLOR, buff=0.08)),
                      FadeIn(p_headers), FadeIn(page.columns["p"]))
            self.play(LaggedStart(*(Create(bar) for bar in page.bars), lag_ratio=0.1), run_time=1.2)
            self.play(FadeOut(self.note))                       # one fine print at a time
            self.play(FadeIn(page.sums), FadeIn(note))

    # shot 4 -----------------------------------------------------------------------------------
    def show_prediction(self, ws):
        page, mlp = self.page, ws.mlp
        best = VOCAB.index(mlp.prediction)
        block = next(b for b in page.blocks if best in b.rows)
        box = self.prediction_box = block.get_row_box(best, PREDICTED_COLOR)
        label = self.prediction_label = get_text("predicted", font_size=LABEL_SIZE, color=PREDICTED_COLOR)
        label.next_to(box, RIGHT, buff=0.15)
        if label.get_right()[0] > SAFE_WIDTH / 2:
            label.next_to(box, UP, buff=0.08).align_to(box, RIGHT)
        self.best = best
        with self.beat(f"The most probable next word is “{mlp.prediction}”: {fmt(mlp.probabilities[best])}."):
            if best in page.right.rows:
                self.play(page.rows[best].bar.animate.set_fill(POSITIVE_COLOR))
            self.play(Create(box), FadeIn(label))

    def show_filled_blank(self, ws):
        row = get_token_row(ws.tokens, receiver=ws.n, blank=True, font_size=26, positions=False)
        row.move_to([0, CONTENT_TOP - 0.1 - row.height / 2, 0])
        page = self.page
        if row.get_bottom()[1] >= page.get_top()[1] + 0.1:      # centred in the room above the table
            row.set_y((CONTENT_TOP + page.get_top()[1]) / 2)
        word = get_text(ws.mlp.prediction, font_size=row.font_size, color=POSITIVE_COLOR)
        word.move_to(row.blank[0])
        align_baseline(word, baseline_y(row.words[-1]))
        self.filled = VGroup(row, word)
        # a wrapped (long) prefix needs the table's room: the word then rises into the blank by itself
        crowded = row.get_bottom()[1] < page.get_top()[1] + 0.1
        tail = " ".join(ws.text.split()[-3:])
        with self.beat(f"This toy model's most probable word fills the blank: “…{tail} {ws.mlp.prediction}”.",
                       spoken=f"This toy model's most probable word fills the blank: {tail} {ws.mlp.prediction}.",
                       look=1.5):
            if crowded:
                stay = (self.title, self.current_caption)
                self.play(*(FadeOut(m) for m in self.mobjects if isinstance(m, VMobject) and m not in stay),
                          FadeIn(VGroup(row.boxes, row.words, row.blank)))
                self.play(FadeIn(word, shift=UP * 0.3), FadeOut(row.blank[1]), run_time=1.4)
            else:
                self.play(FadeOut(VGroup(self.chain, self.mark)), FadeIn(VGroup(row.boxes, row.words, row.blank)))
                self.play(TransformFromCopy(page.rows[self.best].word, word), FadeOut(row.blank[1]), run_time=1.4)


# ============================================================================================
# Scene 15 — The cheque sentence, beside the river sentence
# ============================================================================================

COMPARED = ("river", "cheque")   # scene 15 always computes both named sentences


def get_token_columns(row, values, *, tag: str, color: str, labels, label_color=None, places=None,
                      font_size=NUMBER_SIZE, row_height: float = 0.34) -> VGroup:
    """A few numbers under each word of a token row: values [n, k] as k lines, each number centred under
    its word (tag, index (j, line)); the lines' names at the left of the row."""
    values = np.asarray(values, dtype=float)
    if values.ndim == 1:
        values = values[:, None]
    places = places_for(values) if places is None else places
    top = (row.positions.get_bottom()[1] if len(row.positions) else row.boxes.get_bottom()[1]) - 0.12
    lines, names = VGroup(), VGroup()
    for k in range(values.shape[1]):
        y = top - (k + 0.75) * row_height
        line = VGroup()
        for j in range(values.shape[0]):
            m = get_number(values[j, k], places, tag=tag, index=(j, k) if values.shape[1] > 1 else j,
                           font_size=font_size, color=DIM_TEXT_COLOR if values[j, k] == 0 else color)
            m.move_to([row.boxes[j].get_center()[0], 0, 0])
            align_baseline(m, y)
            line.add(m)
        name = get_text(labels[k], font_size=SMALL_SIZE, color=label_color or color)
        name.move_to([row.boxes.get_left()[0] - 0.25, 0, 0], aligned_edge=RIGHT)
        align_baseline(name, y)
        lines.add(line)
        names.add(name)
    grid = VGroup(lines, names)
    grid.lines, grid.names = lines, names
    return grid


def get_outcome(ws) -> VGroup:
    """A sentence's prediction: its prefix and blank (the predicted word fills it), the candidates' bars."""
    _, candidates = word_groups()
    title = get_text(ws.name, font_size=BODY_SIZE + 2)
    words = " ".join(ws.tokens).split()          # spelled as the token rows spell it
    half = (len(words) + 1) // 2
    first = get_text(" ".join(words[:half]), font_size=LABEL_SIZE + 2, color=DIM_TEXT_COLOR)
    second = get_text(" ".join(words[half:]), font_size=LABEL_SIZE + 2, color=DIM_TEXT_COLOR)
    blank = get_text("___", font_size=LABEL_SIZE + 2, color=DIM_TEXT_COLOR)
    blank.next_to(second, RIGHT, buff=0.15)
    align_baseline(blank, baseline_y(second))
    text = VGroup(first, VGroup(second, blank)).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
    rows = get_word_rows(VOCAB, ws.mlp.logits, ws.mlp.probabilities, candidates, show_logits=False, bar_unit=3.2,
                         tag_prefix=f"{ws.name}_", bar_color=TEXT_COLOR, row_height=0.37, font_size=NUMBER_SIZE + 2,
                         word_size=LABEL_SIZE + 2)
    best = VOCAB.index(ws.mlp.prediction)
    group = VGroup(title, text, rows).arrange(DOWN, buff=0.2)
    filled = get_text(ws.mlp.prediction, font_size=LABEL_SIZE + 2, color=POSITIVE_COLOR)
    filled.next_to(second, RIGHT, buff=0.15)
    align_baseline(filled, baseline_y(second))
    group.add(filled)
    group.remove(filled)       # laid out with the group, shown later in the blank's place
    group.title, group.text, group.blank, group.filled, group.rows, group.best = title, text, blank, filled, rows, best
    group.get_box = lambda: rows.get_row_box(best, POSITIVE_COLOR)
    return group


class ChequeSentence(LessonScene):
    """Scene 15: the same parameters on the cheque sentence. The source rows (keys = values) turn from
    river's into cheque's under the same receiver query, head 1's arrows move from river to cheque and
    its message from water to finance, head 2 finds she, and the prediction becomes teller."""

    def construct(self):
        sheets = self.sheets = [compute_worksheet(name) for name in COMPARED]   # not the switch: both
        river, cheque = sheets
        self.title = get_title("The river sentence, once more")
        with self.transition("title"):
            self.play(FadeIn(self.title))
        self.layout(sheets)
        # --- Shot 1: the river sentence, head 1's keys and arrows --------------------------------
        self.shot("river")
        self.show_river_keys(river)
        self.show_river_arrows(river)
        # --- Shot 2: the words change, the keys change, the arrows move ---------------------------
        self.shot("cheque")
        self.show_switch(river, cheque)
        self.show_unchanged(river, cheque)
        self.show_same_query(cheque)
        self.show_arrows_move(cheque)
        # --- Shot 3: what the messages carry now -----------------------------------------------------
        self.shot("messages")
        self.show_head1_message(river, cheque)
        self.show_head2(river, cheque)
        # --- Shot 4: the predictions side by side -----------------------------------------------------
        self.shot("predictions")
        self.clear_stage(self.title)
        self.show_update(river, cheque)
        self.show_predictions(river, cheque)
        self.show_explorer()

    # pictures ---------------------------------------------------------------------------------
    def layout(self, sheets):
        kw = dict(font_size=20, max_width=SAFE_WIDTH - 2.2, gap=0.24)   # room between the weights below
        rows = [get_token_row(ws.tokens, receiver=ws.n, **kw) for ws in sheets]
        size = min(r.font_size for r in rows)
        rows = [get_token_row(ws.tokens, receiver=ws.n, **dict(kw, font_size=size)) for ws in sheets]
        for r in rows:
            r.move_to([0.8, CONTENT_TOP - 1.55, 0])
        self.rows = rows
        self.keys, self.weights, self.arrows1, self.arrows2 = [], [], [], []
        h1_names = carried_axes(sheets[0].heads[0].W_V)
        for ws, row in zip(sheets, rows):
            h1, h2 = ws.heads
            big = dict(font_size=NUMBER_SIZE + 2, row_height=0.42)      # head 1's grid has the room
            self.keys.append(get_token_columns(row, h1.K, tag=f"{ws.name}_k1", color=head_color(1),
                                               labels=[f"k{sup(1)} = v{sup(1)} {a}" for a in h1_names], **big))
            # three decimals under narrow words ("at", "the"): a size smaller, so neighbours keep a gap
            weights = get_token_columns(row, h1.weights[-1], tag=f"{ws.name}_A1", color=head_color(1),
                                        labels=[f"α{sup(1)}{sub(ws.n)},ⱼ"], places=3,
                                        **dict(big, font_size=NUMBER_SIZE))
            weights.shift(DOWN * 2 * 0.42)
            self.weights.append(weights)
            # each weight written near the source end of its arrow, where the eye starts
            self.arrows1.append(get_arrow_set(row, h1.weights[-1], head_color(1), UP, f"{ws.name}_A1", at=0.14))
            # head 2's below, at the left of its arrow's start (the arc runs on under the next words)
            self.arrows2.append(get_arrow_set(row, h2.weights[-1], head_color(2), DOWN, f"{ws.name}_A2",
                                              angle=ARROW_ANGLE_BELOW, at=0.0, direction=DOWN + LEFT))
        cheque = sheets[1]
        # each sentence's second most-read source, its weight on its arrow too
        self.seconds = [get_arrow_set(row, ws.heads[0].weights[-1], head_color(1), UP, f"{ws.name}_A1_second",
                                      at=0.14, index=runner_up_source(ws.heads[0].weights[-1][: ws.n])).badge
                        for ws, row in zip(sheets, rows)]
        self.second = self.seconds[1]
        q = sheets[0].heads[0].Q[-1]
        self.query = get_labeled_vector(f"receiver “{sheets[0].tokens[-1]}”:  q{sup(1)}{sub(sheets[0].n)} =", q,
                                        None, tag="q1", color=RECEIVER_COLOR, places=None)
        self.query.next_to(self.weights[0], DOWN, buff=0.4).align_to(self.weights[0].names, LEFT)
        q2 = sheets[0].heads[1].Q[-1]
        self.query2 = get_labeled_vector(f"receiver “{sheets[0].tokens[-1]}”:  q{sup(2)}{sub(sheets[0].n)} =", q2,
                                         None, tag="q2", color=RECEIVER_COLOR, places=None)
        # head 2 on the cheque sentence: its keys = values (person, glue) and its weights, under its arrows
        row = rows[1]
        h2 = cheque.heads[1]
        a2 = self.arrows2[1]
        keys2 = self.keys2 = get_token_columns(row, h2.K, tag="cheque_k2", color=head_color(2),
                                               labels=[f"k{sup(2)} = v{sup(2)} {a}" for a in carried_axes(h2.W_V)])
        weights2 = self.weights2 = get_token_columns(row, h2.weights[-1], tag="cheque_A2", color=head_color(2),
                                                     labels=[f"α{sup(2)}{sub(cheque.n)},ⱼ"], places=3)
        weights2.shift(DOWN * 2 * 0.34)
        grid2 = VGroup(keys2, weights2)
        below = min(a2.arrows.get_bottom()[1], a2.label.get_bottom()[1])
        grid2.shift(DOWN * (grid2.get_top()[1] - (below - 0.14)))
        # both heads' messages at the receiver, one row per sentence: m¹ beside m²
        table = self.messages = get_message_table(sheets)
        table.move_to([SAFE_WIDTH / 2 - 0.1 - table.width / 2, 0, 0])
        table.align_to([0, grid2.get_bottom()[1] - 0.22, 0], UP)
        self.query2.align_to(self.query, LEFT)
        self.query2.shift(LEFT * 0.5)      # a clear gap before the message table's "river: m¹₁₀ ="
        self.query2.shift(UP * (baseline_y(table.m1[0].vector.cell(0, 0)) - baseline_y(self.query2.vector.cell(0, 0))))

    # shot 1 -----------------------------------------------------------------------------------
    def show_river_keys(self, river):
        row, keys = self.rows[0], self.keys[0]
        h1 = river.heads[0]
        names = carried_axes(h1.W_V)
        top = strongest_source(h1.weights[-1])
        axis = dominant_axis(h1.K[top], names)
        self.box = SurroundingRectangle(VGroup(*(line[top] for line in keys.lines)), color=TEXT_COLOR, buff=0.08)
        # "k = v" labels the rows: the notes' caveat that the two stay separate parameters comes with them
        note = self.kv_note = get_fine(SEPARATE_PARAMETERS_NOTE)
        with self.beat(f"First, the river sentence again. Head 1's keys read {' and '.join(names)}; "
                       f"{said_source(river.tokens, top)} has the most {axis}."):
            self.play(FadeIn(VGroup(row.boxes, row.words, row.positions)))
            self.play(FadeIn(keys, shift=DOWN * 0.2), FadeIn(self.query), FadeIn(note))
            self.play(Create(self.box))

    def show_river_arrows(self, river):
        h1 = river.heads[0]
        a = self.arrows1[0]
        second = self.seconds[0][1].index
        with self.beat(f"So head 1 reads {said_source(river.tokens, a.top)} most: {fmt(h1.weights[-1, a.top])}; "
                       f"{said_source(river.tokens, second)} gets {fmt(h1.weights[-1, second])}."):
            self.play(a.arrows.create(), run_time=1.6)
            self.play(FadeIn(a.badge), FadeIn(self.seconds[0]), FadeIn(self.weights[0]))

    # shot 2 -----------------------------------------------------------------------------------
    def show_switch(self, river, cheque):
        (r0, r1), (k0, k1) = self.rows, self.keys
        note = self.note = get_fine("Same hand-chosen parameters: Q, K, V, both attention rows, the messages and "
                                    "the vocabulary prediction are recalculated. This is a worked arithmetic "
                                    "explorer, not a trained language model.")
        a0 = self.arrows1[0]
        title = get_title("The cheque sentence: same parameters, new prefix")
        # river's arrows stay as bare connections: one thin grey width, no head colour, so no weight is
        # claimed on cheque's words while its weights are not yet computed; the next beats give each
        # arc cheque's weight (thicker or thinner, in head 1's colour)
        pending = np.full(cheque.n, 1.0 / cheque.n)
        pending_arcs = self.pending_arcs = get_attention_arrows(r1, pending, color=DIM_TEXT_COLOR, side=UP,
                                                                angle=ARROW_ANGLE).arrows.fade(PENDING_FADE)
        with self.beat("Now the cheque sentence, same parameters: new words, so new keys and values.",
                       spoken=f"Now the cheque sentence: {cheque.text}, and then a blank. Same parameters, but new "
                              "words, so new keys and values."):
            # river's weight numbers leave before the words change: they are not cheque's
            self.play(FadeOut(self.box), FadeOut(self.weights[0]), FadeOut(a0.badge), FadeOut(self.seconds[0]),
                      FadeOut(self.kv_note), ReplacementTransform(self.title, title))
            # the words change while the voice reads them (the arcs, weightless now, ride along with the boxes)...
            self.play(*(ReplacementTransform(a, b) for a, b in zip(r0.words, r1.words)),
                      *(ReplacementTransform(a, b) for a, b in zip(r0.boxes, r1.boxes)),
                      *(ReplacementTransform(a, b) for a, b in zip(r0.positions, r1.positions)),
                      *(ReplacementTransform(a, b) for a, b in zip(a0.arrows.arrows, pending_arcs)), run_time=3.0)
            # ...then each word's key and value column turns into the new word's, left to right
            self.play(LaggedStart(*(AnimationGroup(*(ReplacementTransform(la[j], lb[j])
                                                     for la, lb in zip(k0.lines, k1.lines)))
                                    for j in range(len(k1.lines[0]))), lag_ratio=0.15),
                      ReplacementTransform(k0.names, k1.names), FadeIn(note), run_time=3.0)
        self.title = title

    def show_unchanged(self, river, cheque):
        # the words both sentences share at the same places keep their keys and values: the same
        # vectors, read differently only because the rest of the sentence changed
        same = unchanged_sources(river, cheque)
        self.same_box = VGroup()
        if not same:
            return
        row, keys = self.rows[1], self.keys[1]
        columns = VGroup(*(line[j] for line in keys.lines for j in same))
        self.same_box = SurroundingRectangle(columns, color=TEXT_COLOR, buff=0.08)
        tail = same == list(range(same[0], cheque.n)) and len(same) > 1          # one run, to the receiver
        shared = (f"The last {count_word(len(same))} words, “{' '.join(cheque.tokens[j] for j in same)}”," if tail
                  else join_words(said_source(cheque.tokens, j) for j in same).capitalize())
        with self.beat(f"{shared} are unchanged: same keys, same values."):
            self.play(Create(self.same_box),
                      *(Indicate(row.words[j], color=TEXT_COLOR, scale_factor=1.15) for j in same))

    def show_same_query(self, cheque):
        h1 = cheque.heads[0]
        names = carried_axes(h1.W_V)
        top = strongest_source(h1.weights[-1])
        axis = dominant_axis(h1.K[top], names)
        self.box = SurroundingRectangle(VGroup(*(line[top] for line in self.keys[1].lines)), color=TEXT_COLOR,
                                        buff=0.08)
        same = same_receiver_rows(*self.sheets)
        lead = ("The receiver and its query are the same" if same else "The receiver's query changes too")
        with self.beat(f"{lead}, but now {said_source(cheque.tokens, top)} has the most {axis}."):
            self.play(FadeOut(self.same_box), Indicate(self.query.vector.entries, color=RECEIVER_COLOR, scale_factor=1.15))
            self.play(Create(self.box))

    def show_arrows_move(self, cheque):
        a1 = self.arrows1[1]
        h1 = cheque.heads[0]
        w = h1.weights[-1]
        second = self.second[1].index
        # both sources said alike ("from the word deposited" needs "the word": a verb heard bare is grammar)
        text = (f"Head 1's arrows now come from new sources: {fmt(w[a1.top])} from {said_source(cheque.tokens, a1.top)}, "
                f"{fmt(w[second])} from {said_source(cheque.tokens, second)}.")
        with self.beat(text, spoken=text.replace(" from “", " from the word “")):
            # each pending arc takes cheque's weight from the same source: most stay thin, two thicken
            self.play(FadeOut(self.box), *(ReplacementTransform(self.stand_in(a), b)
                                           for a, b in zip(self.pending_arcs, a1.arrows.arrows)), run_time=2.0)
            self.add(a1.arrows)     # the arcs back in their group, so later beats move them as one
            self.play(FadeIn(a1.badge), FadeIn(self.second), FadeIn(self.weights[1]))

    # shot 3 -----------------------------------------------------------------------------------
    def show_head1_message(self, river, cheque):
        table = self.messages
        names = carried_axes(river.heads[0].W_V)
        was, now = (dominant_axis(ws.heads[0].messages[-1], names) for ws in (river, cheque))
        text = (f"So head 1's message switches from {was} to {now}." if was != now else
                f"Head 1's message still carries mostly {now}.")
        with self.beat(text):
            self.play(FadeIn(VGroup(table.names, table.m1), shift=UP * 0.2), FadeOut(self.box),
                      FadeOut(self.note), FadeIn(note := get_fine(
                          "All ten source contributions enter each message. " + ROUNDING_NOTE)))
            self.play(Create(table.marks1))
        self.note = note

    def show_head2(self, river, cheque):
        a2 = self.arrows2[1]
        row = self.rows[1]
        table = self.messages
        names = carried_axes(cheque.heads[1].W_V)
        was_src = strongest_source(river.heads[1].weights[-1])
        was, now = (dominant_axis(ws.heads[1].messages[-1], names) for ws in (river, cheque))
        carries = (f"its message still carries {now}" if was == now else f"its message switches from {was} to {now}")
        # what head 2 read in the river sentence, whose arrows below were never drawn: its weight on
        # screen under the query, in head 2's colour, so "instead of" has both sides
        was_weight = river.heads[1].weights[-1, was_src]
        dim = dict(font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
        before = self.head2_before = get_line(
            get_text("river sentence:", **dim), get_text(said_source(river.tokens, was_src), **dim),
            get_number(was_weight, tag="river_A2_top", index=was_src, font_size=NUMBER_SIZE + 2, color=head_color(2)))
        before.next_to(self.query2, DOWN, buff=0.3).align_to(self.query2, LEFT)
        with self.beat(f"Below, head 2 reads {said_source(cheque.tokens, a2.top)}: "
                       f"{fmt(cheque.heads[1].weights[-1, a2.top])}; in the river sentence, "
                       f"{said_source(river.tokens, was_src)}: {fmt(was_weight)}."):
            # head 1's arrows and messages stay; its key numbers make room for head 2's person and glue rows
            self.play(FadeOut(VGroup(self.keys[1], self.weights[1], row.positions, self.note, self.second)),
                      FadeOut(self.arrows1[1].badge), ReplacementTransform(self.query, self.query2))
            self.play(a2.arrows.create(), FadeIn(a2.badge), run_time=1.8)
            self.play(FadeIn(before, shift=UP * 0.1))
            note = self.note = get_shown_sum_note(cheque.heads[1].weights[-1], "Head 2's shown weights add to",
                                                  tag="cheque_A2_shown_sum")
            self.play(FadeIn(self.keys2, shift=DOWN * 0.1), FadeIn(self.weights2, shift=DOWN * 0.1), FadeIn(note))
        with self.beat(f"So {carries}, beside head 1's message."):
            # head 2's rounding note stays while m² (built from those weights) appears
            self.play(FadeIn(table.m2, shift=LEFT * 0.2))
            self.play(Create(table.marks2))

    # shot 4 -----------------------------------------------------------------------------------
    def show_update(self, river, cheque):
        strip = self.strip = get_rest_of_layer(river)
        strip.move_to([0, CONTENT_TOP - 0.05 - strip.height / 2, 0])
        axis = mixed_axes(river)[0]
        update = self.update_rows = get_update_rows(self.sheets, axis)
        update.next_to(strip, DOWN, buff=0.55)
        terms = update_terms(river, axis)
        quarter = next(t.weight for t in terms if t.weight != 1)
        person = carried_axes(np.hstack([h.W_V for h in river.heads]))[next(t.joined for t in terms if t.weight != 1)]
        # what this W_O is (lesson_data.off_carrier_entries): the identity plus its mixing entry
        dim = dict(font_size=FINE_PRINT_SIZE, color=DIM_TEXT_COLOR)
        wo_note = self.wo_note = put_fine_print(get_line(
            get_text("W_O here: the identity, plus", **dim),
            get_number(quarter, places_for([quarter]), tag="wo_note_w", font_size=FINE_PRINT_SIZE, color=DIM_TEXT_COLOR),
            get_text(f"of {person} into {AXES[axis]} (hand-chosen).", **dim), buff=0.1))
        with self.beat(f"Both messages go through W_O: it adds {fmt(quarter, places_for([quarter]))} of "
                       f"{person} into {AXES[axis]}.",
                       spoken=f"Both messages go through W O: it adds a quarter of {person} into {AXES[axis]}."
                       if quarter == 0.25 else None):
            self.play(LaggedStart(*(FadeIn(part, shift=RIGHT * 0.2) for part in strip[:3]), lag_ratio=0.25),
                      *(FadeIn(VGroup(c.title, c.joined)) for c in update), run_time=1.5)
            self.play(*(TransformFromCopy(c.joined.vector, c.delta.vector) for c in update),
                      *(FadeIn(c.delta.name) for c in update), run_time=1.2)
            self.play(*(Create(c.mix_box) for c in update), *(FadeIn(c.mix) for c in update), FadeIn(wo_note))
        glue = AXES.index(dominant_axis(river.E[-1], AXES))
        # the receiver's own row is the same in both sentences: every difference came in through attention
        # (the scene's last sentence says so: "only the prefix changed")
        own = ("the receiver's own row, the same in both" if same_receiver_input(river, cheque) else
               "the receiver's own row")
        with self.beat(f"Then the residual adds {own}: {fmt(river.E[-1, glue], places_for(river.E[-1]))} in "
                       f"{AXES[glue]}.", look=0.5):
            self.play(LaggedStart(*(FadeIn(part, shift=RIGHT * 0.2) for part in strip[3:5]), lag_ratio=0.25),
                      *(FadeIn(c.e) for c in update), run_time=1.2)
            self.play(*(FadeIn(c.e_prime, shift=DOWN * 0.1) for c in update), run_time=1.0)
            self.play(*(Create(c.glue_box) for c in update))

    def show_predictions(self, river, cheque):
        strip = self.strip
        outcomes = self.outcomes = VGroup(*(get_outcome(ws) for ws in self.sheets))
        outcomes.arrange(RIGHT, buff=1.4, aligned_edge=UP)
        for part in ("text", "rows"):                 # the two sides line up part for part
            getattr(outcomes[1], part).align_to(getattr(outcomes[0], part), UP)
        outcomes.next_to(strip, DOWN, buff=0.25)
        for o in outcomes:
            o.filled.next_to(o.text[1][0], RIGHT, buff=0.15)
            align_baseline(o.filled, baseline_y(o.text[1][0]))
            o.box = o.get_box()
        _, candidates = word_groups()
        vocab = len(river.mlp.probabilities)
        note = self.note = get_fine(f"{count_word(len(candidates)).capitalize()} of {vocab} words shown; "
                                    f"each sentence's {vocab} probabilities sum to one.")
        # the updated rows leave as the predictions come in (a fade to an empty stage between them was
        # a second of nothing but the title)
        self.give_way(self.update_rows, self.wo_note)
        with self.beat(f"Same parameters, different prefix: “{river.mlp.prediction}” after the river sentence, "
                       f"“{cheque.mlp.prediction}” after the cheque sentence."):
            self.play(LaggedStart(*(FadeIn(part, shift=RIGHT * 0.2) for part in strip[5:]), lag_ratio=0.25),
                      *(FadeIn(VGroup(o.title, o.text, o.rows)) for o in outcomes), FadeIn(note), run_time=1.2)
            self.play(*(o.rows.rows[o.best].bar.animate.set_fill(POSITIVE_COLOR) for o in outcomes),
                      *(Create(o.box) for o in outcomes))
            self.play(*(FadeOut(o.blank) for o in outcomes), *(FadeIn(o.filled, shift=UP * 0.2) for o in outcomes))

    def show_explorer(self):
        # one badge for both panels, between their titles
        tag = get_text("both: hand-chosen parameters", font_size=16, color=DIM_TEXT_COLOR)
        frame = SurroundingRectangle(tag, color=DIM_TEXT_COLOR, buff=0.08, corner_radius=0.08, stroke_width=1.5)
        badges = VGroup(VGroup(frame, tag))
        titles = VGroup(*(o.title for o in self.outcomes))
        badges.move_to([(self.outcomes[0].title.get_right()[0] + self.outcomes[1].title.get_left()[0]) / 2,
                        titles.get_center()[1], 0])
        self.badges = badges
        with self.beat("Only the prefix changed: attention moved the weight, and the prediction followed. "
                       "This is a worked arithmetic example, not a trained language model."):
            self.play(*(FadeIn(b, shift=LEFT * 0.2) for b in badges))
            self.play(*(Indicate(o.filled, color=POSITIVE_COLOR, scale_factor=1.15) for o in self.outcomes))


def get_message_table(sheets) -> VGroup:
    """Both heads' messages at the receiver, one row per sentence ("river:", "cheque:"), head 1's m¹
    beside head 2's m², each coordinate named once above its column; a padded box on the coordinate
    each message carries most (`marks1`, `marks2`)."""
    names, m1, m2 = VGroup(), VGroup(), VGroup()
    for r, ws in enumerate(sheets):
        for h, col in ((1, m1), (2, m2)):
            head = ws.heads[h - 1]
            axes = carried_axes(head.W_V)
            vec = get_labeled_vector(f"m{sup(h)}{sub(ws.n)} =", head.messages[-1], list(axes),
                                     tag=f"{ws.name}_m{h}", color=head_color(h), label_color=TEXT_COLOR)
            vec.carried = axes.index(dominant_axis(head.messages[-1], axes))
            if r:                                          # the coordinates are named once, above the first row
                vec.vector.remove(vec.vector.col_labels)
            col.add(vec)
        names.add(get_text(f"{ws.name}:", font_size=LABEL_SIZE))
    row_gap = 0.5
    for r in range(len(sheets)):
        m1[r].move_to([0, -r * row_gap, 0], aligned_edge=LEFT)
        m1[r].shift(UP * (-r * row_gap - baseline_y(m1[r].vector.cell(0, 0))))
        m2[r].next_to(m1[r], RIGHT, buff=0.6)
        m2[r].shift(UP * (baseline_y(m1[r].vector.cell(0, 0)) - baseline_y(m2[r].vector.cell(0, 0))))
        names[r].next_to(m1[r], LEFT, buff=0.25)
        align_baseline(names[r], baseline_y(m1[r].vector.cell(0, 0)))
    # one left edge for the two m¹ rows, one for the two m² rows
    for col in (m1, m2):
        left = min(v.get_left()[0] for v in col)
        for v in col:
            v.shift(RIGHT * (left - v.get_left()[0]))
    x2 = max(v.get_left()[0] for v in m2)
    for v in m2:
        v.shift(RIGHT * (x2 - v.get_left()[0]))
    names_right = min(v.get_left()[0] for v in m1) - 0.25
    for n in names:
        n.shift(RIGHT * (names_right - n.get_right()[0]))
    marks1 = VGroup(*(get_entry_box(v.vector, v.carried, head_color(1)) for v in m1))
    marks2 = VGroup(*(get_entry_box(v.vector, v.carried, head_color(2)) for v in m2))
    table = VGroup(names, m1, m2, marks1, marks2)     # the marks move with the table (shown later)
    table.names, table.m1, table.m2, table.marks1, table.marks2 = names, m1, m2, marks1, marks2
    return table


def get_entry_box(vector, j: int, color: str) -> Rectangle:
    """A highlight box on entry j of a row vector, padded clear of the brackets."""
    cell = vector.cell(0, j)
    box = Rectangle(width=min(cell.width + 0.06, vector.cell_width - 0.14), height=vector.row_height - 0.06)
    box.set_stroke(color, 2).set_fill(color, HIGHLIGHT_OPACITY)
    return box.move_to([cell.get_center()[0], vector.cell_center(0, j)[1], 0])


def get_update_rows(sheets, axis: int) -> VGroup:
    """Each sentence's way from its joined messages to its updated row, side by side (river | cheque):
    [m¹ | m²] (coloured per head), Δe = [m¹ | m²] · W_O with the mixed `axis` entry boxed and worked
    underneath ("water = 2.617 + 0.25 · 1.552", lesson_data.joining.update_terms), the receiver's own
    row e and e′ = e + Δe with the entry e adds to boxed."""
    cols = VGroup()
    size = NUMBER_SIZE + 4
    for ws in sheets:
        n = ws.n
        d1 = ws.heads[0].messages.shape[1]
        d = ws.H_joined.shape[1]
        title = get_text(f"the {ws.name} sentence", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
        joined = get_labeled_vector(f"[m{sup(1)}{sub(n)} | m{sup(2)}{sub(n)}] =", ws.H_joined[-1], list(AXES),
                                    tag=f"{ws.name}_joined_last", color=TEXT_COLOR, label_color=TEXT_COLOR,
                                    column_colors=[head_color(1)] * d1 + [head_color(2)] * (d - d1), font_size=size)
        delta = get_labeled_vector(f"· W_O = Δe{sub(n)} =", ws.delta_E[-1], None, tag=f"{ws.name}_dE_last",
                                   color=TEXT_COLOR, font_size=size)
        e = get_labeled_vector(f"+ e{sub(n)} =", ws.E[-1], None, tag=f"{ws.name}_E_last", color=TEXT_COLOR, font_size=size)
        # e's one-decimal entries sit under Δe's columns: the same column width, so the same brackets
        widen = delta.vector.cell_width - e.vector.cell_width
        if widen > 0:
            e = get_labeled_vector(f"+ e{sub(n)} =", ws.E[-1], None, tag=f"{ws.name}_E_last", color=TEXT_COLOR,
                                   font_size=size, h_buff=0.22 + widen)
        for i in range(e.vector.n_cols):
            if ws.E[-1, i] == 0.0:
                e.vector.cell(0, i).set_color(DIM_TEXT_COLOR)
        e_prime = get_labeled_vector(f"= e′{sub(n)} =", ws.E_prime[-1], None, tag=f"{ws.name}_E_prime_last",
                                     color=TEXT_COLOR, font_size=size)
        terms = update_terms(ws, axis)
        parts = [get_text(f"{AXES[axis]} =", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)]
        for k, t in enumerate(terms):
            if k:
                parts.append(get_text("+", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR))
            if t.weight != 1:
                parts += [get_number(t.weight, places_for([t.weight]), tag=f"{ws.name}_mix_w", index=k,
                                     font_size=LABEL_SIZE, color=TEXT_COLOR),
                          get_text("·", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)]
            parts.append(get_number(t.message, 3, tag=f"{ws.name}_mix", index=k, font_size=LABEL_SIZE,
                                    color=head_color(1 if t.joined < d1 else 2)))
        mix = get_line(*parts, buff=0.1)
        for part in parts:                          # the product dot at mid-height, not on the baseline
            if getattr(part, "original_text", None) == "·":
                part.shift(UP * 0.07)
        rows = [joined, delta, e, e_prime]
        y = 0.0
        for r, row in enumerate(rows):
            row.vector.align_to([0, 0, 0], LEFT)
            row.shift(UP * (y - baseline_y(row.vector.cell(0, 0))))
            row.name.next_to(row.vector.brackets, LEFT, buff=BUFF)
            align_baseline(row.name, y)
            y -= 0.78 if r != 1 else 1.25           # room for the worked entry under Δe
        mix.next_to(delta.vector.brackets, DOWN, buff=0.12).align_to(delta.vector.brackets, LEFT)
        title.next_to(joined, UP, buff=0.2).align_to(VGroup(*rows), LEFT)
        mix_box = get_entry_box(delta.vector, axis, TEXT_COLOR).set_fill(opacity=0)
        glue = AXES.index(dominant_axis(ws.E[-1], AXES))
        glue_box = get_entry_box(e_prime.vector, glue, TEXT_COLOR).set_fill(opacity=0)
        col = VGroup(title, joined, delta, mix, e, e_prime, mix_box, glue_box)
        col.title, col.joined, col.delta, col.mix, col.e, col.e_prime = title, joined, delta, mix, e, e_prime
        col.mix_box, col.glue_box = mix_box, glue_box
        cols.add(col)
    cols.arrange(RIGHT, buff=0.6, aligned_edge=UP)
    for col in cols[1:]:                            # the two sides line up row for row
        col.shift(UP * (baseline_y(cols[0].joined.vector.cell(0, 0)) - baseline_y(col.joined.vector.cell(0, 0))))
    cols.set_x(0)
    return cols


def get_rest_of_layer(ws) -> VGroup:
    """One line for the steps between the messages and the prediction: [m¹ | m²] → · W_O → + E → MLP → p."""
    n = ws.n
    size = LABEL_SIZE + 2
    parts = [get_text(f"[m{sup(1)}{sub(n)} | m{sup(2)}{sub(n)}]", font_size=size)]
    for step in ("· W_O", "+ e", "prediction MLP", "p"):
        parts.append(get_text("→", font_size=size, color=DIM_TEXT_COLOR))
        parts.append(get_text(step if step != "+ e" else f"+ e{sub(n)} (residual)", font_size=size))
    line = VGroup(*parts).arrange(RIGHT, buff=0.18)
    return line


__all__ = [
    "WideHeadVersusTwo", "ConcatAndOutputProjection", "ResidualAndPrediction", "ChequeSentence", "COMPARED",
    "get_joined_projection", "get_score_rules", "get_arrow_panels", "get_score_table", "get_mixtures",
    "get_block_box", "get_general_shape_note", "get_residual_tables", "get_mlp_chain", "get_hidden_rows",
    "get_probability_page", "get_token_columns", "get_outcome",
    "get_rest_of_layer", "get_update_rows", "get_message_table", "get_entry_box",
]
