"""Chapter 4, scene 21: a roadmap to vision — patches, the CLS row, an encoder, two logits.

Every number comes from `lesson_data.vision_roadmap.vision_roadmap()`: a tiny shape illustration
with illustrative parameters (not a trained model), so no probability on screen is a result. The
fine print is the last two paragraphs of the lesson notes (docs/lesson-notes.txt), in their words.

    manim -pql scenes/chapter4_vision_roadmap.py PatchesAndCLS
"""
from __future__ import annotations

import numpy as np
from manim import (
    DL,
    DOWN,
    DR,
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
    Transform,
    TransformFromCopy,
    RoundedRectangle,
    Square,
    SurroundingRectangle,
    VGroup,
    VMobject,
)

from lesson_data import comparison
from lesson_data.display import fmt, places_for
from lesson_data.vision_roadmap import vision_roadmap
from scenes.blocks.attention_arrows import get_token_row
from scenes.blocks.causal_map_panel import get_causal_map_panel
from scenes.blocks.flow_arrow import get_arrow
from scenes.blocks.roadmap_icons import ICON_HEIGHT, get_bars_icon, get_cells_icon
from scenes.blocks.patch_pictures import LAYER_OFFSET, get_channel_block, get_cut_image
from scenes.blocks.labeled_matrix import LabeledMatrix, get_labeled_matrix, get_row_vector
from scenes.blocks.unmasked_attention import get_attention_grid, get_source_weights, get_unmasked_arrows
from scenes.style import (
    ROUNDING_NOTE,
    BACKGROUND,
    BODY_SIZE,
    BUFF_SMALL,
    CONTENT_BOTTOM,
    CONTENT_CENTER,
    CONTENT_TOP,
    DIM_TEXT_COLOR,
    LABEL_SIZE,
    POSITIVE_COLOR,
    RECEIVER_COLOR,
    SAFE_WIDTH,
    SMALL_SIZE,
    TEXT_COLOR,
    WIDE_HEAD_COLOR,
    LessonScene,
    align_baseline,
    baseline_y,
    blend_colors,
    count_word,
    format_shape,
    get_count,
    get_fine_print,
    get_number,
    get_text,
    get_title,
    head_color,
)

CLS_COLOR = RECEIVER_COLOR        # the CLS row: the one row the classifier reads
PATCH_COLOR = head_color(1)       # patch rows
POSITION_COLOR = POSITIVE_COLOR   # position rows
ENCODER_COLOR = WIDE_HEAD_COLOR   # the encoder and its attention
PIXEL_ON = "#EDEDED"              # pixel value 1 (the stripe)
PIXEL_OFF = "#2B2F38"             # pixel value 0
DROPPED_OPACITY = 0.18            # projection rows a dark pixel multiplies by 0
LEFT_EDGE = -SAFE_WIDTH / 2
RIGHT_EDGE = SAFE_WIDTH / 2
FINE_PRINT_Y = CONTENT_BOTTOM + 0.08   # bottom edge of the fine print, just above the captions
GRID_SIDE = 0.7                        # a cell of the 5 × 5 attention grid: room for "0.200" (0.61 wide)
READ_OPACITY = 0.4                     # a cell a row reads, in both grids (the image's weights are nearly even)
THUMB_V_BUFF = 0.3                     # rows tall enough for a legible patch thumbnail beside them
IMAGE_X = -4.35                        # the image's centre once the flattened rows stand beside it
# the encoder box opened for its attention (left, right, top, bottom): the stage's left, the real map right
ZOOM_BOX = (LEFT_EDGE, 0.75, 2.6, -2.2)
MAP_SIDE = 3.5                         # chapter 3's 64 × 64 map beside the opened box
CAUSAL_MODEL, CAUSAL_HEAD = "one_head", 0   # the map scene 20 builds (20_08): its one head
FORMULAS_LIFT = 0.9                    # the formulas rise to give their pictures room beneath
ROAD_ROW_GAP = 0.6                     # between the road's two rows of chips (the turn runs in it)
CLS_ROOM = 1.5                         # CLS drawn this wide: four patches' arrowheads spread along its edge


def pixel_color(value: float) -> str:
    """Grayscale pixel in [0, 1] between the dark and the light pixel colour."""
    return blend_colors(PIXEL_ON, value, background=PIXEL_OFF)


def patch_name(k: int) -> str:
    return f"patch {k + 1}"


def place_fine_print(note, left: float = LEFT_EDGE):
    """The notes' caveat at the bottom of the content zone, left-aligned."""
    note.move_to([left, FINE_PRINT_Y, 0], aligned_edge=LEFT + DOWN)
    return note


# --------------------------------------------------------------------------------------------
# The image, its patches, and small pictures of one patch
# --------------------------------------------------------------------------------------------


class PatchedImage(VGroup):
    """The H × W image as one group per P × P patch (row-major patch order). Parts: `patches`
    (each with `.cells`, `.numbers`, `.frame`, `.index`), `number(r, c)` for pixel (r, c)."""

    def number(self, r: int, c: int):
        return self._numbers[(r, c)]


def get_patched_image(vr, side: float = 0.4) -> PatchedImage:
    """Squares shaded by pixel value with the value inside; the cells of one shade in a patch are
    one path (fast to draw)."""
    W, P = vr.W, vr.P
    image = PatchedImage()
    image._numbers = {}
    image.patches = VGroup()
    grid_w = W // P
    for k in range(vr.n_patches):
        pr, pc = divmod(k, grid_w)
        shades: dict = {}
        numbers = VGroup()
        for i in range(P):
            for j in range(P):
                r, c = pr * P + i, pc * P + j
                value = float(vr.image[r, c])
                center = np.array([c * side, -r * side, 0.0])
                square = Square(side_length=side).move_to(center)
                shades.setdefault(pixel_color(value), VMobject()).append_points(square.points)
                ink = BACKGROUND if value > 0.5 else DIM_TEXT_COLOR
                number = get_count(int(value), tag="image", index=(r, c), font_size=SMALL_SIZE, color=ink)
                number.move_to(center)
                numbers.add(number)
                image._numbers[(r, c)] = number
        cells = VGroup(*(shape.set_fill(color, 1.0).set_stroke(BACKGROUND, 1.5)
                         for color, shape in shades.items()))
        frame = Rectangle(width=P * side, height=P * side).set_stroke(PATCH_COLOR, 3).move_to(cells)
        patch = VGroup(cells, numbers)
        patch.cells, patch.numbers, patch.frame, patch.index = cells, numbers, frame, k
        image.patches.add(patch)
    image.add(image.patches)
    image.side = side
    return image


def get_patch_thumbnail(vr, k: int, height: float = 0.3) -> VGroup:
    """Patch k as a tiny P × P picture (shades only, no numbers), framed in the patch colour."""
    P = vr.P
    side = height / P
    cells = VGroup()
    for i in range(P):
        for j in range(P):
            value = float(vr.patches[k][i, j])
            cells.add(Square(side_length=side).set_stroke(width=0).set_fill(pixel_color(value), 1.0)
                      .move_to([j * side, -i * side, 0]))
    frame = Rectangle(width=height, height=height).set_stroke(PATCH_COLOR, 1.5).move_to(cells)
    return VGroup(cells, frame)


def add_thumbnails(matrix: LabeledMatrix, vr, patches: dict) -> VGroup:
    """Thumbnails left of the row labels: {matrix row: patch index}. Returns them (not added)."""
    thumbs = VGroup()
    left = min(label.get_left()[0] for label in matrix.row_labels)
    for i, k in patches.items():
        thumb = get_patch_thumbnail(vr, k, height=min(0.5, matrix.row_height * 0.85))
        thumb.move_to([left - 0.12 - thumb.width / 2, matrix.cell_center(i, 0)[1], 0])
        thumbs.add(thumb)
    return thumbs


TIGHT = {"(", ")", "/", "·", "×", ")×("}   # formula glyphs set close to their neighbours


def get_formula(parts, font_size=LABEL_SIZE, color=TEXT_COLOR) -> VGroup:
    """A one-line formula from strings and (count, tag) pairs; counts go through get_count.
    Brackets, slashes and products sit close; "=" gets room."""
    mobs = []
    for part in parts:
        if isinstance(part, tuple):
            value, tag = part
            mobs.append(get_count(value, tag=tag, font_size=font_size, color=color))
        else:
            mobs.append(get_text(part, font_size=font_size, color=color))
    for prev, mob in zip(mobs, mobs[1:]):
        texts = [getattr(m, "original_text", "") for m in (prev, mob) if not hasattr(m, "value")]
        tight = "=" not in texts and any(t in TIGHT for t in texts)
        mob.next_to(prev, RIGHT, buff=0.05 if tight else 0.16)
    line = VGroup(*mobs)
    y = baseline_y(next(m for m in mobs if hasattr(m, "value")))
    for m in mobs:
        if not hasattr(m, "value"):
            if any(c.isascii() and c.isalnum() for c in m.original_text):
                align_baseline(m, y)
            else:
                m.set_y(mobs[[hasattr(x, "value") for x in mobs].index(True)].get_y())
    return line


