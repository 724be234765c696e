"""Per-beat stage report of scenes, built without video by the test harness:

    .venv/bin/python tools/stage_report.py Head1Weights [MaskedMatrix ...] [--sentence cheque]
    .venv/bin/python tools/stage_report.py --all

For each beat: its length, how much of the content zone (between title and caption) its pictures
span, what played and how many pictures faded in; then any blank stage after the first beat (the
harness's assert_builds_cleanly fails on those). Figures to read while redrawing, not a verdict.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def scene_class(name: str):
    from lesson_build.catalog import CHAPTERS
    for ch in CHAPTERS:
        for s in ch.scenes:
            if s.name == name:
                module = importlib.import_module(s.file[:-3].replace("/", "."))
                return getattr(module, name)
    raise SystemExit(f"stage_report: no scene {name!r} in lesson_build/catalog.py")


def main(argv=None) -> int:
    from lesson_build.catalog import CHAPTERS
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenes", nargs="*")
    parser.add_argument("--all", action="store_true", help="every scene of the catalog")
    parser.add_argument("--sentence", default=None)
    args = parser.parse_args(argv)
    names = [s.name for ch in CHAPTERS for s in ch.scenes] if args.all else args.scenes
    if not names:
        parser.error("name a scene, or --all")
    import tests.scene_harness as harness
    from tests.scene_harness import build_scene, silent_voice
    harness.MEASURE_STAGE = True
    blank = 0
    with silent_voice():
        for name in names:
            b = build_scene(scene_class(name), sentence=args.sentence)
            print(b.stage_report(), flush=True)
            blank += len(b.blank_moments)
    return 1 if blank else 0


if __name__ == "__main__":
    sys.exit(main())
