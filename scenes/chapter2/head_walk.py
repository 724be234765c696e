"""Chapter 2, scenes 8–11: the walk along row n of each head's attention matrix.

    Head1Weights            scores of the receiver against every source, ÷ √2, the stable softmax,
                            the ten weights of row n stacked beside their source words
    Head1Message            V = E W_V, one scalar–vector product per source, m = Σⱼ αⱼ vⱼ
    Head2WeightsAndMessage  the same walk for head 2, more briskly
    MaskedMatrix            both heads' full n × n masked attention matrices

The walk scenes share one base class, `HeadWalkScene`: its class attributes pick the head and how
much of the walk is written out, and its builders / show_* helpers are the same for both heads.
Every token, count and number comes from the worksheet of LESSON_SENTENCE (default "river");
captions follow the lesson notes (docs/lesson-notes.txt).

    manim -pql scenes/chapter2/head_walk.py Head1Weights
    manim -pql scenes/chapter2/head_walk.py Head1Message
    manim -pql scenes/chapter2/head_walk.py Head2WeightsAndMessage
    manim -pql scenes/chapter2/head_walk.py MaskedMatrix
"""
from __future__ import annotations

import math

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
    ReplacementTransform,
    Square,
    SurroundingRectangle,
    VGroup,
)

from lesson_data.display import fmt
from lesson_data.walkthrough import message_terms, rounding_differences, unshifted_softmax_row
from lesson_data.worksheet import AXES
from scenes.blocks.labeled_matrix import get_labeled_matrix, get_row_vector
from scenes.blocks.masked_matrix import get_masked_matrix
from scenes.blocks.scalar_vector_product import get_scalar_vector_product
from scenes.blocks.shape_box import get_shape_box
from scenes.blocks.weight_column import get_weight_column
from scenes.style import (
    BUFF,
    BUFF_SMALL,
    CONTENT_BOTTOM,
    CONTENT_TOP,
    DIM_TEXT_COLOR,
    FRAME_WIDTH,
    LABEL_SIZE,
    MARGIN,
    MASK_COLOR,
    NEGATIVE_COLOR,
    RECEIVER_COLOR,
    SAFE_WIDTH,
    SMALL_SIZE,
    SOURCE_COLOR,
    TEXT_COLOR,
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
)

# ============================================================================================
# Layout: every per-source column shares one row grid, so a source's key, score, weight, value
# and product sit on one line however the columns come and go.
# ============================================================================================

ROOMY_ROWS = 0.16                  # the default row spacing: ten rows and a sum row fit
TIGHT_ROWS = 0.06                  # leaves a line below the rows for the expanded product
LEFT_X = -FRAME_WIDTH / 2 + MARGIN
FIRST_ROW_Y = CONTENT_TOP - 0.8    # room above row 1 for a column's name and labels
PANEL_LEFT = 1.9                   # the right-hand panel (query, walk lines, formulas) starts here
PANEL_WIDTH = FRAME_WIDTH / 2 - MARGIN - PANEL_LEFT
COLUMN_GAP = 0.22


def source_labels(ws) -> list[str]:
    """'j word' for every source: the walk changes only the source index j."""
    return [f"{j + 1} {word}" for j, word in enumerate(ws.tokens)]


def tight_shape(shape) -> str:
    """A shape as the notes write it inside a sentence: (1, 10) -> '[1,10]' (never split by wrapping)."""
    return format_shape(shape).replace(", ", ",")


def coordinate_names(d: int) -> list[str]:
    return ["a", "b"] if d == 2 else [str(k + 1) for k in range(d)]


def alpha_name(h: int, n: int, j: str = "ⱼ") -> str:
    """α¹₁₀,ⱼ: head superscript, receiver and source subscripts."""
    return f"α{sup(h)}{sub(n)},{j}"


def place_rows(mob, row_y: float):
    """Shift a LabeledMatrix or WeightColumn vertically so its first row sits at row_y."""
    y = mob.cell_center(0, 0)[1] if hasattr(mob, "cell_center") else mob.weight(0).get_center()[1]
    return mob.shift(UP * (row_y - y))


def fit_rows(group, n: int):
    """Scale a per-source group down for prefixes longer than ten tokens (never up).

    Every per-source group scales about the same point by the same factor, so rows stay aligned
    across groups. Ten rows are what the layout is drawn for.
    """
    factor = min(1.0, 10 / n)
    if factor < 1.0:
        group.scale(factor, about_point=np.array([LEFT_X, CONTENT_TOP, 0.0]))
    return group


def rounding_changes_sum(head, i: int) -> bool:
    """Would adding the displayed products change any digit of the message shown?"""
    return bool(rounding_differences(head, i))


