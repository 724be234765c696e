"""Chapter 2, scenes 16–17: projection biases and the library layer, then the recap and the loop.

Scene 16 takes its numbers from `bias_illustration` (head 1's receiver query without and with an
illustrative b_Q), `lesson_data.projections` (which source moves most, which head owns each bias
offset) and `pytorch_parity` (the MEASURED max differences after copying the scratch weights into
torch.nn.MultiheadAttention, at render time). Scene 17 redraws the whole two-head diagram with the
worksheet's prediction, then training against inference. The sentence comes from LESSON_SENTENCE
(default "river"); the fine print follows the lesson notes (docs/lesson-notes.txt).

    manim -pql scenes/chapter2/library_and_recap.py BiasesAndLibraryLayer
    manim -pql scenes/chapter2/library_and_recap.py RecapAndLoop
"""
from __future__ import annotations

import math

import numpy as np
from manim import (
    DOWN,
    LEFT,
    ORIGIN,
    RIGHT,
    UP,
    Arc,
    Circumscribe,
    Create,
    DashedLine,
    DashedVMobject,
    Dot,
    FadeIn,
    FadeOut,
    GrowArrow,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    MoveAlongPath,
    Rectangle,
    ReplacementTransform,
    RoundedRectangle,
    Square,
    SurroundingRectangle,
    VGroup,
    Text,
    VMobject,
    smooth,
)

from lesson_data.display import fmt, fmt_sci, places_for
from lesson_data.projections import (bias_score_terms, change_word, extreme_of, listed_rows, most_shifted_source,
                                     offset_heads)
from lesson_data.library import loss_operand_places
from lesson_data.worksheet import HEAD_NAMES, bias_illustration, sentence_from_env
from scenes.blocks.code_panel import get_code_panel, get_mono
from scenes.blocks.flow_arrow import get_arrow
from scenes.blocks.labeled_matrix import get_row_vector
from scenes.blocks.shape_box import get_shape_box
from scenes.blocks.shape_flow import get_concat_box, get_plus_node, get_routed_arrow
from scenes.style import (
    ROUNDING_NOTE,
    BACKGROUND,
    BODY_SIZE,
    BUFF,
    BUFF_LARGE,
    BUFF_SMALL,
    CONTENT_BOTTOM,
    CONTENT_CENTER,
    CONTENT_TOP,
    DIM_TEXT_COLOR,
    GRADIENT_COLOR,
    HIGHLIGHT_OPACITY,
    LABEL_SIZE,
    MARGIN,
    MASK_COLOR,
    POSITIVE_COLOR,
    RECEIVER_COLOR,
    SAFE_WIDTH,
    SMALL_SIZE,
    SOURCE_COLOR,
    TEXT_COLOR,
    LessonScene,
    NumberText,
    align_baseline,
    baseline_y,
    count_word,
    format_shape,
    get_count,
    get_fine_print,
    get_number,
    get_text,
    get_title,
    head_color,
    hex_rgb,
    rgb_hex,
    scene_worksheet,
    sub,
    sup,
)

BIAS_COLOR = "#CCCCCC"          # the bias vector b_Q¹, wherever it appears: a neutral light grey
                                 # (blue/orange are the heads', yellow the receiver's, green "predicted")
PREDICTED_COLOR = POSITIVE_COLOR  # the predicted word, as in scenes 14 and 15
B_Q = f"b_Q{sup(1)}"             # head 1's query bias: heads own their slices of the bias
FRAME_RIGHT_SAFE = SAFE_WIDTH / 2  # x of the right margin


# --------------------------------------------------------------------------------------------
# Shared small builders
# --------------------------------------------------------------------------------------------


class SciNumberText(NumberText):
    """A measured tiny number shown in scientific notation (lesson_data.display.fmt_sci), with the
    same `.value` (unrounded), `.places`, `.shown`, `.tag` and `.index` as every NumberText."""

    rule = staticmethod(fmt_sci)

    def __init__(self, value: float, places: int = 1, **kwargs):
        super().__init__(value, places, **kwargs)


def get_sci_number(value: float, places: int = 1, **kwargs) -> SciNumberText:
    return SciNumberText.make(value, places, **kwargs)


def display_words(ws) -> list[str]:
    """The sentence's words as written when they line up with the tokens, else the tokens."""
    words = ws.text.split()
    return words if len(words) == ws.n else list(ws.tokens)


def receiver_word(ws) -> str:
    return display_words(ws)[-1]


def fade_out(scene, *groups) -> list:
    """FadeOut for every top-level mobject on screen that belongs to `groups` (a VGroup made on the
    spot around parts added one by one would leave those parts behind when it is removed)."""
    family = {id(m) for g in groups for m in g.get_family()}
    return [FadeOut(m) for m in scene.mobjects if id(m) in family]


def place_fine_print(*texts, width: float = SAFE_WIDTH) -> VGroup:
    """The notes' caveats, dim and legible, at the bottom of the content zone."""
    note = VGroup(*(get_fine_print(t, max_width=width) for t in texts)).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
    return note.to_edge(LEFT, buff=0.6).align_to(UP * (CONTENT_BOTTOM + 0.02), DOWN)


# ============================================================================================
# Scene 16 — Biases and the library layer
# ============================================================================================


def get_query_with_bias(bias, n: int) -> VGroup:
    """eₙW_Q¹ + b_Q = q¹ₙ (with bias): head 1's receiver query, the illustrative bias and their sum, each
    with its own precision (hand-chosen tenths read 0.2, not 0.200)."""
    h1 = head_color(1)
    kw = dict(places=None, label_size=LABEL_SIZE)
    q = get_row_vector(bias.query_without, None, name=f"e{sub(n)}W_Q{sup(1)}", tag="q_without",
                       color=h1, name_color=h1, **kw)
    b = get_row_vector(bias.b_Q, None, name=f"{B_Q} (illustrative)", tag="b_Q", color=BIAS_COLOR,
                       name_color=BIAS_COLOR, **kw)
    s = get_row_vector(bias.query_with, None, name=f"q{sup(1)}{sub(n)} (with bias)", tag="q_with",
                       color=h1, name_color=h1, **kw)
    plus = get_text("+", font_size=BODY_SIZE)
    equals = get_text("=", font_size=BODY_SIZE)
    group = VGroup(q, plus, b, equals, s).arrange(RIGHT, buff=0.22)
    for part in (q, b, s):        # one line of names, one row of numbers
        part.align_to(q, DOWN)
    for op in (plus, equals):
        op.set_y(q.cell_center(0, 0)[1])
    group.q, group.b, group.sum, group.ops = q, b, s, VGroup(plus, equals)
    return group


def get_bias_term(bias, j: int, word: str, term: float, places: int) -> VGroup:
    """b_Q · k = `term`, the score the bias adds to source j: the bias row, the source's key row and
    their dot product (the table's score places), on one line: why that source's score moves most."""
    kw = dict(places=None, label_size=LABEL_SIZE)
    b = get_row_vector(bias.b_Q, None, name=B_Q, tag="bias_term_b", color=BIAS_COLOR, name_color=BIAS_COLOR, **kw)
    k = get_row_vector(bias.keys[j], None, name=f"k, “{word}”", tag="bias_term_k", color=head_color(1),
                       name_color=head_color(1), **kw)
    term = get_number(term, places, tag="bias_term", index=j, color=BIAS_COLOR,
                      font_size=LABEL_SIZE + 2)
    dot, equals = get_text("·", font_size=BODY_SIZE), get_text("=", font_size=BODY_SIZE)
    added = get_text("added score", font_size=SMALL_SIZE, color=BIAS_COLOR)
    group = VGroup(b, dot, k, equals, term).arrange(RIGHT, buff=0.2)
    for part in (b, k):
        part.align_to(b, DOWN)
    y = b.cell_center(0, 0)[1]
    for op in (dot, equals, term):
        op.set_y(y)
    added.align_to(term, LEFT).align_to(b.name_label, DOWN)         # the term's name, on the rows' names' line
    group.add(added)
    group.term = term
    return group


def get_shared_versus_position(ws) -> VGroup:
    """Two short columns: the same b_Q on every query row vs a different position row per slot."""
    n = ws.n
    h = sup(1)
    rows = [1, 2, None, n] if n > 3 else list(range(1, n + 1))
    size = LABEL_SIZE

    def column(title, title_color, line_for):
        lines = [get_text(title, font_size=size, color=title_color)]
        for p in rows:
            lines.append(get_text("⋮", font_size=size, color=DIM_TEXT_COLOR) if p is None else line_for(p))
        col = VGroup(*lines).arrange(DOWN, buff=0.14, aligned_edge=LEFT)
        for line in lines[1:]:
            if line.original_text == "⋮":
                line.shift(RIGHT * 0.3)
        return col

    def bias_line(p):
        return get_text(f"q{h}{sub(p)} = e{sub(p)}W_Q{h} + {B_Q}", font_size=size, t2c={B_Q: BIAS_COLOR})

    def position_line(p):
        return get_text(f"e{sub(p)} = {ws.tokens[p - 1]} + p{sub(p)}", font_size=size,
                        t2c={f"p{sub(p)}": SOURCE_COLOR})

    left = column(f"a bias: the same {B_Q} in every row", BIAS_COLOR, bias_line)
    right = column("position rows: one per position", SOURCE_COLOR, position_line)
    panel = VGroup(left, right).arrange(RIGHT, buff=1.2, aligned_edge=UP)
    panel.bias_column, panel.position_column = left, right
    return panel


class BiasWeightTable(VGroup):
    """Receiver row of A¹ without and with the bias: word | scores | without | with."""


