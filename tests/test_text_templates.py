"""Two speed-ups of setting text leave the text exactly as Manim sets it.

scenes.style keeps one template per distinct text and drops from it what the SVG import leaves behind
(each glyph's parsed path, the SVG's group index id_to_vgroup_dict); the test harness imports a Text's
SVG without building that index at all (tests/scene_harness.lean_text_import). Either way every
mobject of the text, in family order, must carry the same attributes with the same values, bit for
bit, as a Text that Manim builds the ordinary way: the second method here is Manim itself.
"""
from __future__ import annotations

import enum
from pathlib import PurePath

import numpy as np
import pytest
from manim import Mobject, Text, tempconfig
from manim.utils.color.core import ManimColor

from scenes.style import (
    DIM_TEXT_COLOR,
    FONT,
    NEGATIVE_COLOR,
    NUMBER_SIZE,
    SMALL_SIZE,
    get_count,
    get_number,
    get_text,
    sub,
    sup,
)
from scenes.style import _TEXT_TEMPLATES
from tests.scene_harness import _GLYPHS, _media_dir, lean_text_import

# what the speed-ups drop on purpose; the template's own note (for the legibility floor), the
# id of the original that Mobject.copy writes on every copy, and the SVG cache file the template was
# first set from (a template made under another media folder keeps that folder's path)
_DROPPED = {"path_obj", "id_to_vgroup_dict"}
_OWN = {"base_extent", "original_id", "file_name"}


def _value(v, where):
    """A comparable form of an attribute's value; a mobject by where its family sits in the text's."""
    if isinstance(v, Mobject):
        return ("mobject", tuple(where.get(id(m), -1) for m in v.get_family()))
    if isinstance(v, np.ndarray):
        return ("array", v.dtype.str, v.shape, v.tobytes())
    if isinstance(v, ManimColor):
        return ("colour", v.to_hex(with_alpha=True))
    if isinstance(v, dict):
        return ("dict", tuple((k, _value(x, where)) for k, x in v.items()))
    if isinstance(v, (list, tuple)):
        return (type(v).__name__, tuple(_value(x, where) for x in v))
    if isinstance(v, (int, float, str, bool, type(None), enum.Enum, PurePath, np.generic)):
        return v
    raise TypeError(f"no comparison for {type(v).__name__}")


def _state(text, skip=frozenset()):
    family = text.get_family()
    where = {id(m): k for k, m in enumerate(family)}
    return [(type(m).__name__, {k: _value(v, where) for k, v in vars(m).items() if k not in skip})
            for m in family]


def _manim_text(s, font_size, color, font=FONT, **kwargs):
    return Text(s, font=font, font_size=font_size, color=color, disable_ligatures=True, **kwargs)


# plain words, digits and signs, the scenes' sub- and superscripts, two lines, a coloured part
CASES = [
    ("the river bank", 26, "#ECECEC", {}),
    ("−0.125  12.5%", NUMBER_SIZE, "#ECECEC", {}),
    (f"q{sup(1)}{sub(10)} · k{sup(2)}{sub(3)}", 18, "#56B4E9", {}),
    ("tokens ×\n10", SMALL_SIZE, DIM_TEXT_COLOR, {"line_spacing": 0.8}),
    ("the [UNK] word", 18, "#ECECEC", {"t2c": {"[UNK]": NEGATIVE_COLOR}}),
]
# the code panel's face (scenes.blocks.code_panel sets its own Text; the harness imports it too)
MONO = ("scores = q @ k.T / sqrt(d)", 16, "#ECECEC", {"font": "DejaVu Sans Mono", "t2c": {"q": "#56B4E9"}})


@pytest.fixture(scope="module", autouse=True)
def _harness_config():
    with tempconfig({"media_dir": _media_dir(), "pixel_height": 270, "pixel_width": 480}):
        yield


@pytest.fixture(autouse=True)
def _own_templates():
    """Templates set here, by Manim's import: a scene built earlier in this process set its texts
    with the harness's glyph import (equal to rounding, not to the bit)."""
    saved = dict(_TEXT_TEMPLATES)
    _TEXT_TEMPLATES.clear()
    yield
    _TEXT_TEMPLATES.clear()
    _TEXT_TEMPLATES.update(saved)


@pytest.mark.parametrize("s,size,color,kwargs", [*CASES, MONO], ids=[c[0].split()[0] for c in [*CASES, MONO]])
def test_the_harness_imports_a_text_as_manim_does_without_the_group_index(s, size, color, kwargs):
    manim = _manim_text(s, size, color, **kwargs)
    with lean_text_import():
        lean = _manim_text(s, size, color, **kwargs)
    assert manim.id_to_vgroup_dict and lean.id_to_vgroup_dict == {}      # what it leaves out
    _same_to_rounding(lean, manim)
    # one glyph per letter, and the import is Manim's again outside the block
    glyphs = [g for g in lean.submobjects if type(g).__name__ == "VMobjectFromSVGPath"]
    assert len(glyphs) == len("".join(s.split()))
    assert _manim_text(s, size, color, **kwargs).id_to_vgroup_dict


