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
    Create,
    DashedLine,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    Line,
    Rectangle,
    ReplacementTransform,
    RoundedRectangle,
    Square,
    SurroundingRectangle,
    VGroup,
    VMobject,
)

from lesson_data.display import fmt, fmt_sci, places_for
from lesson_data.projections import change_word, listed_rows, most_shifted_source, offset_heads
from lesson_data.worksheet import HEAD_NAMES, bias_illustration, sentence_from_env
from scenes.blocks.code_panel import get_code_panel, get_mono
from scenes.blocks.flow_arrow import get_arrow
from scenes.blocks.labeled_matrix import get_row_vector
from scenes.blocks.masked_matrix import weight_opacity
from scenes.blocks.shape_box import get_shape_box
from scenes.blocks.shape_flow import get_concat_box, get_plus_node, get_routed_arrow
from scenes.style import (
    BACKGROUND,
    BODY_SIZE,
    BUFF,
    BUFF_LARGE,
    BUFF_SMALL,
    CONTENT_BOTTOM,
    CONTENT_CENTER,
    CONTENT_TOP,
    DIM_TEXT_COLOR,
    HIGHLIGHT_OPACITY,
    LABEL_SIZE,
    MASK_COLOR,
    NEGATIVE_COLOR,
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
    """q¹ₙ + b_Q = (q¹ₙ + b_Q): head 1's receiver query, the illustrative bias and their sum, each
    with its own precision (hand-chosen tenths read 0.2, not 0.200)."""
    h1 = head_color(1)
    kw = dict(places=None, label_size=LABEL_SIZE)
    q = get_row_vector(bias.query_without, None, name=f"q{sup(1)}{sub(n)}", tag="q_without",
                       color=h1, name_color=h1, **kw)
    b = get_row_vector(bias.b_Q, None, name=f"{B_Q} (illustrative)", tag="b_Q", color=BIAS_COLOR,
                       name_color=BIAS_COLOR, **kw)
    s = get_row_vector(bias.query_with, None, name=f"q{sup(1)}{sub(n)} + {B_Q}", tag="q_with",
                       color=h1, name_color=h1, **kw)
    plus = get_text("+", font_size=BODY_SIZE)
    equals = get_text("=", font_size=BODY_SIZE)
    group = VGroup(q, plus, b, equals, s).arrange(RIGHT, buff=0.3)
    for part in (q, b, s):        # one line of names, one row of numbers
        part.align_to(q, DOWN)
    for op in (plus, equals):
        op.set_y(q.cell_center(0, 0)[1])
    group.q, group.b, group.sum, group.ops = q, b, s, VGroup(plus, equals)
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
                        t2c={f"p{sub(p)}": RECEIVER_COLOR})

    left = column(f"a bias: the same {B_Q} in every row", BIAS_COLOR, bias_line)
    right = column("position rows: one per position", RECEIVER_COLOR, position_line)
    panel = VGroup(left, right).arrange(RIGHT, buff=1.2, aligned_edge=UP)
    panel.bias_column, panel.position_column = left, right
    return panel


class BiasWeightTable(VGroup):
    """Receiver row of A¹ without and with the bias: word | without | with | paired bars."""


