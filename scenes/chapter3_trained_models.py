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
    TransformFromCopy,
    DashedVMobject,
    Circle,
    Dot,
    FadeIn,
    FadeOut,
    FadeTransform,
    GrowArrow,
    ManimColor,
    Indicate,
    LaggedStart,
    Line,
    Polygon,
    Rectangle,
    ReplacementTransform,
    Square,
    SurroundingRectangle,
    Transform,
    VGroup,
    VMobject,
    interpolate_color,
    linear,
)

from lesson_data import comparison
from lesson_data.comparison import (
    checked_parameters,
    head_width,
    input_width,
    millions,
    model_title,
    models_in,
    shown_parts_sum,
)
from lesson_data.display import fmt, fmt_int
from scenes.blocks.attention_arrows import get_attention_arrows, get_token_row
from scenes.blocks.flow_arrow import get_arrow
from scenes.blocks.head_chain import get_head_chain
from scenes.blocks.heat_map import (
    FUTURE_COLOR,
    get_axis_labels,
    get_color_key,
    get_heat_map,
    level_hex,
    weight_level,
)
from scenes.blocks.shape_box import get_shape_box
from scenes.style import (
    ROUNDING_NOTE,
    BACKGROUND,
    BRACKET_COLOR,
    BUFF_SMALL,
    CONTENT_BOTTOM,
    CONTENT_TOP,
    DIM_TEXT_COLOR,
    HEAD_COLORS,
    LABEL_SIZE,
    MIN_TEXT_SIZE,
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
    get_number,
    get_fine_print,
    get_text,
    get_title,
    sub,
    wrap_lines,
)

# Each model keeps one colour through the chapter: the baseline has no heads (neutral grey), the
# one-head model is the "one wide head" of chapter 2, the four-head model head 1's blue. Inside the
# four-head model every head has its own colour (sky blue, orange, bluish green: Okabe–Ito; and a
# light violet, apart from the one-head model's reddish purple).
MODEL_COLORS = {"mlp": BRACKET_COLOR, "one_head": WIDE_HEAD_COLOR, "four_heads": HEAD_COLORS[1]}
FOUR_HEAD_COLORS = (HEAD_COLORS[1], HEAD_COLORS[2], POSITIVE_COLOR, "#B4A7FF")
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
LANE_Y = (2.25, 0.62, -1.07)  # the three lanes, top to bottom (box centres)
FLOW_LEFT = -3.95           # where every lane's flow starts (the names and counts sit left of it)
NAME_X = -6.72


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