def _same_to_rounding(lean, manim):
    """Every mobject of the family the same type with the same attributes, bit for bit, but the
    points: those within 1e-12 of Manim's (a glyph shifted into place after Manim's conversion of
    its curves, not before). Dropped on purpose: each glyph's parsed path and the group index."""
    skip = {"path_obj", "id_to_vgroup_dict", "points", "original_id"}      # (copies write their original's id)
    assert _state(lean, skip=skip) == _state(manim, skip=skip)
    for a, b in zip(lean.get_family(), manim.get_family()):
        assert a.points.shape == b.points.shape
        assert np.allclose(a.points, b.points, rtol=0, atol=1e-12), np.abs(a.points - b.points).max()


def test_the_glyph_import_sets_a_caption_as_manim_does_and_parses_each_outline_once():
    """A caption of 93 characters, most letters used many times: the harness's import
    parses one outline per distinct letter and the text equals Manim's to rounding."""
    s = "Head 1 puts most of its weight on “river”: 0.718. Then the rest spreads thin over the others."
    before = len(_GLYPHS)
    with lean_text_import():
        lean = _manim_text(s, 28, "#ECECEC")
    manim = _manim_text(s, 28, "#ECECEC")
    _same_to_rounding(lean, manim)
    assert len(_GLYPHS) - before <= len(set(s.replace(" ", "")))


def test_the_rounding_check_sees_a_shifted_glyph():
    """The check above can fail: one point moved by 1e-9, or one glyph's colour, is a difference."""
    with lean_text_import():
        lean = _manim_text("the river", 26, "#ECECEC")
    manim = _manim_text("the river", 26, "#ECECEC")
    lean.submobjects[1].points[0, 0] += 1e-9
    with pytest.raises(AssertionError):
        _same_to_rounding(lean, manim)
    lean.submobjects[1].points[0, 0] -= 1e-9
    lean.submobjects[2].set_fill("#FF0000")
    with pytest.raises(AssertionError):
        _same_to_rounding(lean, manim)


@pytest.mark.parametrize("s,size,color,kwargs", CASES, ids=[c[0].split()[0] for c in CASES])
def test_a_text_from_its_template_is_the_text_manim_sets(s, size, color, kwargs):
    manim = _manim_text(s, size, color, **kwargs)
    first, again = get_text(s, size, color, **kwargs), get_text(s, size, color, **kwargs)
    for text in (first, again):
        assert _state(text, skip=_DROPPED | _OWN) == _state(manim, skip=_DROPPED | _OWN)
        assert all(not getattr(m, "id_to_vgroup_dict", None) and getattr(m, "path_obj", None) is None
                   for m in text.get_family())
    assert {id(m) for m in first.get_family()}.isdisjoint(id(m) for m in again.get_family())


def test_a_number_from_its_template_is_the_text_manim_sets_with_its_own_value():
    for number, shown in ((get_number(-0.12549, tag="E", index=(1, 2)), "-0.125"),
                          (get_number(0.1251, tag="E"), "0.125"),        # same glyphs, one template
                          (get_count(2332832), "2,332,832")):
        manim = _manim_text(shown, NUMBER_SIZE, "#ECECEC")
        skip = _DROPPED | _OWN | {"value", "places", "shown", "tag", "index"}
        assert number.original_text == shown
        assert type(number).__name__ in ("NumberText", "CountText")
        assert _state(number, skip=skip)[1:] == _state(manim, skip=skip)[1:]     # the glyphs
        assert _state(number, skip=skip | {"name"})[0][1] == _state(manim, skip=skip | {"name"})[0][1]
        assert number.name == type(number).__name__                           # Mobject's own default
    assert get_number(-0.12549, tag="E", index=(1, 2)).value == -0.12549


def test_the_comparison_sees_a_one_bit_difference():
    """The check above can fail: a text nudged by the smallest step of one coordinate differs."""
    a, b = get_text("the river bank"), get_text("the river bank")
    assert _state(a, skip=_DROPPED | _OWN) == _state(b, skip=_DROPPED | _OWN)
    glyph = b.submobjects[0]
    glyph.points[0, 0] = np.nextafter(glyph.points[0, 0], np.inf)
    assert _state(a, skip=_DROPPED | _OWN) != _state(b, skip=_DROPPED | _OWN)
