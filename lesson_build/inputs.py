"""What a scene's video depends on, and one content hash over it.

A scene is re-rendered only when this hash changes. The inputs are the scene file, every local
module it imports from the project's packages (followed transitively through `import` statements
read with `ast`, so nothing is executed), the data files under lesson_data/exports/ when any
lesson_data module is involved, manim.cfg, the manim version, the quality and extra manim flags,
the environment variables the scenes read (LESSON_SENTENCE, LESSON_VOICE) and the voice itself
(narration.voice.fingerprint: Piper's version, voice and settings, or every recording's sha256), so
a scene's hash covers its spoken text (in the scene file) and the voice that speaks it.

Imports done dynamically (importlib, __import__) are not seen; every scene here imports statically.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
from importlib import metadata
from pathlib import Path

# Top-level packages whose modules count as a scene's inputs.
LOCAL_PACKAGES = ("scenes", "lesson_data", "narration")
# Environment variables that change what a scene draws or says.
SCENE_ENV = ("LESSON_SENTENCE", "LESSON_VOICE")
# Bumped when the render step changes in a way that makes old videos stale.
RENDER_VERSION = 2          # 2: narrated scenes (a sound track and a beats manifest)


def _module_file(root: Path, dotted: str) -> Path | None:
    """The file of module `dotted` under root (package __init__ or plain module), if local."""
    parts = dotted.split(".")
    if not parts or parts[0] not in LOCAL_PACKAGES:
        return None
    base = root.joinpath(*parts)
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


def _package_of(root: Path, file: Path) -> str | None:
    """Dotted package that contains `file` (for relative imports), or None outside the project."""
    try:
        rel = file.resolve().relative_to(root.resolve())
    except ValueError:
        return None
    parts = list(rel.parts[:-1])
    return ".".join(parts) if parts else None


def _imported_modules(root: Path, file: Path) -> set[str]:
    """Dotted names of the modules `file` imports, including each parent package."""
    tree = ast.parse(file.read_text(encoding="utf-8"), filename=str(file))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                package = _package_of(root, file)
                if package is None:
                    continue
                pieces = package.split(".")
                if node.level - 1 > len(pieces) - 1:
                    continue
                base = ".".join(pieces[: len(pieces) - (node.level - 1)])
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            names.add(module)
            # `from pkg import name` may import the submodule pkg.name.
            names.update(f"{module}.{alias.name}" for alias in node.names if alias.name != "*")
    # Importing a.b.c runs a/__init__.py and a/b/__init__.py too.
    with_parents: set[str] = set()
    for name in names:
        pieces = name.split(".")
        with_parents.update(".".join(pieces[:i]) for i in range(1, len(pieces) + 1))
    return with_parents


def scene_inputs(root: Path, scene_file: Path) -> list[Path]:
    """The scene file and every local module it reaches through imports, sorted, deduplicated."""
    root = Path(root)
    start = (root / scene_file) if not Path(scene_file).is_absolute() else Path(scene_file)
    seen: set[Path] = set()
    todo = [start]
    while todo:
        file = todo.pop()
        if file in seen:
            continue
        seen.add(file)
        for module in _imported_modules(root, file):
            found = _module_file(root, module)
            if found is not None and found not in seen:
                todo.append(found)
    files = set(seen)
    if any(_is_under(root, f, "lesson_data") for f in files):
        exports = root / "lesson_data" / "exports"
        if exports.is_dir():
            files.update(p for p in exports.rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    cfg = root / "manim.cfg"
    if cfg.is_file():
        files.add(cfg)
    return sorted(files, key=lambda p: _display(root, p))


def _is_under(root: Path, file: Path, package: str) -> bool:
    try:
        return file.resolve().relative_to(root.resolve()).parts[0] == package
    except ValueError:
        return False


def _display(root: Path, file: Path) -> str:
    try:
        return file.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return file.resolve().as_posix()


def _voice_fingerprint() -> dict | str:
    from narration.voice import VoiceError, fingerprint, voice_from_env
    try:
        return fingerprint(voice_from_env())
    except VoiceError as exc:       # the CLI refuses it before rendering; a hash still exists
        return f"invalid: {exc}"


def input_hash(root: Path, scene_file: Path, scene_name: str, quality: str,
               manim_args: tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """(sha256 hex, the input files relative to root) for one scene at one quality."""
    root = Path(root)
    files = scene_inputs(root, scene_file)
    h = hashlib.sha256()
    header = {
        "render_version": RENDER_VERSION,
        "manim": metadata.version("manim"),
        "scene": scene_name,
        "quality": quality,
        "manim_args": list(manim_args),
        "env": {k: os.environ.get(k) for k in SCENE_ENV},
        "voice": _voice_fingerprint(),
    }
    h.update(json.dumps(header, sort_keys=True).encode())
    names = []
    for f in files:
        name = _display(root, f)
        names.append(name)
        data = f.read_bytes()
        h.update(f"\0{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest(), names
