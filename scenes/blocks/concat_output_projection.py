"""concat(m¹, m²) · W_O = m¹ W_O¹ + m² W_O², with W_O split into one two-row block per head.

    cop = get_concat_output_projection(m1, m2, ws.W_O, c1, c2, delta)
    cop.top       # [m¹ | m²] · W_O = Δe           (one matrix multiplication)
    cop.bottom    # m¹ · W_O¹ + m² · W_O² = c¹ + c² = Δe   (the per-head sum it equals)

Every array is passed in (the data layer computed them: heads[h].messages[-1],
heads[h].contribution[-1], delta_E[-1]); the block only lays them out in the heads' colours.
"""
from __future__ import annotations

import numpy as np
from manim import DOWN, LEFT, RIGHT, UP, Line, VGroup

from lesson_data.display import places_for

from scenes.blocks.labeled_matrix import get_labeled_matrix, get_row_vector
from scenes.style import (
    BUFF,
    BUFF_LARGE,
    HEAD_COLORS,
    LABEL_SIZE,
    NUMBER_SIZE,
    PLACES,
    TEXT_COLOR,
    align_baseline,
    baseline_y,
    get_number,
    get_text,
    sup,
)


class ConcatOutputProjection(VGroup):
    """Built by get_concat_output_projection. Parts: `top` (concat, W_O, delta) and `bottom`
    (m1, W_O1, c1, m2, W_O2, c2, delta_2), each part a LabeledMatrix; `divider` marks the head
    boundary in the concat row and `block_rule` the block boundary in W_O."""


def _op(symbol: str) -> VGroup:
    return get_text(symbol, font_size=LABEL_SIZE + 6)


def _own_precision(table, font_size) -> None:
    """Rewrite each entry of a LabeledMatrix with its own precision (same tag, index, size, colour)."""
    for i, row in enumerate(table.grid):
        for j, old in enumerate(row):
            new = get_number(old.value, places_for([old.value]), tag=old.tag, index=old.index,
                             font_size=font_size, color=old.get_color())
            new.move_to(table.cell_center(i, j))
            align_baseline(new, baseline_y(old))
            new.set_opacity(old.get_fill_opacity())
            table.grid[i][j] = new
            table.entries[i].submobjects[j] = new


