"""Chapter 2, scenes 16–17: projection biases and the library layer, then the recap and the loop.

Scene 16 takes its numbers from `bias_illustration` (head 1's receiver query without and with an
illustrative b_Q) and from `pytorch_parity` (the MEASURED max differences after copying the scratch
weights into torch.nn.MultiheadAttention, at render time). Scene 17 redraws the whole two-head
diagram with the worksheet's prediction. The sentence comes from LESSON_SENTENCE (default "river");
captions follow the lesson notes (docs/lesson-notes.txt).

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
    Arrow,
    Circle,
    Create,
    FadeIn,
    FadeOut,
    Indicate,
    LaggedStart,
    Line,
    Rectangle,
    RoundedRectangle,
    Square,
    SurroundingRectangle,
    Text,
    VGroup,
    VMobject,
)

from lesson_data.display import fmt_sci
from lesson_data.worksheet import HEAD_NAMES, bias_illustration, sentence_from_env
from scenes.blocks.labeled_matrix import get_row_vector
from scenes.blocks.masked_matrix import weight_opacity
from scenes.blocks.shape_box import get_shape_box
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
    FONT,
    HIGHLIGHT_OPACITY,
    LABEL_SIZE,
    MASK_COLOR,
    NEGATIVE_COLOR,
    NUMBER_SIZE,
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
    fit_content,
    format_shape,
    get_number,
    get_text,
    get_title,
    head_color,
    scene_worksheet,
    sub,
    sup,
)

MONO_FONT = "DejaVu Sans Mono"   # code on screen: plain Text in a monospace face (no Code object)
CODE_SIZE = 17
BIAS_COLOR = POSITIVE_COLOR      # the bias vector b_Q, wherever it appears
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


def get_count(n: int, *, tag: str, font_size: float = LABEL_SIZE, color: str = TEXT_COLOR):
    """An integer count through the display rule (fmt with 0 places)."""
    return get_number(n, 0, tag=tag, font_size=font_size, color=color)


def get_code(text: str, font_size: float = CODE_SIZE, comment_color: str = DIM_TEXT_COLOR) -> Text:
    """Code as monospace Text; `# ...` comments dimmed."""
    t2c = {}
    for line in text.splitlines():
        if "#" in line:
            t2c[line[line.index("#"):]] = comment_color
    return Text(text, font=MONO_FONT, font_size=font_size, color=TEXT_COLOR, t2c=t2c,
                disable_ligatures=True, line_spacing=0.7)


def get_mono(text: str, font_size: float = SMALL_SIZE, color: str = TEXT_COLOR) -> Text:
    """A single identifier or expression in the monospace code face."""
    return Text(text, font=MONO_FONT, font_size=font_size, color=color, disable_ligatures=True)


def get_arrow(start, end, color=DIM_TEXT_COLOR, buff=0.1, **kwargs) -> Arrow:
    return Arrow(start, end, buff=buff, stroke_width=3, tip_length=0.16, max_tip_length_to_length_ratio=0.5,
                 max_stroke_width_to_length_ratio=20, color=color, **kwargs)


def get_panel_box(mob, color=DIM_TEXT_COLOR, buff=0.2) -> RoundedRectangle:
    box = RoundedRectangle(corner_radius=0.12, width=mob.width + 2 * buff, height=mob.height + 2 * buff)
    return box.set_stroke(color, 1.5).set_fill(BACKGROUND, 0).move_to(mob)


def receiver_word(ws) -> str:
    return ws.tokens[-1]


# ============================================================================================
# Scene 16 — Biases and the library layer
# ============================================================================================


def get_query_with_bias(bias, n: int) -> VGroup:
    """q¹ₙ + b_Q = (q¹ₙ + b_Q): head 1's receiver query, the illustrative bias and their sum."""
    h1 = head_color(1)
    coords = ["a", "b"]
    q = get_row_vector(bias.query_without, coords, name=f"q{sup(1)}{sub(n)}", tag="q_without",
                       color=h1, name_color=h1)
    b = get_row_vector(bias.b_Q, coords, name="b_Q (illustrative)", tag="b_Q", color=BIAS_COLOR,
                       name_color=BIAS_COLOR)
    s = get_row_vector(bias.query_with, coords, name=f"q{sup(1)}{sub(n)} + b_Q", tag="q_with",
                       color=h1, name_color=h1)
    plus = get_text("+", font_size=BODY_SIZE)
    equals = get_text("=", font_size=BODY_SIZE)
    group = VGroup(q, plus, b, equals, s).arrange(RIGHT, buff=0.25)
    for op in (plus, equals):
        op.set_y(q.cell_center(0, 0)[1])
    group.q, group.b, group.sum, group.ops = q, b, s, VGroup(plus, equals)
    return group