def get_bias_weight_table(labels, without, with_bias, *, listed=None, color=None, row_height=0.34,
                          scores=None, score_title: str = "score", shown_sums=None) -> BiasWeightTable:
    """One row per listed source (label, [score without, score with b_Q,] weight without, weight with
    b_Q), then an "others" row pooling the rest (lesson_data.projections.listed_rows), the rounded
    parts' sums (`shown_sums`: (without, with), from lesson_data.joining.sum_of_shown) and the sums of
    the full rows. `table.rows[k]` is the k-th listed source, `table.sources[k]` its index;
    `table.parts_without[k]` / `parts_with[k]` its cells of each column group. `scores`: (without,
    with) raw score rows, shown in two columns before the weights (tags score_without / score_with);
    the pooled row has no score. The bars are drawn beside it (get_weight_bars)."""
    color = color or head_color(1)
    without = np.asarray(without, dtype=float)
    with_bias = np.asarray(with_bias, dtype=float)
    sources = list(listed.listed) if listed is not None else list(range(len(labels)))
    pooled = list(listed.pooled) if listed is not None else []
    table = BiasWeightTable()
    table.sources = sources
    entries = [(labels[j], without[j], with_bias[j], "A_without", "A_with", j) for j in sources]
    if pooled:
        entries.append((f"{count_word(len(pooled))} others", listed.pooled_sums[0], listed.pooled_sums[1],
                        "A_without_others", "A_with_others", None))
    table.labels = VGroup(*(get_text(e[0], font_size=SMALL_SIZE + 1) for e in entries))
    table.without = VGroup(*(get_number(e[1], tag=e[3], index=e[5], color=DIM_TEXT_COLOR) for e in entries))
    table.with_bias = VGroup(*(get_number(e[2], tag=e[4], index=e[5], color=color) for e in entries))
    number_w = max(m.width for m in [*table.without, *table.with_bias])
    x_label = 0.0
    table.scores_without, table.scores_with = VGroup(), VGroup()
    if scores is not None:
        s0, s1 = (np.asarray(v, dtype=float) for v in scores)
        places = table.score_places = places_for(np.concatenate([s0, s1]))
        for e in entries:
            j = e[5]
            if j is None:
                continue
            table.scores_without.add(get_number(s0[j], places, tag="score_without", index=j, color=DIM_TEXT_COLOR))
            table.scores_with.add(get_number(s1[j], places, tag="score_with", index=j, color=color))
        score_w = max(m.width for m in [*table.scores_without, *table.scores_with, get_text("with " + B_Q, font_size=SMALL_SIZE)])
        x_s0 = x_label + BUFF + score_w
        x_s1 = x_s0 + BUFF + score_w
        for k, (a, b) in enumerate(zip(table.scores_without, table.scores_with)):
            a.move_to([x_s0, -k * row_height, 0], aligned_edge=RIGHT)
            b.move_to([x_s1, -k * row_height, 0], aligned_edge=RIGHT)
    x_start = x_s1 + BUFF_LARGE - BUFF if scores is not None else x_label
    x_without = x_start + BUFF + number_w
    x_with = x_without + BUFF_LARGE + number_w
    rows = []
    table.parts_without, table.parts_with = [], []
    for k, entry in enumerate(entries):
        y = -k * row_height
        a, b, label = table.without[k], table.with_bias[k], table.labels[k]
        a.move_to([x_without, y, 0], aligned_edge=RIGHT)
        b.move_to([x_with, y, 0], aligned_edge=RIGHT)
        label.move_to([x_label, y, 0], aligned_edge=RIGHT)
        align_baseline(label, baseline_y(a))
        rows.append(VGroup(label, a, b))
        table.parts_without.append(VGroup(label, a))
        table.parts_with.append(VGroup(b))
    table.rows = VGroup(*rows)
    head_y = row_height * 0.9
    table.head_without = get_text("no bias", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    table.head_with = get_text(f"with {B_Q}", font_size=SMALL_SIZE, color=color)
    table.head_without.move_to([x_without - number_w / 2, head_y, 0])
    table.head_with.move_to([x_with - number_w / 2, head_y, 0])
    table.score_heads = VGroup()
    table.group_heads = VGroup()
    if scores is not None:
        sh0 = get_text("no bias", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).move_to([x_s0 - score_w / 2, head_y, 0])
        sh1 = get_text(f"with {B_Q}", font_size=SMALL_SIZE, color=color).move_to([x_s1 - score_w / 2, head_y, 0])
        table.score_heads = VGroup(sh0, sh1)
        g0 = get_text(score_title, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        g0.move_to([(sh0.get_left()[0] + sh1.get_right()[0]) / 2, head_y + 0.32, 0])
        g1 = get_text("weight", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        g1.move_to([(table.head_without.get_left()[0] + table.head_with.get_right()[0]) / 2, head_y + 0.32, 0])
        table.group_heads = VGroup(g0, g1)
        for k, (a, b) in enumerate(zip(table.scores_without, table.scores_with)):
            align_baseline(a, baseline_y(table.without[k]))
            align_baseline(b, baseline_y(table.without[k]))
            rows[k].add(a, b)
            table.parts_without[k].add(a)
            table.parts_with[k].add(b)
    y_sum = -len(entries) * row_height - 0.08
    table.rule = Line([x_label - 0.6, y_sum + row_height / 2, 0], [x_with, y_sum + row_height / 2, 0])
    table.rule.set_stroke(DIM_TEXT_COLOR, 1.5)
    # the rounded parts shown, added as shown (may read 0.999), then the full row's sum (one)
    table.shown_label = get_text("rounded parts add to", font_size=16, color=DIM_TEXT_COLOR)
    table.shown_without, table.shown_with = VGroup(), VGroup()
    if shown_sums is not None:
        table.shown_without = get_number(shown_sums[0], tag="A_without_shown_sum", color=DIM_TEXT_COLOR)
        table.shown_with = get_number(shown_sums[1], tag="A_with_shown_sum", color=color)
        table.shown_without.move_to([x_without, y_sum, 0], aligned_edge=RIGHT)
        table.shown_with.move_to([x_with, y_sum, 0], aligned_edge=RIGHT)
        table.shown_label.move_to([x_label, y_sum, 0], aligned_edge=RIGHT)
        align_baseline(table.shown_label, baseline_y(table.shown_without))
        y_sum -= row_height
    table.sum_label = get_text("full-precision sum", font_size=16, color=DIM_TEXT_COLOR)
    # fsum of the unrounded weights, rounded once for display
    table.sum_without = get_number(math.fsum(without), tag="A_without_sum", color=DIM_TEXT_COLOR)
    table.sum_with = get_number(math.fsum(with_bias), tag="A_with_sum", color=color)
    table.sum_without.move_to([x_without, y_sum, 0], aligned_edge=RIGHT)
    table.sum_with.move_to([x_with, y_sum, 0], aligned_edge=RIGHT)
    table.sum_label.move_to([x_label, y_sum, 0], aligned_edge=RIGHT)
    align_baseline(table.sum_label, baseline_y(table.sum_without))
    if scores is not None:         # the sum labels may use the score columns' room
        for label in (table.shown_label, table.sum_label):
            label.shift(RIGHT * (x_start - BUFF - label.get_right()[0]))
    left_x = min(t.get_left()[0] for t in table.labels) - BUFF_SMALL
    right_x = x_with + BUFF_SMALL
    # invisible: carries the row extent through moves and scales (highlight boxes read it)
    table.extent = Line([left_x, 0, 0], [right_x, 0, 0]).set_stroke(opacity=0)
    table.row_height = row_height
    table.add(table.extent, table.head_without, table.head_with, table.rows, table.rule, table.sum_label,
              table.sum_without, table.sum_with, table.score_heads, table.group_heads)
    if shown_sums is not None:
        table.add(table.shown_label, table.shown_without, table.shown_with)
    return table


def get_weight_bars(without, with_bias, row_ys, *, listed=None, color=None, bar_max_width=3.0) -> VGroup:
    """Two bars on each of the table's rows (`row_ys`: the rows' y, in the table's order, so a row reads
    across from its word to its bars): the weight without the bias (grey, above) and with b_Q (head
    colour, below); a bar's length is the weight (1 = bar_max_width), from x = 0. `chart.rows[k]`:
    (bar without, bar with); `chart.key`: what the two shades mean, placed by the scene."""
    color = color or head_color(1)
    sources = list(listed.listed) if listed is not None else list(range(len(without)))
    entries = [(without[j], with_bias[j]) for j in sources]
    if listed is not None and listed.pooled:
        entries.append(tuple(listed.pooled_sums))
    chart = VGroup()
    chart.sources = sources
    chart.rows, chart.bars_without, chart.bars_with = VGroup(), VGroup(), VGroup()
    pitch = abs(row_ys[0] - row_ys[1]) if len(row_ys) > 1 else 0.3
    thin = min(pitch * 0.36, 0.13)
    for (w0, w1), y in zip(entries, row_ys):
        bar0 = Rectangle(width=max(bar_max_width * w0, 1e-3), height=thin).set_stroke(width=0)
        bar0.set_fill(DIM_TEXT_COLOR, 0.8).move_to([0, y + thin / 2 + 0.01, 0], aligned_edge=LEFT)
        bar1 = Rectangle(width=max(bar_max_width * w1, 1e-3), height=thin).set_stroke(width=0)
        bar1.set_fill(color, 0.95).move_to([0, y - thin / 2 - 0.01, 0], aligned_edge=LEFT)
        chart.rows.add(VGroup(bar0, bar1))
        chart.bars_without.add(bar0)
        chart.bars_with.add(bar1)
    axis = Line([0, row_ys[0] + 0.6 * pitch, 0], [0, row_ys[-1] - 0.6 * pitch, 0]).set_stroke(DIM_TEXT_COLOR, 1.5)
    key = VGroup()
    for shade, text in ((DIM_TEXT_COLOR, "no bias"), (color, f"with {B_Q}")):
        sw = Rectangle(width=0.34, height=thin).set_stroke(width=0).set_fill(shade, 0.9)
        key.add(VGroup(sw, get_text(text, font_size=16, color=shade)).arrange(RIGHT, buff=0.1))
    key.arrange(RIGHT, buff=0.4)
    title = get_text("weight as bar length", font_size=16, color=DIM_TEXT_COLOR)
    head = VGroup(title, key).arrange(RIGHT, buff=0.4)
    chart.add(axis, chart.rows)
    chart.axis, chart.key, chart.head = axis, key, head
    chart.pitch = pitch
    return chart


def get_row_box(table, j: int, right: float, color=SOURCE_COLOR) -> Rectangle:
    """Highlight of source j's row across the table and its bars, to x = `right` (from the table's
    current geometry)."""
    row = table.rows[table.sources.index(j)]
    pitch = abs(table.rows[0][1].get_y() - table.rows[1][1].get_y()) if len(table.rows) > 1 else 0.34
    left = table.extent.get_left()[0]
    box = Rectangle(width=right - left, height=pitch)
    box.set_stroke(color, 2).set_fill(color, HIGHLIGHT_OPACITY)
    return box.move_to([(left + right) / 2, row[1].get_y(), 0])


def get_offset_cells(heads, unit=0.42, colors=None) -> VGroup:
    """One small square per bias scalar, coloured by the head that owns it (`heads`: one head index
    per scalar, from lesson_data.projections.offset_heads), or by `colors`."""
    cells = VGroup()
    for k, head in enumerate(heads):
        color = colors[k] if colors is not None else head_color(head)
        cells.add(Square(side_length=unit).set_stroke(color, 1.5).set_fill(color, 0.55))
    return cells.arrange(RIGHT, buff=0.05)


def get_named_count(name: str, n: int, tag: str) -> VGroup:
    """`in_proj_bias  12`: a parameter name in the code face and its count on one baseline."""
    label = get_mono(name, font_size=LABEL_SIZE + 2)
    count = get_count(n, tag=tag, font_size=LABEL_SIZE + 4, color=SOURCE_COLOR)
    group = VGroup(label, count).arrange(RIGHT, buff=0.3)
    align_baseline(count, baseline_y(label))
    group.count = count
    return group


def get_bias_layout(bias) -> VGroup:
    """bias=True: in_proj_bias = query | key | value offsets (each split by head), out_proj.bias,
    the total, the per-head slice and the add_bias_kv note; parts revealed one beat at a time."""
    d = bias.d_model
    per_head = d // bias.num_heads
    owners = offset_heads(d, bias.num_heads)
    counts = bias.extra_parameters
    code = get_code_panel([f"nn.MultiheadAttention(embed_dim={d}, num_heads={bias.num_heads}, bias=True)"],
                          font_size=LABEL_SIZE + 2)
    code_off = get_code_panel([f"nn.MultiheadAttention(embed_dim={d}, num_heads={bias.num_heads}, bias=False)"],
                              font_size=LABEL_SIZE + 2)

    groups = VGroup()
    for name in ("query", "key", "value"):
        cells = get_offset_cells(owners, colors=[DIM_TEXT_COLOR] * len(owners))   # coloured by head later
        cells.owners = owners
        label = get_text(f"{count_word(d)} {name} offsets", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
        groups.add(VGroup(cells, label.next_to(cells, DOWN, buff=BUFF_SMALL)))
    groups.arrange(RIGHT, buff=0.35, aligned_edge=UP)
    in_head = get_named_count("in_proj_bias", counts["in_proj_bias"], "in_proj_bias")
    in_head.next_to(groups, UP, buff=0.25)
    in_group = VGroup(in_head, groups)

    n_out = counts["out_proj.bias"]
    out_cells = get_offset_cells(range(n_out), colors=[TEXT_COLOR] * n_out)
    out_label = get_text(f"{count_word(n_out)} output offsets", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
    out_label.next_to(out_cells, DOWN, buff=BUFF_SMALL)
    out_head = get_named_count("out_proj.bias", n_out, "out_proj.bias").next_to(out_cells, UP, buff=0.25)
    out_group = VGroup(out_head, out_cells, out_label)

    blocks = VGroup(in_group, out_group).arrange(RIGHT, buff=1.0, aligned_edge=DOWN)

    total = VGroup(
        get_count(counts["in_proj_bias"], tag="total_in", font_size=BODY_SIZE + 4),
        get_text("+", font_size=BODY_SIZE + 4),
        get_count(counts["out_proj.bias"], tag="total_out", font_size=BODY_SIZE + 4),
        get_text("=", font_size=BODY_SIZE + 4),
        get_count(counts["total"], tag="total", font_size=BODY_SIZE + 4, color=SOURCE_COLOR),
        get_text("additional trainable scalars", font_size=BODY_SIZE - 2),
    ).arrange(RIGHT, buff=0.2)
    align_baseline(total[-1], baseline_y(total[0]))

    swatches = VGroup()
    for i, name in zip(range(1, bias.num_heads + 1), HEAD_NAMES):
        sw = Square(side_length=0.24).set_stroke(head_color(i), 1.5).set_fill(head_color(i), 0.55)
        swatches.add(VGroup(sw, get_text(f"head {i} ({name})", font_size=LABEL_SIZE)).arrange(RIGHT, buff=0.12))
    slice_note = VGroup(
        get_text("each head’s Q/K/V bias slice has width", font_size=LABEL_SIZE),
        get_count(per_head, tag="slice_width", font_size=LABEL_SIZE),
    ).arrange(RIGHT, buff=0.1)
    align_baseline(slice_note[1], baseline_y(slice_note[0]))
    legend = VGroup(*swatches, slice_note).arrange(RIGHT, buff=0.45)
    kv_note = VGroup(get_mono("add_bias_kv=True", font_size=LABEL_SIZE + 2, color=DIM_TEXT_COLOR),
                     get_text("(appends a learned row to K and to V)", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR),
                     get_text("≠", font_size=BODY_SIZE, color=DIM_TEXT_COLOR),
                     get_mono("bias=True", font_size=LABEL_SIZE + 2, color=DIM_TEXT_COLOR)).arrange(RIGHT, buff=0.3)
    # every projection gets its own offset: the four sums the flag turns on
    projections = VGroup(*(get_text(f"{out} = {inp}·{w} + {b}", font_size=LABEL_SIZE,
                                    t2c={b: BIAS_COLOR})
                           for out, inp, w, b in (("q", "e", "W_Q", "b_Q"), ("k", "e", "W_K", "b_K"),
                                                  ("v", "e", "W_V", "b_V"),
                                                  ("Δe", f"[m{sup(1)}|m{sup(2)}]", "W_O", "b_O"))))
    projections.arrange(RIGHT, buff=0.6)

    layout = VGroup(code, projections, blocks, total, legend, kv_note).arrange(DOWN, buff=0.28)
    # bias=True and bias=False share one frame: only the word changes
    wide = code_off.frame.width
    code.frame.become(RoundedRectangle(corner_radius=0.12, width=wide, height=code.frame.height)
                      .set_stroke(DIM_TEXT_COLOR, 1.5).set_fill(BACKGROUND, 0)
                      .move_to(code.frame, aligned_edge=LEFT))
    code_off.move_to(code, aligned_edge=LEFT)
    layout.add(code_off)          # moves with the layout; shown only when bias=False replaces the line
    layout.code, layout.code_off = code, code_off
    layout.projections = projections
    layout.in_group, layout.out_group, layout.total = in_group, out_group, total
    layout.query_key_value = groups
    layout.legend, layout.kv_note = legend, kv_note
    layout.counts = VGroup(in_head.count, out_head.count)
    return layout


def get_library_code(ws):
    """The library call that reproduces the worksheet's attention update (as lesson_data.parity runs it)."""
    n, d = ws.E.shape
    heads = len(ws.heads)
    return get_code_panel([
        "mha = nn.MultiheadAttention(",
        f"    embed_dim={d}, num_heads={heads}, bias=False,",
        "    batch_first=True, dtype=torch.float64)",
        ("delta_E, A = mha(E, E, E,", f"# E: {format_shape((1, n, d))}"),
        ("    attn_mask=future,", "# True = blocked"),
        "    need_weights=True,",
        "    average_attn_weights=False)",
        f"# delta_E: {format_shape((1, n, d))}   A: {format_shape((1, heads, n, n))}",
    ], font_size=LABEL_SIZE)


def get_library_boundary(diagram) -> VGroup:
    """nn.MultiheadAttention drawn on the recap diagram: a dashed frame around what the one call
    computes (both heads, the concat and W_O: E goes in, ΔE comes out), under the residual's line,
    so E, the residual's sum, E′ and the MLP stay outside it. Parts: `frame`, `label`, `inside`
    (the core boxes it holds), `outside` (those it leaves out)."""
    def core(s):
        return s.box if hasattr(s, "box") else s

    inside = VGroup(diagram.heads, diagram.concat, diagram.w_o, diagram.delta)
    left = (core(diagram.e_box).get_right()[0] + diagram.heads.get_left()[0]) / 2
    right = (core(diagram.delta).get_right()[0] + diagram.plus.circle.get_left()[0]) / 2
    top = diagram.residual[0].legs[1].get_center()[1] - 0.12            # under the residual's line
    bottom = inside.get_bottom()[1] - 0.15
    box = Rectangle(width=right - left, height=top - bottom).move_to([(left + right) / 2, (top + bottom) / 2, 0])
    frame = DashedVMobject(box, num_dashes=110).set_stroke(SOURCE_COLOR, 2.5)
    label = get_mono("nn.MultiheadAttention", font_size=LABEL_SIZE, color=SOURCE_COLOR)
    label.next_to(box, DOWN, buff=0.12).align_to(box, RIGHT)
    group = VGroup(frame, label)
    group.frame, group.label, group.box = frame, label, box
    group.inside = [core(diagram.concat), core(diagram.w_o), core(diagram.delta), *(h.box for h in diagram.heads)]
    group.outside = [core(diagram.e_box), diagram.plus.circle, core(diagram.e_prime), core(diagram.mlp)]
    return group


def get_position_rows_note(diagram, boundary) -> Text:
    """Under E, outside the library layer (below its frame): E is already the token rows plus the
    position rows when it goes in."""
    note = get_text("E = token rows\n+ position rows", font_size=SMALL_SIZE, color=SOURCE_COLOR, line_spacing=0.8)
    note.align_to(diagram.e_box.box, LEFT).align_to(boundary.box.get_bottom() + DOWN * 0.12, UP)
    if note.get_left()[0] < -FRAME_RIGHT_SAFE:
        note.shift(RIGHT * (-FRAME_RIGHT_SAFE - note.get_left()[0]))
    return note


def get_cell_grid(colors: np.ndarray, side: float = 0.16) -> VGroup:
    """An n × n grid of flat colours (RGB 0–255), cells of one colour merged into one VMobject.

    Merging keeps fades cheap (copying a mask triangle is one mobject, not 45 squares); the cell
    outlines are drawn in the background colour so the grid still reads as cells.
    """
    n_rows, n_cols = colors.shape[:2]
    by_color: dict = {}
    for i in range(n_rows):
        for j in range(n_cols):
            by_color.setdefault(rgb_hex(colors[i, j]), []).append((i, j))
    grid = VGroup()
    for hex_color, cells in by_color.items():
        shape = VMobject()
        for i, j in cells:
            square = Square(side_length=side).move_to([j * side, -i * side, 0])
            shape.append_points(square.points)
        shape.set_fill(hex_color, 1.0).set_stroke(BACKGROUND, 1)
        grid.add(shape)
    grid.side = side
    return grid


def get_mask_grid(n: int, side: float = 0.16) -> VGroup:
    """attn_mask=future drawn n × n: True (blocked, mask colour) above the diagonal, allowed light."""
    allowed = np.array(hex_rgb(DIM_TEXT_COLOR), dtype=float)
    blocked = np.array(hex_rgb(MASK_COLOR), dtype=float)
    colors = np.array([[blocked if j > i else allowed for j in range(n)] for i in range(n)])
    return get_cell_grid(colors, side)


GRID_SIDE = 2.2   # the library shot's attention pictures: 0.22 a cell for ten tokens


def get_grid_axes(cell_center, n: int, *, rows: bool = True, cols: bool = True, size: float = 16) -> VGroup:
    """Position numbers beside an n × n picture: receivers down the left, sources along the top
    (every position for n <= 10, else every fifth and the last: lesson_data.joining.axis_ticks),
    with the axes named."""
    from lesson_data.joining import axis_ticks

    ticks, col_ticks = axis_ticks(n), axis_ticks(n, most=9)     # "9 10" would touch at this size
    labels = VGroup()
    labels.rows, labels.cols = VGroup(), VGroup()
    left = cell_center(0, 0)[0] - (cell_center(0, 1)[0] - cell_center(0, 0)[0] if n > 1 else 0.2) / 2
    top = cell_center(0, 0)[1] + (cell_center(0, 0)[1] - cell_center(1, 0)[1] if n > 1 else 0.2) / 2
    for i in ticks:
        if rows:
            t = get_text(str(i + 1), font_size=size, color=DIM_TEXT_COLOR)
            labels.rows.add(t.move_to([left - 0.08, cell_center(i, 0)[1], 0], aligned_edge=RIGHT))
    for i in col_ticks:
        if cols:
            t = get_text(str(i + 1), font_size=size, color=DIM_TEXT_COLOR)
            labels.cols.add(t.move_to([cell_center(0, i)[0], top + 0.06, 0], aligned_edge=DOWN))
    labels.add(labels.rows, labels.cols)
    if cols:
        name = get_text("source j →", font_size=size, color=DIM_TEXT_COLOR)
        labels.col_name = name.next_to(labels.cols, UP, buff=0.08).align_to(labels.cols, LEFT)
        labels.add(name)
    if rows:
        name = get_text("receiver i →", font_size=size, color=DIM_TEXT_COLOR).rotate(-np.pi / 2)
        labels.row_name = name.next_to(labels.rows, LEFT, buff=0.08).align_to(labels.rows, UP)
        labels.add(name)
    return labels


def get_mask_picture(n: int) -> VGroup:
    """attn_mask=future at a readable size: the grid, position numbers on both axes, a key."""
    side = GRID_SIDE / n
    grid = get_mask_grid(n, side)
    axes = get_grid_axes(lambda i, j: grid.get_corner(UP + LEFT) + np.array([(j + 0.5) * side, -(i + 0.5) * side, 0]),
                         n)
    name = get_mono("attn_mask = future", font_size=LABEL_SIZE)
    key = VGroup()
    for color, text in ((MASK_COLOR, "True: blocked (a future source)"), (DIM_TEXT_COLOR, "False: allowed")):
        sw = Square(side_length=0.24).set_stroke(BACKGROUND, 1).set_fill(color, 1)
        key.add(VGroup(sw, get_text(text, font_size=16, color=DIM_TEXT_COLOR)).arrange(RIGHT, buff=0.12))
    key.arrange(DOWN, buff=0.12, aligned_edge=LEFT)
    body = VGroup(grid, axes)
    name.next_to(body, UP, buff=0.2)
    key.next_to(body, DOWN, buff=0.25).align_to(body, LEFT)
    picture = VGroup(name, body, key)
    picture.grid, picture.axes, picture.key = grid, axes, key
    return picture


def get_weight_picture(weights, color: str, title: str, title_color: str, *, rows: bool = True) -> VGroup:
    """One [n, n] weight grid as a heat map (the lesson's one heat scale), numbered axes, a name."""
    from scenes.blocks.heat_map import get_heat_map

    n = weights.shape[0]
    hm = get_heat_map(weights, color=color, side=GRID_SIDE)
    axes = get_grid_axes(hm.cell_center, n, rows=rows)
    name = get_mono(title, font_size=LABEL_SIZE, color=title_color)
    body = VGroup(hm, axes)
    name.next_to(body, UP, buff=0.15).align_to(hm, LEFT)
    picture = VGroup(name, body)
    picture.map, picture.axes, picture.name = hm, axes, name
    return picture


def get_heat_key(color: str) -> VGroup:
    """One line under the grids: the heat maps' steps from weight 0 to 1 (brightness = weight) and
    the future cells' shade."""
    from scenes.blocks.heat_map import FUTURE_COLOR, HEAT_LEVELS, level_hex

    strip = VGroup(*(Rectangle(width=1.0 / (HEAT_LEVELS + 1), height=0.2).set_stroke(level_hex(k, color), 0.6)
                     .set_fill(level_hex(k, color), 1) for k in range(HEAT_LEVELS + 1))).arrange(RIGHT, buff=0)
    outline = Rectangle(width=strip.width, height=strip.height).set_stroke(DIM_TEXT_COLOR, 1).move_to(strip)
    says = get_text("brightness = weight:", font_size=16, color=DIM_TEXT_COLOR)
    low = get_text("0", font_size=16, color=DIM_TEXT_COLOR)
    high = get_text("1", font_size=16, color=DIM_TEXT_COLOR)
    blocked = Rectangle(width=0.3, height=0.2).set_stroke(DIM_TEXT_COLOR, 1).set_fill(FUTURE_COLOR, 1)
    future = get_text("future", font_size=16, color=DIM_TEXT_COLOR)
    key = VGroup(says, low, VGroup(strip, outline), high, blocked, future).arrange(RIGHT, buff=0.1)
    blocked.shift(RIGHT * 0.3)
    future.shift(RIGHT * 0.3)
    return key


def get_copy_picture(plan, unit: float = 0.15) -> VGroup:
    """Where the scratch matrices go in torch.nn.MultiheadAttention (lesson_data.parity.copied_parameters):
    each joined, transposed matrix as a [4, 4] block (rows striped by the head whose output coordinates
    they make), on the left with its name; its slot in the PyTorch parameter on the right, stacked
    into in_proj_weight [12, 4], and out_proj.weight [4, 4]."""
    title = get_text("each matrix transposed: torch stores [out, in]", font_size=16, color=DIM_TEXT_COLOR)

    def block(rows, cols, heads):
        cells = VGroup()
        for r in range(rows):
            color = head_color(heads[r * len(heads) // rows]) if heads else TEXT_COLOR
            cells.add(Rectangle(width=cols * unit, height=unit).set_stroke(BACKGROUND, 1).set_fill(color, 0.6))
        cells.arrange(DOWN, buff=0)
        frame = Rectangle(width=cols * unit, height=rows * unit).set_stroke(DIM_TEXT_COLOR, 1.5).move_to(cells)
        return VGroup(cells, frame)

    sources, source_labels, slots, target_labels, arrows = VGroup(), VGroup(), VGroup(), VGroup(), VGroup()
    x_src, x_dst, y = 0.0, 2.2, 0.0
    for param in plan:
        top = y
        for part in param["parts"]:
            rows, cols = part["shape"]
            heads = list(part["heads"])
            blk = block(rows, cols, heads).move_to([x_src, y - rows * unit / 2, 0])
            if heads:
                name = "[" + " | ".join(f"{part['name']}{sup(h)}" for h in heads) + "]ᵀ"
            else:
                name = f"{part['name']}ᵀ"
            label = VGroup(get_text(name, font_size=LABEL_SIZE),
                           get_text(format_shape((rows, cols)), font_size=16, color=DIM_TEXT_COLOR))
            label.arrange(DOWN, buff=0.06, aligned_edge=RIGHT).next_to(blk, LEFT, buff=0.2)
            slot = block(rows, cols, heads).move_to([x_dst, y - rows * unit / 2, 0])
            sources.add(blk)
            source_labels.add(label)
            slots.add(slot)
            arrows.add(get_arrow(blk.get_right() + RIGHT * 0.1, slot.get_left() + LEFT * 0.1, color=DIM_TEXT_COLOR))
            y -= rows * unit
        whole = param["shape"]
        target = VGroup(get_mono(param["name"], font_size=LABEL_SIZE),
                        get_text(format_shape(whole), font_size=16, color=DIM_TEXT_COLOR))
        target.arrange(DOWN, buff=0.06, aligned_edge=LEFT)
        target.next_to([x_dst + whole[1] * unit / 2, (top + y) / 2, 0], RIGHT, buff=0.2)
        target_labels.add(target)
        y -= 0.55
    # the sources sit a little apart, so each one's move into its slot is seen
    for k, (blk, label) in enumerate(zip(sources, source_labels)):
        VGroup(blk, label).shift(DOWN * 0.12 * k)
    for k, arrow in enumerate(arrows):
        arrow.put_start_and_end_on(sources[k].get_right() + RIGHT * 0.1, slots[k].get_left() + LEFT * 0.1)
    title.next_to(VGroup(source_labels, slots), UP, buff=0.3).align_to(source_labels, LEFT)
    picture = VGroup(title, sources, source_labels, arrows, slots, target_labels)
    picture.title, picture.sources, picture.source_labels = title, sources, source_labels
    picture.arrows, picture.slots, picture.target_labels = arrows, slots, target_labels
    return picture


def get_parity_table(parity) -> VGroup:
    rows = [
        ("max |ΔE(PyTorch) − ΔE(scratch)|", parity["max_abs_delta_E_diff"], "delta_E_diff", None, TEXT_COLOR),
    ]
    for k, diff in enumerate(parity["max_abs_weight_diff"]):
        rows.append((f"max |A{sup(k + 1)}(PyTorch) − A{sup(k + 1)}(scratch)|", diff, "weight_diff", k,
                     head_color(k + 1)))
    labels, numbers = VGroup(), VGroup()
    for text, value, tag, index, color in rows:
        labels.add(get_text(text, font_size=LABEL_SIZE, color=color))
        numbers.add(get_sci_number(value, tag=tag, index=index, font_size=LABEL_SIZE + 4, color=color))
    labels.arrange(DOWN, buff=0.35, aligned_edge=LEFT)
    for label, number in zip(labels, numbers):
        number.next_to(label, RIGHT, buff=0.35)
        align_baseline(number, baseline_y(label))
    numbers_x = max(m.get_left()[0] for m in numbers)
    for m in numbers:
        m.shift(RIGHT * (numbers_x - m.get_left()[0]))
    table = VGroup(labels, numbers)
    table.labels, table.numbers = labels, numbers
    return table


class BiasesAndLibraryLayer(LessonScene):
    """Scene 16: a projection bias is shared across positions (unlike position rows) and shifts head
    1's receiver row; bias=True adds 16 scalars; what nn.MultiheadAttention does and does not do;
    the scratch weights copied into PyTorch reproduce ΔE and both heads' weights (measured)."""

    def construct(self):
        ws = self.ws = scene_worksheet()
        self.bias = bias_illustration(sentence_from_env())
        self.title = get_title("Biases and the library layer")
        self.show_aside()
        # --- Shot 1: a bias is shared across positions; position rows are not -----------------
        self.shot("shared bias")
        self.show_bias_on_query(ws)
        self.show_shared_bias(ws)
        self.show_position_rows(ws)
        self.show_zero_input(ws)
        # --- Shot 2: the receiver's weights shift ----------------------------------------------
        self.shot("shifted weights")
        self.show_weights_without(ws)
        self.show_weights_with(ws)
        self.show_biggest_shift(ws)
        self.show_why_no_bias()
        # --- Shot 3: bias=True adds 16 scalars -------------------------------------------------
        self.shot("sixteen scalars")
        self.clear_stage(self.title)
        self.counts = get_bias_layout(self.bias)
        self.counts.move_to(CONTENT_CENTER).align_to(UP * (CONTENT_TOP - 0.05), UP)
        self.show_bias_flag()
        self.show_input_offsets()
        self.show_output_offsets()
        self.show_head_slices()
        self.show_add_bias_kv()
        self.show_ours_omit()
        # --- Shot 4: what nn.MultiheadAttention does and does not do ---------------------------
        self.shot("library layer")
        self.clear_stage(self.title)
        self.build_library(ws)
        self.show_library_call(ws)
        self.show_inside()
        self.show_not_inside()
        self.show_mask(ws)
        self.show_per_head_weights(ws)
        self.show_diagnostic_only()
        # --- Shot 5: the measured parity -------------------------------------------------------
        self.shot("parity")
        self.build_parity(ws)
        self.show_copy(ws)
        self.show_delta_parity()
        self.show_weight_parity()

    # shot 1 -----------------------------------------------------------------------------------
    def show_aside(self):
        """The scene sits between the cheque sentence's payoff and the recap: with its title, it says
        it is an aside, and what its two parts are; the list gives way to the bias picture."""
        agenda = VGroup(*(get_text(line, font_size=BODY_SIZE, color=TEXT_COLOR)
                          for line in ("1   projection biases", "2   the library layer")))
        agenda.arrange(DOWN, buff=0.4, aligned_edge=LEFT).move_to(CONTENT_CENTER)
        with self.beat("Before the recap, two details of real code."):
            self.play(FadeIn(self.title), LaggedStart(*(FadeIn(line, shift=0.1 * UP) for line in agenda),
                                                      lag_ratio=0.4))
        self.give_way(agenda)

    def show_bias_on_query(self, ws):
        bias, n = self.bias, ws.n
        query = self.query = get_query_with_bias(bias, n)
        who = get_text(f"head 1 ({ws.heads[0].name}) at the receiver “{receiver_word(ws)}”, row {n}",
                       font_size=LABEL_SIZE, color=head_color(1))
        shared = self.shared = get_shared_versus_position(ws)
        zero = self.zero = get_text(f"zero input:  0 · W_Q{sup(1)} + {B_Q} = {B_Q}", font_size=LABEL_SIZE,
                                    t2c={B_Q: BIAS_COLOR})
        page = VGroup(VGroup(who, query).arrange(DOWN, buff=0.3, aligned_edge=LEFT), shared, zero)
        page.arrange(DOWN, buff=0.5, aligned_edge=LEFT).move_to(CONTENT_CENTER + UP * 0.3)
        self.who = who
        # alone on the stage the sum is drawn large; it moves up to make room for the rows
        head = self.query_head = VGroup(who, query)
        self.query_home = head.get_center()
        head.scale(self.QUERY_SCALE).move_to(CONTENT_CENTER + UP * 0.2)
        with self.beat(f"A projection bias adds one learned vector after the projection: "
                       f"here an illustrative {B_Q} on head 1’s query.",
                       spoken="A projection bias adds one learned vector after the projection: here an illustrative "
                              "bias on head one's query."):
            self.play(FadeIn(who), FadeIn(query.q))
            self.play(FadeIn(query.ops[0]), FadeIn(query.b, shift=0.2 * LEFT))
            self.play(FadeIn(query.ops[1]), FadeIn(query.sum, shift=0.2 * LEFT))

    QUERY_SCALE = 1.3

    def show_shared_bias(self, ws):
        # the caption says "every position"; the notes' fine print adds "(and batches)"
        note = self.fine_print = place_fine_print("A projection bias is shared across token positions (and batches).")
        with self.beat(f"The same {B_Q} is added at every position.",
                       spoken="The same bias is added at every position."):
            self.play(self.query_head.animate.scale(1 / self.QUERY_SCALE).move_to(self.query_home), run_time=0.8)
            self.play(FadeIn(self.shared.bias_column, shift=0.1 * DOWN), FadeIn(note))

    def show_position_rows(self, ws):
        with self.beat("A position row is different: each position adds its own row."):
            self.play(FadeIn(self.shared.position_column, shift=0.1 * DOWN))
            self.play(Indicate(VGroup(*(line for line in self.shared.position_column[1:]
                                        if line.original_text != "⋮")), color=SOURCE_COLOR, scale_factor=1.05))

    def show_zero_input(self, ws):
        with self.beat("And a bias shifts the projection even for a zero input.", look=0.9):
            self.play(FadeIn(self.zero, shift=0.1 * UP))

    # shot 2 -----------------------------------------------------------------------------------
    def show_weights_without(self, ws):
        from lesson_data.joining import sum_of_shown

        bias, n = self.bias, ws.n
        self.biggest_shift = most_shifted_source(bias)
        listed = listed_rows(bias.weights_without, bias.weights_with, keep=(self.biggest_shift,))
        shown_sums = []
        for k, row in enumerate((bias.weights_without, bias.weights_with)):
            shown = [row[j] for j in listed.listed] + ([listed.pooled_sums[k]] if listed.pooled else [])
            shown_sums.append(sum_of_shown(shown, 3))
        table = self.table = get_bias_weight_table(list(ws.tokens), bias.weights_without, bias.weights_with,
                                                   listed=listed, scores=(bias.scores_without, bias.scores_with),
                                                   row_height=0.3, shown_sums=shown_sums,
                                                   score_title=f"q·k (before ÷√{ws.heads[0].W_Q.shape[1]})")
        title = get_text(f"A{sup(1)}, row {n}: each source's score and weight", font_size=LABEL_SIZE,
                         color=head_color(1))
        self.listed = listed
        title.next_to(table, UP, buff=0.2).align_to(table.labels, LEFT)
        left = VGroup(title, table)
        left.to_edge(LEFT, buff=0.55).align_to(UP * (CONTENT_TOP - 0.1), UP)
        # the query and its bias move to the right, beside the table
        who = get_text(f"head 1’s query at “{receiver_word(ws)}”, row {n}", font_size=LABEL_SIZE,
                       color=head_color(1))
        target = VGroup(who, self.query.copy())
        target.arrange(DOWN, buff=0.25, aligned_edge=LEFT)
        target.next_to(left, RIGHT, buff=0.7).align_to(left, UP)
        if target.get_right()[0] > FRAME_RIGHT_SAFE:
            target.shift(LEFT * (target.get_right()[0] - FRAME_RIGHT_SAFE))
        # the bars continue each row of the table to the right: a row reads across, word to bars
        row_ys = [row[1].get_y() for row in table.rows]
        bar_left = table.extent.get_right()[0] + 0.25
        chart = self.chart = get_weight_bars(bias.weights_without, bias.weights_with, row_ys, listed=listed,
                                             bar_max_width=FRAME_RIGHT_SAFE - bar_left - 0.1)
        chart.shift(RIGHT * bar_left)
        chart.head.next_to(VGroup(table.sum_without, table.sum_with), RIGHT, buff=0.6).align_to(bar_left * RIGHT, LEFT)
        chart.head.set_y((table.shown_with.get_y() + table.sum_with.get_y()) / 2)
        with self.transition("the query moves beside the weights"):
            self.play(FadeOut(VGroup(self.shared, self.zero, self.fine_print)),
                      ReplacementTransform(VGroup(self.who, self.query), target), run_time=0.9)
        self.who, self.query_moved = target[0], target[1]
        self.query = target[1]
        self.query.q, self.query.b, self.query.sum = target[1][0], target[1][2], target[1][4]
        without = VGroup(title, table.head_without, table.rule, table.sum_label, table.sum_without,
                         table.shown_label, table.shown_without,
                         table.group_heads, table.score_heads[0], *table.parts_without)
        with self.beat(f"Without a bias, head 1’s row {n} is the worksheet’s attention row."):
            self.play(FadeIn(without), run_time=1.0)
            self.play(FadeIn(VGroup(chart.axis, chart.head[0], chart.key[0])),
                      LaggedStart(*(GrowFromEdge(bar, LEFT) for bar in chart.bars_without), lag_ratio=0.05),
                      run_time=1.0)

    def show_weights_with(self, ws):
        table, chart = self.table, self.chart
        with_parts = VGroup(table.head_with, table.sum_with, table.shown_with, table.score_heads[1],
                            *table.parts_with)
        note = self.fine_print = place_fine_print(ROUNDING_NOTE)
        with self.beat(f"With {B_Q}, the scores change, so the whole row shifts; it still sums to one.",
                       spoken="With the bias, the scores change, so the whole row shifts; it still sums to one."):
            self.play(Indicate(self.query.sum, color=BIAS_COLOR, scale_factor=1.08))
            self.play(FadeIn(with_parts, shift=0.15 * LEFT), FadeIn(chart.key[1]), FadeIn(note),
                      LaggedStart(*(GrowFromEdge(bar, LEFT) for bar in chart.bars_with), lag_ratio=0.05),
                      run_time=1.2)

    def show_biggest_shift(self, ws):
        bias = self.bias
        j = self.biggest_shift
        # one box across the row: the word, its scores and weights, and its bars
        right = max(self.chart.rows[self.table.sources.index(j)].get_right()[0] + 0.15,
                    self.table.extent.get_right()[0] + 0.4)
        box = self.shift_box = get_row_box(self.table, j, min(right, FRAME_RIGHT_SAFE))
        word = ws.tokens[j]
        w0, w1 = bias.weights_without[j], bias.weights_with[j]
        k = self.table.sources.index(j)
        # the cause beside the result: b_Q · k, what the bias adds to this source's score (its key
        # points the bias's way), under the bars' key, right of the fine print
        terms = bias_score_terms(bias)
        places = self.table.score_places
        cause = self.bias_term = get_bias_term(bias, j, word, terms[j], places)
        cause.next_to(self.chart.key, DOWN, buff=0.2).align_to(self.fine_print, DOWN)
        cause.align_to([self.fine_print.get_right()[0] + 0.3, 0, 0], LEFT)      # beside the fine print
        extreme = extreme_of(terms, j)
        rank = f", the {extreme}" if extreme else ""
        added = fmt(terms[j], places)
        with self.beat(f"“{word}” moves most: the bias adds b_Q¹ · k to each score, for “{word}” {added}{rank}; "
                       f"its weight {change_word(w0, w1)} from {fmt(w0)} to {fmt(w1)}.",
                       spoken=f"“{word}” moves most: the bias adds {added} to its score{rank}; its weight "
                              f"{change_word(w0, w1)} from {fmt(w0)} to {fmt(w1)}."):
            self.play(Create(box))
            # the bias row and the source's key come out of the query sum and the source's row
            self.play(FadeIn(cause, shift=DOWN * 0.15),
                      Indicate(VGroup(self.table.scores_with[k], self.table.with_bias[k]),
                               color=SOURCE_COLOR, scale_factor=1.15),
                      Indicate(self.chart.bars_with[k], color=SOURCE_COLOR, scale_factor=1.05))

    def show_why_no_bias(self):
        rounded = self.fine_print
        note = self.fine_print = place_fine_print("Omitting biases is not a general claim that bias-free attention is better.",
                                                  width=SAFE_WIDTH)
        with self.beat("We leave the attention biases out only to keep this example simple; the MLP keeps its own."):
            self.play(FadeOut(rounded), FadeOut(self.bias_term), FadeIn(note))     # the note takes its row

    # shot 3 -----------------------------------------------------------------------------------
    FLAG_SCALE = 1.15

    def show_bias_flag(self):
        c = self.counts
        # alone on the stage the call and its four sums are drawn large; they move up for the offsets
        head = self.flag_head = VGroup(c.code, c.projections)
        self.flag_home = head.get_center()
        head.scale(self.FLAG_SCALE).move_to(CONTENT_CENTER + UP * 0.2)
        note = self.fine_print = place_fine_print("bias=True is the default of torch.nn.MultiheadAttention.")
        with self.beat("In PyTorch, one flag, bias=True, adds such offsets to every projection.",
                       spoken="In PyTorch, switching on one flag adds such offsets to every projection."):
            self.play(FadeIn(c.code), FadeIn(note))
            self.play(LaggedStart(*(FadeIn(p, shift=0.1 * DOWN) for p in c.projections), lag_ratio=0.3),
                      run_time=1.2)

    def show_input_offsets(self):
        c, d = self.counts, self.bias.d_model
        n_in = self.bias.extra_parameters["in_proj_bias"]
        with self.beat(f"With width {count_word(d)}: {count_word(d)} query, {count_word(d)} key and "
                       f"{count_word(d)} value offsets, {n_in} in all, stored together in in_proj_bias.",
                       spoken=f"With width {count_word(d)}: {count_word(d)} query, {count_word(d)} key and "
                              f"{count_word(d)} value offsets, {n_in} in all, stored together as one input bias."):
            self.play(self.flag_head.animate.scale(1 / self.FLAG_SCALE).move_to(self.flag_home), run_time=0.7)
            self.play(LaggedStart(*(FadeIn(g, shift=0.1 * UP) for g in c.query_key_value), lag_ratio=0.4),
                      run_time=1.5)
            self.play(FadeIn(c.in_group[0]))

    def show_output_offsets(self):
        c, counts = self.counts, self.bias.extra_parameters
        with self.beat(f"Plus {count_word(counts['out_proj.bias'])} output offsets in out_proj.bias: "
                       f"{counts['total']} additional trainable scalars.",
                       spoken=f"Plus {count_word(counts['out_proj.bias'])} output offsets: {counts['total']} "
                              "bias parameters in all."):
            self.play(FadeIn(c.out_group, shift=0.1 * UP))
            self.play(FadeIn(c.total))

    def show_head_slices(self):
        c, bias = self.counts, self.bias
        per_head = bias.d_model // bias.num_heads
        with self.beat(f"Within each head, each bias slice has width {count_word(per_head)}."):
            self.play(FadeIn(c.legend))
            self.play(*(cell.animate.set_fill(head_color(h), 0.55).set_stroke(head_color(h), 1.5)
                        for g in c.query_key_value for cell, h in zip(g[0], g[0].owners)), run_time=1.2)

    def show_add_bias_kv(self):
        with self.beat("The add_bias_kv option adds extra key and value rows; it is not this flag.",
                       spoken="The option on screen adds extra key and value rows; it is not this flag."):
            self.play(FadeIn(self.counts.kv_note))

    def show_ours_omit(self):
        c = self.counts
        default = self.fine_print
        note = self.fine_print = place_fine_print(
            "Both our scratch implementation and trained attention variants omit attention projection biases; "
            "their prediction MLP layers retain biases.")
        from scenes.blocks.code_panel import mono_advance

        line = c.code_off.lines[0]
        source = c.code_off.source[0].lstrip(" ")
        advance = mono_advance(LABEL_SIZE + 2)          # one character cell of the code face
        x0 = line.get_left()[0] + source.index("False") * advance
        # underlined, not boxed: a box would touch "=" and ")" (the code face has no gap between cells)
        box = self.false_box = Rectangle(width=5 * advance - 0.04, height=0.045)
        box.move_to([x0 + 2.5 * advance, line.get_bottom()[1] - 0.09, 0])
        box.set_stroke(width=0).set_fill(SOURCE_COLOR, 1)
        # every offset crossed out, the 16 too: with bias=False none of them exists
        cells = [*(g[0] for g in c.query_key_value), c.out_group[1]]
        crosses = self.crosses = VGroup(*(Line(g.get_corner(DOWN + LEFT) + 0.06 * (LEFT + DOWN),
                                               g.get_corner(UP + RIGHT) + 0.06 * (RIGHT + UP))
                                          .set_stroke(TEXT_COLOR, 3) for g in cells))
        total = c.total[4]
        crosses.add(Line(total.get_left() + 0.08 * LEFT, total.get_right() + 0.08 * RIGHT).set_stroke(TEXT_COLOR, 3))
        none = self.no_extra = VGroup(get_mono("bias=False", font_size=LABEL_SIZE + 2),
                                      get_text("→ no extra scalars", font_size=LABEL_SIZE + 2)).arrange(RIGHT, buff=0.2)
        none.move_to(c.kv_note)
        with self.beat("Our attention layers leave these biases out: in code, bias=False.",
                       spoken="Our attention layers leave these biases out: in code, the bias flag is set to false."):
            self.play(ReplacementTransform(c.code.lines, c.code_off.lines), FadeIn(box),
                      FadeOut(default), FadeOut(c.kv_note), FadeIn(none))
            self.play(*(g.animate.set_opacity(0.3) for g in cells), Create(crosses),
                      c.projections.animate.set_opacity(0.35), FadeIn(note), run_time=1.2)

    # shot 4 -----------------------------------------------------------------------------------
    def build_library(self, ws):
        n = ws.n
        # first the layer on the recap's diagram (scene 17 rebuilds it): what the call holds, what it leaves
        diagram = self.library_diagram = get_recap_diagram(ws)
        diagram.move_to(CONTENT_CENTER + UP * 0.35)
        self.boundary = get_library_boundary(diagram)
        self.position_note = get_position_rows_note(diagram, self.boundary)
        # then the call itself, where the frame was; the pictures of its arguments beside it
        code = self.code = get_library_code(ws)
        code.to_edge(LEFT, buff=MARGIN).set_y(CONTENT_CENTER[1] + 0.4)
        from lesson_data.joining import averaged_attention

        # the right of the code panel holds one picture at a time: the mask, then the two heads' grids
        region_left, region_right = code.get_right()[0] + 0.5, FRAME_RIGHT_SAFE
        middle = (region_left + region_right) / 2
        self.mask_group = get_mask_picture(n)
        self.mask_group.move_to([middle, 0, 0]).align_to(code, UP)
        self.maps = VGroup(*(get_weight_picture(head.weights, head_color(head.index),
                                                f"A[0, {head.index - 1}]: head {head.index}\n(head index {head.index - 1})",
                                                head_color(head.index),
                                                rows=head.index == 1) for head in ws.heads))
        self.maps.arrange(RIGHT, buff=0.45, aligned_edge=DOWN)
        self.maps.move_to([middle, 0, 0]).align_to(code, UP)
        # average_attn_weights=True would return one grid: the heads' average (a diagnostic only)
        avg = self.average = get_weight_picture(averaged_attention(ws), TEXT_COLOR,
                                                "average_attn_weights=True:\ntheir average",
                                                TEXT_COLOR, rows=False)
        self.maps_wide = self.maps.copy().arrange(RIGHT, buff=0.45, aligned_edge=DOWN)
        trio = VGroup(self.maps_wide, avg).arrange(RIGHT, buff=0.8, aligned_edge=DOWN)
        trio.move_to(CONTENT_CENTER + UP * 0.3)
        self.same = get_text("ΔE is the same either way: each head’s message is mixed with its own grid",
                             font_size=LABEL_SIZE, color=TEXT_COLOR)
        self.same.next_to(trio, DOWN, buff=0.35)
        self.pictures = VGroup(self.mask_group, self.maps)
        # what the shades mean, one line under the grids (and above the three)
        key = self.heat_key = get_heat_key(TEXT_COLOR)     # neutral: one key for blue, orange and grey
        key.next_to(self.maps, DOWN, buff=0.3)
        if key.get_right()[0] > FRAME_RIGHT_SAFE:
            key.shift(LEFT * (key.get_right()[0] - FRAME_RIGHT_SAFE))
        self.heat_key_wide = key.copy().next_to(trio, UP, buff=0.3).get_center()

    def show_library_call(self, ws):
        d, b = self.library_diagram, self.boundary
        with self.beat("One library call computes the whole attention update, ΔE, and the weights."):
            self.play(LaggedStart(*(FadeIn(part) for part in (
                VGroup(d.e_box, d.links[:2]), d.heads, VGroup(d.links[2:4], d.concat, d.links[4], d.w_o,
                                                              d.links[5], d.delta),
                VGroup(d.links[6:], d.plus, d.residual, d.e_prime, d.last_row, d.last_row_box, d.last_shape,
                       d.mlp, d.mlp_shapes, d.prediction))), lag_ratio=0.3), run_time=1.6)
            self.play(Create(b.frame), FadeIn(b.label, shift=0.1 * UP), run_time=1.2)

    def show_inside(self):
        d = self.library_diagram
        with self.beat("Inside it: each head’s Q, K and V, the masked softmax, the concat and W_O."):
            self.play(LaggedStart(*(Indicate(m, color=SOURCE_COLOR, scale_factor=1.06)
                                    for m in (*d.heads, d.concat, d.w_o)), lag_ratio=0.45), run_time=2.2)

    def show_not_inside(self):
        # the notes' "does not add position embeddings, the residual or the vocabulary classifier",
        # each pointed at where it is drawn: outside the frame
        d = self.library_diagram
        with self.beat("Not inside: the position rows, the residual, and the prediction MLP."):
            self.play(FadeIn(self.position_note, shift=0.1 * UP), Indicate(d.e_box, color=SOURCE_COLOR))
            self.play(Indicate(VGroup(d.residual, d.plus), color=SOURCE_COLOR, scale_factor=1.05))
            self.play(Indicate(VGroup(d.mlp, d.mlp_shapes), color=SOURCE_COLOR, scale_factor=1.1))

    def show_mask(self, ws):
        line = self.code.find("attn_mask")
        bar = self.code_bar = self.code.get_line_box(line, color=SOURCE_COLOR)
        # the frame on the diagram becomes the call's code; the rest of the diagram gives way
        with self.transition("the layer's frame becomes its call"):
            rest = self.stand_in(VGroup(self.library_diagram, self.position_note))
            frame = self.stand_in(self.boundary)
            self.play(FadeOut(rest), ReplacementTransform(frame, self.code), run_time=1.2)
        with self.beat("attn_mask=future blocks every source after the receiver.",
                       spoken="The mask argument blocks every source after the receiver."):
            self.play(FadeIn(bar), FadeIn(self.mask_group))

    def show_per_head_weights(self, ws):
        line = self.code.find("average_attn_weights")
        bar = self.code.get_line_box(line, color=SOURCE_COLOR)
        with self.beat("average_attn_weights=False returns each head’s weights separately.",
                       spoken="One more argument returns each head's weights separately, not their average.",
                       look=0.3):
            self.play(ReplacementTransform(self.code_bar, bar), FadeOut(self.mask_group))
            self.play(FadeIn(self.maps), FadeIn(self.heat_key))
        self.code_bar = bar

    def show_diagnostic_only(self):
        note = self.fine_print = place_fine_print(
            "average_attn_weights=False returns each head’s weight grid separately; it changes the returned "
            "diagnostic weights, not how the head messages combine.")
        with self.beat("It changes only the weights we get back, not how the messages combine.", look=1.6):
            self.play(*fade_out(self, self.code, self.code_bar), ReplacementTransform(self.maps, self.maps_wide),
                      self.heat_key.animate.move_to(self.heat_key_wide), FadeIn(note))
            self.play(FadeIn(self.average, shift=0.2 * LEFT), FadeIn(self.same, shift=0.1 * UP))

    # shot 5 -----------------------------------------------------------------------------------
    def build_parity(self, ws):
        from lesson_data.parity import copied_parameters, pytorch_parity  # imports torch: only when needed

        parity = self.parity = pytorch_parity(sentence_from_env())
        copy = self.copy_picture = get_copy_picture(copied_parameters())
        copy.align_to(LEFT * (FRAME_RIGHT_SAFE - 0.1), LEFT).align_to(UP * (CONTENT_TOP - 0.15), UP)
        head = get_text("PyTorch, with our weights", font_size=LABEL_SIZE + 2)
        table = self.parity_table = get_parity_table(parity)
        note = get_text(f"measured at render time:\n{parity['dtype']}, torch {parity['torch_version']}",
                        font_size=LABEL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.8)
        credit = get_text("See the PyTorch documentation:\ntorch.nn.MultiheadAttention",
                          font_size=LABEL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.8)
        block = VGroup(head, table, note, credit).arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        block.next_to(copy, RIGHT, buff=0.7).align_to(copy, UP)
        if block.get_right()[0] > FRAME_RIGHT_SAFE:
            block.shift(LEFT * (block.get_right()[0] - FRAME_RIGHT_SAFE))
        self.parity_head, self.parity_note, self.credit = head, note, credit

    def show_copy(self, ws):
        c = self.copy_picture
        # the maps give way to the copy picture as it comes in
        self.give_way(self.maps_wide, self.average, self.same, self.fine_print, self.heat_key)
        with self.beat("We copy our parameters into PyTorch and run the same sentence.", look=0.8):
            self.play(FadeIn(c.title), *(FadeIn(VGroup(blk, lab)) for blk, lab in zip(c.sources, c.source_labels)),
                      run_time=0.9)
            self.play(*(ReplacementTransform(blk.copy(), slot) for blk, slot in zip(c.sources, c.slots)),
                      FadeIn(c.arrows), FadeIn(c.target_labels), run_time=1.3)
            self.play(FadeIn(self.parity_head, shift=0.1 * DOWN), FadeIn(self.parity_note))

    def show_delta_parity(self):
        from lesson_data.library import said_sci

        t, p = self.parity_table, self.parity
        diff = p["max_abs_delta_E_diff"]
        # "differs by at most", not "agrees to": heard, "agrees to 9e-16" sounds like a tiny agreement
        with self.beat("ΔE agrees exactly." if diff == 0 else
                       f"ΔE differs by at most {fmt_sci(diff)}: floating-point rounding.",
                       spoken="Delta E agrees exactly." if diff == 0 else
                              f"Delta E differs by at most {said_sci(diff)}: floating-point rounding."):
            self.play(FadeIn(t.labels[0]), FadeIn(t.numbers[0], scale=1.2))

    def show_weight_parity(self):
        from lesson_data.library import said_all

        t, p = self.parity_table, self.parity
        diffs = p["max_abs_weight_diff"]
        if not any(diffs):
            text = spoken = "Both heads’ weights agree exactly too."
        else:
            shown = [fmt_sci(x) for x in diffs]
            # alike as shown: written once, as it is said ("3.3e-16 and 3.3e-16" read as a stutter)
            text = (f"Both heads’ weights differ by at most {shown[0]} each." if len(set(shown)) == 1 else
                    f"Both heads’ weights differ by at most {' and '.join(shown)}.")
            # alike at one digit: said once
            spoken = f"Both heads' weights differ by at most {said_all(diffs, each=True)}."
        with self.beat(text, spoken=spoken):
            self.play(LaggedStart(*(FadeIn(VGroup(label, number)) for label, number in zip(t.labels[1:], t.numbers[1:])),
                                  lag_ratio=0.4), FadeIn(self.credit))


# ============================================================================================
# Scene 17 — Recap and the loop
# ============================================================================================

RECAP_UNIT = 0.1


def get_head_stage(head) -> VGroup:
    """One head as a compact stage: its name, Q K → A, AV → H, and H's shape."""
    color = head_color(head.index)
    h = sup(head.index)
    name = get_text(f"head {head.index} ({head.name})", font_size=LABEL_SIZE, color=color)
    # V gives no weight: Q and K make A, and A mixes V into H (H = AV)
    inner = get_text(f"Q{h} K{h} → A{h},  A{h}V{h} → H{h}", font_size=LABEL_SIZE, color=color)
    shape = get_text(f"H{h} {format_shape(head.messages.shape)}", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    body = VGroup(inner, shape).arrange(DOWN, buff=0.08)
    box = RoundedRectangle(corner_radius=0.1, width=body.width + 0.3, height=body.height + 0.25)
    box.set_stroke(color, 2).set_fill(color, 0.12).move_to(body)
    name.next_to(box, UP, buff=0.06)
    stage = VGroup(box, body, name)
    stage.box = box
    return stage


def get_probability_line(p: float, font_size: float) -> VGroup:
    """`probability 0.610` with the label on the number's baseline."""
    label = get_text("probability", font_size=font_size, color=DIM_TEXT_COLOR)
    number = get_number(p, tag="p_prediction", font_size=font_size, color=PREDICTED_COLOR)
    line = VGroup(label, number).arrange(RIGHT, buff=0.1)
    align_baseline(label, baseline_y(number))
    return line


def get_recap_diagram(ws) -> VGroup:
    """E → two heads → concat · W_O = ΔE → (+ E) → E′ → last row → MLP → prediction, at full size
    (every label at or above the legibility floor: laid out to fit, never shrunk)."""
    n, d = ws.E.shape
    unit = RECAP_UNIT
    e_box = get_shape_box("E", ws.E.shape, unit=unit)
    heads = VGroup(*(get_head_stage(h) for h in ws.heads)).arrange(DOWN, buff=0.4)
    concat = get_concat_box("concat", ws.H_joined.shape, unit=unit,
                            widths=[h.messages.shape[1] for h in ws.heads],
                            colors=[head_color(h.index) for h in ws.heads])
    w_o = get_shape_box("W_O", ws.W_O.shape, unit=unit)
    delta = get_shape_box("ΔE", ws.delta_E.shape, unit=unit)
    plus = get_plus_node()
    plus.box = plus.circle
    e_prime = get_shape_box("E′", ws.E_prime.shape, unit=unit)
    mlp = get_shape_box("MLP", None, width=0.8, height=0.6, name_inside=True)
    word, p = ws.mlp.ranked[0]
    prediction = VGroup(
        get_text("prediction", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR),
        get_text(f"“{word}”", font_size=BODY_SIZE, color=PREDICTED_COLOR),
        get_probability_line(p, SMALL_SIZE + 2),
    ).arrange(DOWN, buff=0.1)

    stages = [e_box, heads, concat, w_o, delta, plus, e_prime, mlp, prediction]

    def core(s):
        return s.box if hasattr(s, "box") else s

    # lay the stages out by their core boxes; each gap holds its link and keeps the labels apart
    base_gaps = [0.7, 0.7, 0.4, 0.4, 0.5, 0.5, 1.1, 0.5]
    x = 0.0
    for k, stage in enumerate(stages):
        stage.shift(RIGHT * (x - core(stage).get_left()[0]) + UP * (0 - core(stage).get_center()[1]))
        if k < len(base_gaps):
            nxt = stages[k + 1]
            overhang = (max(0, stage.get_right()[0] - core(stage).get_right()[0])
                        + max(0, (nxt.width - core(nxt).width) / 2))
            x = core(stage).get_right()[0] + max(base_gaps[k], overhang + 0.2)
    chain = VGroup(*stages)
    links = VGroup()
    for a, b in zip(stages, stages[1:]):
        middle = (core(a).get_right() + core(b).get_left()) / 2
        if b is heads:
            links.add(*(get_arrow(core(a).get_right(), hs.box.get_left(), color=head_color(i + 1))
                        for i, hs in enumerate(heads)))
        elif a is heads:
            links.add(*(get_arrow(hs.box.get_right(), core(b).get_left(), color=head_color(i + 1))
                        for i, hs in enumerate(heads)))
        elif b is w_o:
            links.add(get_text("·", font_size=BODY_SIZE).move_to(middle))
        elif b is delta:
            links.add(get_text("=", font_size=BODY_SIZE).move_to(middle))
        elif a is e_prime:
            # the last row: from E′'s bottom row (highlighted) into the MLP
            y = core(a).get_bottom()[1] + unit / 2
            links.add(get_arrow([core(a).get_right()[0], y, 0], core(b).get_left()))
        else:
            links.add(get_arrow(core(a).get_right(), core(b).get_left()))
    last_row_box = Rectangle(width=core(e_prime).width, height=unit).set_stroke(RECEIVER_COLOR, 2)
    last_row_box.set_fill(RECEIVER_COLOR, 0.5).move_to(core(e_prime).get_bottom() + UP * unit / 2)
    # the residual: E skips over the attention update into the sum
    top = heads.get_top()[1] + 0.3
    start = e_box.name_label.get_top() + UP * 0.08
    end = plus.circle.get_top()
    residual = get_routed_arrow([start, [start[0], top, 0], [end[0], top, 0], end])
    residual_label = get_text("residual: + E", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    residual_label.next_to(residual.legs[1], UP, buff=0.06)
    last_row = get_text("last row", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    last_row.next_to(links[-2], UP, buff=0.06)
    last_shape = get_text(format_shape((1, d)), font_size=16, color=DIM_TEXT_COLOR)
    last_shape.next_to(links[-2], DOWN, buff=0.06)
    from lesson_data.worksheet import W1, W2

    mlp_shapes = VGroup(get_text(f"W1 {format_shape(W1.shape)}", font_size=16, color=DIM_TEXT_COLOR),
                        get_text(f"W2 {format_shape(W2.shape)}", font_size=16, color=DIM_TEXT_COLOR))
    mlp_shapes.arrange(DOWN, buff=0.06).next_to(mlp.box, UP, buff=0.12)
    diagram = VGroup(chain, links, residual, residual_label, last_row, last_row_box, last_shape, mlp_shapes)
    diagram.last_shape, diagram.mlp_shapes = last_shape, mlp_shapes
    diagram.last_row_box = last_row_box
    diagram.e_box, diagram.heads, diagram.concat, diagram.w_o, diagram.delta = e_box, heads, concat, w_o, delta
    diagram.plus, diagram.e_prime, diagram.mlp, diagram.prediction = plus, e_prime, mlp, prediction
    diagram.links, diagram.residual = links, VGroup(residual, residual_label)
    diagram.last_row = last_row
    return diagram




def get_target_cost(example: str, p: float, loss: float) -> VGroup:
    """The example target's price on one line: the probability the model gave it and the loss
    -ln p (the loss in three places, the lesson's rule; p with as many as make −ln p give that loss),
    numbers tagged target_p and target_loss."""
    size = 16
    k = loss_operand_places(p)
    parts = [get_text(f"p(“{example}”) =", font_size=size), get_number(p, k, tag="target_p", font_size=size),
             get_text(", so the loss is −ln", font_size=size), get_number(p, k, tag="target_p", index=1, font_size=size),
             get_text("=", font_size=size), get_number(loss, 3, tag="target_loss", font_size=size + 2, color=GRADIENT_COLOR)]
    line = VGroup(*parts).arrange(RIGHT, buff=0.1)
    parts[0].shift(RIGHT * 0.08)         # the number against the comma after it (the gap after "−ln" stays)
    parts[1].shift(RIGHT * 0.08)
    y = baseline_y(parts[1])
    for m in parts:
        align_baseline(m, y)
    parts[4].set_y(parts[3].get_center()[1])     # "=" has no baseline glyph: centred on the digits
    return line


def get_training_panel(diagram, example: str) -> VGroup:
    """Training, drawn under the recap diagram: the prediction's vocabulary logits into softmax and
    cross-entropy, the observed next token as the target (`example`: a word shown as an example of
    one), and the loss routed back (dashed, in the gradient colour) from "cross-entropy loss" into
    every block that learns: E's embedding rows, both heads, W_O and the MLP (one trunk along a line above the loss, into
    head 1 through the gap between the heads, with a gap where it passes the E → head 2 arrow and
    the MLP → logits arrow; a branch up into each other block)."""
    title = get_text("training", font_size=LABEL_SIZE + 2, color=TEXT_COLOR)
    chain = get_text("vocabulary logits → softmax →", font_size=LABEL_SIZE)
    cross = get_text("cross-entropy loss", font_size=LABEL_SIZE)
    loss = VGroup(chain, cross).arrange(RIGHT, buff=0.14)
    align_baseline(cross, baseline_y(chain))
    loss.cross = cross
    target = VGroup(get_text(f"target: the observed next token (e.g. “{example}”)", font_size=16, color=TEXT_COLOR),
                    get_text("from the training text, not the model’s output", font_size=16,
                             color=DIM_TEXT_COLOR))
    target.arrange(DOWN, buff=0.06, aligned_edge=RIGHT)
    y_loss = diagram.get_bottom()[1] - 0.72
    loss.move_to([0, y_loss, 0]).align_to(diagram.prediction, RIGHT)
    target.next_to(loss, DOWN, buff=0.34).align_to(loss, RIGHT)     # room for the target's arrow
    mlp = diagram.mlp.box
    start = mlp.get_bottom() + RIGHT * 0.2
    logit_arrow = get_arrow(start, [start[0], loss.get_top()[1] + 0.05, 0])
    tx = cross.get_right()[0] - 0.3
    target_arrow = get_arrow([tx, target.get_top()[1], 0], [tx, loss.get_bottom()[1], 0],
                             color=TEXT_COLOR, buff=0.04)
    title.next_to(loss, LEFT, buff=0.5)
    learners = VGroup(diagram.e_box, *diagram.heads, diagram.w_o, diagram.mlp)

    def dashed(points, hops=()):
        path = VGroup()
        for p, q in zip(points[:-2], points[1:-1]):
            p, q = np.array(p, dtype=float), np.array(q, dtype=float)
            pieces = [(p, q)]
            for hop in hops:           # leave a gap where another arrow crosses this leg
                new = []
                for a, b in pieces:
                    t = _crossing(a, b, *hop)
                    if t is None:
                        new.append((a, b))
                        continue
                    length = np.linalg.norm(b - a)
                    gap = 0.1 / max(length, 1e-6)
                    new += [(a, a + (b - a) * max(t - gap, 0)), (a + (b - a) * min(t + gap, 1), b)]
                pieces = new
            for a, b in pieces:
                if np.linalg.norm(b - a) > 0.02:
                    path.add(DashedLine(a, b, dash_length=0.12).set_stroke(GRADIENT_COLOR, 2.5))
        path.add(get_arrow(points[-2], points[-1], color=GRADIENT_COLOR, buff=0, stroke_width=2.5))
        return path

    h1, h2 = diagram.heads[0], diagram.heads[1]
    y_bus = loss.get_top()[1] + 0.3
    sx = cross.get_left()[0] + 0.25
    x_left = (diagram.e_box.box.get_right()[0] + h1.box.get_left()[0]) / 2
    y_gap = (h1.box.get_bottom()[1] + h2.get_top()[1]) / 2
    x_h1 = h1.box.get_x() - 0.6
    e_to_h2 = diagram.links[1]
    # gaps where the trunk passes another arrow: E → head 2, and the MLP's logits going down to the loss
    hops = [(e_to_h2.get_start(), e_to_h2.get_end()), (logit_arrow.get_start(), logit_arrow.get_end())]
    # the way from the loss to each block that learns, as corners: the dashes are drawn along them, and
    # pulses of the loss travel them
    up = [[sx, cross.get_top()[1] + 0.05, 0], [sx, y_bus, 0]]
    to_h1 = up + [[x_left, y_bus, 0], [x_left, y_gap, 0], [x_h1, y_gap, 0], [x_h1, h1.box.get_bottom()[1] - 0.03, 0]]
    trunk = dashed(to_h1, hops=hops)
    # a branch back into E as well: the embedding rows learn too
    e_x, e_bottom = diagram.e_box.box.get_x(), diagram.e_box.get_bottom()[1]      # under E's shape label
    to_e = [[e_x, y_bus, 0], [e_x, e_bottom - 0.05, 0]]
    into_e = dashed([[x_left, y_bus, 0], *to_e])
    back = VGroup(trunk, into_e)
    routes = [to_h1, up + to_e]
    for x, top in ((h2.box.get_x(), h2.box.get_bottom()[1]), (diagram.w_o.get_x(), diagram.w_o.get_bottom()[1]),
                   (mlp.get_x() - 0.22, mlp.get_bottom()[1])):
        back.add(VGroup(get_arrow([x, y_bus, 0], [x, top - 0.05, 0], color=GRADIENT_COLOR, buff=0,
                                  stroke_width=2.5)))
        routes.append(up + [[x, y_bus, 0], [x, top - 0.05, 0]])
    update = VGroup()           # the dashed paths say it; the sentence names the blocks
    panel = VGroup(title, loss, logit_arrow, target, target_arrow, back, update)
    panel.title, panel.loss, panel.logit_arrow, panel.target, panel.target_arrow = title, loss, logit_arrow, target, target_arrow
    panel.back, panel.update, panel.learners = back, update, learners
    panel.routes = [VMobject().set_points_as_corners(np.array(r, dtype=float)) for r in routes]
    return panel


def _crossing(a, b, c, d):
    """Where segment a→b crosses segment c→d, as a fraction along a→b (None if they do not cross)."""
    r, s_ = b - a, d - c
    den = r[0] * s_[1] - r[1] * s_[0]
    if abs(den) < 1e-9:
        return None
    t = ((c[0] - a[0]) * s_[1] - (c[1] - a[1]) * s_[0]) / den
    u = ((c[0] - a[0]) * r[1] - (c[1] - a[1]) * r[0]) / den
    return t if 0 <= t <= 1 and 0 <= u <= 1 else None


def _outside(node, point, margin=0.08) -> bool:
    box = node[0]
    return (abs(point[0] - box.get_x()) > box.width / 2 + margin
            or abs(point[1] - box.get_y()) > box.height / 2 + margin)


RUN_BOX = (2.5, 1.0)      # the "run" step holds the whole diagram, shrunk to its shapes


def get_inference_cycle(ws, radius: float = 1.6) -> VGroup:
    """run → choose → append, clockwise on a circle (run on top, large enough to hold the shrunk
    diagram), each arc from box edge to box edge; the last arc, append → run, is the way back."""
    steps = ["run", "choose", "append"]
    angles = [np.pi / 2, -np.pi / 6, -5 * np.pi / 6]
    nodes = VGroup()
    for step, angle in zip(steps, angles):
        t = get_text(step, font_size=LABEL_SIZE)
        if step == "run":
            box = RoundedRectangle(corner_radius=0.12, width=RUN_BOX[0], height=RUN_BOX[1])
        else:
            box = RoundedRectangle(corner_radius=0.12, width=t.width + 0.3, height=0.46)
        box.set_stroke(TEXT_COLOR, 1.5).set_fill(BACKGROUND, 0.0 if step == "run" else 1.0)
        node = VGroup(box, t).move_to(radius * np.array([np.cos(angle), np.sin(angle), 0.0]))
        if step == "run":
            t.next_to(box, UP, buff=0.08)      # the label above: the box holds the diagram
        nodes.add(node)

    def clearance(node, angle, direction):
        # smallest angular step along the circle that leaves this node's box
        g = 0.0
        while g < np.pi / 2:
            a = angle + direction * g
            if _outside(node, radius * np.array([np.cos(a), np.sin(a), 0.0])):
                return g
            g += 0.01
        return g

    arcs = VGroup()
    for k in range(3):
        a0 = angles[k] - clearance(nodes[k], angles[k], -1)
        a1 = angles[(k + 1) % 3] + clearance(nodes[(k + 1) % 3], angles[(k + 1) % 3], +1)
        if a1 > a0:  # going clockwise from append (lower left) up to run (top)
            a1 -= 2 * np.pi
        arc = Arc(radius=radius, start_angle=a0, angle=a1 - a0)
        arc.set_stroke(DIM_TEXT_COLOR, 2.5)
        arc.add_tip(tip_length=0.15, tip_width=0.15)
        arc.get_tip().set_fill(DIM_TEXT_COLOR, 1).set_stroke(DIM_TEXT_COLOR, 1)
        arcs.add(arc)
    centre = VGroup()      # "parameters remain fixed" is the loop's heading, outside it
    cycle = VGroup(arcs, nodes, centre)
    cycle.nodes, cycle.arcs, cycle.centre = nodes, arcs, centre
    cycle.run = nodes[0]
    return cycle


def get_token_id_row(words, ids, *, font_size: float = LABEL_SIZE, blank: bool = True, first: int = 0,
                     ellipsis: bool = False) -> VGroup:
    """The prefix's words with each token ID under its word, and a blank slot at the end; parts
    `words`, `ids` (tagged token_id, indexed by position from `first`), `blank` (the slot), and a
    leading "…" when earlier words are left out (`ellipsis`)."""
    texts = [get_text(w, font_size=font_size) for w in words]
    numbers = [get_count(i, tag="token_id", index=first + k, font_size=16, color=DIM_TEXT_COLOR)
               for k, i in enumerate(ids)]
    row = VGroup()
    x = 0.0
    columns = []
    if ellipsis:
        dots = get_text("…", font_size=font_size)
        dots.move_to([dots.width / 2, 0, 0])
        row.add(dots)
        x += dots.width + 0.22
    for t, number in zip(texts, numbers):
        w = max(t.width, number.width)
        t.move_to([x + w / 2, 0, 0])
        number.move_to([x + w / 2, -0.36, 0])
        columns.append(VGroup(t, number))
        x += w + 0.22
    blank_line = Line([x, -0.1, 0], [x + 0.8, -0.1, 0]).set_stroke(TEXT_COLOR, 2)
    row.words, row.ids = VGroup(*texts), VGroup(*numbers)
    for t in texts:
        align_baseline(t, baseline_y(texts[0]))
    if ellipsis:
        align_baseline(dots, baseline_y(texts[0]))
        row.words.add_to_back(dots)
    row.columns = VGroup(*columns)
    row.blank = blank_line
    row.add(row.columns)
    if blank:
        row.add(blank_line)
    return row


def get_prefix_line(ws, limit: float = SAFE_WIDTH - 1.0) -> VGroup:
    """The prefix as one line, its blank at the end ("… watched the ___"): as many of the last
    words as fit in `limit` (lesson_data.library.last_words_that_fit). Parts: `words`, `blank`."""
    from lesson_data.library import last_words_that_fit

    words = display_words(ws)
    size = LABEL_SIZE + 2
    texts = [get_text(w, font_size=size) for w in words]
    space = get_text("M", font_size=size).width * 0.55
    keep = last_words_that_fit([t.width for t in texts] + [0.9], space, limit) - 1
    shown = texts[len(texts) - keep:] if keep < len(texts) else texts
    parts = ([get_text("…", font_size=size)] if len(shown) < len(texts) else []) + shown
    line = VGroup(*parts).arrange(RIGHT, buff=space)
    for t in parts:
        align_baseline(t, baseline_y(shown[0]))
    blank = Line(ORIGIN, RIGHT * 0.9).set_stroke(TEXT_COLOR, 2)
    blank.next_to(line, RIGHT, buff=space).align_to(UP * (baseline_y(shown[0]) - 0.04), UP)
    group = VGroup(line, blank)
    group.words, group.blank = line, blank
    return group


def split_shapes(group) -> tuple[VGroup, list]:
    """A picture's shapes (boxes, arrows) copied leaf by leaf, and its own texts (not copied)."""
    text_ids = {id(m) for t in group.get_family() if isinstance(t, Text) for m in t.get_family()}
    shapes, texts = VGroup(), [m for m in group.get_family() if isinstance(m, Text)]
    for m in group.get_family():
        if id(m) not in text_ids and not isinstance(m, Text) and m.has_points():
            leaf = m.copy()
            leaf.submobjects = []
            shapes.add(leaf)
    return shapes, texts


class RecapAndLoop(LessonScene):
    """Scene 17: the whole two-head diagram again, built stage by stage at full size on the prefix,
    with the worksheet's prediction filling its blank; then training (the observed next token is the
    target, the loss flows back into every block that learns) against the inference loop (tokenize
    once, then run, choose, append, with the weights fixed; the diagram shrinks into "run")."""

    TRAINING_LIFT = 0.45        # how far the diagram rises when the training panel comes in under it

    def construct(self):
        ws = self.ws = scene_worksheet()
        self.title = get_title("Recap: the two-head layer, and the loop")
        with self.transition("title"):
            self.play(FadeIn(self.title))
        # --- Shot 1: the whole diagram again ---------------------------------------------------
        self.shot("the whole diagram")
        self.build_diagram(ws)
        self.show_input()
        self.show_heads(ws)
        self.show_update()
        self.show_residual()
        self.show_mlp()
        self.show_prediction(ws)
        self.show_scope()
        # --- Shot 2: training: the target, the loss back into every block ----------------------
        self.shot("training")
        self.build_training(ws)
        self.show_training_target()
        self.show_weight_update()
        # --- Shot 3: the inference loop ----------------------------------------------------------
        self.shot("inference")
        self.build_loop(ws)
        self.show_first_steps(ws)
        self.show_last_steps()
        self.show_append(ws)

    # pictures ---------------------------------------------------------------------------------
    def build_diagram(self, ws):
        diagram = self.diagram = get_recap_diagram(ws)
        if diagram.width > SAFE_WIDTH:
            raise ValueError(f"the recap diagram is {diagram.width - SAFE_WIDTH:.2f} too wide")
        # centred in the frame while it is the only picture; it rises to make room for training
        diagram.move_to(CONTENT_CENTER + UP * (0.55 - self.TRAINING_LIFT))
        prefix = self.prefix_line = get_prefix_line(ws)
        prefix.move_to([0, CONTENT_TOP - 0.3, 0])

    def build_training(self, ws):
        """Under the diagram: the prediction's logits against the observed next token, and the loss
        flowing back into every block that learns (both heads, W_O, the MLP)."""
        from lesson_data.library import example_target, target_loss

        # an example target that is not the prediction: the two must be told apart
        example = example_target(ws.mlp.ranked)
        self.diagram.shift(UP * self.TRAINING_LIFT)          # the panel is laid out under the risen diagram
        self.training = get_training_panel(self.diagram, example=example)
        self.diagram.shift(DOWN * self.TRAINING_LIFT)
        # what that target costs the model: its probability and the loss -ln p, under the target
        self.example = example
        self.target_p, self.target_loss = target_loss(ws.mlp.ranked, example)
        cost = self.target_cost = get_target_cost(example, self.target_p, self.target_loss)
        cost.next_to(self.training.target, DOWN, buff=0.12).align_to(self.training.target, RIGHT)

    def build_loop(self, ws):
        from lesson_data.library import token_ids

        cycle = self.cycle = get_inference_cycle(ws)
        cycle.move_to([1.6, -0.3, 0])
        from lesson_data.library import last_words_that_fit

        words = display_words(ws)
        ids = token_ids(ws.tokens)
        widths = [max(get_text(w, font_size=LABEL_SIZE).width, 0.3) for w in words]
        keep = last_words_that_fit(widths + [0.8], 0.22, SAFE_WIDTH - 2.6) - 1
        keep = max(keep, 1)
        row = self.id_row = get_token_id_row(words[-keep:], ids[-keep:], first=len(words) - keep,
                                             ellipsis=keep < len(words))
        tokenize = get_text("tokenize (once)", font_size=LABEL_SIZE)
        t_box = RoundedRectangle(corner_radius=0.12, width=tokenize.width + 0.3, height=0.46)
        t_box.set_stroke(TEXT_COLOR, 1.5).set_fill(BACKGROUND, 1.0)
        self.tokenize = VGroup(t_box, tokenize.move_to(t_box))
        top = VGroup(self.tokenize, row).arrange(RIGHT, buff=0.45)
        top.move_to([0, CONTENT_TOP - 0.45, 0])
        # the numbers under the words are vocabulary IDs (from 0), not positions (from 1): said on screen
        self.id_label = get_text("vocabulary IDs (counted from 0), not positions", font_size=SMALL_SIZE,
                                 color=DIM_TEXT_COLOR).next_to(row.ids, DOWN, buff=0.14).align_to(row.ids, LEFT)
        heading = VGroup(get_text("inference", font_size=BODY_SIZE),
                         # "weights" is the attention weights' word in this lesson: the learned numbers are parameters
                         get_text("parameters remain fixed", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR))
        heading.arrange(DOWN, buff=0.15, aligned_edge=RIGHT)
        heading.next_to(cycle.nodes[2], LEFT, buff=0.9).align_to(cycle.nodes[2], DOWN)
        self.inference_title = heading
        # choose shows the word it picks (the worksheet's most probable), beside its box
        word, p = ws.mlp.ranked[0]
        chosen_word = get_text(word, font_size=LABEL_SIZE, color=PREDICTED_COLOR)
        chosen_p = VGroup(get_number(p, tag="p_chosen", font_size=16, color=PREDICTED_COLOR),
                          get_text("most probable", font_size=16, color=DIM_TEXT_COLOR)).arrange(RIGHT, buff=0.1)
        align_baseline(chosen_p[1], baseline_y(chosen_p[0]))
        self.chosen = VGroup(chosen_word, chosen_p).arrange(DOWN, buff=0.08, aligned_edge=LEFT)
        self.chosen.next_to(cycle.nodes[1], RIGHT, buff=0.25)
        run_box = cycle.run[0]
        start = self.tokenize[0].get_bottom()
        self.to_run = get_routed_arrow([start, [start[0], run_box.get_y(), 0],
                                        [run_box.get_left()[0] - 0.05, run_box.get_y(), 0]])
        # the diagram, shrunk to its shapes, inside "run"
        shapes, texts = split_shapes(self.diagram)
        self.diagram_shapes, self.diagram_texts = shapes, texts
        mini = self.mini = shapes.copy()
        mini.scale_to_fit_width(RUN_BOX[0] - 0.3)
        if mini.height > RUN_BOX[1] - 0.2:
            mini.scale_to_fit_height(RUN_BOX[1] - 0.2)
        mini.move_to(run_box)
        # the appended word and its ID fill the blank
        new_id = token_ids([ws.mlp.prediction])[0]
        word = get_text(ws.mlp.prediction, font_size=LABEL_SIZE, color=PREDICTED_COLOR)
        number = get_count(new_id, tag="new_token_id", font_size=16, color=PREDICTED_COLOR)
        word.move_to(row.blank.get_center() + UP * 0.12, aligned_edge=DOWN).align_to(row.blank, LEFT)
        align_baseline(word, baseline_y(row.words[0]))
        number.move_to([word.get_x(), row.ids[0].get_y(), 0])
        box = SurroundingRectangle(word, buff=0.08, color=PREDICTED_COLOR, stroke_width=2)
        self.new_word = VGroup(word, box, number)
        # the appended word is the next run's receiver
        from lesson_data.library import next_row

        mark = VGroup(get_text("next receiver, row", font_size=16, color=RECEIVER_COLOR),
                      get_count(next_row(ws.tokens), tag="next_row", font_size=16, color=RECEIVER_COLOR))
        mark.arrange(RIGHT, buff=0.08)
        align_baseline(mark[1], baseline_y(mark[0]))
        mark.next_to(number, DOWN, buff=0.12).align_to(box, RIGHT)     # clear of the frame edge
        self.receiver_mark = mark
        self.prefix = VGroup(row, self.new_word)
        self.prefix.new_word = VGroup(word, box)

    # beats: the diagram -----------------------------------------------------------------------
    def show_input(self):
        d = self.diagram
        note = self.fine_print = place_fine_print("This repeats the same two-head diagram after the detailed "
                                                  "arithmetic, rather than introducing a new architecture.")
        with self.beat("Let's rebuild the whole two-head layer on our prefix, step by step.", look=0.7):
            self.play(FadeIn(self.prefix_line, shift=0.1 * DOWN), FadeIn(note))
            self.play(FadeIn(d.e_box, shift=0.2 * RIGHT))

    def show_heads(self, ws):
        d = self.diagram
        n, width = ws.E.shape
        rows = f"{count_word(n)} row{'s' if n != 1 else ''}"
        with self.beat(f"E, {rows} of width {count_word(width)}, goes into both heads; "
                       "each makes its own messages."):
            self.play(*(GrowArrow(a) for a in d.links[0:2]), FadeIn(d.heads, shift=0.15 * RIGHT),
                      FadeOut(self.fine_print), run_time=1.2)

    def show_update(self):
        d = self.diagram
        with self.beat("The messages join, and W_O turns them into the update ΔE."):
            self.play(*(GrowArrow(a) for a in d.links[2:4]), FadeIn(d.concat))
            self.play(FadeIn(d.links[4]), FadeIn(d.w_o), FadeIn(d.links[5]), FadeIn(d.delta))

    def show_residual(self):
        d = self.diagram
        with self.beat("The residual adds E back: E′ = E + ΔE."):
            self.play(Create(d.residual[0]), FadeIn(d.residual[1]), GrowArrow(d.links[6]), FadeIn(d.plus),
                      run_time=1.3)
            self.play(GrowArrow(d.links[7]), FadeIn(d.e_prime))

    def show_mlp(self):
        d = self.diagram
        with self.beat("Its last row goes through the prediction MLP."):
            self.play(FadeIn(d.last_row_box))
            self.play(GrowArrow(d.links[8]), FadeIn(d.last_row), FadeIn(d.last_shape), FadeIn(d.mlp),
                      FadeIn(d.mlp_shapes))

    def show_prediction(self, ws):
        d = self.diagram
        word, p = ws.mlp.ranked[0]
        which = f"the {ws.name} sentence" if ws.name in ("river", "cheque") else "this sentence"
        fill = self.filled = get_text(word, font_size=LABEL_SIZE + 2, color=PREDICTED_COLOR)
        fill.next_to(self.prefix_line.blank, UP, buff=0.04)
        with self.beat(f"For {which}, the most probable next word is “{word}”: {fmt(p)}."):
            self.play(GrowArrow(d.links[9]), FadeIn(d.prediction, shift=0.15 * RIGHT))
            self.play(ReplacementTransform(d.prediction[1].copy(), fill), run_time=1.0)

    def show_scope(self):
        d = self.diagram
        scope = self.scope = get_text("This teaching model has one attention update and a prediction MLP;\n"
                                      "it is not a diagram of every component in a deep production Transformer.",
                                      font_size=LABEL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.8)
        scope.next_to(d, DOWN, buff=0.5)
        box = self.scope_box = RoundedRectangle(corner_radius=0.12, width=scope.width + 0.4, height=scope.height + 0.4)
        box.set_stroke(DIM_TEXT_COLOR, 1.5).move_to(scope)
        with self.beat("That is the whole teaching model; a deep Transformer has many more parts."):
            self.play(FadeIn(VGroup(box, scope)))

    # beats: training and inference ------------------------------------------------------------
    def show_training_target(self):
        t = self.training
        note = self.fine_print = place_fine_print("At training time, the observed next-token ID is the target "
                                                  "for the vocabulary logits.", width=6.6)
        with self.transition("the scope note leaves; the diagram rises"):
            self.play(FadeOut(VGroup(self.scope, self.scope_box)), self.diagram.animate.shift(UP * self.TRAINING_LIFT))
        with self.beat("In training, the word that really comes next is the target.", look=0.7):
            # the blank is cleared: in training the next word comes from the text, not the model
            self.play(FadeIn(t.title), GrowArrow(t.logit_arrow), FadeIn(t.loss, shift=0.1 * DOWN),
                      FadeOut(self.filled))
            self.play(FadeIn(t.target, shift=0.1 * UP), GrowArrow(t.target_arrow), FadeIn(note))
        # p with the places that make −ln p give the loss shown (−ln 0.192 = 1.650; −ln 0.1925 = 1.648)
        p, loss = fmt(self.target_p, loss_operand_places(self.target_p)), fmt(self.target_loss)
        with self.beat(f"If it is “{self.example}”, the model gave it {p}, so the loss is −ln {p} = {loss}.",
                       spoken=f"If it is “{self.example}”, the model gave it {p}, so the loss is {loss}."):
            rounding = place_fine_print(f"{ROUNDING_NOTE} ln is the natural log.", width=6.6)
            self.play(FadeIn(self.target_cost, shift=0.1 * UP), FadeOut(self.fine_print), FadeIn(rounding))
            self.play(Indicate(self.target_cost[-1], color=GRADIENT_COLOR, scale_factor=1.2))
        self.fine_print = rounding

    def show_weight_update(self):
        t = self.training
        # every part that learns: the embedding rows behind E too (outlined with the blocks)
        with self.beat("The loss flows back and updates every parameter: the embeddings, both heads, W_O and the MLP."):
            self.play(Create(t.back[0]), run_time=1.6)
            self.play(LaggedStart(*(Create(path) if len(path) > 1 else GrowArrow(path[0]) for path in t.back[1:]),
                                  lag_ratio=0.3), run_time=1.0)
            # outlined, not tinted: the heads keep their own colours; a pulse of the loss runs down each
            # way into its block as it is outlined (the dashes alone stand still)
            pulses = [Dot(route.get_start(), radius=0.06, color=GRADIENT_COLOR) for route in t.routes]
            self.play(*(Circumscribe(block, color=GRADIENT_COLOR, buff=0.06) for block in t.learners),
                      *(MoveAlongPath(dot, route, rate_func=smooth) for dot, route in zip(pulses, t.routes)),
                      run_time=1.4)
            self.remove(*pulses)

    def show_first_steps(self, ws):
        c = self.cycle
        note = self.fine_print_loop = place_fine_print("At inference time, weights remain fixed: tokenize a prefix, "
                                                       "run the model, choose a next token and append it.")
        with self.transition("training and the prefix leave; the diagram stays"):
            self.play(*fade_out(self, self.training, self.target_cost, self.fine_print, self.prefix_line, self.filled))
        # the diagram's shapes stand in for it (its texts fade): the same picture, about to shrink
        shapes, texts = self.diagram_shapes, self.diagram_texts
        with self.beat("At inference the parameters stay fixed: tokenize the prefix once, then run the model."):
            self.play(FadeIn(self.tokenize), FadeIn(self.id_row.words), FadeIn(note),
                      *(FadeOut(t) for t in texts), run_time=0.8)
            on_screen = {id(m) for m in self.diagram.get_family()}
            self.remove(*(m for m in list(self.mobjects) if id(m) in on_screen))
            self.add(shapes)
            self.play(LaggedStart(*(FadeIn(i, shift=0.1 * DOWN) for i in self.id_row.ids), lag_ratio=0.08),
                      FadeIn(self.id_row.blank), FadeIn(self.id_label), run_time=1.0)
            self.play(ReplacementTransform(shapes, self.mini), FadeIn(c.run), FadeIn(c.centre),
                      FadeIn(self.inference_title), run_time=1.3)
            self.play(Create(self.to_run.legs), GrowArrow(self.to_run.tip), run_time=0.7)

    def show_last_steps(self):
        c = self.cycle
        with self.beat("Choose the next token, and append it."):
            self.play(Create(c.arcs[0]), FadeIn(c.nodes[1]), run_time=0.8)
            self.play(FadeIn(self.chosen, shift=0.1 * RIGHT), run_time=0.6)
            self.play(Create(c.arcs[1]), FadeIn(c.nodes[2]), run_time=0.8)

    def show_append(self, ws):
        c = self.cycle
        with self.beat(f"“{ws.mlp.prediction}” joins the prefix, and the loop runs the model again.", look=0.6):
            self.play(ReplacementTransform(self.chosen[0], self.new_word[0]), FadeOut(self.chosen[1]),
                      FadeIn(self.new_word[1:]), FadeOut(self.id_row.blank))
            self.play(FadeIn(self.receiver_mark, shift=0.1 * DOWN), run_time=0.5)
            self.play(Create(c.arcs[2]), Indicate(c.run, color=SOURCE_COLOR, scale_factor=1.06), run_time=1.0)


__all__ = ["BiasesAndLibraryLayer", "RecapAndLoop", "SciNumberText", "get_sci_number"]