def get_column_sum(terms, result, *, tag: str, result_tag: str, places: int, result_places: int,
                   font_size=LABEL_SIZE) -> VGroup:
    """t₁ ± |t₂| ± … = result: each term a NumberText (tag, index = its projection row); the sign
    of a later term is written as the operator, so its number shows the magnitude."""
    mobs, numbers = [], VGroup()
    for n, (row, value) in enumerate(terms):
        if n == 0:
            num = get_number(value, places, tag=tag, index=row, font_size=font_size)
        else:
            mobs.append(get_text("−" if value < 0 else "+", font_size=font_size))
            num = get_number(abs(value), places, tag=tag, index=row, font_size=font_size)
        num.sign = -1 if (n > 0 and value < 0) else 1
        mobs.append(num)
        numbers.add(num)
    equals = get_text("=", font_size=font_size)
    total = get_number(result, result_places, tag=result_tag, index=0, font_size=font_size, color=PATCH_COLOR)
    line = VGroup(*mobs, equals, total).arrange(RIGHT, buff=0.12)
    for m in (*mobs, equals):
        if not hasattr(m, "value"):
            m.set_y(total.get_y())
    line.terms, line.total = numbers, total
    return line


def get_chip(text: str, color: str = TEXT_COLOR, icon=None, icon_room: float = ICON_HEIGHT) -> VGroup:
    """Words in a rounded box; with `icon`, a small picture of the stage above the words, inside the box,
    centred in a room `icon_room` tall (so chips with icons of any height are alike and their words align)."""
    label = get_text(text, font_size=LABEL_SIZE, color=color)
    inside = label
    if icon is not None:
        room = Rectangle(width=max(icon.width, 0.01), height=icon_room).set_stroke(width=0).set_fill(opacity=0)
        VGroup(room, label).arrange(DOWN, buff=0.1)
        icon.move_to(room)
        inside = VGroup(icon, label)
        inside.room = room
    height = (label.height if icon is None else icon_room + 0.1 + label.height) + 0.3
    box = RoundedRectangle(corner_radius=0.1, width=inside.width + 0.3, height=height)
    box.set_stroke(color, 1.5).set_fill(color, 0.08)
    box.move_to(inside if icon is None else VGroup(inside.room, label))
    chip = VGroup(box, inside)
    chip.box, chip.label, chip.icon = box, label, icon
    return chip


# --------------------------------------------------------------------------------------------
# The scene
# --------------------------------------------------------------------------------------------


