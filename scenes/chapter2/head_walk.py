"""Chapter 2, scenes 8–11: the walk along row n of each head's attention matrix.

    Head1Weights            the receiver's query against every source's key, ÷ √2, the stable
                            softmax, the weights of row n stacked beside their source words, then
                            drawn as arrows from each source word into the receiver
    Head1Message            V = E W_V, one scalar–vector product per walked source (the sign comes
                            from the value, a small weight shrinks the whole vector), m = Σⱼ αⱼ vⱼ
    Head2WeightsAndMessage  the same walk for head 2, briskly, ending with both heads side by side
    MaskedMatrix            each head's full n × n masked attention matrix as a heat map

The sentence stays on screen through scenes 8–10 (the "sentence band": the token row, the receiver
boxed, the blank greyed as the future); head 1's arrows arc above it, head 2's below. The walk
scenes share one base class, `HeadWalkScene`: `construct` calls `show_*` steps, one per beat, and
the pictures come from the `get_*` builders below. Every token, count and number comes from the
worksheet of LESSON_SENTENCE (default "river"); which sources are written out, what the rounding
does and what a message carries are decided in `lesson_data.walkthrough`. Captions follow the
lesson notes (docs/lesson-notes.txt); their caveats appear as fine print in the notes' words.

    manim -pql scenes/chapter2/head_walk.py Head1Weights
    manim -pql scenes/chapter2/head_walk.py Head1Message
    manim -pql scenes/chapter2/head_walk.py Head2WeightsAndMessage
    manim -pql scenes/chapter2/head_walk.py MaskedMatrix
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from manim import (
    ORIGIN,
    DOWN,
    LEFT,
    PI,
    RIGHT,
    UP,
    Create,
    FadeIn,
    FadeOut,
    AnimationGroup,
    GrowArrow,
    Indicate,
    LaggedStart,
    Line,
    Mobject,
    MoveToTarget,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    TransformFromCopy,
    VGroup,
)

from lesson_data.display import fmt, fmt_about as about, places_for
from lesson_data.walkthrough import (
    choose_walk_sources,
    earlier_favourite,
    settled_split,
    early_row_example,
    keys_equal_values,
    lone_query_coordinate,
    message_terms,
    product_rounding_gaps,
    ranked_sources,
    read_message,
    rounded_parts_sum,
    rounding_differences,
    rounding_shows_in_sum,
    score_walk_sources,
    unshifted_softmax_row,
    value_axes,
)
from lesson_data.worksheet import AXES
from scenes.blocks.attention_arrows import (RECEIVER_ROOM, AttentionArrows, get_attention_arrows, get_label_pill,
                                           get_token_row, place_weight_label)
from scenes.blocks.flow_arrow import get_arrow
from scenes.blocks.labeled_matrix import get_labeled_matrix, get_row_vector
from scenes.blocks.message_slot import get_signed_message_flow
from scenes.blocks.masked_matrix import BLOCKED_COLOR, get_masked_matrix, heat_color
from scenes.blocks.scalar_vector_product import get_scalar_vector_product
from scenes.blocks.shape_box import get_shape_box
from scenes.blocks.weight_column import get_weight_column
from scenes.style import (
    ROUNDING_NOTE,
    SEPARATE_PARAMETERS_NOTE,
    FINE_PRINT_SIZE,
    BUFF_SMALL,
    CONTENT_BOTTOM,
    CONTENT_CENTER,
    CONTENT_TOP,
    DIM_TEXT_COLOR,
    FRAME_WIDTH,
    LABEL_SIZE,
    MARGIN,
    MASK_COLOR,
    MIN_TEXT_SIZE,
    NUMBER_SIZE,
    RECEIVER_COLOR,
    SOURCE_COLOR,
    TEXT_COLOR,
    LessonScene,
    NumberText,
    align_baseline,
    baseline_y,
    count_word,
    join_words,
    format_shape,
    get_fine_print,
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
# Layout. The per-source columns (keys, scores, weights, values, products) share one row grid, so a
# source's numbers sit on one line however the columns come and go; the grid's row height is chosen
# to fit the rows under (or over) the sentence band, never below the legibility floor.
# ============================================================================================

LEFT_X = -FRAME_WIDTH / 2 + MARGIN
RIGHT_X = FRAME_WIDTH / 2 - MARGIN
TOKEN_SIZE = 20                    # the sentence band's words
ARC_ANGLE = PI / 5                 # flatter arcs than the block's default: clear of the title and the badge
SYMBOL_SIZE = 22                   # q¹₁₀, m¹₁₀ and the formulas of the right-hand panel
HEADER = 0.8                       # from a table's first row up to the top of its name
MIN_ROW = 0.23                     # row pitch floor: size-16 words with descenders do not touch
MAX_ROW = 0.36
COLUMN_GAP = 0.22
SIGN_MARK_COLOR = TEXT_COLOR       # the minus signs' boxes: white, never a head's colour
LARGE_WEIGHT_SIZE = 20             # scene 8's weight column, which has the frame's width to itself
LARGE_BAR_WIDTH = 3.2
PANEL_GAP = 0.5


def display_words(ws) -> list[str]:
    """The prefix as written (original case) when it lines up with the tokens, else the tokens."""
    words = ws.text.split()
    return words if len(words) == ws.n else list(ws.tokens)


def source_labels(ws) -> list[str]:
    """'j word' for every source: the walk changes only the source index j."""
    return [f"{j + 1} {word}" for j, word in enumerate(display_words(ws))]


def coordinate_names(W) -> list[str]:
    """What each projected coordinate carries (water, finance, ...), else a, b, ..."""
    names = value_axes(W)
    return [name or "abcdefgh"[k] for k, name in enumerate(names)]


def alpha_name(h: int, n: int, j: str = "ⱼ") -> str:
    """α¹₁₀,ⱼ: head superscript, receiver and source subscripts."""
    return f"α{sup(h)}{sub(n)},{j}"


def counted(n: int, noun: str) -> str:
    """'the ten weights' / 'the one weight': a count and its noun, as a sentence says them."""
    return f"{count_word(n)} {noun}" + ("" if n == 1 else "s")


def quoted(word: str) -> str:
    return f"“{word}”"


def get_formula(parts, size: float = LABEL_SIZE, buff: float = 0.1, color: str = TEXT_COLOR) -> VGroup:
    """Words, symbols and NumberTexts on one line, the words on the digits' baseline."""
    mobs = [p if isinstance(p, Mobject) else get_text(p, font_size=size, color=color) for p in parts]
    line = VGroup(*mobs).arrange(RIGHT, buff=buff)
    numbers = [m for m in mobs if isinstance(m, NumberText)]
    if numbers:
        y, centre = baseline_y(numbers[0]), numbers[0].get_center()[1]
        for m in mobs:
            inner = [x for x in m.get_family() if isinstance(x, NumberText)]
            if isinstance(m, NumberText):
                align_baseline(m, y)
            elif inner:                            # a group with a number inside: that number's line
                m.shift(UP * (y - baseline_y(inner[0])))
            elif not hasattr(m, "original_text"):
                m.set_y(centre)
            elif m.original_text in ("…", ".", ","):     # sits on the line, like the digits
                m.shift(UP * (y - m.get_bottom()[1]))
            elif any(c.isalnum() for c in m.original_text):
                align_baseline(m, y)
            else:                                  # brackets, operators: on the digits' middle
                m.set_y(centre)
    return line


@dataclass(frozen=True)
class RowGrid:
    """Where the per-source rows go: source 1's row at `first_y`, one row every `row_height`.
    `with_band`: the rows fit beside the sentence band (else the band and the table take turns)."""

    first_y: float
    row_height: float
    with_band: bool
    top: float                          # the region's top (the right-hand panel starts here)
    bottom: float                       # and its bottom

    @property
    def v_buff(self) -> float:
        """The labeled-matrix spacing that gives this row height."""
        return self.row_height - (get_text("0", font_size=NUMBER_SIZE).height + 0.12)


def get_row_grid(n: int, region: tuple[float, float],
                 fallback: tuple[float, float] = (CONTENT_TOP, CONTENT_BOTTOM)) -> RowGrid:
    """n rows (and a sum row) in a (top, bottom) region beside the sentence band; when they would
    be closer than MIN_ROW, in the whole content zone (the band makes way while the table shows)."""
    for (top, bottom), with_band in ((region, True), (fallback, False)):
        first = top - HEADER
        pitch = (first - bottom - 0.22) / n
        if pitch >= MIN_ROW or not with_band:
            return RowGrid(first, float(min(MAX_ROW, max(pitch, MIN_ROW))), with_band, top, bottom)
    raise AssertionError("unreachable")


# ============================================================================================
# The sentence band: the token row, the receiver boxed, the blank greyed as the future
# ============================================================================================


class SentenceBand(VGroup):
    """Built by get_sentence_band. Parts: `row` (TokenRow), `future` (the grey over the blank and
    its label). Arrows are built on `row` and kept apart (they come and go)."""


def get_sentence_band(ws, max_width: float = FRAME_WIDTH - 2 * MARGIN) -> SentenceBand:
    row = get_token_row(display_words(ws), receiver=ws.n, blank=True, font_size=TOKEN_SIZE,
                        receiver_width=RECEIVER_ROOM, max_width=max_width)
    slot = row.blank[0]
    shade = Rectangle(width=slot.width, height=slot.height).move_to(slot)
    shade.set_stroke(width=0).set_fill(MASK_COLOR, 0.85)
    label = get_text("future", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR).next_to(slot, DOWN, buff=0.08)
    if len(row.positions):
        align_baseline(label, baseline_y(row.positions[-1]))
    band = SentenceBand(row, shade, label)
    band.row, band.future = row, VGroup(shade, label)
    return band


def get_head_arrows(band: SentenceBand, head, n: int, side=UP) -> AttentionArrows:
    """Head h's row n of A as arrows into the receiver: head 1 above the words, head 2 below (clear
    of the position numbers: the block leaves room under them)."""
    return get_attention_arrows(band.row, head.weights[n - 1], color=head_color(head.index), side=side,
                                angle=ARC_ANGLE)


def place_band(band: SentenceBand, arrows: AttentionArrows, side=UP, x: float = 0.0,
               top: float = CONTENT_TOP, bottom: float = CONTENT_BOTTOM) -> None:
    """Put the band (and its arrows) at the top of the content zone, whichever side its arrows are
    on (scenes 8–10 keep one layout: the sentence at the top, the table under it)."""
    both = VGroup(band, arrows)
    both.set_x(x)
    both.shift(UP * (top - 0.04 - both.get_top()[1]))


def band_region(band: SentenceBand, side=UP, arrows: AttentionArrows | None = None) -> tuple[float, float]:
    """The (top, bottom) of the content left for the table under the band (and under its arrows
    when they run below it)."""
    lowest = band.get_bottom()[1]
    if arrows is not None and np.allclose(side, DOWN):
        lowest = min(lowest, arrows.get_bottom()[1])
    return lowest - 0.18, CONTENT_BOTTOM


# ============================================================================================
# Builders: the weights walk (scenes 8 and 10)
# ============================================================================================


