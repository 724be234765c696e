"""Chapter 2, scenes 5–7: the worksheet's setup, the shape flow, and the per-head projections.

Every token, count, shape and number comes from the worksheet of the sentence chosen by
LESSON_SENTENCE (default "river"); captions follow the lesson notes (docs/lesson-notes.txt).

    manim -pql scenes/chapter2/setup_and_shapes.py Setup
    manim -pql scenes/chapter2/setup_and_shapes.py ShapeFlow
    manim -pql scenes/chapter2/setup_and_shapes.py Projections
"""
from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    Arrow,
    Create,
    DashedVMobject,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    Polygon,
    Rectangle,
    ReplacementTransform,
    SurroundingRectangle,
    VGroup,
)

from lesson_data.worksheet import AXES
from scenes.blocks.attention_arrows import TokenRow, get_token_row
from scenes.blocks.labeled_matrix import get_labeled_matrix, get_row_vector
from scenes.blocks.shape_box import get_shape_box
from scenes.style import (
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
    NUMBER_SIZE,
    RECEIVER_COLOR,
    SAFE_WIDTH,
    SMALL_SIZE,
    TEXT_COLOR,
    LessonScene,
    count_word,
    fit_content,
    format_shape,
    get_fine_print,
    get_number,
    get_text,
    get_title,
    head_color,
    scene_worksheet,
    sub,
    sup,
)


def display_words(ws) -> list[str]:
    """The prefix as written (original case) when it lines up with the tokens, else the tokens."""
    words = ws.text.split()
    return words if len(words) == ws.n else list(ws.tokens)


def selected_axes(W) -> list[str]:
    """The input axes a [4, d] projection reads: the rows with any non-zero entry."""
    return [AXES[i] for i in range(len(AXES)) if np.any(np.asarray(W)[i] != 0)]


def join_words(words: list[str]) -> str:
    return " and ".join(words) if len(words) <= 2 else ", ".join(words[:-1]) + " and " + words[-1]


# ============================================================================================
# Scene 5 — Setup
# ============================================================================================


