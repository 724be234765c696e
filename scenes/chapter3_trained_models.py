"""Chapter 3, scenes 18–20: the three trained architectures, the comparison, and inside the models.

Every result on screen is read from the trainer's committed exports in lesson_data/exports/ through
lesson_data.comparison (results.json, protocol.json, attention.json, continuations.json); the choices
made from those numbers (which tokens of the story to draw, what each head does, whether the seeds
overlap) are made there too, and tested. A missing export stops the scene at the start of construct()
with comparison.MissingExportError naming the file — never placeholder results.

    manim -pql scenes/chapter3_trained_models.py ThreeArchitectures
    manim -pql scenes/chapter3_trained_models.py TheComparison
    manim -pql scenes/chapter3_trained_models.py InsideTrainedModels
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
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    GrowArrow,
    GrowFromEdge,
    Indicate,
    LaggedStart,
    Line,
    Polygon,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    Transform,
    VGroup,
    VMobject,
)

from lesson_data import comparison
from lesson_data.comparison import (
    checked_parameters,
    head_width,
    input_width,
    millions,
    model_title,
    models_in,
)
from lesson_data.display import fmt_int
from scenes.blocks.flow_arrow import get_arrow
from scenes.blocks.heat_map import FUTURE_COLOR
from scenes.blocks.shape_box import get_shape_box
from scenes.style import (
    BACKGROUND,
    BRACKET_COLOR,
    BUFF_SMALL,
    CONTENT_BOTTOM,
    CONTENT_TOP,
    DIM_TEXT_COLOR,
    HEAD_COLORS,
    LABEL_SIZE,
    NEGATIVE_COLOR,
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
    get_count,
    get_fine_print,
    get_text,
    get_title,
    sub,
    sup,
)

# Each model keeps one colour through the chapter: the baseline has no heads (neutral grey), the
# one-head model is the "one wide head" of chapter 2, the four-head model head 1's blue. Inside the
# four-head model every head has its own colour (sky blue, orange, bluish green: Okabe–Ito; and a
# light violet, apart from the one-head model's reddish purple).
MODEL_COLORS = {"mlp": BRACKET_COLOR, "one_head": WIDE_HEAD_COLOR, "four_heads": HEAD_COLORS[1]}
FOUR_HEAD_COLORS = (HEAD_COLORS[1], HEAD_COLORS[2], POSITIVE_COLOR, "#B4A7FF")
CROSS_COLOR = "#FF6B6B"           # the crossed-out "not" picture (not a head's colour)
NAME_SIZE = 20                    # model names and counts in scene 18's left column


def head_colors(model: str, n_heads: int) -> tuple[str, ...]:
    return (MODEL_COLORS[model],) if n_heads == 1 else FOUR_HEAD_COLORS[:n_heads]


def token_label(token: str) -> str:
    """A token as the captions quote it (curly quotes, so a quote-mark token stays readable)."""
    return f"“{token}”"


def get_line(*parts, buff=0.14, font_size=LABEL_SIZE, color=TEXT_COLOR) -> VGroup:
    """Words and numbers on one line, sharing a baseline (strings become text)."""
    mobs = [get_text(p, font_size=font_size, color=color) if isinstance(p, str) else p for p in parts]
    line = VGroup(*mobs).arrange(RIGHT, buff=buff)
    y = baseline_y(mobs[0])
    for m in mobs[1:]:
        lead = m if hasattr(m, "original_text") else next(x for x in m.get_family() if hasattr(x, "original_text"))
        m.shift(UP * (y - baseline_y(lead)))
    return line


# ============================================================================================
# Scene 18 — Three architectures
# ============================================================================================

BOX = 0.74                  # a [64, 64] array
VECTOR_UNIT = 1.8 / 4096    # scene units per entry of a [1, n] vector (the 4,096 concatenation: 1.8)
VECTOR_HEIGHT = 0.2
LANE_Y = (2.25, 0.62, -1.01)  # the three lanes, top to bottom (box centres)
FLOW_LEFT = -4.3            # where every lane's flow starts (the names and counts sit left of it)
NAME_X = -6.7


def get_vector(name: str, length: int, color: str, *, fill=0.35) -> VGroup:
    width = max(0.12, VECTOR_UNIT * length)
    return get_shape_box(name, (1, length), color=color, width=width, height=VECTOR_HEIGHT, fill_opacity=fill,
                         name_size=SMALL_SIZE, shape_text=f"[1, {fmt_int(length)}]")


def get_square(name: str, shape, color: str, *, fill=0.25, shape_text=None) -> VGroup:
    return get_shape_box(name, shape, color=color, width=BOX * shape[1] / 64, height=BOX * shape[0] / 64,
                         fill_opacity=fill, name_size=SMALL_SIZE, shape_text=shape_text)


def get_stripes(n: int, color: str, width: float, height: float, vertical: bool) -> VGroup:
    """n alternating stripes (rows of a matrix, or the slots of a concatenated vector)."""
    if vertical:
        cells = [Rectangle(width=width, height=height / n) for _ in range(n)]
    else:
        cells = [Rectangle(width=width / n, height=height) for _ in range(n)]
    group = VGroup(*(c.set_stroke(width=0).set_fill(color, 0.6 if k % 2 == 0 else 0.25) for k, c in enumerate(cells)))
    return group.arrange(DOWN if vertical else RIGHT, buff=0)


def get_mask_triangle(rect, color=FUTURE_COLOR) -> Polygon:
    tri = Polygon(rect.get_corner(UP + LEFT), rect.get_corner(UP + RIGHT), rect.get_corner(DOWN + RIGHT))
    return tri.set_stroke(width=0).set_fill(color, 1.0)


def get_card_stack(name: str, color: str, shape_text: str) -> VGroup:
    """Three offset [64, 64] cards standing for Q, K and V."""
    cards = VGroup(*(Rectangle(width=BOX, height=BOX).set_stroke(color, 1.5).set_fill(BACKGROUND, 1)
                     .shift(k * 0.07 * (RIGHT + DOWN)) for k in range(3)))
    for c in cards:
        c.set_fill(color, 0.25)
    label = get_text(name, font_size=SMALL_SIZE, color=color).next_to(cards, UP, buff=BUFF_SMALL)
    shape = get_text(shape_text, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).next_to(cards, DOWN, buff=BUFF_SMALL)
    stack = VGroup(cards, label, shape)
    stack.box, stack.front, stack.name_label, stack.shape_label = cards, cards[-1], label, shape
    return stack


def get_mlp_box(color: str, hidden: int) -> VGroup:
    box = get_shape_box("MLP", None, color=color, width=0.75, height=0.5, name_inside=True, name_size=SMALL_SIZE)
    label = get_text(f"64→{fmt_int(hidden)}", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    label.next_to(box.box, DOWN, buff=BUFF_SMALL)
    box.add(label)
    box.shape_label = label
    return box


def arrange_stages(stages, labels=None, min_gap=0.5) -> VGroup:
    """Stages left to right on one centre line (their boxes' centres), an arrow between each pair,
    each gap wide enough for its arrow label and for the stages' labels that overhang their boxes."""
    labels = labels or [None] * (len(stages) - 1)
    x = 0.0
    for k, stage in enumerate(stages):
        stage.shift(RIGHT * (x - stage.box.get_left()[0]) + UP * (0 - stage.box.get_center()[1]))
        if k + 1 < len(stages):
            nxt = stages[k + 1]
            left_over = max(0.0, (stage.width - stage.box.width) / 2)
            right_over = max(0.0, (nxt.width - nxt.box.width) / 2)
            label_w = 0.0
            if labels[k] is not None:
                # a centred arrow label (just above the centre line) must clear the overhanging name
                # labels of thin stages, whose names sit as low as the arrow label
                top = 0.06 + labels[k].height
                clear = [max(0.0, (s.name_label.width - s.box.width) / 2) for s in (stage, nxt)
                         if s.box.get_top()[1] + BUFF_SMALL < top + 0.05]
                label_w = labels[k].width + 2 * max(clear, default=0.0) + 0.4
            x = stage.box.get_right()[0] + max(min_gap, left_over + right_over + 0.3, label_w)
    arrows = VGroup()
    for k in range(len(stages) - 1):
        arrow = get_arrow(stages[k].box.get_right(), stages[k + 1].box.get_left(), buff=0.08)
        if labels[k] is not None:
            labels[k].next_to(arrow, UP, buff=0.06)
            arrow = VGroup(arrow, labels[k])
            arrow.label = labels[k]
        arrows.add(arrow)
    flow = VGroup(VGroup(*stages), arrows)
    flow.stages, flow.arrows = list(stages), arrows
    return flow


def get_link(text: str) -> "VGroup":
    return get_text(text, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)


def get_mlp_flow(p: dict, color: str) -> VGroup:
    """64 token rows in slot order → concatenated [1, 4,096] → hidden [1, 256] (ReLU) → scores [1, 4,000]."""
    T, C, Hd, V = p["context"], p["d_model"], p["d_hidden"], p["vocab_size"]
    rows = get_square("token rows", (T, C), color, fill=0.0, shape_text=f"[{T}, {C}]")
    rows.stripes = get_stripes(T, color, rows.box.width, rows.box.height, vertical=True).move_to(rows.box)
    rows.add_to_back(rows.stripes)
    concat = get_vector("concatenated", input_width(p), color, fill=0.0)
    concat.segments = get_stripes(T, color, concat.box.width, concat.box.height, vertical=False).move_to(concat.box)
    concat.add_to_back(concat.segments)
    hidden = get_vector("ReLU", Hd, color)
    scores = get_vector("word scores", V, color)
    flow = arrange_stages([rows, concat, hidden, scores], [None, get_link(f"{fmt_int(input_width(p))}→{fmt_int(Hd)}"),
                                                          get_link(f"{fmt_int(Hd)}→{fmt_int(V)}")])
    flow.rows, flow.concat, flow.hidden, flow.scores = rows, concat, hidden, scores
    return flow


def get_attention_flow(p: dict, color: str, n_heads: int) -> VGroup:
    """E → Q, K, V → A (one head) or four heads' Aʰ → H → e′₆₄ (· W_O, + E, last row) → MLP → scores."""
    T, C, Hd, V = p["context"], p["d_model"], p["d_hidden"], p["vocab_size"]
    e = get_square("E", (T, C), TEXT_COLOR, fill=0.2, shape_text=f"[{T}, {C}]")
    qkv = get_card_stack("Q, K, V", color, f"each [{T}, {C}]")
    stages, links = [e, qkv], [None]
    if n_heads == 1:
        a = get_square("A", (T, T), color, shape_text=f"[{T}, {T}]")
        a.mask = get_mask_triangle(a.box)
        a.add(a.mask)
        h = get_square("H = AV", (T, C), color, fill=0.45, shape_text=f"[{T}, {C}]")
        stages += [a, h]
        links += [None, None]
        heads = None
    else:
        d = head_width(p)
        colors = head_colors("four_heads", n_heads)
        # the projected coordinates, cut into heads: column blocks of the front card
        qkv.blocks = VGroup(*(Rectangle(width=BOX / n_heads, height=BOX).set_stroke(c, 1.5).set_fill(c, 0.45)
                              for c in colors)).arrange(RIGHT, buff=0).move_to(qkv.front)
        qkv.add(qkv.blocks)
        side = BOX / 2 - 0.04
        squares = VGroup()
        for k, c in enumerate(colors):
            sq = Rectangle(width=side, height=side).set_stroke(c, 1.5).set_fill(c, 0.3)
            sq.add(get_mask_triangle(sq))
            squares.add(sq)
        squares.arrange_in_grid(rows=2, cols=n_heads // 2, buff=0.08)
        heads = VGroup(squares)
        heads.box = squares
        heads.squares = squares
        heads.name_label = get_text(f"{n_heads} heads: Aʰ", font_size=SMALL_SIZE, color=color)
        heads.name_label.next_to(squares, UP, buff=BUFF_SMALL)
        heads.shape_label = get_text(f"Hʰ [{T}, {d}]", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        heads.shape_label.next_to(squares, DOWN, buff=BUFF_SMALL)
        heads.add(heads.name_label, heads.shape_label)
        h = get_square("concat Hʰ", (T, C), color, fill=0.0, shape_text=f"[{T}, {C}]")
        h.blocks = VGroup(*(Rectangle(width=BOX / n_heads, height=BOX).set_stroke(c, 1.2).set_fill(c, 0.45)
                            for c in colors)).arrange(RIGHT, buff=0).move_to(h.box)
        h.add_to_back(h.blocks)
        stages += [heads, h]
        links += [get_link("reshape"), get_link("join")]
    last = get_vector(f"e′{sub(T)}", C, TEXT_COLOR, fill=0.6)
    mlp = get_mlp_box(TEXT_COLOR, Hd)
    scores = get_vector("word scores", V, TEXT_COLOR)
    stages += [last, mlp, scores]
    links += [get_link("· W_O"), None, None]
    flow = arrange_stages(stages, links)
    flow.e, flow.qkv, flow.h, flow.last, flow.mlp, flow.scores = e, qkv, h, last, mlp, scores
    flow.a = stages[2] if n_heads == 1 else None
    flow.heads = heads
    return flow


def get_model_label(title: str, total: int, model: str, color: str) -> VGroup:
    """The lane's left column: the model's name, its parameter count, "parameters"."""
    name = get_text(title, font_size=NAME_SIZE, color=color)
    count = get_count(total, tag="parameters", index=model, font_size=NAME_SIZE, color=color)
    word = get_text("parameters", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    group = VGroup(name, count, word).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
    group.name, group.count, group.word = name, count, word
    return group


def place_lane(flow: VGroup, label: VGroup, y: float) -> None:
    flow.shift(RIGHT * (FLOW_LEFT - flow.stages[0].box.get_left()[0]) + UP * (y - flow.stages[0].box.get_center()[1]))
    label.move_to([NAME_X, y, 0], aligned_edge=LEFT)


def get_not_slices(C: int, n_heads: int) -> VGroup:
    """What implementations do not do: hand each head a column slice of raw E."""
    side = 0.6
    e = Rectangle(width=side, height=side).set_stroke(TEXT_COLOR, 1.5).set_fill(TEXT_COLOR, 0.15)
    cuts = VGroup(*(DashedLine(e.get_corner(UP + LEFT) + RIGHT * k * side / n_heads,
                               e.get_corner(DOWN + LEFT) + RIGHT * k * side / n_heads, dash_length=0.05)
                    .set_stroke(CROSS_COLOR, 1.5) for k in range(1, n_heads)))
    cross = VGroup(Line(e.get_corner(UP + LEFT), e.get_corner(DOWN + RIGHT)),
                   Line(e.get_corner(DOWN + LEFT), e.get_corner(UP + RIGHT))).set_stroke(CROSS_COLOR, 3)
    label = get_text("not: slices of raw E", font_size=SMALL_SIZE, color=CROSS_COLOR).next_to(e, RIGHT, buff=0.15)
    group = VGroup(e, cuts, cross, label)
    group.label = label
    return group


def get_width_line(n_heads: int, width: int, what: str, color: str, tag: str, total: int) -> VGroup:
    """"what: 2 heads × width 2 = 4 in total" with the counts as numbers (total: the data's own)."""
    return get_line(f"{what}:", get_count(n_heads, tag=tag, index="heads", font_size=LABEL_SIZE, color=color),
                    "heads × width", get_count(width, tag=tag, index="width", font_size=LABEL_SIZE, color=color),
                    "=", get_count(total, tag=tag, index="total", font_size=LABEL_SIZE, color=color),
                    "in total", font_size=LABEL_SIZE)


PART_COLORS = {"token embedding": "#5B6272", "hidden layer": BRACKET_COLOR, "vocabulary layer": "#464C5A"}
BAR_WIDTH = 9.4            # scene units for the largest parameter count
BAR_HEIGHT = 0.42
BIG_PART = 0.6            # narrower parts are listed beside the bar


def get_parameter_bar(parts, total: int, model: str, color: str, scale: float) -> VGroup:
    """The model's parameters as one bar, a segment per part (width ∝ count); big parts carry their
    name above and their count inside, the small attention parts are listed beside the bar."""
    segments = VGroup()
    for k, (part, formula, count) in enumerate(parts):
        seg = Rectangle(width=max(count * scale, 0.02), height=BAR_HEIGHT)
        seg.set_stroke(BACKGROUND, 1).set_fill(PART_COLORS.get(part, color), 1)
        seg.part, seg.count, seg.formula = part, count, formula
        segments.add(seg)
    segments.arrange(RIGHT, buff=0)
    bar = VGroup(segments)
    bar.segments, bar.labels, bar.counts, bar.small = segments, VGroup(), VGroup(), VGroup()
    small = []
    for k, seg in enumerate(segments):
        number = get_count(seg.count, tag=f"part_{model}", index=k, font_size=SMALL_SIZE,
                           color=BACKGROUND if seg.part == "hidden layer" else TEXT_COLOR)
        if seg.width >= BIG_PART:
            if seg.width > number.width + 0.15:
                number.move_to(seg)
            else:
                number.set_color(TEXT_COLOR).next_to(seg, DOWN, buff=0.08)
            name = get_text(seg.part, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).next_to(seg, UP, buff=0.08)
            bar.labels.add(name)
            bar.counts.add(number)
        else:
            small.append((seg, number))
    if small:
        lines = VGroup(*(get_line(seg.part, number, font_size=SMALL_SIZE, color=color) for seg, number in small))
        lines.arrange(DOWN, buff=0.08, aligned_edge=LEFT)
        lines.next_to(segments, RIGHT, buff=0.45)
        first, last = small[0][0], small[-1][0]
        # under the bar from the small parts, then up to their list (clear of the counts inside the bar)
        x0 = (first.get_left()[0] + last.get_right()[0]) / 2
        y0 = segments.get_bottom()[1] - 0.14
        pointer = VMobject().set_points_as_corners([
            [x0, segments.get_bottom()[1], 0], [x0, y0, 0], [segments.get_right()[0] + 0.25, y0, 0],
            [segments.get_right()[0] + 0.25, lines.get_center()[1], 0],
            [lines.get_left()[0] - 0.08, lines.get_center()[1], 0]]).set_stroke(color, 1.5)
        bar.small = VGroup(lines, pointer)
        bar.counts.add(*(number for _, number in small))
    bar.add(bar.labels, bar.counts, bar.small)
    return bar


class ThreeArchitectures(LessonScene):
    """Scene 18: the baseline, one head and four heads as three lanes that stay on screen, each with
    its parameter count; E = token rows + position rows; project, then reshape into heads (not slices
    of raw E); at the end, where each model's parameters are."""

    def construct(self):
        results = comparison.load_results()       # stops here, naming the file, if it is missing
        self.results = results
        self.p = p = results["protocol"]
        self.parts = {m: checked_parameters(results, m) for m in models_in(results)}
        for m in comparison.MODEL_ORDER:
            if m not in self.parts:
                raise ValueError(f"results.json has no run of {m}: the scene cannot show its parameter count")
        title = get_title("Three architectures, one protocol")
        with self.transition("title"):
            self.play(FadeIn(title))
        self.build_lanes(results, p)
        # --- Shot 1: the baseline: concatenated rows, no attention ------------------------------
        self.shot("fixed-window MLP")
        self.show_baseline_rows(p)
        self.show_concatenation(p)
        self.show_no_position_table()
        self.show_baseline_layers(p)
        self.show_baseline_count(results)
        # --- Shot 2: one head ---------------------------------------------------------------------
        self.shot("one head")
        self.show_position_rows(p)
        self.show_attention(p)
        self.show_prediction(p)
        self.show_final_query()
        self.show_one_head_count(results)
        # --- Shot 3: four heads: project, then reshape ----------------------------------------------
        self.shot("four heads")
        self.show_four_heads(p)
        self.show_reshape(p)
        self.show_not_slices()
        self.show_heads_join(p)
        self.show_four_head_count(results)
        self.show_widths(p)
        # --- Shot 4: where the parameters are -------------------------------------------------------
        self.shot("where the parameters are")
        self.show_parameter_bars()
        self.show_first_layer(p)

    # pictures ---------------------------------------------------------------------------------
    def build_lanes(self, results, p):
        self.flows, self.labels = {}, {}
        for model, y in zip(comparison.MODEL_ORDER, LANE_Y):
            color = MODEL_COLORS[model]
            flow = (get_mlp_flow(p, color) if model == "mlp"
                    else get_attention_flow(p, color, 1 if model == "one_head" else p["n_heads_multi"]))
            label = get_model_label(model_title(results, model), self.parts[model][1], model, color)
            place_lane(flow, label, y)
            self.flows[model], self.labels[model] = flow, label
        self.mlp_flow, self.one_head_flow, self.four_head_flow = (self.flows[m] for m in comparison.MODEL_ORDER)

    @staticmethod
    def place_note(text: str, left: float | None = None):
        """The fine print in the band under the lanes (from `left` to the safe edge, else full width)."""
        width = SAFE_WIDTH if left is None else SAFE_WIDTH / 2 - left
        note = get_fine_print(text, max_width=width)
        note.move_to([0, CONTENT_BOTTOM + 0.05, 0], aligned_edge=DOWN)
        if left is not None:
            note.align_to([left, 0, 0], LEFT)
        return note

    def swap_note(self, text: str, left: float | None = None):
        """The fine print of this beat in place of the last one (inside the beat's play)."""
        new = self.place_note(text, left)
        old = getattr(self, "note", None)
        self.note = new
        return [FadeOut(old), FadeIn(new)] if old is not None else [FadeIn(new)]

    # beats: the baseline ------------------------------------------------------------------------
    def show_baseline_rows(self, p):
        flow, label = self.mlp_flow, self.labels["mlp"]
        with self.beat(f"Three small language models learned from the same stories. First, a baseline "
                       f"with no attention at all: {model_title(self.results, 'mlp')}."):
            self.play(FadeIn(label.name, shift=0.2 * RIGHT))
            self.play(FadeIn(flow.rows, shift=0.2 * RIGHT),
                      *self.swap_note(f"This diagram follows {comparison.MODEL_CLASSES['mlp']} in trainer/model.py "
                                      "and the saved comparison protocol."))

    def show_concatenation(self, p):
        T, C = p["context"], p["d_model"]
        flow = self.mlp_flow
        stripes = flow.rows.stripes.copy()
        with self.beat(f"It looks up a row of {C} numbers for each of the {T} tokens in its window, and lays "
                       f"the rows end to end: {fmt_int(input_width(p))} numbers."):
            self.play(GrowArrow(flow.arrows[0]), FadeIn(VGroup(flow.concat.box, flow.concat.name_label)))
            self.play(ReplacementTransform(stripes, flow.concat.segments), run_time=1.8)
            self.play(FadeIn(flow.concat.shape_label),
                      *self.swap_note(f"Each token embedding has {C} coordinates; concatenating {T} rows "
                                      f"gives {fmt_int(input_width(p))}."))

    def show_no_position_table(self):
        flow = self.mlp_flow
        with self.beat("The order of the slots tells the positions apart, so the baseline has no position table."):
            self.play(Indicate(flow.concat.segments, color=RECEIVER_COLOR, scale_factor=1.05),
                      *self.swap_note("The fixed concatenation order already distinguishes slots. "
                                      "This baseline has no separate learned position table."))

    def show_baseline_layers(self, p):
        Hd, V = p["d_hidden"], p["vocab_size"]
        flow = self.mlp_flow
        with self.beat(f"A hidden layer of {fmt_int(Hd)} with ReLU, then one score for each of the "
                       f"{fmt_int(V)} words of the vocabulary."):
            self.play(GrowArrow(flow.arrows[1][0]), FadeIn(flow.arrows[1].label), FadeIn(flow.hidden))
            self.play(GrowArrow(flow.arrows[2][0]), FadeIn(flow.arrows[2].label), FadeIn(flow.scores))

    def show_baseline_count(self, results):
        label = self.labels["mlp"]
        total = self.parts["mlp"][1]
        with self.beat(f"That first layer reads all {fmt_int(input_width(self.p))} numbers, so the baseline has "
                       f"{millions(total)} parameters."):
            self.play(Indicate(self.mlp_flow.arrows[1].label, color=RECEIVER_COLOR))
            self.play(FadeIn(VGroup(label.count, label.word), shift=0.2 * UP))

    # beats: one head --------------------------------------------------------------------------------
    def show_position_rows(self, p):
        T, C = p["context"], p["d_model"]
        flow, label = self.one_head_flow, self.labels["one_head"]
        e = flow.e
        tokens = self.mlp_flow.rows.copy()
        tokens.remove(tokens.shape_label)
        positions = get_shape_box("position rows", None, color=RECEIVER_COLOR, width=BOX, height=BOX,
                                  fill_opacity=0.0, name_size=SMALL_SIZE)
        positions.stripes = get_stripes(T, RECEIVER_COLOR, BOX, BOX, vertical=True).move_to(positions.box)
        positions.add_to_back(positions.stripes)
        positions.move_to(flow.qkv.box.get_center() + RIGHT * 0.5)
        plus = get_text("+", font_size=LABEL_SIZE).move_to((e.box.get_right() + positions.box.get_left()) / 2)
        with self.beat(f"The second model has attention: one head, {C} wide. Its input E is the token rows "
                       "plus a learned position row for each slot."):
            self.play(FadeIn(label.name, shift=0.2 * RIGHT))
            self.play(tokens.animate.move_to(e.box), run_time=1.2)
            self.play(FadeIn(positions, shift=0.2 * LEFT), FadeIn(plus))
            self.play(ReplacementTransform(VGroup(tokens.stripes, tokens.box, positions.stripes, positions.box),
                                           e.box),
                      ReplacementTransform(VGroup(tokens.name_label, positions.name_label), e.name_label),
                      FadeOut(plus), FadeIn(e.shape_label), run_time=1.4)
            self.remove(tokens, positions)
            self.play(*self.swap_note("Both attention variants add learned absolute position rows to token rows."))

    def show_attention(self, p):
        T = p["context"]
        flow = self.one_head_flow
        with self.beat(f"From E it makes queries, keys and values, and a {T} × {T} attention matrix, masked "
                       "so that no token reads the future."):
            self.play(GrowArrow(flow.arrows[0]), FadeIn(flow.qkv))
            self.play(GrowArrow(flow.arrows[1]), FadeIn(flow.a))
            self.play(Indicate(flow.a.mask, color=TEXT_COLOR, scale_factor=1.05),
                      *self.swap_note(f"The trained single-head model uses d_model = d_k = d_v = {p['d_model']}. "
                                      f"The full attention matrix has shape {T}×{T}, with future and padding masks."))

    def show_prediction(self, p):
        flow = self.one_head_flow
        with self.beat("The weighted values, times W_O, are added back to E; the last row goes through a "
                       "small MLP to the word scores."):
            self.play(GrowArrow(flow.arrows[2]), FadeIn(flow.h))
            self.play(GrowArrow(flow.arrows[3][0]), FadeIn(flow.arrows[3].label), FadeIn(flow.last))
            self.play(GrowArrow(flow.arrows[4]), FadeIn(flow.mlp), GrowArrow(flow.arrows[5]), FadeIn(flow.scores))

    def show_final_query(self):
        flow = self.one_head_flow
        strips = self.final_row = VGroup(get_row_strip(flow.qkv.front), get_row_strip(flow.a.box),
                                         get_row_strip(flow.h.box))
        with self.beat("In fact the model computes only the last row, the final query: it gives the same "
                       "next-word scores as the last row of the full matrix."):
            self.play(LaggedStart(*(FadeIn(s) for s in strips), lag_ratio=0.3), run_time=1.2)
            self.play(Indicate(flow.last, color=RECEIVER_COLOR),
                      *self.swap_note("The model computes only the final query row, in training and in generation; "
                                      "it gives the same next-token logits as taking the last row of this full diagram."))

    def show_one_head_count(self, results):
        label, total = self.labels["one_head"], self.parts["one_head"][1]
        C, Hd = self.p["d_model"], self.p["d_hidden"]
        with self.beat(f"Its MLP reads {C} numbers instead of {fmt_int(input_width(self.p))}: "
                       f"{millions(total)} parameters, against {millions(self.parts['mlp'][1])} for the baseline."):
            self.play(Indicate(VGroup(self.one_head_flow.last, self.mlp_flow.concat), color=RECEIVER_COLOR))
            self.play(FadeIn(VGroup(label.count, label.word), shift=0.2 * UP),
                      *self.swap_note(f"The {C}→{fmt_int(Hd)} prediction MLP replaces the baseline’s much wider "
                                      f"{fmt_int(input_width(self.p))}→{fmt_int(Hd)} input layer."))

    # beats: four heads --------------------------------------------------------------------------------
    def show_four_heads(self, p):
        flow, label = self.four_head_flow, self.labels["four_heads"]
        n, d = p["n_heads_multi"], head_width(p)
        e_copy = self.one_head_flow.e.copy()
        qkv_plain = VGroup(flow.qkv.box, flow.qkv.name_label, flow.qkv.shape_label)
        with self.beat(f"The third model is the same, but with {n} heads of width {d}. "
                       "It starts the same way: E, then queries, keys and values."):
            self.play(FadeIn(label.name, shift=0.2 * RIGHT))
            self.play(ReplacementTransform(e_copy, flow.e), run_time=1.2)
            self.play(GrowArrow(flow.arrows[0]), FadeIn(qkv_plain),
                      *self.swap_note(f"This follows {comparison.MODEL_CLASSES['four_heads']} in trainer/model.py."))

    def show_reshape(self, p):
        C, n = p["d_model"], p["n_heads_multi"]
        d = head_width(p)
        flow = self.four_head_flow
        with self.beat(f"One W_Q of {C} × {C} projects E; then the {C} columns it made are cut into "
                       f"{n} heads of {d}."):
            self.play(LaggedStart(*(FadeIn(b) for b in flow.qkv.blocks), lag_ratio=0.25), run_time=1.2)
            self.play(GrowArrow(flow.arrows[1][0]), FadeIn(flow.arrows[1].label),
                      *self.swap_note("Implementations often concatenate the per-head W_Q matrices into one large "
                                      "W_Q (and similarly for K and V). They project E first and reshape the "
                                      "projected coordinates into heads."))

    def show_not_slices(self):
        flow = self.four_head_flow
        pic = self.not_slices = get_not_slices(self.p["d_model"], self.p["n_heads_multi"])
        arrow = flow.arrows[1][0]
        pic.move_to([0, CONTENT_BOTTOM + 0.1, 0], aligned_edge=DOWN)
        pic.shift(RIGHT * (arrow.get_center()[0] - pic[0].get_center()[0]))
        self.not_slices_note_left = pic.get_right()[0] + 0.4
        with self.beat(f"The heads do not get slices of raw E: every head reads all {self.p['d_model']} "
                       "coordinates of every row."):
            self.play(FadeIn(pic[0]), Create(pic[1]))
            self.play(Create(pic[2]), FadeIn(pic.label),
                      *self.swap_note("They do not assign disjoint slices of raw E to different heads.",
                                      left=self.not_slices_note_left))

    def show_heads_join(self, p):
        T, C, n = p["context"], p["d_model"], p["n_heads_multi"]
        flow = self.four_head_flow
        with self.beat(f"Each head has its own {T} × {T} attention matrix and a message {head_width(p)} wide; "
                       f"the {n} messages join into {C} columns again."):
            self.play(FadeOut(self.not_slices), FadeIn(flow.heads.name_label),
                      LaggedStart(*(FadeIn(s) for s in flow.heads.squares), lag_ratio=0.2), run_time=1.2)
            self.play(FadeIn(flow.heads.shape_label), GrowArrow(flow.arrows[2][0]), FadeIn(flow.arrows[2].label),
                      FadeIn(flow.h),
                      *self.swap_note(f"Each head has Q, K and V of shape {T}×{head_width(p)} and its own {T}×{T} "
                                      f"attention matrix. Its H = AV has shape {T}×{head_width(p)}."))

    def show_four_head_count(self, results):
        flow, label = self.four_head_flow, self.labels["four_heads"]
        T, C, n = self.p["context"], self.p["d_model"], self.p["n_heads_multi"]
        same = self.parts["four_heads"] == self.parts["one_head"]
        with self.beat("W_O mixes them, and the rest is as before. Same layers, same sizes: "
                       f"{millions(self.parts['four_heads'][1])} parameters again." if same else
                       f"W_O mixes them, and the rest is as before: {millions(self.parts['four_heads'][1])} parameters."):
            self.play(GrowArrow(flow.arrows[3][0]), FadeIn(flow.arrows[3].label), FadeIn(flow.last))
            self.play(GrowArrow(flow.arrows[4]), FadeIn(flow.mlp), GrowArrow(flow.arrows[5]), FadeIn(flow.scores))
            self.play(FadeIn(VGroup(label.count, label.word), shift=0.2 * UP),
                      *self.swap_note(f"Concatenating {count_word(n)} H matrices gives {T}×{C}, "
                                      f"followed by W_O [{C}×{C}]."))

    def show_widths(self, p):
        from lesson_data.worksheet import compute_worksheet

        toy = compute_worksheet("river")
        toy_heads, toy_d = len(toy.heads), toy.heads[0].W_Q.shape[1]
        toy_total = toy.wide_head.W_Q.shape[1]
        n, C = p["n_heads_multi"], p["d_model"]
        lines = VGroup(get_width_line(toy_heads, toy_d, "our worksheet", TEXT_COLOR, "toy_width", toy_total),
                       get_width_line(n, head_width(p), "this model", MODEL_COLORS["four_heads"], "model_width", C))
        lines.arrange(DOWN, buff=0.14, aligned_edge=LEFT)
        lines.move_to([0, CONTENT_BOTTOM + 0.05, 0], aligned_edge=DOWN).align_to([FLOW_LEFT, 0, 0], LEFT)
        self.widths = lines
        with self.beat(f"Our worksheet had {toy_heads} heads of width {toy_d}, {toy_total} in total; "
                       f"this model has {n} heads of {head_width(p)}, {C} in total."):
            self.play(FadeOut(self.note), FadeIn(lines[0]))
            self.play(FadeIn(lines[1]))
            self.note = None

    # beats: where the parameters are ----------------------------------------------------------------
    def show_parameter_bars(self):
        largest = max(total for _, total in self.parts.values())
        scale = BAR_WIDTH / largest
        self.bars = {}
        for model, y in zip(comparison.MODEL_ORDER, LANE_Y):
            bar = get_parameter_bar(*self.parts[model], model, MODEL_COLORS[model], scale)
            bar.move_to([FLOW_LEFT, y, 0], aligned_edge=LEFT)
            bar.shift(UP * (y - bar.segments.get_center()[1]))
            self.bars[model] = bar
        flows = VGroup(*self.flows.values(), self.final_row, self.widths)
        with self.beat("Where do the parameters go? Each bar is one model, each part as long as its count."):
            self.play(FadeOut(flows), run_time=0.8)
            for model in comparison.MODEL_ORDER:
                bar = self.bars[model]
                self.play(GrowFromEdge(bar.segments, LEFT), run_time=0.9)
                self.play(FadeIn(VGroup(bar.labels, bar.counts, bar.small)), run_time=0.6)

    def show_first_layer(self, p):
        bar = self.bars["mlp"]
        hidden = next(s for s in bar.segments if s.part == "hidden layer")
        box = SurroundingRectangle(hidden, color=RECEIVER_COLOR, buff=0.06)
        formula = get_text(hidden.formula, font_size=SMALL_SIZE, color=RECEIVER_COLOR)
        formula.next_to(box, DOWN, buff=0.08)
        self.first_layer = VGroup(box, formula)
        with self.beat(f"The baseline’s first layer alone is {fmt_int(input_width(p))} × {fmt_int(p['d_hidden'])} weights, "
                       "plus biases: the part the attention models do not have."):
            self.play(Create(box), FadeIn(formula))
            self.play(*self.swap_note("Its larger first MLP matrix helps explain its parameter count."))


def get_row_strip(rect, color=RECEIVER_COLOR, height=0.06) -> Rectangle:
    """The last (receiver) row of a box, as a strip along its bottom."""
    strip = Rectangle(width=rect.width, height=height).set_stroke(color, 1.5).set_fill(color, 0.9)
    return strip.move_to(rect.get_bottom(), aligned_edge=DOWN)