def choose_walk_sources(head, n: int, count: int) -> list[tuple[int, str]]:
    """Which sources the message walk writes out, and why: (j, reason), j zero-based.

    "top": the largest weight; "sign": a source whose value has a negative coordinate;
    "small": a small weight on a sizable value row (the whole vector shrinks).
    """
    w, V = head.weights[n - 1, :n], head.V[:n]
    top = int(np.argmax(w))
    chosen = [(top, "top")]
    negative = [j for j in range(n) if np.any(V[j] < -0.0005)]
    if count >= 2 and negative and top not in negative:
        j = max(negative, key=lambda j: w[j])
        chosen.append((j, "sign"))
    taken = {j for j, _ in chosen}
    rest = [j for j in range(n) if j not in taken]
    if len(chosen) < count and rest:
        # the biggest value row under a small weight shows the shrinking best
        small = [j for j in rest if w[j] < 0.05 and np.abs(V[j]).max() >= 0.3]
        j = max(small, key=lambda j: np.abs(V[j]).max()) if small else min(rest, key=lambda j: w[j])
        chosen.append((j, "small"))
    return chosen[:count]


# ============================================================================================
# Builders: the weights walk (scene 8)
# ============================================================================================


def get_query_vector(ws, head):
    """q^h_n, the receiver's query for this head, with its shape."""
    n, h, d = ws.n, head.index, head.Q.shape[1]
    return get_row_vector(head.Q[n - 1], coordinate_names(d), name=f"q{sup(h)}{sub(n)}  {format_shape((1, d))}",
                          tag=f"q{h}", color=head_color(h), name_color=head_color(h))


def get_step_column(values, header: str, tag: str, color=TEXT_COLOR, v_buff=ROOMY_ROWS):
    """One step of the softmax as a column: one entry per source, header above."""
    values = np.asarray(values, dtype=float).reshape(-1, 1)
    return get_labeled_matrix(values, None, [header], tag=tag, color=color, label_color=TEXT_COLOR,
                              v_buff=v_buff)


def get_score_table(ws, head, v_buff=ROOMY_ROWS):
    """k^h_j for every source, then the receiver's scores, ÷ √d, − max and exp, one row per source."""
    n, h, d = ws.n, head.index, head.K.shape[1]
    color = head_color(h)
    i = n - 1
    keys = get_labeled_matrix(head.K, source_labels(ws), coordinate_names(d),
                              name=f"k{sup(h)}ⱼ  {format_shape(head.K.shape)}", tag=f"K{h}", v_buff=v_buff)
    scores = get_step_column(head.scores[i], "q·k", f"scores{h}", v_buff=v_buff)
    scaled = get_step_column(head.scaled[i], f"÷√{d}", f"scaled{h}", v_buff=v_buff)
    shifted = get_step_column(head.shifted[i], "− max", f"shifted{h}", v_buff=v_buff)
    exps = get_step_column(head.exps[i], "exp", f"exps{h}", color=color, v_buff=v_buff)
    table = VGroup(keys, scores, scaled, shifted, exps).arrange(RIGHT, buff=COLUMN_GAP, aligned_edge=DOWN)
    for column in table:
        place_rows(column, FIRST_ROW_Y)
    table.shift(RIGHT * (LEFT_X - table.get_left()[0]))
    table.keys, table.scores, table.scaled, table.shifted, table.exps = keys, scores, scaled, shifted, exps
    table.steps = VGroup(scores, scaled, shifted, exps)
    return fit_rows(table, n)


def get_score_lines(ws, head, j: int):
    """q·k_j written out coordinate by coordinate, then ÷ √d: the score of source j."""
    n, h, d = ws.n, head.index, head.Q.shape[1]
    color = head_color(h)
    q, k = head.Q[n - 1], head.K[j]
    terms = []
    for c in range(d):
        if c:
            terms.append(get_text("+", font_size=LABEL_SIZE))
        terms.append(VGroup(
            get_number(q[c], tag=f"walk_q{h}", index=(j, c), color=color),
            get_text("×", font_size=SMALL_SIZE),
            get_number(k[c], tag=f"walk_k{h}", index=(j, c)),
        ).arrange(RIGHT, buff=0.07))
    lhs = get_text(f"q{sup(h)}{sub(n)} · k{sup(h)}{sub(j + 1)}  =", font_size=LABEL_SIZE)
    line1 = VGroup(lhs, *terms).arrange(RIGHT, buff=0.14)
    score = get_number(head.scores[n - 1, j], tag=f"walk_score{h}", index=j)
    scaled = get_number(head.scaled[n - 1, j], tag=f"walk_scaled{h}", index=j, color=color)
    line2 = VGroup(get_text("=", font_size=LABEL_SIZE), score,
                   get_text(f"÷ √{d}  =", font_size=LABEL_SIZE), scaled).arrange(RIGHT, buff=0.14)
    for line, number in ((line1, terms[0][0]), (line2, score)):
        for part in line:
            if not isinstance(part, VGroup):  # words and operators on the digits' baseline
                align_baseline(part, baseline_y(number))
    lines = VGroup(line1, line2).arrange(DOWN, buff=0.22, aligned_edge=LEFT)
    line2.shift(RIGHT * (lhs.get_right()[0] - line2[0].get_right()[0]))  # "=" under "="
    if lines.width > PANEL_WIDTH:
        lines.scale_to_fit_width(PANEL_WIDTH)
    lines.score, lines.scaled = score, scaled
    return lines