def get_shared_versus_position(ws) -> VGroup:
    """Two short columns: the same b_Q on every query row vs a different position row per slot."""
    n = ws.n
    h = sup(1)
    rows = [1, 2, None, n] if n > 3 else list(range(1, n + 1))

    def column(title, title_color, line_for):
        lines = [get_text(title, font_size=SMALL_SIZE + 1, color=title_color)]
        for p in rows:
            lines.append(get_text("⋮", font_size=SMALL_SIZE + 1, color=DIM_TEXT_COLOR) if p is None
                         else line_for(p))
        col = VGroup(*lines).arrange(DOWN, buff=0.12, aligned_edge=LEFT)
        for line in lines[1:]:
            if line.original_text == "⋮":
                line.shift(RIGHT * 0.3)
        return col

    def bias_line(p):
        return get_text(f"q{h}{sub(p)} = e{sub(p)}W_Q{h} + b_Q", font_size=SMALL_SIZE + 1,
                        t2c={"b_Q": BIAS_COLOR})

    def position_line(p):
        return get_text(f"e{sub(p)} = {ws.tokens[p - 1]} + p{sub(p)}", font_size=SMALL_SIZE + 1,
                        t2c={f"p{sub(p)}": RECEIVER_COLOR})

    left = column("a bias: the same b_Q for every row", BIAS_COLOR, bias_line)
    right = column("position rows: one per position", RECEIVER_COLOR, position_line)
    panel = VGroup(left, right).arrange(RIGHT, buff=0.6, aligned_edge=UP)
    panel.bias_column, panel.position_column = left, right
    return panel


class BiasWeightTable(VGroup):
    """Receiver row of A¹ without and with the bias: word | without | with | paired bars."""


def get_bias_weight_table(labels, without, with_bias, *, color=None, row_height=0.34,
                          bar_max_width=1.4) -> BiasWeightTable:
    color = color or head_color(1)
    without = np.asarray(without, dtype=float)
    with_bias = np.asarray(with_bias, dtype=float)
    table = BiasWeightTable()
    table.labels = VGroup(*(get_text(w, font_size=SMALL_SIZE + 1) for w in labels))
    table.without = VGroup(*(get_number(a, tag="A_without", index=j, color=DIM_TEXT_COLOR)
                             for j, a in enumerate(without)))
    table.with_bias = VGroup(*(get_number(a, tag="A_with", index=j, color=color)
                               for j, a in enumerate(with_bias)))
    number_w = max(m.width for m in [*table.without, *table.with_bias])
    x_label = 0.0
    x_without = x_label + BUFF + number_w
    x_with = x_without + BUFF_LARGE + number_w
    x_bar = x_with + 2 * BUFF_SMALL
    table.bars_without, table.bars_with, rows = VGroup(), VGroup(), []
    for j in range(len(labels)):
        y = -j * row_height
        a, b, label = table.without[j], table.with_bias[j], table.labels[j]
        a.move_to([x_without, y, 0], aligned_edge=RIGHT)
        b.move_to([x_with, y, 0], aligned_edge=RIGHT)
        label.move_to([x_label, y, 0], aligned_edge=RIGHT)
        align_baseline(label, baseline_y(a))
        thin = row_height * 0.28
        bar0 = Rectangle(width=max(bar_max_width * without[j], 1e-3), height=thin).set_stroke(width=0)
        bar0.set_fill(DIM_TEXT_COLOR, 0.8).move_to([x_bar, y + thin / 2 + 0.01, 0], aligned_edge=LEFT)
        bar1 = Rectangle(width=max(bar_max_width * with_bias[j], 1e-3), height=thin).set_stroke(width=0)
        bar1.set_fill(color, 0.9).move_to([x_bar, y - thin / 2 - 0.01, 0], aligned_edge=LEFT)
        table.bars_without.add(bar0)
        table.bars_with.add(bar1)
        rows.append(VGroup(label, a, b, bar0, bar1))
    table.rows = VGroup(*rows)
    head_y = row_height * 0.9
    table.head_without = get_text("no bias", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    table.head_with = get_text("with b_Q", font_size=SMALL_SIZE, color=color)
    table.head_without.move_to([x_without - number_w / 2, head_y, 0])
    table.head_with.move_to([x_with - number_w / 2, head_y, 0])
    y_sum = -len(labels) * row_height - 0.08
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
              table.sum_without, table.sum_with)
    return table