def get_query_vector(ws, head):
    """q^h_n = [2.3  2.3], the receiver's query for this head on one line, its own precision."""
    n, h, d = ws.n, head.index, head.Q.shape[1]
    color = head_color(h)
    vector = get_row_vector(head.Q[n - 1], None, tag=f"q{h}", color=color, places=None, font_size=LABEL_SIZE)
    name = get_text(f"q{sup(h)}{sub(n)} =", font_size=SYMBOL_SIZE, color=color)
    shape = get_text(format_shape((1, d)), font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
    line = VGroup(name, vector, shape).arrange(RIGHT, buff=0.15)
    name.set_y(vector.cell_center(0, 0)[1])
    shape.set_y(vector.cell_center(0, 0)[1])
    line.vector, line.name = vector, name
    return line


def get_step_column(values, header: str, tag: str, grid: RowGrid, color=TEXT_COLOR):
    """One step of the softmax as a column: one entry per source, its own precision, header above."""
    values = np.asarray(values, dtype=float).reshape(-1, 1)
    return get_labeled_matrix(values, None, [header], tag=tag, color=color, label_color=TEXT_COLOR,
                              v_buff=grid.v_buff, places=None)


def place_rows(mob, row_y: float):
    """Shift a LabeledMatrix or WeightColumn vertically so its first row sits at row_y."""
    y = mob.cell_center(0, 0)[1] if hasattr(mob, "cell_center") else mob.weight(0).get_center()[1]
    return mob.shift(UP * (row_y - y))


def get_score_table(ws, head, grid: RowGrid):
    """k^h_j for every source, then the receiver's scores, ÷ √d, − max and exp, one row per source."""
    n, h, d = ws.n, head.index, head.K.shape[1]
    i = n - 1
    keys = get_labeled_matrix(head.K, source_labels(ws), coordinate_names(head.W_K),
                              name=f"K{sup(h)}  {format_shape(head.K.shape)},  rows k{sup(h)}ⱼ", tag=f"K{h}", v_buff=grid.v_buff,
                              places=None, dim_zeros=True, label_size=MIN_TEXT_SIZE)
    scores = get_step_column(head.scores[i], "q·k", f"scores{h}", grid)
    scaled = get_step_column(head.scaled[i], "sⱼ", f"scaled{h}", grid)      # sⱼ = q·k ÷ √d, the score line says
    shifted = get_step_column(head.shifted[i], "− max", f"shifted{h}", grid)
    exps = get_step_column(head.exps[i], "exp", f"exps{h}", grid, color=head_color(h))
    table = VGroup(keys, scores, scaled, shifted, exps).arrange(RIGHT, buff=COLUMN_GAP, aligned_edge=DOWN)
    for column in table:
        place_rows(column, grid.first_y)
    table.shift(RIGHT * (LEFT_X - table.get_left()[0]))
    table.keys, table.scores, table.scaled, table.shifted, table.exps = keys, scores, scaled, shifted, exps
    table.steps = VGroup(scores, scaled, shifted, exps)
    return table


def get_score_lines(ws, head, j: int):
    """q·k_j written out coordinate by coordinate, then ÷ √d: the score of source j."""
    n, h, d = ws.n, head.index, head.Q.shape[1]
    color = head_color(h)
    q, k = head.Q[n - 1], head.K[j]
    qp, kp, sp = places_for(head.Q[n - 1]), places_for(head.K), places_for(head.scores[n - 1])
    terms = []
    for c in range(d):
        if c:
            terms.append("+")
        terms += [get_number(q[c], qp, tag=f"walk_q{h}", index=(j, c), color=color), "×"]
        kc = get_number(k[c], kp, tag=f"walk_k{h}", index=(j, c))
        terms.append(get_formula(["(", kc, ")"], buff=0.03) if k[c] < 0 else kc)
    lhs = get_text(f"q{sup(h)}{sub(n)} · k{sup(h)}{sub(j + 1)}", font_size=SYMBOL_SIZE, color=color)
    line1 = get_formula(["=", *terms])
    score = get_number(head.scores[n - 1, j], sp, tag=f"walk_score{h}", index=j)
    line2 = get_formula(["=", score])
    scaled = get_number(head.scaled[n - 1, j], tag=f"walk_scaled{h}", index=j, color=color)
    over = get_number(head.scores[n - 1, j], sp, tag=f"walk_score_over{h}", index=j)
    line3 = get_formula([f"s{sub(j + 1)}  =", over, f"/ √{d}  =", scaled])
    lines = VGroup(lhs, line1, line2, line3).arrange(DOWN, buff=0.16, aligned_edge=LEFT)
    for line in (line1, line2):
        line.shift(RIGHT * 0.3)
    lines.lhs, lines.product, lines.score, lines.scaled_line, lines.scaled = lhs, line1, line2, line3, scaled
    return lines


def get_softmax_panel(ws, head):
    """The max of the scaled scores, the denominator over every permitted source, the weight formula."""
    n, h = ws.n, head.index
    color = head_color(h)
    i = n - 1
    max_line = get_formula(["max  =", get_number(head.row_max[i], tag=f"max{h}")])
    den_line = get_formula([f"Σₖ exp(sₖ − max), k = 1–{n}  =", get_number(head.denominators[i], tag=f"den{h}",
                                                                          color=color)])
    formula = get_text(f"{alpha_name(h, n)} = exp(sⱼ − max) / Σ", font_size=SYMBOL_SIZE, color=color)
    panel = VGroup(max_line, den_line, formula).arrange(DOWN, buff=0.3, aligned_edge=LEFT)
    panel.max_line, panel.den_line, panel.formula = max_line, den_line, formula
    return panel


def get_stability_check(ws, head, j: int):
    """Source j's weight with and without subtracting the max: the same number."""
    n, h = ws.n, head.index
    color = head_color(h)
    i = n - 1
    exps, den, weights = unshifted_softmax_row(head, i)
    lines = VGroup()
    for label, top, bottom, w, tag in ((f"{ws.tokens[j]}, with − max:", head.exps[i, j], head.denominators[i],
                                        head.weights[i, j], "check"),
                                       ("without:", exps[j], den, weights[j], "unshifted")):
        lines.add(get_formula([get_text(label, font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR),
                               get_number(top, tag=f"{tag}_exp{h}"), "/", get_number(bottom, tag=f"{tag}_den{h}"),
                               "=", get_number(w, tag=f"{tag}_w{h}", color=color)], buff=0.12))
    lines.arrange(DOWN, buff=0.16, aligned_edge=RIGHT)
    check = VGroup(lines)
    check.lines = lines
    return check


# ============================================================================================
# Builders: the message walk (scenes 9 and 10)
# ============================================================================================


def get_weight_rows(ws, head, grid: RowGrid, *, large: bool = False):
    """Row n of A as a weight column: each source word beside its weight and a bar, then the sum.
    large: bigger type and long bars (scene 8, where the column has the frame's width to itself)."""
    n, h = ws.n, head.index
    color = head_color(h)
    size = LARGE_WEIGHT_SIZE if large and grid.row_height >= 0.26 else MIN_TEXT_SIZE
    column = get_weight_column(source_labels(ws), head.weights[n - 1], color=color, tag=f"A{h}_row",
                               label_size=size, font_size=max(size, NUMBER_SIZE), row_height=grid.row_height,
                               bar_max_width=LARGE_BAR_WIDTH if large else 1.2, sum_text="sum")
    header = get_text(alpha_name(h, n), font_size=SYMBOL_SIZE, color=color)
    place_rows(column, grid.first_y)
    column.shift(RIGHT * (LEFT_X - column.get_left()[0]))
    header.next_to([column.weight(0).get_center()[0], grid.first_y + grid.row_height / 2, 0], UP, buff=0.12)
    group = VGroup(header, column)
    group.column, group.header = column, header
    return group


def get_message_table(ws, head, grid: RowGrid, weights=None):
    """Beside the weight column: the value rows v_j, the products α_j v_j and their sum m."""
    n, h, d = ws.n, head.index, head.V.shape[1]
    color = head_color(h)
    i = n - 1
    weights = weights or get_weight_rows(ws, head, grid)
    column = weights.column
    names = coordinate_names(head.W_V)
    values = get_labeled_matrix(head.V, None, names, name=f"v{sup(h)}ⱼ", tag=f"V{h}", v_buff=grid.v_buff,
                                places=None, dim_zeros=True, name_size=SYMBOL_SIZE)
    products = get_labeled_matrix(message_terms(head, i), None, names, name=f"{alpha_name(h, n)} v{sup(h)}ⱼ",
                                  tag=f"P{h}", color=color, name_color=color, v_buff=grid.v_buff, places=None,
                                  name_size=SYMBOL_SIZE)
    place_rows(values, grid.first_y)
    values.shift(RIGHT * (column.get_right()[0] + 0.3 - values.get_left()[0]))
    place_rows(products, grid.first_y)
    products.shift(RIGHT * (values.get_right()[0] + 0.35 - products.get_left()[0]))
    # the message: one full-precision sum per coordinate, on the weight column's sum line
    sum_y = column.sum_number.get_center()[1]
    message = VGroup()
    for k in range(d):
        number = get_number(head.messages[i, k], tag=f"m{h}", index=(0, k), color=color)
        number.move_to([products.cell(0, k).get_right()[0], sum_y, 0], aligned_edge=RIGHT)
        align_baseline(number, baseline_y(column.sum_number))
        message.add(number)
    top = sum_y + grid.row_height / 2
    rule = Line([products.brackets.get_left()[0], top, 0], [products.brackets.get_right()[0], top, 0])
    rule.set_stroke(DIM_TEXT_COLOR, 1.5)
    label = get_text(f"m{sup(h)}{sub(n)} =", font_size=SYMBOL_SIZE, color=color)
    label.next_to(products.brackets, LEFT, buff=BUFF_SMALL)
    align_baseline(label, baseline_y(message[0]))
    message_row = VGroup(rule, label, message)
    table = VGroup(weights, values, products, message_row)
    table.weights, table.column, table.header = weights, column, weights.header
    table.values, table.products, table.message, table.message_row = values, products, message, message_row
    return table


def get_value_projection(ws, head, grid: RowGrid):
    """E · W_V^h = V^h: the value rows are a projection of the embedding rows."""
    h = head.index
    color = head_color(h)
    kw = dict(v_buff=grid.v_buff, places=None, dim_zeros=True, label_size=MIN_TEXT_SIZE)
    e = get_labeled_matrix(ws.E, source_labels(ws), list(AXES), name=f"E  {format_shape(ws.E.shape)}", tag="E", **kw)
    w_v = get_labeled_matrix(head.W_V, list(AXES), coordinate_names(head.W_V),
                             name=f"W_V{sup(h)}  {format_shape(head.W_V.shape)}", tag=f"W_V{h}", color=color,
                             name_color=color, **kw)
    v = get_labeled_matrix(head.V, None, coordinate_names(head.W_V), name=f"V{sup(h)}  {format_shape(head.V.shape)}",
                           tag=f"V{h}", name_color=color, **kw)
    dot, equals = get_text("·", font_size=SYMBOL_SIZE + 24), get_text("=", font_size=SYMBOL_SIZE + 4)
    group = VGroup(e, dot, w_v, equals, v).arrange(RIGHT, buff=0.3)
    for m in (e, v):
        place_rows(m, grid.first_y)
    group.set_x(0)
    middle = (e.cell_center(0, 0)[1] + e.cell_center(ws.n - 1, 0)[1]) / 2
    # W_V's rows centred on E's: the "·" between them sits on both
    w_v.shift(UP * (middle - (w_v.cell_center(0, 0)[1] + w_v.cell_center(w_v.n_rows - 1, 0)[1]) / 2))
    dot.set_y(middle)
    equals.set_y(middle)
    group.E, group.W_V, group.V, group.ops = e, w_v, v, VGroup(dot, equals)
    return group


def get_expansion(ws, head, j: int):
    """Source j's α × v = [α·v_a, α·v_b] = α v, stacked for the right-hand panel."""
    n, h = ws.n, head.index
    color = head_color(h)
    svp = get_scalar_vector_product(head.weights[n - 1, j], head.V[j], product=message_terms(head, n - 1)[j],
                                    color=color,
                                    col_labels=coordinate_names(head.W_V), tag=f"svp{h}_{j}", expanded=True,
                                    vector_places=places_for(head.V), stacked=True)
    label = get_text(f"source {j + 1}, {ws.tokens[j]}", font_size=LABEL_SIZE, color=SOURCE_COLOR)
    line = VGroup(label, svp).arrange(DOWN, buff=0.2, aligned_edge=LEFT)
    line.svp, line.label = svp, label
    return line


def get_shrink_picture(ws, head, j: int, size: float = 1.0) -> VGroup:
    """Source j's value as a 2-D arrow and its weighted value α·v as a second arrow from the same
    origin, at one drawing scale (the longer arrow is `size` long): a small weight shrinks the whole
    vector, both coordinates at once. Parts: `value`, `scaled`, `labels`."""
    from manim import Arrow, Dot

    h = head.index
    color = head_color(h)
    v = head.V[j, :2]
    scaled = message_terms(head, ws.n - 1)[j][:2]
    length = float(np.hypot(*v))
    picture = VGroup()
    if length == 0:
        return picture
    k = size / length
    origin = Dot(radius=0.035, color=DIM_TEXT_COLOR)
    value = Arrow(ORIGIN, [v[0] * k, v[1] * k, 0], buff=0, stroke_width=3, color=TEXT_COLOR,
                  max_tip_length_to_length_ratio=0.2)
    small = Arrow(ORIGIN, [scaled[0] * k, scaled[1] * k, 0], buff=0, stroke_width=4, color=color,
                  max_tip_length_to_length_ratio=0.5, max_stroke_width_to_length_ratio=40)
    v_label = get_text(f"v{sup(h)}{sub(j + 1)}", font_size=LABEL_SIZE).next_to(value.get_end(), RIGHT, buff=0.08)
    s_label = get_formula([get_number(head.weights[ws.n - 1, j], tag=f"shrink{h}_alpha", color=color),
                           get_text(f"v{sup(h)}{sub(j + 1)}", font_size=LABEL_SIZE, color=color)], buff=0.06)
    s_label.next_to(origin, DOWN, buff=0.12).align_to(origin, LEFT)
    picture.add(origin, value, small, v_label, s_label)
    picture.value, picture.scaled, picture.labels = value, small, VGroup(v_label, s_label)
    return picture


def get_product_rounding_note(ws, head, j: int, gap, width: float):
    """Why a product shows 2.225 where a calculator gives 2.2258 from the screen's 0.718 × 3.1."""
    n, h = ws.n, head.index
    color = head_color(h)
    alpha, v = head.weights[n - 1, j], head.V[j, gap.coordinate]
    vp = places_for(head.V)
    shown = get_formula([get_number(alpha, tag=f"gap{h}_alpha_shown", color=color), "×", get_number(v, vp, tag=f"gap{h}_v"),
                         "=", get_number(gap.from_shown, gap.from_shown_places, tag=f"gap{h}_calculator")], buff=0.06)

    def cut(number):             # a number cut short: its digits go on
        return get_formula([number, "…"], buff=0.02)

    exact = get_formula([cut(get_number(alpha, 5, tag=f"gap{h}_alpha", color=color)), "×",
                         get_number(v, vp, tag=f"gap{h}_v2"), "=", cut(get_number(gap.exact, 5, tag=f"gap{h}_exact")),
                         "→", get_number(gap.exact, tag=f"gap{h}_shown", color=color)], buff=0.06)
    labels = [get_text(t, font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR) for t in ("from the screen:", "unrounded:")]
    note = VGroup(labels[0], shown, labels[1], exact).arrange(DOWN, buff=0.07, aligned_edge=LEFT)
    for line in (shown, exact):
        line.shift(RIGHT * 0.25)
    if note.width > width:               # no room beside this table: the sentence alone says it
        return None
    note.scale(min(1.25, (width - 0.05) / note.width))     # as large as the panel allows
    note.shown, note.exact = shown, exact
    return note


def get_shape_equation(ws, head):
    """[1, n] · [n, d_v] → [1, d_v]: row n of A times V is the message."""
    n, h, d = ws.n, head.index, head.V.shape[1]
    color = head_color(h)
    kw = dict(color=color, unit=0.058, name_size=LABEL_SIZE, shape_size=LABEL_SIZE)
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


def get_message_card(ws, head):
    """m^h_n with what its coordinates carry, for the side-by-side ending (scene 10)."""
    n, h = ws.n, head.index
    color = head_color(h)
    vector = get_row_vector(head.messages[n - 1], coordinate_names(head.W_V), tag=f"card{h}", color=color,
                            label_size=MIN_TEXT_SIZE)
    name = get_text(f"m{sup(h)}{sub(n)} =", font_size=SYMBOL_SIZE, color=color)
    card = VGroup(name, vector).arrange(RIGHT, buff=0.2)
    name.set_y(vector.cell_center(0, 0)[1])
    card.vector, card.name = vector, name
    return card


# ============================================================================================
# The walk scenes
# ============================================================================================


class HeadWalkScene(LessonScene):
    """The walk along row n of one head, beside the sentence band. Subclasses pick the head, the
    band's side (head 1's arrows above it, head 2's below) and the order of the `show_*` steps."""

    head_index = 1
    band_side = UP
    large_weights = False        # the weight column in large type with long bars (scene 8)
    keep_scores = False          # the sⱼ column stays beside the weights it gives (scene 8)

    def setup(self):
        super().setup()
        ws = self.ws = scene_worksheet()
        self.head = ws.heads[self.head_index - 1]
        self.h, self.n, self.i = self.head.index, ws.n, ws.n - 1
        self.color = head_color(self.h)
        self.fine = None
        self.band = get_sentence_band(ws)
        self.arrows = get_head_arrows(self.band, self.head, self.n, side=self.band_side)
        place_band(self.band, self.arrows, self.band_side)
        self.head_label = self.get_head_label(self.head)
        fallback = (CONTENT_TOP, CONTENT_BOTTOM)
        self.grid = get_row_grid(self.n, band_region(self.band, self.band_side, self.arrows), fallback)
        self.on_band = VGroup()          # what is shown with the sentence (its arrows, the head label)
        self.band_shown = False
        self.fine_prints = []            # (beat id, caveat): the notes' fine print, beat by beat
        self.fold_kept, self.fold_slide = None, 0.0     # the softmax's last step, kept beside the weights
        self.kept_scores = None          # the sⱼ column, when it stays beside the weights (keep_scores)
        self.score_table = None
        self.source_rows_shown = False   # the source words copied down as the score table's rows

    # ---- small pictures -------------------------------------------------------------------
    def get_head_label(self, head) -> VGroup:
        """'head 1 · setting' in the head colour, in the corner of the arrows' side of the band."""
        label = get_text(f"head {head.index} · {head.name}", font_size=LABEL_SIZE, color=head_color(head.index))
        label.move_to([LEFT_X, 0, 0], aligned_edge=LEFT)
        if np.allclose(self.band_side, UP) and self.band.row.lines == 1:
            # above the highest arc, in the corner the title leaves free
            label.set_y(self.arrows.get_top()[1] + 0.06 + label.height / 2)
        elif np.allclose(self.band_side, UP):
            label.set_y(self.arrows.get_top()[1] - label.height / 2)
        else:        # under the band at the left, at the foot of its arrows (as in the side-by-side ending)
            label.move_to([LEFT_X, self.arrows.get_bottom()[1] + label.height / 2, 0], aligned_edge=LEFT)
        return label

    def word(self, j: int) -> str:
        return self.ws.tokens[j]

    def panel_x(self, table) -> float:
        return table.get_right()[0] + PANEL_GAP

    def fine_print(self, text: str, left: float | None = None, right: float = RIGHT_X) -> list:
        """Animations that replace the fine print (bottom of the right-hand panel) with `text`."""
        left = self.panel_left if left is None else left
        width = right - left
        lines = wrap_lines(text, FINE_PRINT_SIZE, width)
        if len(lines) > 1 and len(lines[-1].split()) == 1 and ": " in text:
            # "… H = AV: m₁₀ = Σⱼ α₁₀,ⱼ vⱼ." breaks after the colon, never before a lone last word
            width = min(width, get_text(text.split(": ")[0] + ":", font_size=FINE_PRINT_SIZE).width + 0.1)
        note = get_fine_print(text, max_width=width)
        note.move_to([left, self.grid.bottom + 0.05, 0], aligned_edge=LEFT + DOWN)
        anims = [FadeIn(note)]
        if self.fine is not None:
            anims.append(FadeOut(self.fine))
        self.fine = note
        self.log_fine_print(text)
        return anims

    def log_fine_print(self, text: str) -> None:
        """Which beat showed which of the notes' caveats (read by the tests)."""
        stage = getattr(self, "stage", None)
        self.fine_prints.append((getattr(stage, "id", None), text))

    def drop_fine_print(self) -> list:
        anims = [FadeOut(self.fine)] if self.fine is not None else []
        self.fine = None
        return anims

    def drop_fine_print_mobs(self) -> list:
        """The fine print as a mobject to fade with others (and forget)."""
        gone = [self.fine] if self.fine is not None else []
        self.fine = None
        return gone

    def add_title(self, text: str):
        self.title = get_title(text)
        with self.transition("title"):
            self.play(FadeIn(self.title), run_time=0.5)

    # ---- the band and the table take turns when a long sentence leaves no room --------------
    def make_room_for_table(self):
        if self.grid.with_band or not self.band_shown:
            return
        # the band gives way to the table as the table's first part comes in (no blank stage)
        self.give_way(VGroup(self.band, self.on_band))
        self.band_shown = False

    def bring_back_band(self, leaving=None):
        """Show the band again (a long sentence: the table's `leaving` parts make way)."""
        if self.band_shown:
            return
        with self.transition("the sentence returns"):
            self.play(*([FadeOut(leaving)] if leaving is not None else []), FadeIn(VGroup(self.band, self.on_band)),
                      run_time=0.6)
        self.band_shown = True

    def return_to_table(self):
        """A long sentence: the band gave way to the arrows; the weights come back for what follows."""
        if self.grid.with_band:
            return
        with self.transition("the table returns"):
            self.play(FadeOut(VGroup(self.band, self.on_band)),
                      FadeIn(VGroup(self.weights, self.softmax_panel.formula)), run_time=0.6)
        self.band_shown = False

    # ---- beats shared by the weights walks --------------------------------------------------
    def show_query(self, text: str, fine: str | None = None, spoken: str | None = None):
        if self.score_table is None:
            self.score_table = get_score_table(self.ws, self.head, self.grid)
        self.panel_left = self.panel_x(self.score_table)
        query = self.query = get_query_vector(self.ws, self.head)
        query.move_to([self.panel_left, self.grid.top - 0.1, 0], aligned_edge=LEFT + UP)
        self.make_room_for_table()
        receiver = self.band.row.boxes[self.i] if self.band_shown else None
        with self.beat(text, spoken=spoken):
            # the query comes out of the receiver: it is the receiver's
            self.play(FadeIn(query, shift=0.2 * LEFT) if receiver is None else
                      FadeIn(query, target_position=receiver.get_center(), scale=0.4),
                      *(self.fine_print(fine) if fine else []), run_time=1.2)

    def show_keys(self, text: str, spoken: str | None = None):
        table = self.score_table
        keys = table.keys
        self.receiver_box = keys.get_row_box(self.i, color=RECEIVER_COLOR, include_label=True)
        self.make_room_for_table()
        # the source words may already stand as the table's rows (scene 8's opening): the rest joins them
        coming = keys if not self.source_rows_shown else VGroup(keys.brackets, keys.entries, keys.col_labels,
                                                                 keys.name_label)
        with self.beat(text, spoken=spoken):
            self.play(FadeIn(coming, shift=0.2 * RIGHT), run_time=1.0)
            self.play(Create(self.receiver_box))

    def show_written_score(self, j: int):
        ws, head, table = self.ws, self.head, self.score_table
        n, d = self.n, head.Q.shape[1]
        lines = self.score_lines = get_score_lines(ws, head, j)
        lines.next_to(self.query, DOWN, buff=0.4, aligned_edge=LEFT)
        box = table.keys.get_row_box(j, color=SOURCE_COLOR, include_label=True)
        if self.band_shown:
            # the source's word in the sentence lights with its row: the score is that word's
            box = VGroup(box, self.band.row.boxes[j].copy().set_fill(opacity=0).set_stroke(SOURCE_COLOR, 3))
        self.source_box = box
        q, k = head.Q[n - 1], head.K[j]
        qp, kp, sp = places_for(q), places_for(head.K), places_for(head.scores[n - 1])
        product = " + ".join(f"{fmt(q[c], qp)} × {self.factor(k[c], kp)}" for c in range(d))
        key = " and ".join(fmt(k[c], kp) for c in range(d))
        score = fmt(head.scores[n - 1, j], sp)
        text = f"Source {j + 1}, {quoted(self.word(j))}, has the key {key}. Its score: {product} = {score}."
        qs = [fmt(q[c], qp) for c in range(d)]
        each = (f"Each times {qs[0]}" if len(set(qs)) == 1 else f"Each times its query number, {join_words(qs)}")
        spoken = f"The key of {quoted(self.word(j))}, source {j + 1}, is {key}. {each}, then added: {score}."
        with self.beat(text, spoken=spoken):
            self.play(Create(box), FadeIn(VGroup(table.scores.brackets, table.scores.col_labels)),
                      FadeIn(VGroup(lines.lhs, lines.product)))
            self.play(FadeIn(lines.score), table.scores.cell(j, 0).animate.set_opacity(1))

    @staticmethod
    def factor(x: float, places: int) -> str:
        """A factor as a caption writes it: negatives in parentheses, 2.3 × (-0.1)."""
        return f"({fmt(x, places)})" if x < 0 else fmt(x, places)

    def hide_step_entries(self):
        for column in self.score_table.steps:
            column.entries.set_opacity(0)

    def fold_into_column(self, text: str, fine: str | None = None, spoken: str | None = None):
        """The score table folds into row n of A: the source words stay, and the exp column, divided
        by the sum before the viewer's eyes ("÷ Σ" over it), becomes α."""
        ws, head, table = self.ws, self.head, self.score_table
        weights = self.weights = get_weight_rows(ws, head, self.grid, large=self.large_weights)
        column = weights.column
        den_line = self.softmax_panel.den_line
        # (a long sentence's band takes the table's place for the arrows: there the scores leave too)
        scores = table.scaled if self.keep_scores and self.grid.with_band else None
        leaving = [m for m in (table.keys.brackets, table.keys.entries, table.keys.col_labels, table.keys.name_label,
                               table.scores, table.scaled, table.shifted, self.receiver_box, *self.panel_leaving())
                   if m is not None and m is not den_line and m is not scores]
        divide = self.divide_label = get_formula(["÷", get_number(head.denominators[self.i], tag=f"divide{self.h}",
                                                                  color=self.color, font_size=LABEL_SIZE + 2)],
                                                 size=SYMBOL_SIZE)
        divide.next_to(table.exps, UP, buff=0.12)
        formula = self.softmax_panel.formula
        formula.generate_target()
        if scores is not None:
            # the scores slide to the right of the weights' bars, row for row: each weight beside its cause
            scores.generate_target()
            scores.target.shift(RIGHT * (self.weights_panel_left() - scores.get_left()[0]))
            self.kept_scores = scores.target
        formula.target.move_to([self.weights_panel_left(), self.grid.top - 0.1, 0], aligned_edge=LEFT + UP)
        with self.beat(text, spoken=spoken):
            self.play(*(FadeOut(m) for m in leaving), *self.drop_fine_print(),
                      *([MoveToTarget(scores)] if scores is not None else []), run_time=0.6)
            # the sum goes over the exp column: each exponential is divided by it
            self.play(ReplacementTransform(den_line[-1].copy(), divide[-1]), FadeIn(divide[0]),
                      FadeOut(table.exps.col_labels), run_time=1.0)
            self.play(Indicate(table.exps.entries, color=self.color, scale_factor=1.08), run_time=0.8)
            # read left to right: the exp column, ÷ Σ over it, moves beside the words; an arrow; the weights
            # it gives (each weight its exp over Σ). The weights slide home beside the words with the arrows.
            kept = VGroup(table.exps.entries, table.exps.brackets, divide)
            note = get_text("weights use the unrounded exps", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
            x = column.weights.get_left()[0] - table.exps.brackets.get_left()[0]
            exps_right = table.exps.brackets.get_right()[0] + x
            y = (column.weight(0).get_center()[1] + column.weight(self.n - 1).get_center()[1]) / 2
            to_weights = get_arrow([exps_right + 0.1, y, 0], [exps_right + 0.75, y, 0], color=self.color)
            slide = self.fold_slide = exps_right + 0.85 - column.weights.get_left()[0]
            VGroup(column.weights, weights.header).shift(RIGHT * slide)
            note.next_to(table.exps.brackets.get_corner(DOWN + LEFT) + RIGHT * x, DOWN, buff=0.12,
                         aligned_edge=LEFT)
            formula.target.set_x(max(formula.target.get_left()[0], column.weights.get_right()[0] + PANEL_GAP)
                                 + formula.target.width / 2)
            self.play(ReplacementTransform(table.keys.row_labels, column.labels), kept.animate.shift(RIGHT * x),
                      FadeOut(den_line), run_time=1.0)
            self.play(GrowArrow(to_weights), FadeIn(column.weights, shift=0.15 * RIGHT), FadeIn(weights.header),
                      run_time=1.0)
            self.play(FadeIn(note), FadeIn(formula.target),
                      *(self.fine_print(fine, left=self.weights_panel_left()) if fine else []))
        self.softmax_panel.formula = formula.target
        self.fold_kept = VGroup(kept, note, to_weights)
        if scores is not None:
            self.kept_scores = scores

    def panel_leaving(self) -> list:
        return [self.query, self.softmax_panel.max_line, self.softmax_panel.den_line]

    def weights_panel_left(self) -> float:
        """Where the panel right of the weight column starts (right of the kept sⱼ column, if any)."""
        if self.kept_scores is not None:
            return self.kept_scores.get_right()[0] + PANEL_GAP
        return self.weights.column.span.get_right()[0] + PANEL_GAP

    def show_arrows(self, text: str, fine: str | None = None, spoken: str | None = None):
        column = self.weights.column
        self.on_band.add(self.arrows)
        if not self.grid.with_band:
            self.bring_back_band(leaving=VGroup(self.weights, self.softmax_panel.formula, *self.drop_fine_print_mobs(),
                                                *([self.fold_kept] if self.fold_kept else [])))
            self.fold_kept = None
        kept = self.fold_kept
        slide = VGroup(column.weights, self.weights.header)
        if kept is None and self.fold_slide:
            slide.shift(LEFT * self.fold_slide)          # the weights left with the table: home, unseen
        with self.beat(text, spoken=spoken, look=1.0):
            self.play(self.arrows.create(run_time=2.0), *([FadeOut(kept)] if kept is not None else []),
                      *([slide.animate.shift(LEFT * self.fold_slide)] if kept is not None else []),
                      *([LaggedStart(*(FadeIn(bar, shift=0.2 * RIGHT) for bar in column.bars), lag_ratio=0.08,
                                     run_time=2.0)] if self.grid.with_band else []),
                      *(self.fine_print(fine, left=self.weights_panel_left()) if fine else []))
        if not self.grid.with_band:
            column.bars.set_opacity(1)

    def show_strongest(self):
        head, column = self.head, self.weights.column
        ranked = ranked_sources(head.weights[self.i], self.i)
        top = ranked[0]
        text = f"Head {self.h} puts most of its weight on {quoted(self.word(top))}: {fmt(head.weights[self.i, top])}."
        # its number was said with the stability check: the voice names the word and the runner-up
        spoken = f"Head {count_word(self.h)} puts most of its weight on {quoted(self.word(top))}."
        if len(ranked) == 1:
            text = spoken = f"With one source, {quoted(self.word(top))} gets all the weight: {fmt(head.weights[self.i, top])}."
        elif len(ranked) > 1:
            second = ranked[1]
            text += f" Next comes {quoted(self.word(second))}, at {fmt(head.weights[self.i, second])}."
            spoken += f" Next comes {quoted(self.word(second))}, at {fmt(head.weights[self.i, second])}."
        boxes = VGroup(*(column.get_row_box(j) for j in ranked[:2])) if self.grid.with_band else VGroup()
        if self.kept_scores is not None and len(boxes):
            # the score that gave each of the two: its cell boxed too, and a short arrow from the score
            # to the weight it became (score → weight: the column's place right of the bars reads back)
            cells = [self.kept_scores.get_cell_box(j, 0, color=SOURCE_COLOR) for j in ranked[:2]]
            boxes.add(*cells, *(get_arrow(cell.get_left(), [row.get_right()[0], cell.get_y(), 0], color=SOURCE_COLOR,
                                          buff=0.04, stroke_width=2, tip_length=0.12)
                                for cell, row in zip(cells, boxes[:2])))
        self.strong_boxes = boxes
        labels = self.arc_labels = self.get_arc_labels(ranked[:2])
        with self.beat(text, spoken=spoken):
            self.play(Indicate(self.arrows.arrow(top), color=TEXT_COLOR, scale_factor=1.05),
                      *(Create(b) for b in boxes), FadeIn(labels), run_time=1.2)
        self.on_band.add(labels)

    def get_arc_labels(self, sources) -> VGroup:
        """The weights of these sources written on their own arcs (each on a background pill, so no
        thin arc runs through it); none for a source on another line of a wrapped sentence."""
        row, labels = self.band.row, VGroup()
        for j in sources:
            if row.line_of(j) != row.line_of(self.n - 1):
                continue
            label = get_number(self.head.weights[self.i, j], tag=f"A{self.h}_arc", index=j,
                               font_size=NUMBER_SIZE, color=self.color)
            place_weight_label(label, self.arrows, j)
            labels.add(VGroup(get_label_pill(label), label))
        return labels

    def show_sum(self):
        column = self.weights.column
        i, n = self.i, self.n
        row = self.head.weights[i, : i + 1]
        text = f"The {counted(n, 'weight')} add up to one." if n > 1 else "The one weight is 1."
        spoken = None
        note = VGroup()
        if rounding_shows_in_sum(row, column.sum_number.value):
            shown = rounded_parts_sum(row)
            text += f" The rounded ones on screen add to {shown}."
            # the one place the voice says it: every later rounding note is on screen only
            spoken = text + " Every number on screen is rounded; every calculation uses the full values."
            note = self.sum_note = self.get_rounded_sum_note(row, float(shown))
        self.return_to_table()
        with self.beat(text, spoken=spoken):
            self.play(FadeOut(self.strong_boxes), FadeIn(VGroup(column.rule, column.sum_label, column.sum_number)),
                      *(self.fine_print(ROUNDING_NOTE,
                                        left=self.weights_panel_left())))
            if len(note):
                self.play(FadeIn(note))

    def get_rounded_den_note(self) -> VGroup:
        """Where the exponentials on screen add to other digits than Σ: 'shown parts add to 1.394;
        full precision 1.393', under the sum (empty when the rounding does not show)."""
        i = self.i
        exps, den = self.head.exps[i, : i + 1], self.head.denominators[i]
        if not rounding_shows_in_sum(exps, den):
            return VGroup()
        shown = get_formula([get_text("shown parts add to", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR),
                             get_number(float(rounded_parts_sum(exps)), tag=f"exps{self.h}_shown_sum",
                                        color=DIM_TEXT_COLOR)],
                            size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
        full = get_formula([get_text("full precision:", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR),
                            get_number(den, tag=f"exps{self.h}_full_sum", color=DIM_TEXT_COLOR)],
                           size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
        note = VGroup(shown, full).arrange(DOWN, buff=0.08, aligned_edge=LEFT)   # two lines: a clear break
        note.next_to(self.softmax_panel.den_line, DOWN, buff=0.2, aligned_edge=LEFT)
        return note

    def get_rounded_sum_note(self, row, shown: float) -> VGroup:
        """'shown: 0.006 + 0.166 + … + 0.005 = 0.999', below the formula in the panel."""
        parts = [get_text("shown:", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)]
        picks = list(range(len(row))) if len(row) <= 3 else [0, 1, None, len(row) - 1]
        for k, j in enumerate(picks):
            if k:
                parts.append("+")
            parts.append("…" if j is None else get_number(row[j], tag=f"A{self.h}_shown_part", index=j,
                                                          color=DIM_TEXT_COLOR))
        parts += ["=", get_number(shown, tag=f"A{self.h}_rounded_sum", color=DIM_TEXT_COLOR)]
        note = get_formula(parts, size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
        note.next_to(self.softmax_panel.formula, DOWN, buff=0.35, aligned_edge=LEFT)
        return note


class Head1Weights(HeadWalkScene):
    """Scene 8: receiver n's query against every source's key, ÷ √2, the stable softmax, row n of A¹
    beside the source words, and the same row as arrows into the receiver."""

    large_weights = True
    keep_scores = True

    def construct(self):
        head = self.head
        self.add_title(f"Head {self.h}: the weights of row {self.n}")      # the badge names its role
        # --- Shot 1: the sentence stays on screen; the blank is the future ----------------------
        self.shot("the sentence")
        self.show_sentence()
        self.show_hand_chosen()
        # --- Shot 2: the receiver's query, every source's key -----------------------------------
        self.shot("query and keys")
        axes = join_words(coordinate_names(head.W_K))
        self.show_query(f"Its query for the receiver, q{sup(1)}{sub(self.n)}, is two numbers: "
                        f"{join_words(fmt(x, places_for(head.Q[self.i])) for x in head.Q[self.i])}.",
                        fine="A query is a numerical vector, not an English question.",
                        spoken=f"Its query for the receiver is two numbers: "
                               f"{join_words(fmt(x, places_for(head.Q[self.i])) for x in head.Q[self.i])}.")
        self.hide_step_entries()
        self.show_keys(f"Every source has a key, k{sup(1)}ⱼ: its {axes}. The receiver is one of the sources.",
                       spoken=f"Every source has a key: its {axes}. The receiver is one of the sources.")
        # --- Shot 3: one score written out, then all of them -------------------------------------
        self.shot("scores")
        top = score_walk_sources(head, self.i)[0]
        self.show_written_score(top)
        self.show_scale(top)
        self.show_all_scores()
        # --- Shot 4: the stable softmax ---------------------------------------------------------
        self.shot("stable softmax")
        self.show_max_shift(top)
        self.show_exps(top)
        self.show_denominator()
        self.show_stability_check(top)
        # --- Shot 5: row n of A, stacked beside the source words, then as arrows -----------------
        self.shot("weight column")
        self.fold_into_column(
            f"Divide each exponential by the sum: the {counted(self.n, 'weight')} of row {self.n} of A{sup(1)}, "
            "one beside each source word.",
            fine=f"These are the {count_word(self.n)} entries of row {self.n} of this head’s attention matrix A. "
                 "We display them vertically so each weight can sit beside its source word.")
        self.shot("arrows")
        self.show_arrows("Drawn as arrows from each source into the receiver, an arrow’s width is its weight.",
                         fine="Arrows show information moving from source to receiver; their widths encode "
                              "computed attention weights.")
        self.show_strongest()
        self.show_sum()

    def show_sentence(self):
        tok = self.word(self.i)
        band = self.band
        with self.beat(f"Token {self.n}, {quoted(tok)}, is the receiver. The grey blank after it is the future: "
                       "there is nothing there to read.", look=1.2):
            self.play(LaggedStart(*(FadeIn(VGroup(b, w), shift=0.15 * UP) for b, w in zip(band.row.boxes, band.row.words)),
                                  lag_ratio=0.06), FadeIn(band.row.positions), run_time=1.6)
            self.play(FadeIn(band.row.blank), FadeIn(band.future))
        self.band_shown = True

    def show_hand_chosen(self):
        self.on_band.add(self.head_label)
        rows = []
        if self.grid.with_band:
            # every source word comes down to be a row of the head's table: the sources it will weigh
            self.score_table = get_score_table(self.ws, self.head, self.grid)
            labels = self.score_table.keys.row_labels
            rows = [LaggedStart(*(TransformFromCopy(word, label) for word, label in
                                  zip(self.band.row.words, labels)), lag_ratio=0.08, run_time=1.6)]
            self.source_rows_shown = True
        with self.beat(f"We built head {self.h} to find the {self.head.name}: our design, "
                       "not a job given to a trained head.", look=1.8):
            self.play(FadeIn(self.head_label, shift=0.2 * DOWN), *rows,
                      *self.fine_print("These are hand-chosen two-head parameters applied to Part II’s exact input "
                                       "rows. “Setting” and “person” name the intended behaviour of this example, "
                                       "not jobs assigned to trained heads.", left=0.0))

    def show_scale(self, j: int):
        table, lines = self.score_table, self.score_lines
        d = self.head.Q.shape[1]
        with self.beat(f"Divided by √{d}, the square root of the key width, it becomes "
                       f"{fmt(self.head.scaled[self.i, j])}."):
            self.play(FadeIn(VGroup(table.scaled.brackets, table.scaled.col_labels)), FadeIn(lines.scaled_line),
                      table.scaled.cell(j, 0).animate.set_opacity(1), *self.drop_fine_print())

    def show_all_scores(self):
        table = self.score_table
        rest = VGroup(*(VGroup(table.scores.cell(j, 0), table.scaled.cell(j, 0)) for j in range(self.n)))
        with self.beat("Every source gets its score the same way, the receiver too.", look=2.0):
            self.play(FadeOut(self.source_box), FadeOut(self.score_lines), rest.animate.set_opacity(1), run_time=1.2)

    def show_max_shift(self, top: int):
        table = self.score_table
        panel = self.softmax_panel = get_softmax_panel(self.ws, self.head)
        panel.next_to(self.query, DOWN, buff=0.45, aligned_edge=LEFT)
        max_box = self.max_box = table.scaled.get_cell_box(top, 0, color=self.color)
        with self.beat(f"For a stable softmax, subtract the largest score, {fmt(self.head.row_max[self.i])} "
                       f"for {quoted(self.word(top))}, from every score."):
            self.play(Create(max_box), FadeIn(panel.max_line),
                      *self.fine_print("A numerically stable softmax subtracts the maximum score before "
                                       "exponentiating; this leaves the normalized weights unchanged."))
            self.play(FadeIn(VGroup(table.shifted.brackets, table.shifted.col_labels)),
                      table.shifted.entries.animate.set_opacity(1), run_time=1.0)

    def show_exps(self, top: int):
        table = self.score_table
        with self.beat(f"Then exponentiate: {quoted(self.word(top))} gets exp of 0, which is 1; every other source "
                       "gets less.",
                       spoken=f"Then exponentiate: {self.word(top)} gets the exponential of zero, which is one; "
                              "every other source gets less."):
            self.play(FadeOut(self.max_box), FadeIn(VGroup(table.exps.brackets, table.exps.col_labels)),
                      table.exps.entries.animate.set_opacity(1), run_time=1.0)

    def show_denominator(self):
        table, panel = self.score_table, self.softmax_panel
        column_box = table.exps.get_column_box(0, color=self.color)
        receiver_cell = table.exps.get_cell_box(self.i, 0, color=RECEIVER_COLOR, fill_opacity=0.0)   # outline only
        self.softmax_marks = VGroup(column_box, receiver_cell)
        note = self.den_note = self.get_rounded_den_note()
        with self.beat((f"Add all {count_word(self.n)}, the receiver’s own term included: " if self.n > 1 else
                        "The sum holds only the receiver’s own term: ") +
                       f"{fmt(self.head.denominators[self.i])}."):
            self.play(Create(column_box), Create(receiver_cell), FadeIn(panel.den_line),
                      *self.fine_print("Every source contributes to the denominator, including the receiver itself."))
            if len(note):
                self.play(FadeIn(note))

    def show_stability_check(self, top: int):
        check = self.check = get_stability_check(self.ws, self.head, top)
        check.next_to(self.den_note if len(self.den_note) else self.softmax_panel.den_line, DOWN, buff=0.4,
                      aligned_edge=LEFT)
        word, weight = quoted(self.word(top)), fmt(self.head.weights[self.i, top])
        # the division previewed on one source (the next sentence divides them all), then the check
        with self.beat(f"{word}’s exponential over the sum is its weight, {weight}. Skip the subtraction "
                       "and the numbers grow, but the weight is the same.",
                       # ("river's one" was heard as "river's won")
                       spoken=f"{self.word(top).capitalize()}'s exponential is one. Divided by the sum, it gives its weight, "
                              f"{weight}. Skip the subtraction and the numbers grow, but the weight is the same."):
            # the denominator caveat leaves: the check takes its room
            self.play(FadeOut(self.softmax_marks), *self.drop_fine_print(), FadeIn(check.lines[0]))
            self.play(FadeIn(check.lines[1]))

    def panel_leaving(self) -> list:
        return [self.query, self.softmax_panel.max_line, self.softmax_panel.den_line, self.check, self.den_note]


class MessageWalk(HeadWalkScene):
    """The message walk's beats (scenes 9 and 10): V beside the weights, the walked products, their sum."""

    def setup(self):
        super().setup()
        self.weights = get_weight_rows(self.ws, self.head, self.grid)
        self.table = get_message_table(self.ws, self.head, self.grid, weights=self.weights)
        self.table.products.entries.set_opacity(0)
        self.walked = choose_walk_sources(self.head, self.i, self.walk_count)
        self.walked_sources = [w.j for w in self.walked]
        self.shown_gap = False
        # what the product and sum beats leave on screen for the next beat to clear
        self.expansion = self.previous_boxes = self.gap_note = self.values_note = None
        self.rounding_marks = VGroup()

    walk_count = 3

    def message_panel_left(self) -> float:
        return self.table.get_right()[0] + PANEL_GAP

    def value_words(self, j: int) -> tuple[str, str]:
        vp = places_for(self.head.V)
        v, p = self.head.V[j], message_terms(self.head, self.i)[j]
        return join_words(fmt(x, vp) for x in v), join_words(fmt(x) for x in p)

    def show_values_beside_weights(self, text: str, fine: str | None = None, projection=None):
        table = self.table
        frame = VGroup(table.products.brackets, table.products.col_labels, table.products.name_label)
        self.panel_left = self.message_panel_left()
        self.values_note = None
        with self.beat(text):
            if self.fine is not None:
                self.play(*self.drop_fine_print(), run_time=0.5)
            if projection is not None:
                self.play(FadeOut(VGroup(projection.E, projection.W_V, projection.ops, self.separate_box)),
                          run_time=0.6)
                self.play(ReplacementTransform(projection.V.entries, table.values.entries),
                          ReplacementTransform(VGroup(projection.V.brackets, projection.V.col_labels),
                                               VGroup(table.values.brackets, table.values.col_labels)),
                          ReplacementTransform(projection.V.name_label, table.values.name_label),
                          FadeIn(self.weights), *(self.fine_print(fine) if fine else []), run_time=1.2)
            else:
                self.play(FadeIn(VGroup(table.values), shift=0.3 * LEFT), *(self.fine_print(fine) if fine else []),
                          run_time=1.0)
            self.play(FadeIn(frame))

    def show_product(self, walked):
        ws, head, table = self.ws, self.head, self.table
        j, i = walked.j, self.i
        word = self.word(j)
        alpha = fmt(head.weights[i, j])
        line = get_expansion(ws, head, j)
        line.move_to([self.panel_left, self.grid.top - 0.05, 0], aligned_edge=LEFT + UP)
        svp = line.svp
        boxes = VGroup(table.column.get_row_box(j), table.values.get_row_box(j, color=SOURCE_COLOR),
                       table.products.get_row_box(j, color=SOURCE_COLOR))
        values, products = self.value_words(j)
        vp = places_for(head.V)
        terms = message_terms(head, i)[j]
        # "≈" where the screen's digits multiply to another last digit (the weight is unrounded;
        # lesson_data.walkthrough.product_rounding_gaps), "=" where they agree
        gapped = {g.coordinate for g in product_rounding_gaps(head.weights[i, j], head.V[j], value_places=vp)}
        pairs = " and ".join(f"{alpha} × {self.factor(head.V[j, k], vp)} {'≈' if k in gapped else '='} {fmt(terms[k])}"
                             for k in range(head.V.shape[1]))
        source = f"Source {j + 1}, {quoted(word)}"
        # the voice says each product once, rounded ("about"): the exact digits stay on screen
        v_said = [fmt(head.V[j, k], vp) for k in range(head.V.shape[1])]
        turns = join_words(f"{v} into about {about(p)}" for v, x, p in zip(v_said, head.V[j], terms) if x != 0)
        if any(x == 0 for x in head.V[j]):
            turns += ", and its zero stays zero"
        # the weight in one sentence, what it does to the value in the next: two numbers a clause
        weight = f"The weight of {quoted(word)}, source {j + 1}, is about {about(head.weights[i, j])}. It"
        if walked.reasons == ("small",):
            text = f"{source}, has a small weight, {alpha}: its whole value shrinks, {values} becoming {products}."
            after = [about(p) for p in terms]
            shrinks = (f"each coordinate shrinks from {v_said[0]} to about {after[0]}"
                       if len(set(v_said)) == 1 and len(set(after)) == 1 else
                       f"its whole value shrinks, {join_words(v_said)} becoming about {join_words(after)}")
            spoken = (f"The weight of {quoted(word)}, source {j + 1}, is small, about {about(head.weights[i, j])}: "
                      f"{shrinks}.")
            fine = "A small weight scales down the entire value vector."
        elif walked.reasons == ("sign",):
            text = f"{source}, has a value with a negative coordinate: {pairs}."
            spoken = f"{weight} turns its value's {turns}."
            fine = None
        else:
            text = f"{source}: its weight times its value, coordinate by coordinate: {pairs}."
            spoken = f"{weight} turns its value's {turns}."
            fine = "All products use the unrounded weights."
        previous = self.expansion
        self.expansion, self.product_boxes = line, boxes
        shrink = VGroup()
        if "small" in walked.reasons:
            # the whole value shrinks: v and α·v as arrows from one origin, beside the product
            shrink = get_shrink_picture(ws, head, j, size=0.9)
            # beside the product row, below the expanded row: clear of every bracket
            shrink.next_to(svp.lines[2], RIGHT, buff=0.4).align_to(svp.lines[2], DOWN)
            if shrink.get_right()[0] > RIGHT_X:
                shrink.shift(LEFT * (shrink.get_right()[0] - RIGHT_X))
            clear = svp.lines[1].get_bottom()[1] - 0.1
            if shrink.get_top()[1] > clear:
                shrink.shift(DOWN * (shrink.get_top()[1] - clear))
        # where a calculator on the screen's digits disagrees with the product's last digit, a footnote
        # under the product says why (on screen only: the voice said the rounding rule once, in scene 8)
        gaps = product_rounding_gaps(head.weights[i, j], head.V[j], value_places=vp)
        gap_note = None
        if gaps and not self.shown_gap:
            gap_note = get_product_rounding_note(ws, head, j, gaps[0], RIGHT_X - self.panel_left)
            if gap_note is not None:
                gap_note.next_to(line, DOWN, buff=0.2, aligned_edge=LEFT)
                self.shown_gap = True
                fine = None          # the footnote says it, with the digits
        with self.beat(text, spoken=spoken):
            self.play(*([FadeOut(previous), FadeOut(self.previous_boxes)] if previous is not None else []),
                      *([FadeOut(self.values_note)] if self.values_note is not None else []),
                      *([FadeOut(self.gap_note)] if self.gap_note is not None else []),
                      Create(boxes), FadeIn(line.label), FadeIn(svp.lines[0]),
                      *(self.fine_print(fine) if fine else self.drop_fine_print()),
                      *([Indicate(self.arrows.arrow(j), color=TEXT_COLOR, scale_factor=1.03)]
                        if self.band_shown and self.arrows in self.on_band else []))
            if len(shrink):
                self.play(FadeIn(shrink[0]), GrowArrow(shrink.value), FadeIn(shrink.labels[0]), run_time=0.8)
            self.play(FadeIn(svp.lines[1]))
            self.play(FadeIn(svp.lines[2]), table.products.row(j).animate.set_opacity(1),
                      *([GrowArrow(shrink.scaled), FadeIn(shrink.labels[1])] if len(shrink) else []))
            if gap_note is not None:
                self.play(FadeIn(gap_note))
        if len(shrink):
            line.add(shrink)
        self.gap_note, self.values_note = gap_note, None
        self.previous_boxes = boxes
        if "sign" in walked.reasons:
            self.show_sign(j)

    def show_sign(self, j: int):
        svp = self.expansion.svp
        negative = [k for k in range(self.head.V.shape[1]) if self.head.V[j, k] < 0]
        marks = VGroup(*(SurroundingRectangle(m, color=SIGN_MARK_COLOR, buff=0.05)
                         for k in negative for m in (svp.vector.cell(0, k), svp.product.cell(0, k))))
        with self.beat("Every weight is positive, so a minus sign in the product comes from the value.", look=1.0):
            # the calculator footnote has been read: the sign's fine print takes its room
            self.play(Create(marks), *([FadeOut(self.gap_note)] if self.gap_note is not None else []),
                      *self.fine_print("The sign of each coordinate comes from the value."))
        self.gap_note = None
        self.previous_boxes = VGroup(self.previous_boxes, marks)

    def show_all_products(self, text: str = "Every other source is scaled the same way."):
        table = self.table
        hidden = [r for r in range(table.products.n_rows)
                  if table.products.row(r)[0].get_fill_opacity() < 0.5]
        with self.beat(text, look=1.0):
            leaving = [m for m in (self.expansion, self.previous_boxes, self.gap_note, self.values_note)
                       if m is not None]
            # row by row, top to bottom, so the eye can follow each weight scaling its value (the last
            # product's working leaves as they come)
            self.play(*(FadeOut(m) for m in leaving), *self.drop_fine_print(),
                      LaggedStart(*(table.products.row(r).animate.set_opacity(1) for r in hidden), lag_ratio=0.5),
                      run_time=max(1.2, 0.3 * len(hidden)))
        self.expansion, self.gap_note = None, None

    def show_message_sum(self, text: str, fine: str | None = None, spoken: str | None = None):
        ws, table = self.ws, self.table
        n, h, d = self.n, self.h, self.head.V.shape[1]
        formula = self.message_formula = get_text(f"m{sup(h)}{sub(n)} = Σⱼ {alpha_name(h, n)} v{sup(h)}ⱼ",
                                                  font_size=SYMBOL_SIZE, color=self.color)
        travel = self.band_shown and self.arrows in self.on_band
        rows = [VGroup(*(table.products.cell(j, k).copy() for k in range(d))) for j in range(n)]
        if travel:
            # the message is the receiver's: its slot sits under the receiver; under it, one track per
            # coordinate where the scaled rows add, and the formula under them
            slot = self.message_slot = self.place_message_slot()
            flow = self.message_flow = get_signed_message_flow(
                message_terms(self.head, self.i)[:n], [[cell.get_center() for cell in row] for row in rows],
                coordinate_names(self.head.W_V), color=self.color, track_length=SUM_TRACK_LENGTH,
                bar_height=0.13, gap=0.12)
            picture = VGroup(flow.slot, flow.segments, flow.zero, flow.totals)
            picture.next_to(slot, DOWN, buff=0.14).align_to(slot, LEFT)
            if picture.get_right()[0] > RIGHT_X:
                picture.shift(LEFT * (picture.get_right()[0] - RIGHT_X))
            formula.next_to(picture, DOWN, buff=0.18)
            formula.set_x(max(formula.get_center()[0], self.panel_left + formula.width / 2))
            shown = [slot.frame, table.message_row[1], flow.slot]
        else:
            formula.move_to([self.panel_left, self.grid.top - 0.1, 0], aligned_edge=LEFT + UP)
            shown = [table.message_row[0], table.message_row[1]]
        marks = self.rounding_marks = self.get_sum_rounding_marks()
        leaving = [self.values_note] if self.values_note is not None else []
        self.values_note = None
        with self.beat(text, spoken=spoken):
            self.play(FadeIn(VGroup(*shown)), FadeIn(formula), *([Create(flow.zero)] if travel else []),
                      *(FadeOut(m) for m in leaving), *(self.fine_print(fine) if fine else []))
            if travel:
                # each scaled row turns into bars as long as its products (a small weight, a short
                # bar), goes up to its word and along its own arrow to the receiver, then down into
                # the tracks, where its bars are laid end to end: what the arrows carry, source by source
                self.play(*(ReplacementTransform(row, flow.copies[j]) if len(flow.copies[j]) else FadeOut(row)
                            for j, row in enumerate(rows)), run_time=0.6)
                self.play(flow.move_copies(along=self.arrows, lag_ratio=0.12, run_time=3.0))
                # each track's total is the message's coordinate
                self.play(Create(flow.totals), *(TransformFromCopy(flow.totals[k], table.message[k]) for k in range(d)),
                          run_time=1.0)
            else:
                # in the panel, the rows add coordinate by coordinate into the message
                self.play(*(ReplacementTransform(VGroup(*(row[k] for row in rows)), table.message[k])
                            for k in range(d)), run_time=1.5)
            if len(marks):
                # on screen only: the voice said the rounding rule once, in scene 8
                self.play(FadeIn(marks[0]), Create(marks[1]), FadeIn(marks[2]))
        # the copies became the message numbers; the table's own products stay where they were

    def place_message_slot(self) -> VGroup:
        """Move the message (its name and numbers) under the receiver, in a frame: the slot the
        scaled rows travel into. Returns the slot (its `frame`)."""
        table = self.table
        receiver = self.band.row.boxes[self.n - 1]
        label, numbers = table.message_row[1], table.message
        frame = SurroundingRectangle(numbers, color=self.color, buff=0.1, stroke_width=2)
        slot = VGroup(label, numbers, frame)
        slot.frame = frame
        slot.shift(RIGHT * (receiver.get_center()[0] - numbers.get_center()[0])
                   + UP * (self.grid.top - 0.1 - slot.get_top()[1]))
        if slot.get_right()[0] > RIGHT_X:
            slot.shift(LEFT * (slot.get_right()[0] - RIGHT_X))
        return slot

    def get_sum_rounding_marks(self) -> VGroup:
        """Where the rounded products on screen add to other digits than the message: 'finance: rounded
        products add to -0.017' under the formula, the message cell outlined, its column tinted
        (empty when the rounding does not show)."""
        head, table = self.head, self.table
        differ = rounding_differences(head, self.i)
        if not differ:
            return VGroup()
        k = differ[0]
        names = coordinate_names(head.W_V)
        shown = rounded_parts_sum(message_terms(head, self.i)[: self.i + 1, k])
        # two short lines: clear of the frame's right edge
        note = VGroup(
            get_text(f"{names[k]}: rounded products", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR),
            get_formula([get_text("add to", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR),
                         get_number(float(shown), tag=f"P{self.h}_rounded_sum", index=k, color=DIM_TEXT_COLOR)],
                        size=MIN_TEXT_SIZE)).arrange(DOWN, buff=0.08, aligned_edge=LEFT)
        note.next_to(self.message_formula, DOWN, buff=0.35, aligned_edge=LEFT)
        box = SurroundingRectangle(table.message[k], color=self.color, buff=0.06)
        tint = table.products.get_column_box(k, color=self.color, fill_opacity=0.14, stroke_width=0)
        return VGroup(note, box, tint)

    def show_shapes(self):
        n, d = self.n, self.head.V.shape[1]
        shapes = self.shapes = get_shape_equation(self.ws, self.head)
        shapes.next_to(self.message_formula, DOWN, buff=0.22, aligned_edge=LEFT)
        if shapes.get_right()[0] > RIGHT_X:          # (wider than the formula over it)
            shapes.shift(LEFT * (shapes.get_right()[0] - RIGHT_X))
        leaving = self.rounding_marks

        def tight(shape):          # "[1,10]": a shape the caption never breaks across two lines
            return format_shape(shape).replace(", ", ",")

        with self.beat(f"In shapes: the weights are a {tight((1, n))} row, V{sup(self.h)} is "
                       f"{tight(self.head.V.shape)}, and the message is {tight((1, d))}."):
            self.play(*([FadeOut(leaving[0]), FadeOut(leaving[2])] if len(leaving) else []), FadeIn(shapes),
                      *self.fine_print("This is one row of H = AV. We arranged the weights vertically only to "
                                       "make the source correspondence visible."))

    def message_reading_text(self, head, reading, who: str) -> str:
        names = coordinate_names(head.W_V)
        m = fmt(head.messages[self.i, reading.coordinate])
        src = self.word(reading.source)
        part = f"most of it from {quoted(src)}" if reading.mostly_one_source else f"its largest part from {quoted(src)}"
        return f"{who} is mostly {names[reading.coordinate]}, {m}, {part}."

    def show_what_it_carries(self):
        head, table = self.head, self.table
        reading = read_message(head, self.i)
        k, j = reading.coordinate, reading.source
        marks = VGroup(SurroundingRectangle(table.message[k], color=TEXT_COLOR, buff=0.06),
                       table.products.get_cell_box(j, k, color=SOURCE_COLOR))
        with self.beat(self.message_reading_text(head, reading, f"So head {self.h}’s message")):
            self.play(*([FadeOut(self.rounding_marks[1])] if len(self.rounding_marks) else []),
                      Create(marks),
                      *([Indicate(self.arrows.arrow(j), color=TEXT_COLOR, scale_factor=1.05)] if self.band_shown else []))


# The tracks where the scaled rows add (the longest coordinate's extent fills them).
SUM_TRACK_LENGTH = 2.4

VALUE_FINE_PRINT = ("V = E W_V has one row per source. These are projected value vectors, not token IDs or "
                    "attention weights.")


class Head1Message(MessageWalk):
    """Scene 9: V¹ = E W_V¹, the scalar–vector products α v (sign from the value, a small weight
    shrinking the whole vector), their sum m¹_n, its shapes and what it carries."""

    def construct(self):
        head = self.head
        self.add_title(f"Head {self.h}: the message of row {self.n}")      # the badge names its role
        # --- Shot 1: where the weights left off -------------------------------------------------
        self.shot("the weights")
        self.show_weights_again()
        self.show_message_idea()
        # --- Shot 2: V = E W_V ------------------------------------------------------------------
        self.shot("values")
        projection = self.show_value_projection()
        if keys_equal_values(head):
            self.show_separate_parameters(projection)
        else:
            self.separate_box = VGroup()
        self.show_values_beside_weights("Each value row now sits beside its source’s weight.",
                                        projection=projection)
        # --- Shot 3: one source at a time -------------------------------------------------------
        self.shot("scalar-vector products")
        for walked in self.walked:
            self.show_product(walked)
        self.show_all_products()
        # --- Shot 4: the sum, its rounding, its shapes -------------------------------------------
        self.shot("message")
        self.show_message_sum(f"Add the {counted(self.n, 'scaled row')}: each travels along its arrow to "
                              f"{quoted(self.word(self.i))}, and there, coordinate by coordinate, they make head 1’s "
                              f"message, m{sup(1)}{sub(self.n)} = {join_words(fmt(x) for x in head.messages[self.i])}.",
                              fine="The displayed products are rounded, but the sums use full precision.",
                              spoken=f"Add the {counted(self.n, 'scaled row')}: each travels along its arrow to the "
                                     f"receiver, and there, coordinate by coordinate, they make head one's message: "
                                     f"{join_words(fmt(x) for x in head.messages[self.i])}.")
        self.show_shapes()
        self.show_what_it_carries()

    def show_weights_again(self):
        with self.transition("where the weights left off"):
            shown = [self.band, self.head_label, self.arrows]
            if self.grid.with_band:
                shown.append(self.weights)
            self.play(FadeIn(VGroup(*shown)), run_time=0.6)
        self.on_band.add(self.head_label, self.arrows)
        self.band_shown = True

    def show_message_idea(self):
        column = self.weights.column
        target = column.weights if self.grid.with_band else self.arrows
        values = self.table.values
        # "the values say what": where the value rows will sit, an empty frame beside the weights
        ghost = self.values_ghost = VGroup(values.brackets, values.col_labels, values.name_label).copy()
        ghost.set_opacity(0.4)
        self.panel_left = self.message_panel_left()
        with self.beat(f"Now head 1 builds its message for the receiver. The weights say how much to take "
                       "from each source; the values say what.", look=2.0):
            self.play(Indicate(target, color=TEXT_COLOR, scale_factor=1.05), run_time=1.2)
            self.play(*([FadeIn(ghost, shift=0.2 * LEFT)] if self.grid.with_band else []),
                      *self.fine_print(ROUNDING_NOTE))

    def show_value_projection(self):
        ws, head = self.ws, self.head
        projection = get_value_projection(ws, head, self.grid)
        self.clear_fine_print_room(projection, [VALUE_FINE_PRINT, SEPARATE_PARAMETERS_NOTE])
        axes = join_words(coordinate_names(head.W_V))
        self.make_room_for_table()
        self.panel_left = self.message_panel_left()
        with self.beat(f"Each source’s value is its row of E times W_V{sup(1)}, which keeps only {axes}: "
                       f"V{sup(1)} has one row per source."):
            self.play(FadeOut(self.weights), FadeIn(projection.E),
                      *([FadeOut(self.values_ghost)] if self.grid.with_band else []), run_time=0.8)
            self.play(FadeIn(projection.ops), FadeIn(projection.W_V), FadeIn(projection.V),
                      *self.projection_fine_print(projection, VALUE_FINE_PRINT))
        return projection

    def clear_fine_print_room(self, projection, texts) -> None:
        """W_V sits centred on E's rows, raised where the fine print under it needs the room."""
        left = projection.W_V.get_left()[0]
        width = projection.V.get_left()[0] - 0.3 - left
        tallest = max(get_fine_print(t, max_width=width).height for t in texts)
        floor = self.grid.bottom + 0.05 + tallest + 0.2
        lift = floor - projection.W_V.get_bottom()[1]
        if lift > 0:
            projection.W_V.shift(UP * lift)
            projection.ops[0].set_y((projection.W_V.cell_center(0, 0)[1]
                                     + projection.W_V.cell_center(projection.W_V.n_rows - 1, 0)[1]) / 2)

    def projection_fine_print(self, projection, text: str) -> list:
        """Fine print in the room under W_V (E and V fill the rows' height)."""
        left = projection.W_V.get_left()[0]
        anims = self.fine_print(text, left=left)
        width = projection.V.get_left()[0] - 0.3 - left
        note = get_fine_print(text, max_width=width)
        note.move_to([left, self.grid.bottom + 0.05, 0], aligned_edge=LEFT + DOWN)
        anims[0] = FadeIn(note)
        self.fine = note
        return anims

    def show_separate_parameters(self, projection):
        box = self.separate_box = SurroundingRectangle(projection.W_V, color=self.color, buff=0.08)
        # the caption contrasts W_K with W_V: a dimmed W_K (same entries) takes E's place for this sentence,
        # each tagged with its job; the notes' scene-9 caveat stays as fine print
        h, e = self.h, projection.E
        w_k = get_labeled_matrix(self.head.W_K, list(AXES), coordinate_names(self.head.W_K),
                                 name=f"W_K{sup(h)}  {format_shape(self.head.W_K.shape)}", tag=f"W_K{h}_beside",
                                 color=self.color, name_color=self.color, v_buff=self.grid.v_buff, places=None,
                                 dim_zeros=True, label_size=MIN_TEXT_SIZE)
        w_k.move_to([e.get_center()[0], projection.W_V.get_center()[1], 0])
        w_k.fade(0.45)          # dimmed relative to each part's own opacity (its cell rectangles stay unfilled)
        # each tagged above, level: the keys' job points up to the arrows, whose widths are the weights
        v_tag = get_text("values: what gets mixed", font_size=MIN_TEXT_SIZE, color=self.color)
        v_tag.next_to(box, UP, buff=0.12)
        k_tag = get_text("keys: set the arrows’ weights", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
        k_tag.move_to([w_k.get_center()[0], v_tag.get_center()[1], 0])
        with self.beat(f"W_V{sup(1)} has a different job from W_K{sup(1)}: the keys helped set the weights; "
                       "the values are what gets mixed.",
                       spoken="Head one's value matrix has a different job from its key matrix: the keys helped "
                              "set the weights; the values are what gets mixed."):
            # E leaves with both of its operators: a lone "=" would read "W_V¹ [4, 2] = V¹ [10, 2]"
            self.play(FadeOut(e), FadeOut(projection.ops), run_time=0.6)
            self.play(FadeIn(w_k, shift=0.2 * RIGHT), FadeIn(k_tag), run_time=1.0)
            self.play(Create(box), FadeIn(v_tag), *self.projection_fine_print(projection, SEPARATE_PARAMETERS_NOTE))
        self.separate_box = VGroup(box, v_tag)
        projection.E, projection.ops = VGroup(w_k, k_tag), VGroup()


class Head2WeightsAndMessage(MessageWalk):
    """Scene 10: the same walk for head 2 ("person"), briskly — scene 9's steps in one sentence each,
    its arrows below the sentence — then both heads side by side: where each puts its weight and what
    each message carries."""

    head_index = 2
    band_side = DOWN

    def construct(self):
        head, n, i = self.head, self.n, self.i
        self.add_title(f"Head {self.h}: weights and message of row {n}")      # the badge names its role
        # --- Shot 1: head 2's query and keys, and every step of scene 8 at once -----------------
        self.shot("query, keys and scores")
        self.show_band_again()
        self.show_query_keys_and_steps()
        # --- Shot 2: row n of A², beside the words and as arrows below the sentence -------------
        self.shot("weights")
        self.fold_into_column(f"Divide by the sum: row {n} of A{sup(2)}, one weight beside each source word.",
                              spoken=f"Divide each exponential by their sum: row {count_word(n)} of head two's "
                                     "attention matrix.")
        top = ranked_sources(head.weights[i], i)[0]
        self.show_arrows(f"Head 2’s arrows run below the sentence: most of its weight, "
                         f"{fmt(head.weights[i, top])}, goes to {quoted(self.word(top))}.",
                         spoken=f"Its arrows run below the sentence; most of its weight, about "
                                f"{about(head.weights[i, top])}, goes to {quoted(self.word(top))}.")
        self.return_to_table()
        # --- Shot 3: its message ----------------------------------------------------------------
        self.shot("message")
        self.show_values_and_products()
        self.show_message_sum(f"Add them up along their arrows, at {quoted(self.word(i))}: head 2’s message, "
                              f"m{sup(2)}{sub(n)}, is {join_words(fmt(x) for x in head.messages[i])}.",
                              spoken=f"Add them up along their arrows, at the receiver: head two's message is "
                                     f"{join_words(fmt(x) for x in head.messages[i])}.")
        # --- Shot 4: both heads side by side ----------------------------------------------------
        self.shot("side by side")
        self.show_side_by_side()
        self.show_what_each_carries()
        self.show_parallel()

    def panel_leaving(self) -> list:
        return [self.query, self.softmax_panel.max_line, self.softmax_panel.den_line, self.den_note]

    def get_value_note(self) -> VGroup:
        """V² = E W_V² in the panel, with the notes' reminder that W_V² and W_K² stay separate."""
        h = self.h
        formula = get_text(f"V{sup(h)} = E W_V{sup(h)}", font_size=SYMBOL_SIZE, color=self.color)
        lines = [formula]
        width = RIGHT_X - self.message_panel_left()
        if keys_equal_values(self.head):
            for line in wrap_lines(f"same entries as W_K{sup(h)}, separate parameters", MIN_TEXT_SIZE, width):
                lines.append(get_text(line, font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR))
        note = VGroup(*lines).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
        note.move_to([self.message_panel_left(), self.grid.top - 0.1, 0], aligned_edge=LEFT + UP)
        return note

    def show_values_and_products(self):
        """V² beside the weights, and each weight scaling its value row, in one sentence (scene 9 walked it)."""
        table = self.table
        self.panel_left = self.message_panel_left()
        note = self.get_value_note()
        frame = VGroup(table.products.brackets, table.products.col_labels, table.products.name_label)
        leftovers = [self.softmax_panel.formula]          # scene 10 never shows the weights' sum note
        rows = [table.products.row(r) for r in range(table.products.n_rows)]
        kept = join_words(coordinate_names(self.head.W_V))
        with self.beat(f"Its values keep {kept}, and each weight scales its source’s value row, as for head 1.",
                       spoken=f"Its values keep {kept}; each weight scales its source's value.", look=1.0):
            self.play(*(FadeOut(m) for m in leftovers), *self.drop_fine_print(),
                      FadeIn(VGroup(table.values), shift=0.3 * LEFT), FadeIn(note), run_time=1.0)
            # row by row, top to bottom: each weight times its value
            self.play(FadeIn(frame), LaggedStart(*(row.animate.set_opacity(1) for row in rows), lag_ratio=0.4),
                      run_time=max(1.0, 0.3 * len(rows)))
        self.values_note = note

    def show_band_again(self):
        with self.transition("the sentence, now with head 2"):
            self.play(FadeIn(self.band), FadeIn(self.head_label), run_time=0.6)
        self.on_band.add(self.head_label)
        self.band_shown = True

    def show_query_keys_and_steps(self):
        head = self.head
        self.score_table = get_score_table(self.ws, head, self.grid)
        self.hide_step_entries()
        self.panel_left = self.panel_x(self.score_table)
        query = self.query = get_query_vector(self.ws, head)
        query.move_to([self.panel_left, self.grid.top - 0.1, 0], aligned_edge=LEFT + UP)
        keys = self.score_table.keys
        self.receiver_box = keys.get_row_box(self.i, color=RECEIVER_COLOR, include_label=True)
        self.make_room_for_table()
        q = join_words(fmt(x, places_for(head.Q[self.i])) for x in head.Q[self.i])
        held = join_words(coordinate_names(head.W_K))
        table = self.score_table
        panel = self.softmax_panel = get_softmax_panel(self.ws, head)
        panel.next_to(query, DOWN, buff=0.3, aligned_edge=LEFT)
        note = self.den_note = self.get_rounded_den_note()
        frames = [VGroup(c.brackets, c.col_labels) for c in table.steps]
        with self.beat(f"Head 2, the “person” head, has its own query, {q}, and keys that hold {held}.",
                       spoken=f"Head two, the person head, has its own query, {q}, and keys that hold {held}."):
            self.play(FadeIn(query, shift=0.2 * LEFT), FadeIn(keys, shift=0.2 * RIGHT),
                      *self.fine_print("Each head learns its own W_Q, W_K and W_V, applied to the same input rows."))
            self.play(Create(self.receiver_box), run_time=0.6)
        total = fmt(head.denominators[self.i])          # the Σ the panel shows
        # q·k, ÷ √2, − max, exp: column by column, left to right, the panel's max with them; then their sum
        # why the scores are what they are: a query with one non-zero number scores each source by that
        # number times the key's same coordinate (q² = [2.3, 0.0]: 2.3 × the person key)
        lone = lone_query_coordinate(head.Q[self.i])
        held_names = coordinate_names(head.W_K)
        why = (f": each q·k is {fmt(head.Q[self.i, lone], places_for(head.Q[self.i]))} times the "
               f"{held_names[lone]} key" if lone is not None else "")
        with self.beat(f"Then it takes head 1’s steps, column by column{why}; the exponentials add up to {total}.",
                       spoken=f"Then it takes head one's steps, column by column{why.replace('q·k', 'score')}; "
                              f"the exponentials add up to {total}."):
            self.play(LaggedStart(*(AnimationGroup(FadeIn(frame), column.entries.animate.set_opacity(1))
                                    for frame, column in zip(frames, table.steps)), lag_ratio=0.6),
                      FadeIn(panel.max_line), run_time=2.8)
            if lone is not None:     # the query's number and the key column it multiplies, lit together
                self.play(Indicate(VGroup(query.vector.cell(0, lone), keys.column(lone), table.steps[0].entries),
                                   color=self.color, scale_factor=1.08), run_time=1.0)
            self.play(FadeIn(panel.den_line), *([FadeIn(note)] if len(note) else []), run_time=0.6)

    # ---- both heads side by side ------------------------------------------------------------
    def get_side_by_side(self):
        ws = self.ws
        one, two = ws.heads
        band = get_sentence_band(ws)
        up = get_head_arrows(band, one, self.n, side=UP)
        down = get_head_arrows(band, two, self.n, side=DOWN)
        cards = VGroup(get_message_card(ws, one), get_message_card(ws, two))
        labels = VGroup(self.get_head_label(one), self.get_head_label(two))
        group = VGroup(cards[0], VGroup(band, up, down), cards[1]).arrange(DOWN, buff=0.45)
        group.move_to(CONTENT_CENTER)
        # each message just above / below the receiver it is built for: it visibly arrives there
        x = band.row.boxes[self.n - 1].get_center()[0]
        for card in cards:
            card.set_x(min(x, RIGHT_X - card.width / 2))
        labels[0].move_to([LEFT_X, up.get_top()[1] - labels[0].height / 2, 0], aligned_edge=LEFT)
        labels[1].move_to([LEFT_X, down.get_bottom()[1] + labels[1].height / 2, 0], aligned_edge=LEFT)
        side = VGroup(band, up, down, cards, labels)
        side.band, side.up, side.down, side.cards, side.labels = band, up, down, cards, labels
        return side

    def get_strongest_labels(self, side, ranked) -> VGroup:
        """Each head's largest weight printed by its thickest arrow (above head 1's arc, below head 2's)."""
        labels = VGroup()
        if side.band.row.lines > 1:          # arcs cross the other line of words: no room for a label
            return labels
        for head, arrows, j, direction in zip(self.ws.heads, (side.up, side.down), ranked, (UP, DOWN)):
            arrow = arrows.arrow(j)
            number = get_number(head.weights[self.i, j], tag=f"strongest{head.index}", index=j,
                                color=head_color(head.index), font_size=LABEL_SIZE)
            place_weight_label(number, arrows, j, direction=direction)
            # a small dark pill: the number reads clear of the thin arrow lines behind it
            pill = get_label_pill(number, buff=0.06, outline=head_color(head.index))
            labels.add(VGroup(pill, number))
        return labels

    def show_side_by_side(self):
        side = self.side = self.get_side_by_side()
        ranked = [ranked_sources(h.weights[self.i], self.i)[0] for h in self.ws.heads]
        strongest = self.strongest_labels = self.get_strongest_labels(side, ranked)
        both_title = get_title("Both heads, side by side")
        # head 2's picture stays and moves: the sentence and its arrows go down to make room for head 1's
        # above, and the message slot under the receiver becomes m²'s card (nothing wiped and redrawn)
        slot = getattr(self, "message_slot", None) if self.band_shown else None
        moving = [self.band, self.arrows, self.head_label, slot] if slot is not None else []
        self.clear_stage(self.title, *moving)
        card = side.cards[1]
        with self.beat(f"Side by side: head 1 puts most of its weight on {quoted(self.word(ranked[0]))}, "
                       f"head 2 on {quoted(self.word(ranked[1]))}.", look=1.0):
            if slot is None:
                self.play(FadeIn(side.band), FadeIn(side.labels), ReplacementTransform(self.title, both_title),
                          run_time=0.8)
                self.play(side.up.create(run_time=1.6), side.down.create(run_time=1.6))
            else:
                label, numbers = self.table.message_row[1], self.table.message
                rest = [m for m in card.vector.submobjects if m is not card.vector.entries]
                self.play(ReplacementTransform(self.stand_in(self.band), side.band),
                          ReplacementTransform(self.stand_in(self.arrows), side.down),
                          ReplacementTransform(self.stand_in(self.head_label), side.labels[1]),
                          ReplacementTransform(self.stand_in(label), card.name),
                          *(ReplacementTransform(self.stand_in(numbers[k]), card.vector.cell(0, k))
                            for k in range(len(numbers))),
                          FadeOut(slot.frame), FadeIn(VGroup(*rest)),
                          ReplacementTransform(self.title, both_title), run_time=1.2)
                self.add(side.band, side.down, card)     # whole again, for the beats that read them
                self.play(FadeIn(side.labels[0]), side.up.create(run_time=1.6))
            if len(strongest):
                self.play(FadeIn(strongest, scale=1.2))
        self.title = both_title

    def show_what_each_carries(self):
        ws, side = self.ws, self.side
        readings = [read_message(h, self.i) for h in ws.heads]
        names = [coordinate_names(h.W_V) for h in ws.heads]
        parts = [f"m{sup(h.index)}{sub(self.n)} carries mostly {names[k][r.coordinate]}, from {quoted(self.word(r.source))}"
                 for k, (h, r) in enumerate(zip(ws.heads, readings))]
        said = [f"head one's message carries mostly {names[0][readings[0].coordinate]}, from "
                f"{quoted(self.word(readings[0].source))}",
                f"head two's, mostly {names[1][readings[1].coordinate]}, from {quoted(self.word(readings[1].source))}"]
        marks = VGroup(*(SurroundingRectangle(card.vector.cell(0, r.coordinate), color=TEXT_COLOR, buff=0.06)
                         for card, r in zip(side.cards, readings)))
        receiver = side.band.row.boxes[self.n - 1]
        with self.beat(f"So {parts[0]}; {parts[1]}.", spoken=f"So {said[0]}; {said[1]}."):
            # each message leaves the receiver for its own side: head 1's up (head 2's came down with
            # its arrows, from the slot it was summed in)
            arriving = [c for c in side.cards if c not in self.mobjects]
            self.play(*(FadeIn(card, target_position=receiver.get_center(), scale=0.3) for card in arriving),
                      run_time=1.0)
            # "from river", "from fisherman": each head's source arrow lights up
            self.play(*(Indicate(arrows.arrow(r.source), color=TEXT_COLOR, scale_factor=1.03)
                        for arrows, r in zip((side.up, side.down), readings)), run_time=0.8)
            self.play(Create(marks))
        self.carry_marks = marks

    def show_parallel(self):
        card = self.side.cards[1]
        right = card.get_left()[0] - 0.5          # the message sits under the receiver: the caveat at its left
        fine = get_fine_print("Training can discover useful roles, but does not assign setting and person labels "
                              "or guarantee that the heads specialize this way.", max_width=right - LEFT_X)
        fine.move_to([LEFT_X, card.get_center()[1], 0], aligned_edge=LEFT)
        self.fine_prints.append((f"{type(self).__name__}-{len(self.beats) + 1:02d}", fine.sentence))
        # "in parallel" was said in scene 7: here only what training may or may not find
        with self.beat("Training could find roles like these, but nothing guarantees it.", look=1.0):
            self.play(FadeIn(fine), FadeOut(self.carry_marks))


# ============================================================================================
# Scene 11 — the masked matrices
# ============================================================================================

MATRIX_CELL = (0.84, 0.4)          # room for "0.107" at size 19 in every readable cell
MATRIX_DIGITS = 17                 # the heat map's digits: clear of the cell edges ("0.500 0.500" apart)
DIGITS_FIT = (0.66, 0.24)          # the smallest cell that still shows its digits
AXIS_ROOM = 0.35                   # the axis titles "receiver i" / "source j"


def get_head_matrix(ws, head, *, width: float, height: float, numbers: bool = True):
    """A^h as a heat map: rows = receivers i, columns = sources j, both labelled 'j word'; future
    cells blocked (darker than any weight); the digits where a cell is big enough to read them."""
    n, h = ws.n, head.index
    color = head_color(h)
    labels = source_labels(ws)
    label_w = max(get_text(t, font_size=MIN_TEXT_SIZE).width for t in labels) + BUFF_SMALL
    name_h = 0.4
    cw = min(MATRIX_CELL[0], (width - label_w) / n)
    ch = min(MATRIX_CELL[1], (height - label_w - name_h - AXIS_ROOM) / n, cw)
    show = numbers and cw >= DIGITS_FIT[0] and ch >= DIGITS_FIT[1]
    every = int(np.ceil(0.21 / ch))          # rows too close for a label each: every k-th one
    if every > 1:
        keep = set(range(0, n, every)) | {n - 1}
        keep -= {k for k in keep if k != n - 1 and n - 1 - k < every}
        labels = [t if k in keep else "" for k, t in enumerate(labels)]
    digits = MATRIX_DIGITS if cw >= MATRIX_CELL[0] - 1e-9 and ch >= 0.34 else MIN_TEXT_SIZE
    mm = get_masked_matrix(head.weights, labels, labels, color=color, tag=f"A{h}" if show else None,
                           show_numbers=show, heat=True, cell_width=cw, cell_height=ch, font_size=digits,
                           label_size=MIN_TEXT_SIZE)
    name = get_text(f"A{sup(h)}  head {h} · {head.name}  {format_shape(head.weights.shape)}", font_size=LABEL_SIZE,
                    color=color)
    name.next_to(mm.col_labels, UP, buff=BUFF_SMALL).align_to(mm.squares, LEFT)
    receivers = get_text("receiver i", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
    receivers.next_to(mm.row_labels, UP, buff=BUFF_SMALL).align_to(mm.row_labels, RIGHT)
    sources = get_text("source j →", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
    sources.next_to(name, RIGHT, buff=0.4)
    mm.add(name, receivers, sources)
    mm.name_label, mm.axes = name, VGroup(receivers, sources)
    mm.shows_numbers = show
    return mm


def get_weight_key(color: str, width: float = 2.0) -> VGroup:
    """The heat map's scale (weight 0 … 1, the same steps as the cells) and the blocked swatch."""
    steps = 16
    bar = VGroup(*(Rectangle(width=width / steps, height=0.22).set_stroke(width=0)
                   .set_fill(heat_color((k / (steps - 1)) ** 2, color), 1) for k in range(steps)))
    bar.arrange(RIGHT, buff=0)
    low = get_number(0, 0, tag="key", index=0, font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR).next_to(bar, LEFT, buff=0.1)
    high = get_number(1, 0, tag="key", index=1, font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR).next_to(bar, RIGHT, buff=0.1)
    title = get_text("weight", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR).next_to(bar, UP, buff=0.1)
    scale = VGroup(title, low, bar, high)
    swatch = Rectangle(width=0.4, height=0.22).set_stroke(DIM_TEXT_COLOR, 1).set_fill(BLOCKED_COLOR, 1)
    hatch = Line(swatch.get_corner(DOWN + LEFT), swatch.get_corner(UP + RIGHT)).set_stroke(MASK_COLOR, 1.2)
    blocked = VGroup(VGroup(swatch, hatch), get_text("future source: blocked", font_size=MIN_TEXT_SIZE,
                                                     color=DIM_TEXT_COLOR)).arrange(RIGHT, buff=0.15)
    key = VGroup(scale, blocked).arrange(DOWN, buff=0.3, aligned_edge=LEFT)
    key.scale_part, key.blocked = scale, blocked
    return key


class MaskedMatrix(LessonScene):
    """Scene 11: each head's full n × n masked attention matrix as a heat map with its digits; the
    future blocked; an earlier row reads only its past; row n is the row the walk followed; then both
    heads side by side."""

    def construct(self):
        ws = self.ws = scene_worksheet()
        self.n, self.i = ws.n, ws.n - 1
        self.fine, self.fine_prints = None, []
        self.title = get_title("The masked attention matrices")
        with self.transition("title"):
            self.play(FadeIn(self.title), run_time=0.5)
        big = dict(width=RIGHT_X - LEFT_X - 3.2, height=CONTENT_TOP - CONTENT_BOTTOM)
        self.big = [get_head_matrix(ws, h, **big) for h in ws.heads]
        for mm in self.big:
            mm.move_to([LEFT_X, CONTENT_TOP, 0], aligned_edge=LEFT + UP)
        self.panel_left = self.big[0].get_right()[0] + 0.6
        # the rows on screen add to 1.001 or 0.999 here and there: said once, in small print, up front
        badge = self.rounding_badge = get_fine_print("Rounded display; rows sum to one in full precision.",
                                                     max_width=RIGHT_X - self.panel_left)
        badge.move_to([self.panel_left, CONTENT_TOP - 2.2, 0], aligned_edge=LEFT + UP)
        # --- Shot 1: head 1's whole matrix -------------------------------------------------------
        self.shot("head 1 matrix")
        self.show_matrix()
        self.show_axes()
        # --- Shot 2: the future is blocked --------------------------------------------------------
        self.shot("causal mask")
        self.show_future()
        self.show_early_row()
        # --- Shot 3: the row the walk followed ---------------------------------------------------
        self.shot("row n")
        self.show_walked_row()
        # --- Shot 4: head 2, then both side by side ---------------------------------------------
        self.shot("head 2 matrix")
        self.show_head_2()
        self.shot("side by side")
        self.show_side_by_side()
        self.show_parallel()

    def fine_print(self, text: str, left: float | None = None, bottom: float = CONTENT_BOTTOM + 0.05) -> list:
        left = self.panel_left if left is None else left
        note = get_fine_print(text, max_width=RIGHT_X - left)
        note.move_to([left, bottom, 0], aligned_edge=LEFT + DOWN)
        anims = [FadeIn(note)] + ([FadeOut(self.fine)] if self.fine is not None else [])
        self.fine = note
        self.fine_prints.append((getattr(self.stage, "id", None), text))
        return anims

    @staticmethod
    def get_matrix_rows(mm) -> list:
        """Each receiver row of a heat map as one group: its permitted cells, digits and label (the
        blocked future cells and their hatching come with the sentence about the mask)."""
        n = mm.n
        rows = []
        for i in range(n):
            row = VGroup(*(mm.square(i, j) for j in range(i + 1)),
                         *(m for m in (mm.number(i, j) for j in range(i + 1)) if m is not None))
            if len(mm.row_labels) > i:
                row.add(mm.row_labels[i])
            rows.append(row)
        return rows

    def top_word(self, head) -> tuple[str, str]:
        j = ranked_sources(head.weights[self.i], self.i)[0]
        return self.ws.tokens[j], fmt(head.weights[self.i, j])

    def show_matrix(self):
        a1 = self.big[0]
        rows = self.get_matrix_rows(a1)
        with self.beat(f"Row {self.n} was one row. Head 1 computes a row like it for every receiver: "
                       f"its whole attention matrix, A{sup(1)}.",
                       spoken=f"Row {self.n} was one row. Head 1 computes a row like it for every receiver: "
                              "its whole attention matrix."):
            # row n first (the walked row), then the other receivers' rows grow upward from it
            self.play(FadeIn(VGroup(a1.col_labels, a1.name_label)), FadeIn(rows[-1]), run_time=0.8)
            self.play(LaggedStart(*(FadeIn(r, shift=0.15 * UP) for r in reversed(rows[:-1])), lag_ratio=0.3),
                      run_time=max(1.0, 0.25 * len(rows)))
            self.play(*self.fine_print("As in Part II, αᵢⱼ is one attention weight and A stores "
                                       "the full attention matrix."), FadeIn(self.rounding_badge))

    def show_axes(self):
        a1 = self.big[0]
        key = self.key = get_weight_key(head_color(1))
        key.move_to([self.panel_left, CONTENT_TOP - 0.4, 0], aligned_edge=LEFT + UP)
        with self.beat("Each row is a receiver i, each column a source j. The brighter the cell, the larger "
                       "the weight.", spoken="Each row is a receiver, each column a source. The brighter the "
                                             "cell, the larger the weight.", look=1.5):
            self.play(FadeIn(a1.axes), FadeIn(key.scale_part))

    def show_future(self):
        a1 = self.big[0]
        glow = VGroup(*(sq.copy().set_stroke(TEXT_COLOR, 1.5).set_fill(TEXT_COLOR, 0.35) for sq in a1.blocked))
        with self.beat("Above the diagonal sit future sources: blocked, and darker than any weight."):
            # the blocked triangle lights up, then settles into its dark hatch: the mask drawn now
            self.play(FadeIn(self.key.blocked), FadeIn(glow), run_time=0.8)
            self.play(FadeOut(glow), FadeIn(a1.blocked), LaggedStart(*(Create(line) for line in a1.hatch),
                                                                      lag_ratio=0.05), run_time=1.2)

    def show_early_row(self):
        a1, n = self.big[0], self.n
        r = early_row_example(n)
        if r is None:
            return
        allowed = a1.get_row_box(r, color=RECEIVER_COLOR, last=r)
        blocked = SurroundingRectangle(VGroup(*(a1.square(r, j) for j in range(r + 1, n))), color=TEXT_COLOR,
                                       buff=0.0)
        self.early_marks = VGroup(allowed, blocked)
        later = f"sources {r + 2} to {n} are" if r + 2 < n else f"source {n} is"
        with self.beat(f"Row {r + 1}, {quoted(self.ws.tokens[r])}, reads only sources 1 to {r + 1}; {later} "
                       "still in its future."):
            self.play(Create(allowed), Create(blocked),
                      *self.fine_print("Earlier query rows cannot read later sources."))

    def show_walked_row(self):
        a1 = self.big[0]
        box = self.row_box = a1.get_row_box(self.i, color=RECEIVER_COLOR)
        word, w = self.top_word(self.ws.heads[0])
        with self.beat(f"Row {self.n} is the row we walked: most of its weight on {quoted(word)}, {w}."):
            self.play(FadeOut(getattr(self, "early_marks", VGroup())), Create(box),
                      *self.fine_print(f"The walkthrough follows its final row, A[{self.n}, :], using one-based "
                                       "token positions."))

    def show_head_2(self):
        a1, a2 = self.big
        key2 = get_weight_key(head_color(2)).move_to(self.key, aligned_edge=LEFT + UP)
        box = a2.get_row_box(self.i, color=RECEIVER_COLOR, stroke_width=5.0)
        word, w = self.top_word(self.ws.heads[1])
        with self.beat(f"Head 2’s matrix has its own pattern: row {self.n} puts {w} on {quoted(word)}.", look=0.4):
            self.play(FadeOut(VGroup(a1, self.row_box)), FadeIn(a2), ReplacementTransform(self.key, key2),
                      run_time=1.0)
            self.play(Create(box))
        self.key, self.big_box = key2, box

    def get_pair(self):
        ws = self.ws
        fine_room = 0.7
        height = CONTENT_TOP - CONTENT_BOTTOM - fine_room
        width = (RIGHT_X - LEFT_X - 0.6) / 2
        pair = VGroup(*(get_head_matrix(ws, h, width=width, height=height, numbers=False) for h in ws.heads))
        pair.arrange(RIGHT, buff=0.6, aligned_edge=UP).move_to([0, CONTENT_TOP, 0], aligned_edge=UP)
        # row n framed: the receiver's yellow on head 1's blue map, white on head 2's orange (yellow on orange
        # would barely show)
        pair.boxes = VGroup(*(mm.get_row_box(self.i, color=color) for mm, color in zip(pair, (RECEIVER_COLOR,
                                                                                          SOURCE_COLOR))))
        pair.row_numbers = VGroup(*(self.get_row_numbers(mm, h) for mm, h in zip(pair, ws.heads)))
        # where the heads disagree: each head's top source, outlined down the rows that show it
        pair.differ = VGroup()
        split = settled_split(ws.heads[0].weights, ws.heads[1].weights)
        for run in ([split] if split is not None else []):
            for mm, j in zip(pair, (run.source_a, run.source_b)):
                cells = VGroup(*(mm.square(r, j) for r in range(run.first, run.last + 1)))
                pair.differ.add(SurroundingRectangle(cells, color=TEXT_COLOR, buff=0.0, stroke_width=2.5))
        return pair

    def get_row_numbers(self, mm, head) -> VGroup:
        """Row n's weights under the matrix, each under its own column, on two staggered lines (a
        number is wider than one column); empty where even two columns are too narrow for one."""
        i = self.i
        numbers = VGroup()
        width = get_text("0.000", font_size=MIN_TEXT_SIZE).width
        if self.n > 1 and 2 * mm.square(i, 0).width < width + 0.12:
            return numbers
        top = mm.squares.get_bottom()[1] - 0.2
        for j in range(self.n):
            number = get_number(head.weights[i, j], tag=f"row{head.index}", index=j, color=head_color(head.index),
                                font_size=MIN_TEXT_SIZE)
            number.move_to([mm.square(i, j).get_center()[0], top - (j % 2) * 0.26, 0])
            numbers.add(number)
        label = get_text(f"row {self.n}:", font_size=MIN_TEXT_SIZE, color=DIM_TEXT_COLOR)
        label.move_to([mm.squares.get_left()[0] - (width - mm.square(i, 0).width) / 2 - 0.15, top, 0],
                      aligned_edge=RIGHT)
        numbers.add(label)
        return numbers

    def show_side_by_side(self):
        pair = self.pair = self.get_pair()
        self.matrices, self.row_boxes = pair, pair.boxes
        text = self.split_text()
        with self.beat(text):
            # the big map gives way to the pair as it comes in: never a blank stage between
            self.play(FadeOut(VGroup(self.big[1], self.big_box, self.key, self.rounding_badge)),
                      *(self.drop_fine_print()), FadeIn(pair), Create(pair.boxes), run_time=1.2)
            self.play(FadeIn(pair.row_numbers, shift=0.1 * DOWN), run_time=0.8)
            if len(pair.differ):
                self.play(Create(pair.differ), run_time=1.0)
            why = self.earlier_favourite_text()
            if why:
                self.play(*self.fine_print(why, left=LEFT_X))

    def earlier_favourite_text(self) -> str | None:
        """Why head 1 favours another source until its last row's favourite arrives
        (lesson_data.walkthrough.earlier_favourite), when the caption says it "cannot pick it" yet."""
        ws, head = self.ws, self.ws.heads[0]
        split = settled_split(ws.heads[0].weights, ws.heads[1].weights)
        fav = earlier_favourite(head)
        if split is None or split.source_a < 1 or fav is None or fav.top != split.source_a:
            return None
        axis = coordinate_names(head.W_K)[fav.coordinate]
        return (f"Before {quoted(ws.tokens[fav.top])}, head 1 favours {quoted(ws.tokens[fav.source])}: its key’s "
                f"{axis}, {fmt(fav.value, places_for(head.K))}, is the largest among the earlier sources.")

    def split_text(self) -> str:
        """Where the two heads settle on different sources (lesson_data.walkthrough.settled_split): the
        later head-1 favourite cannot be read before its own row arrives."""
        ws = self.ws
        split = settled_split(ws.heads[0].weights, ws.heads[1].weights)
        if split is None:
            return "Side by side, without the digits: the two heads’ patterns."
        a, b = quoted(ws.tokens[split.source_a]), quoted(ws.tokens[split.source_b])
        # they settle apart at that row (settled_split): "from row 7, head 2 fisherman" was heard as head
        # 2 starting there, though it may have favoured that source long before
        favour = f"the two settle apart: head 1 on {a}, head 2 on {b}."
        if split.source_a >= 1:           # rows before its favourite's own row: it is still in their future
            return (f"Until {a} arrives at row {split.source_a + 1}, head 1 cannot pick it. "
                    f"From row {split.first + 1} on, {favour}")
        return f"From row {split.first + 1} on, {favour}"

    def drop_fine_print(self) -> list:
        anims = [FadeOut(self.fine)] if self.fine is not None else []
        self.fine = None
        return anims

    def show_parallel(self):
        every = f"; row {self.n} has {count_word(self.n)}" if self.n > 1 else ""
        # row n's cells pulse one by one, in both matrices at once: every source, both heads in parallel
        pulses = [Indicate(VGroup(*(mm.square(self.i, j) for mm in self.matrices)), color=TEXT_COLOR,
                           scale_factor=1.15) for j in range(self.n)]
        # the heads' independence, said as chapter 1 said it ("in parallel" stays in the notes' fine print)
        with self.beat(f"Every permitted source enters each message{every}. Neither head needs the other’s result."):
            self.play(LaggedStart(*pulses, lag_ratio=0.35), run_time=max(1.5, 0.3 * self.n))
            self.play(*self.fine_print("The calculations are independent across heads and can run in parallel.",
                                       left=LEFT_X))


__all__ = [
    "HeadWalkScene", "MessageWalk", "Head1Weights", "Head1Message", "Head2WeightsAndMessage", "MaskedMatrix",
    "SentenceBand", "RowGrid", "get_row_grid", "get_sentence_band", "get_head_arrows", "place_band",
    "source_labels", "coordinate_names", "get_score_table", "get_score_lines", "get_softmax_panel",
    "get_stability_check", "get_weight_rows", "get_message_table", "get_value_projection", "get_expansion",
    "get_product_rounding_note", "get_shape_equation", "get_message_card", "get_head_matrix", "get_weight_key",
]