def get_softmax_panel(ws, head):
    """max of the scaled scores, the denominator over every permitted source, the weight formula."""
    n, h = ws.n, head.index
    color = head_color(h)
    i = n - 1

    def line(label, value, tag, value_color=TEXT_COLOR):
        text = get_text(label, font_size=LABEL_SIZE)
        number = get_number(value, tag=tag, color=value_color)
        row = VGroup(text, number).arrange(RIGHT, buff=0.14)
        align_baseline(text, baseline_y(number))
        row.number = number
        return row

    max_line = line("max of the scaled scores sⱼ  =", head.row_max[i], f"max{h}")
    den_line = line(f"Σ exp over sources 1–{n}  =", head.denominators[i], f"den{h}", color)
    formula = get_text(f"{alpha_name(h, n)}  =  exp(sⱼ − max) / Σ", font_size=LABEL_SIZE, color=color)
    panel = VGroup(max_line, den_line, formula).arrange(DOWN, buff=0.24, aligned_edge=LEFT)
    panel.max_line, panel.den_line, panel.formula = max_line, den_line, formula
    return panel


def get_stability_check(ws, head, j: int):
    """Source j's weight with and without subtracting the max: the same number."""
    n, h = ws.n, head.index
    color = head_color(h)
    i = n - 1
    exps, den, weights = unshifted_softmax_row(head, i)
    rows = [
        ("with − max:", head.exps[i, j], head.denominators[i], head.weights[i, j], "check"),
        ("without:", exps[j], den, weights[j], "unshifted"),
    ]
    heading = get_text(f"weight of source {j + 1}, {ws.tokens[j]}:", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
    lines = VGroup()
    for label, top, bottom, w, tag in rows:
        parts = VGroup(
            get_text(label, font_size=SMALL_SIZE + 2, color=DIM_TEXT_COLOR),
            get_number(top, tag=f"{tag}_exp{h}"),
            get_text("/", font_size=LABEL_SIZE),
            get_number(bottom, tag=f"{tag}_den{h}"),
            get_text("=", font_size=LABEL_SIZE),
            get_number(w, tag=f"{tag}_w{h}", color=color),
        ).arrange(RIGHT, buff=0.12)
        align_baseline(parts[0], baseline_y(parts[1]))
        lines.add(parts)
    lines.arrange(DOWN, buff=0.18, aligned_edge=RIGHT)
    check = VGroup(heading, lines).arrange(DOWN, buff=0.16, aligned_edge=LEFT)
    check.lines = lines
    return check


# ============================================================================================
# Builders: the message walk (scene 9)
# ============================================================================================


def get_message_table(ws, head, v_buff=TIGHT_ROWS):
    """Row n of A as a weight column, the value rows v_j, the products α_j v_j and their sum m."""
    n, h, d = ws.n, head.index, head.V.shape[1]
    color = head_color(h)
    i = n - 1
    values = get_labeled_matrix(head.V, None, coordinate_names(d), name=f"v{sup(h)}ⱼ  {format_shape(head.V.shape)}",
                                tag=f"V{h}", v_buff=v_buff)
    row_height = values.row_height
    column = get_weight_column(source_labels(ws), head.weights[i], color=color, tag=f"A{h}_row",
                               label_size=SMALL_SIZE + 2, row_height=row_height, bar_max_width=1.1,
                               sum_text="sum")
    header = get_text(alpha_name(h, n), font_size=LABEL_SIZE, color=color)
    products = get_labeled_matrix(message_terms(head, i), None, coordinate_names(d),
                                  name=f"{alpha_name(h, n)} v{sup(h)}ⱼ", tag=f"P{h}", color=color,
                                  name_color=color, v_buff=v_buff)

    place_rows(column, FIRST_ROW_Y)
    column.shift(RIGHT * (LEFT_X - column.get_left()[0]))
    place_rows(values, FIRST_ROW_Y)
    header.move_to([column.weight(0).get_center()[0], values.name_label.get_center()[1], 0])
    values.shift(RIGHT * (column.get_right()[0] + 0.35 - values.get_left()[0]))
    header.set_y(values.name_label.get_y())
    place_rows(products, FIRST_ROW_Y)
    products.shift(RIGHT * (values.get_right()[0] + 0.35 - products.get_left()[0]))

    # the message: one full-precision sum per coordinate, right-aligned under the products
    sum_y = column.sum_number.get_center()[1]
    message = VGroup()
    for k in range(d):
        number = get_number(head.messages[i, k], tag=f"m{h}", index=(0, k), color=color)
        anchor = products.anchors[0][k]
        number.move_to([anchor.get_right()[0] - 0.11, sum_y, 0], aligned_edge=RIGHT)
        message.add(number)
    rule = Line([products.brackets.get_left()[0], sum_y + row_height / 2, 0],
                [products.brackets.get_right()[0], sum_y + row_height / 2, 0]).set_stroke(DIM_TEXT_COLOR, 1.5)
    label = get_text(f"m{sup(h)}{sub(n)} = Σⱼ", font_size=LABEL_SIZE, color=color)
    label.next_to(products.brackets, LEFT, buff=BUFF_SMALL)
    align_baseline(label, baseline_y(message[0]))
    message_row = VGroup(rule, label, message)

    table = VGroup(header, column, values, products, message_row)
    table.column, table.header, table.values, table.products = column, header, values, products
    table.message, table.message_row = message, message_row
    return fit_rows(table, n)


def get_value_projection(ws, head):
    """E · W_V^h = V^h: the value rows are a projection of the embedding rows."""
    h = head.index
    color = head_color(h)
    kw = dict(v_buff=ROOMY_ROWS)
    e = get_labeled_matrix(ws.E, source_labels(ws), list(AXES), name=f"E  {format_shape(ws.E.shape)}",
                           tag="E", **kw)
    w_v = get_labeled_matrix(head.W_V, list(AXES), coordinate_names(head.V.shape[1]),
                             name=f"W_V{sup(h)}  {format_shape(head.W_V.shape)}", tag=f"W_V{h}", color=color,
                             name_color=color, **kw)
    v = get_labeled_matrix(head.V, None, coordinate_names(head.V.shape[1]),
                           name=f"V{sup(h)}  {format_shape(head.V.shape)}", tag=f"V{h}", name_color=color, **kw)
    dot, equals = get_text("·", font_size=LABEL_SIZE + 8), get_text("=", font_size=LABEL_SIZE + 8)
    group = VGroup(e, dot, w_v, equals, v).arrange(RIGHT, buff=0.35)
    w_v.align_to(e.brackets, UP).shift(UP * (e.cell_center(0, 0)[1] - w_v.cell_center(0, 0)[1]))
    v.shift(UP * (e.cell_center(0, 0)[1] - v.cell_center(0, 0)[1]))
    fit_content(group)
    middle = (e.cell_center(0, 0)[1] + e.cell_center(ws.n - 1, 0)[1]) / 2
    dot.set_y(middle)
    equals.set_y(middle)
    group.E, group.W_V, group.V = e, w_v, v
    return group


def get_expansion(ws, head, j: int, y: float):
    """Source j's α × v = [α·v_a, α·v_b] = α v on one line at height y, below the rows."""
    n, h = ws.n, head.index
    color = head_color(h)
    svp = get_scalar_vector_product(head.weights[n - 1, j], head.V[j], color=color,
                                    col_labels=coordinate_names(head.V.shape[1]), tag=f"svp{h}_{j}",
                                    expanded=True)
    label = get_text(f"source {j + 1}, {ws.tokens[j]}:", font_size=LABEL_SIZE, color=SOURCE_COLOR)
    line = VGroup(label, svp).arrange(RIGHT, buff=BUFF)
    align_baseline(label, baseline_y(svp.alpha))
    if line.width > SAFE_WIDTH:
        line.scale_to_fit_width(SAFE_WIDTH)
    line.move_to([0, y, 0])
    line.svp, line.label = svp, label
    return line


def get_shape_equation(ws, head):
    """[1, n] · [n, d_v] → [1, d_v]: row n of A times V is the message."""
    n, h, d = ws.n, head.index, head.V.shape[1]
    color = head_color(h)
    kw = dict(color=color, unit=0.16, name_size=LABEL_SIZE + 2, shape_size=LABEL_SIZE)
    row = get_shape_box(f"row {n} of A{sup(h)}", (1, n), **kw)
    values = get_shape_box(f"V{sup(h)}", head.V.shape, **kw)
    message = get_shape_box(f"m{sup(h)}{sub(n)}", (1, d), **kw)
    dot, arrow = get_text("·", font_size=LABEL_SIZE + 6), get_text("→", font_size=LABEL_SIZE + 6)
    equation = VGroup(row, dot, values, arrow, message).arrange(RIGHT, buff=0.3)
    for part in (row, message):
        part.shift(UP * (values.box.get_center()[1] - part.box.get_center()[1]))
    dot.set_y(values.box.get_center()[1])
    arrow.set_y(values.box.get_center()[1])
    equation.boxes = VGroup(row, values, message)
    return equation


# ============================================================================================
# The walk scenes
# ============================================================================================


class HeadWalkScene(LessonScene):
    """The walk along row n of one head. Subclasses pick the head and how much is written out."""

    head_index = 1
    brisk = False                 # a second walk: fewer sentences, shorter pauses
    walked_score_sources = 2      # sources whose dot product is written out
    walked_value_sources = 3      # sources whose scalar–vector product is written out
    show_stability_check = True   # the weight with and without subtracting the max
    show_value_projection = True  # E · W_V = V before the products
    pace = 1.0                    # multiplies the reading pauses
    row_buff = TIGHT_ROWS         # row spacing of the per-source columns

    def setup(self):
        super().setup()
        self.ws = scene_worksheet()
        self.head = self.ws.heads[self.head_index - 1]
        self.color = head_color(self.head_index)
        self.column_offset = 0 * RIGHT

    def pause(self, seconds: float = 1.2):
        self.wait(seconds * self.pace)

    def add_title(self, text: str):
        self.title = get_title(text)
        self.play(FadeIn(self.title))

    def head_words(self) -> str:
        return f"Head {self.head.index} ({self.head.name})"

    # ---- the weights walk -------------------------------------------------------------------
    def play_weights_walk(self):
        # --- Shot: the receiver's query and every source's key ---------------------------------
        self.shot("query and keys")
        self.show_query_and_keys()

        # --- Shot: scores, ÷ √d ----------------------------------------------------------------
        self.shot("scores")
        self.show_scores()

        # --- Shot: the stable softmax -----------------------------------------------------------
        self.shot("stable softmax")
        self.show_softmax()

        # --- Shot: row n of A, stacked beside the source words ----------------------------------
        self.shot("weight column")
        self.show_weight_column()

    def show_query_and_keys(self):
        ws, head = self.ws, self.head
        n = ws.n
        table = get_score_table(ws, head, v_buff=self.row_buff)
        query = get_query_vector(ws, head)
        query.next_to([PANEL_LEFT, CONTENT_TOP, 0], DOWN + RIGHT, buff=0)
        for column in table.steps:  # each step's numbers appear once they are computed
            column.entries.set_opacity(0)
        self.score_table, self.query = table, query
        self.play(FadeIn(query), FadeIn(table.keys), *(FadeIn(VGroup(c.brackets, c.col_labels)) for c in table.steps))
        box = table.keys.get_row_box(n - 1, color=RECEIVER_COLOR, include_label=True)
        self.receiver_box = box
        if self.brisk:
            self.play(Create(box))
            self.caption(f"{self.head_words()} repeats the walk with its own query, keys and values.")
            return
        self.caption("A query is a numerical vector, not an English question. "
                     "Each source also has a numerical key and value.")
        self.play(Create(box))
        self.caption(f"At receiver row {n}, the causal mask permits source positions 1 through {n}; "
                     f"the receiver is one of its own sources.")

    def show_scores(self):
        ws, head = self.ws, self.head
        n, d = ws.n, head.Q.shape[1]
        table = self.score_table
        top = int(np.argmax(head.weights[n - 1, :n]))
        walked = [top] + ([n - 1] if n - 1 != top else [])
        walked = walked[: self.walked_score_sources]
        self.caption(f"Each score is the query dotted with one source’s key, divided by √{d}.")
        for j in walked:
            self.show_one_score(j)
        rest = VGroup(*(VGroup(table.scores.cell(j, 0), table.scaled.cell(j, 0))
                        for j in range(n) if j not in walked))
        self.play(rest.animate.set_opacity(1), run_time=1.0)
        self.pause(0.8)

    def show_one_score(self, j: int):
        ws, head, table = self.ws, self.head, self.score_table
        lines = get_score_lines(ws, head, j)
        lines.next_to(self.query, DOWN, buff=0.45, aligned_edge=LEFT)
        box = table.keys.get_row_box(j, color=SOURCE_COLOR, include_label=True)
        self.play(Create(box), FadeIn(lines[0]), run_time=0.8)
        self.pause(1.5)
        self.play(FadeIn(lines[1]), run_time=0.6)
        self.pause(1.0)
        self.play(table.scores.cell(j, 0).animate.set_opacity(1), table.scaled.cell(j, 0).animate.set_opacity(1),
                  Indicate(lines.scaled, color=self.color, scale_factor=1.15), run_time=0.8)
        self.pause(0.6)
        self.play(FadeOut(lines), FadeOut(box), run_time=0.5)

    def show_softmax(self):
        ws, head, table = self.ws, self.head, self.score_table
        n = ws.n
        i = n - 1
        top = int(np.argmax(head.weights[i, :n]))
        panel = get_softmax_panel(ws, head)
        panel.next_to(self.query, DOWN, buff=0.5, aligned_edge=LEFT)
        self.softmax_panel = panel

        # the max, then every scaled score minus it
        max_box = table.scaled.get_cell_box(top, 0, color=self.color)
        self.play(Create(max_box), FadeIn(panel.max_line))
        self.caption("A numerically stable softmax subtracts the maximum score before exponentiating; "
                     "this leaves the normalized weights unchanged.")
        self.play(table.shifted.entries.animate.set_opacity(1), run_time=0.8)
        self.pause(0.8)
        self.play(table.exps.entries.animate.set_opacity(1), FadeOut(max_box), run_time=0.8)

        # every source's exp enters the denominator, the receiver's included
        column_box = table.exps.get_column_box(0, color=self.color)
        receiver_cell = table.exps.get_cell_box(i, 0, color=RECEIVER_COLOR)
        self.play(Create(column_box), Create(receiver_cell), FadeIn(panel.den_line))
        self.caption("Every source contributes to the denominator, including the receiver itself.")
        self.play(FadeIn(panel.formula))
        self.pause(1.0)
        self.softmax_marks = VGroup(column_box, receiver_cell)

        self.panel_extras = VGroup()
        if self.show_stability_check:
            check = get_stability_check(ws, head, top)
            check.next_to(panel, DOWN, buff=0.4, aligned_edge=LEFT)
            self.stability_check = self.panel_extras = check
            self.play(FadeIn(check[0]), FadeIn(check.lines[0]))
            self.pause(1.0)
            self.play(FadeIn(check.lines[1]))
            self.caption("Without the shift the exponentials are larger, but numerator and denominator "
                         "change by the same factor: the same weight.")
            self.caption("All displayed numbers are rounded; calculations use full precision.")

    def show_weight_column(self):
        ws, head = self.ws, self.head
        n = ws.n
        table = self.score_table
        self.table = get_message_table(ws, head, v_buff=self.row_buff)
        column, header = self.table.column, self.table.header
        # until the value rows join it, the column stands in the middle of the free space
        self.column_offset = RIGHT * ((LEFT_X + PANEL_LEFT) / 2 - column.get_center()[0])
        VGroup(column, header).shift(self.column_offset)
        # the table folds into the weight column: the source words stay, exp / Σ becomes α
        self.play(FadeOut(VGroup(table.keys.brackets, table.keys.entries, table.keys.col_labels,
                                 table.keys.name_label, table.scores, table.scaled, table.shifted,
                                 self.softmax_marks, self.receiver_box)),
                  run_time=0.6)
        self.play(ReplacementTransform(table.keys.row_labels, column.labels),
                  ReplacementTransform(table.exps.entries, column.weights),
                  FadeOut(VGroup(table.exps.brackets, table.exps.col_labels)),
                  FadeIn(header), run_time=1.2)
        self.play(LaggedStart(*(FadeIn(bar, shift=0.2 * RIGHT) for bar in column.bars), lag_ratio=0.08),
                  run_time=1.2 * self.pace)
        receiver = column.get_row_box(n - 1, color=RECEIVER_COLOR)
        tag = get_text("receiver", font_size=SMALL_SIZE + 2, color=RECEIVER_COLOR)
        tag.next_to(receiver, RIGHT, buff=BUFF_SMALL)
        receiver.add(tag)
        self.column_receiver_box = receiver
        if self.brisk:
            self.play(Create(receiver))
            self.caption(f"The {count_word(n)} entries of row {n} of A{sup(head.index)}, "
                         "each beside its source word.")
        else:
            self.caption(f"These are the {count_word(n)} entries of row {n} of this head’s attention matrix A. "
                         "We display them vertically so each weight can sit beside its source word and value row.")
            self.play(Create(receiver))
            # only the source index moves
            source = column.get_row_box(0)
            self.play(FadeIn(source))
            self.caption(f"The receiver stays fixed at token {n}. Only the source index j changes.")
            for j in range(1, n):
                self.play(source.animate.move_to(column.get_row_box(j)), run_time=0.25)
            self.play(FadeOut(source))
        self.play(FadeIn(VGroup(column.rule, column.sum_label, column.sum_number)))
        self.play(Indicate(column.sum_number, color=self.color, scale_factor=1.2))
        self.caption(f"Row {n} sums to one over all {count_word(n)} sources.")

    # ---- the message walk -------------------------------------------------------------------
    def play_message_walk(self):
        ws, head = self.ws, self.head
        n = ws.n
        if not hasattr(self, "table"):
            self.table = get_message_table(ws, head, v_buff=self.row_buff)
        table = self.table
        table.products.entries.set_opacity(0)

        # --- Shot: V = E W_V -------------------------------------------------------------------
        self.shot("values")
        self.show_values()

        # --- Shot: one source at a time ---------------------------------------------------------
        self.shot("scalar-vector products")
        walked = choose_walk_sources(head, n, self.walked_value_sources)
        self.walked_sources = [j for j, _ in walked]
        self.caption("The calculation below the rows expands the highlighted source’s scalar–vector "
                     "multiplication coordinate by coordinate.")
        for k, (j, reason) in enumerate(walked):
            self.show_one_product(j, reason, first=(k == 0))

        # --- Shot: all sources, the sum ---------------------------------------------------------
        self.shot("message")
        self.show_message()

        # --- Shot: the shapes -------------------------------------------------------------------
        self.shot("shapes")
        self.show_shapes()

    def show_values(self):
        ws, head, table = self.ws, self.head, self.table
        h = head.index
        frame = VGroup(table.values.brackets, table.values.col_labels, table.values.name_label,
                       table.products.brackets, table.products.col_labels, table.products.name_label)
        if not self.show_value_projection:
            # the weight column (from the weights walk) slides beside the value rows
            self.play(VGroup(table.column, table.header).animate.shift(-self.column_offset),
                      FadeIn(VGroup(table.values.entries, frame)))
            self.column_offset = 0 * RIGHT
            self.caption(f"V = E W_V{sup(h)} has one row per source: head {h}’s projected value vectors.")
            return
        projection = get_value_projection(ws, head)
        self.projection = projection
        self.play(FadeIn(projection.E))
        self.play(FadeIn(projection[1]), FadeIn(projection.W_V))
        self.play(FadeIn(projection[3]), FadeIn(projection.V))
        self.caption("V = E W_V has one row per source. These are projected value vectors, "
                     "not token IDs or attention weights.")
        if np.array_equal(head.W_K, head.W_V):
            self.caption("Our hand-chosen worksheet gives W_K and W_V equal entries, but they remain "
                         "separate parameters with different roles.")
        self.caption("The keys helped compute the weights. V supplies the content to mix.")
        # the value rows move next to the weights they will be multiplied by
        self.play(FadeOut(VGroup(projection.E, projection[1], projection.W_V, projection[3])), run_time=0.6)
        self.play(ReplacementTransform(projection.V.entries, table.values.entries),
                  ReplacementTransform(VGroup(projection.V.brackets, projection.V.col_labels,
                                              projection.V.name_label),
                                       VGroup(table.values.brackets, table.values.col_labels,
                                              table.values.name_label)),
                  run_time=1.2)
        self.play(FadeIn(VGroup(table.header, table.column)),
                  FadeIn(VGroup(table.products.brackets, table.products.col_labels, table.products.name_label)))

    def show_one_product(self, j: int, reason: str, first: bool):
        ws, head, table = self.ws, self.head, self.table
        line = get_expansion(ws, head, j, (table.get_bottom()[1] + CONTENT_BOTTOM) / 2 - 0.05)
        svp = line.svp
        boxes = VGroup(table.column.get_row_box(j), table.values.get_row_box(j, color=SOURCE_COLOR),
                       table.products.get_row_box(j, color=SOURCE_COLOR))
        self.play(Create(boxes), FadeIn(line.label), FadeIn(VGroup(svp.alpha, svp.times, svp.vector)))
        if first and not self.brisk:
            self.caption("All products use the unrounded weights.")
        self.pause(0.8)
        self.play(FadeIn(VGroup(svp.equals, svp.expanded)), run_time=0.7)
        self.pause(1.0)
        self.play(FadeIn(VGroup(svp.equals_2, svp.product)), run_time=0.7)
        self.pause(0.8)
        if reason == "sign" or (reason == "top" and np.any(head.V[j] < -0.0005)):
            negative = [k for k in range(head.V.shape[1]) if head.V[j, k] < -0.0005]
            marks = VGroup(*(SurroundingRectangle(m, color=NEGATIVE_COLOR, buff=0.05)
                             for k in negative for m in (svp.vector.cell(0, k), svp.product.cell(0, k))))
            self.play(Create(marks))
            self.caption("The sign of each coordinate comes from the value; every weight is positive.")
            self.play(FadeOut(marks))
        elif reason == "small":
            self.caption("A small weight scales down the entire value vector.")
            self.play(Indicate(svp.product, color=self.color, scale_factor=1.1))
        self.play(table.products.row(j).animate.set_opacity(1),
                  Indicate(svp.product.entries, color=self.color, scale_factor=1.1), run_time=0.8)
        self.finish_reading()
        self.play(FadeOut(line), FadeOut(boxes), run_time=0.5)

    def show_message(self):
        ws, head, table = self.ws, self.head, self.table
        n, h = ws.n, head.index
        formula = get_text(f"m{sup(h)}{sub(n)} = Σⱼ {alpha_name(h, n)} v{sup(h)}ⱼ", font_size=LABEL_SIZE + 4,
                           color=self.color)
        note = get_text("rounded display,\nfull-precision sums", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
        shapes = get_shape_equation(ws, head)
        right = VGroup(formula, shapes, note).arrange(DOWN, buff=0.5, aligned_edge=LEFT)
        right.next_to([PANEL_LEFT + 0.3, CONTENT_TOP - 0.3, 0], DOWN + RIGHT, buff=0)
        if right.get_right()[0] > FRAME_WIDTH / 2 - MARGIN:
            right.scale_to_fit_width(FRAME_WIDTH / 2 - MARGIN - right.get_left()[0])
        self.message_panel, self.shapes = right, shapes
        # every source's product, then one full-precision sum per coordinate
        self.play(table.products.entries.animate.set_opacity(1), run_time=1.0)
        self.play(FadeIn(table.message_row), FadeIn(formula))
        self.play(Indicate(table.message, color=self.color, scale_factor=1.2))
        self.caption(f"This is one row of H = AV: m{sub(n)} = Σⱼ α{sub(n)},ⱼ vⱼ.")
        self.play(FadeIn(note))
        differ = rounding_differences(head, n - 1)
        if differ:
            tail = "here, adding the rounded products would change the last digit."
        else:
            tail = "here, adding the rounded products happens to give the same digits, but in general it need not."
        self.caption(f"The displayed products are rounded, but the sums use full precision: {tail}")
        if differ:
            self.play(*(Indicate(table.message[k], color=self.color, scale_factor=1.3) for k in differ))

    def show_shapes(self):
        ws, head = self.ws, self.head
        n, d = ws.n, head.V.shape[1]
        self.play(FadeIn(self.shapes))
        self.caption(f"The original weight row has shape {tight_shape((1, n))} and V has shape "
                     f"{tight_shape(head.V.shape)}, giving a {tight_shape((1, d))} message.")
        if not self.brisk:
            self.caption("We arranged the weights vertically only to make the source correspondence visible.")


class Head1Weights(HeadWalkScene):
    """Scene 8: scores of receiver n against sources 1..n, ÷ √2, the stable softmax, row n of A¹."""

    row_buff = ROOMY_ROWS         # nothing goes below the rows here

    def construct(self):
        self.add_title(f"{self.head_words()}: the weights of row {self.ws.n}")
        self.play_weights_walk()
        self.finish_reading(extra=1.0)


class Head1Message(HeadWalkScene):
    """Scene 9: V¹ = E W_V¹, the scalar–vector products α v, their sum m¹_n."""

    def construct(self):
        self.add_title(f"{self.head_words()}: the message of row {self.ws.n}")
        self.play_message_walk()
        self.finish_reading(extra=1.0)


class Head2WeightsAndMessage(HeadWalkScene):
    """Scene 10: the same walk for head 2 ("person"), more briskly."""

    head_index = 2
    brisk = True
    walked_score_sources = 1
    walked_value_sources = 1
    show_stability_check = False
    show_value_projection = False
    pace = 0.6

    def construct(self):
        self.add_title(f"{self.head_words()}: weights and message of row {self.ws.n}")
        self.play_weights_walk()
        # the softmax panel makes way for the message's formula and shapes
        self.play(FadeOut(VGroup(self.query, self.softmax_panel, self.panel_extras, self.column_receiver_box)))
        self.play_message_walk()
        self.finish_reading(extra=1.0)


# ============================================================================================
# Scene 11 — the masked matrices
# ============================================================================================


def get_head_matrix(ws, head, *, words: bool):
    """A^h with blocked future cells, rows = receivers i, columns = sources j (one-based)."""
    n, h = ws.n, head.index
    color = head_color(h)
    rows = source_labels(ws) if words else [str(i + 1) for i in range(n)]
    mm = get_masked_matrix(head.weights, rows, None, color=color, tag=f"A{h}", side=0.47, font_size=11)
    # column numbers read horizontally above the grid
    cols = VGroup(*(get_text(str(j + 1), font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
                    .next_to(mm.square(0, j), UP, buff=BUFF_SMALL) for j in range(n)))
    line_y = max(baseline_y(c) for c in cols)
    for c in cols:
        align_baseline(c, line_y)
    name = get_text(f"A{sup(h)}  head {h} ({head.name})  {format_shape(head.weights.shape)}",
                    font_size=LABEL_SIZE, color=color)
    name.next_to(cols, UP, buff=BUFF_SMALL)
    mm.add(cols, name)
    mm.source_numbers, mm.name_label = cols, name
    return mm


def get_mask_legend():
    square = Square(side_length=0.24).set_stroke(width=0).set_fill(MASK_COLOR, 1.0)
    text = get_text("future source: blocked", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    return VGroup(square, text).arrange(RIGHT, buff=BUFF_SMALL)


class MaskedMatrix(LessonScene):
    """Scene 11: each head's full n × n masked attention matrix; row n is the row the walk followed."""

    def construct(self):
        ws = scene_worksheet()
        self.ws = ws
        n = ws.n
        title = get_title("The masked attention matrices")
        self.play(FadeIn(title))

        matrices = VGroup(get_head_matrix(ws, ws.heads[0], words=True),
                          get_head_matrix(ws, ws.heads[1], words=False)).arrange(RIGHT, buff=0.7, aligned_edge=DOWN)
        fit_content(matrices)
        legend = get_mask_legend().to_corner(UP + RIGHT, buff=MARGIN).set_y(title.get_y())
        if legend.get_left()[0] < title.get_right()[0] + BUFF:
            legend.next_to(matrices, DOWN, buff=BUFF_SMALL).align_to(matrices, RIGHT)
        self.matrices, self.legend = matrices, legend
        a1, a2 = matrices

        # --- Shot 1: head 1's whole matrix -------------------------------------------------------
        self.shot("head 1 matrix")
        self.play(FadeIn(a1))
        self.caption("As in Part II, αᵢⱼ is one attention weight and A stores the full attention matrix.")
        self.caption("Rows are receivers i, columns are sources j; each row sums to one.")

        # --- Shot 2: the future is blocked --------------------------------------------------------
        self.shot("causal mask")
        self.play(FadeIn(legend), Indicate(a1.blocked, color=TEXT_COLOR, scale_factor=1.02))
        early = min(2, n - 2) if n >= 3 else 0
        if n >= 2:
            allowed = VGroup(*(a1.square(early, j) for j in range(early + 1)))
            blocked = VGroup(*(a1.square(early, j) for j in range(early + 1, n)))
            marks = VGroup(SurroundingRectangle(allowed, color=RECEIVER_COLOR, buff=0.02),
                           SurroundingRectangle(blocked, color=TEXT_COLOR, buff=0.02))
            self.play(Create(marks))
            self.caption(f"Earlier query rows cannot read later sources: row {early + 1} reads only sources 1 "
                         f"to {early + 1}; sources {early + 2} to {n} are blocked, not shown as zeros.")
            self.play(FadeOut(marks))

        # --- Shot 3: head 2 ----------------------------------------------------------------------
        self.shot("head 2 matrix")
        self.play(FadeIn(a2))
        self.caption("Q/K choose weights and V supplies the weighted content.")

        # --- Shot 4: the row the walk followed ---------------------------------------------------
        self.shot("row n")
        boxes = VGroup(a1.get_row_box(n - 1, color=RECEIVER_COLOR), a2.get_row_box(n - 1, color=RECEIVER_COLOR))
        self.row_boxes = boxes
        self.play(Create(boxes))
        self.caption(f"The walkthrough follows its final row, A[{n}, :], using one-based token positions.")
        self.caption(f"All {count_word(n)} source contributions enter each message. "
                     "The calculations are independent across heads and can run in parallel.")
        self.finish_reading(extra=1.0)


__all__ = [
    "HeadWalkScene", "Head1Weights", "Head1Message", "Head2WeightsAndMessage", "MaskedMatrix",
    "source_labels", "row_products", "unshifted_softmax_row", "rounding_differences", "rounding_changes_sum",
    "choose_walk_sources", "fit_rows",
    "get_score_table", "get_score_lines", "get_softmax_panel", "get_stability_check", "get_message_table",
    "get_value_projection", "get_expansion", "get_shape_equation", "get_head_matrix",
]