def get_bias_weight_table(labels, without, with_bias, *, listed=None, color=None, row_height=0.34,
                          bar_max_width=1.4, scores=None, score_title: str = "score") -> BiasWeightTable:
    """One row per listed source (label, [score without, score with b_Q,] weight without, weight with
    b_Q, two bars), then an "others" row pooling the rest (lesson_data.projections.listed_rows) and
    the sums of the full rows. `table.rows[k]` is the k-th listed source, `table.sources[k]` its
    index. `scores`: (without, with) raw score rows, shown in two columns before the weights (tags
    score_without / score_with); the pooled row has no score."""
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
    x_bar = x_with + 2 * BUFF_SMALL
    table.bars_without, table.bars_with, rows = VGroup(), VGroup(), []
    for k, entry in enumerate(entries):
        y = -k * row_height
        a, b, label = table.without[k], table.with_bias[k], table.labels[k]
        a.move_to([x_without, y, 0], aligned_edge=RIGHT)
        b.move_to([x_with, y, 0], aligned_edge=RIGHT)
        label.move_to([x_label, y, 0], aligned_edge=RIGHT)
        align_baseline(label, baseline_y(a))
        thin = row_height * 0.28
        bar0 = Rectangle(width=max(bar_max_width * entry[1], 1e-3), height=thin).set_stroke(width=0)
        bar0.set_fill(DIM_TEXT_COLOR, 0.8).move_to([x_bar, y + thin / 2 + 0.01, 0], aligned_edge=LEFT)
        bar1 = Rectangle(width=max(bar_max_width * entry[2], 1e-3), height=thin).set_stroke(width=0)
        bar1.set_fill(color, 0.9).move_to([x_bar, y - thin / 2 - 0.01, 0], aligned_edge=LEFT)
        table.bars_without.add(bar0)
        table.bars_with.add(bar1)
        rows.append(VGroup(label, a, b, bar0, bar1))
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
    y_sum = -len(entries) * row_height - 0.08
    table.rule = Line([x_label - 0.6, y_sum + row_height / 2, 0], [x_with, y_sum + row_height / 2, 0])
    table.rule.set_stroke(DIM_TEXT_COLOR, 1.5)
    table.sum_label = get_text("sum", font_size=SMALL_SIZE + 1, color=DIM_TEXT_COLOR)
    # fsum of the unrounded weights, rounded once for display
    table.sum_without = get_number(math.fsum(without), tag="A_without_sum", color=DIM_TEXT_COLOR)
    table.sum_with = get_number(math.fsum(with_bias), tag="A_with_sum", color=color)
    table.sum_without.move_to([x_without, y_sum, 0], aligned_edge=RIGHT)
    table.sum_with.move_to([x_with, y_sum, 0], aligned_edge=RIGHT)
    table.sum_label.move_to([x_label, y_sum, 0], aligned_edge=RIGHT)
    align_baseline(table.sum_label, baseline_y(table.sum_without))
    left_x = min(t.get_left()[0] for t in table.labels) - BUFF_SMALL
    right_x = x_bar + bar_max_width
    # invisible: carries the row extent through moves and scales (highlight boxes read it)
    table.extent = Line([left_x, 0, 0], [right_x, 0, 0]).set_stroke(opacity=0)
    table.row_height = row_height
    table.add(table.extent, table.head_without, table.head_with, table.rows, table.rule, table.sum_label,
              table.sum_without, table.sum_with, table.score_heads, table.group_heads)
    return table


def get_table_row_box(table, j: int, color=SOURCE_COLOR) -> Rectangle:
    """Highlight of source j's row across label, both weights and bars (from the table's current
    geometry)."""
    row = table.rows[table.sources.index(j)]
    pitch = abs(table.rows[0][1].get_y() - table.rows[1][1].get_y()) if len(table.rows) > 1 else 0.34
    box = Rectangle(width=table.extent.width, height=pitch)
    box.set_stroke(color, 2).set_fill(color, HIGHLIGHT_OPACITY)
    return box.move_to([table.extent.get_x(), row[1].get_y(), 0])


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
    count = get_count(n, tag=tag, font_size=LABEL_SIZE + 4, color=RECEIVER_COLOR)
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
        get_count(counts["total"], tag="total", font_size=BODY_SIZE + 4, color=RECEIVER_COLOR),
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
    kv_note = get_text("add_bias_kv is a different option, not this bias flag", font_size=LABEL_SIZE,
                       color=DIM_TEXT_COLOR)

    layout = VGroup(code, blocks, total, legend, kv_note).arrange(DOWN, buff=0.4)
    code_off.move_to(code, aligned_edge=LEFT)
    layout.code, layout.code_off = code, code_off
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


def get_does_and_does_not() -> VGroup:
    def items(title, color, mark, lines):
        rows = [get_text(title, font_size=LABEL_SIZE + 2, color=color)]
        for line in lines:
            rows.append(VGroup(get_text(mark, font_size=LABEL_SIZE, color=color),
                               get_text(line, font_size=LABEL_SIZE)).arrange(RIGHT, buff=0.15))
        return VGroup(*rows).arrange(DOWN, buff=0.16, aligned_edge=LEFT)

    does = items("inside the library layer", POSITIVE_COLOR, "✓", [
        "Q, K, V projections for every head",
        "scaled scores, mask, row softmax per head",
        "concat, then W_O (out_proj)",
    ])
    does_not = items("not inside it", NEGATIVE_COLOR, "✗", [
        "position rows",
        "the residual E′ = E + ΔE",
        "the vocabulary classifier (prediction MLP)",
    ])
    group = VGroup(does, does_not).arrange(DOWN, buff=0.4, aligned_edge=LEFT)
    group.does, group.does_not = does, does_not
    return group


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


def get_weight_heatmap(weights, color, side: float = 0.16) -> VGroup:
    """One head's n × n weights shaded by weight (no numbers); future cells in the mask colour."""
    n = weights.shape[0]
    head = np.array(hex_rgb(color), dtype=float)
    background = np.array(hex_rgb(BACKGROUND), dtype=float)
    blocked = np.array(hex_rgb(MASK_COLOR), dtype=float)
    colors = np.empty((n, n, 3))
    for i in range(n):
        for j in range(n):
            if j > i:
                colors[i, j] = blocked
            else:
                alpha = weight_opacity(weights[i, j])
                colors[i, j] = alpha * head + (1 - alpha) * background
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


def sci_said(value: float) -> str:
    """How a measured difference is written in a sentence: its display text, or 'exactly' for 0."""
    return "exactly" if value == 0.0 else f"to {fmt_sci(value)}"


