"""The repository explains itself: every document it names is in it.

Code, tests and docs cite the specs they follow by file name (docs/WORKSHEET.md, ...). A name that
points at nothing (a spec left outside the repository, a file renamed) leaves someone who clones
the repository unable to read the rule the code says it follows, so each `*.md` name must resolve
to a file: from the repository root, or from the folder of the file that names it.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Folders that are not the repository's own text: tools' state, build outputs, data blobs.
SKIP_DIRS = {".git", ".venv", "renders", "runs", "__pycache__", ".pytest_cache", ".gl", ".whl",
             "node_modules", "exports"}
TEXT_SUFFIXES = {".py", ".mjs", ".js", ".html", ".css", ".md", ".txt", ".toml", ".cfg", ".sh", ".ini"}
TEXT_NAMES = {"Makefile", "run", "NOTICE"}

MD_NAME = re.compile(r"[A-Za-z_/.-]+\.md\b")

# Names that are rightly not files of this repository, each with why. A stale entry (the text no
# longer names it) fails too, so this list cannot hide a new dangling name.
NOT_IN_REPOSITORY = {
    ("README.md", "script.md"):
        "the recording instructions' own output: `... narration script > script.md`",
    ("docs/NARRATION.md", "../review/LISTEN.md"):
        "verbatim spec copy: the project's review notes, outside this repository",
    ("docs/VISUALS.md", "../review/BRIEF.md"):
        "verbatim spec copy: the project's review brief, outside this repository",
    ("docs/COMPARISON.md", "SOURCE.md"):
        "verbatim spec copy: shared/data/tinystories/SOURCE.md, vendored here as data/tinystories/SOURCE.md",
}

SPEC_COPIES = ("docs/WORKSHEET.md", "docs/NARRATION.md", "docs/COMPARISON.md", "docs/VISUALS.md")


def _text_files():
    for folder, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        for name in sorted(files):
            path = Path(folder, name)
            if path.suffix in TEXT_SUFFIXES or name in TEXT_NAMES:
                yield path


def _md_names():
    """(file relative to the root, name) for every `*.md` name in the repository's text."""
    found = set()
    for path in _text_files():
        if path == Path(__file__).resolve():
            continue    # this file names names as data (the exemptions below), not as references
        text = path.read_text(encoding="utf-8", errors="replace")
        if path.relative_to(ROOT).as_posix() in SPEC_COPIES:
            text = text.partition("\n")[2]     # the provenance line names the original, outside
        for name in MD_NAME.findall(text):
            found.add((path.relative_to(ROOT).as_posix(), name))
    return found


def _resolves(rel_file: str, name: str) -> bool:
    name = name.removeprefix("./")
    return (ROOT / name).is_file() or (ROOT / rel_file).parent.joinpath(name).is_file()


def test_the_scan_sees_the_known_references():
    # The scan itself must work: these references are known to be there.
    names = _md_names()
    assert ("README.md", "scenes/README_scenes.md") in names
    assert any(f.startswith("lesson_data/") and n.endswith("WORKSHEET.md") for f, n in names)
    assert any(f.startswith("tests/") and n.endswith("NARRATION.md") for f, n in names)
    assert any(f.startswith("trainer/") and n.endswith("COMPARISON.md") for f, n in names)


def test_every_named_md_file_is_in_the_repository():
    dangling = sorted(
        f"{rel_file}: {name}"
        for rel_file, name in _md_names()
        if not _resolves(rel_file, name) and (rel_file, name) not in NOT_IN_REPOSITORY
    )
    assert not dangling, "named but not in the repository:\n  " + "\n  ".join(dangling)


def test_exemptions_are_still_needed():
    names = _md_names()
    stale = sorted(f"{f}: {n}" for f, n in NOT_IN_REPOSITORY
                   if (f, n) not in names or _resolves(f, n))
    assert not stale, "exemptions no longer needed:\n  " + "\n  ".join(stale)


def test_spec_copies_say_where_they_come_from():
    for rel in SPEC_COPIES:
        first = (ROOT / rel).read_text(encoding="utf-8").splitlines()[0]
        spec = rel.removeprefix("docs/")
        assert re.fullmatch(
            rf"<!-- copied from the project's shared/spec/{re.escape(spec)} on \d{{4}}-\d\d-\d\d; "
            r"the code follows this copy -->", first), (rel, first)


def test_scenes_readme_gives_the_style_sizes_the_code_has():
    # scenes/README_scenes.md lists the font sizes as `NAME value`; they must be scenes/style.py's.
    import ast

    values = {}
    for node in ast.parse((ROOT / "scenes/style.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
            for target in node.targets:
                if isinstance(target, ast.Name) and target.id.endswith("_SIZE"):
                    values[target.id] = node.value.value
    readme = (ROOT / "scenes/README_scenes.md").read_text(encoding="utf-8")
    listed = {name: float(v) for name, v in re.findall(r"`([A-Z_]+_SIZE) (\d+(?:\.\d+)?)`", readme)}
    assert {"TITLE_SIZE", "SMALL_SIZE", "MIN_TEXT_SIZE"} <= set(listed), listed
    assert {n: v for n, v in listed.items() if values.get(n) != v} == {}, values
