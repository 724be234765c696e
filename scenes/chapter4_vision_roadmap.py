"""Chapter 4, scene 21: a roadmap to vision — patches, the CLS row, an encoder, two logits.

Every number comes from `lesson_data.vision_roadmap.vision_roadmap()`: a deterministic, UNTRAINED shape
illustration (seeded random tenths), so every number on screen is labelled illustrative and no
probability is a result. Captions follow the last two paragraphs of the lesson notes (docs/lesson-notes.txt).

    manim -pql scenes/chapter4_vision_roadmap.py PatchesAndCLS
"""
from __future__ import annotations

import numpy as np
from manim import (
    DOWN,
    LEFT,
    RIGHT,
    UP,
    UR,
    Arrow,
    Create,
    FadeIn,
    FadeOut,
    Indicate,
    Rectangle,
    ReplacementTransform,
    RoundedRectangle,
    Square,
    VGroup,
    VMobject,
)

from lesson_data.vision_roadmap import vision_roadmap
from scenes.blocks.labeled_matrix import get_labeled_matrix, get_row_vector
from scenes.style import (
    BACKGROUND,
    BODY_SIZE,
    CONTENT_CENTER,
    DIM_TEXT_COLOR,
    LABEL_SIZE,
    MARGIN,
    NEGATIVE_COLOR,
    NUMBER_SIZE,
    RECEIVER_COLOR,
    SAFE_WIDTH,
    SMALL_SIZE,
    TEXT_COLOR,
    WIDE_HEAD_COLOR,
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
)

CLS_COLOR = RECEIVER_COLOR        # the CLS row: the one row the classifier reads
PATCH_COLOR = head_color(1)
ENCODER_COLOR = WIDE_HEAD_COLOR
PIXEL_ON = "#EDEDED"              # pixel value 1 (the stripe)
PIXEL_OFF = "#2B2F38"             # pixel value 0
TENTHS = 1                        # illustrative parameters are tenths: one decimal shows them exactly


def get_arrow(start, end, color=DIM_TEXT_COLOR, buff=0.1) -> Arrow:
    return Arrow(start, end, buff=buff, stroke_width=3, tip_length=0.16, max_tip_length_to_length_ratio=0.5,
                 max_stroke_width_to_length_ratio=20, color=color)


def pixel_color(value: float) -> str:
    """Grayscale pixel in [0, 1] between the dark and light pixel colours."""
    v = float(np.clip(value, 0.0, 1.0))
    dark = np.array([int(PIXEL_OFF[k:k + 2], 16) for k in (1, 3, 5)])
    light = np.array([int(PIXEL_ON[k:k + 2], 16) for k in (1, 3, 5)])
    rgb = np.round(dark + v * (light - dark)).astype(int)
    return "#" + "".join(f"{c:02X}" for c in rgb)


def get_formula(parts, font_size=LABEL_SIZE, color=TEXT_COLOR) -> VGroup:
    """A one-line formula from strings and (value, tag) pairs; numbers go through get_number (0 places)."""
    mobs = []
    for part in parts:
        if isinstance(part, tuple):
            value, tag = part
            mobs.append(get_number(value, 0, tag=tag, font_size=font_size, color=color))
        else:
            mobs.append(get_text(part, font_size=font_size, color=color))
    line = VGroup(*mobs).arrange(RIGHT, buff=0.08)
    y = baseline_y(next(m for m in mobs if hasattr(m, "value")))
    for m in mobs:
        if not hasattr(m, "value") and any(c.isascii() and c.isalnum() for c in m.original_text):
            align_baseline(m, y)
    return line


# --------------------------------------------------------------------------------------------
# The image and its patches
# --------------------------------------------------------------------------------------------


class PatchedImage(VGroup):
    """The H × W image as one group per P × P patch (row-major patch order). Parts: `patches`
    (each with `.cells`, `.numbers`, `.frame`), `number(r, c)` for pixel (r, c)."""

    def number(self, r: int, c: int):
        return self._numbers[(r, c)]