class Setup(LessonScene):
    """Scene 5: the prefix, its positions, the receiver, the blank with no query; the words become
    the row labels of E = token rows + position rows."""

    def construct(self):
        ws = self.ws = scene_worksheet()
        title = get_title("The two-head worksheet: setup")
        with self.transition("title"):
            self.play(FadeIn(title))
        # --- Shot 1: the prefix, its positions, the receiver, the blank -------------------------
        self.shot("prefix")
        self.show_prefix(ws)
        self.show_positions(ws)
        self.show_receiver(ws)
        self.show_blank()
        # --- Shot 2: each word a row of four numbers; E = token rows + position rows ------------
        self.shot("embedding rows")
        self.show_rows_become_tables(ws)
        self.show_sum(ws)
        self.show_receiver_row(ws)
        self.show_invented_axes()

    # pictures ---------------------------------------------------------------------------------
    def get_prefix(self, ws) -> TokenRow:
        return get_token_row(display_words(ws), blank=True).move_to(CONTENT_CENTER + UP * 0.4)

    @staticmethod
    def get_tables(ws) -> VGroup:
        """token rows + position rows = E, each [n, 4], the words and positions as row labels; the
        axis names once, over the token rows (the three tables share their columns and rows)."""
        n = ws.n
        kw = dict(places=None, dim_zeros=True, font_size=NUMBER_SIZE, label_size=LABEL_SIZE, v_buff=0.08)
        token_m = get_labeled_matrix(ws.token_rows, display_words(ws), list(AXES), tag="token_rows",
                                     name=f"token rows  {format_shape(ws.token_rows.shape)}", **kw)
        pos_m = get_labeled_matrix(ws.position_rows, [str(p) for p in range(1, n + 1)], None,
                                   name=f"position rows  {format_shape(ws.position_rows.shape)}",
                                   tag="position_rows", **kw)
        e_m = get_labeled_matrix(ws.E, None, None, name=f"E  {format_shape(ws.E.shape)}", tag="E", **kw)
        plus = get_text("+", font_size=BODY_SIZE + 6)
        equals = get_text("=", font_size=BODY_SIZE + 6)
        group = VGroup(token_m, plus, pos_m, equals, e_m).arrange(RIGHT, buff=0.3, aligned_edge=DOWN)
        for m in (pos_m, e_m):        # one line of names over the three tables
            m.name_label.set_y(token_m.name_label.get_y())
        group.move_to(CONTENT_CENTER + UP * 0.3)     # room below for the fine print
        # operators on the matrices' middle row, not on the middle of the labels
        middle = (token_m.cell_center(0, 0)[1] + token_m.cell_center(n - 1, 0)[1]) / 2
        plus.set_y(middle)
        equals.set_y(middle)
        group.token_m, group.pos_m, group.e_m, group.plus, group.equals = token_m, pos_m, e_m, plus, equals
        return group

    # beats ------------------------------------------------------------------------------------
    def show_prefix(self, ws):
        prefix = self.prefix = self.get_prefix(ws)
        with self.beat(f"Here is our sentence: “{ws.text}”, and then a blank.",
                       spoken=f"Here is our sentence: {ws.text}, and then a blank."):
            self.play(LaggedStart(*(FadeIn(VGroup(b, w), shift=0.2 * UP)
                                    for b, w in zip(prefix.boxes, prefix.words)), lag_ratio=0.12),
                      run_time=2.0)
            self.play(FadeIn(prefix.blank))

    def show_positions(self, ws):
        with self.beat(f"Every token has a position, from 1 to {ws.n}."):
            self.play(LaggedStart(*(FadeIn(p, shift=0.1 * UP) for p in self.prefix.positions),
                                  lag_ratio=0.1), run_time=1.5)

    def show_receiver(self, ws):
        n = ws.n
        box = self.prefix.boxes[n - 1]
        fill = box.copy().set_stroke(RECEIVER_COLOR, 3).set_fill(RECEIVER_COLOR, HIGHLIGHT_OPACITY)
        label = get_text("receiver", font_size=LABEL_SIZE, color=RECEIVER_COLOR).next_to(box, UP, buff=0.2)
        self.receiver_marks = VGroup(fill, label)
        with self.beat(f"The last known token, “{ws.tokens[-1]}” at position {n}, is the receiver: "
                       "it gathers information from the tokens before it."):
            self.play(FadeIn(fill), FadeIn(label, shift=0.2 * DOWN))

    def show_blank(self):
        label = VGroup(*(get_text(t, font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
                         for t in ("no query", "yet"))).arrange(DOWN, buff=0.06)
        self.no_query = label.next_to(self.prefix.blank, DOWN, buff=0.2)
        with self.beat("The blank is the word we want to predict. It has no query yet."):
            self.play(FadeIn(label, shift=0.2 * UP), Indicate(self.prefix.blank, color=TEXT_COLOR))

    def show_rows_become_tables(self, ws):
        tables = self.tables = self.get_tables(ws)
        self.embedding_sum = tables
        token_m, pos_m = tables.token_m, tables.pos_m
        prefix = self.prefix
        with self.beat("Each token becomes a row of four numbers, and so does each position."):
            # the words and position numbers travel to become the tables' row labels
            self.play(FadeOut(VGroup(prefix.boxes, prefix.blank, self.receiver_marks, self.no_query)),
                      *(ReplacementTransform(w, label) for w, label in zip(prefix.words, token_m.row_labels)),
                      *(ReplacementTransform(p, label) for p, label in zip(prefix.positions, pos_m.row_labels)),
                      run_time=1.6)
            self.play(FadeIn(VGroup(token_m.brackets, token_m.entries, token_m.col_labels, token_m.name_label)),
                      FadeIn(VGroup(pos_m.brackets, pos_m.entries, pos_m.col_labels, pos_m.name_label)))

    def show_sum(self, ws):
        tables = self.tables
        with self.beat(f"Add them, and you get E: one position-aware row per token, "
                       f"shape {format_shape(ws.E.shape)}."):
            self.play(FadeIn(tables.plus), FadeIn(tables.equals), FadeIn(tables.e_m, shift=0.3 * LEFT))
            note = self.fine_print = get_fine_print(
                "E contains position-aware embedding rows, not token IDs.")
            note.next_to(tables, DOWN, buff=0.12).align_to(tables, LEFT)
            self.play(FadeIn(note))

    def show_receiver_row(self, ws):
        n = ws.n
        t = self.tables
        boxes = VGroup(t.token_m.get_row_box(n - 1, include_label=True),
                       t.pos_m.get_row_box(n - 1, include_label=True), t.e_m.get_row_box(n - 1))
        self.receiver_rows = boxes
        with self.beat(f"Row {n} of E is the receiver: the row of “{ws.tokens[-1]}” plus position row {n}."):
            self.play(LaggedStart(*(Create(b) for b in boxes), lag_ratio=0.3), run_time=1.5)

    def show_invented_axes(self):
        token_m = self.tables.token_m
        glue_box = token_m.get_column_box(list(AXES).index("glue"), color=TEXT_COLOR, fill_opacity=0.0)
        note = get_fine_print("The water, finance, person and glue axes are invented for teaching; "
                              "glue is our toy feature for function words such as “the”.")
        note.next_to(self.tables, DOWN, buff=0.12).align_to(self.tables, LEFT)
        with self.beat("The four columns are invented for teaching: water, finance, person, and glue, "
                       "our toy feature for little words like “the”."):
            self.play(Indicate(token_m.col_labels, color=RECEIVER_COLOR, scale_factor=1.1))
            self.play(Create(glue_box), FadeOut(self.fine_print), FadeIn(note))
        self.glue_box = glue_box


# ============================================================================================
# Scene 6 — Shape flow
# ============================================================================================

FLOW_UNIT = 0.13   # scene units per array row/column in the shape boxes


def get_arrow(start, end, color=DIM_TEXT_COLOR) -> Arrow:
    # a fixed tip, so short and long arrows look alike
    return Arrow(start, end, buff=0.1, stroke_width=3, tip_length=0.16, max_tip_length_to_length_ratio=0.5,
                 max_stroke_width_to_length_ratio=20, color=color)


def get_qkv_trio(head, n: int) -> VGroup:
    """Q, K, V of one head as three thin boxes with one shared shape label ("each [n, d]")."""
    color = head_color(head.index)
    h = sup(head.index)
    boxes = VGroup(*(
        get_shape_box(f"{name}{h}", None, color=color, width=FLOW_UNIT * m.shape[1], height=FLOW_UNIT * m.shape[0])
        for name, m in (("Q", head.Q), ("K", head.K), ("V", head.V))
    )).arrange(RIGHT, buff=0.14, aligned_edge=DOWN)
    shapes = {head.Q.shape, head.K.shape, head.V.shape}
    text = f"each {format_shape(head.Q.shape)}" if len(shapes) == 1 else "  ".join(
        format_shape(s) for s in (head.Q.shape, head.K.shape, head.V.shape))
    label = get_text(text, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).next_to(boxes, DOWN, buff=BUFF_SMALL)
    trio = VGroup(boxes, label)
    trio.boxes, trio.shape_label = boxes, label
    return trio


def get_masked_box(name: str, shape, color) -> VGroup:
    """A square attention-shaped box with its future (upper) triangle in the mask colour."""
    box = get_shape_box(name, shape, color=color, unit=FLOW_UNIT)
    r = box.box
    tri = Polygon(r.get_corner(UP + LEFT), r.get_corner(UP + RIGHT), r.get_corner(DOWN + RIGHT))
    tri.set_stroke(width=0).set_fill(MASK_COLOR, 1.0)
    box.add(tri)
    box.mask_triangle = tri
    return box


def get_head_lane(head, n: int) -> VGroup:
    """Q,K,V → QKᵀ → (÷√d, mask, softmax) → A → H = AV for one head, left to right."""
    color = head_color(head.index)
    h = sup(head.index)
    d_k = head.Q.shape[1]
    trio = get_qkv_trio(head, n)
    scores = get_shape_box(f"Q{h}K{h}ᵀ", head.scores.shape, color=color, unit=FLOW_UNIT)
    weights = get_masked_box(f"A{h}", head.weights.shape, color)
    messages = get_shape_box(f"H{h} = A{h}V{h}", head.messages.shape, color=color, unit=FLOW_UNIT)
    steps = VGroup(*(get_text(t, font_size=SMALL_SIZE, color=TEXT_COLOR)
                     for t in (f"÷√{d_k}", "mask", "softmax"))).arrange(DOWN, buff=0.06)
    lane = VGroup(trio, scores, weights, messages).arrange(RIGHT, buff=0.9)
    # the softmax step needs a longer arrow with its three-step label above
    weights.shift(RIGHT * 0.6)
    messages.shift(RIGHT * 0.6)
    a1 = get_arrow(trio.boxes.get_right(), scores.box.get_left())
    a2 = get_arrow(scores.box.get_right(), weights.box.get_left())
    a3 = get_arrow(weights.box.get_right(), messages.box.get_left())
    steps.next_to(a2, UP, buff=0.08)
    lane.add(a1, a2, a3, steps)
    lane.trio, lane.scores, lane.weights, lane.messages = trio, scores, weights, messages
    lane.arrows, lane.steps = VGroup(a1, a2, a3), steps
    return lane


def get_row_strip(box, color=RECEIVER_COLOR) -> Rectangle:
    """The receiver's (last) row of a shape box, drawn as a strip along its bottom."""
    r = box.box if hasattr(box, "box") else box
    strip = Rectangle(width=r.width, height=FLOW_UNIT).set_stroke(color, 2).set_fill(color, 0.6)
    return strip.move_to(r.get_bottom(), aligned_edge=DOWN)


class ShapeFlow(LessonScene):
    def construct(self):
        ws = scene_worksheet()
        self.ws = ws
        n, d_model = ws.E.shape
        h1, h2 = ws.heads
        title = get_title("Shape flow: one sentence, two heads")
        self.play(FadeIn(title))

        # --- Shot 1: E, one sentence, no batch axis -----------------------------------------------
        self.shot("one sentence")
        e_box = get_shape_box("E", ws.E.shape, unit=FLOW_UNIT)
        lanes = VGroup(get_head_lane(h1, n), get_head_lane(h2, n)).arrange(DOWN, buff=0.75, aligned_edge=LEFT)
        flow = VGroup(e_box, lanes).arrange(RIGHT, buff=1.0)
        fit_content(flow)
        e_box.set_y(lanes.get_center()[1])
        self.e_box, self.lanes = e_box, lanes
        self.play(FadeIn(e_box))
        self.caption(f"One sentence, without a batch axis: E has shape {format_shape(ws.E.shape)}.")

        # --- Shot 2: per-head Q, K, V ---------------------------------------------------------------
        self.shot("projections")
        feeds = VGroup(*(get_arrow(e_box.box.get_right(), lane.trio.boxes.get_left(), color=head_color(k + 1))
                         for k, lane in enumerate(lanes)))
        self.play(*(GrowArrow(a) for a in feeds), *(FadeIn(lane.trio) for lane in lanes))
        self.feeds = feeds
        self.caption(f"Each head has separate W_Q, W_K and W_V of shape {format_shape(h1.W_Q.shape)}, "
                     f"producing Q, K and V each {format_shape(h1.Q.shape)}.")

        # --- Shot 3: scores ----------------------------------------------------------------------
        self.shot("scores")
        self.play(*(GrowArrow(lane.arrows[0]) for lane in lanes), *(FadeIn(lane.scores) for lane in lanes))
        kt = (h1.K.shape[1], h1.K.shape[0])
        self.caption(f"QKᵀ multiplies {format_shape(h1.Q.shape)} by {format_shape(kt)} "
                     f"to give {format_shape(h1.scores.shape)} scores.")

        # --- Shot 4: scale, mask, softmax keep the shape ------------------------------------------
        self.shot("softmax")
        self.play(*(GrowArrow(lane.arrows[1]) for lane in lanes), *(FadeIn(lane.steps) for lane in lanes))
        self.play(*(FadeIn(lane.weights) for lane in lanes))
        self.caption("Scaling, causal masking and row-wise softmax preserve that shape. "
                     "A has one row per receiver and one column per source.")

        # --- Shot 5: messages, and which labels mean what ------------------------------------------
        self.shot("messages")
        self.play(*(GrowArrow(lane.arrows[2]) for lane in lanes), *(FadeIn(lane.messages) for lane in lanes))
        self.caption(f"H = AV multiplies {format_shape(h1.weights.shape)} by {format_shape(h1.V.shape)} "
                     f"to produce {format_shape(h1.messages.shape)}: one message per receiver.")
        lane = lanes[0]
        strips = VGroup(*(get_row_strip(b) for b in lane.trio.boxes), get_row_strip(lane.weights),
                        get_row_strip(lane.messages))
        h = sup(1)
        legend = get_text(f"row {n}:  q{h}{sub(n)}, k{h}{sub(n)}, v{h}{sub(n)}, m{h}{sub(n)}  each "
                          f"{format_shape((1, h1.Q.shape[1]))}", font_size=SMALL_SIZE, color=RECEIVER_COLOR)
        legend.move_to((lanes[0].get_bottom() + lanes[1].get_top()) / 2).align_to(lanes, LEFT)
        self.receiver_strips, self.legend = strips, legend
        self.play(FadeIn(strips), FadeIn(legend))
        self.caption("A head-specific superscript labels a head; a subscript still labels a token. "
                     f"The final receiver’s q, k, v and message rows are each {format_shape((1, h1.Q.shape[1]))}.")

        # --- Shot 6: join the heads, project, add, predict ----------------------------------------
        self.shot("joining")
        self.finish_reading()
        self.show_joining(ws)

    def show_joining(self, ws):
        n, d_model = ws.E.shape
        h1, h2 = ws.heads
        keep = VGroup(self.lanes[0].messages, self.lanes[1].messages)
        drop = VGroup(self.e_box, self.feeds, self.receiver_strips, self.legend,
                      *(VGroup(*(m for m in lane if m is not lane.messages)) for lane in self.lanes))
        self.play(FadeOut(drop), keep.animate.arrange(DOWN, buff=0.4).to_edge(LEFT, buff=0.6).set_y(CONTENT_CENTER[1]))

        concat = get_shape_box(f"concat [H{sup(1)} | H{sup(2)}]", ws.H_joined.shape, unit=FLOW_UNIT)
        half = concat.box.width * h1.messages.shape[1] / ws.H_joined.shape[1]
        left_half = Rectangle(width=half, height=concat.box.height).set_stroke(width=0)
        left_half.set_fill(head_color(1), 0.6).move_to(concat.box, aligned_edge=LEFT)
        right_half = Rectangle(width=concat.box.width - half, height=concat.box.height).set_stroke(width=0)
        right_half.set_fill(head_color(2), 0.6).move_to(concat.box, aligned_edge=RIGHT)
        concat.box.set_fill(opacity=0)
        concat.add_to_back(left_half, right_half)
        concat.halves = VGroup(left_half, right_half)
        w_o = get_shape_box("W_O", ws.W_O.shape, unit=FLOW_UNIT)
        delta = get_shape_box("ΔE", ws.delta_E.shape, unit=FLOW_UNIT)
        e_prime = get_shape_box("E′ = E + ΔE", ws.E_prime.shape, unit=FLOW_UNIT)
        last = get_shape_box(f"e′{sub(n)}", (1, d_model), unit=FLOW_UNIT)
        mlp = get_shape_box("MLP", None, width=0.9, height=0.7, name_inside=True)
        vocab = len(ws.mlp.probabilities)
        probs = get_shape_box("p", (1, vocab), unit=FLOW_UNIT, shape_text=f"{format_shape((1, vocab))} words")
        # concat · W_O = ΔE, then arrows: + E (residual), last row, MLP, probabilities
        stages = [concat, w_o, delta, e_prime, last, mlp, probs]
        links = ["·", "=", "+ E", "last row", "", ""]
        chain = VGroup(*stages)
        x = 0.0
        for k, stage in enumerate(stages):
            stage.shift(RIGHT * (x - stage.box.get_left()[0]) + UP * (0 - stage.box.get_center()[1]))
            if k < len(links):
                # the gap must hold the link and keep this label clear of the next one
                nxt = stages[k + 1]
                overhang = max(0, (stage.width - stage.box.width) / 2) + max(0, (nxt.width - nxt.box.width) / 2)
                gap = max(0.55 if links[k] in ("·", "=") else 1.0, overhang + 0.3,
                          get_text(links[k] or "·", font_size=SMALL_SIZE).width + 0.5)
                x = stage.box.get_right()[0] + gap
        fit_content(chain, width=SAFE_WIDTH)
        chain.shift(UP * (CONTENT_CENTER[1] - concat.box.get_center()[1]))
        connectors = VGroup()
        for k, link in enumerate(links):
            left, right = stages[k].box.get_right(), stages[k + 1].box.get_left()
            if link in ("·", "="):
                connectors.add(get_text(link, font_size=BODY_SIZE).move_to((left + right) / 2))
            else:
                arrow = get_arrow(left, right)
                if link:
                    arrow = VGroup(arrow, get_text(link, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
                                   .next_to(arrow, UP, buff=0.06))
                connectors.add(arrow)
        self.chain, self.chain_links = chain, connectors

        self.play(keep.animate.move_to(concat.box), run_time=1.0)
        self.play(FadeOut(keep), FadeIn(concat))
        self.caption(f"H¹ and H² concatenate to {format_shape(ws.H_joined.shape)}.")
        self.play(FadeIn(connectors[0]), FadeIn(w_o))
        self.play(FadeIn(connectors[1]), FadeIn(delta))
        self.caption(f"W_O {format_shape(ws.W_O.shape)} gives ΔE {format_shape(ws.delta_E.shape)}, "
                     f"then E′ = E + ΔE is also {format_shape(ws.E_prime.shape)}.")
        self.play(FadeIn(connectors[2]), FadeIn(e_prime))
        self.play(FadeIn(connectors[3]), FadeIn(last))
        self.play(FadeIn(connectors[4]), FadeIn(mlp), FadeIn(connectors[5]), FadeIn(probs))
        self.caption(f"Its last row {format_shape((1, d_model))} feeds the prediction MLP. In general W_O is "
                     "[n_heads × d_v, d_model], not an inverse of the input projections.")
        self.finish_reading(extra=1.0)


# ============================================================================================
# Scene 7 — Projections
# ============================================================================================


def get_dot_product_line(ws, head, k: int) -> VGroup:
    """q^h_n[k] = Σ_i e_n[i] × W_Q^h[i, k] written out term by term, = the worksheet's Q[n-1, k]."""
    n, h = ws.n, head.index
    e_row, color = ws.E[n - 1], head_color(h)
    coord = "ab"[k] if head.Q.shape[1] <= 2 else str(k + 1)
    parts = [get_text(f"q{sup(h)}{sub(n)} ({coord})  =", font_size=LABEL_SIZE, color=color)]
    for i in range(len(e_row)):
        if i:
            parts.append(get_text("+", font_size=LABEL_SIZE))
        parts.append(VGroup(
            get_number(e_row[i], tag=f"dot_e{h}", index=(k, i), color=RECEIVER_COLOR),
            get_text("×", font_size=SMALL_SIZE),
            get_number(head.W_Q[i, k], tag=f"dot_w{h}", index=(k, i), color=color),
        ).arrange(RIGHT, buff=0.06))
    parts.append(get_text("=", font_size=LABEL_SIZE))
    result = get_number(head.Q[n - 1, k], tag=f"dot_q{h}", index=k, font_size=NUMBER_SIZE + 2, color=color)
    parts.append(result)
    line = VGroup(*parts).arrange(RIGHT, buff=0.14)
    line.result = result
    return line


def get_query_panel(ws, head) -> VGroup:
    """W_Q^h (rows: input axes) → q^h_n, the head's one query at the receiver."""
    n, h, color = ws.n, head.index, head_color(head.index)
    coords = ["a", "b"] if head.W_Q.shape[1] == 2 else [str(k + 1) for k in range(head.W_Q.shape[1])]
    w_q = get_labeled_matrix(head.W_Q, list(AXES), coords, name=f"W_Q{sup(h)}  {format_shape(head.W_Q.shape)}",
                             tag=f"W_Q{h}", color=color, name_color=color)
    q = get_row_vector(head.Q[n - 1], coords, name=f"q{sup(h)}{sub(n)}  {format_shape((1, head.Q.shape[1]))}",
                       tag=f"q{h}", color=color, name_color=color)
    panel = VGroup(w_q, q).arrange(RIGHT, buff=0.9)
    q.set_y(w_q.get_center()[1])
    arrow = get_arrow(w_q.get_right(), q.brackets.get_left(), color=color)
    panel.add(arrow)
    panel.w_q, panel.q, panel.arrow = w_q, q, arrow
    return panel


def get_key_value_panel(head) -> VGroup:
    """W_K^h (= W_V^h when their entries are equal) with the rows it reads highlighted."""
    h, color = head.index, head_color(head.index)
    same = np.array_equal(head.W_K, head.W_V)
    name = f"W_K{sup(h)} = W_V{sup(h)}" if same else f"W_K{sup(h)}"
    coords = ["a", "b"] if head.W_K.shape[1] == 2 else None
    w_k = get_labeled_matrix(head.W_K, list(AXES), coords, name=f"{name}  {format_shape(head.W_K.shape)}",
                             tag=f"W_K{h}", color=color, name_color=color)
    reads = selected_axes(head.W_K)
    who = "keys and values" if same else "keys"
    note = get_text(f"{who} read\n{' + '.join(reads)}", font_size=LABEL_SIZE, color=color)
    note.next_to(w_k, RIGHT, buff=BUFF)
    panel = VGroup(w_k, note)
    panel.w_k, panel.note, panel.reads = w_k, note, reads
    return panel


def get_read_boxes(panel) -> VGroup:
    """Highlight boxes over the rows (input axes) a key/value panel reads; call after layout."""
    color = panel.w_k.cell(0, 0).get_color()
    return VGroup(*(panel.w_k.get_row_box(list(AXES).index(a), color=color, include_label=True)
                    for a in panel.reads))


class Projections(LessonScene):
    def construct(self):
        ws = scene_worksheet()
        self.ws = ws
        n = ws.n
        title = get_title("Projections: one query per head")
        self.play(FadeIn(title))

        # --- Shot 1: the receiver's row and the two W_Q -------------------------------------------
        self.shot("receiver row and W_Q")
        e_vec = get_row_vector(ws.E[n - 1], list(AXES), tag="E_row", color=RECEIVER_COLOR)
        e_label = get_text(f"e{sub(n)} = row {n} of E  {format_shape((1, ws.E.shape[1]))}\n"
                           f"the receiver “{ws.tokens[-1]}”", font_size=LABEL_SIZE, color=RECEIVER_COLOR)
        e_label.next_to(e_vec.brackets, LEFT, buff=BUFF)
        e_row = VGroup(e_label, e_vec)
        e_row.vector = e_vec
        panels = VGroup(*(get_query_panel(ws, head) for head in ws.heads)).arrange(RIGHT, buff=1.2)
        kv_panels = VGroup(*(get_key_value_panel(head) for head in ws.heads))
        for kv, panel in zip(kv_panels, panels):
            kv.move_to(panel, aligned_edge=LEFT)
        layout = VGroup(e_row, panels, kv_panels).arrange(DOWN, buff=0.35)
        for kv, panel in zip(kv_panels, panels):
            kv.align_to(panel, LEFT)
        fit_content(layout)
        self.e_row, self.panels, self.kv_panels = e_row, panels, kv_panels
        for panel in panels:  # the query entries appear only once they are computed
            panel.q.entries.set_opacity(0)
        self.play(FadeIn(e_row))
        self.caption(f"E contains position-aware embedding rows, not token IDs; the receiver’s row is row {n}.")
        self.play(*(FadeIn(VGroup(p.w_q, p.arrow, p.q.brackets, p.q.name_label, p.q.col_labels)) for p in panels))
        self.caption("Each head learns its own W_Q, W_K and W_V, applied to the same input rows. "
                     "W_Q reads all four input coordinates.")

        # --- Shots 2–3: each query coordinate is a dot product with one column of W_Q -------------
        for head, panel in zip(ws.heads, panels):
            self.shot(f"query head {head.index}")
            if head.index == 1:
                self.caption("Each query coordinate is a dot product with one column of W_Q.")
            self.show_query(ws, head, panel, kv_panels.get_center())
        self.caption("At this receiver that produces one query per head. Superscripts label heads, not powers.")

        # --- Shot 4: keys and values read different axes ------------------------------------------
        self.shot("keys and values")
        for kv in kv_panels:
            kv.boxes = get_read_boxes(kv)
            self.play(FadeIn(kv.w_k), FadeIn(kv.boxes), FadeIn(kv.note))
        self.caption("; ".join(
            (f"Head {head.index} uses W_K = W_V, selecting {join_words(kv.reads)}"
             if np.array_equal(head.W_K, head.W_V) else f"Head {head.index}’s W_K selects {join_words(kv.reads)}")
            for head, kv in zip(ws.heads, kv_panels)) + ".")
        self.caption("W_K and W_V are distinct parameters with equal numerical entries in this worksheet. "
                     "These sparse matrices are hand-chosen; learned projections need not be sparse or interpretable.")

        # --- Shot 5: both heads, in parallel ------------------------------------------------------
        self.shot("parallel")
        self.caption(f"Both heads can read all {count_word(n)} known tokens and run in parallel. "
                     "Training does not assign setting and person labels.")
        self.finish_reading(extra=1.0)

    def show_query(self, ws, head, panel, where):
        n, color = ws.n, head_color(head.index)
        row_box = self.e_row.vector.get_row_box(0, color=RECEIVER_COLOR)
        lines = VGroup(*(get_dot_product_line(ws, head, k) for k in range(head.Q.shape[1])))
        lines.arrange(DOWN, buff=0.35, aligned_edge=LEFT).move_to(where)
        if lines.width > SAFE_WIDTH:
            lines.scale_to_fit_width(SAFE_WIDTH)
        self.play(Create(row_box))
        for k, line in enumerate(lines):
            col_box = panel.w_q.get_column_box(k, color=color)
            self.play(Create(col_box), FadeIn(line), run_time=0.8)
            self.wait(1.2)  # time to read the four products
            cell = panel.q.cell(0, k)
            self.play(cell.animate.set_opacity(1), Indicate(line.result, color=color, scale_factor=1.15),
                      run_time=0.8)
            self.play(FadeOut(col_box), run_time=0.4)
        self.wait(0.6)
        self.play(FadeOut(lines), FadeOut(row_box), run_time=0.6)