class PatchesAndCLS(LessonScene):
    """Scene 21: an 8×8 image becomes four patch rows through one shared projection; a CLS row and
    position rows are added (they tell identical patches apart); an encoder with no causal mask
    updates the five rows; the CLS row gives two logits, softmax and a cross-entropy."""

    def construct(self):
        vr = self.vr = vision_roadmap()
        title = get_title("Roadmap to vision: patches and CLS")
        with self.transition("title"):
            self.play(FadeIn(title))
        # --- Shot 1: the image and its patches -------------------------------------------------
        self.shot("image")
        self.show_image(vr)
        self.show_patches(vr)
        # --- Shot 2: each patch flattened to P² values ----------------------------------------
        self.shot("flatten")
        self.show_flatten_first(vr)
        self.show_flatten_rest(vr)
        # --- Shot 3: one shared projection, swept row times column ------------------------------
        self.shot("projection")
        self.show_projection(vr)
        self.show_dropped_rows(vr)
        self.show_first_column(vr)
        self.show_other_columns(vr)
        self.show_every_patch(vr)
        self.show_dark_patches(vr)
        # --- Shot 4: the general formulas -------------------------------------------------------
        self.shot("formulas")
        self.show_sequence_length(vr)
        self.show_patch_width(vr)
        # --- Shot 5: prepend CLS, add position rows --------------------------------------------
        self.shot("CLS and positions")
        self.show_cls(vr)
        self.show_identical_rows(vr)
        self.show_positions(vr)
        self.show_inputs_differ(vr)
        # --- Shot 6: the encoder, grouped; attention with no mask ------------------------------
        self.shot("encoder")
        self.show_encoder(vr)
        self.show_grouped()
        self.show_cls_reads_all(vr)
        self.show_full_grid(vr)
        self.show_triangle(vr)
        self.show_nearly_even(vr)
        self.show_encoder_output(vr)
        # --- Shot 7: the CLS row to two logits, softmax, cross-entropy --------------------------
        self.shot("classifier")
        self.show_logits(vr)
        self.show_softmax(vr)
        self.show_loss(vr)
        self.show_untrained(vr)
        # --- Shot 8: the roadmap ------------------------------------------------------------------
        self.shot("roadmap")
        self.show_roadmap(vr)
        self.show_not_a_benchmark()
        self.show_continuation()
        self.show_credits()

    # ---- Shot 1 ---------------------------------------------------------------------------------
    def show_image(self, vr):
        image = self.image = get_patched_image(vr)
        image.move_to([0, CONTENT_CENTER[1] - 0.05, 0])
        label = self.image_label = get_text(f"{vr.H}×{vr.W} grayscale image", font_size=LABEL_SIZE)
        label.next_to(image, UP, buff=0.45)
        note = self.note = place_fine_print(get_fine_print(
            "This is a tiny shape illustration, not a trained vision model: an 8×8 grayscale image "
            "split into four 4×4 patches."))
        with self.beat(f"Can attention read an image? Here is a tiny one: {vr.H}×{vr.W} pixels, "
                       "a light vertical stripe on a dark ground."):
            self.play(FadeIn(image), FadeIn(label))
        # "in this image model": the scene later shows chapter 3's map, from a trained language model
        with self.beat("It is only a shape illustration: nothing in this image model was trained."):
            self.play(FadeIn(note))

    def show_patches(self, vr):
        image = self.image
        grid_w = vr.W // vr.P
        gap = 0.3
        names, frames = VGroup(), VGroup(*(p.frame for p in image.patches))
        with self.beat(f"Cut it into {count_word(vr.n_patches)} {vr.P}×{vr.P} patches. "
                       "Each patch will play the part a word plays in a sentence.",
                       spoken=f"Cut it into {count_word(vr.n_patches)} patches, each {vr.P}×{vr.P}. "
                              "Each patch will play the part a word plays in a sentence."):
            self.play(*(patch.animate.shift(gap * (divmod(patch.index, grid_w)[1] - 0.5) * RIGHT
                                            + gap * (0.5 - divmod(patch.index, grid_w)[0]) * UP)
                        for patch in image.patches), run_time=1.2)
            for patch in image.patches:
                patch.frame.move_to(patch.cells)
                names.add(get_text(patch_name(patch.index), font_size=SMALL_SIZE, color=PATCH_COLOR)
                          .next_to(patch.frame, DOWN if patch.index >= grid_w else UP, buff=0.08))
            self.play(*(Create(p.frame) for p in image.patches), FadeIn(names),
                      self.image_label.animate.next_to(VGroup(*names[:grid_w]), UP, buff=0.15))
        self.patch_names, self.frames = names, frames

    # ---- Shot 2 ---------------------------------------------------------------------------------
    def get_flattened(self, vr) -> LabeledMatrix:
        flat = get_labeled_matrix(vr.flattened, [patch_name(k) for k in range(vr.n_patches)], None,
                                  name=f"flattened patches  {format_shape(vr.flattened.shape)}",
                                  tag="flattened", places=None, dim_zeros=True, h_buff=0.1, v_buff=0.12)
        flat.brackets[1].shift(RIGHT * 0.08)    # the last digit clear of the bracket (tight columns)
        flat.move_to([IMAGE_X + self.image.width / 2 + 0.5, self.image.get_y(), 0], aligned_edge=LEFT)
        return flat

    def show_flatten_first(self, vr):
        flat = self.flat = self.get_flattened(vr)
        patch = self.image.patches[0]
        picture = VGroup(self.image, self.frames, self.patch_names, self.image_label)
        with self.beat(f"Read patch 1 row by row, and its {vr.patch_width} pixel values "
                       f"become one row of {vr.patch_width} numbers."):
            self.play(FadeOut(self.note), picture.animate.shift(RIGHT * (IMAGE_X - self.image.get_x())))
            self.play(FadeIn(VGroup(flat.brackets, flat.name_label, flat.row_labels)),
                      patch.frame.animate.set_stroke(RECEIVER_COLOR, 4))
            self.play(LaggedStart(*(ReplacementTransform(c, t) for c, t in
                                    zip(patch.numbers.copy(), flat.entries[0])), lag_ratio=0.12),
                      run_time=3.0)
            self.play(patch.frame.animate.set_stroke(PATCH_COLOR, 3))

    def show_flatten_rest(self, vr):
        flat = self.flat
        with self.beat(f"The other patches do the same: {count_word(vr.n_patches)} patches, "
                       f"{count_word(vr.n_patches)} rows of {vr.patch_width}."):
            self.play(LaggedStart(*(ReplacementTransform(p.numbers.copy(), flat.entries[p.index])
                                    for p in self.image.patches[1:]), lag_ratio=0.4), run_time=2.4)

    # ---- Shot 3 ---------------------------------------------------------------------------------
    def get_projection(self, vr) -> LabeledMatrix:
        proj = get_labeled_matrix(vr.projection, None, None, tag="projection", places=None,
                                  name=f"shared projection  {format_shape(vr.projection.shape)}, "
                                       "illustrative parameters", v_buff=0.0)
        proj.move_to([-3.55, 0, 0])
        proj.shift(UP * (CONTENT_TOP - 0.02 - proj.get_top()[1]))
        return proj

    def show_projection(self, vr):
        flat = self.flat
        with self.transition("make room"):
            k = vr.stripe_pair[0]
            self.play(FadeOut(VGroup(self.image, self.frames, self.image_label, self.patch_names, flat.brackets,
                                     flat.name_label, flat.row_labels,
                                     *(flat.entries[i] for i in range(vr.n_patches) if i != k))))
        proj = self.proj = self.get_projection(vr)
        pixels = self.pixels = get_labeled_matrix(vr.flattened[k][:, None], None, None, tag="patch_pixels",
                                                  places=None, dim_zeros=True, v_buff=0.0)
        pixels.next_to(proj.brackets, LEFT, buff=0.35)
        pixels.shift(UP * (proj.cell_center(0, 0)[1] - pixels.cell_center(0, 0)[1]))
        pixel_name = get_text(patch_name(k), font_size=LABEL_SIZE, color=PATCH_COLOR)
        pixel_name.next_to(pixels.brackets, UP, buff=BUFF_SMALL)
        pixel_name.align_to(proj.name_label, DOWN)
        if proj.name_label.get_left()[0] < pixel_name.get_right()[0] + 0.2:   # the two names side by side
            proj.name_label.shift(RIGHT * (pixel_name.get_right()[0] + 0.2 - proj.name_label.get_left()[0]))
        self.pixel_name = pixel_name
        self.note = get_fine_print("Each patch has 16 pixel values; a shared 16×4 projection produces "
                                   "four-dimensional rows. The projection is learned from the image task.",
                                   max_width=RIGHT_EDGE - (-1.6))
        # the row of 16 stands up beside the projection: said under it that it is still a row (a display
        # choice, as chapter 2's notes said of theirs), so it is not read as a column vector
        upright = self.upright_note = get_text(f"a row\nof {vr.patch_width},\ndrawn\nupright", font_size=SMALL_SIZE,
                                               color=DIM_TEXT_COLOR, line_spacing=0.85)
        upright.next_to(pixels.brackets, LEFT, buff=0.12).align_to(pixels.brackets, UP)
        upright.shift(DOWN * 0.1)
        place_fine_print(self.note, left=-1.6)
        d = vr.projection.shape[1]
        # "illustrative" said here, once: a beat of its own made three caveats in one scene (02, 07, 31)
        with self.beat(f"Next, one shared {vr.patch_width}×{d} projection, its numbers illustrative stand-ins "
                       f"for what a real model learns: {count_word(vr.patch_width)} rows, one for each pixel of a patch. "
                       f"Patch {k + 1}'s values stand beside them."):
            self.play(FadeIn(proj), FadeIn(self.note))
            self.play(*(ReplacementTransform(flat.entries[k][i], pixels.cell(i, 0))
                        for i in range(vr.patch_width)), FadeIn(pixels.brackets), FadeIn(pixel_name),
                      run_time=1.8)
            self.play(FadeIn(upright, shift=0.1 * RIGHT))
            self.play(Indicate(proj.name_label, color=PATCH_COLOR, scale_factor=1.05))

    def show_dropped_rows(self, vr):
        k = vr.stripe_pair[0]
        kept = set(vr.read_rows(k))
        proj, pixels = self.proj, self.pixels
        dropped = [i for i in range(vr.patch_width) if i not in kept]
        boxes = self.kept_boxes = VGroup(*(proj.get_row_box(i, color=PATCH_COLOR, fill_opacity=0.12,
                                                             stroke_width=0) for i in sorted(kept)))
        with self.beat(f"Each pixel multiplies its row. Patch {k + 1}'s dark pixels are 0, "
                       "so their rows drop out."):
            self.play(*(proj.row(i).animate.set_opacity(DROPPED_OPACITY) for i in dropped),
                      *(pixels.row(i).animate.set_opacity(DROPPED_OPACITY * 2) for i in dropped),
                      FadeIn(boxes), run_time=1.5)

    def get_results(self, vr) -> VGroup:
        """Patch k's four numbers under the projection's columns, below a rule."""
        k = vr.stripe_pair[0]
        proj = self.proj
        last = vr.patch_width - 1
        rule_y = proj.cell_center(last, 0)[1] - proj.row_height * 0.75
        rule = Line([proj.brackets.get_left()[0], rule_y, 0], [proj.brackets.get_right()[0], rule_y, 0])
        rule.set_stroke(DIM_TEXT_COLOR, 1.5)
        numbers = VGroup()
        for j in range(vr.patch_rows.shape[1]):
            num = get_number(vr.patch_rows[k, j], places_for(vr.patch_rows), tag="patch_rows", index=(k, j),
                             color=PATCH_COLOR)
            num.align_to(proj.cell(last, j), RIGHT)
            num.set_y(rule_y - proj.row_height * 0.6)
            numbers.add(num)
        results = VGroup(rule, numbers)
        results.rule, results.numbers = rule, numbers
        return results

    def show_first_column(self, vr):
        k = vr.stripe_pair[0]
        proj = self.proj
        results = self.results = self.get_results(vr)
        rows = vr.read_rows(k)
        terms = vr.projection_terms(k)
        line = self.sum_line = get_column_sum([(i, terms[i, 0]) for i in rows], vr.patch_rows[k, 0],
                                              tag="sum_term", result_tag="column_sum",
                                              places=places_for(vr.projection),
                                              result_places=places_for(vr.patch_rows))
        label = get_text("column 1:", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
        label.move_to([-1.6, 0, 0], aligned_edge=LEFT)
        line.next_to(label, RIGHT, buff=0.2).set_y(proj.cell_center(2, 0)[1])
        align_baseline(label, baseline_y(line.total))
        line.add_to_back(label)
        head = self.sum_head = get_text("add up what is left, column by column:", font_size=LABEL_SIZE,
                                        color=DIM_TEXT_COLOR)
        head.next_to(line, UP, buff=0.2).align_to(label, LEFT)
        col_box = self.col_box = self.get_col_box(0)
        with self.beat(f"Add up each column of what is left. Column 1 gives "
                       f"{fmt(vr.patch_rows[k, 0], places_for(vr.patch_rows))}."):
            self.play(Create(col_box), FadeIn(head), FadeIn(label))
            self.play(LaggedStart(*(ReplacementTransform(proj.cell(i, 0).copy(), t)
                                    for i, t in zip(rows, line.terms)), lag_ratio=0.15),
                      FadeIn(VGroup(*(m for m in line if m not in line.terms and m is not line.total
                                      and m is not label))),
                      run_time=2.2)
            self.play(FadeIn(line.total))
            self.play(Create(results.rule), ReplacementTransform(line.total.copy(), results.numbers[0]))

    def get_col_box(self, j: int):
        """An outline of projection column j, inside the brackets (never on them)."""
        box = self.proj.get_column_box(j, color=TEXT_COLOR, fill_opacity=0.0)
        return box.stretch_to_fit_width(self.proj.cell_width * 0.92)

    def show_other_columns(self, vr):
        """Each further column's sum in full, stacked under column 1's, its total moving under the column."""
        k = vr.stripe_pair[0]
        proj, results = self.proj, self.results
        rows = vr.read_rows(k)
        terms = vr.projection_terms(k)
        places = places_for(vr.patch_rows)
        values = ", ".join(fmt(v, places) for v in vr.patch_rows[k, 1:-1]) + f" and {fmt(vr.patch_rows[k, -1], places)}"
        n_cols = vr.patch_rows.shape[1]
        lines = self.more_sums = VGroup()
        for j in range(1, n_cols):
            line = get_column_sum([(i, terms[i, j]) for i in rows], vr.patch_rows[k, j],
                                  tag=f"sum_term_{j}", result_tag=f"column_sum_{j}",
                                  places=places_for(vr.projection), result_places=places)
            label = get_text(f"column {j + 1}:", font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
            label.move_to(self.sum_line[0], aligned_edge=LEFT)
            line.next_to(label, RIGHT, buff=0.2).align_to(self.sum_line.terms[0], LEFT)
            group = VGroup(label, *line)
            group.terms, group.total = line.terms, line.total
            group.shift(DOWN * 0.62 * j)
            lines.add(group)
        with self.beat(f"Columns 2 to {n_cols} give {values}: patch {k + 1} is now a row of "
                       f"{count_word(n_cols)} numbers.", look=1.0):
            for j, line in zip(range(1, n_cols), lines):
                self.play(self.col_box.animate.move_to(self.get_col_box(j).get_center()),
                          LaggedStart(*(ReplacementTransform(proj.cell(i, j).copy(), t)
                                        for i, t in zip(rows, line.terms)), lag_ratio=0.08),
                          FadeIn(VGroup(*(m for m in line if m not in line.terms))), run_time=1.1)
                self.play(ReplacementTransform(line.total.copy(), results.numbers[j]), run_time=0.6)

    def get_patch_rows(self, vr) -> VGroup:
        rows = get_labeled_matrix(vr.patch_rows, [patch_name(k) for k in range(vr.n_patches)], None,
                                  name=f"patch rows  {format_shape(vr.patch_rows.shape)}", tag="patch_rows",
                                  places=None, color=PATCH_COLOR, dim_zeros=True, v_buff=THUMB_V_BUFF)
        thumbs = add_thumbnails(rows, vr, {k: k for k in range(vr.n_patches)})
        group = VGroup(thumbs, rows)
        group.matrix, group.thumbs = rows, thumbs
        return group

    def show_every_patch(self, vr):
        a, b = vr.stripe_pair
        panel = self.patch_rows = self.get_patch_rows(vr)
        rows = panel.matrix
        panel.move_to([-1.2, 0, 0], aligned_edge=LEFT).set_y(-0.55)
        pair = self.pair_boxes = VGroup(*(rows.get_row_box(i, color=PATCH_COLOR, include_label=True)
                                          for i in (a, b)))
        for box in pair:   # the box takes in the thumbnail too
            box.stretch_to_fit_width(box.width + panel.thumbs.width + 0.15, about_edge=RIGHT)
        with self.beat(f"The same projection turns every patch into a row. Patch {b + 1} has "
                       f"the same pixels as patch {a + 1}, so it gets the same row."):
            self.play(FadeOut(VGroup(self.sum_head, self.sum_line, self.more_sums, self.col_box)),
                      FadeIn(VGroup(rows.brackets, rows.name_label, rows.row_labels, panel.thumbs)),
                      ReplacementTransform(self.results.numbers, rows.entries[a]))
            self.play(FadeIn(VGroup(*(rows.entries[i] for i in range(vr.n_patches) if i != a))))
            self.play(LaggedStart(*(Create(box) for box in pair), lag_ratio=0.4))

    def show_dark_patches(self, vr):
        dark = vr.dark_patches
        rows = self.patch_rows.matrix
        names = " and ".join(str(k + 1) for k in dark)
        boxes = self.dark_boxes = VGroup(*(rows.get_row_box(k, color=TEXT_COLOR, include_label=True) for k in dark))
        for box in boxes:   # the box takes in the thumbnail too, like the pair's
            box.stretch_to_fit_width(box.width + self.patch_rows.thumbs.width + 0.15, about_edge=RIGHT)
        with self.beat(f"The dark patches, {names}, give rows of zeros."):
            self.play(LaggedStart(*(Create(box) for box in boxes), lag_ratio=0.3),
                      *(Indicate(rows.entries[k], color=TEXT_COLOR, scale_factor=1.08) for k in dark))

    # ---- Shot 4 ---------------------------------------------------------------------------------
    def show_sequence_length(self, vr):
        panel = self.patch_rows
        with self.transition("formulas"):
            self.play(FadeOut(VGroup(self.proj, self.pixels, self.pixel_name, self.upright_note, self.kept_boxes,
                                     self.results.rule, self.note)),
                      panel.animate.move_to([LEFT_EDGE, 0, 0], aligned_edge=LEFT).set_y(CONTENT_CENTER[1] + 0.1),
                      FadeOut(self.pair_boxes), FadeOut(self.dark_boxes))
        grid_h, grid_w = vr.grid
        channels = vr.rgb_channels
        seq = get_formula(["(H/P)×(W/P)", "=", "(", (vr.H, "H"), "/", (vr.P, "P"), ")×(", (vr.W, "W"), "/",
                           (vr.P, "P"), ")", "=", (grid_h, "grid_h"), "×", (grid_w, "grid_w"), "=",
                           (vr.n_patches, "n_patches")])
        gray = get_formula(["P²", "=", (vr.P, "P"), "×", (vr.P, "P"), "=", (vr.patch_width, "patch_width")])
        rgb = get_formula(["P²×3", "=", (vr.P, "P"), "×", (vr.P, "P"), "×", (channels, "channels"), "=",
                           (vr.rgb_patch_width, "rgb_patch_width")])
        names = [get_text(t, font_size=LABEL_SIZE, color=DIM_TEXT_COLOR)
                 for t in ("sequence length", "grayscale patch width", "RGB patch width")]
        for name, formula in zip(names, (seq, gray, rgb)):
            formula.add_to_back(name)
            name.next_to(formula[1], LEFT, buff=0.5)
            align_baseline(name, baseline_y(formula[1]))
        widest = max(n.width for n in names)
        for name, formula in zip(names, (seq, gray, rgb)):   # names in one column, formulas in the next
            formula.shift(RIGHT * (0 - formula[1].get_left()[0]))
            name.set_x(-0.5 - widest + name.width / 2)
        formulas = self.formulas = VGroup(seq, gray, rgb).arrange(DOWN, buff=0.45, aligned_edge=LEFT)
        formulas.next_to(panel, RIGHT, buff=0.8).set_y(panel.get_y() + FORMULAS_LIFT)
        pics = self.formula_pics = self.get_formula_pictures(vr)
        pics.next_to(formulas, DOWN, buff=0.4)
        pics.set_x(formulas.get_x())
        self.gray, self.rgb = gray, rgb
        note = self.note = place_fine_print(get_fine_print(
            "For RGB images the flattened width is P²×3. The general sequence length is (H/P)×(W/P)."))
        # spoken as height and width: the letters H and W are not said (H was the heads' output in
        # chapter 2), P is the patch side
        with self.beat(f"In general, an image of height H and width W, cut into P×P patches, gives (H/P)×(W/P) "
                       f"of them: here {grid_h} × {grid_w}, so {count_word(vr.n_patches)}.",
                       spoken=f"In general, cut an image into square patches of side P, and the number of "
                              f"patches is its height over P times its width over P: here {count_word(grid_h)} "
                              f"times {count_word(grid_w)}, so {count_word(vr.n_patches)}."):
            self.play(FadeIn(seq), FadeIn(note), FadeIn(VGroup(pics.cut.pixels, pics.cut.frame, pics.sides)))
            # the cut: lines across the image make its (H/P)×(W/P) patches, one side P long
            self.play(Create(pics.cut.cuts), Create(pics.p_mark), FadeIn(pics.p_label), run_time=1.2)

    def get_formula_pictures(self, vr) -> VGroup:
        """What the formulas count, drawn: the image with its sides H and W and the cut into P × P patches;
        one patch lifted out (P² values); that patch in colour, three channel layers (P²×3 values)."""
        cut = get_cut_image(vr.image, vr.P, shade=pixel_color, side=1.5, cut_color=PATCH_COLOR)
        h = get_formula(["H", "=", (vr.H, "H")], font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        w = get_formula(["W", "=", (vr.W, "W")], font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        h.next_to(cut.frame, LEFT, buff=0.12)
        w.next_to(cut.frame, UP, buff=0.1)
        # one side of the bottom-left patch, marked under the image: P long
        first = cut.patch(vr.n_patches - (vr.W // vr.P))
        y = cut.frame.get_bottom()[1] - 0.08
        p_mark = Line([first.get_left()[0], y, 0], [first.get_right()[0], y, 0]).set_stroke(TEXT_COLOR, 2)
        p_label = get_formula(["P", "=", (vr.P, "P")], font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        p_label.next_to(p_mark, DOWN, buff=0.08)
        image = VGroup(h, w, cut, p_mark, p_label)
        patch = get_cut_image(vr.patches[0], vr.P, shade=pixel_color, side=0.9)
        gray_label = get_formula(["P²", "=", (vr.patch_width, "patch_width")], font_size=SMALL_SIZE,
                                 color=DIM_TEXT_COLOR)
        block = get_channel_block(vr.P, side=0.9)
        rgb_label = get_formula(["P²×3", "=", (vr.rgb_patch_width, "rgb_patch_width")], font_size=SMALL_SIZE,
                                color=DIM_TEXT_COLOR)
        row = VGroup(image, patch, block).arrange(RIGHT, buff=1.1, aligned_edge=DOWN)
        patch.align_to(cut.frame, DOWN)
        block.align_to(cut.frame, DOWN)
        gray_label.next_to(patch, DOWN, buff=0.12).set_y(p_label.get_y())
        rgb_label.next_to(block.layers[0], DOWN, buff=0.12).set_y(p_label.get_y())
        rgb_label.set_x(block.layers[0].get_x())
        pics = VGroup(row, gray_label, rgb_label)
        pics.cut, pics.sides, pics.p_mark, pics.p_label = cut, VGroup(h, w), p_mark, p_label
        pics.patch, pics.gray_label, pics.block, pics.rgb_label = patch, gray_label, block, rgb_label
        return pics

    def show_patch_width(self, vr):
        channels = vr.rgb_channels
        pics = self.formula_pics
        cut = pics.cut
        grid_w = vr.W
        first = VGroup(*(cut.pixels[r * grid_w + c] for r in range(vr.P) for c in range(vr.P)))
        front, back = pics.block.layers[0], pics.block.layers[1:]
        with self.beat(f"A grayscale patch flattens to P² = {vr.patch_width} values. With "
                       f"{count_word(channels)} colour channels it is P²×3 = {vr.rgb_patch_width}.",
                       spoken=f"A grayscale patch flattens to P squared, {count_word(vr.patch_width)} values. "
                              f"With {count_word(channels)} colour channels it is P squared times three: "
                              f"{vr.rgb_patch_width}."):
            # patch 1 lifts out of the image: P × P values
            self.play(FadeIn(self.gray), TransformFromCopy(first, pics.patch.pixels), FadeIn(pics.patch.frame),
                      FadeIn(pics.gray_label), run_time=1.2)
            # in colour the same patch is three P × P layers, one per channel, stacked behind each other
            # (the layer's backing comes in first, so it lies under the squares arriving from the patch)
            self.play(FadeIn(VGroup(front[0], front.outline)), FadeIn(self.rgb),
                      TransformFromCopy(pics.patch.pixels, front.squares), run_time=1.0)
            self.play(LaggedStart(*(FadeIn(layer, shift=LAYER_OFFSET * (k + 1)) for k, layer in enumerate(back)),
                                  lag_ratio=0.5), FadeIn(pics.rgb_label), run_time=1.2)

    # ---- Shot 5 ---------------------------------------------------------------------------------
    def get_cls_sum(self, vr) -> VGroup:
        n_rows = vr.position_rows.shape[0]
        names = ["CLS"] + [patch_name(k) for k in range(vr.n_patches)]
        tokens = get_labeled_matrix(np.vstack([vr.cls_row, vr.patch_rows]), names, None,
                                    name=f"CLS + patch rows  {format_shape((n_rows, vr.patch_rows.shape[1]))}",
                                    tag="tokens", places=None, dim_zeros=True, v_buff=THUMB_V_BUFF)
        for j in range(tokens.n_cols):
            tokens.cell(0, j).set_color(CLS_COLOR)
            for i in range(1, n_rows):
                if vr.patch_rows[i - 1, j] != 0:
                    tokens.cell(i, j).set_color(PATCH_COLOR)
        tokens.row_labels[0].set_color(CLS_COLOR)
        thumbs = add_thumbnails(tokens, vr, {k + 1: k for k in range(vr.n_patches)})
        plus = get_text("+", font_size=BODY_SIZE + 4)
        pos = get_labeled_matrix(vr.position_rows, [str(p) for p in range(1, n_rows + 1)], None,
                                 name=f"position rows  {format_shape(vr.position_rows.shape)}",
                                 tag="position_rows", places=None, color=POSITION_COLOR, v_buff=THUMB_V_BUFF)
        eq = get_text("=", font_size=BODY_SIZE + 4)
        enc_in = get_labeled_matrix(vr.encoder_input, None, None,
                                    name=f"encoder input  {format_shape(vr.encoder_input.shape)}",
                                    tag="encoder_input", places=None, v_buff=THUMB_V_BUFF)
        group = VGroup(VGroup(thumbs, tokens), plus, pos, eq, enc_in).arrange(RIGHT, buff=0.35)
        group.move_to(CONTENT_CENTER + UP * 0.2)
        middle = (tokens.cell_center(0, 0)[1] + tokens.cell_center(n_rows - 1, 0)[1]) / 2
        for m in (plus, eq):
            m.set_y(middle)
        for m in (pos, enc_in):
            m.name_label.set_y(tokens.name_label.get_y())
        group.tokens, group.thumbs, group.plus = tokens, thumbs, plus
        group.pos, group.eq, group.enc_in = pos, eq, enc_in
        return group

    def show_cls(self, vr):
        with self.transition("clear"):
            self.play(FadeOut(VGroup(self.formulas, self.formula_pics, self.note)))
        s = self.cls_sum = self.get_cls_sum(vr)
        tokens, rows = s.tokens, self.patch_rows.matrix
        cls_box = self.cls_box = tokens.get_row_box(0, color=CLS_COLOR, include_label=True)
        note = self.note = place_fine_print(get_fine_print(
            "For this two-class shape example, prepend one learned CLS token to the four patch embeddings, "
            "then add position embeddings to the five rows."))
        with self.beat(f"In front of the {count_word(vr.n_patches)} patch rows goes one more: "
                       "a classification token, CLS, a row of its own that belongs to no patch; "
                       "a real model learns it, and its numbers here are illustrative.",
                       spoken=f"In front of the {count_word(vr.n_patches)} patch rows goes one more: a "
                              "classification token, C L S for short. It is a row of its own that belongs to no "
                              "patch; a real model learns it, and its numbers here are illustrative."):
            self.play(ReplacementTransform(rows.entries, VGroup(*tokens.entries[1:])),
                      ReplacementTransform(VGroup(rows.brackets, rows.name_label, rows.row_labels),
                                           VGroup(tokens.brackets, tokens.name_label,
                                                  VGroup(*tokens.row_labels[1:]))),
                      ReplacementTransform(self.patch_rows.thumbs, s.thumbs), run_time=1.4)
            self.play(FadeIn(tokens.entries[0], shift=0.3 * DOWN), FadeIn(tokens.row_labels[0], shift=0.3 * DOWN),
                      FadeIn(note))
            self.play(Create(cls_box))
        with self.transition("settle"):
            self.remove(*(m for m in self.mobjects if m in tokens.get_family()))
            self.add(tokens)

    def pair_rows_box(self, matrix: LabeledMatrix, rows, color, thumbs=None) -> VGroup:
        boxes = VGroup()
        for i in rows:
            box = matrix.get_row_box(i, color=color, include_label=len(matrix.row_labels) > 0)
            if thumbs is not None:
                box.stretch_to_fit_width(box.width + thumbs.width + 0.15, about_edge=RIGHT)
            boxes.add(box)
        return boxes

    def show_identical_rows(self, vr):
        a, b = vr.stripe_pair
        s = self.cls_sum
        boxes = self.token_pair = self.pair_rows_box(s.tokens, (a + 1, b + 1), PATCH_COLOR, s.thumbs)
        with self.beat(f"Patches {a + 1} and {b + 1} have identical rows: nothing yet says "
                       "where each one sits in the image."):
            self.play(LaggedStart(*(Create(x) for x in boxes), lag_ratio=0.4))

    def show_positions(self, vr):
        s = self.cls_sum
        n_rows = vr.position_rows.shape[0]
        with self.beat(f"So each of the {count_word(n_rows)} rows gets its own position row added.", look=2.5):
            self.play(FadeIn(s.plus), FadeIn(s.pos, shift=0.2 * LEFT))
            self.play(FadeIn(s.eq), FadeIn(s.enc_in, shift=0.2 * LEFT))

    def show_inputs_differ(self, vr):
        a, b = vr.stripe_pair
        s = self.cls_sum
        pos_boxes = self.pair_rows_box(s.pos, (a + 1, b + 1), POSITION_COLOR)
        in_boxes = self.pair_rows_box(s.enc_in, (a + 1, b + 1), TEXT_COLOR)
        self.pair_marks = VGroup(self.token_pair, pos_boxes, in_boxes)
        with self.beat(f"Same patch rows, different position rows: patches {a + 1} and {b + 1} "
                       "now enter the encoder as different rows."):
            self.play(LaggedStart(*(Create(x) for x in pos_boxes), lag_ratio=0.3))
            self.play(LaggedStart(*(Create(x) for x in in_boxes), lag_ratio=0.3))

    # ---- Shot 6 ---------------------------------------------------------------------------------
    def get_encoder_box(self, vr) -> VGroup:
        n_rows = vr.encoder_input.shape[0]
        items = VGroup(
            get_text(f"attention: every row reads all {count_word(n_rows)}", font_size=LABEL_SIZE,
                     color=ENCODER_COLOR),
            get_text("per-row MLP", font_size=LABEL_SIZE),
            get_text("each: residual, normalization", font_size=LABEL_SIZE),
        ).arrange(DOWN, buff=0.22, aligned_edge=LEFT)
        box = RoundedRectangle(corner_radius=0.15, width=items.width + 0.6, height=items.height + 0.6)
        box.set_stroke(ENCODER_COLOR, 2.5).set_fill(ENCODER_COLOR, 0.06).move_to(items)
        title = get_text("Transformer encoder (grouped)", font_size=LABEL_SIZE, color=ENCODER_COLOR)
        title.next_to(box, UP, buff=0.12)
        group = VGroup(box, title, items)
        group.box, group.title, group.items = box, title, items
        return group

    def show_encoder(self, vr):
        s = self.cls_sum
        names = ["CLS"] + [patch_name(k) for k in range(vr.n_patches)]
        enc_in = get_labeled_matrix(vr.encoder_input, names, None,
                                    name=f"encoder input  {format_shape(vr.encoder_input.shape)}",
                                    tag="encoder_input", places=None)
        enc_in.row_labels[0].set_color(CLS_COLOR)
        encoder = self.encoder = self.get_encoder_box(vr)
        out = self.enc_out = get_labeled_matrix(vr.encoder_output, None, None,
                                                name=f"encoder output  {format_shape(vr.encoder_output.shape)}",
                                                tag="encoder_output", places=None)
        layout = VGroup(enc_in, encoder, out).arrange(RIGHT, buff=0.65)
        layout.move_to(CONTENT_CENTER + UP * 0.2)
        for m in (enc_in, out):
            m.shift(UP * (encoder.box.get_y() - (m.cell_center(0, 0)[1] + m.cell_center(m.n_rows - 1, 0)[1]) / 2))
        self.enc_in = enc_in
        y = encoder.box.get_y()
        a1 = get_arrow([enc_in.get_right()[0], y, 0], [encoder.box.get_left()[0], y, 0])
        self.a1 = a1
        with self.transition("to the encoder"):
            self.play(FadeOut(VGroup(s.tokens, s.thumbs, s.plus, s.pos, s.eq, self.cls_box, self.pair_marks,
                                     self.note)),
                      ReplacementTransform(s.enc_in, VGroup(enc_in.anchor_group, enc_in.brackets, enc_in.entries,
                                                            enc_in.name_label)))
            self.play(FadeIn(enc_in.row_labels))
            self.remove(*(m for m in self.mobjects if m in enc_in.get_family()))
            self.add(enc_in)
        with self.beat(f"A Transformer encoder updates all {count_word(vr.encoder_input.shape[0])} rows."):
            self.play(GrowArrow(a1), FadeIn(encoder.box), FadeIn(encoder.title))

    def show_grouped(self):
        note = self.note = place_fine_print(get_fine_print(
            "The full encoder also includes per-row MLPs, residuals and normalization, which are grouped "
            "here rather than silently omitted."))
        with self.beat("Its per-row MLPs, residuals and normalization are grouped in this box, not left out."):
            self.play(LaggedStart(*(FadeIn(m, shift=0.1 * DOWN) for m in self.encoder.items[1:]), lag_ratio=0.3),
                      FadeIn(note))

    def get_zoom_box(self) -> RoundedRectangle:
        """The encoder box opened up: the frame its attention is drawn in (the left of the stage; the
        language model's map stands outside it, on the right)."""
        left, right, top, bottom = ZOOM_BOX
        box = RoundedRectangle(corner_radius=0.15, width=right - left, height=top - bottom)
        box.set_stroke(ENCODER_COLOR, 2.5).set_fill(ENCODER_COLOR, 0.06)
        return box.move_to([(left + right) / 2, (top + bottom) / 2, 0])

    def zoom_fade(self, m, s: float, centre, shift):
        """Where m goes in a zoom by s about `centre` followed by `shift`: FadeOut/FadeIn's own scale is
        about m's centre, so the shift carries the rest."""
        return {"scale": s, "shift": (s - 1) * (m.get_center() - centre) + shift}

    def zoom_into_encoder(self, big) -> list:
        """A camera-like zoom into the encoder box: the box opens to `big`; what stands around it (the
        input rows, the arrow) and the box's other lines grow with it about its centre and fade, as if the
        view moved in (and leave the stage as they pass the frame); the attention line becomes the heading
        inside. zoom_out_of_encoder plays it backwards."""
        enc = self.encoder
        outside = [self.enc_in, self.a1, *enc.items[1:]]
        for m in (enc.box, enc.title, enc.items[0]):
            m.save_state()
        centre = enc.box.get_center()
        s = big.width / enc.box.width
        shift = big.get_center() - centre
        heading = enc.items[0]
        corner = big.get_corner(UP + LEFT) + RIGHT * 0.3 + DOWN * 0.22
        self.zoom_outside = outside
        self.zoom = (s, centre, shift)
        return [Transform(enc.box, big),
                *(FadeOut(m, **self.zoom_fade(m, s, centre, shift)) for m in outside),
                heading.animate.move_to(corner, aligned_edge=UP + LEFT),
                enc.title.animate.next_to(big, UP, buff=0.12).align_to(big, LEFT)]

    def show_cls_reads_all(self, vr):
        self.overview = VGroup(self.enc_in, self.encoder, self.a1)
        big = self.zoom_box = self.get_zoom_box()
        names = ["CLS"] + [patch_name(k) for k in range(vr.n_patches)]
        # CLS drawn wide: the four patches' tips land spread along its edge, not knotted at its centre
        row = self.token_row = get_token_row(names, receiver=1, positions=False, font_size=20,
                                             receiver_width=CLS_ROOM)
        row.move_to([big.get_x(), big.get_y() - 0.55, 0])
        arrows = self.cls_arrows = get_unmasked_arrows(row, vr.encoder_attention[0], color=ENCODER_COLOR,
                                                       spread=True)
        n = vr.encoder_input.shape[0]
        # each source's weight under its box, where its arrow starts (they move into the grid's first row next)
        weights = self.cls_weights = get_source_weights(row, vr.encoder_attention[0], tag="cls_arrow_weight",
                                                        color=ENCODER_COLOR)
        with self.beat(f"Inside, attention lets the CLS row read all {count_word(n)} rows, "
                       "the patches after it included, each with its own weight."):
            self.play(*self.zoom_into_encoder(big), FadeOut(self.note), run_time=1.6)
            self.play(FadeIn(row))
            self.play(arrows.create())
            self.play(LaggedStart(*(FadeIn(w, shift=0.1 * UP) for w in weights), lag_ratio=0.2))

    def get_grids(self, vr) -> VGroup:
        """Inside the opened encoder box: the image encoder's full 5 × 5 grid. Outside it, on the right:
        chapter 3's real causal map (the one-head model's final-query weights, scene 20's map)."""
        short = ["CLS"] + [f"p{k + 1}" for k in range(vr.n_patches)]
        grid = get_attention_grid(vr.encoder_attention, short, tag="encoder_attention", side=GRID_SIDE,
                                  color=ENCODER_COLOR, fill_opacity=READ_OPACITY)
        grid.row_labels[0].set_color(CLS_COLOR)
        grid.col_labels[0].set_color(CLS_COLOR)
        big = self.zoom_box
        heading = self.encoder.items[0]
        grid_title = get_text(f"image encoder: no mask, all {vr.encoder_attention.size} weights",
                              font_size=LABEL_SIZE, color=ENCODER_COLOR)
        grid_title.move_to(heading, aligned_edge=UP + LEFT)
        grid.move_to([big.get_x(), 0, 0])
        grid.shift(UP * (grid_title.get_bottom()[1] - 0.12 - grid.get_top()[1]))
        left = VGroup(grid_title, grid)
        amap = comparison.load_attention_map()
        lm = amap.model(CAUSAL_MODEL)
        panel = get_causal_map_panel(
            lm.heads[CAUSAL_HEAD], ENCODER_COLOR, MAP_SIDE,
            title="chapter 3’s language model: causal mask",
            about=f"{lm.title}. Row i: the last query's\nweights, window ending at token i;\n"
                  f"{amap.n} tokens of a held-out test story")
        # the map centred in the room right of the box, the panel's lines kept inside the frame
        x0 = big.get_right()[0] + 0.45
        panel.shift(RIGHT * (x0 + (RIGHT_EDGE - x0) / 2 - panel.map.frame.get_x())
                    + UP * (self.encoder.title.get_y() - panel.title.get_y()))
        if panel.get_right()[0] > RIGHT_EDGE:
            panel.shift(LEFT * (panel.get_right()[0] - RIGHT_EDGE))
        grids = VGroup(left, panel)
        grids.grid, grids.left, grids.right, grids.grid_title = grid, left, panel, grid_title
        grids.causal = panel.map
        grids.legend = panel.legend
        return grids

    def show_full_grid(self, vr):
        grids = self.grids = self.get_grids(vr)
        grid, arrows = grids.grid, self.cls_arrows
        n = grid.n
        cls_row = self.grid_cls = grid.get_row_box(0, color=CLS_COLOR)
        rest = VGroup(*(grid.square(i, j) for i in range(1, n) for j in range(n)))
        note = self.note = place_fine_print(get_fine_print(
            f"Each row of weights sums to one. {ROUNDING_NOTE}"))
        with self.beat(f"Those weights are row 1 of a grid. Every row reads all {count_word(n)}: "
                       f"{vr.encoder_attention.size} weights, none masked."):
            # each arrow drops into its cell of the CLS row; the other rows follow
            self.play(FadeOut(self.token_row),
                      *(ReplacementTransform(arrows.arrow(j), grid.square(0, j)) for j in range(n)),
                      FadeIn(VGroup(grid.row_labels[0], grid.col_labels)), run_time=1.6)
            # the weights written on the arrows move into the same row, each into its cell
            self.play(*(ReplacementTransform(w, grid.number(0, j)) for j, w in enumerate(self.cls_weights)),
                      Create(cls_row))
            self.play(FadeIn(VGroup(rest, *(grid.number(i, j) for i in range(1, n) for j in range(n)),
                                    *grid.row_labels[1:])),
                      ReplacementTransform(self.encoder.items[0], grids.grid_title), FadeIn(note))

    def show_triangle(self, vr):
        grids = self.grids
        panel = grids.right
        old = self.note
        note = self.note = place_fine_print(get_fine_print(
            "Image classification does not need a causal future-token mask."))
        # the real map comes in without its mask, then the dark future falls over it: the triangle is the mask
        with self.beat("Chapter 3’s language model masks the future: its real map is a triangle. "
                       "An image needs no such mask: its grid is full."):
            self.play(FadeIn(VGroup(panel.title, panel.map.frame, *panel.map.levels.values(), panel.about)),
                      FadeOut(old), FadeIn(note))
            self.play(FadeIn(panel.map.mask), FadeIn(panel.legend), run_time=1.2)
            self.play(Indicate(grids.grid.squares, color=TEXT_COLOR, scale_factor=1.0), run_time=1.0)

    def show_nearly_even(self, vr):
        lo, hi = vr.attention_bounds(2)
        grid = self.grids.grid
        rings = self.extreme_rings = VGroup(*(SurroundingRectangle(grid.square(*ij), color=TEXT_COLOR, buff=0.0,
                                                                   stroke_width=4)
                                              for ij in vr.attention_extremes))
        old = self.note
        note = self.note = place_fine_print(get_fine_print(ROUNDING_NOTE))
        with self.beat(f"Untrained, with small illustrative parameters, the weights are nearly even: all between "
                       f"{fmt(lo, 2)} and {fmt(hi, 2)}."):
            self.play(Indicate(grid.numbers, color=TEXT_COLOR, scale_factor=1.06), FadeOut(old), FadeIn(note),
                      FadeOut(self.grid_cls))           # the claim is about all 25: only the two extremes boxed
            self.play(LaggedStart(*(Create(r) for r in rings), lag_ratio=0.4))

    def zoom_out_of_encoder(self) -> list:
        """The way back: the grid shrinks into the box as it closes, the heading becomes the attention line
        again, and the input rows and arrow come back from beyond the frame (zoom_into_encoder, reversed)."""
        enc = self.encoder
        big = self.zoom_box
        small = enc.box.saved_state
        enc.items[0].restore()          # off stage since it became the grid's title: the title turns back into it
        s = small.width / big.width
        # everything inside but the title, which turns back into the attention line
        inside = VGroup(*(m for m in self.grids.left if m is not self.grids.grid_title), self.extreme_rings)
        return [Restore(enc.box), Restore(enc.title),
                inside.animate.scale(s, about_point=big.get_center()).shift(small.get_center() - big.get_center())
                .set_opacity(0),
                ReplacementTransform(self.grids.grid_title, enc.items[0]),
                *(FadeIn(m, **self.zoom_fade(m, *self.zoom)) for m in self.zoom_outside)]

    def show_encoder_output(self, vr):
        with self.transition("back to the encoder"):
            # the grid folds back into the encoder box as it closes: never a blank stage between
            self.play(*self.zoom_out_of_encoder(), FadeOut(VGroup(self.grids.right, self.note)), run_time=1.6)
            # (the title's ReplacementTransform put the attention line in the title's group: it stays)
            self.remove(self.grids.left, self.extreme_rings)
            self.add(self.encoder.items[0])
        out = self.enc_out
        y = self.encoder.box.get_y()
        a2 = self.a2 = get_arrow([self.encoder.box.get_right()[0], y, 0], [out.get_left()[0], y, 0])
        out_box = self.out_box = out.get_row_box(0, color=CLS_COLOR)
        with self.beat(f"Out come {count_word(vr.encoder_output.shape[0])} updated rows. "
                       "Only the final CLS row goes on, to the classifier."):
            self.play(GrowArrow(a2), FadeIn(out))
            self.play(Create(out_box))


    # ---- Shot 7 ---------------------------------------------------------------------------------
    def get_classifier_page(self, vr) -> VGroup:
        classes = [c.split()[0] for c in vr.classes]   # "vertical", "horizontal": column labels
        cls = get_row_vector(vr.cls_output, None, name="final CLS row", tag="cls_output", color=CLS_COLOR,
                             name_color=CLS_COLOR)
        dot = get_text("·", font_size=BODY_SIZE + 6)
        W = get_labeled_matrix(vr.classifier, None, classes,
                               name=f"classifier  {format_shape(vr.classifier.shape)}", tag="classifier",
                               places=None)
        parts = [cls, dot, W]
        if np.any(vr.classifier_bias != 0):
            parts += [get_text("+", font_size=BODY_SIZE),
                      get_row_vector(vr.classifier_bias, classes, name="bias", tag="classifier_bias", places=None)]
        eq = get_text("=", font_size=BODY_SIZE)
        logits = get_row_vector(vr.logits, classes, name="two logits", tag="logits")
        line1 = VGroup(*parts, eq, logits).arrange(RIGHT, buff=0.3)
        y0 = W.cell_center(0, 0)[1]
        for m in (cls, logits):
            m.shift(UP * (y0 - m.cell_center(0, 0)[1]))
        for m in (dot, eq, *(p for p in parts[3:] if not isinstance(p, LabeledMatrix))):
            m.set_y(y0)
        softmax = get_text("softmax", font_size=LABEL_SIZE)
        probs = get_row_vector(vr.probabilities, classes, name="class probabilities", tag="probabilities")
        arrow = get_arrow(LEFT * 0.65, RIGHT * 0.65)
        line2 = VGroup(VGroup(softmax, arrow).arrange(DOWN, buff=0.06), probs).arrange(RIGHT, buff=0.3)
        line2.next_to(line1, DOWN, buff=0.45).align_to(logits, RIGHT)
        line2[0].set_y(probs.cell_center(0, 0)[1] + 0.12)
        label = vr.classes[vr.label]
        ce = VGroup(
            get_text(f"cross-entropy with the label “{label}”:   −ln", font_size=LABEL_SIZE),
            # five places: −ln of the digits shown gives the 1.092 shown (−ln 0.336 would be 1.091)
            get_number(vr.probabilities[vr.label], 5, tag="p_label", font_size=LABEL_SIZE),
            get_text("=", font_size=LABEL_SIZE),
            get_number(vr.cross_entropy, tag="cross_entropy", font_size=LABEL_SIZE, color=RECEIVER_COLOR),
        ).arrange(RIGHT, buff=0.15)
        align_baseline(ce[0], baseline_y(ce[1]))
        ce.next_to(line2, DOWN, buff=0.55).align_to(line2, RIGHT)
        page = VGroup(line1, line2, ce)
        page.move_to(CONTENT_CENTER + UP * 0.15)
        page.cls, page.W, page.dot, page.eq, page.logits = cls, W, dot, eq, logits
        page.extra = VGroup(*parts[3:])
        page.line2, page.probs, page.ce = line2, probs, ce
        return page

    def show_logits(self, vr):
        page = self.page = self.get_classifier_page(vr)
        out = self.enc_out
        with self.transition("to the classifier"):
            self.play(FadeOut(VGroup(self.overview, self.a2, self.out_box, out.brackets, out.name_label,
                                     *out.entries[1:])))
        with self.beat("The final CLS row times a four by two classifier gives two logits, one per class."):
            self.play(ReplacementTransform(out.entries[0], page.cls.entries),
                      FadeIn(VGroup(page.cls.brackets, page.cls.name_label)))
            self.play(FadeIn(page.dot), FadeIn(page.W), FadeIn(page.extra))
            self.play(FadeIn(page.eq), FadeIn(page.logits))

    def show_softmax(self, vr):
        p = vr.probabilities
        names = " and ".join(f"{fmt(p[c])} for {vr.classes[c]}" for c in range(len(vr.classes)))
        with self.beat(f"Softmax turns them into probabilities: {names}."):
            self.play(FadeIn(self.page.line2, shift=0.2 * DOWN))

    def show_loss(self, vr):
        label = vr.classes[vr.label]
        note = self.note = place_fine_print(get_fine_print(
            f"{ROUNDING_NOTE} ln is the natural log."))
        # said "about": a listener can take minus the log of the rounded probability (0.336 gives 1.091)
        # on screen, where a reader can check it: the 1.092 comes from the unrounded probability
        with self.beat(f"The image is a {label}, so the cross-entropy is minus the natural log of "
                       f"{fmt(vr.probabilities[vr.label])}: {fmt(vr.cross_entropy)}, from the unrounded "
                       f"{fmt(vr.probabilities[vr.label], 5)}.",
                       spoken=f"The image is a {label}, so the cross-entropy is minus the natural log of "
                              f"{fmt(vr.probabilities[vr.label])}: about {fmt(vr.cross_entropy, 2)}."):
            self.play(FadeIn(self.page.ce), FadeIn(note))

    def show_untrained(self, vr):
        if vr.predicted != vr.label:
            text = ("Untrained, the model even favours the wrong class. Training adjusts "
                    "the parameters to lower this loss.")
        else:
            text = ("It favours the right class only by chance: the parameters are illustrative. "
                    "Training adjusts them to lower this loss.")
        target = self.page.probs.cell(0, vr.predicted)
        # an underline under the predicted probability: clear of the right bracket (a box touched it)
        box = Line(target.get_corner(DL) + DOWN * 0.1, target.get_corner(DR) + DOWN * 0.1).set_stroke(TEXT_COLOR, 3)
        with self.beat(text):
            self.play(Create(box))
        self.predicted_box = box

    # ---- Shot 8 ---------------------------------------------------------------------------------
    def get_roadmap(self, vr) -> VGroup:
        d = vr.projection.shape[1]
        n_rows = vr.encoder_input.shape[0]
        icons = self.road_icons = self.get_road_icons(vr)
        chips = [
            get_chip(f"{vr.H}×{vr.W} image", icon=icons["image"]),
            get_chip(f"{vr.n_patches} patches × {vr.patch_width} values", PATCH_COLOR, icons["patches"]),
            get_chip(f"shared {vr.patch_width}×{d} projection", PATCH_COLOR, icons["projection"]),
            get_chip("+ CLS row", CLS_COLOR, icons["cls"]),
            get_chip("+ position rows", POSITION_COLOR, icons["positions"]),
            get_chip(f"encoder, no mask: {n_rows} rows", ENCODER_COLOR, icons["encoder"]),
            get_chip("final CLS row", CLS_COLOR, icons["cls_out"]),
            get_chip(f"{len(vr.classes)} logits → softmax", icon=icons["softmax"]),
            get_chip("cross-entropy with the label", icon=icons["loss"]),
        ]
        top = VGroup(*chips[:5]).arrange(RIGHT, buff=0.4)
        bottom = VGroup(*chips[5:]).arrange(RIGHT, buff=0.4)
        rows = VGroup(top, bottom).arrange(DOWN, buff=ROAD_ROW_GAP, aligned_edge=LEFT)
        rows.move_to(CONTENT_CENTER + UP * 0.55)
        arrows = VGroup(*(get_arrow(a.get_right(), b.get_left(), buff=0.06)
                          for line in (top, bottom) for a, b in zip(line[:-1], line[1:])))
        # the road turns like a line of text: down from the last chip, back left, down into the next
        y_mid = (top.get_bottom()[1] + bottom.get_top()[1]) / 2
        x_end, x_start = top[-1].get_center()[0], bottom[0].get_center()[0]
        turn = VGroup(
            Line([x_end, top[-1].get_bottom()[1] - 0.06, 0], [x_end, y_mid, 0]),
            Line([x_end, y_mid, 0], [x_start, y_mid, 0]),
            get_arrow([x_start, y_mid, 0], [x_start, bottom[0].get_top()[1], 0], buff=0.06),
        )
        turn[0].set_stroke(DIM_TEXT_COLOR, 3)
        turn[1].set_stroke(DIM_TEXT_COLOR, 3)
        road = VGroup(rows, arrows, turn)
        road.chips, road.arrows = chips, [*arrows[:4], turn, *arrows[4:]]
        return road

    def get_road_icons(self, vr) -> dict:
        """A picture of each stage, from the scene's own objects in small: the image, the four patches, the
        projection's 16 × 4 cells, the CLS row, the position rows, the full 5 × 5 grid (no mask), the final CLS
        row, the two probabilities as bars, and the label's bar marked for the loss."""
        n_rows, width = vr.encoder_input.shape
        cut = get_cut_image(vr.image, vr.P, shade=pixel_color, side=ICON_HEIGHT)
        probs = [TEXT_COLOR] * len(vr.classes)
        return {
            "image": VGroup(cut.pixels, cut.frame),
            "patches": VGroup(*(get_patch_thumbnail(vr, k, height=0.26) for k in range(vr.n_patches)))
            .arrange(RIGHT, buff=0.06),
            "projection": get_cells_icon(*vr.projection.shape, PATCH_COLOR),
            "cls": get_cells_icon(1, width, CLS_COLOR, fill=0.6),
            "positions": get_cells_icon(n_rows, width, POSITION_COLOR),
            "encoder": get_cells_icon(n_rows, n_rows, ENCODER_COLOR, fill=READ_OPACITY),
            "cls_out": get_cells_icon(1, width, CLS_COLOR, fill=0.6),
            "softmax": get_bars_icon(vr.probabilities, probs),
            "loss": get_bars_icon(vr.probabilities, probs, marked=vr.label),
        }

    def show_roadmap(self, vr):
        road = self.road = self.get_roadmap(vr)
        # the loss page gives way to the roadmap as it comes in
        self.give_way(VGroup(self.page.cls, self.page.W, self.page.dot, self.page.eq, self.page.logits,
                             self.page.extra, self.page.line2, self.page.ce, self.predicted_box, self.note))
        steps = []
        for k, chip in enumerate(road.chips):
            steps.append(FadeIn(chip, shift=0.1 * RIGHT))
            if k < len(road.arrows):
                steps.append(Create(road.arrows[k]) if isinstance(road.arrows[k], VGroup)
                             else GrowArrow(road.arrows[k]))
        with self.beat("That is the road: pixels to patches, patches to rows, CLS and positions, "
                       "an encoder with no mask, two logits and a loss."):
            self.play(LaggedStart(*steps, lag_ratio=0.35), run_time=5.0)

    def show_not_a_benchmark(self):
        """Said once, in the caption (the fine print would repeat it word for word): the road is a plan."""
        badge = self.badge = get_chip("a roadmap, not a benchmark or a completed classifier", DIM_TEXT_COLOR)
        badge.next_to(self.road, UP, buff=0.25).align_to(self.road, RIGHT)
        with self.beat("This is a roadmap, not a benchmark or a completed classifier."):
            self.play(FadeIn(badge, shift=0.1 * DOWN))       # stays to the end: the road is a plan
            self.play(LaggedStart(*(Indicate(chip, color=TEXT_COLOR, scale_factor=1.06) for chip in self.road.chips),
                                  lag_ratio=0.15), run_time=2.0)

    def show_continuation(self):
        credit = self.credit = get_text("An Image is Worth 16×16 Words: Transformers for Image Recognition "
                                        "at Scale\nDosovitskiy et al., ICLR 2021", font_size=LABEL_SIZE,
                                        color=TEXT_COLOR, line_spacing=0.9)
        credit.next_to(self.road, DOWN, buff=0.3)
        note = self.roadmap = place_fine_print(get_fine_print(
            "See An Image is Worth 16×16 Words. Cross-attention remains a separate optional continuation."))
        # cross-attention is named only here, so the sentence says what it is
        cross = ("Cross-attention, where queries come from one sequence and keys and values from another, "
                 "remains a separate, optional continuation.")
        with self.beat(f"The full design is in An Image is Worth 16×16 Words. {cross}",
                       spoken=f"The full design is in the paper An Image is Worth sixteen by sixteen Words. {cross}"):
            self.play(FadeIn(credit, shift=0.1 * UP), FadeIn(note))

    def show_credits(self):
        """The series' credits, where the notes ask for them: after the last chapter (they closed scene 20
        before; chapter 4 comes after it)."""
        credits = self.credits = VGroup(
            get_text("Formula source: Attention Is All You Need, §3.2.2.", font_size=LABEL_SIZE, color=TEXT_COLOR),
            get_text("Visual teaching references: 3Blue1Brown and Jay Alammar.", font_size=LABEL_SIZE,
                     color=TEXT_COLOR),
        ).arrange(DOWN, buff=0.12, aligned_edge=LEFT)
        # the notes' own words, in the fine print's place (the roadmap's note gives way to it)
        note = place_fine_print(get_fine_print("We keep our own river-bank example, numbers and row-vector convention."))
        credits.next_to(self.credit, DOWN, buff=0.25).align_to(self.credit, LEFT)
        # the road, its badge and the paper rise as far as the credits need (never above the content zone)
        above = VGroup(self.road, self.badge, self.credit)
        lift = max(0.0, note.get_top()[1] + 0.15 - credits.get_bottom()[1])
        lift = max(0.0, min(lift, CONTENT_TOP - 0.2 - above.get_top()[1]))
        credits.shift(UP * lift)
        with self.beat("The formula comes from Attention Is All You Need; the pictures owe a lot to 3Blue1Brown "
                       "and Jay Alammar.",
                       spoken="The formula comes from Attention Is All You Need; the pictures owe a lot to "
                              "three blue one brown and Jay Alammar.", look=2.5):
            self.play(FadeOut(self.roadmap), *(m.animate.shift(UP * lift) for m in above), run_time=0.8)
            self.play(LaggedStart(*(FadeIn(c, shift=0.1 * UP) for c in credits), lag_ratio=0.4), FadeIn(note))
        self.roadmap = note


__all__ = ["PatchesAndCLS", "get_patched_image", "get_patch_thumbnail", "pixel_color", "PIXEL_ON", "PIXEL_OFF"]
