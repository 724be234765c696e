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
