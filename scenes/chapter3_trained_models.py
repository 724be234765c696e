"""Chapter 3, scenes 18–20: the three trained architectures, the comparison, and inside the models.

Every result on screen is read from the trainer's committed exports in lesson_data/exports/
through lesson_data.comparison (results.json, protocol.json, attention.json, continuations.json). Nothing is
typed in: sizes come from the results file's protocol, parameter counts, losses, perplexities,
spreads, times and latencies from its runs. A missing export stops the scene at the start of
construct() with comparison.MissingExportError naming the file — never placeholder results.
The results file may hold any number of seeds per model: the spread (mean ± sample standard
deviation) is shown only where at least two seeds exist.

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
    Arrow,
    Create,
    DashedLine,
    Dot,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    Line,
    Polygon,
    Rectangle,
    ReplacementTransform,
    Text,
    VGroup,
    VMobject,
    Axes,
)

from lesson_data import comparison
from lesson_data.display import fmt_int
from scenes.blocks.shape_box import get_shape_box
from scenes.style import (
    BACKGROUND,
    BODY_SIZE,
    BRACKET_COLOR,
    BUFF_SMALL,
    CONTENT_CENTER,
    DIM_TEXT_COLOR,
    FONT,
    HEAD_COLORS,
    LABEL_SIZE,
    MASK_COLOR,
    NEGATIVE_COLOR,
    NUMBER_SIZE,
    RECEIVER_COLOR,
    SAFE_WIDTH,
    SMALL_SIZE,
    TEXT_COLOR,
    WIDE_HEAD_COLOR,
    LessonScene,
    baseline_y,
    fit_content,
    get_number,
    get_text,
    get_title,
    sub,
    wrap_lines,
)
# The protocol (seeds, titles) from the exports, and the helpers that decide from the data
from lesson_data.comparison import (
    MODEL_TITLES,
    SEEDS,
    Spread,
    checked_parameters,
    device_line,
    device_words,
    heads_helped,
    loss_range,
    model_title,
    models_in,
    nice_step,
    parameter_of,
    runs_note,
    runs_of,
    seeds_words,
    spread,
    top_sources,
)

# Each model keeps one colour through the chapter: the baseline has no heads (neutral grey), the
# one-head model is the "one wide head" of chapter 2, the four-head model the narrow heads' blue.
MODEL_COLORS = {"mlp": BRACKET_COLOR, "one_head": WIDE_HEAD_COLOR, "four_heads": HEAD_COLORS[1]}
KIND_TITLES = {"training": "Training prompt", "held_out": "Held-out prompt",
               "outside_domain": "Outside-domain prompt"}
KIND_ORDER = ("training", "held_out", "outside_domain")
LOSS_PLACES, PPL_PLACES, SECONDS_PLACES, LATENCY_PLACES = 3, 2, 0, 3

# ============================================================================================
# Pure helpers (no Manim): what the exports say, in the shape the scenes show it
# ============================================================================================


HEAT_LEVELS = 32          # colour steps of a heat map (on the square-root scale)


def weight_level(weights, levels: int = HEAT_LEVELS) -> np.ndarray:
    """Colour step of each weight: round(sqrt(w) · levels), 0 … levels. The square root keeps small
    weights visible; the step never decreases as the weight grows."""
    w = np.clip(np.asarray(weights, dtype=float), 0.0, 1.0)
    return np.rint(np.sqrt(w) * levels).astype(int)


def level_rgb(level, color: str, levels: int = HEAT_LEVELS) -> np.ndarray:
    """RGB of a colour step: the background blended toward `color` by level / levels. Every channel
    of the theme's head colours is above the background's, so a higher step is brighter."""
    bg, fg = (np.array(_rgb(c), dtype=float) for c in (BACKGROUND, color))
    t = np.asarray(level, dtype=float)[..., None] / levels
    return bg * (1 - t) + fg * t


def rgb_hex(rgb) -> str:
    r, g, b = (int(round(float(c))) for c in rgb)
    return f"#{r:02X}{g:02X}{b:02X}"


def _rgb(color: str) -> tuple[int, int, int]:
    c = color.lstrip("#")
    return tuple(int(c[k:k + 2], 16) for k in (0, 2, 4))


def token_label(token: str) -> str:
    """A token as the scenes quote it (single quotes, so a quote-mark token stays readable)."""
    return f"‘{token}’"



# ============================================================================================
# Shared builders
# ============================================================================================


class CountText(Text):
    """An integer on screen with thousands separators (fmt_int): `.value`, `.shown`, `.tag`, `.index`."""

    def __init__(self, value: int, *, tag: str | None = None, index=None, font_size: float = NUMBER_SIZE,
                 color: str = TEXT_COLOR, **kwargs):
        if int(value) != value:
            raise ValueError(f"CountText needs an integer, got {value!r}")
        self.value = int(value)
        self.shown = fmt_int(self.value)
        self.tag, self.index = tag, index
        kwargs.setdefault("disable_ligatures", True)
        super().__init__(self.shown, font=FONT, font_size=font_size, color=color, **kwargs)


def get_count(value: int, *, tag=None, index=None, font_size=NUMBER_SIZE, color=TEXT_COLOR) -> CountText:
    return CountText(value, tag=tag, index=index, font_size=font_size, color=color)


def get_arrow(start, end, color=DIM_TEXT_COLOR) -> Arrow:
    return Arrow(start, end, buff=0.08, stroke_width=3, tip_length=0.14, max_tip_length_to_length_ratio=0.5,
                 max_stroke_width_to_length_ratio=20, color=color)


def align_to_baseline(mob, y: float):
    """Shift a Text, or a group led by one, so its (first) text sits on baseline y."""
    lead = mob if isinstance(mob, Text) else next(m for m in mob.get_family() if isinstance(m, Text))
    return mob.shift(UP * (y - baseline_y(lead)))


def get_line(*parts, buff=0.14, font_size=LABEL_SIZE) -> VGroup:
    """Words and numbers on one line, sharing a baseline (strings become text)."""
    mobs = [get_text(p, font_size=font_size) if isinstance(p, str) else p for p in parts]
    line = VGroup(*mobs).arrange(RIGHT, buff=buff)
    y = baseline_y(mobs[0])
    for m in mobs[1:]:
        align_to_baseline(m, y)
    return line


def get_spread_cell(s: Spread, places: int, tag: str, index, color=TEXT_COLOR, font_size=NUMBER_SIZE) -> VGroup:
    """mean ± std when two or more seeds exist, else the one run's value alone."""
    mean = get_number(s.mean, places, tag=tag, index=index, color=color, font_size=font_size)
    if s.std is None:
        cell = VGroup(mean)
        cell.mean, cell.std = mean, None
        return cell
    pm = get_text("±", font_size=font_size, color=DIM_TEXT_COLOR)
    std = get_number(s.std, places, tag=f"{tag}_std", index=index, color=DIM_TEXT_COLOR, font_size=font_size)
    cell = VGroup(mean, pm, std).arrange(RIGHT, buff=0.1)
    cell.mean, cell.std = mean, std
    return cell


def get_mask_triangle(rect, color=MASK_COLOR) -> Polygon:
    tri = Polygon(rect.get_corner(UP + LEFT), rect.get_corner(UP + RIGHT), rect.get_corner(DOWN + RIGHT))
    return tri.set_stroke(width=0).set_fill(color, 1.0)


def get_masked_box(name: str, shape, color, unit: float, shape_text=None):
    box = get_shape_box(name, shape, color=color, unit=unit, shape_text=shape_text)
    tri = get_mask_triangle(box.box)
    box.add(tri)
    box.mask_triangle = tri
    return box


def get_row_strip(box, color=RECEIVER_COLOR, height=0.07) -> Rectangle:
    """The last (receiver) row of a box, as a strip along its bottom."""
    r = box.box if hasattr(box, "box") else box
    strip = Rectangle(width=r.width, height=height).set_stroke(color, 1.5).set_fill(color, 0.8)
    return strip.move_to(r.get_bottom(), aligned_edge=DOWN)