def get_patched_image(vr, side: float = 0.42) -> PatchedImage:
    """Squares shaded by pixel value with the value inside; cells of one shade in a patch merged."""
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
                digit_color = BACKGROUND if value > 0.5 else DIM_TEXT_COLOR
                number = get_number(value, 0, tag="image", index=(r, c), font_size=SMALL_SIZE, color=digit_color)
                number.move_to(center)
                numbers.add(number)
                image._numbers[(r, c)] = number
        cells = VGroup(*(shape.set_fill(color, 1.0).set_stroke(BACKGROUND, 1.5)
                         for color, shape in shades.items()))
        frame = Rectangle(width=P * side, height=P * side).set_stroke(PATCH_COLOR, 3)
        frame.move_to(cells)
        frame.set_opacity(0)
        patch = VGroup(cells, numbers, frame)
        patch.cells, patch.numbers, patch.frame, patch.index = cells, numbers, frame, k
        image.patches.add(patch)
    image.add(image.patches)
    image.side = side
    return image


def patch_name(k: int) -> str:
    return f"patch {k + 1}"


# --------------------------------------------------------------------------------------------
# The scene
# --------------------------------------------------------------------------------------------


class PatchesAndCLS(LessonScene):
    def construct(self):
        vr = vision_roadmap()
        self.vr = vr
        title = get_title("Vision roadmap: patches and CLS")
        badge = get_text("every number here is illustrative:\nan untrained model, not a result",
                         font_size=SMALL_SIZE - 1, color=NEGATIVE_COLOR, line_spacing=0.8)
        badge.to_corner(UR, buff=MARGIN * 0.6)
        if badge.get_left()[0] < title.get_right()[0] + 0.2:  # keep the title clear
            title.shift(LEFT * (title.get_right()[0] + 0.2 - badge.get_left()[0]))
        self.badge = badge
        self.play(FadeIn(title), FadeIn(badge))

        self.show_image(vr)
        self.show_flattening(vr)
        self.show_projection(vr)
        self.show_cls_and_positions(vr)
        self.show_encoder(vr)
        self.show_classifier(vr)
        self.finish_reading(extra=1.0)

    def drop_invisible(self):
        """Remove top-level leftovers that show nothing (faded parts, empty anchors) after a transition,
        so later fades and the harness see only what is on screen."""
        def shows(m):
            return any(isinstance(x, VMobject) and x.has_points()
                       and (x.get_fill_opacity() > 0.01 or (x.get_stroke_opacity() > 0.01 and x.get_stroke_width() > 0))
                       for x in m.get_family())
        self.remove(*(m for m in self.mobjects if not shows(m)))

    # --- Shot 1: the image ---------------------------------------------------------------------
    def show_image(self, vr):
        self.shot("image")
        image = get_patched_image(vr)
        image.move_to(CONTENT_CENTER + LEFT * 3.3 + DOWN * 0.15)
        label = get_text(f"{vr.H}×{vr.W} grayscale image: a vertical stripe", font_size=LABEL_SIZE)
        label.next_to(image, UP, buff=0.25)
        self.image, self.image_label = image, label
        self.play(FadeIn(image), FadeIn(label))
        self.caption(f"This is a tiny shape illustration, not a trained vision model: an {vr.H}×{vr.W} "
                     f"grayscale image split into {count_word(vr.n_patches)} {vr.P}×{vr.P} patches.")
        # split into P × P patches: move them apart and name them
        gap = 0.3
        grid_w = vr.W // vr.P
        shifts = []
        for patch in image.patches:
            pr, pc = divmod(patch.index, grid_w)
            shifts.append(patch.animate.shift(gap * (pc - 0.5) * RIGHT + gap * (0.5 - pr) * UP))
        self.play(*shifts, run_time=1.2)
        names = VGroup()
        for patch in image.patches:
            patch.frame.set_stroke(opacity=1)
            names.add(get_text(patch_name(patch.index), font_size=SMALL_SIZE, color=PATCH_COLOR)
                      .next_to(patch.frame, DOWN if patch.index >= grid_w else UP, buff=0.08))
        self.play(*(Create(p.frame) for p in image.patches), FadeIn(names),
                  label.animate.next_to(VGroup(*names[:grid_w]), UP, buff=0.15))
        self.patch_names = names

    # --- Shot 2: each patch flattened to P² values ------------------------------------------------
    def show_flattening(self, vr):
        self.shot("flatten")
        flat = get_labeled_matrix(vr.flattened, [patch_name(k) for k in range(vr.n_patches)], None,
                                  name=f"flattened patches  {format_shape(vr.flattened.shape)}", tag="flattened",
                                  places=0, font_size=SMALL_SIZE, h_buff=0.16, v_buff=0.12)
        flat.next_to(self.image, RIGHT, buff=0.8)
        if flat.get_right()[0] > SAFE_WIDTH / 2:
            flat.scale((SAFE_WIDTH / 2 - flat.get_left()[0]) / flat.width, about_edge=LEFT)
        self.flat = flat
        self.play(FadeIn(VGroup(flat.brackets, flat.name_label)), FadeIn(flat.row_labels))
        d = vr.patch_rows.shape[1]
        self.caption(f"Each patch has {vr.patch_width} pixel values; a shared {vr.patch_width}×{d} "
                     f"projection produces {count_word(d)}-dimensional rows.")
        # each patch, read row by row, becomes one row of the flattened matrix
        for patch in self.image.patches:
            k = patch.index
            self.play(ReplacementTransform(patch.numbers.copy(), flat.entries[k]), run_time=0.9)

    # --- Shot 3: the shared projection and the general formulas -----------------------------------
    def show_projection(self, vr):
        self.shot("projection")
        self.finish_reading()
        flat = self.flat
        self.play(FadeOut(VGroup(self.image, self.image_label, self.patch_names)))
        self.drop_invisible()
        self.clear_caption()
        proj = get_labeled_matrix(vr.projection, None, None,
                                  name=f"shared projection  {format_shape(vr.projection.shape)}\n(illustrative)",
                                  tag="projection", places=TENTHS, font_size=SMALL_SIZE - 1, v_buff=0.02,
                                  h_buff=0.16, name_size=SMALL_SIZE)
        rows = get_labeled_matrix(vr.patch_rows, [patch_name(k) for k in range(vr.n_patches)], None,
                                  name=f"patch rows  {format_shape(vr.patch_rows.shape)}", tag="patch_rows",
                                  places=TENTHS, font_size=SMALL_SIZE, color=PATCH_COLOR, name_size=SMALL_SIZE)
        dot = get_text("·", font_size=BODY_SIZE + 6)
        eq = get_text("=", font_size=BODY_SIZE)
        target = flat.copy()
        product = VGroup(target, dot, proj, eq, rows).arrange(RIGHT, buff=0.3)
        fit_content(product)
        middle = flat_row_middle(target)
        for m in (dot, eq):
            m.set_y(middle)
        rows.shift(UP * (middle - flat_row_middle(rows)))
        self.play(ReplacementTransform(flat, target))
        self.flat = target
        self.play(FadeIn(dot), FadeIn(proj))
        self.play(FadeIn(eq), FadeIn(rows))
        self.projection_product = VGroup(target, dot, proj, eq, rows)
        self.proj, self.patch_rows = proj, rows
        self.caption("The same projection multiplies every patch, so identical patches give identical rows.")
        # the general formulas (H/P)·(W/P) and P²·3, evaluated
        self.finish_reading()
        self.play(FadeOut(VGroup(target, dot, proj, eq)), rows.animate.to_edge(LEFT, buff=1.0).set_y(CONTENT_CENTER[1]))
        self.clear_caption()
        grid_h, grid_w = vr.H // vr.P, vr.W // vr.P
        channels = vr.rgb_patch_width // vr.patch_width
        seq = get_formula(["sequence length  (H/P)·(W/P) = (", (vr.H, "H"), "/", (vr.P, "P"), ")·(", (vr.W, "W"),
                           "/", (vr.P, "P"), ") = ", (grid_h, "grid_h"), "·", (grid_w, "grid_w"), " = ",
                           (vr.n_patches, "n_patches")])
        gray = get_formula(["grayscale patch width  P² = ", (vr.P, "P"), "×", (vr.P, "P"), " = ",
                            (vr.patch_width, "patch_width")])
        rgb = get_formula(["RGB patch width  P²·3 = ", (vr.P, "P"), "×", (vr.P, "P"), "×", (channels, "channels"),
                           " = ", (vr.rgb_patch_width, "rgb_patch_width")])
        formulas = VGroup(seq, gray, rgb).arrange(DOWN, buff=0.35, aligned_edge=LEFT)
        learned = get_text("A real projection is learned from the image task;\n"
                           "this one is seeded random tenths (illustrative).",
                           font_size=SMALL_SIZE + 1, color=DIM_TEXT_COLOR, line_spacing=0.8)
        block = VGroup(formulas, learned).arrange(DOWN, buff=0.5, aligned_edge=LEFT)
        block.next_to(rows, RIGHT, buff=1.0).set_y(rows.get_y())
        if block.get_right()[0] > SAFE_WIDTH / 2:
            block.scale((SAFE_WIDTH / 2 - block.get_left()[0]) / block.width, about_edge=LEFT)
        self.formulas = formulas
        self.play(FadeIn(seq))
        self.caption(f"The general sequence length is (H/P)×(W/P): here {count_word(vr.n_patches)} patches.")
        self.play(FadeIn(gray), FadeIn(rgb))
        self.caption("For RGB images the flattened width is P²×3.")
        self.play(FadeIn(learned))
        self.caption("The projection is learned from the image task.")
        self.formula_block = block

    # --- Shot 4: prepend CLS, add position rows ---------------------------------------------------
    def show_cls_and_positions(self, vr):
        self.shot("CLS and positions")
        self.finish_reading()
        self.play(FadeOut(self.formula_block))
        self.drop_invisible()
        self.clear_caption()
        n_rows = vr.position_rows.shape[0]
        names = ["CLS"] + [patch_name(k) for k in range(vr.n_patches)]
        tokens = get_labeled_matrix(np.vstack([vr.cls_row, vr.patch_rows]), names, None,
                                    name=f"CLS + patch rows  {format_shape((n_rows, vr.patch_rows.shape[1]))}",
                                    tag="tokens", places=TENTHS, font_size=NUMBER_SIZE, name_size=SMALL_SIZE + 1)
        for j in range(tokens.n_cols):
            tokens.cell(0, j).set_color(CLS_COLOR)
            for i in range(1, n_rows):
                tokens.cell(i, j).set_color(PATCH_COLOR)
        tokens.row_labels[0].set_color(CLS_COLOR)
        plus = get_text("+", font_size=BODY_SIZE + 4)
        pos = get_labeled_matrix(vr.position_rows, None, None,
                                 name=f"position rows  {format_shape(vr.position_rows.shape)}\n(illustrative)",
                                 tag="position_rows", places=TENTHS, font_size=NUMBER_SIZE, name_size=SMALL_SIZE + 1)
        eq = get_text("=", font_size=BODY_SIZE + 4)
        enc_in = get_labeled_matrix(vr.encoder_input, None, None,
                                    name=f"encoder input  {format_shape(vr.encoder_input.shape)}",
                                    tag="encoder_input", places=TENTHS, font_size=NUMBER_SIZE,
                                    name_size=SMALL_SIZE + 1)
        group = VGroup(tokens, plus, pos, eq, enc_in).arrange(RIGHT, buff=0.4)
        fit_content(group)
        # operators on the matrices' middle row; names share one baseline height
        middle = (tokens.cell_center(0, 0)[1] + tokens.cell_center(n_rows - 1, 0)[1]) / 2
        plus.set_y(middle)
        eq.set_y(middle)
        self.cls_sum = group
        # the patch rows slide into rows 2..5; the CLS row arrives on top
        self.play(ReplacementTransform(self.patch_rows.entries, VGroup(*tokens.entries[1:])),
                  ReplacementTransform(VGroup(self.patch_rows.brackets, self.patch_rows.name_label,
                                              self.patch_rows.row_labels),
                                       VGroup(tokens.brackets, tokens.name_label, VGroup(*tokens.row_labels[1:]))),
                  run_time=1.2)
        self.play(FadeIn(tokens.entries[0], shift=0.3 * DOWN), FadeIn(tokens.row_labels[0], shift=0.3 * DOWN))
        cls_box = tokens.get_row_box(0, color=CLS_COLOR, include_label=True)
        self.play(Create(cls_box))
        self.caption(f"For this two-class shape example, prepend one learned CLS token to the "
                     f"{count_word(vr.n_patches)} patch embeddings, then add position embeddings to the "
                     f"{count_word(n_rows)} rows.")
        self.play(FadeIn(plus), FadeIn(pos))
        self.play(FadeIn(eq), FadeIn(enc_in))
        self.wait(1.0)
        self.cls_box, self.enc_in = cls_box, enc_in
        self.remove(*(m for m in self.mobjects if m in tokens.get_family()))
        self.add(tokens)  # the transformed parts now live in `tokens`

    # --- Shot 5: the encoder, grouped -------------------------------------------------------------
    def show_encoder(self, vr):
        self.shot("encoder")
        self.finish_reading()
        tokens, plus, pos, eq, enc_in = self.cls_sum
        self.play(FadeOut(VGroup(tokens, plus, pos, eq, self.cls_box)))
        self.drop_invisible()
        self.clear_caption()
        n_rows = vr.encoder_input.shape[0]
        names = ["CLS"] + [patch_name(k) for k in range(vr.n_patches)]
        target_in = get_labeled_matrix(vr.encoder_input, names, None,
                                       name=f"encoder input  {format_shape(vr.encoder_input.shape)}",
                                       tag="encoder_input", places=TENTHS, font_size=NUMBER_SIZE,
                                       name_size=SMALL_SIZE + 1)
        target_in.row_labels[0].set_color(CLS_COLOR)
        encoder = self.get_encoder_group(vr, names)
        out = get_labeled_matrix(vr.encoder_output, None, None,
                                 name=f"encoder output  {format_shape(vr.encoder_output.shape)}",
                                 tag="encoder_output", font_size=NUMBER_SIZE, name_size=SMALL_SIZE + 1)
        layout = VGroup(target_in, encoder, out).arrange(RIGHT, buff=0.9)
        fit_content(layout)
        target_in.set_y(encoder.box.get_y())
        out.set_y(encoder.box.get_y())
        a1 = get_arrow(target_in.get_right(), encoder.box.get_left())
        a2 = get_arrow(encoder.box.get_right(), out.get_left())
        # the rows move across; their row labels fade in rather than grow out of a point
        core = VGroup(target_in.anchor_group, target_in.brackets, target_in.entries, target_in.name_label)
        self.play(ReplacementTransform(enc_in, core))
        self.play(FadeIn(target_in.row_labels))
        self.remove(core, target_in.row_labels)
        self.add(target_in)
        self.play(Create(a1), FadeIn(encoder.box), FadeIn(encoder.title))
        self.play(FadeIn(encoder.attention))
        self.caption(f"A Transformer encoder updates all {count_word(n_rows)} rows.")
        self.play(Indicate(encoder.no_mask, color=RECEIVER_COLOR, scale_factor=1.08))
        self.caption("Image classification does not need a causal future-token mask.")
        self.play(FadeIn(encoder.others))
        self.caption("The full encoder also includes per-row MLPs, residuals and normalization, "
                     "which are grouped here rather than silently omitted.")
        self.play(Create(a2), FadeIn(out))
        out_box = out.get_row_box(0, color=CLS_COLOR)
        self.play(Create(out_box))
        self.wait(1.0)
        self.encoder, self.encoder_out, self.encoder_in = encoder, out, target_in
        self.encoder_parts = VGroup(target_in, encoder, a1, a2, out_box)

    def get_encoder_group(self, vr, names) -> VGroup:
        n = vr.encoder_attention.shape[0]
        short = ["CLS"] + [f"p{k + 1}" for k in range(vr.n_patches)]
        attention = get_labeled_matrix(vr.encoder_attention, short, short, tag="encoder_attention",
                                       font_size=SMALL_SIZE - 1, label_size=SMALL_SIZE - 2, h_buff=0.14,
                                       v_buff=0.08, color=ENCODER_COLOR)
        attention.row_labels[0].set_color(CLS_COLOR)
        att_title = get_text("attention weights (illustrative)", font_size=SMALL_SIZE, color=ENCODER_COLOR)
        no_mask = get_text(f"no causal mask: every row reads all {count_word(n)}", font_size=SMALL_SIZE,
                           color=RECEIVER_COLOR)
        att = VGroup(att_title, attention, no_mask).arrange(DOWN, buff=0.12)
        others = VGroup(*(get_text(t, font_size=SMALL_SIZE + 1) for t in (
            "+ residual, then normalization",
            "per-row MLP",
            "+ residual, then normalization",
        ))).arrange(DOWN, buff=0.1, aligned_edge=LEFT)
        inner = VGroup(att, others).arrange(DOWN, buff=0.3)
        title = get_text("Transformer encoder (grouped)", font_size=LABEL_SIZE, color=ENCODER_COLOR)
        box = RoundedRectangle(corner_radius=0.15, width=inner.width + 0.5, height=inner.height + 0.5)
        box.set_stroke(ENCODER_COLOR, 2.5).set_fill(ENCODER_COLOR, 0.06).move_to(inner)
        title.next_to(box, UP, buff=0.1)
        group = VGroup(box, title, att, others)
        group.box, group.title, group.attention, group.no_mask, group.others = box, title, att, no_mask, others
        group.attention_matrix = attention
        return group

    # --- Shot 6: the CLS row to two logits, softmax, cross-entropy --------------------------------
    def show_classifier(self, vr):
        self.shot("classifier")
        self.finish_reading()
        out = self.encoder_out
        # everything but the output's first (CLS) row leaves; that row moves on to the classifier
        self.play(FadeOut(VGroup(self.encoder_parts, *(m for m in out if m is not out.entries))),
                  FadeOut(VGroup(*out.entries[1:])))
        self.drop_invisible()
        self.clear_caption()
        classes = [c.split()[0] for c in vr.classes]   # "vertical", "horizontal": short column labels
        cls = get_row_vector(vr.cls_output, None, name="final CLS row", tag="cls_output", color=CLS_COLOR,
                             name_color=CLS_COLOR)
        dot = get_text("·", font_size=BODY_SIZE + 6)
        W = get_labeled_matrix(vr.classifier, None, classes, name=f"classifier  {format_shape(vr.classifier.shape)}",
                               tag="classifier", places=TENTHS, label_size=SMALL_SIZE - 1, name_size=SMALL_SIZE + 1)
        parts = [cls, dot, W]
        if np.any(vr.classifier_bias != 0):
            parts += [get_text("+", font_size=BODY_SIZE),
                      get_row_vector(vr.classifier_bias, classes, name="bias", tag="classifier_bias")]
        eq = get_text("=", font_size=BODY_SIZE)
        logits = get_row_vector(vr.logits, classes, name="two logits", tag="logits", name_size=SMALL_SIZE + 1,
                                label_size=SMALL_SIZE - 1)
        line1 = VGroup(*parts, eq, logits).arrange(RIGHT, buff=0.3)
        for m in (dot, eq, *(p for p in parts if not hasattr(p, "entries") and p is not dot)):
            m.set_y(cls.cell_center(0, 0)[1])
        logits.shift(UP * (cls.cell_center(0, 0)[1] - logits.cell_center(0, 0)[1]))

        softmax = get_text("softmax →", font_size=LABEL_SIZE)
        probs = get_row_vector(vr.probabilities, classes, name="class probabilities", tag="probabilities",
                               name_size=SMALL_SIZE + 1, label_size=SMALL_SIZE - 1)
        label = vr.classes[vr.label]
        p_label = vr.probabilities[vr.label]
        ce = VGroup(
            get_text(f"cross-entropy with the image label “{label}”:  −log", font_size=LABEL_SIZE),
            get_number(p_label, tag="p_label", font_size=LABEL_SIZE),
            get_text("=", font_size=LABEL_SIZE),
            get_number(vr.cross_entropy, tag="cross_entropy", font_size=LABEL_SIZE, color=RECEIVER_COLOR),
        ).arrange(RIGHT, buff=0.15)
        align_baseline(ce[0], baseline_y(ce[1]))
        unrounded = get_text("(from the unrounded probability)", font_size=SMALL_SIZE, color=DIM_TEXT_COLOR)
        ce.add(unrounded.next_to(ce[-1], RIGHT, buff=0.25))
        align_baseline(unrounded, baseline_y(ce[1]))
        line2 = VGroup(softmax, probs).arrange(RIGHT, buff=0.3)
        softmax.set_y(probs.cell_center(0, 0)[1])
        roadmap = get_text("Untrained, illustrative weights: these probabilities are not a result.\n"
                           "This is a roadmap, not a benchmark or a completed classifier.",
                           font_size=SMALL_SIZE + 2, color=NEGATIVE_COLOR, line_spacing=0.8)
        credit = get_text("See “An Image is Worth 16×16 Words” (Dosovitskiy et al., ICLR 2021).",
                          font_size=SMALL_SIZE + 1, color=DIM_TEXT_COLOR)
        page = VGroup(line1, line2, ce, roadmap, credit).arrange(DOWN, buff=0.4)
        fit_content(page)
        cls_source = self.encoder_out.entries[0]
        self.play(ReplacementTransform(cls_source, cls.entries), FadeIn(VGroup(cls.brackets, cls.name_label)))
        self.play(FadeIn(dot), FadeIn(W))
        self.play(*(FadeIn(p) for p in parts[3:]), FadeIn(eq), FadeIn(logits))
        self.caption("The final CLS row feeds a two-logit classifier; softmax produces class probabilities "
                     "and cross-entropy uses the observed image label.")
        self.play(FadeIn(line2))
        self.play(FadeIn(ce))
        self.wait(1.0)
        self.play(FadeIn(roadmap))
        self.caption("This is a roadmap, not a benchmark or a completed classifier.")
        self.play(FadeIn(credit))
        self.caption("See An Image is Worth 16×16 Words. Cross-attention remains a separate optional continuation.")
        self.classifier_page = page
        self.cls_vector, self.logits_vector, self.probs_vector, self.ce_line = cls, logits, probs, ce
        self.roadmap, self.credit = roadmap, credit


def flat_row_middle(matrix) -> float:
    return (matrix.cell_center(0, 0)[1] + matrix.cell_center(matrix.n_rows - 1, 0)[1]) / 2


__all__ = ["PatchesAndCLS", "get_patched_image", "pixel_color"]