def arrange_stages(stages, labels=None, min_gap=0.5, gaps=None) -> VGroup:
    """Stages left to right on one centre line (their boxes' centres), an arrow between each pair,
    each gap wide enough for its arrow label and for the stages' labels that overhang their boxes
    (or as given in `gaps`, one per pair, None where the rule above decides)."""
    labels = labels or [None] * (len(stages) - 1)
    gaps = gaps or [None] * (len(stages) - 1)
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
            x = stage.box.get_right()[0] + (gaps[k] if gaps[k] is not None
                                            else max(min_gap, left_over + right_over + 0.3, label_w))
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
        qkv.blocks = VGroup(*(Rectangle(width=BOX / n_heads, height=BOX).set_stroke(BACKGROUND, 2.5).set_fill(c, 0.7)
                              for c in colors)).arrange(RIGHT, buff=0).move_to(qkv.front)
        qkv.blocks[0].set_stroke(TEXT_COLOR, 2.5)            # head 1's slice, outlined: it is the stack's colour
        qkv.split_label = get_text(f"{n_heads} × [{T}, {d}]", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        qkv.split_label.move_to(qkv.shape_label)
        qkv.add(qkv.split_label)
        qkv.add(qkv.blocks)
        # one head's own chain, its blocks to scale with Q's column blocks: Qʰ beside the scores, Kʰᵀ above
        # them (as the product multiplies), the scores masked and softmaxed in place into Aʰ, then · Vʰ
        heads = get_head_chain(T, C, d, color=colors[0], side=BOX)
        heads.name_label = heads.s_shape                  # (for the layout: what overhangs the chain's box)
        h = get_square("H", (T, C), color, fill=0.0, shape_text=f"{n_heads} × [{T}, {d}]")
        h.blocks = VGroup(*(Rectangle(width=BOX / n_heads, height=BOX).set_stroke(BACKGROUND, 2).set_fill(c, 0.6)
                            for c in colors)).arrange(RIGHT, buff=0).move_to(h.box)
        h.add_to_back(h.blocks)
        stages += [heads, h]
        links += [None, None]
    last = get_vector(f"e′{sub(T)}", C, TEXT_COLOR, fill=0.6)
    mlp = get_mlp_box(TEXT_COLOR, Hd)
    scores = get_vector("word scores", V, TEXT_COLOR)
    stages += [last, mlp, scores]
    links += [get_link("· W_O + E"), None, None]
    gaps = None
    if heads is not None:
        # into the chain: room for Qʰ's shape under the arrow; out of it: Vʰ's shape and a short arrow
        gaps = [None, (heads.q.get_left()[0] - heads.q_shape.get_left()[0]) + 0.12, 0.5,
                links[3].width + 2 * max(0.0, (last.name_label.width - last.box.width) / 2) + 0.25, None, None]
    flow = arrange_stages(stages, links, gaps=gaps)
    if heads is not None:
        # under the joined H: 64 columns again (placed after the layout: it overhangs into free space)
        # (one line: the band under it holds the fine print and the widths)
        wide = get_text(f"[{T}, {C}] = {n_heads} × {head_width(p)} features", font_size=SMALL_SIZE,
                        color=DIM_TEXT_COLOR)
        # from under Vʰ (whose labels stand over it) to under e′: clear of the scores' shape on the left, and
        # a little lower than e′'s shape on the right
        wide.next_to(h.box, DOWN, buff=0.2).align_to(heads.v, LEFT)
        h.remove(h.shape_label)
        h.shape_label = wide
        h.add(wide)
        # before the heads join: the first column block is head 1's message, named over H's left edge
        # (under H, where the joined shape will be: Vʰ's labels stand over the row's gap)
        h.head_name = get_text(f"Hʰ = AʰVʰ\n[{T}, {head_width(p)}]", font_size=SMALL_SIZE,
                               color=head_colors("four_heads", n_heads)[0], line_spacing=0.8)
        h.head_name.next_to(h.box, DOWN, buff=BUFF_SMALL)
        h.add(h.head_name)                     # (moves with the lane; leaves H when the heads join)
    flow.e, flow.qkv, flow.h, flow.last, flow.mlp, flow.scores = e, qkv, h, last, mlp, scores
    flow.a = stages[2] if n_heads == 1 else None
    flow.heads = heads
    return flow


def get_axis_note(stage, columns: str) -> VGroup:
    """Under a [64, 64] shape's label: what its rows and its columns are (rows are always tokens; the
    columns are features for E, Q, K, V and H, tokens for an attention matrix), since context = width
    makes the numbers alike."""
    note = get_text(f"tokens ×\n{columns}", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.8)
    note.next_to(stage.shape_label, DOWN, buff=0.06).set_x(stage.box.get_center()[0])
    note.columns = columns
    return note


def get_model_label(title: str, total: int, model: str, color: str) -> VGroup:
    """The lane's left column: the model's name, its parameter count, "parameters"."""
    name = get_text(title, font_size=NAME_SIZE, color=color)
    count = get_count(total, tag="parameters", index=model, font_size=NAME_SIZE, color=color)
    word = get_text("parameters", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    group = VGroup(name, count, word).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
    group.name, group.count, group.word = name, count, word
    return group


def place_lane(flow: VGroup, label: VGroup, y: float, left: float = FLOW_LEFT) -> None:
    flow.shift(RIGHT * (left - flow.stages[0].box.get_left()[0]) + UP * (y - flow.stages[0].box.get_center()[1]))
    label.move_to([NAME_X, y, 0], aligned_edge=LEFT)


def get_wq_blocks(C: int, d: int, colors, side: float = 0.5) -> VGroup:
    """W_Q [C, C] as its heads' column blocks, head 1's [C, d] block lit: every one of its C rows (the
    features of E) feeds each of head 1's d query columns."""
    blocks = VGroup(*(Rectangle(width=side / len(colors), height=side).set_stroke(BACKGROUND, 2)
                      .set_fill(c, 0.75 if k == 0 else 0.12) for k, c in enumerate(colors))).arrange(RIGHT, buff=0)
    frame = Rectangle(width=side, height=side).set_stroke(TEXT_COLOR, 1.5).move_to(blocks)
    name = get_text("W_Q", font_size=SMALL_SIZE, color=TEXT_COLOR).next_to(frame, LEFT, buff=0.12)
    label = get_text(f"head 1’s block of W_Q:\n{C} features in, [{C}, {d}]", font_size=SMALL_SIZE,
                     color=colors[0], line_spacing=0.8).next_to(frame, RIGHT, buff=0.15)
    group = VGroup(blocks, frame, name, label)
    group.blocks, group.frame, group.name, group.label = blocks, frame, name, label
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
    its parameter count; E = token rows + position rows, its axes named (tokens × features; A tokens ×
    tokens); project, then cut into heads (head 1's block of W_Q reads every feature of E); at the end,
    where each model's parameters are."""

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
        self.show_head_columns()
        self.show_head_scores(p)
        self.show_head_message(p)
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
            # the four-head lane is the widest (its reshape, join and axis words); its short name leaves room
            # to start earlier
            place_lane(flow, label, y, FLOW_LEFT - (1.05 if model == "four_heads" else 0.0))
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
        with self.beat(f"Three small language models learned from the same short children's stories, "
                       f"TinyStories. First, a baseline "
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
        segments = flow.concat.segments
        T = self.p["context"]
        # the slots numbered at both ends of the concatenated row: token 1's numbers first, token T's last
        ends = self.slot_ends = VGroup(
            get_count(1, tag="slot", index=1, font_size=SMALL_SIZE, color=RECEIVER_COLOR),
            get_count(T, tag="slot", index=T, font_size=SMALL_SIZE, color=RECEIVER_COLOR))
        for label, seg in zip(ends, (segments[0], segments[-1])):
            label.move_to(seg).align_to(flow.concat.shape_label, UP)
        align_baseline(ends[1], baseline_y(ends[0]))
        with self.beat("The order of the slots tells the positions apart, so the baseline has no position table."):
            self.play(LaggedStart(*(Indicate(seg, color=RECEIVER_COLOR, scale_factor=1.0) for seg in segments),
                                  lag_ratio=0.03), FadeIn(ends), run_time=2.0)
            self.play(Indicate(segments, color=RECEIVER_COLOR, scale_factor=1.05),
                      *self.swap_note("The fixed concatenation order already distinguishes slots. "
                                      "This baseline has no separate learned position table."))

    def show_baseline_layers(self, p):
        Hd, V = p["d_hidden"], p["vocab_size"]
        flow = self.mlp_flow
        with self.beat(f"A hidden layer of {fmt_int(Hd)} with ReLU, then one score for each of the "
                       f"{fmt_int(V)} tokens of the vocabulary: words and punctuation."):
            self.play(GrowArrow(flow.arrows[1][0]), FadeIn(flow.arrows[1].label), FadeIn(flow.hidden))
            self.play(GrowArrow(flow.arrows[2][0]), FadeIn(flow.arrows[2].label), FadeIn(flow.scores))

    def show_baseline_count(self, results):
        label = self.labels["mlp"]
        total = self.parts["mlp"][1]
        with self.beat(f"That first layer reads all {fmt_int(input_width(self.p))} numbers, so the baseline has "
                       f"{millions(total)} parameters."):
            self.play(Indicate(self.mlp_flow.arrows[1].label, color=RECEIVER_COLOR))
            self.play(FadeIn(VGroup(label.count, label.word), shift=0.2 * UP))

    def add_e_stripes(self, e, T: int) -> None:
        """E keeps both kinds of row in its picture: the token rows' stripes under the position rows'."""
        e.stripes = VGroup(get_stripes(T, self.mlp_flow.rows.stripes[0].get_fill_color().to_hex(), BOX, BOX,
                                       vertical=True),
                           get_stripes(T, RECEIVER_COLOR, BOX, BOX, vertical=True).set_opacity(0.35)).move_to(e.box)
        e.box.set_fill(opacity=0)
        e.add(e.stripes)

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
        self.add_e_stripes(e, T)
        with self.beat(f"The second model has attention: one head, {C} wide. Its input E is the token rows "
                       "plus a learned position row for each slot."):
            self.play(FadeIn(label.name, shift=0.2 * RIGHT),
                      *self.swap_note("Both attention variants add learned absolute position rows to token rows."))
            self.play(tokens.animate.move_to(e.box), run_time=1.2)
            self.play(FadeIn(positions, shift=0.2 * LEFT), FadeIn(plus))
            self.wait(2.5)                  # token rows + position rows, while the sentence names them
            self.play(ReplacementTransform(VGroup(tokens.stripes, positions.stripes), e.stripes),
                      ReplacementTransform(VGroup(tokens.box, positions.box), e.box),
                      ReplacementTransform(VGroup(tokens.name_label, positions.name_label), e.name_label),
                      FadeOut(plus), FadeIn(e.shape_label), run_time=1.6)
            self.remove(tokens, positions)

    def show_attention(self, p):
        T = p["context"]
        flow = self.one_head_flow
        # context = width = 64: the rows and columns named, so that A (token against token) is not read as E
        notes = self.axis_notes = VGroup(get_axis_note(flow.e, "features"), get_axis_note(flow.qkv, "features"),
                                         get_axis_note(flow.a, "tokens"))
        with self.beat(f"E has a row of {p['d_model']} features for each token. From it come queries, keys and "
                       f"values, and a {T} × {T} attention matrix, token against token, masked so that no token "
                       "reads the future.",
                       # heard, "64 by 64" twice names two things (features by features, tokens by tokens)
                       spoken=f"E has a row of {p['d_model']} features for each token. From it come queries, keys "
                              f"and values, and an attention matrix with a weight for every pair of the {T} tokens, "
                              "masked so that no token reads the future."):
            self.play(FadeIn(notes[0]), Indicate(flow.e.stripes, color=RECEIVER_COLOR, scale_factor=1.0))
            self.play(GrowArrow(flow.arrows[0]), FadeIn(flow.qkv), FadeIn(notes[1]))
            self.play(GrowArrow(flow.arrows[1]), FadeIn(flow.a), FadeIn(notes[2]))
            self.play(Indicate(flow.a.mask, color=TEXT_COLOR, scale_factor=1.05),
                      *self.swap_note(f"The trained single-head model uses d_model = d_k = d_v = {p['d_model']}. "
                                      f"The full attention matrix has shape {T}×{T}, with future and padding masks."))

    def show_prediction(self, p):
        flow = self.one_head_flow
        with self.beat("The weighted values, times W_O, are added back to E; the last row goes through a "
                       "small MLP to the word scores."):
            self.h_note = get_axis_note(flow.h, "features")
            self.axis_notes.add(self.h_note)
            self.play(GrowArrow(flow.arrows[2]), FadeIn(flow.h), FadeIn(self.h_note))
            self.play(GrowArrow(flow.arrows[3][0]), FadeIn(flow.arrows[3].label), FadeIn(flow.last))
            self.play(GrowArrow(flow.arrows[4]), FadeIn(flow.mlp), GrowArrow(flow.arrows[5]), FadeIn(flow.scores))

    def show_final_query(self):
        flow = self.one_head_flow
        # the final query: Q's last row (the back card), A's and H's last rows; keys and values stay whole
        strips = self.final_row = VGroup(get_row_strip(flow.qkv.box[0]), get_row_strip(flow.a.box),
                                         get_row_strip(flow.h.box))
        kv = self.kv_label = get_text(f"K, V: all {self.p['context']} rows", font_size=SMALL_SIZE,
                                      color=DIM_TEXT_COLOR)
        kv.next_to(self.axis_notes[1], DOWN, buff=0.1)          # under Q, K, V's axis words
        with self.beat("To predict the next word, only the last row is needed, the final query: computing "
                       "just that row gives the same next-word scores as the last row of the full matrix."):
            self.play(LaggedStart(*(FadeIn(s) for s in strips), lag_ratio=0.3), FadeIn(kv), run_time=1.2)
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
        self.add_e_stripes(flow.e, p["context"])
        qkv_plain = VGroup(flow.qkv.box, flow.qkv.name_label, flow.qkv.shape_label)
        with self.beat(f"The third model is the same, but with {n} heads of width {d}. "
                       "It starts the same way: E, then queries, keys and values."):
            self.play(FadeIn(label.name, shift=0.2 * RIGHT), FadeOut(self.kv_label), FadeOut(self.axis_notes))
            self.play(ReplacementTransform(e_copy, flow.e), run_time=1.2)
            self.play(GrowArrow(flow.arrows[0]), FadeIn(qkv_plain),
                      *self.swap_note(f"This follows {comparison.MODEL_CLASSES['four_heads']} in trainer/model.py."))

    def show_reshape(self, p):
        C, n = p["d_model"], p["n_heads_multi"]
        d = head_width(p)
        flow = self.four_head_flow
        self.qkv_name = flow.qkv.name_label.copy()          # the stack's own name, for when the heads come
        self.q_name = get_text("Q = E · W_Q", font_size=SMALL_SIZE, color=MODEL_COLORS["four_heads"])
        self.q_name.move_to(flow.qkv.name_label)
        # the stack is Q, the activation (its name says it came from W_Q; the caption gives W_Q's 64 × 64)
        self.wq_shape = get_text(f"Q [{C}, {C}]", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        self.wq_shape.move_to(flow.qkv.shape_label)
        with self.beat(f"One W_Q of {C} × {C} projects E; then the {C} columns it made are cut into "
                       f"{n} heads of {d}."):
            # first the projection: Q = E · W_Q, with W_Q [64, 64] and Q still [64, 64] ...
            self.play(Indicate(flow.arrows[0], color=TEXT_COLOR),
                      ReplacementTransform(flow.qkv.name_label, self.q_name),
                      ReplacementTransform(flow.qkv.shape_label, self.wq_shape), run_time=1.2)
            self.wait(1.5)
            # ... then its 64 columns cut into heads
            self.play(LaggedStart(*(FadeIn(b) for b in flow.qkv.blocks), lag_ratio=0.25), run_time=1.2)
            self.play(FadeOut(self.wq_shape), FadeIn(flow.qkv.split_label),
                      *self.swap_note("Implementations often concatenate the per-head W_Q matrices into one large "
                                      "W_Q (and similarly for K and V). They project E first and reshape the "
                                      "projected coordinates into heads."))

    def show_head_columns(self):
        """One head's query columns read every feature of E: its [64, 16] block of W_Q lit, E outlined
        whole, and the lit block carried up into head 1's columns of Q."""
        C, n = self.p["d_model"], self.p["n_heads_multi"]
        d = head_width(self.p)
        flow = self.four_head_flow
        colors = head_colors("four_heads", n)
        pic = self.wq_blocks = get_wq_blocks(C, d, colors)
        pic.move_to([0, CONTENT_BOTTOM + 0.1, 0], aligned_edge=DOWN)
        pic.shift(RIGHT * (flow.qkv.front.get_center()[0] - pic.frame.get_center()[0]))
        self.wq_note_left = pic.get_right()[0] + 0.4
        whole_e = self.whole_e = SurroundingRectangle(flow.e.box, color=colors[0], buff=0.04, stroke_width=3)
        # the voice names the idea; the block's sizes ([64, 16], 64 features in) are on screen
        with self.beat(f"Head 1’s {d} query columns come from its own block of the query matrix W_Q, so each of "
                       "them reads every feature of E, not a slice of them."):
            # the last beat's full-width note gives way first: the picture sits in its band
            self.play(*self.swap_note("Implementations do not assign disjoint slices of raw E to different heads: "
                                      "each head's block of W_Q reads every coordinate of E.",
                                      left=self.wq_note_left))
            self.play(FadeIn(VGroup(pic.frame, pic.blocks, pic.name)), FadeIn(pic.label), Create(whole_e))
            self.play(TransformFromCopy(pic.blocks[0], flow.qkv.blocks[0]), run_time=1.4)
            self.play(Indicate(flow.qkv.blocks[0], color=colors[0], scale_factor=1.05))

    def chain_note(self, text: str):
        """Fine print while head 1's chain is on screen: right of the scores' labels, clear of them."""
        return self.swap_note(text, left=self.four_head_flow.heads.s_shape.get_right()[0] + 0.3)

    def show_head_scores(self, p):
        """Head 1's query block slides out of Q; its key block turns into Kʰᵀ over the scores; Qʰ's rows
        sweep across and Kʰᵀ's columns sweep down, and where they cross are the scores [T, T]."""
        T, d = p["context"], head_width(p)
        flow = self.four_head_flow
        ch, block = flow.heads, flow.qkv.blocks[0]
        # the voice names the product; the shapes ([64, 16], [16, 64], [64, 64]) are on screen
        with self.beat(f"Follow head 1: its queries meet its keys, Qʰ times Kʰᵀ over √{d}, a score for every "
                       "pair of tokens.",
                       spoken=f"Follow head 1: its queries meet its keys, Q times K transposed, over the square root "
                              f"of {d}: a score for every pair of tokens."):
            self.play(FadeOut(self.wq_blocks), FadeOut(self.whole_e), ReplacementTransform(self.q_name, self.qkv_name),
                      GrowArrow(flow.arrows[1]),
                      *self.chain_note(f"Each score is one token’s {d} query numbers against another token’s "
                                       f"{d} key numbers, summed and divided by √{d}."), run_time=1.0)
            self.play(ReplacementTransform(block.copy(), ch.q), FadeIn(VGroup(ch.q_name, ch.q_shape)), run_time=1.2)
            self.play(ReplacementTransform(block.copy(), ch.kt, path_arc=-math.pi / 2), FadeIn(ch.kt_label),
                      run_time=1.2)
            rows, cols = ch.q.copy().set_fill(opacity=0.35), ch.kt.copy().set_fill(opacity=0.35)
            self.play(rows.animate.stretch_to_fit_width(ch.s.width).move_to(ch.s),
                      cols.animate.stretch_to_fit_height(ch.s.height).move_to(ch.s), run_time=1.2)
            self.play(FadeIn(ch.s), FadeOut(rows), FadeOut(cols), FadeIn(ch.s_text), FadeIn(ch.s_shape), run_time=0.8)

    def recolor_chain(self, ch, color: str) -> list:
        """The chain's arrays in another head's colour (the same chain, that head's own blocks)."""
        return [ch.q.animate.set_fill(color), ch.kt.animate.set_fill(color), ch.v.animate.set_fill(color),
                ch.s.animate.set_stroke(color).set_fill(color), ch.q_name.animate.set_color(color),
                ch.kt_name.animate.set_color(color)]

    def show_head_message(self, p):
        """The scores, masked and softmaxed in place, become Aʰ; Vʰ slides out of the stack; Aʰ · Vʰ goes
        into H's first column block: head 1's message Hʰ [T, d]."""
        d = head_width(p)
        flow = self.four_head_flow
        ch, block, h = flow.heads, flow.qkv.blocks[0], flow.h
        attention = ch.to_attention()
        with self.beat(f"Masked and softmaxed, the scores become head 1’s attention matrix Aʰ; times its values, "
                       f"it gives head 1’s message, {d} wide.",
                       spoken=f"Masked and softmaxed, the scores become head 1’s attention matrix; times its values, "
                              f"it gives head 1’s message, {d} wide."):
            self.play(Transform(ch.s, attention[0]), FadeIn(ch.mask), ReplacementTransform(ch.s_text, ch.a_text),
                      *self.chain_note("The mask sets every future token’s score to −∞ before the softmax, so its "
                                       "weight is 0; each row of Aʰ sums to 1."), run_time=1.4)
            ch.remove(ch.s_text)
            self.play(ReplacementTransform(block.copy(), ch.v), FadeIn(ch.dot), FadeIn(VGroup(ch.v_name, ch.v_shape)),
                      run_time=1.2)
            self.play(GrowArrow(flow.arrows[2]), FadeIn(h.box), FadeIn(h.head_name),
                      TransformFromCopy(VGroup(ch.s, ch.v), h.blocks[0]), run_time=1.4)

    def show_heads_join(self, p):
        T, C, n = p["context"], p["d_model"], p["n_heads_multi"]
        d = head_width(p)
        flow = self.four_head_flow
        ch, h = flow.heads, flow.h
        colors = head_colors("four_heads", n)
        with self.beat(f"Every head does the same with its own blocks; side by side, the {n} messages join into "
                       f"{C} columns again."):
            for k in range(1, n):
                # the same chain on head k's own blocks: its message goes into H's k-th column block
                self.play(*self.recolor_chain(ch, colors[k]),
                          Indicate(flow.qkv.blocks[k], color=colors[k], scale_factor=1.1), run_time=0.5)
                self.play(TransformFromCopy(VGroup(ch.s, ch.v), h.blocks[k]), run_time=0.6)
            # the old note leaves before the new one comes, and the name cross-fades into the shape: a
            # text morphed into other text, or two notes faded through each other, read as garble mid-way
            note = self.chain_note(f"Each head has Q, K and V of shape {T}×{d}; its Aʰ is {T}×{T} and its "
                                   f"Hʰ = AʰVʰ is {T}×{d}.")
            self.play(*self.recolor_chain(ch, colors[0]), FadeTransform(h.head_name, h.shape_label),
                      FadeIn(h.name_label), *note[:-1], run_time=0.6)
            self.play(note[-1], run_time=0.4)
            h.remove(h.head_name)

    def show_four_head_count(self, results):
        flow, label = self.four_head_flow, self.labels["four_heads"]
        T, C, n = self.p["context"], self.p["d_model"], self.p["n_heads_multi"]
        same = self.parts["four_heads"] == self.parts["one_head"]
        with self.beat("W_O mixes them, and the rest is as before. Same layers, same sizes: "
                       f"{millions(self.parts['four_heads'][1])} parameters again." if same else
                       f"W_O mixes them, and the rest is as before: {millions(self.parts['four_heads'][1])} parameters."):
            self.play(GrowArrow(flow.arrows[3][0]), FadeIn(flow.arrows[3].label), FadeIn(flow.last))
            self.play(GrowArrow(flow.arrows[4]), FadeIn(flow.mlp), GrowArrow(flow.arrows[5]), FadeIn(flow.scores))
            # as before: only the final query row (Q's back card, each head's A, the joined H)
            strips = self.four_final_row = VGroup(get_row_strip(flow.qkv.box[0]), get_row_strip(flow.heads.q),
                                                  get_row_strip(flow.heads.s), get_row_strip(flow.h.box))
            self.play(LaggedStart(*(FadeIn(x) for x in strips), lag_ratio=0.2), run_time=1.0)
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
        # right of head 1's chain and its labels (the band under them is theirs)
        lines.move_to([0, CONTENT_BOTTOM + 0.05, 0], aligned_edge=DOWN)
        lines.align_to([self.four_head_flow.heads.s_shape.get_right()[0] + 0.3, 0, 0], LEFT)
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
            # the bar's first part starts where the flows did, clear of the names' column
            bar.shift(RIGHT * (FLOW_LEFT + 0.35 - bar.segments.get_left()[0]) + UP * (y - bar.segments.get_center()[1]))
            self.bars[model] = bar
        marks = VGroup(self.final_row, self.four_final_row, self.qkv_name, self.widths, self.slot_ends)
        with self.beat("Where do the parameters go? Each bar is one model, each part as long as its count."):
            self.play(FadeOut(marks), run_time=0.6)
            # each model's diagram folds into its bar, one model at a time (the others wait beside theirs)
            for model in comparison.MODEL_ORDER:
                bar = self.bars[model]
                self.play(ReplacementTransform(self.stand_in(self.flows[model]), bar.segments), run_time=1.0)
                self.play(FadeIn(VGroup(bar.labels, bar.counts, bar.small)), run_time=0.6)

    def show_first_layer(self, p):
        bar = self.bars["mlp"]
        hidden = next(s for s in bar.segments if s.part == "hidden layer")
        box = SurroundingRectangle(hidden, color=RECEIVER_COLOR, buff=0.06)
        formula = get_text(hidden.formula, font_size=SMALL_SIZE, color=RECEIVER_COLOR)
        formula.next_to(box, DOWN, buff=0.08)
        self.first_layer = VGroup(box, formula)
        # the voice rounds (about a million) and names the cause; the exact product stays on screen
        with self.beat(f"The baseline’s first layer alone holds about {millions(hidden.count, 0)} parameters, "
                       "because it reads the whole window at once; the attention models’ MLP reads just one row."):
            self.play(Create(box), FadeIn(formula))
            self.play(*self.swap_note("Its larger first MLP matrix helps explain its parameter count."))


def get_row_strip(rect, color=RECEIVER_COLOR, height=0.06) -> Rectangle:
    """The last (receiver) row of a box, as a strip along its bottom."""
    strip = Rectangle(width=rect.width, height=height).set_stroke(color, 1.5).set_fill(color, 0.9)
    return strip.move_to(rect.get_bottom(), aligned_edge=DOWN)


# ============================================================================================
# Scene 19 — The comparison
# ============================================================================================

LOSS_PLACES, PPL_PLACES, SECONDS_PLACES = 3, 2, 0
RUN_WORDS = {"mlp": "baseline", "one_head": "one-head", "four_heads": "four-head"}


class Plot(VGroup):
    """Built by get_plot: a plot frame (left and bottom axis lines) mapping data ranges onto a fixed
    scene rectangle; ticks and labels along each axis. `c2p(x, y)` and `p2c(point)` convert; a second
    plot with other ranges on the same rectangle is the same view zoomed."""

    def c2p(self, x: float, y: float | None = None) -> np.ndarray:
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        px = self.left + (x - x0) / (x1 - x0) * self.plot_w
        py = self.bottom + ((y - y0) / (y1 - y0) * self.plot_h if y is not None else 0.0)
        return np.array([px, py, 0.0])

    def p2c(self, point) -> tuple[float, float]:
        (x0, x1), (y0, y1) = self.x_range, self.y_range
        return (x0 + (point[0] - self.left) / self.plot_w * (x1 - x0),
                y0 + (point[1] - self.bottom) / self.plot_h * (y1 - y0))


def get_plot(x_range, x_step, y_range=(0.0, 1.0), y_step=None, *, left, bottom, width, height,
             x_count=False, x_title=None, y_title=None, tag="plot") -> Plot:
    """Axis lines, ticks and tick labels (counts with separators when x_count, else decimals with the
    step's own places); titles beside the axes."""
    plot = Plot()
    plot.x_range, plot.y_range = tuple(x_range), tuple(y_range)
    plot.left, plot.bottom, plot.plot_w, plot.plot_h = left, bottom, width, height
    axis_color = DIM_TEXT_COLOR
    x_axis = Line([left, bottom, 0], [left + width, bottom, 0]).set_stroke(axis_color, 2)
    plot.axes = VGroup(x_axis)
    if y_step is not None:
        plot.axes.add(Line([left, bottom, 0], [left, bottom + height, 0]).set_stroke(axis_color, 2))
    plot.x_ticks, plot.y_ticks = VGroup(), VGroup()
    n_x = int(round((x_range[1] - x_range[0]) / x_step))
    for k in range(n_x + 1):
        v = x_range[0] + k * x_step
        p = plot.c2p(v)
        mark = Line(p + DOWN * 0.06, p + UP * 0.06).set_stroke(axis_color, 2)
        label = (get_count(round(v), tag=f"{tag}_x", index=k, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR) if x_count
                 else get_number(v, comparison.tick_places(x_step), tag=f"{tag}_x", index=k, font_size=SMALL_SIZE,
                                 color=DIM_TEXT_COLOR))
        label.next_to(p, DOWN, buff=0.12)
        tick = VGroup(mark, label)
        tick.value, tick.axis = v, "x"
        plot.x_ticks.add(tick)
    if y_step is not None:
        n_y = int(round((y_range[1] - y_range[0]) / y_step))
        for k in range(n_y + 1):
            v = y_range[0] + k * y_step
            p = plot.c2p(x_range[0], v)
            mark = Line(p + LEFT * 0.06, p + RIGHT * 0.06).set_stroke(axis_color, 2)
            label = get_number(v, comparison.tick_places(y_step), tag=f"{tag}_y", index=k, font_size=SMALL_SIZE,
                               color=DIM_TEXT_COLOR).next_to(p, LEFT, buff=0.12)
            tick = VGroup(mark, label)
            tick.value, tick.axis = v, "y"
            plot.y_ticks.add(tick)
    plot.titles = VGroup()
    if x_title:
        t = get_text(x_title, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        t.next_to(plot.x_ticks, DOWN, buff=0.1).set_x(left + width / 2)
        plot.titles.add(t)
    if y_title:
        t = get_text(y_title, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).rotate(math.pi / 2)
        t.move_to([left - 0.9, bottom + height / 2, 0])      # fixed: a zoomed plot keeps its titles
        plot.titles.add(t)
    plot.add(plot.axes, plot.x_ticks, plot.y_ticks, plot.titles)
    return plot


def get_run_curve(run: dict, plot: Plot, from_step: int, color: str) -> VGroup:
    """One run's selection-loss trace as a polyline (`late`: the points from `from_step`; `early`: the
    segment into the first of them) and a dot at the step whose checkpoint was kept."""
    trace = [(t["step"], t["selection_loss"]) for t in run["trace"]]
    late_pts = [plot.c2p(s, v) for s, v in trace if s >= from_step]
    early_pts = [plot.c2p(s, v) for s, v in trace if s <= from_step]
    late = VMobject().set_points_as_corners(late_pts).set_stroke(color, 2.5, opacity=0.9)
    early = VMobject()
    if len(early_pts) > 1:
        early.set_points_as_corners(early_pts).set_stroke(color, 2.5, opacity=0.9)
    kept = next(t for t in run["trace"] if t["step"] == run["selected_step"])
    dot = Dot(plot.c2p(kept["step"], kept["selection_loss"]), radius=0.06, color=color)
    dot.set_stroke(BACKGROUND, 1.5)
    curve = VGroup(early, late, dot)
    curve.model, curve.seed, curve.early, curve.late, curve.dot = run["model"], run["seed"], early, late, dot
    curve.from_step = from_step
    return curve


def get_spread_cell(s, places: int, tag: str, index, color=TEXT_COLOR, font_size=LABEL_SIZE) -> VGroup:
    """mean ± std when two or more seeds exist, else the one run's value alone."""
    mean = get_number(s.mean, places, tag=tag, index=index, color=color, font_size=font_size)
    if s.std is None:
        cell = VGroup(mean)
        cell.mean, cell.std = mean, None
        return cell
    pm = get_text("±", font_size=font_size, color=DIM_TEXT_COLOR)
    std = get_number(s.std, places, tag=f"{tag}_std", index=index, color=DIM_TEXT_COLOR, font_size=font_size)
    cell = get_line(mean, pm, std, buff=0.1)
    cell.mean, cell.std = mean, std
    return cell


def get_run_grid(results: dict, seeds) -> VGroup:
    """Nine runs as tiles: a row per model (its name), a column per seed."""
    names = VGroup(*(get_text(model_title(results, m), font_size=LABEL_SIZE, color=MODEL_COLORS[m])
                     for m in models_in(results)))
    heads = VGroup(*(get_line("seed", get_count(s, tag="seed", index=s, font_size=LABEL_SIZE), font_size=LABEL_SIZE)
                     for s in seeds))
    tile_w, tile_h, gap = 1.3, 0.5, 0.18
    tiles = VGroup()
    for r, m in enumerate(models_in(results)):
        row = VGroup()
        have = {run["seed"] for run in comparison.runs_of(results, m)}
        for c, s in enumerate(seeds):
            tile = Rectangle(width=tile_w, height=tile_h).set_stroke(MODEL_COLORS[m], 2)
            tile.set_fill(MODEL_COLORS[m], 0.35 if s in have else 0.0)
            tile.move_to([c * (tile_w + gap), -r * (tile_h + gap), 0])
            tile.model, tile.seed = m, s
            row.add(tile)
        tiles.add(row)
    for name, row in zip(names, tiles):
        name.next_to(row, LEFT, buff=0.35)
    for head, c in zip(heads, range(len(seeds))):
        head.next_to(tiles[0][c], UP, buff=0.18)
    names_col_right = max(n.get_right()[0] for n in names)
    for n in names:
        n.shift(RIGHT * (names_col_right - n.get_right()[0]))
    grid = VGroup(names, heads, tiles)
    grid.names, grid.heads, grid.tiles = names, heads, tiles
    return grid


def get_protocol_list(results: dict) -> VGroup:
    """What all nine runs share, each number from the results file."""
    p, corpus = results["protocol"], results["corpus"]
    size = LABEL_SIZE
    C = lambda v, tag: get_count(v, tag=tag, font_size=size, color=RECEIVER_COLOR)    # noqa: E731
    lines = VGroup(
        get_line(C(p["n_stories"], "n_stories"), "TinyStories:", C(corpus["stories"]["train"], "stories_train"),
                 "train ·", C(corpus["stories"]["val"], "stories_val"), "validation ·",
                 C(corpus["stories"]["test"], "stories_test"), "test", font_size=size),
        get_line("one tokenizer,", C(p["vocab_size"], "vocab_size"), "tokens (words, punctuation, specials)",
                 font_size=size),
        get_line(C(p["context"], "context"), "-token windows", buff=0.04, font_size=size),
        get_line("a fixed budget:", C(p["steps"], "steps"), "updates of", C(p["batch_size"], "batch_size"), "windows",
                 font_size=size),
        get_line("keep the checkpoint with the lowest validation loss", font_size=size),
    ).arrange(DOWN, buff=0.2, aligned_edge=LEFT)
    return lines


def get_optimizer_column(results: dict, grid: VGroup) -> VGroup:
    """Each model's AdamW learning rate and weight decay (the protocol's, per model), on its row of runs,
    under one header; the numbers are tagged "lr" / "weight_decay" by model."""
    size = LABEL_SIZE
    rows = VGroup()
    for m, tiles in zip(models_in(results), grid.tiles):
        o = comparison.optimizer_of(results, m)
        lr = get_number(o.lr, comparison.decimal_places(o.lr), tag="lr", index=m, font_size=size,
                        color=MODEL_COLORS[m])
        wd = get_number(o.weight_decay, comparison.decimal_places(o.weight_decay), tag="weight_decay", index=m,
                        font_size=size, color=MODEL_COLORS[m])
        row = VGroup(lr, wd)
        row.model, row.lr, row.wd = m, lr, wd
        rows.add(row)
    header = VGroup(get_text("learning rate", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR),
                    get_text("weight decay", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR))
    x_lr = grid.tiles.get_right()[0] + 0.5
    lr_w = max(header[0].width, *(r.lr.width for r in rows))
    x_wd = x_lr + lr_w + 0.45
    wd_w = max(header[1].width, *(r.wd.width for r in rows))
    for row, tiles in zip(rows, grid.tiles):
        y = tiles.get_center()[1]
        row.lr.move_to([x_lr + lr_w, y, 0], aligned_edge=RIGHT)
        row.wd.move_to([x_wd + wd_w, y, 0], aligned_edge=RIGHT)
    header[0].move_to([x_lr + lr_w, grid.heads.get_center()[1], 0], aligned_edge=RIGHT)
    header[1].move_to([x_wd + wd_w, grid.heads.get_center()[1], 0], aligned_edge=RIGHT)
    column = VGroup(header, rows)
    column.header, column.rows = header, rows
    return column


def get_results_table(results: dict) -> VGroup:
    """One row per model: parameters, test loss and perplexity (mean ± sample std across seeds), wall
    time; numbers right-aligned in their columns."""
    columns = ("model", "parameters", "test loss", "perplexity = exp(loss)", "wall time (s)")
    size = LABEL_SIZE
    header = VGroup(*(get_text(c, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR) for c in columns))
    rows = []
    for m in models_in(results):
        color = MODEL_COLORS[m]
        cells = VGroup(
            get_text(model_title(results, m), font_size=size, color=color),
            get_count(comparison.parameter_of(results, m), tag="parameters", index=m, font_size=size),
            get_spread_cell(comparison.spread(results, m, "test_loss"), LOSS_PLACES, "test_loss", m, color, size),
            get_spread_cell(comparison.spread(results, m, "test_perplexity"), PPL_PLACES, "test_perplexity", m,
                            color, size),
            get_spread_cell(comparison.spread(results, m, "train_seconds"), SECONDS_PLACES, "train_seconds", m,
                            TEXT_COLOR, size),
        )
        cells.model = m
        rows.append(cells)
    grid = [header, *rows]
    widths = [max(r[c].width for r in grid) for c in range(len(columns))]
    gap, xs, x0 = 0.6, [], 0.0
    for w in widths:
        xs.append(x0)
        x0 += w + gap
    for y, row in enumerate(grid):
        yy = -0.55 * y
        for c, cell in enumerate(row):
            if c == 0:
                cell.move_to([xs[c], yy, 0], aligned_edge=LEFT)
            else:
                cell.move_to([xs[c] + widths[c], yy, 0], aligned_edge=RIGHT)
        base = baseline_y(row[0])
        for cell in row[1:]:
            lead = cell if hasattr(cell, "original_text") else next(
                x for x in cell.get_family() if hasattr(x, "original_text"))
            cell.shift(UP * (base - baseline_y(lead)))
    rule = Line([0, -0.28, 0], [x0 - gap, -0.28, 0]).set_stroke(DIM_TEXT_COLOR, 1)
    table = VGroup(header, rule, *rows)
    table.header, table.rule, table.rows = header, rule, VGroup(*rows)
    table.columns = columns
    return table


DOT_ROW = 0.3          # vertical step between the seeds of one model in the dot plot
DOT_BLOCK = 1.45       # vertical step between models


def get_seed_dots(results: dict, plot: Plot, key: str = "test_loss") -> VGroup:
    """Every run's test loss as a dot, a row per seed inside each model's band (so no two dots cover
    each other), a mean mark through the band; the seed beside each dot."""
    bands = VGroup()
    for r_i, m in enumerate(models_in(results)):
        color = MODEL_COLORS[m]
        top = plot.bottom + plot.plot_h - 0.3 - r_i * DOT_BLOCK
        runs = comparison.runs_of(results, m)
        dots, seeds = VGroup(), VGroup()
        s = comparison.spread(results, m, key)
        for k, run in enumerate(runs):
            y = top - k * DOT_ROW
            dot = Dot([plot.c2p(run[key])[0], y, 0], radius=0.07, color=color).set_stroke(BACKGROUND, 1)
            dot.value, dot.seed, dot.model = run[key], run["seed"], m
            dots.add(dot)
            # the seed on the side away from the mean mark, so the mark never runs through it
            side = RIGHT if run[key] >= s.mean else LEFT
            seeds.add(get_count(run["seed"], tag="dot_seed", index=(m, run["seed"]), font_size=SMALL_SIZE,
                                color=DIM_TEXT_COLOR).next_to(dot, side, buff=0.1))
        y_mid = top - (len(runs) - 1) * DOT_ROW / 2
        half = (len(runs) - 1) * DOT_ROW / 2 + 0.2
        mean = Line([plot.c2p(s.mean)[0], y_mid - half, 0], [plot.c2p(s.mean)[0], y_mid + half, 0])
        mean.set_stroke(color, 3)
        mean.value = s.mean
        label = get_number(s.mean, LOSS_PLACES, tag="dot_mean", index=m, font_size=LABEL_SIZE, color=color)
        label.next_to(mean, UP, buff=0.06)
        band = VGroup(dots, seeds, mean, label)
        band.model, band.dots, band.seeds, band.mean, band.label, band.spread = m, dots, seeds, mean, label, s
        band.y_mid, band.top = y_mid, top
        bands.add(band)
    return bands


def moved_to(mob, plot: Plot, value: float):
    """A copy of a dot or mean mark of the dot plot, where `value` lies on `plot`'s x axis."""
    return mob.copy().shift(RIGHT * (plot.c2p(value)[0] - mob.get_center()[0]))


def said_model(results: dict, model: str) -> str:
    """A model's name inside a sentence: its title in lower case ("four heads"), the baseline as such."""
    return "the baseline" if model == "mlp" else model_title(results, model).lower()


class TheComparison(LessonScene):
    """Scene 19: nine runs under one protocol; the validation curves, zoomed past the first steps; each
    run's test loss as a dot (seeds on their own rows), zoomed on the two attention models, whose gap
    is animated; the table with the spread across seeds, the wall times and their device; the caveats."""

    def construct(self):
        results = comparison.load_results()       # stops here, naming the file, if it is missing
        protocol = comparison.load_protocol()
        self.results, self.p, self.seeds = results, results["protocol"], protocol.seeds
        title = get_title("The comparison: three models, one protocol")
        with self.transition("title"):
            self.play(FadeIn(title))
        # --- Shot 1: nine runs, one protocol ---------------------------------------------------------
        self.shot("nine runs")
        self.show_runs()
        self.show_protocol()
        self.show_optimizer()
        # --- Shot 2: the validation curves, then closer -----------------------------------------
        self.shot("validation curves")
        self.show_curve_axes()
        self.show_curves()
        self.show_checkpoints()
        self.show_zoom()
        self.show_fixed_budget()
        # --- Shot 3: test loss, seed by seed ----------------------------------------------------
        self.shot("test loss")
        self.show_test_dots()
        self.show_means()
        self.show_slices()
        self.show_same_parameters()
        self.show_clean_pair()
        self.show_gap()
        # --- Shot 4: the table, the device, what it shows ---------------------------------------
        self.shot("results")
        self.show_table()
        self.show_times()
        self.show_no_guarantee()

    # helpers -----------------------------------------------------------------------------------
    def note_at(self, text: str):
        note = get_fine_print(text, max_width=SAFE_WIDTH)
        return note.move_to([0, CONTENT_BOTTOM + 0.05, 0], aligned_edge=DOWN)

    def fade_out(self, *groups) -> list:
        """FadeOuts of what the stage holds of these groups: a group that is on stage (at the top or as
        part of a group there, which it then leaves) fades whole; a group made on the spot fades its
        parts that are."""
        on_stage = {id(m) for top in self.mobjects for m in top.get_family()}

        def parts(g):
            if id(g) in on_stage:
                return [g]
            return [p for sub in g.submobjects for p in parts(sub)]
        return [FadeOut(m) for g in groups for m in parts(g)]

    def swap_note(self, text: str):
        new = self.note_at(text)
        old = getattr(self, "note", None)
        self.note = new
        return [FadeOut(old), FadeIn(new)] if old is not None else [FadeIn(new)]

    # shot 1 ------------------------------------------------------------------------------------
    def show_runs(self):
        grid = self.grid = get_run_grid(self.results, self.seeds)
        grid.move_to([-1.3, 0, 0]).align_to([0, CONTENT_TOP, 0], UP)
        n = len(comparison.MODEL_ORDER) * len(self.seeds)
        with self.beat(f"Each model was trained {count_word(len(self.seeds))} times, from seeds "
                       f"{comparison.seeds_words(self.seeds)}: {count_word(n)} runs in all."):
            self.play(LaggedStart(*(FadeIn(t, shift=0.2 * RIGHT) for t in grid.names), lag_ratio=0.3))
            self.play(FadeIn(grid.heads),
                      LaggedStart(*(FadeIn(t, scale=0.8) for row in grid.tiles for t in row), lag_ratio=0.08),
                      run_time=1.6)
        note = comparison.runs_note(self.results, self.seeds)
        if note:
            with self.beat(f"This results file holds {len(self.results['runs'])} of {n} runs so far; "
                           "only what it holds is shown."):
                self.play(Indicate(grid.tiles, color=RECEIVER_COLOR))

    def show_protocol(self):
        p = self.p
        shared = self.shared = get_protocol_list(self.results)
        shared.next_to(self.grid, DOWN, buff=0.45).align_to(self.grid.tiles, LEFT).shift(LEFT * 0.3)
        brace = Line(self.grid.tiles.get_corner(DOWN + LEFT) + DOWN * 0.15,
                     self.grid.tiles.get_corner(DOWN + RIGHT) + DOWN * 0.15).set_stroke(RECEIVER_COLOR, 2)
        self.brace = brace
        with self.beat(f"All {count_word(len(self.results['runs']))} share one protocol: the same "
                       f"{fmt_int(p['n_stories'])} stories, one tokenizer, {p['context']}-token windows and "
                       f"a fixed budget of {fmt_int(p['steps'])} updates."):
            self.play(Create(brace))
            self.play(LaggedStart(*(FadeIn(line, shift=0.1 * UP) for line in shared), lag_ratio=0.25), run_time=2.0,
                      *self.swap_note(f"Same {fmt_int(p['n_stories'])}-document TinyStories subset, tokenizer, "
                                      f"{p['context']}-token context, {fmt_int(p['steps'])}-update budget and "
                                      f"validation selection. Seeds {comparison.seeds_words(self.seeds)}."))

    def show_optimizer(self):
        """The one part of the protocol that differs by model: AdamW's learning rate and weight decay."""
        column = self.optimizer = get_optimizer_column(self.results, self.grid)
        attention = [m for m in models_in(self.results) if m != "mlp"]
        base = comparison.optimizer_of(self.results, "mlp") if "mlp" in models_in(self.results) else None
        same = len(attention) == 2 and comparison.same_optimizer(self.results, attention)
        if base is not None and same:
            o = comparison.optimizer_of(self.results, attention[0])
            places = comparison.decimal_places
            text = (f"The optimizer is the same, but its settings differ: the baseline’s learning rate is "
                    f"{fmt(base.lr, places(base.lr))}, weight decay {fmt(base.weight_decay, places(base.weight_decay))}; "
                    f"both attention models share {fmt(o.lr, places(o.lr))} and "
                    f"{fmt(o.weight_decay, places(o.weight_decay))}.")
            lower = base.lr < o.lr and base.weight_decay < o.weight_decay
            spoken = ("The optimizer is the same, but its settings differ: the baseline uses a "
                      + ("smaller learning rate and weight decay than " if lower else "other learning rate and weight "
                         "decay than ")
                      + "the two attention models, which share theirs.")
        else:
            text = spoken = "The optimizer is the same; its settings differ by model: each row's learning rate and weight decay."
        with self.beat(text, spoken=spoken):
            self.play(FadeIn(column.header), LaggedStart(*(FadeIn(r, shift=0.15 * LEFT) for r in column.rows),
                                                         lag_ratio=0.3), run_time=1.4)
            if same:
                pair = VGroup(*(r for r in column.rows if r.model in attention))
                self.play(Indicate(pair, color=RECEIVER_COLOR, scale_factor=1.05))
            self.play(*self.swap_note("AdamW learning rate and weight decay per model, as the trainer's protocol "
                                      "ran them; everything else is shared."))

    # shot 2 ------------------------------------------------------------------------------------
    def get_curve_plot(self, from_step: int) -> Plot:
        p = self.p
        lo, hi, step = comparison.loss_range(self.results, from_step)
        x_step = p["eval_every"] * (2 if from_step == 0 else 1)
        return get_plot((from_step, p["steps"]), x_step, (lo, hi), step, left=-4.9, bottom=-1.45, width=8.2,
                        height=4.0, x_count=True, x_title="update step", y_title="validation loss",
                        tag="zoom" if from_step else "curve")

    def get_legend(self) -> VGroup:
        rows = VGroup()
        for m in models_in(self.results):
            swatch = Line(LEFT * 0.2, RIGHT * 0.2).set_stroke(MODEL_COLORS[m], 4)
            rows.add(VGroup(swatch, get_text(model_title(self.results, m), font_size=LABEL_SIZE,
                                             color=MODEL_COLORS[m])).arrange(RIGHT, buff=0.15))
        rows.arrange(DOWN, buff=0.22, aligned_edge=LEFT)
        dot_row = VGroup(Dot(radius=0.06, color=TEXT_COLOR),
                         get_text("checkpoint", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)).arrange(RIGHT, buff=0.15)
        dot_row.next_to(rows, DOWN, buff=0.3, aligned_edge=LEFT)
        legend = VGroup(rows, dot_row)
        legend.rows, legend.dot_row = rows, dot_row
        return legend.move_to([5.3, 1.6, 0])

    def show_curve_axes(self):
        p = self.p
        plot = self.plot = self.get_curve_plot(0)
        legend = self.legend = self.get_legend()
        with self.transition("to the curves"):
            # the run tiles stay: each becomes its run's first point on the plot
            self.play(FadeOut(VGroup(self.grid.heads, self.shared, self.brace, self.note, self.optimizer)),
                      *(ReplacementTransform(name, row[1]) for name, row in zip(self.grid.names, legend.rows)),
                      run_time=1.0)
            self.note = None
        # one marker per evaluation (every eval_every updates), from the exported traces
        marks = self.marks = VGroup(*(
            VGroup(*(Dot(plot.c2p(t["step"], t["selection_loss"]), radius=0.035, color=MODEL_COLORS[r["model"]])
                     for t in r["trace"])) for r in self.results["runs"]))
        by_step = sorted({t["step"] for r in self.results["runs"] for t in r["trace"]})
        columns = [VGroup(*(m for run, dots in zip(self.results["runs"], marks) for t, m in zip(run["trace"], dots)
                            if t["step"] == step)) for step in by_step]
        with self.beat(f"Every {fmt_int(p['eval_every'])} updates, each run’s validation loss is measured on the "
                       f"first {fmt_int(p['selection_windows'])} validation windows: minus the log of the probability "
                       "it gave the true next word, averaged. Lower is better."):
            self.play(Create(plot.axes), FadeIn(plot.x_ticks), FadeIn(plot.y_ticks), FadeIn(plot.titles))
            # each run's tile shrinks into its first measured point; a tile with no run leaves
            tiles = {(t.model, t.seed): self.stand_in(t) for row in self.grid.tiles for t in row}
            firsts = {(r["model"], r["seed"]): dots[0] for r, dots in zip(self.results["runs"], marks) if len(dots)}
            self.play(*(ReplacementTransform(t, firsts[key]) if key in firsts else FadeOut(t)
                        for key, t in tiles.items()), run_time=1.2)
            moved = {id(d) for d in firsts.values()}
            later = [VGroup(*(m for m in c if id(m) not in moved)) for c in columns]
            self.play(LaggedStart(*(FadeIn(c, scale=0.5) for c in later if len(c)), lag_ratio=0.25), run_time=2.0)

    def show_curves(self):
        plot, legend = self.plot, self.legend
        split = self.p["eval_every"]            # the zoom keeps the part from here on
        curves = self.curves = VGroup(*(get_run_curve(r, plot, split, MODEL_COLORS[r["model"]])
                                        for r in self.results["runs"]))
        self.full_points = [c.late.points.copy() for c in curves]      # as first drawn (the zoom moves them)
        with self.beat("The three seeds of each model draw almost the same curve: their lines overlap."):
            for m, row in zip(models_in(self.results), legend.rows):
                mine = [c for c in curves if c.model == m]
                self.play(Create(VGroup(*(VGroup(c.early, c.late) for c in mine))), FadeIn(row[0]), run_time=1.2)
            self.play(FadeOut(self.marks), run_time=0.5)     # the lines now join the scored points

    def show_checkpoints(self):
        """One word for the kept parameters, here and in scene 20: a checkpoint (the trainer's checkpoint.pt
        is the lowest-selection-loss state; the seed-11 checkpoints are those, exported)."""
        curves = self.curves
        early = [m for m in models_in(self.results) if comparison.kept_early(self.results, m)]
        # "dot" is kept for the test plot's one dot per run (a listener heard two things called "the dot")
        text = ("Each run keeps a checkpoint, a copy of its parameters, at its lowest point, marked on its curve. "
                "Only that checkpoint meets the test stories.")
        with self.beat(text):
            self.play(LaggedStart(*(FadeIn(c.dot, scale=0.5) for c in curves), lag_ratio=0.08),
                      FadeIn(self.legend.dot_row), run_time=1.2)
        if early:
            m = early[0]
            steps = sorted({r["selected_step"] for r in comparison.runs_of(self.results, m)})
            with self.beat(f"The baseline’s checkpoint comes early, at step {fmt_int(steps[0])}; after that its "
                           "validation loss rises again." if m == "mlp" and len(steps) == 1 else
                           f"{model_title(self.results, m)} keeps an early checkpoint; its validation loss rises "
                           "again."):
                rings = self.rings = VGroup(*(Circle(radius=0.16).set_stroke(RECEIVER_COLOR, 2.5).move_to(c.dot)
                                              for c in curves if c.model == m))
                later = VGroup(*(c.late for c in curves if c.model == m))
                self.play(LaggedStart(*(Create(r) for r in rings), lag_ratio=0.2))
                self.play(later.animate.set_stroke(width=5), run_time=0.8)
                self.play(later.animate.set_stroke(width=2.5), run_time=0.6)

    def show_zoom(self):
        from_step = self.p["eval_every"]
        old = self.plot
        new = self.zoom = self.get_curve_plot(from_step)
        zoomed = self.zoom_curves = VGroup(*(get_run_curve(r, new, from_step, MODEL_COLORS[r["model"]])
                                             for r in self.results["runs"]))
        lo, _, step = comparison.loss_range(self.results, from_step)
        order = comparison.ranking(self.results, "selection_loss")
        names = [model_title(self.results, m) for m in order]
        with self.beat(f"Zoom in, from step {fmt_int(from_step)} on: the models pull apart. Lowest is "
                       f"{names[0].lower()}, then {names[1].lower()}; the baseline stays highest."
                       if order[-1] == "mlp" else
                       f"Zoom in, from step {fmt_int(from_step)} on: the models pull apart. From lowest: "
                       f"{', '.join(names)}."):
            # first what would cut across the new view (the rings, the step-1 segments, the old ticks)...
            self.play(*(FadeOut(c.early) for c in self.curves), *(FadeOut(r) for r in getattr(self, "rings", [])),
                      *(FadeOut(t) for t in [*old.x_ticks, *old.y_ticks]), run_time=0.6)
            # ...then the curves and their dots move to the new ranges, and the new ticks arrive in place
            self.play(*(Transform(c.late, z.late) for c, z in zip(self.curves, zoomed)),
                      *(Transform(c.dot, z.dot) for c, z in zip(self.curves, zoomed)), run_time=1.8)
            self.play(*(FadeIn(t) for t in [*new.x_ticks, *new.y_ticks]), run_time=0.6)
            for m in order:
                self.play(*(Indicate(c.late, color=MODEL_COLORS[m], scale_factor=1.0) for c in self.curves
                            if c.model == m), run_time=0.7)

    def show_fixed_budget(self):
        """The runs whose checkpoint is the budget's last step: still improving when it ran out."""
        steps = self.p["steps"]
        last = {m: comparison.kept_last(self.results, m) for m in models_in(self.results)}
        ringed = [c for c in self.curves if c.seed in last[c.model]]
        self.budget_rings = VGroup(*(Circle(radius=0.13).set_stroke(RECEIVER_COLOR, 2.5).move_to(c.dot)
                                     for c in ringed))
        if not ringed:
            return
        every = [m for m in last if last[m] and len(last[m]) == len(comparison.runs_of(self.results, m))]
        some = [m for m in last if last[m] and m not in every]
        parts = [f"every {RUN_WORDS[m]} run" for m in every]
        for m in some:
            n = len(comparison.runs_of(self.results, m))
            parts.append(f"{count_word(len(last[m]))} of the {count_word(n)} {RUN_WORDS[m]} runs")
        who = " and ".join(parts)
        with self.beat(f"{who[0].upper() + who[1:]} kept the last step, {fmt_int(steps)}, still improving: "
                       "a fixed-budget result, not finished training."):
            self.play(LaggedStart(*(Create(r) for r in self.budget_rings), lag_ratio=0.15), run_time=1.2)
            self.play(Indicate(self.zoom.x_ticks[-1], color=RECEIVER_COLOR))

    # shot 3 ------------------------------------------------------------------------------------
    def get_dot_plot(self, models) -> Plot:
        values = [r["test_loss"] for m in models for r in comparison.runs_of(self.results, m)]
        if len(models) == len(models_in(self.results)):      # room for the curves' kept points (show_slices)
            values += [r["selection_loss"] for m in models for r in comparison.runs_of(self.results, m)]
        lo, hi, step = comparison.value_range(values)
        # the full plot also carries the curves' kept points and the validation averages: "loss"
        title = "test loss" if len(models) < 3 else "loss"
        return get_plot((lo, hi), step, left=-3.0, bottom=-1.5, width=8.8, height=4.2, x_title=title,
                        tag="dots_zoom" if len(models) < 3 else "dots")

    def show_test_dots(self):
        plot = self.dot_plot = self.get_dot_plot(models_in(self.results))
        bands = self.bands = get_seed_dots(self.results, plot)
        labels = self.row_labels = VGroup()
        for band in bands:
            m = band.model
            label = VGroup(get_text(model_title(self.results, m), font_size=LABEL_SIZE, color=MODEL_COLORS[m]),
                           get_line(get_count(comparison.parameter_of(self.results, m), tag="dot_parameters", index=m,
                                              font_size=SMALL_SIZE, color=MODEL_COLORS[m]),
                                    "parameters", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR))
            label.arrange(DOWN, buff=0.08, aligned_edge=RIGHT)
            label.move_to([plot.left - 0.3, band.y_mid, 0], aligned_edge=RIGHT)
            label.model = m
            labels.add(label)
        # the curves give way to the test plot as it comes in
        self.give_way(VGroup(self.plot.axes, self.plot.titles, self.zoom.x_ticks, self.zoom.y_ticks,
                             *(VGroup(c.late, c.dot) for c in self.curves), self.legend,
                             getattr(self, "budget_rings", VGroup())))
        with self.beat("Each checkpoint is then scored once on the test stories, which no run trained on: "
                       "one dot per run."):
            self.play(Create(plot.axes), FadeIn(plot.x_ticks), FadeIn(plot.titles),
                      LaggedStart(*(FadeIn(label[0]) for label in labels), lag_ratio=0.2))
            self.play(LaggedStart(*(FadeIn(VGroup(b.dots, b.seeds)) for b in bands), lag_ratio=0.3), run_time=1.5)

    def show_means(self):
        bands = self.bands
        # all three as shown, one rule (LOSS_PLACES), so the gap said later (0.064) is the difference of
        # what was heard, not of 3.36 and 3.29
        words = "; ".join(f"{said_model(self.results, b.model)} {fmt(b.spread.mean, LOSS_PLACES)}" for b in bands)
        with self.beat(f"On average: {words}.", spoken=f"On average, the test loss is: {words}."):
            for b in bands:
                self.play(Create(b.mean), FadeIn(b.label), run_time=0.7)

    def show_slices(self):
        """Why the test dots sit left of the curves' kept points: two slices of validation data."""
        sl = self.slices = comparison.loss_slices(self.results)
        plot = self.dot_plot
        marks = self.slice_marks = VGroup()
        for b in self.bands:
            sel, val, _ = sl.means[b.model]
            color = MODEL_COLORS[b.model]
            y = b.top - (len(b.dots) - 1) * DOT_ROW - 0.26       # a row of its own, under the seeds
            ring = Circle(radius=0.09).set_stroke(color, 2.5).move_to([plot.c2p(sel)[0], y, 0])
            ring.value = sel
            link = DashedLine(ring.get_left(), [b.mean.get_center()[0] + 0.05, y, 0], dash_length=0.07)
            link.set_stroke(color, 1.5, opacity=0.7)
            diamond = Square(side_length=0.13).rotate(math.pi / 4).set_stroke(TEXT_COLOR, 1.5)
            diamond.set_fill(color, 0.9).move_to([plot.c2p(val)[0], y, 0])
            diamond.value = val
            mark = VGroup(ring, link, diamond)
            mark.model, mark.ring, mark.link, mark.diamond = b.model, ring, link, diamond
            marks.add(mark)
        # a key in the plot's empty top-left corner (the baseline's band lies far right)
        ring_key = Circle(radius=0.09).set_stroke(TEXT_COLOR, 2.5)
        diamond_key = Square(side_length=0.13).rotate(math.pi / 4).set_stroke(TEXT_COLOR, 1.5).set_fill(TEXT_COLOR, 0.9)
        ring_name = VGroup(ring_key, get_text(f"the curve’s kept point:\nfirst {fmt_int(sl.selection_windows)} "
                                              "validation windows", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR,
                                              line_spacing=0.8))
        diamond_name = VGroup(diamond_key, get_text(f"all {fmt_int(sl.val_targets)} validation\nwindows",
                                                    font_size=SMALL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.8))
        for key in (ring_name, diamond_name):
            key.arrange(RIGHT, buff=0.15)
        diamond_name.next_to(ring_name, DOWN, buff=0.15, aligned_edge=LEFT)
        VGroup(ring_name, diamond_name).move_to([plot.left + 0.25, plot.bottom + plot.plot_h, 0], aligned_edge=UP + LEFT)
        self.slice_names = VGroup(ring_name, diamond_name)
        below = sorted({fmt(sl.below_curve(m), 2) for m in sl.means})
        gap_words = f"about {below[0]}" if len(below) == 1 else f"{below[0]} to {below[-1]}"
        # the seed averages, not each run: one baseline run alone sits 0.033 from its test loss
        within = math.ceil(max(sl.full_val_to_test(m) for m in sl.means) * 100) / 100
        # two beats, one marker each (a listener could not hold both slices in one): the rings, then the
        # diamonds; heard, not seen: no "left of", each marker named by what it is
        # why fewer windows give a higher loss: those windows are harder than the rest, which the next
        # beat shows (over all validation windows each seed average lands within 0.03 of its test loss)
        harder = (", harder than the rest", ", which turn out harder than the rest") if sl.selection_harder else ("", "")
        with self.beat(f"The test dots sit {gap_words} left of the curves’ rings: the curves used only the first "
                       f"{fmt_int(sl.selection_windows)} validation windows{harder[0]}.",
                       spoken=f"The test losses are {gap_words} lower than the curves' best points. That's because "
                              f"the curves used only the first {fmt_int(sl.selection_windows)} validation "
                              f"windows{harder[1]}."):
            self.play(LaggedStart(*(Create(m.ring) for m in marks), lag_ratio=0.2), FadeIn(ring_name), run_time=1.0)
            self.play(LaggedStart(*(Create(m.link) for m in marks), lag_ratio=0.2), run_time=0.8)
        with self.beat(f"Scored over all {fmt_int(sl.val_targets)} validation windows, the diamonds, each model's seed "
                       f"average lands within {fmt(within, 2)} of its test loss.",
                       spoken=f"Scored over the whole validation split instead, each model's "
                              f"average over its seeds lands within {fmt(within, 2)} of its test loss."):
            self.play(LaggedStart(*(FadeIn(m.diamond, scale=0.5) for m in marks), lag_ratio=0.2),
                      FadeIn(diamond_name), run_time=1.0)

    def show_same_parameters(self):
        pair = ("one_head", "four_heads")
        old = self.dot_plot
        new = self.dot_zoom = self.get_dot_plot(pair)
        bands = {b.model: b for b in self.bands}
        counts = [label[1] for label in self.row_labels if label.model in pair]
        same = comparison.parameter_of(self.results, pair[0]) == comparison.parameter_of(self.results, pair[1])
        anims = []
        for m, b in bands.items():
            if m in pair:
                moved = VGroup(*(moved_to(d, new, d.value) for d in b.dots))
                anims += [Transform(d, t) for d, t in zip(b.dots, moved)]
                anims += [Transform(sd, sd.copy().shift(RIGHT * (new.c2p(d.value)[0] - d.get_center()[0])))
                          for sd, d in zip(b.seeds, b.dots)]
                lift = UP * (0.3 if b.spread.std is not None else 0.0)
                anims += [Transform(b.mean, moved_to(b.mean, new, b.mean.value)),
                          Transform(b.label, moved_to(b.label, new, b.mean.value).shift(lift))]
        # what lies outside the new view leaves first, in place (nothing slides off the frame), with
        # the old ticks; the new ticks arrive where they belong once the dots have moved
        leaving = [VGroup(b.dots, b.seeds, b.mean, b.label) for m, b in bands.items() if m not in pair]
        leaving += [next(l for l in self.row_labels if l.model not in pair), *getattr(self, "slice_marks", []),
                    *getattr(self, "slice_names", []), *old.x_ticks]
        stds = VGroup()
        for m in pair:
            b, s = bands[m], bands[m].spread
            if s.std is not None:
                y = b.top + 0.3                      # its own row, above the seeds
                x0, x1 = new.c2p(s.mean - s.std)[0], new.c2p(s.mean + s.std)[0]
                bar = VGroup(Line([x0, y, 0], [x1, y, 0]),
                             Line([x0, y - 0.08, 0], [x0, y + 0.08, 0]), Line([x1, y - 0.08, 0], [x1, y + 0.08, 0]))
                bar.set_stroke(MODEL_COLORS[m], 2.5, opacity=0.8)
                name = get_text("mean ± sd", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).next_to(bar, RIGHT, buff=0.12)
                stds.add(VGroup(bar, name))
        self.stds = stds
        with self.beat(f"Zoom in on the two attention models. They have exactly the same number of parameters: "
                       f"{millions(comparison.parameter_of(self.results, pair[0]))} each." if same else
                       "Zoom in on the two attention models."):
            self.play(*self.fade_out(*leaving), run_time=0.6)
            self.play(*anims, run_time=1.8)
            # the axis now carries test dots only: its title says so
            self.play(*(FadeIn(t) for t in new.x_ticks), FadeTransform(old.titles[0], new.titles[0]), run_time=0.5)
            self.play(*(Indicate(c, color=RECEIVER_COLOR) for c in counts), FadeIn(stds))

    def show_clean_pair(self):
        """Why one head against four heads is the pair to compare, said where a listener asks it: right
        after their equal parameter counts. Only the attention models have a position table, and (from
        the protocol) they share their optimizer settings, which the baseline does not."""
        pair = ("one_head", "four_heads")
        shared = comparison.same_optimizer(self.results, pair)
        with self.beat("Both also have a position table and the same optimizer settings, unlike the baseline: so "
                       "one head against four heads is the clean comparison here." if shared else
                       "Only these two have a position table: one head against four heads is the closest "
                       "comparison here."):
            self.play(*self.swap_note("The comparison does not isolate the effect of position encoding, because it "
                                      "does not train a position-free attention ablation. Head count, total width, "
                                      "parameter count, measured losses and device timings must be distinguished."))

    def show_gap(self):
        better, worse = "four_heads", "one_head"
        bands = {b.model: b for b in self.bands}
        gap = comparison.mean_gap(self.results, better, worse)
        new = self.dot_zoom
        xb, xw = new.c2p(bands[better].spread.mean)[0], new.c2p(bands[worse].spread.mean)[0]
        y = bands[worse].top + 1.0                        # above the worse model's band and its labels
        arrow = get_arrow([xw, y, 0], [xb, y, 0], color=RECEIVER_COLOR, buff=0.0)
        number = get_number(gap, LOSS_PLACES, tag="gap", font_size=LABEL_SIZE, color=RECEIVER_COLOR)
        number.next_to(arrow, UP, buff=0.08)
        guides = VGroup(*(DashedLine([x, y, 0], [x, bands[m].top + 0.2, 0], dash_length=0.06)
                          .set_stroke(RECEIVER_COLOR, 1.2, opacity=0.6) for x, m in ((xw, worse), (xb, better))))
        self.gap = VGroup(arrow, number, guides)
        apart = comparison.runs_apart(self.results, better, worse)
        spread_said = ""
        if all(bands[m].spread.std is not None for m in (better, worse)):
            times = round(comparison.gap_in_spreads(self.results, better, worse))
            widest = comparison.largest_std(self.results, (better, worse))
            # named: against the other model's spread the same gap is another multiple
            wide_model = comparison.widest_spread_model(self.results, (better, worse))
            spread_said = (f", about {count_word(times)} times the seed-to-seed standard deviation of "
                           f"{said_model(self.results, wide_model)}")
            self.widest_std = widest
        # after the clean-comparison sentence, the result of that comparison
        with self.beat(f"And every four-head run beats every one-head run: lower by "
                       f"{fmt(gap, LOSS_PLACES)} on average{spread_said}." if apart else
                       f"Four heads are lower by {fmt(gap, LOSS_PLACES)} on average{spread_said}, "
                       "but some seeds overlap."):
            self.play(Create(guides), GrowArrow(arrow), FadeIn(number))
            self.play(Indicate(bands[better].dots, color=RECEIVER_COLOR, scale_factor=1.3))
            if spread_said:
                self.play(*(Indicate(bar[0], color=RECEIVER_COLOR, scale_factor=1.2) for bar in self.stds))

    # shot 4 ------------------------------------------------------------------------------------
    def show_table(self):
        table = self.table = get_results_table(self.results)
        table.move_to([0, 1.0, 0])
        head = get_text(f"mean ± sample standard deviation over seeds {comparison.seeds_words(self.seeds)}",
                        font_size=SMALL_SIZE, color=RECEIVER_COLOR).next_to(table, DOWN, buff=0.3).align_to(table, LEFT)
        self.spread_note = head
        # the dots give way to the table as it comes in
        # (the zoomed plot's own axis title, which took over the old one's, goes too)
        self.give_way(VGroup(self.dot_plot.axes, self.dot_plot.titles, self.dot_zoom.titles, self.dot_zoom.x_ticks,
                             *(VGroup(b.dots, b.seeds, b.mean, b.label) for b in self.bands if b.model != "mlp"),
                             self.row_labels, self.stds, self.gap, *([self.note] if self.note else [])))
        self.note = None
        ppl = {m: comparison.spread(self.results, m, "test_perplexity").mean for m in ("four_heads", "one_head")}
        with self.beat(f"Perplexity is e to the loss: {fmt(ppl['four_heads'], PPL_PLACES)} against "
                       f"{fmt(ppl['one_head'], PPL_PLACES)}, as if choosing among about {fmt(ppl['four_heads'], 0)} "
                       f"or {fmt(ppl['one_head'], 0)} tokens. Each is a mean over {count_word(len(self.seeds))} "
                       "seeds.",
                       spoken=f"Perplexity is e to the power of the loss: as if choosing among about "
                              f"{fmt(ppl['four_heads'], 0)} tokens for four heads, {fmt(ppl['one_head'], 0)} for one "
                              f"head. Each is a mean over {count_word(len(self.seeds))} seeds."):
            self.play(FadeIn(table.header), Create(table.rule))
            self.play(LaggedStart(*(FadeIn(VGroup(*row[:4])) for row in table.rows), lag_ratio=0.3), run_time=1.5)
            self.play(FadeIn(head))

    def show_times(self):
        table = self.table
        device = get_text(comparison.device_line(self.results), font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        device.next_to(self.spread_note, DOWN, buff=0.15).align_to(self.spread_note, LEFT)
        self.device = device
        threads = self.p["threads"]
        times = VGroup(*(row[4] for row in table.rows))
        rough = self.rough = get_text("rough: not a speed benchmark", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        rough.next_to(times, DOWN, buff=0.25).align_to(times, RIGHT)
        if rough.get_right()[0] > SAFE_WIDTH / 2:
            rough.shift(LEFT * (rough.get_right()[0] - SAFE_WIDTH / 2))
        while any(touches(rough, other, 0.1) for other in (self.spread_note, device)):
            rough.shift(DOWN * 0.3)                  # a narrow table (one seed): below the notes instead
        slow_model, fastest, slowest = comparison.timing_range(self.results)
        cpu = comparison.cpu_name(self.results)
        on = f"an {cpu} CPU" if cpu and cpu[0] in "AEIOU" else f"a {cpu} CPU" if cpu else "a CPU"
        # the model whose runs' times differ most (same work, a shared machine), named in both lines;
        # the voice says minutes, the screen the table's seconds
        n = len(comparison.runs_of(self.results, slow_model))
        who = f"The {count_word(n)} {RUN_WORDS[slow_model]} runs" if n > 1 else f"The {RUN_WORDS[slow_model]} run"
        took = (f"{fmt_int(round(fastest))} to {fmt_int(round(slowest))} seconds" if n > 1 else
                f"{fmt_int(round(fastest))} seconds")
        took_said = (f"between about {round(fastest / 60)} and {round(slowest / 60)} minutes" if n > 1 else
                     f"about {round(fastest / 60)} minutes")
        with self.beat(f"Training ran on {on} limited to {count_word(threads)} threads. {who}, for example, took "
                       f"{took}, so read the wall times loosely.",
                       spoken=f"Training ran on {on.replace(' CPU', ' processor')} limited to {count_word(threads)} "
                              f"threads. {who}, for example, took {took_said}, so treat training times as rough."):
            self.play(LaggedStart(*(FadeIn(row[4]) for row in table.rows), lag_ratio=0.2), FadeIn(device),
                      FadeIn(rough))
            self.play(*self.swap_note("Wall times of runs that shared the machine with other jobs: rough timings, "
                                      "not a speed benchmark."))

    def show_no_guarantee(self):
        rows = {row.model: row for row in self.table.rows}
        helped = comparison.heads_helped(self.results)
        mark = self.helped_box = SurroundingRectangle(VGroup(rows["one_head"][2], rows["four_heads"][2]),
                                                      color=RECEIVER_COLOR, buff=0.1)
        # the last beat holds: the table stays to be read before the scene ends
        with self.beat("More heads helped this experiment. That is no guarantee for other data, other head counts, "
                       "or the stories each model writes." if helped else
                       "More heads did not help this experiment: they are a capacity choice to test.", look=3.0):
            self.play(Create(mark),
                      *self.swap_note("More heads helped this experiment; this is not a guarantee for every dataset, "
                                      "head count or generated continuation." if helped else
                                      "More heads are a capacity choice to test, not an automatic improvement."))

# ============================================================================================
# Scene 20 — Inside the trained models
# ============================================================================================

KIND_TITLES = {"training": "Training prompt", "held_out": "Held-out prompt", "outside_domain": "Outside-domain prompt"}
KIND_ORDER = ("training", "held_out", "outside_domain")
KIND_WORDS = {"training": "training", "held_out": "held-out", "outside_domain": "outside"}
MODEL_WORDS = {"mlp": "the baseline", "one_head": "the one-head model", "four_heads": "the four-head model"}
LINE_Y = 0.05               # the story line's boxes (the arrows arc above it)
LINE_ENTRIES = 18           # boxes on the story line: one line at a legible size
TOKEN_NAMES = {'"': "the quote mark", ",": "the comma", ".": "the full stop", "<BOS>": "the start token"}
HEAT_SIDE = 4.2
UNK = "<UNK>"


def token_name(token: str) -> str:
    """How a sentence names a token: punctuation by its name, a word in quotes."""
    return TOKEN_NAMES.get(token, token_label(token))


def spoken_token(token: str) -> str:
    return TOKEN_NAMES.get(token, token)


def get_story_words(tokens, width: float, size: float = LABEL_SIZE + 2) -> VGroup:
    """The story's tokens as separate words (so each can travel), wrapped into lines of `width`."""
    words = [get_text(t, font_size=size) for t in tokens]
    space, line_h = 0.16, get_text("Mg", font_size=size).height * 1.55
    lines, line, x = [], [], 0.0
    for w in words:
        if line and x + w.width > width:
            lines.append(line)
            line, x = [], 0.0
        line.append(w)
        x += w.width + space
    lines.append(line)
    ref = get_text("Mx", font_size=size).move_to([0, 0, 0])
    for r, line in enumerate(lines):
        x = 0.0
        for w in line:
            w.move_to([x, 0, 0], aligned_edge=LEFT)
            place_on_line(w, ref, -r * line_h)
            x += w.width + space
    group = VGroup(*words)
    group.words = words
    return group


HIGH_MARKS = set("\"'“”‘’`")


def place_on_line(word, ref, dy: float = 0.0) -> None:
    """Set a word on the line of `ref` (shifted by dy): on its baseline, except a quote mark, which
    hangs from the cap height (it has no glyph on the baseline to align)."""
    if word.original_text and set(word.original_text) <= HIGH_MARKS:
        word.shift(UP * (ref.get_top()[1] + dy - word.get_top()[1]))
    else:
        align_baseline(word, baseline_y(ref) + dy)


# The receiver (often a comma) wide enough for twenty tips, and apart from the story's last token so
# that the heaviest arrows (the nearest sources') are arcs, not stubs; both within the line's width.
STORY_RECEIVER_WIDTH = 1.2
STORY_RECEIVER_GAP = 0.3


def get_story_line(line: "comparison.StoryLine") -> VGroup:
    """The story line as a token row (attention_arrows.get_token_row): the chosen tokens in boxes, each
    folded gap a grey box; under each box its story position (one-based) or range of positions."""
    row = get_token_row(line.tokens(), receiver=len(line.entries), positions=False, font_size=LABEL_SIZE + 2,
                        receiver_width=STORY_RECEIVER_WIDTH, receiver_gap=STORY_RECEIVER_GAP)
    row.move_to([0, LINE_Y, 0])
    ref = get_text("Mx", font_size=row.font_size)
    for word, box in zip(row.words, row.boxes):      # the block sets every token on the baseline
        if set(word.original_text) <= HIGH_MARKS:
            place_on_line(word, ref.copy().move_to(box))
    row.positions = VGroup()
    for k, e in enumerate(line.entries):
        box = row.boxes[k]
        if e.is_gap:
            box.set_stroke(DIM_TEXT_COLOR, 1).set_fill(DIM_TEXT_COLOR, 0.22)
            row.words[k].set_color(DIM_TEXT_COLOR)
        text = f"{e.first + 1}–{e.last + 1}" if e.is_gap else f"{e.first + 1}"
        row.positions.add(get_text(text, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).next_to(box, DOWN, buff=0.08))
    row.add(row.positions)
    row.entries = line.entries
    row.gaps = VGroup(*(VGroup(row.boxes[k], row.words[k]) for k, e in enumerate(line.entries) if e.is_gap))
    return row


def fold_gap_arrows(arrows, line, color: str):
    """Redraw each folded box's arrow dashed and greyed (same width: it still carries the summed weight
    of the tokens it hides), so a box of many tokens does not read like one strongly weighted token."""
    ink = interpolate_color(ManimColor(color), ManimColor(DIM_TEXT_COLOR), 0.65).to_hex()
    for k, e in enumerate(line.entries):
        if not e.is_gap:
            continue
        curve = arrows.arrow(k)
        body = curve.copy()
        tip = body.pop_tips()[0]
        width = curve.get_stroke_width()
        dashes = max(6, int(body.get_arc_length() / 0.22))
        dashed = DashedVMobject(body, num_dashes=dashes, dashed_ratio=0.5)
        dashed.set_stroke(ink, width, opacity=0.6)
        tip.set_fill(ink, opacity=0.6).set_stroke(ink, 0, opacity=0.6)
        folded = VGroup(dashed, tip)
        folded.weight, folded.source, folded.folded = curve.weight, curve.source, True
        i = list(arrows.arrows).index(curve)
        arrows.arrows.submobjects[i] = folded
        arrows._by_source[k] = folded
    return arrows


def touches(a, b, pad: float = 0.06) -> bool:
    return (a.get_left()[0] < b.get_right()[0] + pad and b.get_left()[0] < a.get_right()[0] + pad
            and a.get_bottom()[1] < b.get_top()[1] + pad and b.get_bottom()[1] < a.get_top()[1] + pad)


def get_fold_labels(row, line, model: str, head: int, color: str, tag: str, avoid=()) -> VGroup:
    """Under each folded box: how many tokens it hides and their summed weight (what its arrow carries),
    dropped below any token's weight label in `avoid` (those stay right under their tokens)."""
    w = line.weights(model, head)
    ink = interpolate_color(ManimColor(color), ManimColor(DIM_TEXT_COLOR), 0.65).to_hex()
    labels = VGroup()
    for k, e in enumerate(line.entries):
        if not e.is_gap:
            continue
        n = e.last - e.first + 1
        # a sum, read as one: the tokens' total and what that is per token
        each = get_line("≈", get_number(w[k] / n, tag=f"{tag}_each", index=(e.first, e.last), font_size=LABEL_SIZE - 2,
                                         color=DIM_TEXT_COLOR), "each", buff=0.06, font_size=LABEL_SIZE - 2,
                        color=DIM_TEXT_COLOR)
        # (a share that rounds to 0.000 says nothing: the sum and the count say it all)
        lines = [get_line("Σ", get_number(w[k], tag=tag, index=(e.first, e.last), font_size=LABEL_SIZE - 2,
                                          color=ink), buff=0.06, font_size=LABEL_SIZE - 2, color=ink),
                 get_text(f"{n} tokens", font_size=LABEL_SIZE - 2, color=DIM_TEXT_COLOR)]
        if fmt(w[k] / n) != fmt(0.0):
            lines.append(each)
        label = VGroup(*lines).arrange(DOWN, buff=0.06)
        label.next_to(row.positions[k], DOWN, buff=0.1)
        if label.get_left()[0] < -SAFE_WIDTH / 2:
            label.shift(RIGHT * (-SAFE_WIDTH / 2 - label.get_left()[0]))
        while any(touches(part, other) for part in label for other in avoid):
            label.shift(DOWN * 0.3)
        label.entry = k
        labels.add(label)
    return labels


def get_weight_labels(row, line, model: str, head: int, entries, color: str, tag: str) -> VGroup:
    """The weights of some entries under their position numbers, dropped a row where two would touch."""
    w = line.weights(model, head)
    labels = VGroup()
    placed = []
    for k in sorted(entries):
        e = line.entries[k]
        number = get_number(w[k], tag=tag, index=e.first if not e.is_gap else (e.first, e.last),
                            font_size=LABEL_SIZE, color=color)
        number.next_to(row.positions[k], DOWN, buff=0.1)
        while any(number.get_left()[0] < p.get_right()[0] + 0.08 and p.get_left()[0] < number.get_right()[0] + 0.08
                  and number.get_bottom()[1] < p.get_top()[1] + 0.04 and p.get_bottom()[1] < number.get_top()[1] + 0.04
                  for p in placed):
            number.shift(DOWN * 0.32)
        placed.append(number)
        labels.add(number)
    return labels


def get_heat_panel(amap, model: str, head: int, color: str) -> VGroup:
    """The honest map of one head (row i: the window ending at token i), token axes every 8 tokens."""
    hm = get_heat_map(amap.model(model).heads[head], color, HEAT_SIDE)
    n = amap.n
    ticks = [*range(0, n, 8)] + ([n - 1] if (n - 1) % 8 else [])
    if len(ticks) > 1 and ticks[-1] - ticks[-2] < 4:
        ticks.pop(-2)
    labels = get_axis_labels(hm, amap.tokens, ticks)
    rows_title = get_text("receiver: the window’s last token", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    cols_title = get_text("source", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    rows_title.next_to(hm.frame, UP, buff=0.12).align_to(labels.rows, LEFT)
    cols_title.next_to(labels.cols, RIGHT, buff=0.25).align_to(labels.cols, UP)
    panel = VGroup(hm, labels, rows_title, cols_title)
    panel.map, panel.labels, panel.titles = hm, labels, VGroup(rows_title, cols_title)
    return panel


def get_inset(amap, model: str, head: int, columns, color: str, side: float = 0.85) -> VGroup:
    """A few cells of the receiver's row, magnified: each in its heat-map colour with its weight and token."""
    r = amap.n - 1
    row = amap.model(model).heads[head, r]
    cells = VGroup()
    for j in columns:
        step = int(weight_level([row[j]])[0])
        sq = Rectangle(width=side, height=side).set_stroke(DIM_TEXT_COLOR, 1)
        sq.set_fill(level_hex(step, color) if step else BACKGROUND, 1)
        cells.add(sq)
    cells.arrange(RIGHT, buff=0)
    numbers, tokens = VGroup(), VGroup()
    for sq, j in zip(cells, columns):
        numbers.add(get_number(row[j], tag="inset", index=j, font_size=LABEL_SIZE, color=TEXT_COLOR)
                    .next_to(sq, DOWN, buff=0.1))
    for sq, j, number in zip(cells, columns, numbers):
        tokens.add(get_text(f"{amap.tokens[j]} {j + 1}", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
                   .next_to(sq, DOWN, buff=0.1).set_y(numbers.get_bottom()[1] - 0.2))
    last = tuple(columns) == tuple(range(r - len(columns) + 1, r + 1))
    caption = get_text(f"row {r + 1}: its last {count_word(len(columns))} sources" if last else
                       f"row {r + 1}: sources {columns[0] + 1}–{columns[-1] + 1}", font_size=SMALL_SIZE,
                       color=DIM_TEXT_COLOR)
    caption.next_to(cells, UP, buff=0.1).align_to(cells, LEFT)
    inset = VGroup(caption, cells, numbers, tokens)
    inset.cells, inset.numbers, inset.columns = cells, numbers, tuple(columns)
    return inset


def get_head_chips(colors) -> VGroup:
    chips = VGroup(*(VGroup(Line(LEFT * 0.18, RIGHT * 0.18).set_stroke(c, 5),
                            get_text(f"head {k + 1}", font_size=LABEL_SIZE, color=c)).arrange(RIGHT, buff=0.12)
                     for k, c in enumerate(colors)))
    return chips.arrange(RIGHT, buff=0.45)


def get_prompt_line(prompt) -> VGroup:
    """The prompt as the model read it: its tokens in the receiver colour, <UNK> marked, and above
    each <UNK> the word as typed, struck through."""
    words = VGroup(*(get_text(t, font_size=LABEL_SIZE + 2, color=NEGATIVE_COLOR if t == UNK else RECEIVER_COLOR)
                     for t in prompt.tokens)).arrange(RIGHT, buff=0.16)
    ref = get_text("Mx", font_size=LABEL_SIZE + 2)
    for w in words:
        align_baseline(w, baseline_y(ref.copy().move_to(words.get_center())))
    typed = VGroup()
    for k, word in prompt.unknown:
        t = get_text(word, font_size=LABEL_SIZE, color=DIM_TEXT_COLOR).next_to(words[k], UP, buff=0.14)
        strike = Line(t.get_left(), t.get_right()).set_stroke(NEGATIVE_COLOR, 2)
        typed.add(VGroup(t, strike))
    line = VGroup(words, typed)
    line.words, line.typed = words, typed
    return line


def get_continuation_rows(cont_set, titles: dict, kind: str, width: float) -> VGroup:
    """One row per model: its name, the greedy continuation (wrapped; <UNK> marked), the median
    latency per model call."""
    size = LABEL_SIZE
    models = [m for m in comparison.MODEL_ORDER if (m, kind) in cont_set.runs]
    names = {m: get_text(titles.get(m, m), font_size=size, color=MODEL_COLORS[m]) for m in models}
    name_w = max(t.width for t in names.values()) + 0.35
    lat_w = 1.5
    text_w = width - name_w - lat_w - 0.3
    rows = VGroup()
    for m in models:
        run = cont_set.of(m, kind)
        body = VGroup(*(get_text(line, font_size=size, color=TEXT_COLOR, t2c={UNK: NEGATIVE_COLOR})
                        for line in wrap_lines(run.text, size, text_w)))
        body.arrange(DOWN, buff=0.1, aligned_edge=LEFT)
        name = names[m].move_to([0, 0, 0], aligned_edge=LEFT)
        body.move_to([name_w, 0, 0], aligned_edge=LEFT)
        body.shift(UP * (baseline_y(name) - baseline_y(body[0])))
        latency = get_line(get_number(run.latency_ms_median, 3, tag="latency", index=(m, kind), font_size=size,
                                      color=MODEL_COLORS[m]), "ms", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR,
                           buff=0.08)
        latency.move_to([width, 0, 0], aligned_edge=RIGHT)
        latency.shift(UP * (baseline_y(name) - baseline_y(latency[0])))
        row = VGroup(name, body, latency)
        row.model, row.body, row.latency, row.text = m, body, latency, run.text
        rows.add(row)
    rows.arrange(DOWN, buff=0.3, aligned_edge=LEFT)
    return rows


def get_latency_grid(cont_set, kinds) -> VGroup:
    """Every prompt's median per call, one line per model (in its colour) and a column per prompt:
    the evidence for a sentence about all the prompts, while one prompt's panel is on screen."""
    size = SMALL_SIZE
    models = [m for m in comparison.MODEL_ORDER if all((m, k) in cont_set.runs for k in kinds)]
    col_w = 1.15                                                      # room for "held-out" and a number
    head = VGroup(*(get_text(KIND_WORDS[k], font_size=size, color=DIM_TEXT_COLOR) for k in kinds))
    lines = VGroup()
    for m in models:
        cells = VGroup(*(get_number(cont_set.of(m, k).latency_ms_median, 3, tag="latency_all", index=(m, k),
                                    font_size=size, color=MODEL_COLORS[m]) for k in kinds))
        lines.add(cells)
    for j in range(len(kinds)):                                       # right-aligned columns
        x = (j + 1) * col_w
        for cell in (head[j], *(line[j] for line in lines)):
            cell.move_to([x, 0, 0], aligned_edge=RIGHT)
    for i, line in enumerate(lines):
        for cell in line:
            align_baseline(cell, -0.34 * (i + 1))
    for cell in head:
        align_baseline(cell, 0.0)
    grid = VGroup(head, lines)
    grid.head, grid.lines = head, lines
    return grid


LINE_CELL = 0.28            # a source's cell on the token line (a folded box's cells share its width)


def get_line_cells(row, line, hm, receiver: int) -> VGroup:
    """The receiver's row of the map, laid on the token line: over each box its source's cell (over a
    folded box, one narrow cell per token it hides), filled as the heat map fills that cell; each cell
    keeps its `source` (story position) and `weight`. `entries[k]`: the cells over box k."""
    cells, entries = VGroup(), []
    for k, e in enumerate(line.entries):
        box = row.boxes[k]
        width = box.width / e.size if e.is_gap else LINE_CELL
        group = VGroup()
        for j in range(e.first, e.last + 1):
            w = float(hm.weights[receiver, j])
            step = int(weight_level([w])[0])
            sq = Rectangle(width=width, height=LINE_CELL).set_stroke(DIM_TEXT_COLOR, 0.8 if not e.is_gap else 0)
            sq.set_fill(level_hex(step, hm.color) if step else BACKGROUND, 1)
            sq.source, sq.weight, sq.step = j, w, step
            group.add(sq)
        group.arrange(RIGHT, buff=0).next_to(box, UP, buff=0.08)
        entries.append(group)
        cells.add(*group)
    cells.entries = entries
    return cells


def get_landed_cells(cells, hm, receiver: int) -> VGroup:
    """The same cells in place: the map's cells of the receiver's row (size, shade, position)."""
    side = hm.cell_side
    landed = VGroup()
    for sq in cells:
        t = Rectangle(width=side, height=side).set_stroke(width=0).set_fill(sq.get_fill_color(), 1)
        t.move_to(hm.cell_center(receiver, sq.source))
        t.source, t.weight, t.step = sq.source, sq.weight, sq.step
        landed.add(t)
    return landed


class InsideTrainedModels(LessonScene):
    """Scene 20: the seed-11 checkpoints' own final-query attention on a held-out story, told on the
    token line (arrows from the receiver's sources, width = weight, one colour per head); the honest
    map of every window; the four heads one by one; greedy continuations with the prompts as read and
    the latency per call, measured on the machine that produced them."""

    def construct(self):
        # stops here, naming the file, if an export is missing
        amap = self.amap = comparison.load_attention_map()
        cont = self.cont = comparison.load_continuation_set()
        self.protocol = comparison.load_protocol()
        for m in ("one_head", "four_heads"):
            amap.model(m)
        self.receiver = r = amap.n - 1
        heads = [("one_head", 0)] + [("four_heads", h) for h in range(amap.model("four_heads").n_heads)]
        self.line = comparison.story_line(amap, r, heads, max_entries=LINE_ENTRIES)
        title = get_title("Inside the trained models")
        with self.transition("title"):
            self.play(FadeIn(title))
        # --- Shot 1: the held-out story ------------------------------------------------------------
        self.shot("held-out story")
        self.show_story()
        self.show_receiver()
        self.show_story_line()
        # --- Shot 2: one head, on the token line ----------------------------------------------------
        self.shot("one head")
        self.show_one_head_arrows()
        self.show_one_head_top()
        self.show_folded_weight()
        # --- Shot 3: every window: the honest map -----------------------------------------------------
        self.shot("every window")
        self.show_map()
        self.show_future()
        self.show_map_row()
        # --- Shot 4: four heads --------------------------------------------------------------------
        self.shot("four heads")
        self.show_four_heads()
        for h in comparison.head_order(amap, "four_heads", r):
            self.show_head(h)
        self.show_glimpse()
        # --- Shot 5: greedy continuations ------------------------------------------------------------
        for kind in KIND_ORDER:
            self.shot(f"{kind} prompt")
            self.show_prompt(kind)
        self.shot("beyond this lesson")
        self.show_beyond()

    # helpers -----------------------------------------------------------------------------------
    def note_at(self, text: str, left: float | None = None):
        width = SAFE_WIDTH if left is None else SAFE_WIDTH / 2 - left
        note = get_fine_print(text, max_width=width).move_to([0, CONTENT_BOTTOM + 0.05, 0], aligned_edge=DOWN)
        if left is not None:
            note.align_to([left, 0, 0], LEFT)
        return note

    def swap_note(self, text: str | None, left: float | None = None):
        old = getattr(self, "note", None)
        new = self.note = self.note_at(text, left) if text else None
        return [a for a in (FadeOut(old) if old is not None else None, FadeIn(new) if new is not None else None) if a]

    def make_way(self, name: str, picture) -> None:
        """The picture gives way to the next one as it comes in (never a blank stage); the fine
        print of the last beat leaves now."""
        self.give_way(picture)
        notes = self.swap_note(None)
        if notes:
            with self.transition(name):
                self.play(*notes, run_time=0.5)

    # shot 1 ------------------------------------------------------------------------------------
    def show_story(self):
        amap = self.amap
        story = self.story = get_story_words(amap.tokens, SAFE_WIDTH - 0.6)
        story.move_to([0, 0.5, 0])
        # the story runs on past the window: say these are its first tokens, not the whole story
        whole = (f"the first {amap.n} of a held-out test story's {amap.story_tokens:,} tokens, as the models read them"
                 if amap.story_tokens > amap.n else f"a held-out test story, as the models read it: {amap.n} tokens")
        label = self.story_label = get_text(whole,
                                            font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
        label.next_to(story, UP, buff=0.35)
        with self.beat("Now look inside the trained models, on a story from the test set, which none of them "
                       "trained on.", look=2.0):
            self.play(FadeIn(label), LaggedStart(*(FadeIn(w) for w in story), lag_ratio=0.02), run_time=2.0)
            self.play(*self.swap_note(f"Both attention models, the seed-{amap.checkpoint_seed} checkpoints; the "
                                      "story’s tokens as the tokenizer wrote them (lower case, punctuation as tokens)."))

    def show_receiver(self):
        amap, r = self.amap, self.receiver
        word = self.story[r]
        box = self.receiver_box = SurroundingRectangle(word, color=RECEIVER_COLOR, buff=0.06)
        with self.beat(f"A model reads a window of up to {amap.context} tokens and predicts the next one. "
                       f"Here the window ends at token {r + 1}: {token_name(amap.tokens[r])}.",
                       spoken=f"A model reads a window of up to {amap.context} tokens and predicts the next one. "
                              f"Here the window ends at token {r + 1}: {spoken_token(amap.tokens[r])}."):
            self.play(Create(box))
            self.play(Indicate(word, color=RECEIVER_COLOR, scale_factor=1.4))

    def show_story_line(self):
        line, story = self.line, self.story
        row = self.row = get_story_line(line)
        keep = {e.first: k for k, e in enumerate(line.entries) if not e.is_gap}
        travel = [ReplacementTransform(story[j], row.words[k]) for j, k in keep.items()]
        leave = [FadeOut(story[j]) for j in range(len(story.words)) if j not in keep]
        with self.beat("To draw arrows, we keep the tokens that matter and fold the rest into grey boxes."):
            self.play(*travel, *leave, FadeOut(self.story_label), FadeOut(self.receiver_box), run_time=2.0)
            self.play(FadeIn(VGroup(*(row.boxes[k] for k in keep.values()))),
                      FadeIn(row.gaps), FadeIn(row.positions))

    # shot 2 ------------------------------------------------------------------------------------
    def show_one_head_arrows(self):
        color = MODEL_COLORS["one_head"]
        w = self.line.weights("one_head", 0)
        arrows = self.one_arrows = fold_gap_arrows(get_attention_arrows(self.row, w, color=color, side=UP),
                                                   self.line, color)
        name = self.model_name = get_text(self.protocol.titles["one_head"], font_size=LABEL_SIZE + 2, color=color)
        name.move_to([NAME_X, CONTENT_TOP - 0.2, 0], aligned_edge=LEFT)
        with self.beat(f"Here is what the one-head model attends to from {token_name(self.amap.tokens[-1])}: "
                       "the thicker the arrow, the more weight.",
                       spoken=f"Here is what the one-head model attends to from "
                              f"{spoken_token(self.amap.tokens[-1])}: the thicker the arrow, the more weight.",
                       look=1.2):
            self.play(FadeIn(name))
            self.play(arrows.create(run_time=2.5))

    def show_one_head_top(self):
        amap, r, line = self.amap, self.receiver, self.line
        top = amap.top("one_head", 0, r, 2)
        entries = [line.index_of(j) for j, _ in top]
        color = MODEL_COLORS["one_head"]
        labels = self.one_labels = get_weight_labels(self.row, line, "one_head", 0, entries, color, "line_one_head")
        self.one_folds = get_fold_labels(self.row, line, "one_head", 0, color, "fold_one_head", avoid=labels)
        (j1, w1), (j2, w2) = top
        with self.beat(f"Most goes to the latest {token_name(amap.tokens[j1])}: {fmt(w1)}. "
                       f"Then {fmt(w2)} to {token_name(amap.tokens[j2])}.",
                       spoken=f"Most goes to the latest {spoken_token(amap.tokens[j1])}: {fmt(w1)}. "
                              f"Then {fmt(w2)} to {spoken_token(amap.tokens[j2])}."):
            for k, label in zip(sorted(entries), labels):
                self.play(Indicate(self.one_arrows.arrow(k), color=RECEIVER_COLOR, scale_factor=1.0),
                          FadeIn(label, shift=0.1 * UP), run_time=0.9)

    def show_folded_weight(self):
        line = self.line
        w = line.weights("one_head", 0)
        gaps = [k for k, e in enumerate(line.entries) if e.is_gap]
        big = max(gaps, key=lambda k: w[k]) if gaps else None
        n_big = line.entries[big].size if big is not None else 0
        with self.beat("A grey box’s dashed arrow carries the summed weight of the tokens it hides"
                       + (f": here {n_big} tokens, {fmt(w[big])} in all, about {fmt(w[big] / n_big)} each."
                          if big is not None else ", so nothing is left out."), look=1.5):
            self.play(*(Indicate(self.row.token(k), color=TEXT_COLOR) for k in gaps),
                      *(Indicate(self.one_arrows.arrow(k), color=TEXT_COLOR, scale_factor=1.0) for k in gaps),
                      LaggedStart(*(FadeIn(f, shift=0.1 * UP) for f in self.one_folds), lag_ratio=0.2),
                      *self.swap_note("A folded box’s arrow has the width of the summed weight of its tokens; every "
                                      "row of weights sums to one."))

    # shot 3 ------------------------------------------------------------------------------------
    def show_map(self):
        """The row becomes the map's bottom row, and the map is built upward from it: each arrow turns into
        its source's cell (a folded box's arrow into its tokens' cells), shaded by its weight on the map's
        scale; the cells travel from the token line into the bottom row; the earlier windows' rows sweep up."""
        amap, r, line = self.amap, self.receiver, self.line
        color = MODEL_COLORS["one_head"]
        panel = self.heat_panel = get_heat_panel(amap, "one_head", 0, color)
        panel.move_to([0, 0, 0])
        panel.shift(RIGHT * (-5.6 - panel.labels.rows.get_left()[0]) + UP * (CONTENT_TOP - 0.05 - panel.get_top()[1]))
        hm = self.heat_one = panel.map
        hm.frame.set_fill(opacity=0)       # weight 0 is the background itself; the leaving line stays seen
        key = self.key = get_color_key(color, width=2.8, title="weight, on a square-root colour scale")
        key.move_to([panel.map.frame.get_right()[0] + 1.2, 0, 0], aligned_edge=LEFT).align_to(panel.map.frame, UP)
        cells = self.row_cells = get_line_cells(self.row, line, hm, r)
        landed = self.landed_cells = get_landed_cells(cells, hm, r)
        arrows = self.one_arrows
        turn = [ReplacementTransform(arrows.arrow(k), cells.entries[k]) for k in range(len(line.entries))]
        rest = [m for m in arrows.submobjects if m is not arrows.arrows]       # (anything beside the arrows)
        # the earlier windows' rows, hidden under a cover that withdraws upward; a row box rides its edge
        c = hm.cell_side
        cover = Rectangle(width=hm.frame.width - 0.02, height=r * c).set_stroke(width=0).set_fill(BACKGROUND, 1)
        cover.move_to(hm.frame.get_top() + DOWN * 0.01, aligned_edge=UP)
        sweep_box = self.sweep_box = hm.get_row_box(r)
        with self.beat("Those weights are one row of cells. End the window at each earlier token for another row; "
                       "stacked, they make this map.", look=1.0):
            self.play(*turn, *(FadeOut(m) for m in rest),
                      FadeOut(VGroup(self.one_labels, self.one_folds, self.model_name)),
                      *self.swap_note(None), run_time=1.4)
            # the row box marks where they land: the map's bottom row, the window that ends at the receiver
            self.play(LaggedStart(*(ReplacementTransform(a, b) for a, b in zip(cells, landed)), lag_ratio=0.01),
                      FadeOut(self.row), FadeIn(hm.frame), FadeIn(sweep_box), run_time=1.8)
            # the whole map under the cover: its bottom row is the landed cells' (the same shades), so they go
            self.add(*hm.levels.values())
            self.remove(landed)
            self.add(cover, sweep_box)
            self.play(cover.animate(rate_func=linear).stretch_to_fit_height(1e-3, about_edge=UP),
                      sweep_box.animate(rate_func=linear).move_to([sweep_box.get_x(), hm.cell_center(0, 0)[1], 0]),
                      run_time=2.0)
            self.remove(cover)
            self.play(FadeOut(sweep_box), FadeIn(panel.labels), FadeIn(panel.titles),
                      *self.swap_note(f"Row i: the final-query weights of the window that ends at token i, what the "
                                      "model computes in training and generation.", left=key.get_left()[0]))

    def show_future(self):
        hm = self.heat_one
        with self.beat("Brighter means more weight. The dark triangle is the future: tokens after the window’s end."):
            self.play(FadeIn(VGroup(self.key[0], self.key[1], self.key.marks)))
            self.play(FadeIn(hm.mask), FadeIn(self.key.future))

    def show_map_row(self):
        amap, r = self.amap, self.receiver
        hm = self.heat_one
        j, w = amap.top("one_head", 0, r, 1)[0]
        columns = comparison.inset_columns(amap, "one_head", 0, r)
        inset = self.inset = get_inset(amap, "one_head", 0, columns, MODEL_COLORS["one_head"])
        inset.next_to(self.key, DOWN, buff=0.55).align_to(self.key, LEFT)
        row_box = hm.get_row_box(r)
        cell_box = hm.get_cell_box(r, j)
        target = inset.cells[columns.index(j)]
        pointer = DashedLine(cell_box.get_right(), target.get_left(), dash_length=0.06).set_stroke(RECEIVER_COLOR, 1.5)
        self.map_marks = VGroup(row_box, cell_box, pointer)
        with self.beat(f"The bottom row is the one we drew. Its brightest cell is {token_name(amap.tokens[j])}: "
                       f"{fmt(w)}.",
                       spoken=f"The bottom row is the one we drew. Its brightest cell is "
                              f"{spoken_token(amap.tokens[j])}: {fmt(w)}."):
            self.play(Create(row_box))
            self.play(Create(cell_box), Create(pointer), FadeIn(inset), run_time=1.2)
            self.play(Indicate(inset.numbers[columns.index(j)], color=RECEIVER_COLOR, scale_factor=1.3))

    # shot 4 ------------------------------------------------------------------------------------
    def show_four_heads(self):
        colors = head_colors("four_heads", self.amap.model("four_heads").n_heads)
        chips = self.chips = get_head_chips(colors)
        chips.move_to([0, -1.95, 0])
        # the model's name in plain text here: its curve colour is head 1's blue, and beside the four
        # head colours a blue name reads as head 1's
        name = self.four_heads_name = get_text(self.protocol.titles["four_heads"], font_size=LABEL_SIZE + 2,
                                               color=TEXT_COLOR)
        name.move_to(self.model_name, aligned_edge=LEFT)
        # (with the landed cells: LaggedStart's group keeps them on screen under the map's own bottom row)
        self.make_way("back to the line", VGroup(self.heat_panel, self.key, self.inset, self.map_marks,
                                                 self.landed_cells))
        with self.beat(f"The four-head model runs {count_word(len(colors))} heads side by side, each with its "
                       "own colour and its own weights."):
            self.play(FadeIn(self.row), FadeIn(name))
            self.play(LaggedStart(*(FadeIn(c, shift=0.1 * UP) for c in chips), lag_ratio=0.2))
        self.model_name = name
        self.head_arrows, self.head_labels, self.head_folds, self.seen_tokens = None, None, None, set()
        self.arrows_of, self.labels_of, self.readings = {}, {}, {}

    def show_head(self, h: int):
        amap, r, line = self.amap, self.receiver, self.line
        color = head_colors("four_heads", amap.model("four_heads").n_heads)[h]
        reading = comparison.head_reading(amap, "four_heads", h, r)
        w = line.weights("four_heads", h)
        arrows = fold_gap_arrows(get_attention_arrows(self.row, w, color=color, side=UP), line, color)
        if reading.kind == "repeated":
            entries = [line.index_of(j) for j in reading.positions]
        else:
            entries = [line.index_of(reading.top)]
        labels = get_weight_labels(self.row, line, "four_heads", h, entries, color, f"line_four_heads_{h}")
        folds = get_fold_labels(self.row, line, "four_heads", h, color, f"fold_four_heads_{h}", avoid=labels)
        out = [FadeOut(m) for m in (self.head_arrows, self.head_labels, self.head_folds) if m is not None]
        also = "also " if reading.token in self.seen_tokens else ""
        name, said = token_name(amap.tokens[reading.top]), spoken_token(amap.tokens[reading.top])
        if reading.kind == "spread":
            # "the most", not "no more than": the top weight is 0.1003, shown as 0.100
            text = (f"Head {h + 1} spreads its weight thin: the most any single token gets is "
                    f"{fmt(reading.top_weight)}, which goes to {name}.")
            spoken = (f"Head {h + 1} spreads its weight thin: the most any single token gets is "
                      f"{fmt(reading.top_weight)}, which goes to "
                      f"{said if said != amap.tokens[reading.top] else 'the word ' + said}.")
            # the widest arrow may be a grey box's, summed over many tokens: the sentence says why
            k = line.heaviest_gap("four_heads", h)
            if k is not None and w[k] > reading.top_weight:
                size = line.entries[k].size
                folded = (f" The widest arrow is a grey box's: {count_word(size)} tokens, {fmt(w[k])} together, "
                          f"about {fmt(w[k] / size)} each.")
                text, spoken = text + folded, spoken + folded
        elif reading.kind == "repeated":
            text = (f"Head {h + 1} finds every {token_label(reading.token)} in the window, "
                    f"{count_word(len(reading.positions))} of them.")
            spoken = (f"Head {h + 1} finds every {reading.token} in the window, "
                      f"{count_word(len(reading.positions))} of them.")
        else:
            text = f"Head {h + 1} {also}looks at {name}: {fmt(reading.top_weight)}."
            spoken = f"Head {h + 1} {also}looks at {said}: {fmt(reading.top_weight)}."
        chip = self.chips[h]
        with self.beat(text, spoken=spoken):
            self.play(*out, Indicate(chip, color=color, scale_factor=1.15), run_time=0.6)
            self.play(arrows.create(run_time=2.2), FadeIn(folds))
            self.play(LaggedStart(*(FadeIn(x, shift=0.1 * UP) for x in labels), lag_ratio=0.3))
        self.head_arrows, self.head_labels, self.head_folds = arrows, labels, folds
        self.arrows_of[h], self.labels_of[h], self.readings[h] = arrows, labels, reading
        self.seen_tokens.add(reading.token)
        if reading.kind == "repeated":
            self.show_repeated_sum(h, reading, labels, color)

    def show_repeated_sum(self, h, reading, labels, color):
        """The head's weights on the repeated token, summed at full precision (not the rounded terms)."""
        parts = [get_number(self.amap.model("four_heads").heads[h, self.receiver, j], tag="sum_term", index=j,
                            font_size=LABEL_SIZE, color=color) for j in reading.positions]
        pieces = []
        for k, part in enumerate(parts):
            pieces += ([get_text("+", font_size=LABEL_SIZE)] if k else []) + [part]
        total = get_number(reading.total, tag="token_sum", index=(h, reading.token), font_size=LABEL_SIZE + 4,
                           color=color)
        sum_line = get_line(*pieces, "=", total, font_size=LABEL_SIZE)
        sum_line.move_to([0, -1.6, 0])
        weights = [self.amap.model("four_heads").heads[h, self.receiver, j] for j in reading.positions]
        shown = shown_parts_sum(weights, reading.total)
        if shown is not None:       # the rounded parts on screen add to other digits: say so where it shows
            shown_line = get_line("(rounded parts add to", get_number(shown, tag="shown_sum", index=h,
                                  font_size=MIN_TEXT_SIZE + 2, color=DIM_TEXT_COLOR), ")",
                                  font_size=MIN_TEXT_SIZE + 2, color=DIM_TEXT_COLOR, buff=0.08)
            shown_line.next_to(sum_line, RIGHT, buff=0.35)
            shown_line.shift(UP * (baseline_y(sum_line[0]) - baseline_y(shown_line[0])))  # beside the total
            sum_line.add(shown_line)
            sum_line.set_x(0)
        self.sum_line = sum_line
        most = ": most of it, on one word" if reading.total > 0.5 else ""
        with self.beat(f"Together, head {h + 1} puts {fmt(reading.total)} of its weight on "
                       f"{token_label(reading.token)}{most}.",
                       spoken=f"Together, head {h + 1} puts {fmt(reading.total)} of its weight on "
                              f"{reading.token}{most}."):
            self.play(FadeOut(self.chips), *(ReplacementTransform(label.copy(), part) for label, part in zip(labels, parts)),
                      FadeIn(VGroup(*(p for p in pieces if p not in parts))), run_time=1.5)
            self.play(FadeIn(VGroup(sum_line[-3], total, sum_line[-1]) if shown is not None
                             else VGroup(sum_line[-2], total)),
                      *self.swap_note(ROUNDING_NOTE[:-1] + ": the total "
                                      "adds the unrounded parts, so it can differ from the rounded parts in the "
                                      "last digit."))
            self.play(Indicate(total, color=color, scale_factor=1.3))
        with self.transition("the chips back"):
            self.play(FadeOut(sum_line), FadeIn(self.chips), *self.swap_note(None))

    def show_glimpse(self):
        """All four heads at once: each head's own arrows from the sources its reading names (the top
        source, or every copy of the repeated token), in its colour, side by side on one line."""
        amap, line = self.amap, self.line
        glimpse = self.glimpse = VGroup()
        for h, reading in sorted(self.readings.items()):
            sources = reading.positions if reading.kind == "repeated" else [reading.top]
            for j in sources:
                arrow = self.arrows_of[h].arrow(line.index_of(j)).copy()
                arrow.head = h
                glimpse.add(arrow.shift(UP * 0.05 * h))     # two heads on one source stay apart
        out = [FadeOut(m) for m in (self.head_arrows, self.head_labels, self.head_folds) if m is not None]
        with self.beat("This is one story and one seed: a glimpse of these checkpoints, not a map of what "
                       "heads always do.", look=1.2):
            self.play(*out, run_time=0.6)
            self.play(LaggedStart(*(Create(a) for a in glimpse), lag_ratio=0.15), run_time=1.8)
            self.play(*self.swap_note(f"One held-out story, the seed-{amap.checkpoint_seed} checkpoints: an "
                                      "illustration, not a general map of what heads do."))
        self.head_arrows, self.head_labels, self.head_folds = glimpse, None, None

    # shot 5 ------------------------------------------------------------------------------------
    def show_prompt(self, kind: str):
        cont = self.cont
        prompt = cont.prompts[kind]
        head = get_text(f"{KIND_TITLES[kind]}:", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
        line = get_prompt_line(prompt)
        rows = get_continuation_rows(cont, self.protocol.titles, kind, SAFE_WIDTH)
        lat_head = get_text("median per call", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        top = VGroup(head, line.words).arrange(RIGHT, buff=0.25)
        align_baseline(head, baseline_y(line.words[0]))
        for (k, _), typed in zip(prompt.unknown, line.typed):
            typed.next_to(line.words[k], UP, buff=0.14)
        block = VGroup(VGroup(top, line.typed), rows).arrange(DOWN, buff=0.55, aligned_edge=LEFT)
        block.move_to([0, 0.6, 0])
        lat_head.next_to(rows, UP, buff=0.15).align_to(rows, RIGHT)
        self.panels = getattr(self, "panels", {})
        self.panels[kind] = VGroup(head, line, rows, lat_head)
        self.panels[kind].rows, self.panels[kind].line = rows, line
        if not hasattr(self, "shown_panel"):
            self.shown_panel = None
            self.make_way("to the continuations", VGroup(self.row, self.chips, self.model_name, *(
                m for m in (self.head_arrows, self.head_labels, self.head_folds) if m)))
        else:
            self.make_way("next prompt", self.shown_panel)
        self.shown_panel = self.panels[kind]
        n = cont.n_tokens
        if kind == "training":
            with self.beat(f"Last, what the models write. Each continues a prompt greedily, taking the likeliest "
                           f"token each time, {count_word(n)} times over."):
                self.play(FadeIn(head), FadeIn(line.words))
                self.play(*self.swap_note(f"Greedy decoding, {n} tokens; the seed-{self.amap.checkpoint_seed} "
                                          "checkpoints run in PyTorch."))
            loops = comparison.repeaters(cont, kind)
            takeaway = ""
            if len(loops) == 1:
                phrase = " ".join(comparison.repeated_phrase(cont.of(loops[0], kind).tokens))
                who = MODEL_WORDS[loops[0]]
                takeaway = f" {who[0].upper() + who[1:]} already repeats itself: “{phrase}” comes twice."
                said_takeaway = f" {who[0].upper() + who[1:]} already repeats itself, twice writing the phrase: {phrase}."
            with self.beat(f"This prompt comes from the training stories. Read what each model wrote.{takeaway}",
                           spoken="This prompt comes from the training stories. Read what each model wrote."
                                  + (said_takeaway if takeaway else ""), look=7.0):
                self.play(LaggedStart(*(FadeIn(VGroup(r.submobjects[0], r.body)) for r in rows), lag_ratio=0.4),
                          run_time=2.0)
            self.show_latency(lat_head)
        elif kind == "held_out":
            starts = {cont.of(m, kind).tokens[0] for m in comparison.MODEL_ORDER if (m, kind) in cont.runs}
            with self.beat("A held-out prompt, from a story none of them trained on."):
                self.play(FadeIn(head), FadeIn(line.words))
            name = next(iter(starts)) if len(starts) == 1 else None
            loops = comparison.repeaters(cont, kind)
            also = (f"; {count_word(len(loops))} of the three already repeat a phrase" if len(loops) > 1 else "")
            with self.beat(f"All three name the boy {name}{also}." if name else
                           f"Read what each model wrote{also}.", look=7.0):
                self.play(LaggedStart(*(FadeIn(r) for r in rows), lag_ratio=0.4), FadeIn(lat_head), run_time=2.0)
        else:
            n_unk = len(prompt.unknown)
            with self.beat(f"A sentence about a bank. {count_word(n_unk).capitalize()} of its words are not in the "
                           f"{fmt_int(self.protocol.config['vocab_size'])}-word vocabulary, so the models read "
                           f"{UNK}: unknown.",
                           spoken=f"A sentence about a bank. {count_word(n_unk).capitalize()} of its words are not "
                                  f"in the {fmt_int(self.protocol.config['vocab_size'])}-word vocabulary, so the "
                                  "models read them as unknown."):
                self.play(FadeIn(head), FadeIn(line.words))
                self.play(LaggedStart(*(FadeIn(t[0]) for t in line.typed), lag_ratio=0.2))
                self.play(LaggedStart(*(Create(t[1]) for t in line.typed), lag_ratio=0.2),
                          *self.swap_note(f"Struck through: the words as typed; the models read each as {UNK}."))
            produced = [(m, cont.of(m, kind).unk_positions) for m in comparison.MODEL_ORDER
                        if (m, kind) in cont.runs and cont.of(m, kind).unk_positions]
            writers = " and ".join(MODEL_WORDS[m] for m, _ in produced)
            times = sum(len(p) for _, p in produced)
            kept = [w for m in comparison.MODEL_ORDER if (m, kind) in cont.runs
                    for w in comparison.prompt_words_kept(cont, kind, m)]
            topic = comparison.prompt_content_words(cont, kind)
            named = ", ".join(topic[:-1]) + " or " + topic[-1] if len(topic) > 1 else "".join(topic)
            # "the prompt’s words": heard right after the unknown words, they must not sound like them
            wrote = (f"{writers} even writes {UNK} itself, {'twice' if times == 2 else f'{count_word(times)} times'}."
                     if len(produced) == 1 else "None writes an unknown word itself."
                     if not produced else f"{writers} even write {UNK} themselves.")
            text = ((f"None of the three picks up the prompt’s topic: none writes {named}. " if not kept and topic else
                     "They take up the prompt only in part. ") + wrote[0].upper() + wrote[1:])
            said = text.replace(UNK, "the unknown token")
            with self.beat(text, spoken=said, look=7.0):
                self.play(LaggedStart(*(FadeIn(r) for r in rows), lag_ratio=0.4), FadeIn(lat_head), run_time=2.0)

    def show_latency(self, lat_head):
        """The latency column arrives with the sentence that explains it (on the first prompt's panel;
        later panels show it with their rows)."""
        panel = self.shown_panel
        device = self.cont.device
        lr = comparison.latency_reading(self.cont)
        parts = []
        if lr.baseline_margin is not None:
            # the smallest margin over the prompts (0.025 on one, 0.016 on another): "at least", not "about"
            parts.append(f"the baseline is faster on every prompt, by at least {fmt(lr.baseline_margin, 3)} ms")
        if lr.same_speed:
            parts.append("one head and four heads are effectively tied: their gap is smaller than either one’s "
                         "spread across prompts")
        reading = ". ".join(x[0].upper() + x[1:] for x in parts) if parts else "Read them as rough"
        # where it was measured, in words (the notes keep device timings apart from training times)
        cpu = comparison.cpu_threads(device)
        if cpu:
            name, threads = cpu
            where = (f"on {'one thread' if threads == 1 else f'{count_word(threads)} threads'} of "
                     f"{'an' if name[0] in 'AEIOU' else 'a'} {name} CPU")
        else:
            where = f"on {comparison.device_words(device)}"
        # two beats (a listener lost the thread in one): what the column is, then what it shows
        with self.beat(f"On the right: the median time per new token, {where}.",
                       spoken=f"On the right: the median time per new token, {where.replace(' CPU', ' processor')}."):
            self.play(FadeIn(lat_head), LaggedStart(*(FadeIn(r.latency) for r in panel.rows), lag_ratio=0.2),
                      *self.swap_note(f"Latency per model call (median), measured on {comparison.device_words(device)}: "
                                      "PyTorch, batch 1, the final query only."))
        # a sentence about every prompt: every prompt's medians beside this one's, under its column
        grid = get_latency_grid(self.cont, KIND_ORDER)                  # construct shows every kind
        grid.next_to(panel.rows, DOWN, buff=0.3).align_to(panel.rows, RIGHT)
        panel.add(grid)
        with self.beat(f"{reading}."):
            self.play(FadeIn(grid.head), LaggedStart(*(FadeIn(line) for line in grid.lines), lag_ratio=0.2),
                      # (the margin read aloud is the unrounded one: 0.016, where the rounded cells differ by 0.017)
                      *self.swap_note("Median milliseconds per call on each of the three prompts; "
                                      "gaps are taken from the unrounded medians."))
            self.play(*(Indicate(r.latency, color=RECEIVER_COLOR) for r in panel.rows))

    def show_beyond(self):
        self.make_way("to the close", self.shown_panel)
        card = self.card = VGroup(
            get_text("Beyond this lesson", font_size=LABEL_SIZE + 6, color=TEXT_COLOR),
            get_text("normalization · full Transformer blocks · complexity", font_size=LABEL_SIZE + 2,
                     color=DIM_TEXT_COLOR),
        ).arrange(DOWN, buff=0.3).move_to([0, 1.3, 0])
        with self.beat("Normalization, full Transformer blocks and their cost are beyond this lesson.", look=2.0):
            self.play(FadeIn(card[0]), FadeIn(card[1], shift=0.1 * UP),
                      *self.swap_note("Normalization, full Transformer blocks and complexity remain in the optional "
                                      "Part 2B reference."))
