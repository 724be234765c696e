"""Test-wide guards: no LaTeX may be used anywhere, and no `latex` may even be findable.

The lesson must build on machines without TeX. Manim only reaches TeX through
manim.utils.tex_file_writing (and the name tex_mobject imported from it), so those entry points
raise here: a MathTex/Tex/Matrix that slips into a scene fails its test loudly instead of
depending on whatever happens to be installed.
"""
from __future__ import annotations

import os
import shutil

import pytest

# Sleeping (not spinning) OpenMP threads: torch tests stay fast when other work shares the cores.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

_TEX_PROGRAMS = ("latex", "pdflatex", "xelatex", "lualatex", "dvisvgm")


class LatexUsedError(RuntimeError):
    pass


def _no_latex(*args, **kwargs):
    expression = args[0] if args else kwargs.get("expression", "")
    raise LatexUsedError(
        f"LaTeX was requested for {str(expression)[:60]!r}: the lesson must not use "
        "MathTex/Tex/Matrix/DecimalNumber(LaTeX); use scenes.style.get_text / get_number."
    )


def _strip_tex_from_path() -> None:
    keep = []
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if directory and any(os.path.exists(os.path.join(directory, p)) for p in _TEX_PROGRAMS):
            continue
        keep.append(directory)
    os.environ["PATH"] = os.pathsep.join(keep)


def pytest_configure(config):
    _strip_tex_from_path()
    import manim.mobject.text.tex_mobject as tex_mobject
    import manim.utils.tex_file_writing as tex_file_writing

    for name in ("tex_to_svg_file", "generate_tex_file", "compile_tex", "convert_to_svg"):
        setattr(tex_file_writing, name, _no_latex)
    tex_mobject.tex_to_svg_file = _no_latex


@pytest.fixture(autouse=True, scope="session")
def _latex_is_absent():
    for program in _TEX_PROGRAMS:
        assert shutil.which(program) is None, f"{program} is on PATH during tests"
    yield


# The slowest files first (seconds per file from `pytest --durations=0`, 2026-12-03: web_ui 115,
# head_walk 106, joining_heads 74, chapter3 43, library_and_recap 42, chapter2_setup 41, ...).
# `--dist loadfile` hands whole files to the two workers in collection order
# (`--no-loadscope-reorder`); a slow file handed out last leaves one core idle at the end.
# This changes the order files run in, nothing else: every file's own order stays as written.
SLOW_FILES_FIRST = (
    "test_web_ui.py", "test_scenes_head_walk.py", "test_scenes_joining_heads.py",
    "test_scenes_chapter3.py", "test_scenes_library_and_recap.py", "test_scenes_chapter2_setup.py",
    "test_attention_arrows.py", "test_scenes_chapter4.py", "test_trainer.py", "test_lesson_build.py",
    "test_build_stops.py", "test_scenes_chapter1.py", "test_web_page.py", "test_web_models.py",
    "test_beats.py", "test_narration.py",
)


def pytest_collection_modifyitems(session, config, items):
    rank = {name: i for i, name in enumerate(SLOW_FILES_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))   # stable: ties keep their order