def get_parameter_table(parts, total: int, model: str, color: str) -> VGroup:
    """part · formula · count lines, a rule, and the recorded total."""
    rows = VGroup()
    for k, (part, formula, count) in enumerate(parts):
        rows.add(VGroup(get_text(part, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR),
                        get_text(formula, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR),
                        get_count(count, tag=f"part_{model}", index=k, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)))
    total_row = VGroup(get_text("parameters", font_size=LABEL_SIZE, color=color), VGroup(),
                       get_count(total, tag="parameters", index=model, font_size=LABEL_SIZE, color=color))
    col_x = [0.0, max(r[0].width for r in rows) + 0.3]
    right = col_x[1] + max(r[1].width for r in rows) + 0.3 + max(r[2].width for r in rows)
    for y, row in enumerate([*rows, total_row]):
        yy = -0.3 * y - (0.12 if row is total_row else 0)
        row[0].move_to([col_x[0], yy, 0], aligned_edge=LEFT)
        if len(row[1]):
            row[1].move_to([col_x[1], yy, 0], aligned_edge=LEFT)
        row[2].move_to([right, yy, 0], aligned_edge=RIGHT)
    rule = Line([col_x[0], total_row.get_top()[1] + 0.07, 0], [right, total_row.get_top()[1] + 0.07, 0])
    rule.set_stroke(DIM_TEXT_COLOR, 1)
    table = VGroup(rows, rule, total_row)
    table.rows, table.total, table.total_number = rows, total_row, total_row[2]
    return table


# ============================================================================================
# Scene 18 — Three architectures
# ============================================================================================

GRID_UNIT = 0.016          # scene units per row/column of a [64, 64]-like array
VECTOR_WIDTH = 3.0         # a [1, 4096] vector; other vectors scale with their length


def get_slot_rows(T: int, C: int, color: str) -> VGroup:
    """The [T, C] embedding rows as T thin stripes (slot 1 on top)."""
    side = T * GRID_UNIT * 1.7
    rows = VGroup(*(Rectangle(width=side, height=side / T).set_stroke(width=0)
                    .set_fill(color, 0.55 if k % 2 == 0 else 0.25) for k in range(T)))
    return rows.arrange(DOWN, buff=0)


def get_vector_box(name: str, length: int, color: str, full: int) -> VGroup:
    width = max(0.12, VECTOR_WIDTH * length / full)
    return get_shape_box(name, (1, length), color=color, width=width, height=0.22,
                         shape_text=f"[1, {fmt_int(length)}]")