def get_table_row_box(table, j: int, color=SOURCE_COLOR) -> Rectangle:
    """Highlight of row j across label, both weights and bars (from the table's current geometry)."""
    row = table.rows[j]
    pitch = abs(table.rows[0][1].get_y() - table.rows[1][1].get_y()) if len(table.rows) > 1 else 0.34
    box = Rectangle(width=table.extent.width, height=pitch)
    box.set_stroke(color, 2).set_fill(color, HIGHLIGHT_OPACITY)
    return box.move_to([table.extent.get_x(), row[1].get_y(), 0])


def get_offset_cells(count: int, per_head: int, unit=0.42, colors=None) -> VGroup:
    """`count` small squares, one per bias scalar, coloured by head in slices of `per_head`."""
    cells = VGroup()
    for k in range(count):
        color = colors[k] if colors is not None else head_color(1 + (k // per_head) % 2)
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
    """bias=True: in_proj_bias = query | key | value offsets (each split by head), out_proj.bias."""
    d = bias.d_model
    per_head = d // bias.num_heads
    counts = bias.extra_parameters
    code = get_code(f"nn.MultiheadAttention(embed_dim={d}, num_heads={bias.num_heads}, bias=True)",
                    font_size=CODE_SIZE + 3)

    groups = VGroup()
    for name in ("query", "key", "value"):
        cells = get_offset_cells(d, per_head)
        label = get_text(f"{count_word(d)} {name} offsets", font_size=SMALL_SIZE + 2, color=DIM_TEXT_COLOR)
        groups.add(VGroup(cells, label.next_to(cells, DOWN, buff=BUFF_SMALL)))
    groups.arrange(RIGHT, buff=0.35, aligned_edge=UP)
    in_head = get_named_count("in_proj_bias", counts["in_proj_bias"], "in_proj_bias")
    in_head.next_to(groups, UP, buff=0.25)
    in_group = VGroup(in_head, groups)

    n_out = counts["out_proj.bias"]
    out_cells = get_offset_cells(n_out, per_head, colors=[TEXT_COLOR] * n_out)
    out_label = get_text(f"{count_word(n_out)} output offsets", font_size=SMALL_SIZE + 2, color=DIM_TEXT_COLOR)
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
    for i, name in zip((1, 2), bias_head_names(bias)):
        sw = Square(side_length=0.24).set_stroke(head_color(i), 1.5).set_fill(head_color(i), 0.55)
        swatches.add(VGroup(sw, get_text(f"head {i} ({name})", font_size=SMALL_SIZE + 2)).arrange(RIGHT, buff=0.12))
    slice_note = VGroup(
        get_text("each head’s Q/K/V bias slice has width", font_size=SMALL_SIZE + 2),
        get_count(per_head, tag="slice_width", font_size=SMALL_SIZE + 2),
    ).arrange(RIGHT, buff=0.1)
    align_baseline(slice_note[1], baseline_y(slice_note[0]))
    legend = VGroup(*swatches, slice_note).arrange(RIGHT, buff=0.45)
    kv_note = get_text("add_bias_kv is a different option, not this bias flag", font_size=SMALL_SIZE + 1,
                       color=DIM_TEXT_COLOR)

    layout = VGroup(code, blocks, legend, total, kv_note).arrange(DOWN, buff=0.45)
    layout.code, layout.in_group, layout.out_group, layout.total = code, in_group, out_group, total
    layout.legend, layout.kv_note = legend, kv_note
    layout.counts = VGroup(in_head.count, out_head.count)
    return layout


def bias_head_names(bias) -> tuple[str, ...]:
    return HEAD_NAMES[: bias.num_heads]


def get_library_code(ws) -> Text:
    """The library call that reproduces the worksheet's attention update (as lesson_data.parity runs it)."""
    n, d = ws.E.shape
    heads = len(ws.heads)
    lines = [
        ("mha = nn.MultiheadAttention(", ""),
        (f"    embed_dim={d}, num_heads={heads}, bias=False,", ""),
        ("    batch_first=True, dtype=torch.float64)", ""),
        ("delta_E, A = mha(E, E, E,", f"# E: {format_shape((1, n, d))}"),
        ("    attn_mask=future,", "# True = blocked"),
        ("    need_weights=True,", ""),
        ("    average_attn_weights=False)", ""),
        ("", f"# delta_E: {format_shape((1, n, d))}   A: {format_shape((1, heads, n, n))}"),
    ]
    column = max(len(code) for code, comment in lines if comment and code) + 2
    text = "\n".join((code.ljust(column) + comment if code and comment else code or comment).rstrip()
                     for code, comment in lines)
    return get_code(text)


def get_does_and_does_not() -> VGroup:
    def items(title, color, mark, lines):
        rows = [get_text(title, font_size=LABEL_SIZE, color=color)]
        for line in lines:
            rows.append(VGroup(get_text(mark, font_size=LABEL_SIZE, color=color),
                               get_text(line, font_size=SMALL_SIZE + 1)).arrange(RIGHT, buff=0.15))
        return VGroup(*rows).arrange(DOWN, buff=0.14, aligned_edge=LEFT)

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
    group = VGroup(does, does_not).arrange(DOWN, buff=0.35, aligned_edge=LEFT)
    group.does, group.does_not = does, does_not
    return group


def _rgb(color: str) -> np.ndarray:
    color = color.lstrip("#")
    return np.array([int(color[k:k + 2], 16) for k in (0, 2, 4)], dtype=float)


def get_cell_grid(colors: np.ndarray, side: float = 0.16) -> VGroup:
    """An n × n grid of flat colours (RGB 0–255), cells of one colour merged into one VMobject.

    Merging keeps fades cheap (copying a mask triangle is one mobject, not 45 squares); the cell
    outlines are drawn in the background colour so the grid still reads as cells.
    """
    n_rows, n_cols = colors.shape[:2]
    by_color: dict = {}
    for i in range(n_rows):
        for j in range(n_cols):
            by_color.setdefault(tuple(int(round(c)) for c in colors[i, j]), []).append((i, j))
    grid = VGroup()
    for rgb, cells in by_color.items():
        shape = VMobject()
        for i, j in cells:
            square = Square(side_length=side).move_to([j * side, -i * side, 0])
            shape.append_points(square.points)
        hex_color = "#" + "".join(f"{c:02X}" for c in rgb)
        shape.set_fill(hex_color, 1.0).set_stroke(BACKGROUND, 1)
        grid.add(shape)
    grid.side = side
    return grid


def get_mask_grid(n: int, side: float = 0.16) -> VGroup:
    """attn_mask=future drawn n × n: True (blocked, mask colour) above the diagonal, allowed light."""
    allowed = _rgb(DIM_TEXT_COLOR)
    blocked = _rgb(MASK_COLOR)
    colors = np.array([[blocked if j > i else allowed for j in range(n)] for i in range(n)])
    return get_cell_grid(colors, side)


def get_weight_heatmap(weights, color, side: float = 0.16) -> VGroup:
    """One head's n × n weights shaded by weight (no numbers); future cells in the mask colour."""
    n = weights.shape[0]
    head, background, blocked = _rgb(color), _rgb(BACKGROUND), _rgb(MASK_COLOR)
    colors = np.empty((n, n, 3))
    for i in range(n):
        for j in range(n):
            if j > i:
                colors[i, j] = blocked
            else:
                alpha = weight_opacity(weights[i, j])
                colors[i, j] = alpha * head + (1 - alpha) * background
    return get_cell_grid(colors, side)


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
    labels.arrange(DOWN, buff=0.3, aligned_edge=RIGHT)
    for label, number in zip(labels, numbers):
        number.next_to(label, RIGHT, buff=0.5)
        align_baseline(number, baseline_y(label))
    numbers_x = max(m.get_left()[0] for m in numbers)
    for m in numbers:
        m.shift(RIGHT * (numbers_x - m.get_left()[0]))
    table = VGroup(labels, numbers)
    table.labels, table.numbers = labels, numbers
    return table


class BiasesAndLibraryLayer(LessonScene):
    def construct(self):
        ws = scene_worksheet()
        bias = bias_illustration(sentence_from_env())
        self.ws, self.bias = ws, bias
        n = ws.n
        title = get_title("Biases and the library layer")
        self.play(FadeIn(title))

        # --- Shot 1: a bias is shared across positions; position rows are not ---------------------
        self.shot("shared bias")
        query = get_query_with_bias(bias, n)
        who = get_text(f"head {1} ({ws.heads[0].name}) at the receiver “{receiver_word(ws)}”, row {n}",
                       font_size=LABEL_SIZE, color=head_color(1))
        shared = get_shared_versus_position(ws)
        zero = get_text(f"zero input:  0 · W_Q{sup(1)} + b_Q = b_Q", font_size=SMALL_SIZE + 1,
                        t2c={"b_Q": BIAS_COLOR})
        left = VGroup(who, query, shared, zero).arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        table = get_bias_weight_table(ws.tokens, bias.weights_without, bias.weights_with)
        table_title = get_text(f"A{sup(1)}, row {n}: weights on each source", font_size=LABEL_SIZE,
                               color=head_color(1))
        table_title.next_to(table, UP, buff=0.45).align_to(table.labels, LEFT)
        right = VGroup(table_title, table)
        layout = VGroup(left, right).arrange(RIGHT, buff=0.8, aligned_edge=UP)
        fit_content(layout)
        self.query, self.shared, self.table = query, shared, table

        self.play(FadeIn(who), FadeIn(query.q))
        self.play(FadeIn(query.ops[0]), FadeIn(query.b))
        self.play(FadeIn(query.ops[1]), FadeIn(query.sum))
        self.caption("A projection bias is shared across token positions (and batches).")
        self.play(FadeIn(shared.bias_column))
        self.play(FadeIn(shared.position_column))
        self.caption("Position embeddings depend on the position, so these are different operations.")
        self.play(FadeIn(zero))
        self.caption("A bias can shift the projection even for a zero input.")

        # --- Shot 2: the receiver's weights shift -------------------------------------------------
        self.shot("shifted weights")
        with_parts = VGroup(table.head_with, table.sum_with, *(VGroup(r[2], r[4]) for r in table.rows))
        without_parts = VGroup(table_title, table.head_without, table.rule, table.sum_label, table.sum_without,
                               *(VGroup(r[0], r[1], r[3]) for r in table.rows))
        self.play(FadeIn(without_parts))
        self.caption(f"Without a bias, head 1’s row {n} is the worksheet’s attention row.")
        self.play(Indicate(query.sum, color=BIAS_COLOR, scale_factor=1.08))
        self.play(FadeIn(with_parts, shift=0.15 * LEFT), run_time=1.2)
        self.caption(f"Adding b_Q changes the query, so the scores of row {n} change and the whole weight row shifts; "
                     "the weights still sum to one.")
        shift = np.abs(np.asarray(bias.weights_with) - np.asarray(bias.weights_without))
        j = int(np.argmax(shift))
        self.biggest_shift = j
        box = get_table_row_box(table, j)
        self.play(Create(box))
        self.wait(1.5)  # time to read the two weights of the most-moved source
        self.caption("Omitting it keeps this example simpler; "
                     "it is not a general claim that bias-free attention is better.")

        # --- Shot 3: bias=True adds 16 scalars ----------------------------------------------------
        self.shot("sixteen scalars")
        self.finish_reading()
        self.play(FadeOut(VGroup(left, right, box)))
        self.clear_caption()
        counts = get_bias_layout(bias)
        fit_content(counts)
        self.counts = counts
        self.play(FadeIn(counts.code))
        self.play(FadeIn(counts.in_group), FadeIn(counts.out_group))
        d = bias.d_model
        self.caption(f"With total width {count_word(d)}, bias=True adds {count_word(d)} query offsets, "
                     f"{count_word(d)} key offsets, {count_word(d)} value offsets and {count_word(d)} output "
                     f"offsets: {bias.extra_parameters['total']} additional trainable scalars.")
        self.play(FadeIn(counts.total))
        self.play(FadeIn(counts.legend))
        self.caption(f"Within each head the Q/K/V bias slice has width {count_word(d // bias.num_heads)}.")
        self.play(*(Indicate(c, color=RECEIVER_COLOR) for c in counts.counts))  # each in place
        self.caption("PyTorch stores the three input offsets together in in_proj_bias "
                     "and the output offset in out_proj.bias.")
        self.play(FadeIn(counts.kv_note))
        self.caption("The distinct add_bias_kv option is not the bias flag discussed here.")
        self.caption("Both our scratch implementation and trained attention variants omit attention "
                     "projection biases; their prediction MLP layers retain biases.")

        # --- Shot 4: what nn.MultiheadAttention does and does not do ------------------------------
        self.shot("library layer")
        self.finish_reading()
        self.play(FadeOut(counts))
        self.clear_caption()
        code = get_library_code(ws)
        lists = get_does_and_does_not()
        mask = get_mask_grid(n)
        mask_label = get_mono("attn_mask = future")
        mask_group = VGroup(mask_label, mask).arrange(DOWN, buff=0.12)
        maps = VGroup()
        for head in ws.heads:
            grid = get_weight_heatmap(head.weights, head_color(head.index))
            label = get_mono(f"A[0, {head.index - 1}] = head {head.index}", color=head_color(head.index))
            maps.add(VGroup(label, grid).arrange(DOWN, buff=0.12))
        maps.arrange(RIGHT, buff=0.4)
        pictures = VGroup(mask_group, maps).arrange(RIGHT, buff=0.6, aligned_edge=DOWN)
        left = VGroup(code, pictures).arrange(DOWN, buff=0.5, aligned_edge=LEFT)
        page = VGroup(left, lists).arrange(RIGHT, buff=0.7, aligned_edge=UP)
        fit_content(page)
        self.library = VGroup(code, lists, pictures)
        self.play(FadeIn(code))
        self.play(FadeIn(lists.does))
        self.play(FadeIn(lists.does_not))
        self.caption("The library layer does not add position embeddings, the residual or the vocabulary classifier.")
        self.play(FadeIn(mask_group))
        self.caption("attn_mask=future blocks future sources.")
        self.play(FadeIn(maps))
        self.caption("average_attn_weights=False returns each head’s weight grid separately; it changes the "
                     "returned diagnostic weights, not how the head messages combine.")

        # --- Shot 5: the measured parity ----------------------------------------------------------
        self.shot("parity")
        self.finish_reading()
        self.play(FadeOut(lists), FadeOut(pictures))
        self.clear_caption()
        from lesson_data.parity import pytorch_parity  # imports torch: only when the shot needs it

        parity = pytorch_parity(sentence_from_env())
        self.parity = parity
        head = get_text(f"The scratch weights copied into PyTorch\n(sentence “{ws.name}”):",
                        font_size=LABEL_SIZE, line_spacing=0.8)
        table = get_parity_table(parity)
        note = get_text(f"measured at render time ({parity['dtype']}, torch {parity['torch_version']}):\n"
                        "equal up to floating-point rounding",
                        font_size=SMALL_SIZE + 1, color=DIM_TEXT_COLOR, line_spacing=0.8)
        credit = get_text("See the PyTorch documentation:\ntorch.nn.MultiheadAttention",
                          font_size=SMALL_SIZE + 1, color=DIM_TEXT_COLOR, line_spacing=0.8)
        block = VGroup(head, table, note, credit).arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        fit_content(block, width=FRAME_RIGHT_SAFE - code.get_right()[0] - 0.6, center=False)
        block.next_to(code, RIGHT, buff=0.6).set_y(CONTENT_CENTER[1])
        self.parity_table, self.parity_note, self.credit = table, note, credit
        self.play(FadeIn(head))
        self.play(FadeIn(table.labels))
        self.play(LaggedStart(*(FadeIn(m) for m in table.numbers), lag_ratio=0.3))
        self.play(FadeIn(note))
        self.caption("We copy identical weights from our scratch implementation to PyTorch and check both ΔE "
                     "and the per-head attention weights.")
        self.play(*(Indicate(m, color=RECEIVER_COLOR, scale_factor=1.1) for m in table.numbers))
        self.wait(1.0)
        self.play(FadeIn(credit))
        self.caption("See the PyTorch documentation.")
        self.finish_reading(extra=1.0)


# ============================================================================================
# Scene 17 — Recap and the loop
# ============================================================================================


def get_head_stage(head, n: int) -> VGroup:
    """One head as a compact stage: its name, Q K V → A → H."""
    color = head_color(head.index)
    h = sup(head.index)
    name = get_text(f"head {head.index} ({head.name})", font_size=SMALL_SIZE + 1, color=color)
    inner = get_text(f"Q{h} K{h} V{h} → A{h} → H{h}", font_size=SMALL_SIZE + 1, color=color)
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
    number = get_number(p, tag="p_prediction", font_size=font_size, color=RECEIVER_COLOR)
    line = VGroup(label, number).arrange(RIGHT, buff=0.1)
    align_baseline(label, baseline_y(number))
    return line


def get_recap_diagram(ws) -> VGroup:
    """E → two heads → concat → W_O → ΔE → (+ E) → E′ → last row → MLP → prediction."""
    n, d = ws.E.shape
    e_box = get_shape_box("E", ws.E.shape, unit=0.1)
    heads = VGroup(*(get_head_stage(h, n) for h in ws.heads)).arrange(DOWN, buff=0.45)
    concat = get_shape_box("concat", ws.H_joined.shape, unit=0.1)
    half = concat.box.width / 2
    for k, side in enumerate((LEFT, RIGHT)):
        part = Rectangle(width=half, height=concat.box.height).set_stroke(width=0)
        part.set_fill(head_color(k + 1), 0.6).move_to(concat.box, aligned_edge=side)
        concat.add_to_back(part)
    concat.box.set_fill(opacity=0)
    w_o = get_shape_box("W_O", ws.W_O.shape, unit=0.1)
    delta = get_shape_box("ΔE", ws.delta_E.shape, unit=0.1)
    plus = VGroup(Circle(radius=0.2).set_stroke(TEXT_COLOR, 2), get_text("+", font_size=LABEL_SIZE))
    e_prime = get_shape_box("E′", ws.E_prime.shape, unit=0.1)
    mlp = get_shape_box("MLP", None, width=0.8, height=0.6, name_inside=True)
    word, p = ws.mlp.ranked[0]
    prediction = VGroup(
        get_text("prediction", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR),
        get_text(f"“{word}”", font_size=BODY_SIZE, color=RECEIVER_COLOR),
        get_probability_line(p, SMALL_SIZE + 2),
    ).arrange(DOWN, buff=0.1)

    stages = [e_box, heads, concat, w_o, delta, plus, e_prime, mlp, prediction]

    def core(s):
        return s.box if hasattr(s, "box") else (s[0] if s is plus else s)

    # lay the stages out by their core boxes; each gap holds its link and keeps the labels apart
    base_gaps = [0.8, 0.8, 0.5, 0.5, 0.6, 0.6, 1.3, 0.6]
    x = 0.0
    for k, stage in enumerate(stages):
        stage.shift(RIGHT * (x - core(stage).get_left()[0]) + UP * (0 - core(stage).get_center()[1]))
        if k < len(base_gaps):
            nxt = stages[k + 1]
            overhang = (max(0, (stage.width - core(stage).width) / 2)
                        + max(0, (nxt.width - core(nxt).width) / 2))
            x = core(stage).get_right()[0] + max(base_gaps[k], overhang + 0.25)
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
        else:
            links.add(get_arrow(core(a).get_right(), core(b).get_left()))
    # the residual: E skips over the attention update into the sum
    top = heads.get_top()[1] + 0.35
    start = e_box.name_label.get_top() + UP * 0.08
    end = plus[0].get_top()
    residual = VGroup(
        Line(start, [start[0], top, 0]), Line([start[0], top, 0], [end[0], top, 0]),
        get_arrow([end[0], top, 0], end, buff=0),
    ).set_stroke(DIM_TEXT_COLOR, 2)
    residual_label = get_text("residual: + E", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    residual_label.next_to(residual[1], UP, buff=0.06)
    last_row = get_text("last row", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    last_row.next_to(links[-2], UP, buff=0.06)
    diagram = VGroup(chain, links, residual, residual_label, last_row)
    diagram.e_box, diagram.heads, diagram.concat, diagram.w_o, diagram.delta = e_box, heads, concat, w_o, delta
    diagram.plus, diagram.e_prime, diagram.mlp, diagram.prediction = plus, e_prime, mlp, prediction
    diagram.links, diagram.residual = links, VGroup(residual, residual_label)
    diagram.last_row = last_row
    return diagram


def get_training_panel(ws) -> VGroup:
    vocab = len(ws.mlp.logits)
    title = get_text("training", font_size=BODY_SIZE, color=TEXT_COLOR)
    logits = get_shape_box("vocabulary logits", (1, vocab), unit=0.1)
    target = get_text("target: the observed\nnext-token ID", font_size=SMALL_SIZE + 1, color=RECEIVER_COLOR)
    loss = get_text("softmax → cross-entropy", font_size=SMALL_SIZE + 1)
    arrow1 = get_arrow(ORIGIN, DOWN * 0.7)
    column = VGroup(logits, arrow1, loss).arrange(DOWN, buff=0.15)
    target.next_to(loss, DOWN, buff=0.6)
    arrow2 = get_arrow(target.get_top(), loss.get_bottom(), color=RECEIVER_COLOR)
    update = get_text("the weights are updated", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    update.next_to(target, DOWN, buff=0.3)
    panel = VGroup(title, VGroup(column, target, arrow2, update)).arrange(DOWN, buff=0.35)
    return panel


def _outside(node, point, margin=0.08) -> bool:
    box = node[0]
    return (abs(point[0] - box.get_x()) > box.width / 2 + margin
            or abs(point[1] - box.get_y()) > box.height / 2 + margin)


def get_inference_cycle(ws, radius: float = 1.5) -> VGroup:
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
    cycle = VGroup(arcs, nodes, centre)
    cycle.nodes, cycle.arcs, cycle.centre = nodes, arcs, centre
    return cycle


def get_appended_prefix(ws) -> VGroup:
    words = ws.text.split() if len(ws.text.split()) == ws.n else list(ws.tokens)
    shown = ["…", *words[-3:]]
    parts = VGroup(*(get_text(w, font_size=LABEL_SIZE) for w in shown))
    new = get_text(ws.mlp.prediction, font_size=LABEL_SIZE, color=RECEIVER_COLOR)
    box = SurroundingRectangle(new, buff=0.08, color=RECEIVER_COLOR, stroke_width=2)
    row = VGroup(*parts, VGroup(new, box)).arrange(RIGHT, buff=0.15)
    for w in row:
        align_baseline(w if not isinstance(w, VGroup) else w[0], baseline_y(parts[1]))
    row[-1][1].move_to(row[-1][0])
    row.new_word = VGroup(new, box)
    return row


class RecapAndLoop(LessonScene):
    def construct(self):
        ws = scene_worksheet()
        self.ws = ws
        n, d = ws.E.shape
        title = get_title("Recap: the two-head diagram, and the loop")
        self.play(FadeIn(title))

        # --- Shot 1: the whole diagram again ------------------------------------------------------
        self.shot("the whole diagram")
        diagram = get_recap_diagram(ws)
        fit_content(diagram, height=CONTENT_TOP - CONTENT_BOTTOM - 1.3)
        diagram.set_y(CONTENT_TOP - diagram.height / 2 - 0.1)
        self.diagram = diagram
        scope = get_text("This teaching model has one attention update and a prediction MLP;\n"
                         "it is not a diagram of every component in a deep production Transformer.",
                         font_size=SMALL_SIZE + 2, color=DIM_TEXT_COLOR, line_spacing=0.8)
        scope.next_to(diagram, DOWN, buff=0.45)
        scope_box = get_panel_box(scope)
        self.scope = scope
        self.play(FadeIn(diagram.e_box))
        self.caption("This repeats the same two-head diagram after the detailed arithmetic, "
                     "rather than introducing a new architecture.")
        self.play(FadeIn(diagram.links[0:2]), FadeIn(diagram.heads))
        self.play(FadeIn(diagram.links[2:4]), FadeIn(diagram.concat), FadeIn(diagram.links[4]),
                  FadeIn(diagram.w_o), FadeIn(diagram.links[5]), FadeIn(diagram.delta))
        self.caption(f"The worksheet uses {count_word(n)} rows of width {count_word(d)}.")
        self.play(FadeIn(diagram.residual), FadeIn(diagram.links[6]), FadeIn(diagram.plus))
        self.play(FadeIn(diagram.links[7]), FadeIn(diagram.e_prime), FadeIn(diagram.links[8]),
                  FadeIn(diagram.last_row), FadeIn(diagram.mlp))
        self.play(FadeIn(diagram.links[9:]), FadeIn(diagram.prediction))
        self.caption(f"The last row of E′ feeds the prediction MLP; for “{ws.text} ___” the most probable "
                     f"word is “{ws.mlp.prediction}”.")
        self.play(Indicate(diagram.prediction, color=RECEIVER_COLOR, scale_factor=1.08))
        self.play(FadeIn(scope_box), FadeIn(scope))
        self.caption("This teaching model has one attention update and a prediction MLP; it is not a diagram "
                     "of every component in a deep production Transformer.")

        # --- Shot 2: training target vs the inference loop ----------------------------------------
        self.shot("training and inference")
        self.finish_reading()
        self.play(FadeOut(VGroup(scope, scope_box)), diagram.animate.scale(0.6).to_edge(UP, buff=1.0))
        self.clear_caption()
        training = get_training_panel(ws)
        cycle = get_inference_cycle(ws)
        inference_title = get_text("inference", font_size=BODY_SIZE)
        prefix = get_appended_prefix(ws)
        right = VGroup(inference_title, cycle, prefix).arrange(DOWN, buff=0.3)
        panels = VGroup(training, right).arrange(RIGHT, buff=1.5, aligned_edge=UP)
        fit_content(panels, height=diagram.get_bottom()[1] - 0.35 - CONTENT_BOTTOM, center=False)
        panels.move_to([0, (diagram.get_bottom()[1] - 0.15 + CONTENT_BOTTOM) / 2, 0])
        divider = Line(UP, DOWN).set_stroke(DIM_TEXT_COLOR, 1)
        divider.scale_to_fit_height(panels.height).move_to(
            [(training.get_right()[0] + right.get_left()[0]) / 2, panels.get_y(), 0])
        self.training, self.cycle, self.prefix = training, cycle, prefix
        self.play(FadeIn(training))
        self.caption("At training time, the observed next-token ID is the target for the vocabulary logits.")
        self.play(FadeIn(divider), FadeIn(inference_title), FadeIn(cycle.nodes), FadeIn(cycle.centre))
        self.play(LaggedStart(*(Create(a) for a in cycle.arcs), lag_ratio=0.5), run_time=2.0)
        self.caption("At inference time, weights remain fixed: tokenize a prefix, run the model, "
                     "choose a next token and append it.")
        for node in cycle.nodes:
            self.play(Indicate(node, color=RECEIVER_COLOR, scale_factor=1.12), run_time=0.7)
        self.play(FadeIn(prefix))
        self.play(Indicate(prefix.new_word, color=RECEIVER_COLOR))
        self.finish_reading(extra=1.0)


__all__ = ["BiasesAndLibraryLayer", "RecapAndLoop", "SciNumberText", "get_sci_number"]
