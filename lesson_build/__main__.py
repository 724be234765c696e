"""`python -m lesson_build [--quality l|m|h] [--jobs N] [--chapters 1,2] [--out renders]`
   `python -m lesson_build serve [--port 8000] [--out renders]`   (the built page on localhost)

Renders every scene of the catalog (only those whose inputs changed), stitches chapters and the
series with chapter marks and subtitles, and writes renders/index.html. Exit 1 if anything failed,
2 on bad arguments or when another build is writing the same output folder; SIGINT or SIGTERM stops
the build and every render it started within a few seconds (exit 130 / 143), keeping what finished.
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
from pathlib import Path

from lesson_build import processes
from lesson_build.catalog import CHAPTERS
from lesson_build.lock import Busy
from lesson_build.pipeline import build, summary

# The catalog's paths are relative to the repository that holds this package.
PROJECT_ROOT = Path(__file__).resolve().parents[1]


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def _chapters(text: str) -> list[int]:
    try:
        numbers = [int(p) for p in text.split(",") if p.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of chapter numbers "
                                         f"(allowed: {','.join(str(c.number) for c in CHAPTERS)})")
    known = {c.number for c in CHAPTERS}
    bad = [n for n in numbers if n not in known]
    if bad or not numbers:
        raise argparse.ArgumentTypeError(
            f"no chapter {bad[0] if bad else text!r}; allowed: {','.join(str(n) for n in sorted(known))}")
    return numbers


def _jobs(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of parallel renders >= 1")
    return n


def run(**build_args) -> int:
    """`build(**build_args)` as a command: its summary printed, its exit status returned; SIGINT and
    SIGTERM stop it (and every child it started), another build on the same folder is refused."""
    restore = processes.stop_on_signals()
    if os.environ.get("LESSON_BUILD_WITH_PARENT"):
        processes.stop_with_parent()      # `make lesson`: stopping make stops the build
    try:
        report = build(**build_args)
    except Busy as exc:
        print(f"lesson_build: {exc}", file=sys.stderr)
        return 2
    except processes.Interrupted as exc:
        print(f"lesson_build: stopped by {signal.Signals(exc.signum).name}; finished scenes are kept "
              "and the next run renders the rest", file=sys.stderr)
        return 128 + exc.signum
    finally:
        restore()
    print(summary(report))
    return report.exit_code


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["serve"]:
        from lesson_build.serve import main as serve
        return serve(argv[1:])
    parser = _Parser(prog="python -m lesson_build", description=__doc__.split("\n\n")[1])
    parser.add_argument("--quality", choices=["l", "m", "h"], default="m",
                        help="l = 854x480 15fps, m = 1280x720 30fps (default), h = 1920x1080 60fps")
    parser.add_argument("--jobs", type=_jobs, default=2, help="scenes rendered in parallel (default 2)")
    parser.add_argument("--chapters", type=_chapters, default=None, help="e.g. 1,2 (default: all)")
    parser.add_argument("--out", type=Path, default=PROJECT_ROOT / "renders",
                        help="output folder (default: renders/ in the project)")
    args = parser.parse_args(argv)
    from narration.voice import VoiceError, voice_from_env
    try:
        voice_from_env()          # a bad LESSON_VOICE stops here, before anything is rendered
    except VoiceError as exc:
        parser.exit(2, f"{parser.prog}: error: {exc}\n")
    return run(catalog=CHAPTERS, root=PROJECT_ROOT, out=args.out, quality=args.quality, jobs=args.jobs,
               chapters=args.chapters)


if __name__ == "__main__":
    sys.exit(main())
