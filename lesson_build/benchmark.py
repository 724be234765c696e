"""`python -m lesson_build.benchmark [--quality m h] [--scenes Name ...] [--jobs N] [--web]`

How long rendering takes, as figures (never as test assertions). For each quality (default -qm,
the default of `make lesson`, and -qh) and every catalog scene that exists (or the ones named):

  * each scene rendered alone, one after another: wall time ÷ video duration;
  * the whole set ("the series") rendered that way, and again N scenes at a time in the same run:
    wall ÷ total video duration for each, and the parallel speed-up (serial wall ÷ parallel wall);
  * stitching the set into one file (stream copy, chapter marks, subtitles).

Each quality's goal on this project's 2-core machine, two scenes at a time, is printed beside the
figure: -qm <= 0.6x video duration, -qh <= 1.2x.

`--web` measures the web lesson instead (lesson_build/web/benchmark.py): in-page generation latency
per token against the Python CLI's, page weight, time to first interaction.

Renders go to a temporary folder, so the render cache under renders/ is neither used nor touched.
A busy machine (the trainer, say) slows every figure: the load average is printed with them.
"""
from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction
from pathlib import Path
from typing import Sequence

from lesson_build import media
from lesson_build.catalog import CHAPTERS, Chapter
from lesson_build.render import QUALITY_FLAGS, SceneJob, SceneResult, existence_problem, prepare, render


