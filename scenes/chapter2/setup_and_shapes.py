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
    Create,
    FadeIn,
    FadeOut,
    GrowArrow,
    Indicate,
    LaggedStart,
    Line,
    Rectangle,
    ReplacementTransform,
    Restore,
    SurroundingRectangle,
    Transform,
    TransformFromCopy,
    VGroup,
    linear,
    there_and_back,
)

from lesson_data.display import fmt, places_for
from lesson_data.projections import (axes_read, copied_axes, differing_columns, dot_terms, rows_sharing_token,
                                     shown_rows, unused_by_query)
from lesson_data.word_examples import even_weights
from lesson_data.worksheet import AXES
from narration.spoken import spoken_form
from scenes.blocks.attention_arrows import TokenRow, get_attention_arrows, get_token_row
from scenes.blocks.elided_matrix import get_row_elided_matrix
from scenes.blocks.flow_arrow import get_arrow
from scenes.blocks.labeled_matrix import get_labeled_matrix, get_row_vector
from scenes.blocks.shape_box import get_shape_box
from scenes.blocks.shape_flow import (
    get_column_strip,
    get_concat_box,
    get_masked_box,
    get_plus_node,
    get_routed_arrow,
    get_row_strip,
)
from scenes.style import (
    BODY_SIZE,
    BUFF,
    BUFF_SMALL,
    CONTENT_BOTTOM,
    CONTENT_CENTER,
    CONTENT_HEIGHT,
    CONTENT_TOP,
    DIM_TEXT_COLOR,
    FRAME_WIDTH,
    HIGHLIGHT_OPACITY,
    LABEL_SIZE,
    NUMBER_SIZE,
    RECEIVER_COLOR,
    SAFE_WIDTH,
    SMALL_SIZE,
    TEXT_COLOR,
    LessonScene,
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
)


def display_words(ws) -> list[str]:
    """The prefix as written (original case) when it lines up with the tokens, else the tokens."""
    words = ws.text.split()
    return words if len(words) == ws.n else list(ws.tokens)


# ============================================================================================
# Scene 5 — Setup
# ============================================================================================

PREFIX_POSITION_SIZE = 22     # the prefix's position numbers, read from the back of the room


# What chapter 2 does, said first (scene 5 opens the chapter).
CHAPTER_FRAMING = ("This chapter is the two-head worksheet: we take one sentence and compute every number by hand, "
                   "step by step, from the input rows to a prediction.")

AXES_CAVEAT = ("The water, finance, person and glue axes are invented for teaching; glue is our toy feature "
               "for function words such as “the”.")


