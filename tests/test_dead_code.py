"""No dead code in scenes/ and lesson_build/: every name they define is used somewhere.

A small static check (the standard library's `ast`, no imports of the checked code, well under a
second). Definitions: the module-level functions, classes and variables, the methods and class-level
variables of classes, and the imports, of every module under scenes/ and lesson_build/. A definition
counts as used when its name is read anywhere in the repository's Python (a name, an attribute, a
keyword argument, or a string that is exactly the name, as a scene class named in the catalog or a
getattr), other than by its own definition and `__all__`; an import counts as used only when its
module reads it (or lists it in `__all__`, a re-export). A statement after a return, raise, break
or continue in the same block is dead too. Names are matched by spelling, not by scope, so this
finds what nothing could reach, like vulture at 100 % confidence; what it cannot see (a method that
Manim or the standard library calls by convention) is listed below with why.
"""
from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHECKED = ("scenes", "lesson_build")
# Where a use may be: all the repository's Python (tests and tools included: a name used only by a
# test or a command-line tool is alive).
USERS = ("scenes", "lesson_build", "lesson_data", "narration", "trainer", "tests", "tools")

# Methods called by convention, by code outside the repository. Today each is also spelled somewhere
# else in the repository, so the check would pass without it; listed so that it stays right when
# that other spelling goes. Every entry must be defined in scenes/ or lesson_build/ (tested).
CALLED_BY_CONVENTION = {
    "construct": "Manim: Scene.render calls it, each scene's body",
    "setup": "Manim: Scene.render calls it before construct",
    "generate_points": "Manim: Mobject.__init__ calls it to build the points (attention_arrows.Bridge)",
    "reset_endpoints_based_on_tip": "Manim: TipableVMobject.add_tip calls it to end the curve at the head's base (attention_arrows.Bridge)",
    "log_message": "http.server: BaseHTTPRequestHandler calls it for every request (serve.py)",
    "end_headers": "http.server: BaseHTTPRequestHandler calls it to finish the headers (serve.py)",
    "send_head": "http.server: SimpleHTTPRequestHandler.do_GET/do_HEAD call it (serve.py)",
    "copyfile": "http.server: SimpleHTTPRequestHandler.do_GET calls it to send the body (serve.py)",
    "handle_one_request": "http.server: BaseHTTPRequestHandler.handle calls it (serve.py)",
    "error": "argparse: ArgumentParser calls it on a bad argument (serve.py's one-line parser)",
}


@functools.lru_cache(maxsize=None)
def _parse(path: Path):
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _modules(root, folders):
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            if "__pycache__" not in path.parts:
                yield path, _parse(path)


def _all_names(tree) -> set[str]:
    """The strings of a module-level `__all__ = [...]` (a re-export list, not a use elsewhere)."""
    for node in tree.body:
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                return {e.value for e in ast.walk(node.value) if isinstance(e, ast.Constant)
                        and isinstance(e.value, str)}
    return set()


def _targets(node):
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    for t in targets:
        for n in ast.walk(t):
            if isinstance(n, ast.Name):
                yield n.id


def definitions(path: Path, tree) -> list[tuple[str, int, str]]:
    """(name, line, kind) of what the module defines at module and class level, and imports."""
    found = []

    def body(stmts, in_class):
        for node in stmts:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((node.name, node.lineno, "method" if in_class else "function"))
            elif isinstance(node, ast.ClassDef):
                found.append((node.name, node.lineno, "class"))
                body(node.body, True)
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                for name in _targets(node):
                    found.append((name, node.lineno, "attribute" if in_class else "variable"))
            elif isinstance(node, (ast.If, ast.Try)) and not in_class:
                body(node.body, False)
                body(node.orelse, False)
                for h in getattr(node, "handlers", []):
                    body(h.body, False)

    body(tree.body, False)
    return [d for d in found if not (d[0].startswith("__") and d[0].endswith("__"))]


