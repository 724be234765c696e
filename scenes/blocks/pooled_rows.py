"""Attention rows side by side on the same named sources, the rest pooled into "others".

    rows = [PooledRowSpec("one wide head", pool_on_sources(wide.weights[-1], sources), WIDE_HEAD_COLOR, "wide"),
            PooledRowSpec("head 1", pool_on_sources(h1.weights[-1], sources), head_color(1), "A1"), ...]
    table = get_pooled_rows(ws.tokens, rows)
    table.rows[0].shown[k]        # NumberText of source sources[k] (tag f"{tag}_w", index = source)

Every row names the same sources in the same columns (a column always means one source, so
reading down a column compares the heads), then "others (n)" (the full-precision sum of the
remaining weights), the largest of those others by name (so a large weight never hides in the
pool), the row's sum, and a stacked bar of the whole row (named sources, then others: it fills the
bar's width because the row sums to one). The rows come from lesson_data.joining.pool_on_sources.
"""
from __future__ import annotations

from dataclasses import dataclass

from manim import LEFT, RIGHT, Rectangle, VGroup

from scenes.style import (
    BACKGROUND,
    DIM_TEXT_COLOR,
    HIGHLIGHT_OPACITY,
    LABEL_SIZE,
    NUMBER_SIZE,
    SMALL_SIZE,
    TEXT_COLOR,
    align_baseline,
    get_number,
    get_text,
    sub,
)


BAR_SHADES = (0.9, 0.55, 0.4, 0.3, 0.15)   # fill opacity of the named sources' segments, then "others" (last)


def source_name(tokens, j: int) -> str:
    """A source word with its one-based position as a subscript, 'river₆' (words repeat)."""
    return f"{tokens[j]}{sub(j + 1)}"


@dataclass
class PooledRowSpec:
    """One row of the table: its name, its lesson_data.joining.SourceRow, colour and number tag."""

    name: str
    row: object          # lesson_data.joining.SourceRow
    color: str
    tag: str


class PooledRows(VGroup):
    """Built by get_pooled_rows. Parts: `header` (one Text per column), `rows` (one VGroup per
    spec with `.name`, `.shown` [NumberText per source], `.others`, `.largest_word`,
    `.largest`, `.sum`, `.bar`, `.anchor`, `.spec`), `sources`."""

    def get_row_box(self, i: int, color: str = TEXT_COLOR, fill_opacity: float = HIGHLIGHT_OPACITY * 0.6,
                    stroke_width: float = 2.0) -> Rectangle:
        anchor = self.rows[i].anchor
        box = Rectangle(width=anchor.width, height=anchor.height)
        return box.set_stroke(color, stroke_width).set_fill(color, fill_opacity).move_to(anchor)


def get_pooled_rows(tokens, specs, *, show_bars: bool = True, bar_width: float = 2.0,
                    font_size: float = NUMBER_SIZE + 2, word_size: float = LABEL_SIZE,
                    name_size: float = LABEL_SIZE, gap: float = 0.45, row_height: float = 0.55) -> PooledRows:
    """The table: name | one column per source | others (n) | largest of them | sum | bar.

    Numbers: f"{tag}_w" (index = source, zero-based), f"{tag}_others", f"{tag}_largest" (index =
    that source), f"{tag}_sum" (math.fsum of the whole row). Without pooled sources (a prefix of
    one or two tokens) the two pool columns are left out.
    """
    specs = list(specs)
    sources = specs[0].row.sources
    if any(s.row.sources != sources for s in specs):
        raise ValueError("every row of a pooled table must name the same sources")
    pooled = specs[0].row.n_others > 0
    titles = [source_name(tokens, j) for j in sources]
    if pooled:
        titles += [f"others ({specs[0].row.n_others})", "largest of them"]
    titles.append("sum")
    header = [get_text(t, font_size=word_size if k < len(sources) else SMALL_SIZE,
                       color=TEXT_COLOR if k < len(sources) else DIM_TEXT_COLOR) for k, t in enumerate(titles)]

    rows = []
    for spec in specs:
        r = spec.row
        row = VGroup()
        row.spec = spec
        row.name = get_text(spec.name, font_size=name_size, color=spec.color)
        row.shown = [get_number(w, tag=f"{spec.tag}_w", index=j, font_size=font_size, color=spec.color)
                     for j, w in zip(r.sources, r.shown)]
        cells = list(row.shown)
        row.others = row.largest = row.largest_word = None
        if pooled:
            row.others = get_number(r.others, tag=f"{spec.tag}_others", font_size=font_size, color=spec.color)
            row.largest = get_number(r.largest_other_weight, tag=f"{spec.tag}_largest", index=r.largest_other,
                                     font_size=font_size, color=DIM_TEXT_COLOR)
            row.largest_word = get_text(source_name(tokens, r.largest_other), font_size=SMALL_SIZE,
                                        color=DIM_TEXT_COLOR)
            cells += [row.others, VGroup(row.largest_word, row.largest)]
        row.sum = get_number(r.total, tag=f"{spec.tag}_sum", font_size=font_size)
        cells.append(row.sum)
        row.cells = cells
        rows.append(row)

    # the "largest of them" cell: its word, then its weight, on one baseline
    for row in rows:
        if row.largest is not None:
            row.largest_word.next_to(row.largest, LEFT, buff=0.1)
            align_baseline(row.largest_word, row.largest.get_bottom()[1])

    n_cols = len(titles)
    widths = [max(max(r.cells[k].width for r in rows), header[k].width) for k in range(n_cols)]
    name_width = max(r.name.width for r in rows)
    rights, x = [], name_width
    for w in widths:
        x += gap + w
        rights.append(x)
    right_end = rights[-1] + (gap + bar_width if show_bars else 0.0)

    table = PooledRows()
    table.sources = sources
    for i, row in enumerate(rows):
        y = -i * row_height
        for k, cell in enumerate(row.cells):
            cell.move_to([rights[k], 0, 0], aligned_edge=RIGHT)
            number = cell[-1] if isinstance(cell, VGroup) and not hasattr(cell, "value") else cell
            cell.shift([0, y - number.get_bottom()[1], 0])
        row.name.move_to([0, 0, 0], aligned_edge=LEFT)
        align_baseline(row.name, y)
        row.bar = VGroup()
        if show_bars:
            x0 = rights[-1] + gap
            shades = list(BAR_SHADES[:len(sources)]) + [BAR_SHADES[-1]]
            for weight, shade in zip(row.spec.row.segments, shades):
                seg = Rectangle(width=max(bar_width * weight, 1e-3), height=0.26)
                seg.set_stroke(BACKGROUND, 1.5).set_fill(row.spec.color, shade)
                seg.move_to([x0, y + 0.09, 0], aligned_edge=LEFT)
                x0 += bar_width * weight
                row.bar.add(seg)
        row.anchor = Rectangle(width=right_end + 0.3, height=row_height * 0.92).set_stroke(width=0).set_fill(opacity=0)
        row.anchor.move_to([(right_end) / 2, y + 0.09, 0])
        row.add(row.anchor, row.name, *row.cells, row.bar)
    table.rows = VGroup(*rows)
    for k, h in enumerate(header):
        h.move_to([rights[k], 0, 0], aligned_edge=RIGHT)
        align_baseline(h, row_height * 0.85)
    table.header = VGroup(*header)
    table.add(table.header, table.rows)
    return table


__all__ = ["PooledRowSpec", "PooledRows", "get_pooled_rows", "source_name", "BAR_SHADES"]