class BiasesAndLibraryLayer(LessonScene):
    """Scene 16: a projection bias is shared across positions (unlike position rows) and shifts head
    1's receiver row; bias=True adds 16 scalars; what nn.MultiheadAttention does and does not do;
    the scratch weights copied into PyTorch reproduce ΔE and both heads' weights (measured)."""

    def construct(self):
        ws = self.ws = scene_worksheet()
        self.bias = bias_illustration(sentence_from_env())
        self.title = get_title("Biases and the library layer")
        with self.transition("title"):
            self.play(FadeIn(self.title))
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
        self.counts.move_to(CONTENT_CENTER + UP * 0.1)
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
        with self.beat(f"A projection bias adds one fixed vector after the projection: "
                       f"here an illustrative {B_Q} on head 1’s query."):
            self.play(FadeIn(who), FadeIn(query.q))
            self.play(FadeIn(query.ops[0]), FadeIn(query.b, shift=0.2 * LEFT))
            self.play(FadeIn(query.ops[1]), FadeIn(query.sum, shift=0.2 * LEFT))

    def show_shared_bias(self, ws):
        note = self.fine_print = place_fine_print("A projection bias is shared across token positions (and batches).")
        with self.beat(f"The same {B_Q} is added at every position, and in every batch."):
            self.play(FadeIn(self.shared.bias_column, shift=0.1 * DOWN), FadeIn(note))

    def show_position_rows(self, ws):
        note = place_fine_print("Position embeddings depend on the position, so these are different operations.")
        with self.beat("A position row is different: each position adds its own row."):
            self.play(FadeIn(self.shared.position_column, shift=0.1 * DOWN),
                      ReplacementTransform(self.fine_print, note))
        self.fine_print = note

    def show_zero_input(self, ws):
        note = place_fine_print("A bias can shift the projection even for a zero input.")
        with self.beat("And a bias shifts the projection even for a zero input."):
            self.play(FadeIn(self.zero, shift=0.1 * UP), ReplacementTransform(self.fine_print, note))
        self.fine_print = note

    # shot 2 -----------------------------------------------------------------------------------
    def show_weights_without(self, ws):
        bias, n = self.bias, ws.n
        self.biggest_shift = most_shifted_source(bias)
        listed = listed_rows(bias.weights_without, bias.weights_with, keep=(self.biggest_shift,))
        table = self.table = get_bias_weight_table(list(ws.tokens), bias.weights_without, bias.weights_with,
                                                   listed=listed, scores=(bias.scores_without, bias.scores_with),
                                                   row_height=0.32, bar_max_width=1.0,
                                                   score_title=f"q·k (before ÷√{ws.heads[0].W_Q.shape[1]})")
        title = get_text(f"A{sup(1)}, row {n}: each source's score and weight", font_size=LABEL_SIZE,
                         color=head_color(1))
        self.listed = listed
        title.next_to(table, UP, buff=0.2).align_to(table.labels, LEFT)
        right = VGroup(title, table)
        right.to_edge(LEFT, buff=0.9).align_to(UP * (CONTENT_TOP - 0.1), UP)
        # the query and its bias move to the right, beside the table
        who = get_text(f"head 1’s query at “{receiver_word(ws)}”, row {n}", font_size=LABEL_SIZE,
                       color=head_color(1))
        target = VGroup(who, self.query.copy())
        target.arrange(DOWN, buff=0.3, aligned_edge=LEFT)
        target.next_to(right, RIGHT, buff=0.9).align_to(right, UP)
        if target.get_right()[0] > FRAME_RIGHT_SAFE:
            target.shift(LEFT * (target.get_right()[0] - FRAME_RIGHT_SAFE))
        with self.transition("the query moves beside the weights"):
            self.play(FadeOut(VGroup(self.shared, self.zero, self.fine_print)),
                      ReplacementTransform(VGroup(self.who, self.query), target), run_time=0.9)
        self.who, self.query_moved = target[0], target[1]
        self.query = target[1]
        self.query.q, self.query.b, self.query.sum = target[1][0], target[1][2], target[1][4]
        without = VGroup(title, table.head_without, table.rule, table.sum_label, table.sum_without,
                         table.group_heads, table.score_heads[0], table.scores_without,
                         *(VGroup(r[0], r[1], r[3]) for r in table.rows))
        note = self.fine_print = self.get_rounding_note(listed)
        with self.beat(f"Without a bias, head 1’s row {n} is the worksheet’s attention row."):
            self.play(FadeIn(without), FadeIn(note), run_time=1.0)

    def get_rounding_note(self, listed) -> VGroup:
        """The notes' rounding line, and what the rounded weights shown add to in each column (the
        full rows sum to one)."""
        from lesson_data.joining import sum_of_shown

        bias = self.bias
        sums = []
        for k, row in enumerate((bias.weights_without, bias.weights_with)):
            shown = [row[j] for j in listed.listed] + ([listed.pooled_sums[k]] if listed.pooled else [])
            sums.append(sum_of_shown(shown, 3))
        size = SMALL_SIZE + 2
        first = get_text("All displayed numbers are rounded; calculations use full precision.", font_size=size,
                         color=DIM_TEXT_COLOR)
        parts = [get_text("The rounded weights shown add to", font_size=size, color=DIM_TEXT_COLOR),
                 get_number(sums[0], tag="A_without_shown_sum", font_size=size, color=DIM_TEXT_COLOR),
                 get_text("and", font_size=size, color=DIM_TEXT_COLOR),
                 get_number(sums[1], tag="A_with_shown_sum", font_size=size, color=DIM_TEXT_COLOR),
                 get_text(".", font_size=size, color=DIM_TEXT_COLOR)]
        line = VGroup(*parts).arrange(RIGHT, buff=0.1)
        for part in parts:
            align_baseline(part, baseline_y(parts[1]))
        parts[-1].shift(LEFT * 0.07)
        note = VGroup(first, line).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
        return note.to_edge(LEFT, buff=0.6).align_to(UP * (CONTENT_BOTTOM + 0.02), DOWN)

    def show_weights_with(self, ws):
        table = self.table
        with_parts = VGroup(table.head_with, table.sum_with, table.score_heads[1], table.scores_with,
                            *(VGroup(r[2], r[4]) for r in table.rows))
        with self.beat(f"With {B_Q}, the scores change, so the whole row shifts; it still sums to one."):
            self.play(Indicate(self.query.sum, color=BIAS_COLOR, scale_factor=1.08))
            self.play(FadeIn(with_parts, shift=0.15 * LEFT), run_time=1.2)

    def show_biggest_shift(self, ws):
        bias = self.bias
        j = self.biggest_shift
        box = self.shift_box = get_table_row_box(self.table, j)
        places = self.table.score_places
        word = ws.tokens[j]
        moves = change_word(bias.scores_without[j], bias.scores_with[j])
        with self.beat(f"“{word}” moves most: its score {moves} from {fmt(bias.scores_without[j], places)} "
                       f"to {fmt(bias.scores_with[j], places)}, its weight from "
                       f"{fmt(bias.weights_without[j])} to {fmt(bias.weights_with[j])}."):
            self.play(Create(box))
            self.play(Indicate(VGroup(self.table.scores_with[self.table.sources.index(j)],
                                      self.table.with_bias[self.table.sources.index(j)]),
                               color=RECEIVER_COLOR, scale_factor=1.15))

    def show_why_no_bias(self):
        rounded = self.fine_print
        note = self.fine_print = place_fine_print("Omitting it keeps this example simpler; it is not a general "
                                                  "claim that bias-free attention is better.",
                                                  width=SAFE_WIDTH)
        with self.beat("We leave biases out to keep the example simple, not because bias-free attention is better."):
            self.play(FadeOut(rounded), FadeIn(note))

    # shot 3 -----------------------------------------------------------------------------------
    def show_bias_flag(self):
        c = self.counts
        with self.beat("In PyTorch, one flag, bias=True, adds such offsets to every projection."):
            self.play(FadeIn(c.code, shift=0.1 * DOWN))

    def show_input_offsets(self):
        c, d = self.counts, self.bias.d_model
        n_in = self.bias.extra_parameters["in_proj_bias"]
        with self.beat(f"With width {count_word(d)}: {count_word(d)} query, {count_word(d)} key and "
                       f"{count_word(d)} value offsets, {n_in} in all, stored together in in_proj_bias."):
            self.play(LaggedStart(*(FadeIn(g, shift=0.1 * UP) for g in c.query_key_value), lag_ratio=0.4),
                      run_time=1.5)
            self.play(FadeIn(c.in_group[0]))

    def show_output_offsets(self):
        c, counts = self.counts, self.bias.extra_parameters
        with self.beat(f"Plus {count_word(counts['out_proj.bias'])} output offsets in out_proj.bias: "
                       f"{counts['total']} additional trainable scalars."):
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
        with self.beat("The add_bias_kv option is something else, not this flag.",
                       spoken="The add bias k v option is something else, not this flag."):
            self.play(FadeIn(self.counts.kv_note))

    def show_ours_omit(self):
        c = self.counts
        note = self.fine_print = place_fine_print(
            "Both our scratch implementation and trained attention variants omit attention projection biases; "
            "their prediction MLP layers retain biases.")
        with self.beat("Our layers leave these biases out: in code, bias=False."):
            # with bias=False the offsets are gone: the picture says what the sentence says
            self.play(ReplacementTransform(c.code, c.code_off),
                      FadeOut(VGroup(c.in_group, c.out_group, c.total, c.legend, c.kv_note)), FadeIn(note))
        c.code = c.code_off

    # shot 4 -----------------------------------------------------------------------------------
    def build_library(self, ws):
        n = ws.n
        code = self.code = get_library_code(ws)
        lists = self.lists = get_does_and_does_not()
        page = VGroup(code, lists).arrange(RIGHT, buff=0.7, aligned_edge=UP)
        page.move_to(CONTENT_CENTER + UP * 0.4)
        from lesson_data.joining import averaged_attention

        # the right of the code panel holds one picture at a time: the mask, then the two heads' grids
        region_left, region_right = code.get_right()[0] + 0.5, FRAME_RIGHT_SAFE
        middle = (region_left + region_right) / 2
        self.mask_group = get_mask_picture(n)
        self.mask_group.move_to([middle, 0, 0]).align_to(code, UP)
        self.maps = VGroup(*(get_weight_picture(head.weights, head_color(head.index),
                                                f"A[0, {head.index - 1}]: head {head.index}", head_color(head.index),
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

    def show_library_call(self, ws):
        with self.beat("One library call computes the whole attention update, ΔE, and the weights."):
            self.play(FadeIn(self.code, shift=0.1 * DOWN))

    def show_inside(self):
        with self.beat("Inside it: each head’s Q, K and V, the masked softmax, the concat and W_O."):
            self.play(FadeIn(self.lists.does, shift=0.1 * LEFT))

    def show_not_inside(self):
        note = self.fine_print = place_fine_print(
            "The library layer does not add position embeddings, the residual or the vocabulary classifier.")
        with self.beat("Not inside: the position rows, the residual, and the prediction MLP."):
            self.play(FadeIn(self.lists.does_not, shift=0.1 * LEFT), FadeIn(note))

    def show_mask(self, ws):
        line = self.code.find("attn_mask")
        bar = self.code_bar = self.code.get_line_box(line)
        with self.transition("the lists make room for the weights"):
            self.play(*fade_out(self, self.lists, self.fine_print))
        with self.beat("attn_mask=future blocks every source after the receiver."):
            self.play(FadeIn(bar), FadeIn(self.mask_group))

    def show_per_head_weights(self, ws):
        line = self.code.find("average_attn_weights")
        bar = self.code.get_line_box(line)
        with self.beat("average_attn_weights=False returns each head’s weights separately."):
            self.play(ReplacementTransform(self.code_bar, bar), FadeOut(self.mask_group))
            self.play(FadeIn(self.maps))
        self.code_bar = bar

    def show_diagnostic_only(self):
        note = self.fine_print = place_fine_print(
            "average_attn_weights=False returns each head’s weight grid separately; it changes the returned "
            "diagnostic weights, not how the head messages combine.")
        with self.beat("It changes only the weights we get back, not how the messages combine."):
            self.play(*fade_out(self, self.code, self.code_bar), ReplacementTransform(self.maps, self.maps_wide),
                      FadeIn(note))
            self.play(FadeIn(self.average, shift=0.2 * LEFT), FadeIn(self.same, shift=0.1 * UP))

    # shot 5 -----------------------------------------------------------------------------------
    def build_parity(self, ws):
        from lesson_data.parity import pytorch_parity  # imports torch: only when the shot needs it

        parity = self.parity = pytorch_parity(sentence_from_env())
        head = get_text("our weights, copied into PyTorch,\nrun on the same sentence",
                        font_size=LABEL_SIZE + 2, line_spacing=0.8)
        table = self.parity_table = get_parity_table(parity)
        note = get_text(f"measured at render time:\n{parity['dtype']}, torch {parity['torch_version']}",
                        font_size=LABEL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.8)
        credit = get_text("See the PyTorch documentation:\ntorch.nn.MultiheadAttention",
                          font_size=LABEL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.8)
        block = VGroup(head, table, note, credit).arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        block.next_to(self.code, RIGHT, buff=0.6).align_to(self.code, UP)
        self.parity_head, self.parity_note, self.credit = head, note, credit

    def show_copy(self, ws):
        with self.transition("the pictures go; the code comes back"):
            self.play(*fade_out(self, self.maps_wide, self.average, self.same, self.fine_print),
                      FadeIn(self.code))
        with self.beat("We copy our weights into PyTorch and run the same sentence."):
            self.play(FadeIn(self.parity_head, shift=0.1 * DOWN), FadeIn(self.parity_note))

    def show_delta_parity(self):
        t, p = self.parity_table, self.parity
        with self.beat(f"ΔE agrees {sci_said(p['max_abs_delta_E_diff'])}: the only difference is floating-point "
                       "rounding."):
            self.play(FadeIn(t.labels[0]), FadeIn(t.numbers[0], scale=1.2))

    def show_weight_parity(self):
        t, p = self.parity_table, self.parity
        diffs = p["max_abs_weight_diff"]
        said = " and ".join(fmt_sci(x) for x in diffs) if all(diffs) else "exactly"
        with self.beat(f"Both heads’ weights agree too: {said}, measured as this video was made."):
            self.play(LaggedStart(*(FadeIn(VGroup(label, number)) for label, number in zip(t.labels[1:], t.numbers[1:])),
                                  lag_ratio=0.4), FadeIn(self.credit))


# ============================================================================================
# Scene 17 — Recap and the loop
# ============================================================================================

RECAP_UNIT = 0.1


def get_head_stage(head) -> VGroup:
    """One head as a compact stage: its name, Q K V → A → H, and H's shape."""
    color = head_color(head.index)
    h = sup(head.index)
    name = get_text(f"head {head.index} ({head.name})", font_size=LABEL_SIZE, color=color)
    inner = get_text(f"Q{h} K{h} V{h} → A{h} → H{h}", font_size=LABEL_SIZE, color=color)
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
    diagram = VGroup(chain, links, residual, residual_label, last_row, last_row_box)
    diagram.last_row_box = last_row_box
    diagram.e_box, diagram.heads, diagram.concat, diagram.w_o, diagram.delta = e_box, heads, concat, w_o, delta
    diagram.plus, diagram.e_prime, diagram.mlp, diagram.prediction = plus, e_prime, mlp, prediction
    diagram.links, diagram.residual = links, VGroup(residual, residual_label)
    diagram.last_row = last_row
    return diagram


def get_training_panel(diagram) -> VGroup:
    """Training, drawn under the recap diagram: the prediction's vocabulary logits into softmax and
    cross-entropy, the observed next-token ID as the target, and the loss routed back (dashed) from
    "cross-entropy loss" into every block that learns: both heads, W_O and the MLP (one trunk along a
    line above the loss, into head 1 through the gap between the heads; a branch up into each other)."""
    title = get_text("training", font_size=LABEL_SIZE + 2, color=TEXT_COLOR)
    chain = get_text("vocabulary logits → softmax →", font_size=LABEL_SIZE)
    cross = get_text("cross-entropy loss", font_size=LABEL_SIZE)
    loss = VGroup(chain, cross).arrange(RIGHT, buff=0.14)
    align_baseline(cross, baseline_y(chain))
    loss.cross = cross
    target = get_text("target: the observed next token", font_size=LABEL_SIZE, color=RECEIVER_COLOR)
    y_loss = diagram.get_bottom()[1] - 0.72
    loss.move_to([0, y_loss, 0]).align_to(diagram.prediction, RIGHT)
    target.next_to(loss, DOWN, buff=0.3).align_to(loss, RIGHT)
    start = diagram.mlp.box.get_bottom()
    logit_arrow = get_arrow(start, [start[0], loss.get_top()[1] + 0.05, 0])
    tx = cross.get_x() + 0.45
    target_arrow = get_arrow([tx, target.get_top()[1], 0], [tx, loss.get_bottom()[1], 0],
                             color=RECEIVER_COLOR, buff=0.05)
    title.next_to(loss, LEFT, buff=0.5)
    learners = VGroup(*diagram.heads, diagram.w_o, diagram.mlp)

    def dashed(points):
        path = VGroup(*(DashedLine(p, q, dash_length=0.12).set_stroke(RECEIVER_COLOR, 2.5)
                        for p, q in zip(points[:-2], points[1:-1])))
        path.add(get_arrow(points[-2], points[-1], color=RECEIVER_COLOR, buff=0, stroke_width=2.5))
        return path

    h1, h2 = diagram.heads[0], diagram.heads[1]
    y_bus = loss.get_top()[1] + 0.3
    sx = cross.get_left()[0] + 0.25
    x_left = (diagram.e_box.box.get_right()[0] + h1.box.get_left()[0]) / 2
    y_gap = (h1.box.get_bottom()[1] + h2.get_top()[1]) / 2
    x_h1 = h1.box.get_x() - 0.6
    trunk = dashed([[sx, cross.get_top()[1] + 0.05, 0], [sx, y_bus, 0], [x_left, y_bus, 0], [x_left, y_gap, 0],
                    [x_h1, y_gap, 0], [x_h1, h1.box.get_bottom()[1] - 0.03, 0]])
    back = VGroup(trunk)
    for x, top in ((h2.box.get_x(), h2.box.get_bottom()[1]), (diagram.w_o.get_x(), diagram.w_o.get_bottom()[1]),
                   (diagram.mlp.box.get_x() - 0.25, diagram.mlp.box.get_bottom()[1])):
        back.add(VGroup(get_arrow([x, y_bus, 0], [x, top - 0.05, 0], color=RECEIVER_COLOR, buff=0,
                                  stroke_width=2.5)))
    update = VGroup()           # the dashed paths say it; the sentence names the blocks
    panel = VGroup(title, loss, logit_arrow, target, target_arrow, back, update)
    panel.title, panel.loss, panel.logit_arrow, panel.target, panel.target_arrow = title, loss, logit_arrow, target, target_arrow
    panel.back, panel.update, panel.learners = back, update, learners
    return panel


def _outside(node, point, margin=0.08) -> bool:
    box = node[0]
    return (abs(point[0] - box.get_x()) > box.width / 2 + margin
            or abs(point[1] - box.get_y()) > box.height / 2 + margin)


def get_inference_cycle(ws, radius: float = 1.7) -> VGroup:
    """tokenize → run → choose → append, clockwise on a circle; each arc runs from box edge to box edge."""
    steps = ["tokenize", "run", "choose", "append"]
    angles = [np.pi / 2, 0.0, -np.pi / 2, np.pi]
    nodes = VGroup()
    for step, angle in zip(steps, angles):
        t = get_text(step, font_size=LABEL_SIZE)
        box = RoundedRectangle(corner_radius=0.12, width=t.width + 0.3, height=0.46)
        box.set_stroke(TEXT_COLOR, 1.5).set_fill(BACKGROUND, 1.0)
        nodes.add(VGroup(box, t).move_to(radius * np.array([np.cos(angle), np.sin(angle), 0.0])))

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
    for k in range(4):
        a0 = angles[k] - clearance(nodes[k], angles[k], -1)
        a1 = angles[(k + 1) % 4] + clearance(nodes[(k + 1) % 4], angles[(k + 1) % 4], +1)
        if a1 > a0:  # going clockwise from the left node (π) up to the top one (π/2)
            a1 -= 2 * np.pi
        arc = Arc(radius=radius, start_angle=a0, angle=a1 - a0)
        arc.set_stroke(DIM_TEXT_COLOR, 2.5)
        arc.add_tip(tip_length=0.15, tip_width=0.15)
        arc.get_tip().set_fill(DIM_TEXT_COLOR, 1).set_stroke(DIM_TEXT_COLOR, 1)
        arcs.add(arc)
    centre = get_text("weights\nremain fixed", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.8)
    # the way back carries the chosen token's ID: the prefix is not tokenized again
    back = get_text("with the new token ID", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
    back.move_to(radius * np.array([-0.72, 0.72, 0.0]), aligned_edge=DOWN + RIGHT).shift(LEFT * 0.05 + UP * 0.05)
    cycle = VGroup(arcs, nodes, centre, back)
    cycle.nodes, cycle.arcs, cycle.centre, cycle.back_label = nodes, arcs, centre, back
    return cycle


def get_appended_prefix(ws) -> VGroup:
    """… the last three words of the prefix, then the predicted word in a box: the loop's output."""
    words = ws.text.split() if len(ws.text.split()) == ws.n else list(ws.tokens)
    shown = ["…", *words[-3:]]
    parts = VGroup(*(get_text(w, font_size=LABEL_SIZE + 2) for w in shown))
    new = get_text(ws.mlp.prediction, font_size=LABEL_SIZE + 2, color=PREDICTED_COLOR)
    box = SurroundingRectangle(new, buff=0.08, color=PREDICTED_COLOR, stroke_width=2)
    row = VGroup(*parts, VGroup(new, box)).arrange(RIGHT, buff=0.15)
    for w in row:
        align_baseline(w if not isinstance(w, VGroup) else w[0], baseline_y(parts[1]))
    row[-1][1].move_to(row[-1][0])
    row.new_word = VGroup(new, box)
    row.old_words = parts
    return row


class RecapAndLoop(LessonScene):
    """Scene 17: the whole two-head diagram again, built stage by stage at full size with the
    worksheet's prediction; then training (the observed next token is the target) against the
    inference loop (tokenize, run, choose, append, with the weights fixed)."""

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
        self.clear_stage(self.title)
        self.build_loop(ws)
        self.show_first_steps()
        self.show_last_steps()
        self.show_append(ws)

    # pictures ---------------------------------------------------------------------------------
    def build_diagram(self, ws):
        diagram = self.diagram = get_recap_diagram(ws)
        if diagram.width > SAFE_WIDTH:
            raise ValueError(f"the recap diagram is {diagram.width - SAFE_WIDTH:.2f} too wide")
        diagram.move_to(CONTENT_CENTER + UP * 0.35)

    def build_training(self, ws):
        """Under the diagram: the prediction's logits against the observed next token, and the loss
        flowing back into every block that learns (both heads, W_O, the MLP)."""
        training = self.training = get_training_panel(self.diagram)

    def build_loop(self, ws):
        cycle = self.cycle = get_inference_cycle(ws)
        inference_title = self.inference_title = get_text("inference", font_size=BODY_SIZE)
        prefix = self.prefix = get_appended_prefix(ws)
        right = VGroup(inference_title, cycle, prefix).arrange(DOWN, buff=0.3)
        right.move_to(CONTENT_CENTER + UP * 0.3)

    # beats: the diagram -----------------------------------------------------------------------
    def show_input(self):
        d = self.diagram
        note = self.fine_print = place_fine_print("This repeats the same two-head diagram after the detailed "
                                                  "arithmetic, rather than introducing a new architecture.")
        with self.beat("Let's rebuild the whole two-head layer, step by step."):
            self.play(FadeIn(d.e_box, shift=0.2 * RIGHT), FadeIn(note))

    def show_heads(self, ws):
        d = self.diagram
        n, width = ws.E.shape
        rows = f"{count_word(n)} row{'s' if n != 1 else ''}"
        with self.beat(f"E, {rows} of width {count_word(width)}, goes into both heads; "
                       "each makes its own messages."):
            self.play(*(GrowArrow(a) for a in d.links[0:2]), FadeIn(d.heads, shift=0.15 * RIGHT), run_time=1.2)

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
            self.play(GrowArrow(d.links[8]), FadeIn(d.last_row), FadeIn(d.mlp))

    def show_prediction(self, ws):
        d = self.diagram
        word, p = ws.mlp.ranked[0]
        with self.beat(f"For our sentence, the most probable next word is “{word}”: {fmt(p)}."):
            self.play(GrowArrow(d.links[9]), FadeIn(d.prediction, shift=0.15 * RIGHT))
            self.play(Indicate(d.prediction[1], color=PREDICTED_COLOR, scale_factor=1.15))

    def show_scope(self):
        d = self.diagram
        scope = self.scope = get_text("This teaching model has one attention update and a prediction MLP;\n"
                                      "it is not a diagram of every component in a deep production Transformer.",
                                      font_size=LABEL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.8)
        scope.next_to(d, DOWN, buff=0.5)
        box = self.scope_box = RoundedRectangle(corner_radius=0.12, width=scope.width + 0.4, height=scope.height + 0.4)
        box.set_stroke(DIM_TEXT_COLOR, 1.5).move_to(scope)
        with self.beat("That is the whole teaching model; a deep Transformer has many more parts."):
            self.play(FadeOut(self.fine_print), FadeIn(VGroup(box, scope)))

    # beats: training and inference ------------------------------------------------------------
    def show_training_target(self):
        t = self.training
        note = self.fine_print = place_fine_print("At training time, the observed next-token ID is the target "
                                                  "for the vocabulary logits.")
        with self.transition("the scope note leaves; the diagram stays"):
            self.play(FadeOut(VGroup(self.scope, self.scope_box)))
        with self.beat("In training, the word that really comes next is the target for the vocabulary logits."):
            self.play(FadeIn(t.title), GrowArrow(t.logit_arrow), FadeIn(t.loss, shift=0.1 * DOWN))
            self.play(FadeIn(t.target, shift=0.1 * LEFT), GrowArrow(t.target_arrow), FadeIn(note))

    def show_weight_update(self):
        t = self.training
        with self.beat("The loss flows back and updates the weights of every block: both heads, W_O and the MLP."):
            self.play(Create(t.back[0]), run_time=1.6)
            self.play(LaggedStart(*(GrowArrow(path[0]) for path in t.back[1:]), lag_ratio=0.3), run_time=1.0)
            self.play(*(Indicate(block, color=RECEIVER_COLOR, scale_factor=1.05) for block in t.learners))

    def show_first_steps(self):
        c = self.cycle
        note = place_fine_print("At inference time, weights remain fixed: tokenize a prefix, run the model, "
                                "choose a next token and append it.")
        with self.beat("At inference the weights stay fixed: tokenize the prefix, then run the model."):
            self.play(FadeIn(self.inference_title), FadeIn(c.centre), FadeIn(note))
            self.play(FadeIn(c.nodes[0]), FadeIn(c.nodes[1]))
            self.play(Create(c.arcs[0]), run_time=0.8)
        self.fine_print = note

    def show_last_steps(self):
        c = self.cycle
        with self.beat("Choose the next token, and append it."):
            self.play(FadeIn(c.nodes[2]), Create(c.arcs[1]), run_time=0.8)
            self.play(FadeIn(c.nodes[3]), Create(c.arcs[2]), run_time=0.8)

    def show_append(self, ws):
        c = self.cycle
        with self.beat(f"“{ws.mlp.prediction}” joins the prefix, and the loop goes round again.", look=1.0):
            self.play(FadeIn(self.prefix.old_words), FadeIn(self.prefix.new_word, shift=0.2 * LEFT))
            self.play(Create(c.arcs[3]), FadeIn(c.back_label), Indicate(c.nodes[1], color=RECEIVER_COLOR,
                                                                          scale_factor=1.12), run_time=1.0)


__all__ = ["BiasesAndLibraryLayer", "RecapAndLoop", "SciNumberText", "get_sci_number"]