def imports(tree) -> list[tuple[str, int]]:
    """(bound name, line) of every import in the module (`import a.b` binds `a`)."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            continue
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name != "*":
                    out.append(((alias.asname or alias.name).split(".")[0], alias.lineno))
    return out


def uses(tree, *, strings: bool = True) -> set[str]:
    """Every name the module reads: loads, attributes, keyword arguments, identifier strings."""
    skip = set()
    for node in tree.body:        # __all__'s strings are not uses
        if isinstance(node, (ast.Assign, ast.AugAssign)) and "__all__" in set(_targets(node)):
            skip |= {id(e) for e in ast.walk(node)}
    used = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
            used.add(node.id)
        elif isinstance(node, ast.Attribute):
            used.add(node.attr)
        elif isinstance(node, ast.keyword) and node.arg:
            used.add(node.arg)
        elif strings and isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and node.value.isidentifier():
            used.add(node.value)
    return used


def unreachable(tree) -> list[int]:
    """Lines of statements that follow a return, raise, break or continue in the same block."""
    lines = []
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for before, after in zip(block, block[1:]):
                if isinstance(before, (ast.Return, ast.Raise, ast.Break, ast.Continue)):
                    lines.append(after.lineno)
                    break
    return lines


def dead_names(root=ROOT, checked=CHECKED, users=USERS) -> list[str]:
    parsed = list(_modules(root, users))
    everywhere = set().union(*(uses(tree) for _, tree in parsed))
    dead = []
    for path, tree in parsed:
        rel = path.relative_to(root).as_posix()
        if not rel.startswith(tuple(f"{c}/" for c in checked)):
            continue
        for name, line, kind in definitions(path, tree):
            if name not in everywhere and name not in CALLED_BY_CONVENTION:
                dead.append(f"{rel}:{line}: {kind} {name}")
        for line in unreachable(tree):
            dead.append(f"{rel}:{line}: unreachable (after a return, raise, break or continue)")
        own, exported = uses(tree, strings=False), _all_names(tree)
        for name, line in imports(tree):
            if name not in own and name not in exported:
                dead.append(f"{rel}:{line}: import {name} (never read in this module)")
    return sorted(dead)


def test_every_name_in_scenes_and_lesson_build_is_used():
    dead = dead_names()
    assert not dead, "defined and never used (delete it, or list it in CALLED_BY_CONVENTION with why):\n  " \
        + "\n  ".join(dead)


def test_every_convention_entry_is_defined_in_the_checked_code():
    defined = {name for path, tree in _modules(ROOT, CHECKED) for name, _, _ in definitions(path, tree)}
    assert set(CALLED_BY_CONVENTION) <= defined, set(CALLED_BY_CONVENTION) - defined


def test_the_check_finds_a_dead_function_method_constant_and_import(tmp_path):
    # The check must be able to fail: a module with one of each dead kind, beside live ones.
    pkg = tmp_path / "scenes"
    pkg.mkdir()
    (pkg / "sample.py").write_text(
        "import os\n"
        "import sys\n"
        "from math import pi, tau\n"
        "LIVE = 1\n"
        "DEAD_CONSTANT = 2\n"
        "def live():\n"
        "    return sys.argv, LIVE, pi\n"
        "def dead_function():\n"
        "    return 3\n"
        "class Shown:\n"
        "    def construct(self):\n"
        "        return live()\n"
        "    def dead_method(self):\n"
        "        return self\n"
        "        print('never')\n"
        "__all__ = ['Shown', 'dead_function']\n",
        encoding="utf-8")
    (pkg / "user.py").write_text("from scenes.sample import Shown\nprint(Shown)\n", encoding="utf-8")
    dead = dead_names(tmp_path, checked=("scenes",), users=("scenes",))
    kinds = {entry.split(": ", 1)[1] for entry in dead}
    assert kinds == {"variable DEAD_CONSTANT", "function dead_function", "method dead_method",
                     "import os (never read in this module)", "import tau (never read in this module)",
                     "unreachable (after a return, raise, break or continue)"}, dead