def get_concat_output_projection(
    m1,
    m2,
    W_O,
    contribution_1,
    contribution_2,
    delta,
    *,
    axes=("water", "finance", "person", "glue"),
    places: int | None = PLACES,
    font_size: float = NUMBER_SIZE,
    receiver: int | None = None,
    coordinate_names=None,
    h_buff: float = 0.22,
    stacked: bool = False,
    entry_places: bool = False,
) -> ConcatOutputProjection:
    """The equality laid out on two lines; `receiver` (one-based) adds token subscripts to the names.

    coordinate_names (optional): what each joined coordinate carries, e.g. ("water", "finance",
    "person", "glue") from lesson_data.joining.carried_axes. They label the message vectors' columns
    and W_O's rows ("m¹ water", ...; the concat row itself stays unlabelled, W_O's row labels beside
    it name its coordinates); without them W_O's rows read H¹a, H¹b, H²a, H²b and the messages have
    no column labels. `places=None` gives each table its own precision; `h_buff` is the padding
    inside each cell (smaller packs a line tighter).

    stacked=True lays the per-head side out as one line per head, m¹ · W_O¹ = m¹W_O¹ above
    m² · W_O² = m²W_O², with Δe under the two updates after a rule, column under column (the second
    line's parts carry no column labels: they share the first line's columns). `lines` holds the
    two lines, `sum_rule` and `sum_label` the sum's rule and "m¹W_O¹ + m²W_O² =" label.

    entry_places=True writes each W_O entry with its own precision (1, 0, 0.25: places_for of that
    one value) instead of one precision for the table (1.00, 0.00, 0.25)."""
    m1, m2 = np.asarray(m1, float).ravel(), np.asarray(m2, float).ravel()
    W_O = np.asarray(W_O, float)
    d1 = len(m1)
    if W_O.shape[0] != d1 + len(m2):
        raise ValueError(f"W_O has {W_O.shape[0]} rows; the joined messages have {d1 + len(m2)}")
    c1, c2, h1, h2 = HEAD_COLORS[1], HEAD_COLORS[2], sup(1), sup(2)
    t = "" if receiver is None else "".join("₀₁₂₃₄₅₆₇₈₉"[int(ch)] for ch in str(receiver))
    joined_cols = [f"H{h1}a", f"H{h1}b", f"H{h2}a", f"H{h2}b"] if W_O.shape[0] == 4 else None
    names1 = names2 = None
    if coordinate_names is not None:
        coordinate_names = list(coordinate_names)
        if len(coordinate_names) != W_O.shape[0]:
            raise ValueError(f"{len(coordinate_names)} coordinate names for {W_O.shape[0]} joined coordinates")
        names1, names2 = coordinate_names[:d1], coordinate_names[d1:]
        joined_cols = [f"m{h1} {c}" for c in names1] + [f"m{h2} {c}" for c in names2]

    g = ConcatOutputProjection()
    kw = dict(places=places, font_size=font_size, h_buff=h_buff)
    # W_O and its two blocks are one table: one precision for the three
    wkw = dict(kw, places=places_for(W_O) if places is None else places)
    g.concat = get_row_vector(np.concatenate([m1, m2]), name=f"[m{h1}{t} | m{h2}{t}]", tag="concat",
                              column_colors=[c1] * d1 + [c2] * len(m2), **kw)
    g.W_O = get_labeled_matrix(W_O, joined_cols, list(axes), name="W_O", tag="W_O", **wkw)
    for i in range(W_O.shape[0]):
        for j in range(W_O.shape[1]):
            g.W_O.cell(i, j).set_color(c1 if i < d1 else c2)
            if W_O[i, j] == 0 and coordinate_names is not None:
                g.W_O.cell(i, j).set_opacity(0.45)    # the entries that do something stand out
        if coordinate_names is not None:
            g.W_O.row_labels[i].set_color(c1 if i < d1 else c2)
    g.delta = get_row_vector(delta, list(axes), name=f"Δe{t}", tag="delta", **kw)
    # the head boundary: a rule between the two messages, and between the two W_O blocks
    x_mid = (g.concat.cell_center(0, d1 - 1)[0] + g.concat.cell_center(0, d1)[0]) / 2
    g.divider = Line(UP * g.concat.row_height / 2, DOWN * g.concat.row_height / 2).set_x(x_mid)
    g.divider.set_y(g.concat.cell_center(0, 0)[1]).set_stroke(TEXT_COLOR, 2)
    g.concat.add(g.divider)
    y_mid = (g.W_O.cell_center(d1 - 1, 0)[1] + g.W_O.cell_center(d1, 0)[1]) / 2
    left = g.W_O.cell_center(0, 0)[0] - g.W_O.cell_width / 2
    right = g.W_O.cell_center(0, W_O.shape[1] - 1)[0] + g.W_O.cell_width / 2
    g.block_rule = Line([left, y_mid, 0], [right, y_mid, 0]).set_stroke(TEXT_COLOR, 1.5)
    g.block_rule.set_stroke(opacity=0.7)
    g.W_O.add(g.block_rule)
    g.top = VGroup(g.concat, _op("·"), g.W_O, _op("="), g.delta).arrange(RIGHT, buff=BUFF)

    g.m1 = get_row_vector(m1, names1, name=f"m{h1}{t}", tag="m1", color=c1, **kw)
    g.W_O1 = get_labeled_matrix(W_O[:d1], None, list(axes), name=f"W_O{h1}", tag="W_O1", color=c1, **wkw)
    g.c1 = get_row_vector(contribution_1, list(axes), name=f"m{h1}W_O{h1}", tag="contribution1",
                          color=c1, **kw)
    g.m2 = get_row_vector(m2, names2, name=f"m{h2}{t}", tag="m2", color=c2, **kw)
    g.W_O2 = get_labeled_matrix(W_O[d1:], None, list(axes), name=f"W_O{h2}", tag="W_O2", color=c2, **wkw)
    g.c2 = get_row_vector(contribution_2, list(axes), name=f"m{h2}W_O{h2}", tag="contribution2",
                          color=c2, **kw)
    g.delta_2 = get_row_vector(delta, list(axes), name=f"Δe{t}", tag="delta", **kw)
    if entry_places:
        for table in (g.W_O, g.W_O1, g.W_O2):
            _own_precision(table, font_size)
    if coordinate_names is not None:
        for block, rows in ((g.W_O1, W_O[:d1]), (g.W_O2, W_O[d1:])):
            for i in range(rows.shape[0]):
                for j in range(rows.shape[1]):
                    if rows[i, j] == 0:
                        block.cell(i, j).set_opacity(0.45)
    if stacked:
        return _stack(g)
    g.bottom = VGroup(
        g.m1, _op("·"), g.W_O1, _op("+"), g.m2, _op("·"), g.W_O2,
    ).arrange(RIGHT, buff=BUFF)
    g.bottom_sum = VGroup(_op("="), g.c1, _op("+"), g.c2, _op("="), g.delta_2).arrange(RIGHT, buff=BUFF)
    for line in (g.top, g.bottom, g.bottom_sum):
        ref = line[0] if hasattr(line[0], "cell_center") else line[1]
        y = ref.cell_center(0, 0)[1]
        for part in line:
            if not hasattr(part, "cell_center"):
                part.set_y(y)
    VGroup(g.top, g.bottom, g.bottom_sum).arrange(DOWN, buff=BUFF_LARGE)
    g.add(g.top, g.bottom, g.bottom_sum)
    return g