def _children_cpu() -> float:
    """CPU seconds (user + system) of every finished child process so far: the manim renders."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _render_all(jobs: Sequence[SceneJob], workers: int) -> tuple[list[SceneResult], float, float]:
    """Results, wall seconds and the renders' CPU seconds. CPU time hardly changes when other work
    shares the machine, wall time does: both are printed."""
    started, cpu = time.perf_counter(), _children_cpu()
    pending = [prepare(j) for j in jobs]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        results = list(pool.map(lambda p: render(p) if p.status == "pending" else p, pending))
    return results, time.perf_counter() - started, _children_cpu() - cpu


# Render wall time / video duration, two scenes at a time (issue 13's goals for this machine).
GOALS = {"m": 0.6, "h": 1.2}


def _ratio(wall: float, video: Fraction) -> str:
    return f"{wall / float(video):7.2f}x" if video else "      -"


def run(catalog: Sequence[Chapter] = CHAPTERS, *, root: Path = Path("."), qualities: Sequence[str] = ("l", "h"),
        names: Sequence[str] | None = None, workers: int = 2, manim_args: Sequence[str] = (),
        out=print) -> int:
    """Print the figures; 0 when something was measured, 1 when no scene could be rendered."""
    entries = [(ch, s) for ch in catalog for s in ch.scenes]
    if names:
        known = {s.name for _, s in entries}
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ValueError(f"no scene {unknown[0]!r} in the catalog (scenes: {', '.join(sorted(known))})")
        entries = [(ch, s) for ch, s in entries if s.name in names]
    root = Path(root).resolve()
    existing, absent = [], []
    for ch, s in entries:
        probe_job = SceneJob(ch, s, root, root, "l")
        problem = existence_problem(probe_job)
        (absent if problem else existing).append((ch, s, problem))
    if absent:
        out(f"skipped, not yet written: {', '.join(s.name for _, s, _ in absent)}")
    if not existing:
        out("nothing to measure: none of the selected scenes exists yet")
        return 1
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    out(f"{len(existing)} scene(s), {workers} at a time in the parallel pass; "
        f"{os.cpu_count()} CPUs, load average {load:.2f} at start")
    measured = False
    for quality in qualities:
        with tempfile.TemporaryDirectory(prefix="lesson_build-bench-") as tmp:
            def jobs_in(folder: str) -> list[SceneJob]:
                return [SceneJob(ch, s, root, Path(tmp) / folder / quality, quality, tuple(manim_args))
                        for ch, s, _ in existing]

            out(f"\n-q{quality}: each scene alone, one after another")
            out(f"  {'scene':<28} {'render':>8} {'video':>8} {'render/video':>12} {'cpu/video':>10}")
            serial: list[SceneResult] = []
            serial_cpu = 0.0
            for job in jobs_in("serial"):
                (r,), _, cpu = _render_all([job], 1)
                serial.append(r)
                if r.ok:
                    serial_cpu += cpu
                    out(f"  {job.entry.name:<28} {r.seconds:7.1f}s {float(r.info.duration):7.1f}s "
                        f"{_ratio(r.seconds, r.info.duration):>12} {_ratio(cpu, r.info.duration):>10}")
                else:
                    out(f"  {job.entry.name:<28} FAILED: {(r.error.splitlines() or ['?'])[-1]}")
            ok = [r for r in serial if r.ok]
            if not ok:
                continue
            measured = True
            video = sum((r.info.duration for r in ok), Fraction(0))
            serial_wall = sum(r.seconds for r in ok)
            load_before = os.getloadavg()[0]
            parallel, parallel_wall, parallel_cpu = _render_all(jobs_in("parallel"), workers)
            same = {r.job.entry.name for r in ok} == {r.job.entry.name for r in parallel if r.ok}
            out(f"  {'series, one at a time':<28} {serial_wall:7.1f}s {float(video):7.1f}s "
                f"{_ratio(serial_wall, video):>12} {_ratio(serial_cpu, video):>10}")
            out(f"  {f'series, {workers} at a time':<28} {parallel_wall:7.1f}s {float(video):7.1f}s "
                f"{_ratio(parallel_wall, video):>12} {_ratio(parallel_cpu, video):>10}")
            if quality in GOALS and video:
                ratio = parallel_wall / float(video)
                cores = min(workers, os.cpu_count() or 1)
                out(f"  goal for -q{quality}, {workers} at a time: <= {GOALS[quality]:.2f}x; measured {ratio:.2f}x: "
                    f"{'met' if ratio <= GOALS[quality] else 'NOT met'} (load average {load_before:.2f} -> "
                    f"{os.getloadavg()[0]:.2f}); the renders' CPU time on {cores} idle cores would take "
                    f"{parallel_cpu / cores / float(video):.2f}x")
            if same:
                out(f"  parallel speed-up over one process: {serial_wall / parallel_wall:.2f}x "
                    f"(serial wall ÷ parallel wall, same run)")
            else:
                out("  parallel speed-up: not comparable (a scene failed in one pass only)")
            started = time.perf_counter()
            dest = Path(tmp) / "series" / "series.mp4"
            result = media.stitch([media.Part(r.job.video, r.job.entry.title, r.info, r.subtitles) for r in ok],
                                  dest, title="benchmark", srt_dest=dest.with_suffix(".srt"),
                                  vtt_dest=dest.with_suffix(".vtt"))
            stitch_wall = time.perf_counter() - started
            out(f"  stitching the series ({'stream copy' if result['copy'] else 're-encode'}): "
                f"{stitch_wall:.2f}s for {float(video):.1f}s of video")
    return 0 if measured else 1


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, exit 2
        self.exit(2, f"{self.prog}: error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m lesson_build.benchmark", description=__doc__.split("\n\n")[1])
    parser.add_argument("--quality", nargs="+", choices=list(QUALITY_FLAGS), default=None,
                        help="any of l, m, h (default: m h; with --web: none)")
    parser.add_argument("--scenes", nargs="+", default=None, help="scene class names (default: all that exist)")
    parser.add_argument("--jobs", type=int, default=2, help="scenes at a time in the parallel pass (default 2)")
    parser.add_argument("--web", action="store_true",
                        help="measure the web page: in-page latency per token vs the Python CLI, page weight, "
                             "time to first interaction")
    parser.add_argument("--page", type=Path, default=None,
                        help="with --web: a built index.html (default: renders/index.html if built, else a page "
                             "written to a temporary folder without videos)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error(f"--jobs {args.jobs}: must be at least 1")
    if args.page is not None and not args.page.is_file():
        parser.error(f"--page {args.page}: no such file (build it with `make lesson`)")
    root = Path(__file__).resolve().parents[1]
    try:
        code = 0
        if args.web:
            from lesson_build.web.benchmark import run_web
            code = run_web(root, page=args.page)
        if args.quality or not args.web:
            code = max(code, run(CHAPTERS, root=root, qualities=args.quality or ["m", "h"], names=args.scenes,
                                 workers=args.jobs))
        return code
    except ValueError as exc:
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