def get_mlp_flow(protocol: dict, color: str) -> VGroup:
    """64 slot rows → concatenated in slot order [1, 4096] → hidden [1, 256] (ReLU) → logits [1, 4000]."""
    T, C, Hd, V = protocol["context"], protocol["d_model"], protocol["d_hidden"], protocol["vocab_size"]
    rows = get_slot_rows(T, C, color)
    rows_box = get_shape_box("embedding rows", (T, C), color=color, width=rows.width, height=rows.height,
                             fill_opacity=0.0)
    rows.move_to(rows_box.box)
    rows_box.add_to_back(rows)
    rows_box.stripes = rows
    for k, edge in ((1, UP), (T, DOWN)):      # slot order, top to bottom
        tick = get_text(f"slot {k}", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        tick.next_to(rows.get_corner(LEFT + edge), LEFT, buff=0.08)
        rows_box.add(tick)
    concat = get_vector_box("concatenated in slot order", T * C, color, T * C)
    concat.box.set_fill(opacity=0)
    slot_w = concat.box.width / T
    segments = VGroup(*(Rectangle(width=slot_w, height=concat.box.height).set_stroke(width=0)
                        .set_fill(color, 0.55 if k % 2 == 0 else 0.25) for k in range(T))).arrange(RIGHT, buff=0)
    segments.move_to(concat.box)
    concat.add_to_back(segments)
    concat.segments = segments
    first = get_text("slot 1", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    last = get_text(f"slot {T}", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    hidden = get_vector_box("hidden, ReLU", Hd, color, T * C)
    logits = get_vector_box("vocabulary logits", V, color, T * C)
    first.next_to(concat.box, DOWN, buff=0.08).align_to(concat.box, LEFT)
    last.next_to(concat.box, DOWN, buff=0.08).align_to(concat.box, RIGHT)
    concat.shape_label.next_to(concat.box, DOWN, buff=0.08)
    concat.add(first, last)
    flow = _arrange_flow([rows_box, concat, hidden, logits],
                         ["", f"Linear {fmt_int(T * C)}→{fmt_int(Hd)}", f"Linear {fmt_int(Hd)}→{fmt_int(V)}"],
                         gap_min=1.0)
    flow.rows, flow.concat, flow.hidden, flow.logits = rows_box, concat, hidden, logits
    return flow


def get_card_stack(names: str, shape, color: str, unit: float, shape_text=None) -> VGroup:
    """Three offset boxes standing for Q, K and V of one shape."""
    w = max(0.12, shape[1] * unit)
    h = shape[0] * unit
    cards = VGroup(*(Rectangle(width=w, height=h).set_stroke(color, 1.5).set_fill(BACKGROUND, 1)
                     .set_fill(color, 0.25).shift(k * 0.07 * (RIGHT + DOWN)) for k in range(3)))
    front = cards[-1]
    label = get_text(names, font_size=LABEL_SIZE, color=color).next_to(cards, UP, buff=BUFF_SMALL)
    shape_label = get_text(shape_text or f"each [{shape[0]}, {shape[1]}]", font_size=SMALL_SIZE,
                           color=DIM_TEXT_COLOR).next_to(cards, DOWN, buff=BUFF_SMALL)
    stack = VGroup(cards, label, shape_label)
    stack.box, stack.cards, stack.front, stack.name_label, stack.shape_label = cards, cards, front, label, shape_label
    return stack


def get_one_head_flow(protocol: dict, color: str) -> VGroup:
    """E → Q, K, V [64, 64] → A [64, 64] (masked) → H = AV → ΔE = H W_O → e′₆₄ → MLP → logits."""
    T, C, Hd, V = protocol["context"], protocol["d_model"], protocol["d_hidden"], protocol["vocab_size"]
    u = GRID_UNIT
    e = get_shape_box("E", (T, C), color=TEXT_COLOR, unit=u)
    qkv = get_card_stack("Q, K, V", (T, C), color, u)
    a = get_masked_box("A", (T, T), color, u)
    h = get_shape_box("H = AV", (T, C), color=color, unit=u)
    delta = get_shape_box("ΔE = H W_O", (T, C), color=color, unit=u)
    last = get_shape_box(f"e′{sub(T)}", (1, C), color=TEXT_COLOR, width=C * u, height=0.14)
    mlp = get_shape_box("MLP", None, color=TEXT_COLOR, width=0.8, height=0.6, name_inside=True)
    mlp_label = get_text(f"{fmt_int(C)} → {fmt_int(Hd)}", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    mlp_label.next_to(mlp.box, DOWN, buff=BUFF_SMALL)
    mlp.add(mlp_label)
    logits = get_shape_box("logits", (1, V), color=TEXT_COLOR, width=1.1, height=0.14,
                           shape_text=f"[1, {fmt_int(V)}]")
    stages = [e, qkv, a, h, delta, last, mlp, logits]
    links = ["W_Q, W_K, W_V", f"÷√{C}\nmask\nsoftmax", "· V", "· W_O", "E + ΔE,\nlast row", "", ""]
    return _arrange_flow(stages, links)


def _arrange_flow(stages, links, gap_min=0.75) -> VGroup:
    """Lay stages left to right on one centre line, arrows between them, each link's label above
    its arrow; a gap is wide enough for its label and, where a label would reach the height of
    the stages' name labels, for their overhang too."""
    label_mobs = [get_text(link, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.7) if link else None
                  for link in links]
    x = 0.0
    for k, stage in enumerate(stages):
        stage.shift(RIGHT * (x - stage.box.get_left()[0]) + UP * (0 - stage.box.get_center()[1]))
        if k < len(links):
            nxt = stages[k + 1]
            label = label_mobs[k]
            label_w = label.width if label is not None else 0.0
            label_top = 0.08 + (label.height if label is not None else 0.0)
            overhang = 0.0                                   # the label is centred: twice the larger
            for s in (stage, nxt):
                if label_top + 0.05 > s.box.height / 2:      # the label reaches the name labels' height
                    overhang = max(overhang, 2 * max(0.0, (s.width - s.box.width) / 2))
            x = stage.box.get_right()[0] + max(gap_min, label_w + 0.3 + overhang,
                                               max(0.0, (stage.width - stage.box.width) / 2)
                                               + max(0.0, (nxt.width - nxt.box.width) / 2) + 0.2)
    arrows = VGroup()
    for k, link in enumerate(links):
        arrow = get_arrow(stages[k].box.get_right(), stages[k + 1].box.get_left())
        if label_mobs[k] is not None:
            arrow = VGroup(arrow, label_mobs[k].next_to(arrow, UP, buff=0.08))
        arrows.add(arrow)
    flow = VGroup(VGroup(*stages), arrows)
    flow.stages, flow.arrows = stages, arrows
    return flow


def get_four_head_flow(protocol: dict, color: str) -> VGroup:
    """E → (project) Q [64, 64] → reshape into 4 heads: Qʰ, Kʰ, Vʰ [64, 16] → Aʰ [64, 64] → Hʰ [64, 16]
    → concat [64, 64] → W_O → ΔE."""
    T, C = protocol["context"], protocol["d_model"]
    n_heads = protocol["n_heads_multi"]
    d = C // n_heads
    u = 0.0105
    e = get_shape_box("E", (T, C), color=TEXT_COLOR, unit=u)
    proj = get_card_stack("Q, K, V", (T, C), color, u, shape_text=f"each [{T}, {C}]")
    # the projected coordinates, grouped into heads by column blocks
    blocks = VGroup()
    for h in range(n_heads):
        blk = Rectangle(width=d * u, height=T * u).set_stroke(color, 1.0).set_fill(color, 0.6 if h % 2 == 0 else 0.3)
        blocks.add(blk)
    blocks.arrange(RIGHT, buff=0).move_to(proj.front)
    proj.add(blocks)
    proj.blocks = blocks
    lanes = VGroup()
    for h in range(1, n_heads + 1):
        label = get_text(f"head {h}", font_size=SMALL_SIZE, color=color)
        qkv = VGroup(*(Rectangle(width=max(0.1, d * u), height=T * u).set_stroke(color, 1.2)
                       .set_fill(BACKGROUND, 1).set_fill(color, 0.3).shift(k * 0.05 * (RIGHT + DOWN))
                       for k in range(3)))
        a_box = Rectangle(width=T * u, height=T * u).set_stroke(color, 1.2).set_fill(color, 0.25)
        a_box.add(get_mask_triangle(a_box))
        h_box = Rectangle(width=max(0.1, d * u), height=T * u).set_stroke(color, 1.2).set_fill(color, 0.45)
        lane = VGroup(label, qkv, a_box, h_box).arrange(RIGHT, buff=0.6)
        qkv.shift(LEFT * 0.3)
        a1 = get_arrow(qkv.get_right(), a_box.get_left())
        a2 = get_arrow(a_box.get_right(), h_box.get_left())
        lane.add(a1, a2)
        lane.label, lane.qkv, lane.a_box, lane.h_box = label, qkv, a_box, h_box
        lanes.add(lane)
    lanes.arrange(DOWN, buff=0.2, aligned_edge=LEFT)
    heads_hdr = VGroup(
        get_text(f"Qʰ, Kʰ, Vʰ\n[{T}, {d}]", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.7),
        get_text(f"Aʰ\n[{T}, {T}]", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.7),
        get_text(f"Hʰ = AʰVʰ\n[{T}, {d}]", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR, line_spacing=0.7),
    )
    for hdr, part in zip(heads_hdr, (lanes[0].qkv, lanes[0].a_box, lanes[0].h_box)):
        hdr.next_to(part, UP, buff=0.12)
    heads = VGroup(lanes, heads_hdr)
    concat = get_shape_box("concat", (T, C), color=color, unit=u)
    concat.box.set_fill(opacity=0)
    cblocks = VGroup(*(Rectangle(width=d * u, height=T * u).set_stroke(color, 1.0)
                       .set_fill(color, 0.6 if h % 2 == 0 else 0.3) for h in range(n_heads))).arrange(RIGHT, buff=0)
    cblocks.move_to(concat.box)
    concat.add_to_back(cblocks)
    w_o = get_shape_box("W_O", (C, C), color=color, unit=u)
    delta = get_shape_box("ΔE", (T, C), color=color, unit=u)
    row = VGroup(e, proj, heads, concat, w_o, delta).arrange(RIGHT, buff=0.8)
    for m in (e, proj, concat, w_o, delta):
        m.shift(UP * (lanes.get_center()[1] - m.box.get_center()[1]))
    w_o.shift(LEFT * 0.35)
    arrows = VGroup()
    arrows.add(VGroup(get_arrow(e.box.get_right(), proj.box.get_left()),))
    arrows[0].add(get_text("project", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).next_to(arrows[0][0], UP, buff=0.08))
    fan_in = VGroup(*(get_arrow(proj.box.get_right(), lane.label.get_left(), color=color) for lane in lanes))
    fan_out = VGroup(*(get_arrow(lane.h_box.get_right(), concat.box.get_left(), color=color) for lane in lanes))
    reshape = get_text("reshape", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    # outside the fans, beside their top arrows
    reshape.next_to(fan_in[0].point_from_proportion(0.6), UP + LEFT, buff=0.02)
    join = get_text("join", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    join.next_to(fan_out[0].point_from_proportion(0.5), UP + RIGHT, buff=0.04)
    dot = get_text("·", font_size=BODY_SIZE).move_to((concat.box.get_right() + w_o.box.get_left()) / 2)
    eq = get_text("=", font_size=BODY_SIZE).move_to((w_o.box.get_right() + delta.box.get_left()) / 2)
    flow = VGroup(row, arrows, fan_in, fan_out, reshape, join, dot, eq)
    flow.e, flow.proj, flow.lanes, flow.heads_hdr, flow.concat, flow.w_o, flow.delta = (
        e, proj, lanes, heads_hdr, concat, w_o, delta)
    flow.project_arrow, flow.fan_in, flow.fan_out = arrows[0], fan_in, fan_out
    flow.reshape, flow.join, flow.dot, flow.eq = reshape, join, dot, eq
    return flow


def get_not_slices(protocol: dict) -> VGroup:
    """What implementations do not do: hand each head a slice of raw E."""
    T, C, n_heads = protocol["context"], protocol["d_model"], protocol["n_heads_multi"]
    u = 0.0105
    e = Rectangle(width=C * u, height=T * u).set_stroke(TEXT_COLOR, 1.5).set_fill(TEXT_COLOR, 0.15)
    cuts = VGroup(*(DashedLine(e.get_corner(UP + LEFT) + RIGHT * k * C * u / n_heads,
                               e.get_corner(DOWN + LEFT) + RIGHT * k * C * u / n_heads, dash_length=0.05)
                    .set_stroke(NEGATIVE_COLOR, 1.5) for k in range(1, n_heads)))
    cross = VGroup(Line(e.get_corner(UP + LEFT), e.get_corner(DOWN + RIGHT)),
                   Line(e.get_corner(DOWN + LEFT), e.get_corner(UP + RIGHT))).set_stroke(NEGATIVE_COLOR, 3)
    label = get_text("not: slices\nof raw E", font_size=SMALL_SIZE, color=NEGATIVE_COLOR, line_spacing=0.7)
    label.next_to(e, DOWN, buff=0.1)
    return VGroup(e, cuts, cross, label)


class ThreeArchitectures(LessonScene):
    def construct(self):
        results = comparison.load_results()       # stops here, naming the file, if it is missing
        self.results = results
        protocol = results["protocol"]
        T, C, Hd, V = protocol["context"], protocol["d_model"], protocol["d_hidden"], protocol["vocab_size"]
        n_heads = protocol["n_heads_multi"]
        self.parts = {m: checked_parameters(results, m) for m in models_in(results)}
        for m in comparison.MODEL_ORDER:
            if m not in self.parts:
                raise ValueError(f"results.json has no run of {m}: the scene cannot show its parameter count")
        title = get_title("Three architectures, one protocol")
        self.play(FadeIn(title))

        # --- Shot 1: FixedWindowMLP -------------------------------------------------------------
        self.shot("fixed-window MLP")
        color = MODEL_COLORS["mlp"]
        name = get_text(f"{model_title(results, 'mlp')}: no attention", font_size=BODY_SIZE, color=color)
        flow = get_mlp_flow(protocol, color)
        table = get_parameter_table(*self.parts["mlp"], "mlp", color)
        layout = VGroup(name, flow, table).arrange(DOWN, buff=0.45)
        fit_content(layout)
        self.mlp_flow, self.mlp_table = flow, table
        self.play(FadeIn(name), FadeIn(flow.rows))
        self.caption("This diagram follows FixedWindowMLP in trainer/model.py and the saved comparison protocol.")
        self.caption(f"Each token embedding has {fmt_int(C)} coordinates; concatenating {fmt_int(T)} rows "
                     f"gives {fmt_int(T * C)}.")
        stripes = flow.rows.stripes.copy()
        self.play(GrowArrow(flow.arrows[0]))
        self.play(ReplacementTransform(stripes, flow.concat.segments), run_time=1.5)
        self.play(FadeIn(VGroup(*(m for m in flow.concat if m is not flow.concat.segments))))
        self.caption("The fixed concatenation order already distinguishes slots. "
                     "This baseline has no separate learned position table.")
        self.play(FadeIn(flow.arrows[1]), FadeIn(flow.hidden))
        self.play(FadeIn(flow.arrows[2]), FadeIn(flow.logits))
        self.caption(f"A {fmt_int(T * C)}→{fmt_int(Hd)} hidden layer with ReLU feeds a "
                     f"{fmt_int(Hd)}→{fmt_int(V)} vocabulary layer.")
        self.play(FadeIn(table.rows, lag_ratio=0.2), run_time=1.2)
        self.play(FadeIn(table[1]), FadeIn(table.total))
        self.caption("Its larger first MLP matrix helps explain its parameter count.")
        self.play(Indicate(table.rows[1], color=color, scale_factor=1.05))
        self.finish_reading(extra=0.5)
        self.play(FadeOut(VGroup(name, flow, table)))

        # --- Shot 2: one head --------------------------------------------------------------------
        self.shot("one head")
        color = MODEL_COLORS["one_head"]
        name = get_text(f"{model_title(results, 'one_head')}: d_model = d_k = d_v = {C}", font_size=BODY_SIZE,
                        color=color)
        flow = get_one_head_flow(protocol, color)
        table = get_parameter_table(*self.parts["one_head"], "one_head", color)
        note = get_text(f"inference: only the final query row ({T}) → the same logits",
                        font_size=SMALL_SIZE, color=RECEIVER_COLOR)
        layout = VGroup(name, flow, note, table).arrange(DOWN, buff=0.4)
        fit_content(layout)
        self.one_head_flow, self.one_head_table = flow, table
        stages, arrows = flow.stages, flow.arrows
        self.play(FadeIn(name), FadeIn(stages[0]))
        self.caption(f"The trained single-head model uses d_model = d_k = d_v = {C}; "
                     "E adds learned position rows to the token rows.")
        for k in range(1, 4):
            self.play(FadeIn(arrows[k - 1]), FadeIn(stages[k]), run_time=0.7)
        self.caption(f"The full attention matrix has shape {T}×{T}, with future and padding masks.")
        for k in range(4, len(stages)):
            self.play(FadeIn(arrows[k - 1]), FadeIn(stages[k]), run_time=0.6)
        # the inference path: only the final query row
        strips = VGroup(get_row_strip(stages[1].front), get_row_strip(stages[2]), get_row_strip(stages[3]),
                        get_row_strip(stages[4]))
        self.final_row = VGroup(strips, note)
        self.play(FadeIn(strips), FadeIn(note))
        self.caption("The inference path computes only the final query row, which gives the same next-token "
                     "logits as taking the last row of this full diagram.")
        self.play(FadeIn(table.rows, lag_ratio=0.2), run_time=1.2)
        self.play(FadeIn(table[1]), FadeIn(table.total))
        self.caption(f"The {fmt_int(C)}→{fmt_int(Hd)} prediction MLP replaces the baseline’s much wider "
                     f"{fmt_int(T * C)}→{fmt_int(Hd)} input layer.")
        self.play(Indicate(table.rows[3], color=color, scale_factor=1.05))
        self.finish_reading(extra=0.5)
        self.play(FadeOut(VGroup(name, flow, table, self.final_row)))

        # --- Shot 3: four heads -----------------------------------------------------------------
        self.shot("four heads")
        color = MODEL_COLORS["four_heads"]
        d = C // n_heads
        name = get_text(f"{model_title(results, 'four_heads')}: {n_heads} heads of width {d}",
                        font_size=BODY_SIZE, color=color)
        flow = get_four_head_flow(protocol, color)
        parts, total = self.parts["four_heads"]
        if parts == self.parts["one_head"][0]:     # same layers: say so instead of repeating the table
            table = VGroup(get_text("parameters", font_size=LABEL_SIZE, color=color),
                           get_count(total, tag="parameters", index="four_heads", font_size=LABEL_SIZE, color=color),
                           get_text("the same parts as one head", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR))
            table.arrange(RIGHT, buff=0.2)
        else:
            table = get_parameter_table(parts, total, "four_heads", color)
        not_slices = get_not_slices(protocol)
        w_q_note = get_text(f"one W_Q [{C}, {C}] = {n_heads} per-head W_Qʰ [{C}, {d}] side by side:\n"
                            "project E, then reshape the projected coordinates into heads",
                            font_size=SMALL_SIZE, color=RECEIVER_COLOR, line_spacing=0.8)
        bottom = VGroup(not_slices, VGroup(w_q_note, table).arrange(DOWN, buff=0.3, aligned_edge=LEFT))
        bottom.arrange(RIGHT, buff=0.8, aligned_edge=UP)
        layout = VGroup(name, flow, bottom).arrange(DOWN, buff=0.35)
        fit_content(layout)
        not_slices.match_x(flow.e.box)
        self.four_head_flow, self.four_head_table, self.not_slices = flow, table, not_slices
        self.play(FadeIn(name), FadeIn(flow.e))
        self.play(FadeIn(flow.project_arrow), FadeIn(flow.proj))
        self.play(FadeIn(flow.reshape), *(GrowArrow(a) for a in flow.fan_in), FadeIn(flow.lanes),
                  FadeIn(flow.heads_hdr))
        self.caption(f"MultiHeadAttentionLM in trainer/model.py: each head has Q, K and V of shape {T}×{d} "
                     f"and its own {T}×{T} attention matrix. Its H = AV has shape {T}×{d}.")
        self.play(FadeIn(flow.join), *(GrowArrow(a) for a in flow.fan_out), FadeIn(flow.concat))
        self.play(FadeIn(flow.dot), FadeIn(flow.w_o), FadeIn(flow.eq), FadeIn(flow.delta))
        self.caption(f"Concatenating {n_heads} H matrices gives {T}×{C}, followed by W_O [{C}×{C}].")

        # --- Shot 4: project, then reshape ------------------------------------------------------
        self.shot("project then reshape")
        self.play(FadeIn(w_q_note), Indicate(flow.proj.blocks, color=RECEIVER_COLOR, scale_factor=1.08))
        self.caption("Implementations often concatenate the per-head W_Q matrices into one large W_Q "
                     "(and similarly for K and V).")
        self.play(FadeIn(not_slices))
        self.caption("They project E first and reshape the projected coordinates into heads. "
                     "They do not assign disjoint slices of raw E to different heads.")
        self.play(FadeIn(table))
        same = total == self.parts["one_head"][1]
        self.caption(f"{'The same' if same else 'A different'} parameter count as one head: {n_heads} heads "
                     f"of width {d} instead of one of width {C}. Our two-head toy used width 4.")
        self.finish_reading(extra=1.0)


# ============================================================================================
# Scene 19 — The comparison
# ============================================================================================


def get_protocol_card(results: dict) -> VGroup:
    """What all runs share, each number from the results file."""
    p, corpus = results["protocol"], results["corpus"]
    seeds_done = sorted({r["seed"] for r in results["runs"]})
    size = LABEL_SIZE + 4
    S = lambda v, tag: get_count(v, tag=tag, font_size=size)    # noqa: E731
    L = lambda *parts: get_line(*parts, font_size=size)         # noqa: E731
    lines = VGroup(
        L("TinyStories subset:", S(p["n_stories"], "n_stories"), "stories; train", S(corpus["stories"]["train"],
          "stories_train"), "· validation", S(corpus["stories"]["val"], "stories_val"), "· test",
          S(corpus["stories"]["test"], "stories_test")),
        L("one tokenizer:", S(p["vocab_size"], "vocab_size"), "vocabulary entries, fitted on the train split"),
        L("context:", S(p["context"], "context"), "tokens   ·   budget:", S(p["steps"], "steps"),
          "updates of", S(p["batch_size"], "batch_size"), "windows"),
        L("selection: the first", S(p["selection_windows"], "selection_windows"),
          "validation windows; the lowest-loss state is kept"),
        L(f"seeds {seeds_words(SEEDS)} for each model   ·   in this file: seed"
          f"{'s' if len(seeds_done) > 1 else ''} {', '.join(str(s) for s in seeds_done)}"),
    ).arrange(DOWN, buff=0.32, aligned_edge=LEFT)
    note = runs_note(results, SEEDS)
    if note:
        lines.add(get_text(note, font_size=LABEL_SIZE, color=RECEIVER_COLOR).next_to(lines, DOWN, buff=0.35,
                                                                                     aligned_edge=LEFT))
    return lines


def get_curve_axes(y_lo: float, y_hi: float, y_step: float, steps: int, *, x_length=7.6, y_length=4.0):
    """Axes for update step × selection cross-entropy, tick labels as Text (no LaTeX)."""
    x_step = steps // 4
    axes = Axes(x_range=[0, steps, x_step], y_range=[y_lo, y_hi, y_step], x_length=x_length, y_length=y_length,
                tips=False, axis_config={"include_numbers": False, "color": DIM_TEXT_COLOR, "stroke_width": 2})
    x_labels = VGroup(*(get_count(v, tag="x_tick", index=v, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
                        .next_to(axes.c2p(v, y_lo), DOWN, buff=0.12)
                        for v in range(0, steps + 1, x_step)))
    n_y = int(round((y_hi - y_lo) / y_step))
    places = 0 if float(y_step).is_integer() else (1 if round(y_step * 10, 6).is_integer() else 2)
    y_labels = VGroup(*(get_number(y_lo + k * y_step, places, tag="y_tick", index=k, font_size=SMALL_SIZE,
                                   color=DIM_TEXT_COLOR).next_to(axes.c2p(0, y_lo + k * y_step), LEFT, buff=0.12)
                        for k in range(n_y + 1)))
    x_title = get_text("update step", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    x_title.next_to(x_labels, DOWN, buff=0.12)
    y_title = get_text("selection cross-entropy", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).rotate(math.pi / 2)
    y_title.next_to(y_labels, LEFT, buff=0.15)
    group = VGroup(axes, x_labels, y_labels, x_title, y_title)
    group.axes, group.x_labels, group.y_labels = axes, x_labels, y_labels
    return group


def get_curves(results: dict, axes, from_step: int = 0) -> VGroup:
    """One line per run (colour = model) and a dot at the step whose state was kept."""
    curves = VGroup()
    for r in results["runs"]:
        color = MODEL_COLORS[r["model"]]
        pts = [axes.c2p(t["step"], t["selection_loss"]) for t in r["trace"] if t["step"] >= from_step]
        line = VMobject().set_points_as_corners(pts).set_stroke(color, 2.5, opacity=0.9)
        kept = next(t for t in r["trace"] if t["step"] == r["selected_step"])
        dot = Dot(axes.c2p(kept["step"], kept["selection_loss"]), radius=0.05, color=color)
        run = VGroup(line, dot)
        run.model, run.seed, run.line, run.dot = r["model"], r["seed"], line, dot
        curves.add(run)
    return curves


def get_curve_legend(results: dict) -> VGroup:
    rows = VGroup()
    for m in models_in(results):
        n = len(runs_of(results, m))
        sw = Line(LEFT * 0.2, RIGHT * 0.2).set_stroke(MODEL_COLORS[m], 4)
        rows.add(VGroup(sw, get_text(f"{model_title(results, m)}  ({n} run{'s' if n > 1 else ''})",
                                     font_size=SMALL_SIZE, color=MODEL_COLORS[m])).arrange(RIGHT, buff=0.15))
    dot_row = VGroup(Dot(radius=0.05, color=TEXT_COLOR),
                     get_text("kept state (lowest\nselection loss)", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR,
                              line_spacing=0.7)).arrange(RIGHT, buff=0.15)
    rows.add(dot_row)
    return rows.arrange(DOWN, buff=0.2, aligned_edge=LEFT)


COLUMNS = ("model", "parameters", "test loss", "test perplexity", "wall time (s)", "seeds")
TABLE_SIZE = NUMBER_SIZE + 2


def get_results_table(results: dict) -> VGroup:
    """One row per model: parameters, test loss and perplexity (mean ± std across seeds where two or
    more exist), wall time and the seeds the row summarizes."""
    header = VGroup(*(get_text(c, font_size=SMALL_SIZE + 1, color=DIM_TEXT_COLOR) for c in COLUMNS))
    rows = []
    for m in models_in(results):
        color = MODEL_COLORS[m]
        runs = runs_of(results, m)
        cells = VGroup(
            get_text(model_title(results, m), font_size=TABLE_SIZE, color=color),
            get_count(parameter_of(results, m), tag="parameters", index=m, font_size=TABLE_SIZE),
            get_spread_cell(spread(results, m, "test_loss"), LOSS_PLACES, "test_loss", m, color, TABLE_SIZE),
            get_spread_cell(spread(results, m, "test_perplexity"), PPL_PLACES, "test_perplexity", m, color,
                            TABLE_SIZE),
            get_spread_cell(spread(results, m, "train_seconds"), SECONDS_PLACES, "train_seconds", m,
                            font_size=TABLE_SIZE),
            get_text(", ".join(str(r["seed"]) for r in runs), font_size=TABLE_SIZE - 2, color=DIM_TEXT_COLOR),
        )
        cells.model = m
        rows.append(cells)
    grid = [header, *rows]
    widths = [max(r[c].width for r in grid) for c in range(len(COLUMNS))]
    gaps = 0.55
    x0 = 0.0
    xs = []
    for w in widths:
        xs.append(x0)
        x0 += w + gaps
    for y, row in enumerate(grid):
        yy = -0.6 * y
        for c, cell in enumerate(row):
            if c == 0 or c == len(COLUMNS) - 1:
                cell.move_to([xs[c], yy, 0], aligned_edge=LEFT)
            else:                                   # numbers right-aligned in their column
                cell.move_to([xs[c] + widths[c], yy, 0], aligned_edge=RIGHT)
        base = baseline_y(row[0])
        for cell in row[1:]:
            align_to_baseline(cell, base)
    rule = Line([0, -0.3, 0], [x0 - gaps, -0.3, 0]).set_stroke(DIM_TEXT_COLOR, 1)
    table = VGroup(header, rule, *rows)
    table.header, table.rows = header, VGroup(*rows)
    return table


def get_seed_dots(results: dict, key: str = "test_loss", width: float = 6.0) -> VGroup:
    """Every run's test loss as a dot on one number line, a row per model, a tick at the mean."""
    values = [r[key] for r in results["runs"]]
    step = nice_step(max(values) - min(values) + 1e-9, max_ticks=5)
    lo = math.floor(min(values) / step) * step
    hi = math.ceil(max(values) / step) * step
    if hi - lo < step:
        hi = lo + step
    x_of = lambda v: (v - lo) / (hi - lo) * width          # noqa: E731
    axis = Line([0, 0, 0], [width, 0, 0]).set_stroke(DIM_TEXT_COLOR, 1.5)
    n_ticks = int(round((hi - lo) / step))
    places = 1 if round(step * 10, 6).is_integer() else 2
    ticks = VGroup()
    for k in range(n_ticks + 1):
        v = lo + k * step
        ticks.add(Line([x_of(v), -0.06, 0], [x_of(v), 0.06, 0]).set_stroke(DIM_TEXT_COLOR, 1.5))
        ticks.add(get_number(v, places, tag="dots_tick", index=k, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
                  .next_to([x_of(v), 0, 0], DOWN, buff=0.1))
    rows = VGroup()
    for r_i, m in enumerate(models_in(results)):
        y = 0.35 * (len(models_in(results)) - r_i)
        color = MODEL_COLORS[m]
        dots = VGroup(*(Dot([x_of(r[key]), y, 0], radius=0.06, color=color) for r in runs_of(results, m)))
        mean = Line([x_of(spread(results, m, key).mean), y - 0.13, 0], [x_of(spread(results, m, key).mean),
                                                                         y + 0.13, 0]).set_stroke(color, 2)
        rows.add(VGroup(dots, mean))
    title = get_text("test loss of every run (dots); the tick marks the mean", font_size=SMALL_SIZE,
                     color=DIM_TEXT_COLOR)
    title.next_to(rows, UP, buff=0.15).align_to(axis, LEFT)
    group = VGroup(axis, ticks, rows, title)
    group.rows = rows
    return group


class TheComparison(LessonScene):
    def construct(self):
        results = comparison.load_results()       # stops here, naming the file, if it is missing
        self.results = results
        protocol = results["protocol"]
        title = get_title("The comparison: three models, one protocol")
        self.play(FadeIn(title))

        # --- Shot 1: what the runs share ------------------------------------------------------------
        self.shot("protocol")
        card = get_protocol_card(results)
        fit_content(card)
        self.card = card
        self.play(FadeIn(card, lag_ratio=0.15), run_time=2.0)
        self.caption(f"Same {fmt_int(protocol['n_stories'])}-document TinyStories subset, tokenizer, "
                     f"{protocol['context']}-token context, {fmt_int(protocol['steps'])}-update budget and "
                     f"validation selection. Seeds {seeds_words(SEEDS)}.")
        note = runs_note(results, SEEDS)
        if note:
            self.caption(f"This results file holds {len(results['runs'])} of "
                         f"{len(SEEDS) * len(comparison.MODEL_ORDER)} runs so far; "
                         "only what it holds is shown.")
        self.finish_reading(extra=0.5)
        self.play(FadeOut(card))

        # --- Shot 2: the validation curves ------------------------------------------------------
        self.shot("validation curves")
        lo, hi, step = loss_range(results)
        plot = get_curve_axes(lo, hi, step, protocol["steps"])
        legend = get_curve_legend(results)
        VGroup(plot, legend).arrange(RIGHT, buff=0.6)
        fit_content(VGroup(plot, legend))
        legend.align_to(plot.axes, UP)
        curves = get_curves(results, plot.axes)
        self.plot, self.curves, self.legend = plot, curves, legend
        self.play(FadeIn(plot))
        self.caption(f"Selection loss on the first {fmt_int(protocol['selection_windows'])} validation windows, "
                     f"at step 1 and every {fmt_int(protocol['eval_every'])} updates: every run of every model.")
        by_model = [VGroup(*(c for c in curves if c.model == m)) for m in models_in(results)]
        for group, row in zip(by_model, legend):
            self.play(Create(VGroup(*(c.line for c in group))), FadeIn(row), run_time=1.2)
        self.play(FadeIn(VGroup(*(c.dot for c in curves))), FadeIn(legend[-1]))
        self.caption("Each run keeps the state with the lowest selection loss (the dot); "
                     "the test split is touched only after that.")

        # --- Shot 3: the later steps, closer ----------------------------------------------------
        self.shot("later steps")
        from_step = protocol["eval_every"]
        zlo, zhi, zstep = loss_range(results, from_step)
        zoom = get_curve_axes(zlo, zhi, zstep, protocol["steps"])
        # the same frame as the full plot: same scale, same origin corner
        zoom.scale(plot.axes.x_axis.get_length() / zoom.axes.x_axis.get_length())
        zoom.shift(plot.axes.get_corner(DOWN + LEFT) - zoom.axes.get_corner(DOWN + LEFT))
        zcurves = get_curves(results, zoom.axes, from_step)
        zoom_note = get_line(f"zoomed: from step {fmt_int(from_step)},", "y from",
                             get_number(zlo, 1, tag="zoom_from", font_size=SMALL_SIZE, color=RECEIVER_COLOR),
                             font_size=SMALL_SIZE)
        zoom_note.set_color(RECEIVER_COLOR)
        zoom_note.next_to(legend, DOWN, buff=0.4).align_to(legend, LEFT)
        self.zoom, self.zoom_curves = zoom, zcurves
        self.play(FadeOut(VGroup(plot, curves)), FadeIn(zoom), FadeIn(zcurves), FadeIn(zoom_note))
        self.caption(f"The same runs from step {fmt_int(from_step)} on, with a zoomed y axis.")
        self.finish_reading(extra=1.0)
        self.play(FadeOut(VGroup(zoom, zcurves, zoom_note, legend)))

        # --- Shot 4: test loss and perplexity, spread across seeds -------------------------------
        self.shot("test results")
        table = get_results_table(results)
        single = [m for m in models_in(results) if len(runs_of(results, m)) < 2]
        spread_note = get_text("mean ± sample standard deviation across seeds" if not single else
                               ("one seed per model so far: no spread yet" if len(single) == len(models_in(results))
                                else "mean ± sample standard deviation; no spread where a model has one seed"),
                               font_size=SMALL_SIZE, color=RECEIVER_COLOR)
        dots = get_seed_dots(results)
        device = get_text(device_line(results), font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        machine = get_text("a shared machine with other jobs running: rough timings, not a speed benchmark",
                           font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        foot = VGroup(device, machine).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
        block = VGroup(VGroup(table, spread_note).arrange(DOWN, buff=0.25, aligned_edge=LEFT), dots, foot)
        block.arrange(DOWN, buff=0.4, aligned_edge=LEFT)
        fit_content(block)
        self.table, self.foot, self.dots, self.spread_note = table, foot, dots, spread_note
        self.play(FadeIn(table.header), FadeIn(table[1]))
        for row in table.rows:
            self.play(FadeIn(row), run_time=0.7)
        self.play(FadeIn(spread_note), FadeIn(dots))
        if not single:
            self.caption("Test loss and perplexity per model: the mean ± the sample standard deviation "
                         f"across seeds {seeds_words(sorted({r['seed'] for r in results['runs']}))}.")
        else:
            self.caption("Test loss and perplexity per model. Where a model has one seed so far, "
                         "there is no spread yet: its one run is shown as it is.")
        self.play(FadeIn(foot))
        self.caption(f"Training times are {device_line(results)}: measured on a shared 2-core machine "
                     "while other jobs ran, so read them loosely.")

        # --- Shot 5: what this does and does not show ---------------------------------------------
        self.shot("caveats")
        rows = {row.model: row for row in table.rows}
        self.play(*(Indicate(rows[m][2], color=RECEIVER_COLOR, scale_factor=1.1) for m in ("one_head", "four_heads")))
        if heads_helped(results):
            self.caption("More heads helped this experiment; this is not a guarantee for every dataset, "
                         "head count or generated continuation.")
        else:
            self.caption("More heads did not help in this experiment; more heads are a capacity choice to test, "
                         "not an automatic improvement.")
        self.caption("The comparison does not isolate the effect of position encoding, because it does not "
                     "train a position-free attention ablation.")
        self.caption("Head count, total width, parameter count, measured losses and device timings "
                     "must be distinguished.")
        self.finish_reading(extra=1.0)


# ============================================================================================
# Scene 20 — Inside the trained models
# ============================================================================================

HEAT_SIDE = 4.2            # scene units of the one-head map


class HeatMap(VGroup):
    """Built by get_heat_map: an n×n attention matrix, one square cell per weight (row i = receiver i,
    column j = source j). Cells of one colour step share one VMobject (`levels[k]`, runs of cells
    merged), so a 64×64 map is a few dozen paths, not 4,096 mobjects; future cells are one mask path. Parts: `levels`
    ({step: VMobject}), `mask`, `frame`; `weights`, `steps` (the step of every cell), `n`, `side`."""

    def cell_center(self, i: int, j: int) -> np.ndarray:
        left, top = self.frame.get_left()[0], self.frame.get_top()[1]
        c = self.frame.width / self.n                     # the frame scales with the map
        return np.array([left + (j + 0.5) * c, top - (i + 0.5) * c, 0.0])


def _cells_path(cells: np.ndarray, side: float) -> VMobject:
    """One VMobject covering the True cells of an n×n boolean grid of `side` (row 0 on top): each
    horizontal run of cells in a row is one rectangle subpath, so a map stays a few thousand points."""
    n = cells.shape[0]
    c = side / n
    pts = []
    for i in range(n):
        row = np.concatenate([[False], cells[i], [False]])
        starts = np.flatnonzero(~row[:-1] & row[1:])
        ends = np.flatnonzero(row[:-1] & ~row[1:])               # exclusive
        for j0, j1 in zip(starts, ends):
            x0, x1, y0, y1 = j0 * c, j1 * c, -i * c, -(i + 1) * c
            corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]])
            for a, b in zip(corners[:-1], corners[1:]):          # four straight cubic segments
                pts.extend([a, a + (b - a) / 3, a + 2 * (b - a) / 3, b])
    path = VMobject()
    if pts:
        arr = np.zeros((len(pts), 3))
        arr[:, :2] = pts
        path.set_points(arr)
    return path


def get_heat_map(weights, color: str, side: float) -> HeatMap:
    """A causal attention matrix as a heat map: colour step by sqrt(weight), future cells masked."""
    w = np.asarray(weights, dtype=float)
    n = w.shape[0]
    steps = weight_level(w)
    future = np.triu(np.ones((n, n), dtype=bool), 1)
    hm = HeatMap()
    hm.weights, hm.steps, hm.n, hm.side = w, np.where(future, -1, steps), n, side
    frame = Rectangle(width=side, height=side).set_stroke(DIM_TEXT_COLOR, 1).set_fill(BACKGROUND, 1)
    frame.move_to([side / 2, -side / 2, 0])
    hm.frame, hm.levels = frame, {}
    hm.add(frame)
    # a hairline stroke in the fill colour hides anti-aliasing seams between neighbouring squares
    mask = _cells_path(future, side).set_stroke(MASK_COLOR, 0.6).set_fill(MASK_COLOR, 1)
    hm.mask = mask
    hm.add(mask)
    for k in sorted(set(steps[~future].tolist())):
        if k == 0:
            continue                                       # step 0 is the background itself
        ink = rgb_hex(level_rgb(k, color))
        path = _cells_path((steps == k) & ~future, side).set_stroke(ink, 0.6).set_fill(ink, 1)
        hm.levels[k] = path
        hm.add(path)
    return hm


def get_axis_labels(hm: HeatMap, tokens, indices, *, rows=True, cols=True, size=SMALL_SIZE - 2) -> VGroup:
    labels = VGroup()
    for i in indices:
        if rows:
            t = get_text(f"{i + 1} {tokens[i]}", font_size=size, color=DIM_TEXT_COLOR)
            t.next_to(hm.frame.get_left(), LEFT, buff=0.1).set_y(hm.cell_center(i, 0)[1])
            labels.add(t)
        if cols:
            t = get_text(f"{tokens[i]} {i + 1}", font_size=size, color=DIM_TEXT_COLOR).rotate(math.pi / 2)
            t.next_to(hm.frame.get_bottom(), DOWN, buff=0.1).set_x(hm.cell_center(0, i)[0])
            # rotated texts hang down from the axis
            t.align_to(hm.frame.get_bottom() + DOWN * 0.1, UP)
            labels.add(t)
    return labels


def get_color_bar(color: str, width: float = 1.8) -> VGroup:
    """The colour steps from weight 0 to 1 (square-root scale), with the mask swatch."""
    cell = width / (HEAT_LEVELS + 1)
    bar = VGroup(*(Rectangle(width=cell, height=0.16).set_stroke(rgb_hex(level_rgb(k, color)), 0.6)
                   .set_fill(rgb_hex(level_rgb(k, color)), 1) for k in range(HEAT_LEVELS + 1))).arrange(RIGHT, buff=0)
    ticks = VGroup()
    for v in (0.0, 0.25, 1.0):
        x = bar.get_left()[0] + (math.sqrt(v) * HEAT_LEVELS + 0.5) * cell
        ticks.add(get_number(v, 2, tag="bar", index=v, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
                  .next_to([x, bar.get_bottom()[1], 0], DOWN, buff=0.08))
    caption = get_text("weight (square-root colour scale)", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    caption.next_to(ticks, DOWN, buff=0.08).align_to(bar, LEFT)
    mask = Rectangle(width=0.3, height=0.16).set_stroke(width=0).set_fill(MASK_COLOR, 1)
    mask_label = get_text("future source: masked", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    mask_row = VGroup(mask, mask_label).arrange(RIGHT, buff=0.1).next_to(caption, DOWN, buff=0.15)
    mask_row.align_to(bar, LEFT)
    group = VGroup(bar, ticks, caption, mask_row)
    group.bar = bar
    return group


def get_top_sources_panel(weights_row, tokens, receiver: int, color: str, tag: str, k: int = 3) -> VGroup:
    """The k largest weights of the receiver's row, beside their source words."""
    head = get_text(f"row {receiver + 1}, receiver {token_label(tokens[receiver])}:", font_size=LABEL_SIZE,
                    color=RECEIVER_COLOR)
    lines = VGroup()
    for rank, j in enumerate(top_sources(weights_row, k)):
        lines.add(VGroup(get_text(f"source {j + 1} {token_label(tokens[j])}", font_size=LABEL_SIZE, color=color),
                         get_number(weights_row[j], tag=tag, index=j, font_size=LABEL_SIZE, color=color))
                  .arrange(RIGHT, buff=0.2))
    for line in lines:
        line[1].align_to(lines, RIGHT)
    lines.arrange(DOWN, buff=0.15, aligned_edge=LEFT)
    right = max(line[1].get_right()[0] for line in lines)
    for line in lines:
        line[1].shift(RIGHT * (right - line[1].get_right()[0]))
    panel = VGroup(head, lines).arrange(DOWN, buff=0.25, aligned_edge=LEFT)
    panel.lines = lines
    return panel


def wrap_long(words: list[str], size: float, width: float) -> list[str]:
    """Greedy wrap measuring each candidate line. (style.wrap_lines measures the whole text set on
    one line, and Pango itself breaks a line that is several frames wide at low resolutions.)"""
    lines, line = [], []
    for word in words:
        if line and get_text(" ".join([*line, word]), font_size=size).width > width:
            lines.append(" ".join(line))
            line = []
        line.append(word)
    if line:
        lines.append(" ".join(line))
    return lines


def story_text(tokens, width: float, size: float = LABEL_SIZE + 2) -> Text:
    """The story's tokens as written by the tokenizer (lower case, punctuation as tokens)."""
    lines = wrap_long(list(tokens), size, width)
    return get_text("\n".join(lines), font_size=size, color=TEXT_COLOR, line_spacing=0.9)


def get_continuation_panel(cont: dict, titles: dict, kind: str) -> VGroup:
    """The prompt, then one row per model: name · greedy continuation · median latency per call."""
    prompt = cont["prompts"][kind]
    size = LABEL_SIZE
    head = get_line(f"{KIND_TITLES[kind]}:", get_text(f"“{prompt} …”", font_size=size + 2, color=RECEIVER_COLOR),
                    font_size=size + 2, buff=0.25)
    head[0].set_color(DIM_TEXT_COLOR)
    models = [m for m in comparison.MODEL_ORDER if m in cont["models"]]
    names = {m: get_text(titles.get(m, m), font_size=size, color=MODEL_COLORS[m]) for m in models}
    name_w = max(t.width for t in names.values()) + 0.35
    lat_w = 1.3
    text_w = SAFE_WIDTH - name_w - lat_w - 0.3
    rows = VGroup()
    for m in models:
        rec = cont["models"][m][kind]
        name = names[m]
        body = VGroup(*(get_text(line, font_size=size, color=TEXT_COLOR)
                        for line in wrap_lines(rec["continuation"], size, text_w)))
        body.arrange(DOWN, buff=0.12, aligned_edge=LEFT)
        body.text = rec["continuation"]
        lat = get_line(get_number(rec["latency_ms_median"], LATENCY_PLACES, tag="latency", index=(m, kind),
                                  font_size=size, color=MODEL_COLORS[m]),
                       get_text("ms", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR), buff=0.08)
        name.move_to([0, 0, 0], aligned_edge=LEFT)
        body.move_to([name_w, 0, 0], aligned_edge=LEFT)
        body.shift(UP * (baseline_y(name) - baseline_y(body[0])))     # first line on the name's baseline
        lat.move_to([SAFE_WIDTH, 0, 0], aligned_edge=RIGHT)
        align_to_baseline(lat, baseline_y(name))
        row = VGroup(name, body, lat)
        row.model, row.body, row.latency = m, body, lat
        rows.add(row)
    rows.arrange(DOWN, buff=0.35, aligned_edge=LEFT)
    lat_head = get_text("median per call", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    lat_head.next_to(rows, UP, buff=0.2).align_to(rows, RIGHT)
    panel = VGroup(head, VGroup(lat_head, rows)).arrange(DOWN, buff=0.35, aligned_edge=LEFT)
    panel.head, panel.rows, panel.lat_head = head, rows, lat_head
    return panel


class InsideTrainedModels(LessonScene):
    def construct(self):
        # stops here, naming the file, if an export is missing
        attention = comparison.load_attention()
        cont = comparison.load_continuations()
        self.attention, self.continuations = attention, cont
        tokens = attention["tokens"]
        n = len(tokens)
        for m in ("one_head", "four_heads"):
            if m not in attention["models"]:
                raise ValueError(f"attention.json has no weights for {m}; it holds {sorted(attention['models'])}")
        titles = dict(MODEL_TITLES)
        title = get_title("Inside the trained models")
        self.play(FadeIn(title))

        # --- Shot 1: the held-out story ----------------------------------------------------------
        self.shot("held-out story")
        story = story_text(tokens, SAFE_WIDTH - 1.0)
        label = get_text(f"one held-out test story as the models read it: {n} tokens, <BOS> first",
                         font_size=LABEL_SIZE + 2, color=DIM_TEXT_COLOR)
        VGroup(label, story).arrange(DOWN, buff=0.3).move_to(CONTENT_CENTER)
        self.play(FadeIn(label), FadeIn(story))
        self.caption(f"The real attention weights of the seed-11 checkpoints on one held-out story: "
                     f"every query row, the full {n}×{n} matrix.")
        self.finish_reading()
        self.play(FadeOut(VGroup(label, story)))

        # --- Shot 2: the one-head matrix ----------------------------------------------------------
        self.shot("one head")
        color = MODEL_COLORS["one_head"]
        W1 = np.asarray(attention["models"]["one_head"]["heads"][0], dtype=float)
        hm = get_heat_map(W1, color, HEAT_SIDE)
        ticks = [i for i in range(0, n, 9)] + ([n - 1] if (n - 1) % 9 else [])
        labels = get_axis_labels(hm, tokens, ticks)
        name = get_text(f"one head: A  [{n}, {n}]", font_size=LABEL_SIZE, color=color)
        name.next_to(hm, UP, buff=0.15)
        axis_note = get_text("rows: receivers (queries)\ncolumns: sources", font_size=SMALL_SIZE,
                             color=DIM_TEXT_COLOR, line_spacing=0.8)
        bar = get_color_bar(color)
        receiver = n - 1
        top = get_top_sources_panel(W1[receiver], tokens, receiver, color, "one_head_top")
        left = VGroup(hm, labels, name)
        right = VGroup(axis_note, bar, top).arrange(DOWN, buff=0.45, aligned_edge=LEFT)
        fit_content(VGroup(left, right).arrange(RIGHT, buff=1.0))
        self.heat_one, self.one_top, self.one_labels = hm, top, labels
        self.play(FadeIn(hm), FadeIn(name), FadeIn(labels))
        self.play(FadeIn(bar), FadeIn(axis_note))
        self.caption("Brighter cells are larger weights; every row sums to one over the sources it may read. "
                     "Future sources are masked.")
        row_box = Rectangle(width=hm.frame.width, height=hm.frame.height / n).set_stroke(RECEIVER_COLOR, 2)
        row_box.move_to([hm.frame.get_center()[0], hm.cell_center(receiver, 0)[1], 0])
        self.play(Create(row_box))
        self.play(FadeIn(top))
        self.caption(f"The last row is the receiver {token_label(tokens[receiver])} at position {n}; "
                     "these are its three largest weights.")
        self.finish_reading(extra=0.5)
        self.play(FadeOut(VGroup(hm, labels, name, bar, axis_note, row_box, top)))

        # --- Shot 3: the four heads ----------------------------------------------------------------
        self.shot("four heads")
        color = MODEL_COLORS["four_heads"]
        heads = [np.asarray(h, dtype=float) for h in attention["models"]["four_heads"]["heads"]]
        maps = VGroup()
        for h, W in enumerate(heads, start=1):
            m = get_heat_map(W, color, 2.9)
            cap = get_text(f"head {h}", font_size=LABEL_SIZE, color=color).next_to(m, UP, buff=0.12)
            j = top_sources(W[receiver], 1)[0]
            best = VGroup(get_text(f"row {n}: most to {token_label(tokens[j])}", font_size=SMALL_SIZE,
                                   color=DIM_TEXT_COLOR),
                          get_number(W[receiver, j], tag="four_heads_top", index=(h - 1, j), font_size=SMALL_SIZE,
                                     color=color)).arrange(DOWN, buff=0.06)
            best.next_to(m, DOWN, buff=0.15)
            panel = VGroup(cap, m, best)
            panel.map, panel.best = m, best
            maps.add(panel)
        maps.arrange(RIGHT, buff=0.45, aligned_edge=UP)
        fit_content(maps)
        self.heat_four = [p.map for p in maps]
        self.play(LaggedStart(*(FadeIn(p) for p in maps), lag_ratio=0.3), run_time=2.0)
        self.caption(f"Each head has its own {n}×{n} attention matrix; the four heads weight the same "
                     "sources differently.")
        self.caption("This is one story from one seed: a glimpse of these checkpoints, "
                     "not a general map of what heads do.")
        self.finish_reading(extra=0.5)
        self.play(FadeOut(maps))

        # --- Shots 4–6: greedy continuations --------------------------------------------------
        device = get_text(f"greedy, {cont['tokens']} tokens · seed-11 checkpoints in PyTorch · latency per model "
                          f"call measured on {device_words(cont['device'])}", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        self.panels = []
        for k, kind in enumerate(KIND_ORDER):
            self.shot(f"{kind} prompt")
            panel = get_continuation_panel(cont, titles, kind)
            block = VGroup(panel, device.copy()).arrange(DOWN, buff=0.45, aligned_edge=LEFT)
            fit_content(block)
            self.panels.append(panel)
            self.play(FadeIn(block[0].head))
            self.play(LaggedStart(*(FadeIn(r) for r in panel.rows), lag_ratio=0.4), FadeIn(panel.lat_head),
                      FadeIn(block[1]), run_time=1.5)
            if kind == "training":
                self.caption("These continuations come from the actual seed-11 checkpoints, run in PyTorch "
                             "on the CPU, one token per model call.")
            elif kind == "held_out":
                self.caption("Training, held-out and outside-domain prompts; generation was measured locally: "
                             "the median milliseconds per model call.")
            else:
                self.caption("The outside-domain prompt is unlike the training stories; "
                             "greedy decoding still continues in their style.")
            self.finish_reading(extra=1.0)
            if k < len(KIND_ORDER) - 1:
                self.play(FadeOut(block))
        self.caption("One story, one seed, one machine: illustrations of these trained checkpoints, "
                     "not general claims.")
        self.finish_reading(extra=1.0)