class Setup(LessonScene):
    """Scene 5: the prefix, its positions, the receiver, the blank with no query; the words become
    the row labels of E = token rows + position rows."""

    def construct(self):
        ws = self.ws = scene_worksheet()
        title = get_title("The two-head worksheet: setup")
        # the chapter's opening line, as a teacher opens a lesson: its title, and the road the worksheet takes
        plan = self.get_plan()
        with self.beat(CHAPTER_FRAMING, look=0.6):
            self.play(FadeIn(title))
            self.play(LaggedStart(*(FadeIn(part, shift=0.1 * RIGHT) for part in plan), lag_ratio=0.5),
                      run_time=2.4)
        self.give_way(plan)     # the sentence takes its place
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
        self.show_same_token(ws)
        self.show_e_labeled(ws)
        self.show_invented_axes()

    # pictures ---------------------------------------------------------------------------------
    @staticmethod
    def get_plan() -> VGroup:
        """The chapter's road in one line: input rows → head 1 and head 2 → a prediction."""
        rows = get_text("input rows", font_size=BODY_SIZE)
        heads = VGroup(*(get_text(f"head {h}", font_size=BODY_SIZE, color=head_color(h)) for h in (1, 2)))
        heads.arrange(DOWN, buff=0.25)
        prediction = get_text("a prediction", font_size=BODY_SIZE)
        row = VGroup(rows, heads, prediction).arrange(RIGHT, buff=1.4).move_to(CONTENT_CENTER)
        arrows = VGroup(get_arrow(rows.get_right(), heads.get_left()),
                        get_arrow(heads.get_right(), prediction.get_left()))
        return VGroup(rows, arrows[0], heads, arrows[1], prediction)

    def get_prefix(self, ws) -> TokenRow:
        """The prefix large (the frame is otherwise empty), its position numbers enlarged with it."""
        row = get_token_row(display_words(ws), blank=True, font_size=BODY_SIZE + 8)
        for p, box in zip(row.positions, row.boxes):
            p.scale(PREFIX_POSITION_SIZE / 16).next_to(box, DOWN, buff=0.14)
        return row.move_to(CONTENT_CENTER + UP * 0.2)

    @staticmethod
    def get_labeled_e(ws) -> VGroup:
        """E on its own, centred and larger: the words as its row labels, the axes over its columns."""
        m = get_row_elided_matrix(ws.E, shown_rows(ws.n), display_words(ws), list(AXES), tag="E",
                                  name=f"E  {format_shape(ws.E.shape)}", places=None, dim_zeros=True,
                                  font_size=NUMBER_SIZE + 4, label_size=LABEL_SIZE + 2, v_buff=0.1, h_buff=0.3)
        if m.height > CONTENT_HEIGHT - 0.5:
            m.scale((CONTENT_HEIGHT - 0.5) / m.height)
        return m.move_to(CONTENT_CENTER + UP * 0.3)

    @staticmethod
    def get_tables(ws) -> VGroup:
        """token rows + position rows = E, each [n, 4], the words and positions as row labels; the
        axis names once, over the token rows (the three tables share their columns and rows). A
        long prefix shows its first and last rows, the receiver's among them, "⋮" between."""
        n = ws.n
        rows = shown_rows(n)
        kw = dict(places=None, dim_zeros=True, font_size=NUMBER_SIZE, label_size=LABEL_SIZE, v_buff=0.08)
        token_m = get_row_elided_matrix(ws.token_rows, rows, display_words(ws), list(AXES), tag="token_rows",
                                        name=f"token rows  {format_shape(ws.token_rows.shape)}", **kw)
        pos_m = get_row_elided_matrix(ws.position_rows, rows, [str(p) for p in range(1, n + 1)], None,
                                      name=f"position rows  {format_shape(ws.position_rows.shape)}",
                                      tag="position_rows", **kw)
        e_m = get_row_elided_matrix(ws.E, rows, None, None, name=f"E  {format_shape(ws.E.shape)}", tag="E", **kw)
        plus = get_text("+", font_size=BODY_SIZE + 6)
        equals = get_text("=", font_size=BODY_SIZE + 6)
        group = VGroup(token_m, plus, pos_m, equals, e_m).arrange(RIGHT, buff=0.3, aligned_edge=DOWN)
        for m in (pos_m, e_m):        # one line of names over the three tables
            m.name_label.set_y(token_m.name_label.get_y())
        group.move_to(CONTENT_CENTER + UP * 0.3)     # room below for the fine print
        # operators on the matrices' middle row, not on the middle of the labels
        middle = token_m.brackets.get_center()[1]
        plus.set_y(middle)
        equals.set_y(middle)
        group.token_m, group.pos_m, group.e_m, group.plus, group.equals = token_m, pos_m, e_m, plus, equals
        group.receiver_row = token_m.shown.index(n - 1)     # where row n sits among the shown rows
        return group

    # beats ------------------------------------------------------------------------------------
    def show_prefix(self, ws):
        prefix = self.prefix = self.get_prefix(ws)
        with self.beat(f"Here is our sentence: “{ws.text}”, and then a blank.",
                       spoken=f"Here is our sentence: {ws.text}, and then a blank.", look=1.8):
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
        # what it gathers from: one even, thin arrow from each readable source (no head has chosen
        # weights yet; scene 8 computes them)
        arrows = get_attention_arrows(self.prefix, even_weights(n), receiver=n, color=DIM_TEXT_COLOR)
        label = get_text("receiver", font_size=LABEL_SIZE, color=RECEIVER_COLOR)
        # just above what lands on the receiver (its arrowheads and its own loop); a prefix on several
        # lines has the line above there, so the label keeps to the box
        over = [p[1] for a in arrows.arrows for p in a.get_all_points()
                if box.get_left()[0] - 0.3 <= p[0] <= box.get_right()[0] + 0.3]
        lifted = max([box.get_top()[1], *over]) + 0.12 if self.prefix.line_of(n - 1) == 0 else box.get_top()[1] + 0.2
        label.move_to([box.get_x(), lifted + label.height / 2, 0])
        sources = self.get_sources_bracket(ws)
        self.receiver_marks = VGroup(fill, label, sources, arrows)
        with self.beat(f"The last known token, “{ws.tokens[-1]}”, at position {n}, is the receiver: "
                       "it gathers information from itself and the tokens before it."):
            self.play(FadeIn(fill), arrows.create(run_time=1.5), FadeIn(label, shift=0.2 * DOWN))
            # what it may read: itself and every token before it, under one bracket per line
            self.play(*(Create(b) for b in sources.brackets), FadeIn(sources.label, shift=0.1 * UP), run_time=1.2)

    def get_sources_bracket(self, ws) -> VGroup:
        """A bracket under the positions of tokens 1..n (one per line of the row), labelled
        "readable sources 1–n", clear of the blank's label."""
        row, n = self.prefix, ws.n
        lines = {}
        for j in range(n):
            lines.setdefault(row.line_of(j), []).append(j)
        brackets = VGroup()
        for js in lines.values():
            left = row.boxes[js[0]].get_left()[0]
            right = row.boxes[js[-1]].get_right()[0]
            y = min(row.positions[j].get_bottom()[1] for j in js) - 0.16
            bar = Line([left, y, 0], [right, y, 0])
            ticks = VGroup(Line([left, y, 0], [left, y + 0.12, 0]), Line([right, y, 0], [right, y + 0.12, 0]))
            brackets.add(VGroup(bar, ticks).set_stroke(TEXT_COLOR, 2))
        last = brackets[-1]
        label = get_text(f"readable sources 1–{n}" if n > 1 else "readable source 1", font_size=LABEL_SIZE,
                         color=TEXT_COLOR).next_to(last, DOWN, buff=0.12)
        limit = row.blank.get_left()[0] - 0.3
        if label.get_right()[0] > limit:
            label.shift(LEFT * (label.get_right()[0] - limit))
        group = VGroup(brackets, label)
        group.brackets, group.label = brackets, label
        return group

    def show_blank(self):
        label = VGroup(*(get_text(t, font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
                         for t in ("no query", "yet"))).arrange(DOWN, buff=0.06)
        self.no_query = label.next_to(self.prefix.blank, DOWN, buff=0.2)
        with self.beat("The blank is the word we want to predict. It has no query yet.", look=1.0):
            self.play(FadeIn(label, shift=0.2 * UP), Indicate(self.prefix.blank, color=TEXT_COLOR))

    def show_rows_become_tables(self, ws):
        tables = self.tables = self.get_tables(ws)
        self.embedding_sum = tables
        token_m, pos_m = tables.token_m, tables.pos_m
        prefix = self.prefix
        shown = token_m.shown
        hidden = VGroup(*(VGroup(prefix.words[j], prefix.positions[j]) for j in range(ws.n) if j not in shown))
        # the invented axes' caveat arrives with the axes' names (the token rows' headers)
        note = self.axes_note = get_fine_print(AXES_CAVEAT, max_width=token_m.width)
        note.next_to(token_m, DOWN, buff=0.15).align_to(token_m, LEFT)
        with self.beat("Each token becomes a row of four numbers, on axes made up for this lesson: water, finance, "
                       "person and glue. So does each position.", look=2.0):
            # the words and position numbers travel to become the tables' row labels
            self.play(FadeOut(VGroup(prefix.boxes, prefix.blank, self.receiver_marks, self.no_query, hidden)),
                      *(ReplacementTransform(prefix.words[j], label) for j, label in zip(shown, token_m.row_labels)),
                      *(ReplacementTransform(prefix.positions[j], label)
                        for j, label in zip(shown, pos_m.row_labels)),
                      run_time=1.6)
            self.play(FadeIn(VGroup(token_m.brackets, token_m.entries, token_m.col_labels, token_m.name_label,
                                    token_m.dots)),
                      FadeIn(VGroup(pos_m.brackets, pos_m.entries, pos_m.col_labels, pos_m.name_label, pos_m.dots)))
            self.play(FadeIn(note))
            # the axes' names light up one after another as the sentence names them
            self.play(LaggedStart(*(Indicate(label, color=TEXT_COLOR, scale_factor=1.25)
                                    for label in token_m.col_labels), lag_ratio=0.7), run_time=2.4)
            self.axes_note_beat = self.stage.id

    def show_sum(self, ws):
        tables = self.tables
        with self.beat(f"Add them, and you get E: one position-aware row per token, "
                       f"shape {format_shape(ws.E.shape)}."):
            self.play(FadeIn(tables.plus), FadeIn(tables.equals), FadeIn(tables.e_m, shift=0.3 * LEFT))
            note = self.fine_print = get_fine_print(
                "E contains position-aware embedding rows, not token IDs.")
            note.next_to(tables.e_m, DOWN, buff=0.12).align_to(tables.e_m, RIGHT)
            self.play(FadeIn(note))

    def show_receiver_row(self, ws):
        n = ws.n
        t = self.tables
        k = t.receiver_row
        boxes = VGroup(t.token_m.get_row_box(k, include_label=True),
                       t.pos_m.get_row_box(k, include_label=True), t.e_m.get_row_box(k))
        self.receiver_rows = boxes
        with self.beat(f"Row {n} of E is the receiver: the row of “{ws.tokens[-1]}” plus position row {n}.",
                       look=1.2):
            self.play(LaggedStart(*(Create(b) for b in boxes), lag_ratio=0.3), run_time=1.5)

    def show_same_token(self, ws):
        """The receiver's token again earlier in the prefix: one token row each time, a different E row
        (lesson_data decides which shown rows share the token)."""
        t = self.tables
        rows = rows_sharing_token(ws.tokens, ws.n - 1, shown=t.token_m.shown)
        others = [t.token_m.shown.index(r) for r in rows if r != ws.n - 1]
        self.same_token_boxes = self.differing_cells = VGroup()
        if not others:
            return
        boxes = VGroup(*(m.get_row_box(k, color=TEXT_COLOR, fill_opacity=0.12, include_label=m is t.token_m)
                         for k in others for m in (t.token_m, t.pos_m)))
        # in E, only the cells that read differently (lesson_data decides, at the shown precision)
        shown_k = [*others, t.receiver_row]
        differ = differing_columns(ws.E, rows, places_for(ws.E))
        cells = VGroup(*(t.e_m.get_cell_box(k, c, color=TEXT_COLOR, fill_opacity=0.12).stretch(0.86, 0)
                         for k in shown_k for c in differ if k != t.receiver_row))
        self.same_token_boxes, self.differing_cells = boxes, cells
        word = ws.tokens[-1]
        times = {2: "twice", 3: "three times"}.get(len(rows), f"{count_word(len(rows))} times")
        case = " (case ignored)" if len({display_words(ws)[r] for r in rows}) > 1 else ""
        with self.beat(f"“{word}” appears {times}{case}: the same token row each time, but {count_word(len(rows))} different "
                       "rows of E, each with its own position."):
            self.play(LaggedStart(*(Create(b) for b in boxes), lag_ratio=0.15), run_time=1.5)
            self.play(LaggedStart(*(Create(b) for b in cells), lag_ratio=0.1), run_time=1.0)
            if differ:
                self.play(Indicate(VGroup(*(t.e_m.cell(k, c) for k in shown_k for c in differ)), color=TEXT_COLOR,
                                   scale_factor=1.2), run_time=1.2)

    def show_e_labeled(self, ws):
        """E moves to the centre and takes the words as its row labels and the axes as its columns."""
        t = self.tables
        e2 = self.e_final = self.get_labeled_e(ws)
        k = t.receiver_row
        row_box = e2.get_row_box(k, include_label=True)
        glue_box = self.glue_box = self.get_glue_box(e2)
        # the axes' caveat goes with E, into the empty band at its right
        room = FRAME_WIDTH / 2 - 0.45 - (glue_box.get_right()[0] + 0.3)
        note = get_fine_print(AXES_CAVEAT, max_width=room)
        note.next_to(glue_box, RIGHT, buff=0.3).set_y(e2.brackets.get_y())
        with self.beat("From here on, E is the input: each word's row, four numbers wide."):
            self.play(FadeOut(VGroup(t.token_m.brackets, t.token_m.entries, t.token_m.name_label, t.token_m.dots,
                                     t.pos_m, t.plus, t.equals, self.receiver_rows[:2], self.same_token_boxes,
                                     self.differing_cells)),
                      # the caveat stays with E while E becomes the input
                      self.fine_print.animate.next_to(e2, DOWN, buff=0.12),
                      ReplacementTransform(t.token_m.row_labels, e2.row_labels),
                      ReplacementTransform(t.token_m.col_labels, e2.col_labels),
                      ReplacementTransform(VGroup(t.e_m.brackets, t.e_m.entries, t.e_m.name_label, t.e_m.dots),
                                           VGroup(e2.brackets, e2.entries, e2.name_label, e2.dots)),
                      ReplacementTransform(self.receiver_rows[2], row_box),
                      ReplacementTransform(self.axes_note, note), run_time=1.8)
        self.axes_note = note
        self.e_row_box = row_box

    @staticmethod
    def get_glue_box(e2) -> Rectangle:
        """The glue header and column, padded clear of the digits, with E's right bracket inside."""
        j = list(AXES).index("glue")
        digits = e2.column(j)
        left = min(digits.get_left()[0], e2.col_labels[j].get_left()[0]) - 0.1
        right = e2.brackets.get_right()[0] + 0.08
        top = e2.col_labels[j].get_top()[1] + 0.08
        bottom = e2.brackets.get_bottom()[1] - 0.06
        glue_box = Rectangle(width=right - left, height=top - bottom).move_to([(left + right) / 2,
                                                                            (top + bottom) / 2, 0])
        return glue_box.set_stroke(TEXT_COLOR, 2).set_fill(opacity=0)

    def show_invented_axes(self):
        e2, glue_box = self.e_final, self.glue_box
        # the four axes were named with the token rows (show_rows_become_tables); here only glue's meaning
        glue = e2.col_labels[list(AXES).index("glue")]
        # (the verbs sat and watched carry glue too: nouns, not "content words", are the ones near zero)
        with self.beat("Glue, the last column, is highest for “the” and near zero for nouns like “river” and "
                       "“fisherman”.",
                       spoken="Glue, the last column, is highest for “the”, "
                              "and near zero for nouns such as river and fisherman."):
            # the glue header lights up as the sentence names it, then its column is boxed
            self.play(Indicate(glue, color=TEXT_COLOR, scale_factor=1.25), run_time=1.0)
            self.play(Create(glue_box))


# ============================================================================================
# Scene 6 — Shape flow
# ============================================================================================

FLOW_UNIT = 0.13   # scene units per array row/column in the shape boxes
CHAIN_UNIT = 0.17  # the joining chain, which has the frame to itself
CHAIN_TEXT = dict(name_size=LABEL_SIZE + 4, shape_size=LABEL_SIZE)


def get_w_stack(head) -> VGroup:
    """W_Q, W_K, W_V of one head: three [4, d] boxes stacked, names on the left, one shape label."""
    color = head_color(head.index)
    h = sup(head.index)
    boxes = VGroup()
    for name, W in (("W_Q", head.W_Q), ("W_K", head.W_K), ("W_V", head.W_V)):
        box = get_shape_box(f"{name}{h}", W.shape, color=color, unit=FLOW_UNIT)
        box.remove(box.shape_label)
        box.name_label.next_to(box.box, LEFT, buff=0.1)
        boxes.add(box)
    boxes.arrange(DOWN, buff=0.1, aligned_edge=RIGHT)
    shapes = {W.shape for W in (head.W_Q, head.W_K, head.W_V)}
    text = f"each {format_shape(head.W_Q.shape)}" if len(shapes) == 1 else "  ".join(
        format_shape(W.shape) for W in (head.W_Q, head.W_K, head.W_V))
    label = get_text(text, font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).next_to(boxes, DOWN, buff=BUFF_SMALL)
    label.align_to(boxes, RIGHT)
    stack = VGroup(boxes, label)
    stack.boxes, stack.shape_label = boxes, label
    stack.w_q, stack.w_k, stack.w_v = boxes
    return stack


def get_head_lane(head) -> VGroup:
    """One head left to right: W stack → Q, K → QKᵀ → (÷√d, mask, softmax) → A · V = H, with V's
    own path from W_V under the lane, so V waits for the weights and then feeds H.

    W_Q and W_K meet in one bracket whose arrow ends on a frame round Q and K together (they make
    the pair; W_V makes V by its own path). K waits beside Q; `kt` is Kᵀ, the flat [d, n] it turns
    into, in the slot between Q and the scores, so both Q and Kᵀ feed the square."""
    color = head_color(head.index)
    h = sup(head.index)
    d_k = head.Q.shape[1]
    stack = get_w_stack(head)
    q = get_shape_box(f"Q{h}", head.Q.shape, color=color, unit=FLOW_UNIT)
    k = get_shape_box(f"K{h}", head.K.shape, color=color, unit=FLOW_UNIT)
    # the transpose of head h's K: (K¹)ᵀ, so the ᵀ does not read as part of the superscript
    kt = get_shape_box(f"(K{h})ᵀ", head.K.shape[::-1], color=color, unit=FLOW_UNIT)
    scores = get_shape_box(f"Q{h}(K{h})ᵀ", head.scores.shape, color=color, unit=FLOW_UNIT)
    weights = get_masked_box(f"A{h}", head.weights.shape, color=color, unit=FLOW_UNIT, stepped=True)
    v = get_shape_box(f"V{h}", head.V.shape, color=color, unit=FLOW_UNIT)
    messages = get_shape_box(f"H{h}", head.messages.shape, color=color, unit=FLOW_UNIT)
    steps = VGroup(*(get_text(t, font_size=SMALL_SIZE, color=TEXT_COLOR)
                     for t in (f"÷√{d_k}", "mask", "softmax"))).arrange(DOWN, buff=0.06)
    dot = get_text("·", font_size=BODY_SIZE)
    equals = get_text("=", font_size=BODY_SIZE)

    def place(part, core, left, y=0.0):
        part.shift(RIGHT * (left - core.get_left()[0]) + UP * (y - core.get_center()[1]))
        return core.get_right()[0]

    x = place(stack, stack.boxes, 0.0) + 0.75
    x = place(q, q.box, x)
    place(k, k.box, q.get_right()[0] + 0.25 + (k.box.get_left()[0] - k.get_left()[0]))
    slot = max(kt.box.width, kt.name_label.width, kt.shape_label.width)
    kt_left = x + 0.45
    y_kt = q.box.get_top()[1] - 0.3
    place(kt, kt.box, kt_left + (slot - kt.box.width) / 2, y_kt)
    x = place(scores, scores.box, kt_left + slot + 0.55)
    x = place(weights, weights.box, x + steps.width + 0.6) + 0.25
    x = place(dot, dot, x) + 0.25
    x = place(v, v.box, x) + 0.3
    x = place(equals, equals, x) + 0.3
    place(messages, messages.box, x)
    qk = VGroup(q, k)
    lane = VGroup(stack, qk, kt, scores, weights, dot, v, equals, messages)
    # W_Q and W_K → {Q, K}: one bracket, one arrow, a frame round the pair
    x_b = stack.boxes.get_right()[0] + 0.12
    ticks = VGroup(*(Line(w.box.get_right(), [x_b, w.box.get_y(), 0]) for w in (stack.w_q, stack.w_k)))
    spine = Line([x_b, stack.w_q.box.get_y(), 0], [x_b, stack.w_k.box.get_y(), 0])
    pair_frame = SurroundingRectangle(VGroup(q.box, k.box), buff=0.08, corner_radius=0.05)
    pair_frame.set_stroke(color, 1.5, opacity=0.8).set_fill(opacity=0)
    y_in = (stack.w_q.box.get_y() + stack.w_k.box.get_y()) / 2
    feed = get_arrow([x_b, y_in, 0], [pair_frame.get_left()[0], y_in, 0], color=color, buff=0.02)
    bracket = VGroup(ticks, spine).set_stroke(color, 2)
    a_in = VGroup(bracket, feed, pair_frame)
    # both Q and Kᵀ feed the scores: Q's arrow under Kᵀ's label, Kᵀ's at its own height
    y_q = q.box.get_bottom()[1] + 0.3
    a_q = get_arrow([q.box.get_right()[0], y_q, 0], [scores.box.get_left()[0], y_q, 0])
    a_kt = get_arrow(kt.box.get_right(), [scores.box.get_left()[0], kt.box.get_y(), 0])
    a_scores = VGroup(a_q, a_kt)
    a_soft = get_arrow(scores.box.get_right(), weights.box.get_left())
    steps.next_to(a_soft, UP, buff=0.08)
    # V's own path: out of W_V, under everything between, up into V's shape label
    y_route = min(m.get_bottom()[1] for m in (stack, qk, scores, weights)) - 0.18
    start = stack.w_v.box.get_right()
    x_turn = start[0] + 0.22
    end = v.shape_label.get_bottom() + DOWN * 0.04
    v_path = get_routed_arrow([start, [x_turn, start[1], 0], [x_turn, y_route, 0], [end[0], y_route, 0], end],
                              color=color)
    lane.add(a_in, a_scores, a_soft, steps, v_path)
    lane.stack, lane.q, lane.k, lane.kt, lane.qk, lane.v = stack, q, k, kt, qk, v
    lane.scores, lane.weights, lane.messages, lane.steps = scores, weights, messages, steps
    lane.dot, lane.equals, lane.v_path = dot, equals, v_path
    lane.a_in, lane.a_scores, lane.a_soft, lane.pair_frame = a_in, a_scores, a_soft, pair_frame
    return lane


def get_row_lines(box, n: int) -> VGroup:
    """Faint lines between a shape box's n rows (one row per token)."""
    step = box.height / n
    return VGroup(*(Line([box.get_left()[0], box.get_top()[1] - k * step, 0],
                         [box.get_right()[0], box.get_top()[1] - k * step, 0])
                    for k in range(1, n))).set_stroke(TEXT_COLOR, 1, opacity=0.45)


def layout_chain(stages, gaps, y: float = 0.0) -> None:
    """Place stages left to right by their core boxes (`.box`, else the stage itself) on one line;
    each gap is widened until the neighbours' labels (wider than their boxes) stay apart."""
    def core(s):
        return s.box if hasattr(s, "box") else s

    x = 0.0
    for k, stage in enumerate(stages):
        stage.shift(RIGHT * (x - core(stage).get_left()[0]) + UP * (y - core(stage).get_center()[1]))
        if k < len(gaps):
            nxt = stages[k + 1]
            overhang = (max(0, stage.get_right()[0] - core(stage).get_right()[0])
                        + max(0, (nxt.width - core(nxt).width) / 2))
            x = core(stage).get_right()[0] + max(gaps[k], overhang + 0.25)


class ShapeFlow(LessonScene):
    """Scene 6: the shapes of the whole layer for one sentence: E → per-head W, Q, K, V → QKᵀ → A →
    A·V = H → [H¹ | H²] · W_O = ΔE → E′ = E + ΔE (E still in view) → last row → MLP → p."""

    def construct(self):
        ws = self.ws = scene_worksheet()
        self.title = get_title("Shape flow: one sentence, two heads")
        with self.transition("title"):
            self.play(FadeIn(self.title))
        self.build_lanes(ws)
        # --- Shot 1: one sentence, no batch axis ------------------------------------------------
        self.shot("one sentence")
        self.show_e(ws)
        # --- Shot 2: each head's projections --------------------------------------------------
        self.shot("projections")
        self.show_projection_matrices(ws)
        self.show_qkv(ws)
        # --- Shot 3: scores and weights keep the [n, n] shape ----------------------------------
        self.shot("scores")
        self.show_scores(ws)
        self.show_weights(ws)
        self.show_rows_and_columns(ws)
        # --- Shot 4: messages, and which labels mean what --------------------------------------
        self.shot("messages")
        self.show_messages(ws)
        self.show_indices(ws)
        # --- Shot 5: join, project, add E back, predict ----------------------------------------
        self.shot("joining")
        self.build_chain(ws)
        self.show_concat(ws)
        self.show_output_projection(ws)
        self.show_general_w_o(ws)
        self.show_residual(ws)
        self.show_last_row(ws)
        self.show_probabilities(ws)

    # pictures ---------------------------------------------------------------------------------
    def build_lanes(self, ws):
        e_box = get_shape_box("E", ws.E.shape, unit=FLOW_UNIT)
        lanes = VGroup(*(get_head_lane(head) for head in ws.heads)).arrange(DOWN, buff=0.55, aligned_edge=LEFT)
        flow = VGroup(e_box, lanes).arrange(RIGHT, buff=1.0)
        # E keeps one place whatever the sentence's length: the joining chain starts beside it
        flow.move_to(CONTENT_CENTER).align_to(LEFT * (SAFE_WIDTH / 2 - 0.25), LEFT)
        e_box.set_y(lanes.get_center()[1])
        feeds = VGroup(*(get_arrow(e_box.box.get_right(), lane.stack.boxes.get_left() + LEFT * 0.05,
                                   color=head_color(head.index))
                         for head, lane in zip(ws.heads, lanes)))
        self.e_box, self.lanes, self.feeds = e_box, lanes, feeds

    @staticmethod
    def get_indices_legend(ws, lane):
        n = ws.n
        h1 = ws.heads[0]
        h = sup(h1.index)
        # only the receiver's own rows: its query, its weights, its message (its score and message read
        # every key and value, so no single key column or value row is lit)
        strips = VGroup(get_row_strip(lane.q), get_row_strip(lane.weights, color=RECEIVER_COLOR, opacity=0.5),
                        get_row_strip(lane.messages))
        # three symbols, written as scene 8 writes them (α for the attention weights)
        legend = get_text(f"row {n}:  q{h}{sub(n)}  {format_shape((1, h1.Q.shape[1]))},   "
                          f"α{h}{sub(n)}  {format_shape((1, n))},   m{h}{sub(n)}  {format_shape((1, h1.messages.shape[1]))}",
                          font_size=LABEL_SIZE + 2, color=RECEIVER_COLOR)
        return strips, legend

    # beats ------------------------------------------------------------------------------------
    def show_e(self, ws):
        n, d = ws.E.shape
        # E alone, large and central; it takes its place at the left when the heads arrive
        big = self.e_alone = self.e_box.copy().scale(1.7).move_to(CONTENT_CENTER)
        rows = self.e_rows = get_row_lines(big.box, n)
        with self.beat(f"We follow one sentence, with no batch axis: E is {format_shape(ws.E.shape)}, "
                       "one row per token."):
            self.play(FadeIn(big, shift=0.2 * UP))
            self.play(LaggedStart(*(Create(r) for r in rows), lag_ratio=0.15), run_time=1.2)

    def show_projection_matrices(self, ws):
        h1 = ws.heads[0]
        with self.beat(f"Each head has its own W_Q, W_K and W_V, each {format_shape(h1.W_Q.shape)}.",
                       spoken=f"Each head has its own query, key and value matrices, W Q, W K and W V, each "
                              f"{count_word(h1.W_Q.shape[0])} by {count_word(h1.W_Q.shape[1])}."):
            # E keeps its row stripes as it takes its place
            rows = get_row_lines(self.e_box.box, ws.E.shape[0])
            self.play(ReplacementTransform(self.e_rows, rows), ReplacementTransform(self.e_alone, self.e_box),
                      run_time=0.9)
            self.e_rows = rows
            self.play(*(GrowArrow(a) for a in self.feeds),
                      *(FadeIn(lane.stack, shift=0.15 * RIGHT) for lane in self.lanes), run_time=1.2)

    def show_qkv(self, ws):
        h1 = ws.heads[0]
        with self.beat(f"E times them gives each head a Q, a K and a V, each {format_shape(h1.Q.shape)}.",
                       look=1.0):
            self.play(*(Create(lane.a_in[0]) for lane in self.lanes), run_time=0.5)
            self.play(*(GrowArrow(lane.a_in[1]) for lane in self.lanes),
                      *(FadeIn(VGroup(lane.qk, lane.pair_frame), shift=0.15 * RIGHT) for lane in self.lanes),
                      run_time=1.0)
            self.play(*(Create(lane.v_path) for lane in self.lanes),
                      *(FadeIn(lane.v, shift=0.1 * UP) for lane in self.lanes), run_time=1.4)

    def show_scores(self, ws):
        h1 = ws.heads[0]
        kt = (h1.K.shape[1], h1.K.shape[0])
        with self.beat(f"Q times K transpose, {format_shape(h1.Q.shape)} by {format_shape(kt)}, "
                       f"gives {format_shape(h1.scores.shape)} scores.",
                       spoken=f"Q times K transpose gives a {spoken_form(format_shape(h1.scores.shape))} "
                              "grid of scores: one for every receiver and source."):
            # K turns on its side into Kᵀ, and both Q and Kᵀ feed the square of scores
            self.play(*(ReplacementTransform(lane.k, lane.kt) for lane in self.lanes),
                      *(FadeOut(lane.pair_frame) for lane in self.lanes), run_time=1.2)
            self.play(*(GrowArrow(a) for lane in self.lanes for a in lane.a_scores),
                      *(FadeIn(lane.scores, shift=0.15 * RIGHT) for lane in self.lanes))

    def show_weights(self, ws):
        h1 = ws.heads[0]
        with self.beat(f"Dividing by √{h1.Q.shape[1]}, masking the future and the softmax along each row all "
                       f"keep that shape, "
                       f"so A is {format_shape(h1.weights.shape)} too.",
                       spoken=f"Divide by root {count_word(h1.Q.shape[1])}, since each key is "
                              f"{count_word(h1.Q.shape[1])} numbers wide. Then mask the future, and take a soft max "
                              f"along each row. None of this changes the shape, so the attention matrix is "
                              f"{count_word(h1.weights.shape[0])} by {count_word(h1.weights.shape[1])} too."):
            self.play(*(GrowArrow(lane.a_soft) for lane in self.lanes),
                      *(FadeIn(lane.steps) for lane in self.lanes))
            self.play(*(FadeIn(VGroup(lane.weights.box, lane.weights.name_label, lane.weights.shape_label),
                               shift=0.15 * RIGHT) for lane in self.lanes))
            self.play(*(FadeIn(lane.weights.mask_triangle) for lane in self.lanes))

    def show_rows_and_columns(self, ws):
        a = self.lanes[0].weights
        row = get_row_strip(a, color=RECEIVER_COLOR, opacity=0.5)
        column = get_column_strip(a, 0, color=TEXT_COLOR, opacity=0.55)
        # the row's tag at the row's left end; the column's under the column, in the band between the
        # lanes, a tick up to it (left of A's shape label)
        row_tag = VGroup(*(get_text(t, font_size=SMALL_SIZE, color=RECEIVER_COLOR)
                           for t in ("row =", "receiver i"))).arrange(DOWN, buff=0.05, aligned_edge=RIGHT)
        row_tag.next_to(row, LEFT, buff=0.18).set_y(row.get_y())
        # the column's tag under A, left of the column and above head 1's V path (nothing crossed),
        # a short tick up to the column
        column_tag = get_text("column = source j", font_size=SMALL_SIZE, color=TEXT_COLOR)
        x = column.get_x()
        y = (a.shape_label.get_bottom()[1] + self.lanes[0].v_path.get_bottom()[1]) / 2
        column_tag.move_to([x, y, 0]).align_to([x - 0.1, 0, 0], RIGHT)
        tick = Line([x, column_tag.get_y(), 0], [x, a.box.get_bottom()[1], 0]).set_stroke(TEXT_COLOR, 1.5)
        tags = VGroup(row_tag, VGroup(column_tag, tick))
        self.a_strips = VGroup(row, column, tags)
        with self.beat("Each row of A is a receiver, each column a source; "
                       "the grey steps are the future, which no receiver may read.",
                       spoken="Each row of the attention matrix is one token acting as a receiver, each column a "
                              "source; the grey steps are the future, which no receiver may read.", look=1.6):
            self.play(FadeIn(row), FadeIn(row_tag))
            self.play(FadeIn(column), FadeIn(column_tag), Create(tick))
            self.play(Indicate(a.mask_triangle, color=TEXT_COLOR, scale_factor=1.05))

    def show_messages(self, ws):
        h1 = ws.heads[0]
        with self.beat(f"A times V gives H, {format_shape(h1.messages.shape)}: one message per receiver.",
                       look=0.6):
            self.play(FadeOut(self.a_strips),
                      *(FadeIn(VGroup(lane.dot, lane.equals)) for lane in self.lanes))
            self.play(*(Indicate(lane.v, color=head_color(head.index), scale_factor=1.1)
                        for head, lane in zip(ws.heads, self.lanes)))
            self.play(*(FadeIn(lane.messages, shift=0.15 * RIGHT) for lane in self.lanes))

    def show_indices(self, ws):
        n = ws.n
        strips, legend = self.get_indices_legend(ws, self.lanes[0])
        # the empty band between the two lanes, under head 1's V path
        band = (self.lanes[0].v_path.get_bottom()[1] + self.lanes[1].get_top()[1]) / 2
        legend.move_to([self.lanes[0].get_x(), band, 0])
        self.receiver_strips, self.legend = strips, legend
        h = sup(1)
        with self.beat(f"Superscripts name the head, subscripts the token: q{h}{sub(n)} is head 1’s query "
                       f"at token {n}, one row of Q{h}.",
                       spoken=f"On screen, a raised number names the head and a lowered one the token: so head "
                              f"one's query at token {n} is one row of head one's Q matrix."):
            self.play(LaggedStart(*(FadeIn(s) for s in strips), lag_ratio=0.2), FadeIn(legend))

    def build_chain(self, ws):
        n, d_model = ws.E.shape
        # the joining chain, larger than the lanes (it has the frame to itself); E moves into it
        e_box = self.e_target = get_shape_box("E", ws.E.shape, unit=CHAIN_UNIT, **CHAIN_TEXT)
        h1, h2 = ws.heads
        concat = get_concat_box(f"[H{sup(1)} | H{sup(2)}]", ws.H_joined.shape, unit=CHAIN_UNIT, **CHAIN_TEXT,
                                widths=(h1.messages.shape[1], h2.messages.shape[1]),
                                colors=(head_color(1), head_color(2)))
        w_o = get_shape_box("W_O", ws.W_O.shape, unit=CHAIN_UNIT, **CHAIN_TEXT)
        delta = get_shape_box("ΔE", ws.delta_E.shape, unit=CHAIN_UNIT, **CHAIN_TEXT)
        plus = get_plus_node(radius=0.24)
        e_prime = get_shape_box("E′", ws.E_prime.shape, unit=CHAIN_UNIT, **CHAIN_TEXT)
        last = get_shape_box(f"e′{sub(n)}", (1, d_model), unit=CHAIN_UNIT, **CHAIN_TEXT)
        mlp = get_shape_box("MLP", None, width=1.1, height=0.85, name_inside=True, **CHAIN_TEXT)
        vocab = len(ws.mlp.probabilities)
        probs = get_shape_box("p", (1, vocab), unit=CHAIN_UNIT, **CHAIN_TEXT, shape_text=f"{format_shape((1, vocab))} words")
        stages = [concat, w_o, delta, plus, e_prime, last, mlp, probs]
        layout_chain(stages, [0.5, 0.5, 0.5, 0.5, 1.05, 0.6, 0.6])
        chain = VGroup(*stages)
        # E keeps its place at the left; the chain fills the rest of the width at E's height
        left = e_box.get_right()[0] + 1.25
        chain.shift(RIGHT * (left - chain.get_left()[0]) + UP * (e_box.box.get_y() - concat.box.get_y()))

        def core(s):
            return s.box if hasattr(s, "box") else s.circle

        def between(a, b):
            return (core(a).get_right() + core(b).get_left()) / 2

        dot = get_text("·", font_size=BODY_SIZE).move_to(between(concat, w_o))
        equals = get_text("=", font_size=BODY_SIZE).move_to(between(w_o, delta))
        a_heads = get_arrow(e_box.box.get_right(), core(concat).get_left())
        heads_label = get_text(f"{count_word(len(ws.heads))} heads", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
        heads_label.next_to(a_heads, UP, buff=0.08)
        a_plus = get_arrow(core(delta).get_right(), core(plus).get_left())
        a_sum = get_arrow(core(plus).get_right(), core(e_prime).get_left())
        a_last = get_arrow(core(e_prime).get_right(), core(last).get_left())
        last_label = get_text("last row", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR).next_to(a_last, UP, buff=0.08)
        a_mlp = get_arrow(core(last).get_right(), core(mlp).get_left())
        a_p = get_arrow(core(mlp).get_right(), core(probs).get_left())
        # the residual: from E, over the attention update, into the sum
        top = max(m.get_top()[1] for m in (e_box, concat, w_o, delta)) + 0.35
        start = e_box.name_label.get_top() + UP * 0.06
        end = plus.circle.get_top()
        residual = get_routed_arrow([start, [start[0], top, 0], [end[0], top, 0], end])
        residual_label = get_text("residual: + E", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
        residual_label.next_to(residual.legs[1], UP, buff=0.06)
        # p's box is capped in width: say so where a [1, 20] bar would be five times e′'s
        scale_note = get_text("width not to scale", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        scale_note.next_to(probs.shape_label, DOWN, buff=0.06)
        general = get_text("in general [n_heads × d_v, d_model]", font_size=LABEL_SIZE, color=TEXT_COLOR)
        lowest = min(s.get_bottom()[1] for s in (concat, w_o, delta))
        general.move_to([w_o.box.get_x(), lowest - 0.25, 0])
        if general.get_left()[0] < e_box.get_right()[0] + 0.1:
            general.shift(RIGHT * (e_box.get_right()[0] + 0.1 - general.get_left()[0]))
        # the general shape points up at W_O's own [4, 4] (between its neighbours' shapes)
        general_leader = get_arrow([w_o.box.get_x(), general.get_top()[1] + 0.04, 0],
                                   [w_o.box.get_x(), w_o.shape_label.get_bottom()[1] - 0.04, 0])
        everything = VGroup(e_box, *stages, dot, equals, a_heads, heads_label, a_plus, a_sum, a_last, last_label,
                            a_mlp, a_p, residual, residual_label, general, general_leader, scale_note)
        if everything.width > SAFE_WIDTH:
            raise ValueError(f"the joining chain is {everything.width - SAFE_WIDTH:.2f} too wide")
        # a little low: the lanes' stamp above gets more height
        everything.shift(CONTENT_CENTER + DOWN * 0.5 - everything.get_center())
        self.chain = VGroup(concat, w_o, delta, plus, e_prime, last, mlp, probs)
        self.parts = dict(concat=concat, w_o=w_o, delta=delta, plus=plus, e_prime=e_prime, last=last, mlp=mlp,
                          probs=probs, dot=dot, equals=equals, a_plus=a_plus, a_sum=a_sum, a_last=a_last,
                          last_label=last_label, a_mlp=a_mlp, a_p=a_p, residual=residual,
                          residual_label=residual_label, general=general, general_leader=general_leader,
                          a_heads=a_heads,
                          heads_label=heads_label, scale_note=scale_note)

    def show_concat(self, ws):
        p = self.parts
        keep = VGroup(self.title, self.e_box, self.e_rows, *(lane.messages for lane in self.lanes))
        kept = {id(m) for m in keep.get_family()}
        others = [m for m in self.mobjects if id(m) not in kept]
        h1, h2 = ws.heads
        concat = p["concat"]
        mini = self.mini_lanes = self.get_mini_lanes(p)
        e_rows = get_row_lines(self.e_target.box, ws.E.shape[0])
        with self.beat(f"The two messages join side by side: [H{sup(1)} | H{sup(2)}] is "
                       f"{format_shape(ws.H_joined.shape)}.",
                       spoken=f"The two messages join side by side: head one's H and head two's H together are "
                              f"{spoken_form(format_shape(ws.H_joined.shape))}."):
            # the lanes go; H¹ and H² slide together into the joined box; E moves into the chain
            self.play(*(FadeOut(m) for m in others),
                      *(FadeOut(lane.messages.shape_label) for lane in self.lanes),
                      FadeIn(mini), run_time=0.8)
            tags = VGroup(*(get_text(f"H{sup(head.index)}", font_size=LABEL_SIZE, color=TEXT_COLOR)
                            .move_to(half).align_to(half, UP).shift(DOWN * 0.08)
                            for head, half in zip(ws.heads, concat.halves)))
            self.h_tags = tags
            self.play(*(ReplacementTransform(lane.messages.box, half) for lane, half in zip(self.lanes, concat.halves)),
                      *(ReplacementTransform(lane.messages.name_label, tag) for lane, tag in zip(self.lanes, tags)),
                      ReplacementTransform(self.e_box, self.e_target),
                      ReplacementTransform(self.e_rows, e_rows), run_time=1.8)
            self.e_rows = e_rows
            self.e_box = self.e_target
            self.play(FadeIn(VGroup(concat.box, concat.name_label, concat.shape_label)),
                      GrowArrow(p["a_heads"]), FadeIn(p["heads_label"]))
            self.play(FadeOut(tags), run_time=0.5)

    def get_mini_lanes(self, p) -> VGroup:
        """The two head lanes small and without text, over the joining chain: where H¹ and H² came
        from (shapes only; every label stays with the full-size lanes)."""
        from manim import Text

        mini = VGroup(self.feeds, self.lanes).copy()

        def strip(group):
            for sub_m in list(group.submobjects):
                if isinstance(sub_m, Text):
                    group.remove(sub_m)
                else:
                    strip(sub_m)

        strip(mini)
        for lane in mini[1]:        # the messages leave for the concat: the copy keeps only their place
            lane.messages.set_fill(opacity=0.05).set_stroke(opacity=0.35)
        mini.scale(min(0.32, 4.2 / mini.width)).set_stroke(width=1)
        top = CONTENT_TOP - 0.05
        residual_top = p["residual_label"].get_top()[1]
        mini.move_to([p["concat"].box.get_x() + 0.6, (top + residual_top) / 2, 0])
        if mini.get_bottom()[1] < residual_top + 0.1:
            mini.scale((top - residual_top - 0.15) / mini.height).move_to(
                [mini.get_x(), (top + residual_top) / 2, 0])
        return mini

    def show_output_projection(self, ws):
        p = self.parts
        with self.beat(f"Times W_O, {format_shape(ws.W_O.shape)}, gives the update ΔE, "
                       f"{format_shape(ws.delta_E.shape)}."):
            self.play(FadeIn(p["dot"]), FadeIn(p["w_o"], shift=0.15 * RIGHT))
            self.play(FadeIn(p["equals"]), FadeIn(p["delta"], shift=0.15 * RIGHT))

    def show_general_w_o(self, ws):
        p = self.parts
        n_heads, d_v, d_model = len(ws.heads), ws.heads[0].V.shape[1], ws.E.shape[1]
        with self.beat(f"W_O is square here only because {count_word(n_heads)} heads of width "
                       f"{count_word(d_v)} join to width {count_word(n_heads * d_v)}, which is also E’s width, "
                       f"{count_word(d_model)}; in general it is [n_heads × d_v, d_model].",
                       spoken=f"W O is square here only because {count_word(n_heads)} heads of width "
                              f"{count_word(d_v)} join to width {count_word(n_heads * d_v)}, the same as E's "
                              f"width. In general, W O has one "
                              "block of rows per head, and as many columns as E is wide."):
            note = get_fine_print("W_O still learns to mix head outputs into embedding coordinates. "
                                  "It is not an inverse of the input projections.")
            note.to_edge(LEFT, buff=0.6).set_y(CONTENT_BOTTOM + 0.2)
            self.w_o_note = note
            self.play(Indicate(p["w_o"], color=TEXT_COLOR, scale_factor=1.1), FadeIn(p["general"]),
                      GrowArrow(p["general_leader"]))
            self.play(FadeIn(note))

    def show_residual(self, ws):
        p = self.parts
        with self.beat(f"The residual adds E back: E′ = E + ΔE, still {format_shape(ws.E_prime.shape)}."):
            self.play(FadeOut(p["general"]), FadeOut(p["general_leader"]), FadeOut(self.w_o_note),
                      Indicate(self.e_box, color=TEXT_COLOR, scale_factor=1.1))
            self.play(Create(p["residual"]), FadeIn(p["residual_label"]), GrowArrow(p["a_plus"]),
                      FadeIn(p["plus"]), run_time=1.4)
            self.play(GrowArrow(p["a_sum"]), FadeIn(p["e_prime"], shift=0.15 * RIGHT))

    def show_last_row(self, ws):
        p = self.parts
        n, d = ws.E.shape
        strip = get_row_strip(p["e_prime"])
        with self.beat(f"Only its last row, e′{sub(n)}, {format_shape((1, d))}, goes on to the prediction MLP.",
                       spoken=f"Only its last row, row {count_word(n)} of E prime, "
                              f"{spoken_form(format_shape((1, d)))}, goes on to the prediction M L P."):
            self.play(FadeIn(strip))
            moving = strip.copy()
            self.play(GrowArrow(p["a_last"]), FadeIn(p["last_label"]),
                      ReplacementTransform(moving, p["last"].box), run_time=1.2)
            self.play(FadeIn(VGroup(p["last"].name_label, p["last"].shape_label)),
                      GrowArrow(p["a_mlp"]), FadeIn(p["mlp"]))
        self.e_prime_strip = strip

    def show_probabilities(self, ws):
        p = self.parts
        vocab = len(ws.mlp.probabilities)
        # strictly the MLP gives scores (logits) and a softmax the probabilities, as scene 14 says
        with self.beat(f"The MLP and a softmax give each of the {count_word(vocab)} vocabulary words a probability: "
                       f"p is {format_shape((1, vocab))}.", look=1.0):
            self.play(GrowArrow(p["a_p"]), FadeIn(p["probs"], shift=0.15 * RIGHT))
            self.play(FadeIn(p["scale_note"]), run_time=0.5)


# ============================================================================================
# Scene 7 — Projections
# ============================================================================================


def coordinate_names(head) -> list[str]:
    """A head's own coordinates, one convention for Q, K and V (and scenes 8–10): named by the input
    axis its key column copies (head 1: water, finance) when W_K copies axes, else a, b, …"""
    copies = copied_axes(head.W_K)
    d = head.W_K.shape[1]
    return list(copies) if copies and len(set(copies)) == d else ["abcdefgh"[k] for k in range(d)]


def get_inset_column_box(m, j: int, color: str, pad: float = 0.14) -> Rectangle:
    """Column j's highlight box kept clear of the matrix's brackets (their serifs reach 0.1 inside)."""
    box = m.get_column_box(j, color=color)
    left, right = box.get_left()[0] + pad, box.get_right()[0] - 0.04
    return box.stretch_to_fit_width(right - left).set_x((left + right) / 2)


def get_key_ghost(head, q) -> VGroup:
    """A faint K^h header under the query q^h_n: the key columns its coordinates are compared with,
    each under the query column of the same name."""
    color = head_color(head.index)
    coords = coordinate_names(head)
    labels = VGroup(*(get_text(c, font_size=LABEL_SIZE, color=color).move_to(
        [q.cell_center(0, k)[0], 0, 0]) for k, c in enumerate(coords)))
    labels.set_y(q.brackets.get_bottom()[1] - 0.62)
    frame = SurroundingRectangle(labels, buff=0.1, corner_radius=0.05).set_stroke(color, 1.5, opacity=0.6)
    # "keys" over "K^h", narrow beside the frame (clear of the next head's row labels)
    name = VGroup(get_text("keys", font_size=LABEL_SIZE, color=color),
                  get_text(f"K{sup(head.index)}", font_size=LABEL_SIZE, color=color)).arrange(DOWN, buff=0.04)
    name.next_to(frame, RIGHT, buff=0.12)
    ghost = VGroup(frame, labels, name)
    ghost.frame, ghost.labels, ghost.name = frame, labels, name
    return ghost


def get_equal_parameter_names(first: str, second: str, color: str) -> VGroup:
    """Two parameters' names with "=" between: one matrix of entries on screen, two names for it."""
    a = get_text(first, font_size=SMALL_SIZE, color=color)
    eq = get_text("=", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
    b = get_text(second, font_size=SMALL_SIZE, color=color)
    names = VGroup(a, eq, b).arrange(RIGHT, buff=0.2)
    names.first, names.second = a, b
    names.tint = color
    return names


def get_query_badge(ws, head) -> VGroup:
    """q^h_n small, to sit under the head's keys while they arrive (query and keys side by side)."""
    n, h, color = ws.n, head.index, head_color(head.index)
    q = get_row_vector(head.Q[n - 1], None, tag=f"q{h}_badge", color=color, places=None, dim_zeros=True)
    label = get_text(f"q{sup(h)}{sub(n)}", font_size=LABEL_SIZE, color=color).next_to(q.brackets, LEFT, buff=0.12)
    badge = VGroup(label, q)
    badge.label, badge.vector = label, q
    return badge


def get_receiver_row(ws) -> VGroup:
    """e_n, the receiver's row of E, with the axes over its four numbers (its own precision)."""
    n = ws.n
    e = get_row_vector(ws.E[n - 1], list(AXES), tag="E_row", color=RECEIVER_COLOR, places=None, dim_zeros=True,
                       label_size=LABEL_SIZE)
    label = get_text(f"e{sub(n)}: the receiver “{display_words(ws)[-1]}”", font_size=LABEL_SIZE,
                     color=RECEIVER_COLOR)
    label.next_to(e.brackets, LEFT, buff=BUFF)
    group = VGroup(label, e)
    group.vector, group.label = e, label
    return group


def get_query_panel(ws, head) -> VGroup:
    """W_Q^h (rows: the input axes) → q^h_n, the head's query at the receiver."""
    n, h, color = ws.n, head.index, head_color(head.index)
    coords = coordinate_names(head)
    w_q = get_labeled_matrix(head.W_Q, list(AXES), coords, name=f"W_Q{sup(h)}  {format_shape(head.W_Q.shape)}",
                             tag=f"W_Q{h}", color=color, name_color=color, places=None, dim_zeros=True,
                             label_size=LABEL_SIZE)
    q = get_row_vector(head.Q[n - 1], coords, name=f"q{sup(h)}{sub(n)}  {format_shape((1, head.Q.shape[1]))}",
                       tag=f"q{h}", color=color, name_color=color, places=None, dim_zeros=True,
                       label_size=LABEL_SIZE)
    panel = VGroup(w_q, q).arrange(RIGHT, buff=0.6)
    q.set_y(w_q.get_center()[1])
    arrow = get_arrow(w_q.get_right(), q.brackets.get_left(), color=color)
    panel.add(arrow)
    panel.w_q, panel.q, panel.arrow = w_q, q, arrow
    return panel


def get_dot_product_line(ws, head, k: int) -> VGroup:
    """q^h_n(k) = e_n · column k of W_Q^h, term by term; terms whose product is zero are dimmed.
    The result is the worksheet's Q[n-1, k] (rounded once, at display)."""
    n, h, color = ws.n, head.index, head_color(head.index)
    e_places, w_places = places_for(ws.E[n - 1]), places_for(head.W_Q)
    coord = coordinate_names(head)[k]
    # the coordinate named as an index: q¹₁₀[water] is one number of the [1, 2] query
    parts = [get_text(f"q{sup(h)}{sub(n)}[{coord}]  =", font_size=LABEL_SIZE, color=color)]
    for i, term in enumerate(dot_terms(ws.E[n - 1], head.W_Q[:, k])):
        if i:
            parts.append(get_text("+", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR))
        e_color, w_color = (RECEIVER_COLOR, color) if term.counts else (DIM_TEXT_COLOR, DIM_TEXT_COLOR)
        parts.append(VGroup(
            get_number(term.e, e_places, tag=f"dot_e{h}", index=(k, i), color=e_color, font_size=LABEL_SIZE),
            get_text("×", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR),
            get_number(term.w, w_places, tag=f"dot_w{h}", index=(k, i), color=w_color, font_size=LABEL_SIZE),
        ).arrange(RIGHT, buff=0.08))
    parts.append(get_text("=", font_size=LABEL_SIZE))
    result = get_number(head.Q[n - 1, k], places_for(head.Q[n - 1]), tag=f"dot_q{h}", index=k,
                        font_size=LABEL_SIZE + 2, color=color)
    parts.append(result)
    line = VGroup(*parts).arrange(RIGHT, buff=0.14)
    y = baseline_y(parts[0])
    for part in parts[1:]:
        for t in (part if isinstance(part, VGroup) else [part]):
            if t.original_text not in ("+", "×", "="):
                align_baseline(t, y)
    line.result = result
    return line


def get_reads_layout(ws) -> VGroup:
    """E (words as row labels), each head's W_K^h (rows: the input axes) in one column, and each
    K^h = E·W_K^h with its rows level with E's; K's columns named by the axis each copies when W_K^h
    copies axes (lesson_data.projections)."""
    rows = shown_rows(ws.n)
    kw = dict(places=None, dim_zeros=True, v_buff=0.08, label_size=SMALL_SIZE)
    e_m = get_row_elided_matrix(ws.E, rows, display_words(ws), list(AXES), name=f"E  {format_shape(ws.E.shape)}",
                                tag="E_rows", **kw)
    groups = VGroup()
    for head in ws.heads:
        h, color = sup(head.index), head_color(head.index)
        copies = copied_axes(head.W_K)
        coords = coordinate_names(head)
        w_k = get_labeled_matrix(head.W_K, list(AXES), coords, name=f"W_K{h}", tag=f"W_K{head.index}",
                                 color=color, name_color=color, places=None, dim_zeros=True, label_size=SMALL_SIZE,
                                 v_buff=0.06)
        k_m = get_row_elided_matrix(head.K, rows, None, coords,
                                    name=f"K{h}  {format_shape(head.K.shape)}", tag=f"K{head.index}",
                                    color=color, name_color=color, label_color=color, **kw)
        group = VGroup(w_k, k_m)
        group.w_k, group.k, group.copies = w_k, k_m, copies
        group.reads = axes_read(head.W_K)
        groups.add(group)
    w_column = VGroup(*(g.w_k for g in groups)).arrange(DOWN, buff=0.3, aligned_edge=RIGHT)
    k_columns = VGroup(*(g.k for g in groups)).arrange(RIGHT, buff=0.24)
    layout = VGroup(e_m, w_column, k_columns).arrange(RIGHT, buff=0.2)
    top = e_m.anchors[0][0].get_y()
    for g in groups:      # K's rows level with E's rows
        g.k.shift(UP * (top - g.k.anchors[0][0].get_y()))
    w_column.align_to(e_m, UP)
    # a little left of centre: the parallel beat's boxes round the keys keep clear of the right edge
    layout.move_to(CONTENT_CENTER + LEFT * 0.08).align_to(UP * (CONTENT_TOP - 0.2), UP)
    layout.e, layout.heads = e_m, groups
    return layout


class Projections(LessonScene):
    """Scene 7: each head's query at the receiver is e_n · W_Q^h (one dot product per coordinate,
    shown once); the keys are where the heads differ: head 1 reads water and finance, head 2 person
    and glue, from every source row."""

    def construct(self):
        ws = self.ws = scene_worksheet()
        self.title = get_title("Projections: what each head reads")
        with self.transition("title"):
            self.play(FadeIn(self.title))
        # --- Shot 1: the receiver's row, each head's W_Q, one query per head --------------------
        self.shot("one query per head")
        self.build_queries(ws)
        self.show_receiver_row(ws)
        self.show_query_matrices(ws)
        self.show_dot_product(ws)
        self.show_all_queries(ws)
        self.show_query_width(ws)
        # --- Shot 2: keys and values: what each head reads --------------------------------------
        self.shot("what each head reads")
        self.reads = get_reads_layout(ws)
        self.keep_queries(ws)
        for head, group in zip(ws.heads, self.reads.heads):
            self.show_keys(ws, head, group)
        self.show_what_each_reads(ws)
        self.show_values(ws)
        self.show_separate_parameters()
        self.show_parallel(ws)

    # pictures ---------------------------------------------------------------------------------
    def build_queries(self, ws):
        e_row = get_receiver_row(ws)
        panels = VGroup(*(get_query_panel(ws, head) for head in ws.heads)).arrange(RIGHT, buff=0.8)
        line = get_dot_product_line(ws, ws.heads[0], 0)
        layout = VGroup(e_row, panels, line).arrange(DOWN, buff=0.45)
        layout.move_to(CONTENT_CENTER + UP * 0.25)
        self.e_row, self.panels, self.dot_line = e_row, panels, line

    def place_fine_print(self, *texts) -> VGroup:
        note = VGroup(*(get_fine_print(t) for t in texts)).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
        return note.to_edge(LEFT, buff=0.6).align_to(UP * (CONTENT_BOTTOM + 0.02), DOWN)

    # beats ------------------------------------------------------------------------------------
    def show_receiver_row(self, ws):
        with self.beat(f"The receiver, the word “{display_words(ws)[-1]}”, brings its row of E: e{sub(ws.n)}.",
                       spoken=f"The receiver, the word “{display_words(ws)[-1]}”, brings its row of E, row {ws.n}."):
            self.play(FadeIn(self.e_row, shift=0.2 * DOWN))

    def show_query_matrices(self, ws):
        d, d_k = ws.heads[0].W_Q.shape
        with self.beat(f"Each head has its own W_Q, {format_shape((d, d_k))}: {count_word(d)} numbers in, "
                       f"{count_word(d_k)} out."):
            self.play(*(FadeIn(VGroup(p.w_q, p.arrow, p.q.brackets, p.q.name_label, p.q.col_labels))
                        for p in self.panels))

    def show_dot_product(self, ws):
        head, panel, line = ws.heads[0], self.panels[0], self.dot_line
        color = head_color(head.index)
        counting = [t.axis for t in dot_terms(ws.E[ws.n - 1], head.W_Q[:, 0]) if t.counts]
        # the receiver's row lit round its brackets (padded clear of them, not drawn on them)
        row_box = SurroundingRectangle(self.e_row.vector.brackets, buff=0.08, corner_radius=0.04)
        row_box.set_stroke(RECEIVER_COLOR, 2).set_fill(RECEIVER_COLOR, HIGHLIGHT_OPACITY)
        col_box = get_inset_column_box(panel.w_q, 0, color)
        note = self.place_fine_print("W_Q reads all four input coordinates. "
                                     "Each query coordinate is a dot product with one column of W_Q.")
        self.fine_print = note
        where = (f"only {join_words(counting)} counts here" if counting else "every term is zero here")
        with self.beat(f"A query coordinate: multiply this row by one column of W_Q term by term, and add: {where}."):
            self.play(Create(row_box), Create(col_box))
            self.play(FadeIn(line, shift=0.1 * UP), FadeIn(note), run_time=0.8)
            self.play(ReplacementTransform(line.result.copy(), panel.q.cell(0, 0)), run_time=0.8)
        self.query_boxes = VGroup(row_box, col_box)
        coord = coordinate_names(head)[0]
        # a query column is named for the key column it is compared with, not for what it is built from
        ghost = self.key_ghost = get_key_ghost(head, panel.q)
        # the key column it meets: a faint K header under the query, linked column to column
        x = panel.q.cell_center(0, 0)[0]
        link = Line([x, panel.q.brackets.get_bottom()[1] - 0.04, 0],
                    [x, ghost.frame.get_top()[1], 0]).set_stroke(color, 2.5)
        ghost.add(link)
        with self.beat(f"A query column is named for the key column it meets: q{sup(head.index)}{sub(ws.n)}’s "
                       f"“{coord}” is compared with each key’s {coord}.",
                       spoken=f"Each number in the query is named for the key number it meets: this {coord} "
                              f"number is compared with each key's {coord}.", look=1.2):
            self.play(Indicate(panel.q.col_labels[0], color=color, scale_factor=1.3), run_time=0.8)
            self.play(FadeIn(VGroup(ghost.frame, ghost.labels, ghost.name), shift=0.15 * DOWN), run_time=0.8)
            self.play(Create(link), Indicate(ghost.labels[0], color=color, scale_factor=1.3), run_time=1.0)

    def show_all_queries(self, ws):
        n = ws.n
        said = "; ".join(f"head {head.index}’s query is "
                         + ", ".join(fmt(v, places_for(head.Q[n - 1])) for v in head.Q[n - 1])
                         for head in ws.heads)
        steps = [(head, p, k) for head, p in zip(ws.heads, self.panels) for k in range(p.q.n_cols)
                 if not (p is self.panels[0] and k == 0)]
        col_box = self.query_boxes[1]
        with self.beat(f"The other coordinates work the same way: {said}."):
            # the worked line was head 1's first coordinate: it leaves as the highlight moves on
            self.play(FadeOut(self.key_ghost), FadeOut(self.dot_line), run_time=0.4)
            # the column highlight walks once through every other query coordinate; each column's
            # numbers flow into the coordinate they make (row times column, as worked above)
            for head, p, k in steps:
                self.play(Transform(col_box, get_inset_column_box(p.w_q, k, head_color(head.index))), run_time=0.5)
                self.play(TransformFromCopy(p.w_q.column(k), p.q.cell(0, k)), run_time=0.9)
            self.play(FadeOut(self.query_boxes), run_time=0.4)

    def show_query_width(self, ws):
        d_k = ws.heads[0].Q.shape[1]
        note = self.place_fine_print("Query/key width is two per head here; Part II’s single-head toy used three.",
                                     "The head superscripts label heads, not powers.")
        boxes = VGroup(*(SurroundingRectangle(VGroup(p.q.brackets, p.q.col_labels, p.q.name_label), buff=0.14,
                                              color=head_color(head.index))
                         for head, p in zip(ws.heads, self.panels)))
        # Part II's width is the fine print's, not the caption's (said once)
        with self.beat(f"One query per head at the receiver, {count_word(d_k)} numbers each.", look=1.2):
            self.play(ReplacementTransform(self.fine_print, note), Create(boxes))
        self.fine_print = note

    def keep_queries(self, ws):
        """Between the shots: the queries shrink into badges under where their keys will appear,
        so query and keys are side by side; everything else leaves."""
        badges = self.query_badges = VGroup()
        moves = []
        for head, panel, group in zip(ws.heads, self.panels, self.reads.heads):
            badge = get_query_badge(ws, head)
            badge.next_to(group.k.brackets, DOWN, buff=0.22).set_x(group.k.brackets.get_x())
            badges.add(badge)
            moves += [ReplacementTransform(panel.q.brackets, badge.vector.brackets),
                      ReplacementTransform(panel.q.entries, badge.vector.entries),
                      ReplacementTransform(panel.q.name_label, badge.label)]
        moving = {id(m) for p in self.panels for part in (p.q.brackets, p.q.entries, p.q.name_label)
                  for m in part.get_family()}
        kept = {id(m) for m in self.title.get_family()} | moving
        leaving = [m for m in self.mobjects if not any(id(f) in kept for f in m.get_family())]
        # a panel holds both what leaves and what moves: fade its other parts
        partial = [part for p in self.panels for part in (p.w_q, p.arrow, p.q.col_labels)]
        with self.transition("queries kept, the rest cleared"):
            self.play(*(FadeOut(m) for m in leaving), *(FadeOut(m) for m in partial), *moves, run_time=1.2)

    def show_keys(self, ws, head, group):
        h, color = head.index, head_color(head.index)
        e_m, w_k, k_m = self.reads.e, group.w_k, group.k
        axes = list(AXES)
        read_rows = VGroup(*(w_k.get_row_box(axes.index(a), color=color, include_label=True) for a in group.reads))
        columns = VGroup(*(get_inset_column_box(e_m, axes.index(a), color) for a in group.reads))
        group.read_rows, group.columns = read_rows, columns
        first = h == ws.heads[0].index
        if group.copies:
            what = (f"Head {h}’s W_K has ones at {join_words(list(group.copies))}: its keys are "
                    f"the {join_words(list(group.copies))} columns of every row." if first else
                    f"Head {h}’s W_K keeps {join_words(list(group.copies))}: "
                    f"its keys are {'those' if len(group.copies) > 1 else 'that'} "
                    f"{count_word(len(group.copies)) + ' columns' if len(group.copies) > 1 else 'column'}.")
        else:
            what = f"Head {h}’s W_K mixes {join_words(list(group.reads))} into its keys."
        with self.beat(what):
            if first:
                self.play(FadeIn(VGroup(e_m.brackets, e_m.entries, e_m.row_labels, e_m.col_labels, e_m.name_label,
                                        e_m.dots)), run_time=0.8)
            self.play(FadeIn(w_k), Create(read_rows))
            self.play(Create(columns))
            frame = VGroup(k_m.brackets, k_m.col_labels, k_m.name_label, k_m.dots)
            if group.copies:
                sources = VGroup(*(e_m.column(axes.index(a)).copy() for a in group.copies))
                targets = VGroup(*(k_m.column(c) for c in range(k_m.n_cols)))
                # the columns fly over the W_K matrices (and the keys before): those dim while
                # the values pass, and stay on screen (cause before result, no flicker)
                shown = {id(m) for top in self.mobjects for m in top.get_family()}
                passed = VGroup()
                for g in self.reads.heads:
                    if id(g.w_k.entries) in shown:
                        passed.add(g.w_k)
                        if hasattr(g, "read_rows") and id(g.read_rows[0]) in shown:
                            passed.add(g.read_rows)
                    if g is not group and id(g.k.entries[0][0]) in shown:
                        passed.add(VGroup(g.k.entries, g.k.brackets, g.k.col_labels, g.k.name_label))
                passed.save_state()
                self.play(passed.animate.fade(0.8), run_time=0.3)
                self.play(FadeIn(frame), ReplacementTransform(sources, targets), run_time=1.4)
                self.play(Restore(passed), run_time=0.3)
            else:
                self.play(FadeIn(frame), FadeIn(k_m.entries))

    def show_what_each_reads(self, ws):
        groups = self.reads.heads
        said = "; ".join(f"head {head.index} reads {join_words(list(g.reads))}" for head, g in zip(ws.heads, groups))
        # a key coordinate the receiver's query gives zero moves none of its scores: said, with the query
        buts = []
        for head in ws.heads:
            names = coordinate_names(head)
            unused = unused_by_query(head.Q[ws.n - 1], names)
            if unused and len(unused) < len(names):
                buts.append(f"Head {head.index}’s query here is 0 on {join_words(list(unused))}, so its scores come "
                            f"from {join_words([c for c in names if c not in unused])} alone.")
        but = " ".join(buts)
        e_m = self.reads.e
        rows = len(e_m.shown)
        with self.beat(f"So {said}, from every source row." + (f" {but}" if but else ""), look=0.5):
            # a bar sweeps down every source row, across E and both heads' keys
            layout = self.reads
            bar = Rectangle(width=layout.width + 0.2, height=e_m.row_height)
            # white: the source walked (yellow stays the receiver's)
            bar.set_stroke(TEXT_COLOR, 1.5).set_fill(TEXT_COLOR, HIGHLIGHT_OPACITY * 0.6)
            bar.move_to([layout.get_x(), e_m.cell_center(0, 0)[1], 0])
            self.play(FadeIn(bar), run_time=0.3)
            self.play(bar.animate.set_y(e_m.cell_center(rows - 1, 0)[1]), run_time=3.6, rate_func=linear)
            self.play(FadeOut(bar), run_time=0.3)
            # what the "but" says, on screen: the query's zero boxed, the key column it meets dimmed
            marks, dims = self.get_unused_marks(ws)
            if len(marks):
                self.play(Create(marks), *(d.animate.set_opacity(0.3) for d in dims), run_time=0.8)
        self.unused_marks, self.unused_dims = marks, dims

    def get_unused_marks(self, ws):
        """For each query coordinate that is 0 at the receiver (while another is not): a box on that
        entry of the query badge, and its key column (saved, to be restored) to dim."""
        marks, dims = VGroup(), []
        for head, g, badge in zip(ws.heads, self.reads.heads, self.query_badges):
            names = coordinate_names(head)
            unused = unused_by_query(head.Q[ws.n - 1], names)
            if not unused or len(unused) == len(names):
                continue
            for c in unused:
                k = names.index(c)
                marks.add(badge.vector.get_cell_box(0, k, color=head_color(head.index), fill_opacity=0.0))
                column = VGroup(*(g.k.cell(r, k) for r in range(g.k.n_rows)))
                column.save_state()
                dims.append(column)
        return marks, dims

    def show_values(self, ws):
        same = [np.array_equal(head.W_K, head.W_V) for head in ws.heads]
        renames = []
        for head, g in zip(ws.heads, self.reads.heads):
            if not np.array_equal(head.W_K, head.W_V):
                continue
            h, color = sup(head.index), head_color(head.index)
            new_k = get_text(f"K{h} = V{h}  {format_shape(head.K.shape)}", font_size=LABEL_SIZE, color=color)
            new_k.move_to(g.k.name_label)
            renames.append(ReplacementTransform(g.k.name_label, new_k))
            # W_V's entries are the ones on screen: two names, "=" between (two parameters)
            new_w = get_equal_parameter_names(f"W_K{h}", f"W_V{h}", color)
            new_w.move_to(g.w_k.name_label).align_to(g.w_k.brackets, RIGHT)
            renames.append(ReplacementTransform(g.w_k.name_label, new_w))
            g.w_k.name_label = new_w
            g.w_names = new_w
            g.k_name = new_k
        pairs = join_words([f"V{sup(head.index)} = K{sup(head.index)}" for head, same_here in zip(ws.heads, same)
                            if same_here])
        text = (f"W_V has the same entries as W_K here: {pairs}."
                if all(same) else "W_V has its own entries, so the values carry other columns.")
        spoken = ("W V has the same entries as W K here, so each head's values are numerically equal to its keys."
                  if all(same) else None)
        with self.beat(text, spoken=spoken):
            # the values use every key column: the dimmed one comes back
            if len(self.unused_marks):
                self.play(FadeOut(self.unused_marks), *(Restore(d) for d in self.unused_dims), run_time=0.5)
            if renames:
                self.play(*renames)
                # the same numbers serve as values: both matrices light up in the head's colour
                self.play(*(Indicate(VGroup(g.w_k.entries, g.k.entries), color=head_color(head.index),
                                     scale_factor=1.08)
                            for head, g in zip(ws.heads, self.reads.heads)), run_time=1.2)

    def show_separate_parameters(self):
        """One sentence for both caveats of the hand-made matrices: two parameters (equal entries only
        here), chosen by hand. The fine print keeps the notes' words; the caption does not repeat them."""
        note = self.place_fine_print("These sparse matrices are hand-chosen; learned projections need not be "
                                     "sparse or interpretable.")
        entries = VGroup(*(g.w_k.entries for g in self.reads.heads))
        # two parameters: each name gets its own box, W_K's then W_V's
        frames = self.parameter_frames = VGroup(*(
            SurroundingRectangle(name, buff=0.06, corner_radius=0.05).set_stroke(g.w_names.tint, 2)
            for g in self.reads.heads if hasattr(g, "w_names") for name in (g.w_names.first, g.w_names.second)))
        with self.beat("They are still two separate parameters, picked by hand here; "
                       "learned ones need not be equal, or this tidy.", look=1.0):
            if len(frames):
                self.play(LaggedStart(*(Create(f) for f in frames), lag_ratio=0.4), run_time=1.6)
            self.play(FadeIn(note), entries.animate(rate_func=there_and_back).set_opacity(0.25), run_time=1.6)
        self.fine_print = note

    def show_parallel(self, ws):
        groups = self.reads.heads
        # each head's keys with its query badge: what the head compares, for every known token at once
        boxes = VGroup(*(SurroundingRectangle(VGroup(g.k.brackets, g.k.entries, g.k.col_labels,
                                                     getattr(g, "k_name", g.k.name_label), badge),
                                              buff=0.09, color=head_color(head.index))
                         for head, g, badge in zip(ws.heads, groups, self.query_badges)))
        known = f"all {count_word(ws.n)} known tokens" if ws.n > 1 else "the one known token"
        with self.beat(f"Both heads read {known}, each with its own query and keys.", look=1.0):
            self.play(Create(boxes[0]), Create(boxes[1]), run_time=1.0)