def _strip_col_labels(matrix) -> None:
    """Drop a matrix's column labels but keep its cell widths (it shares the columns above it)."""
    matrix.remove(matrix.col_labels)
    matrix.col_labels = VGroup()


def _stack(g: ConcatOutputProjection) -> ConcatOutputProjection:
    """The stacked layout (see get_concat_output_projection)."""
    for part in (g.W_O2, g.c2, g.delta_2):
        _strip_col_labels(part)
    op_kw = dict(font_size=LABEL_SIZE + 6)
    top_ops = VGroup(g.top[1], g.top[3])
    VGroup(g.concat, top_ops[0], g.W_O, top_ops[1], g.delta).arrange(RIGHT, buff=0.15)
    for op in top_ops:
        op.set_y(g.concat.cell_center(0, 0)[1])
    g.lines, g.ops = VGroup(), VGroup()
    for m, w, c in ((g.m1, g.W_O1, g.c1), (g.m2, g.W_O2, g.c2)):
        dot, eq = get_text("·", **op_kw), get_text("=", **op_kw)
        line = VGroup(m, dot, w, eq, c).arrange(RIGHT, buff=0.3)
        y = m.cell_center(0, 0)[1]
        for part in (w, c):                     # every part's first row on the message's line
            part.shift(UP * (y - part.cell_center(0, 0)[1]))
        for op in (dot, eq):
            op.set_y(y)
        line.dot, line.eq = dot, eq
        g.lines.add(line)
        g.ops.add(dot, eq)
    g.lines[1].next_to(g.lines[0], DOWN, buff=0.3)
    for a, b in ((g.W_O2, g.W_O1), (g.c2, g.c1)):   # the second line's columns under the first's
        b_x, a_x = b.cell_center(0, 0)[0], a.cell_center(0, 0)[0]
        a.shift(RIGHT * (b_x - a_x))
    g.m2.shift(RIGHT * (g.m1.get_right()[0] - g.m2.get_right()[0]))
    g.lines[1].dot.set_x((g.m2.get_right()[0] + g.W_O2.get_left()[0]) / 2)
    g.lines[1].eq.set_x((g.W_O2.get_right()[0] + g.c2.get_left()[0]) / 2)
    low = min(g.c2.get_bottom()[1], g.W_O2.get_bottom()[1])
    half = (g.c2.brackets.width + 0.2) / 2
    g.sum_rule = Line(LEFT * half, RIGHT * half).set_stroke(TEXT_COLOR, 1.5)
    g.sum_rule.move_to([g.c2.brackets.get_center()[0], low - 0.12, 0])
    g.delta_2.shift(RIGHT * (g.c2.cell_center(0, 0)[0] - g.delta_2.cell_center(0, 0)[0]))
    g.delta_2.shift(UP * (g.sum_rule.get_y() - 0.12 - g.delta_2.brackets.get_top()[1]))
    g.delta_2.remove(g.delta_2.name_label)
    g.delta_2.name_label = VGroup()
    g.sum_label = get_text(f"{g.delta.name_label.original_text} = {g.c1.name_label.original_text} + "
                           f"{g.c2.name_label.original_text} =", font_size=LABEL_SIZE)
    g.sum_label.next_to(g.delta_2.brackets, LEFT, buff=0.3)
    align_baseline(g.sum_label, baseline_y(g.delta_2.cell(0, 0)))
    g.bottom = g.lines
    g.bottom_sum = VGroup(g.sum_rule, g.sum_label, g.delta_2)
    VGroup(g.top, VGroup(g.bottom, g.bottom_sum)).arrange(DOWN, buff=BUFF_LARGE)
    g.add(g.top, g.bottom, g.bottom_sum)
    return g


__all__ = ["ConcatOutputProjection", "get_concat_output_projection"]
