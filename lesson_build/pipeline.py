"""From scenes to what a viewer watches: render, stitch, subtitle, preview, index.

    build(catalog, root=..., out=..., quality="l", jobs=2) -> BuildReport

Outputs, for quality q (l, m or h; the command line defaults to m), under `out` (default renders/):

    lesson/q/scenes/NN_Scene.{mp4,srt,json}   one video per scene (see render.py)
    lesson/q/<slug>.mp4                       one per chapter: chapter marks + mov_text subtitles
    lesson/q/<slug>.{srt,vtt}                 the chapter's merged subtitles
    lesson/q/<slug>.jpg / <slug>.gif          thumbnail (the poster) and a few-second preview
    lesson/q/<slug>.json                      what the chapter was stitched from
    lesson/q/series.{mp4,srt,vtt,json}        the whole series, one chapter mark per scene
    index.html                                the web lesson: chapters with transcripts, the
                                              worksheet explorer, the trained-model demo (page.py)
    web/                                      its scripts and styles (lesson_build/web/)
    web/models/                               the checkpoints as float16 .bin + manifest.json
    worksheet.json                            `python -m lesson_data export`, when that CLI exists

A chapter is stitched only from a complete set of its scenes, the series only from every chapter.
`chapters=[...]` limits what is rendered; chapters outside it are still assembled when every scene
video of theirs is already up to date. A chapter left unbuilt keeps any older file it had.

The index page lists every chapter that exists on disk at the best quality built (h, then m, then
l; the draft quality l only where nothing better exists, and marked as a draft), so a partial or
draft build never takes a published chapter off the page.

Stopping and failing leave the published files whole. One build per output folder at a time
(lesson_build.lock). Every child process is stoppable (lesson_build.processes): on SIGINT or SIGTERM
the command stops them all; finished scenes keep their manifests, so the next run renders only what
was not finished. A chapter is stitched into a staging folder and moved into place file by file with
the signals held back, its manifest last; a failed stitch leaves the previous files as they were.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable, Sequence

from lesson_build import media, page, processes
from lesson_build.lock import output_lock
from lesson_build.catalog import CHAPTERS, Chapter
from lesson_build.render import QUALITY_FLAGS, SceneJob, SceneResult, prepare, render
from lesson_build.web import site, weights

SERIES_TITLE = "Multi-head attention"
RESOLUTIONS = {"l": "480p15", "m": "720p30", "h": "1080p60"}
BEST_FIRST = ("h", "m", "l")
DRAFT_QUALITIES = ("l",)
# A scene outside --chapters whose video is missing or stale: left alone, not rendered.
NOT_SELECTED = "not selected, needs a render"
# Bumped when stitching changes in a way that makes old chapter files stale.
STITCH_VERSION = 1


@dataclass
class StitchResult:
    slug: str
    title: str
    status: str                        # "built" | "up to date" | "not built" | "failed"
    note: str = ""
    video: Path | None = None
    marks: list = field(default_factory=list)   # (title, start, end) in seconds
    duration: Fraction | None = None
    copy: bool | None = None


@dataclass
class BuildReport:
    quality: str
    scenes: list[SceneResult]
    chapters: list[StitchResult]
    series: StitchResult | None
    worksheet: str                     # "written" | "skipped: ..." | "failed: ..."
    index: Path | None
    web: str = ""                      # the page's scripts and models: "ready ..." | "failed: ..."

    @property
    def failed(self) -> list[str]:
        bad = [f"scene {r.job.entry.name}" for r in self.scenes if r.status == "failed"]
        bad += [f"chapter {c.slug}" for c in self.chapters if c.status == "failed"]
        if self.series is not None and self.series.status == "failed":
            bad.append("series")
        if self.worksheet.startswith("failed"):
            bad.append("worksheet export")
        if self.web.startswith("failed"):
            bad.append("web page")
        return bad

    @property
    def exit_code(self) -> int:
        return 1 if self.failed else 0


def _stitch_key(parts: Sequence[SceneResult], titles: Sequence[str], title: str) -> str:
    blob = json.dumps({"v": STITCH_VERSION, "title": title,
                       "parts": [[r.hash, t] for r, t in zip(parts, titles)]}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def _offsets(parts: Sequence[SceneResult], titles: Sequence[str]) -> list[tuple[str, Fraction, Fraction]]:
    marks, t = [], Fraction(0)
    for r, name in zip(parts, titles):
        marks.append((name, t, t + r.info.duration))
        t += r.info.duration
    return marks


def stitch_set(quality_dir: Path, slug: str, title: str, parts: Sequence[SceneResult],
               titles: Sequence[str], *, previews: bool,
               log: Callable[[str], None] = print) -> StitchResult:
    """Stitch one chapter (or the series) unless its manifest says the same parts made it."""
    video = quality_dir / f"{slug}.mp4"
    outputs = [video, video.with_suffix(".srt"), video.with_suffix(".vtt")]
    if previews:
        outputs += [video.with_suffix(".jpg"), video.with_suffix(".gif")]
    manifest_path = video.with_suffix(".json")
    key = _stitch_key(parts, titles, title)
    marks = _offsets(parts, titles)
    duration = marks[-1][2]
    try:
        old = json.loads(manifest_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        old = None
    if old and old.get("key") == key and all(p.is_file() for p in outputs):
        return StitchResult(slug, title, "up to date", video=video, marks=marks, duration=duration,
                            copy=old.get("copy"))
    log(f"  stitching {slug} from {len(parts)} scene(s)")
    # Everything is made in a staging folder first: the published files stay as they were until
    # every new one exists, and stay so if any step fails.
    staging = quality_dir / ".stitching" / slug
    shutil.rmtree(staging, ignore_errors=True)
    staged = staging / video.name
    try:
        result = media.stitch(
            [media.Part(r.job.video, t, r.info, r.subtitles) for r, t in zip(parts, titles)],
            staged, title=title, srt_dest=staged.with_suffix(".srt"), vtt_dest=staged.with_suffix(".vtt"))
        if previews:
            # Candidates: the middle and near the end of every scene (frame-centred).
            cands = []
            for _, start, end in marks:
                half_frame = Fraction(1, 2) / (parts[0].info.fps or 1)
                cands += [start + (end - start) / 2, max(start, end - 3 * half_frame)]
            # Each candidate costs a seek and up to a GOP of decoding: keep at most a dozen.
            cands = cands[::max(1, -(-len(cands) // 12))]
            at = media.pick_thumbnail_time(staged, cands)
            media.thumbnail(staged, staged.with_suffix(".jpg"), at)
            media.gif_preview(staged, staged.with_suffix(".gif"), max(Fraction(0), at - 3))
    except (media.MediaError, OSError) as exc:
        shutil.rmtree(staging, ignore_errors=True)
        return StitchResult(slug, title, "failed", note=str(exc))
    manifest = json.dumps({
        "key": key, "title": title, "copy": result["copy"], "duration": str(result["duration"]),
        "marks": [[n, str(s), str(e)] for n, s, e in result["marks"]],
        "scenes": [r.job.stem for r in parts], "subtitle_cues": result["cues"],
    }, indent=2) + "\n"
    with processes.held():
        # Manifest off first, on last: a run stopped in between finds no manifest and stitches again.
        manifest_path.unlink(missing_ok=True)
        for dest in outputs:
            os.replace(staging / dest.name, dest)
        # Posters were PNGs before they were JPEGs: the page no longer names one, so none is kept.
        video.with_suffix(".png").unlink(missing_ok=True)
        media.write_text_atomic(manifest_path, manifest)
    shutil.rmtree(staging, ignore_errors=True)
    return StitchResult(slug, title, "built", video=video, marks=marks, duration=duration,
                        copy=result["copy"])


def export_worksheet(root: Path, out: Path, module: str | None) -> tuple[str, Path | None]:
    """Run `python -m <module> export --out <out>/worksheet.json` when that CLI exists."""
    if module is None:
        return "skipped: no worksheet module", None
    if not (root / module / "__main__.py").is_file():
        return f"skipped: {module} has no CLI yet (no {module}/__main__.py)", None
    dest = out / "worksheet.json"
    proc = processes.run([sys.executable, "-m", module, "export", "--out", str(dest.resolve())],
                         cwd=root, text=True)
    if proc.returncode != 0 or not dest.is_file():
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-3:]
        return f"failed: python -m {module} export exited {proc.returncode}: {' | '.join(tail)}", None
    return "written", dest


def _fmt_s(x) -> str:
    return f"{float(x):.1f}s"


def cause(error: str) -> str:
    """The one line of an error's text that says why: its last line that is not a frame of rich's
    traceback box (a render's error is the tail of manim's output)."""
    for line in reversed(error.splitlines()):
        line = line.strip().strip("│╭╮╰╯─ ").strip()
        if line:
            return line
    return "(no error text)"


def failure_lines(report: BuildReport) -> list[str]:
    """One line per failure: what failed and why (and where the full log is)."""
    lines = [f"FAILED: scene {r.job.entry.name}: {cause(r.error)} (log: {r.job.log})"
             for r in report.scenes if r.status == "failed"]
    lines += [f"FAILED: chapter {c.slug}: {cause(c.note)}" for c in report.chapters if c.status == "failed"]
    if report.series is not None and report.series.status == "failed":
        lines.append(f"FAILED: series: {cause(report.series.note)}")
    if report.worksheet.startswith("failed"):
        lines.append(f"FAILED: worksheet export: {cause(report.worksheet)}")
    if report.web.startswith("failed"):
        lines.append(f"FAILED: web page: {cause(report.web)}")
    return lines


def summary(report: BuildReport) -> str:
    rows = [("#", "chapter", "scene", "status", "render", "video")]
    for r in report.scenes:
        rows.append((str(r.job.entry.number), str(r.job.chapter.number), r.job.entry.name,
                     r.status.upper() if r.status == "failed" else r.status,
                     _fmt_s(r.seconds) if r.status == "rendered" else "",
                     _fmt_s(r.info.duration) if r.info else ""))
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    out = ["", "  ".join(c.ljust(w) for c, w in zip(rows[0], widths))]
    out += ["  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() for row in rows[1:]]
    out.append("")
    for c in report.chapters + ([report.series] if report.series else []):
        where = f"{c.video}  {_fmt_s(c.duration)}, {len(c.marks)} marks" if c.video else c.note
        out.append(f"{c.slug:<10} {c.status.upper() if c.status == 'failed' else c.status:<11} {where}")
    out.append(f"worksheet  {report.worksheet}")
    if report.web:
        out.append(f"web        {report.web}")
    if report.index:
        out.append(f"index      {report.index}")
    failed = failure_lines(report)
    if failed:
        out += [""] + failed
    return "\n".join(out)


# ---------------------------------------------------------------- what the page lists

@dataclass
class Published:
    """A chapter (or the series) as it is on disk at one quality: stitched, whole, with its manifest."""
    quality: str
    video: Path
    marks: list                        # (title, start, end) in seconds, Fractions
    duration: Fraction
    scenes: list[str]                  # the scene stems it was stitched from


def published(out: Path, slug: str, stems: Sequence[str]) -> Published | None:
    """The best quality at which `slug` exists on disk, stitched from exactly these scenes."""
    for q in BEST_FIRST:
        video = out / "lesson" / q / f"{slug}.mp4"
        try:
            m = json.loads(video.with_suffix(".json").read_text(encoding="utf-8"))
            marks = [(n, Fraction(a), Fraction(b)) for n, a, b in m["marks"]]
            duration = Fraction(m["duration"])
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if m.get("scenes") != list(stems) or len(marks) != len(stems):
            continue                   # stitched from another list of scenes than the catalog's
        if all(video.with_suffix(x).is_file() for x in (".mp4", ".srt", ".vtt")):
            return Published(q, video, marks, duration, list(stems))
    return None


def page_rows(catalog: Sequence[Chapter], out: Path, scene_results: Sequence[SceneResult],
              chapter_results: Sequence[StitchResult]) -> list[page.ChapterRow]:
    """A row per chapter: the best stitched chapter on disk, or this build's reason it is missing."""
    rows = []
    status = {(r.job.chapter.number, r.job.entry.number): r for r in scene_results}
    for ch, st in zip(catalog, chapter_results):
        stems = [status[(ch.number, s.number)].job.stem for s in ch.scenes]
        found = published(out, ch.slug, stems)
        if found is None:
            scenes = []
            for s in ch.scenes:
                r = status[(ch.number, s.number)]
                scenes.append(page.SceneRow(s.number, s.title, s.name, "ok" if r.ok else r.status,
                                            None, r.job.video if r.ok else None))
            rows.append(page.ChapterRow(ch, scenes, note=st.note))
            continue
        scene_dir = found.video.parent / "scenes"
        scenes = [page.SceneRow(s.number, s.title, s.name, "ok", found.marks[k][1],
                                scene_dir / f"{stems[k]}.mp4" if (scene_dir / f"{stems[k]}.mp4").is_file()
                                else None)
                  for k, s in enumerate(ch.scenes)]
        v = found.video
        rows.append(page.ChapterRow(ch, scenes, video=v, vtt=v.with_suffix(".vtt"), srt=v.with_suffix(".srt"),
                                    poster=v.with_suffix(".jpg"), gif=v.with_suffix(".gif"),
                                    duration=found.duration, quality=RESOLUTIONS[found.quality],
                                    draft=found.quality in DRAFT_QUALITIES))
    return rows


def _clear_leftovers(out: Path) -> None:
    """Temp files and staging folders of a build that was killed before its own clean-up ran.
    Called under the folder's lock, so no other build is writing them."""
    lesson = out / "lesson"
    for q in QUALITY_FLAGS:
        for folder in (".staging", ".stitching"):
            shutil.rmtree(lesson / q / folder, ignore_errors=True)
    # media.atomic_output's and web.weights' temp names, and lesson_data's export's.
    for partial in [*out.rglob(".*.partial*"), *out.glob(".lesson_data-*.tmp")]:
        partial.unlink(missing_ok=True)


def build(catalog: Sequence[Chapter] = CHAPTERS, *, root: Path = Path("."), out: Path = Path("renders"),
          quality: str = "l", jobs: int = 2, chapters: Sequence[int] | None = None,
          manim_args: Sequence[str] = (), worksheet_module: str | None = "lesson_data",
          series_title: str = SERIES_TITLE, log: Callable[[str], None] = print) -> BuildReport:
    """Render, stitch and index the catalog's scenes. Never raises for a bad scene: see the report.
    Raises lock.Busy when another build is writing `out`, processes.Interrupted when stopped."""
    if quality not in QUALITY_FLAGS:
        raise ValueError(f"quality {quality!r} is not one of {', '.join(QUALITY_FLAGS)}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    root, out = Path(root).resolve(), Path(out).resolve()
    known = [c.number for c in catalog]
    if chapters is not None:
        unknown = [n for n in chapters if n not in known]
        if unknown:
            raise ValueError(f"no chapter {unknown[0]} in the catalog (chapters are {known})")
    with output_lock(out, log=log):
        processes.reset()
        _clear_leftovers(out)
        try:
            return _build(catalog, root=root, out=out, quality=quality, jobs=jobs, chapters=chapters,
                          manim_args=manim_args, worksheet_module=worksheet_module,
                          series_title=series_title, log=log)
        except BaseException:
            processes.stop_all()      # no child outlives the build, however it ends
            raise
        finally:
            _clear_leftovers(out)


def _render_all(pending: list[tuple[int, SceneResult]], jobs: int, results: dict[int, SceneResult],
                log: Callable[[str], None]) -> None:
    pool = ThreadPoolExecutor(max_workers=jobs)
    try:
        futures = {pool.submit(render, r): i for i, r in pending}
        for fut in as_completed(futures):
            r = fut.result()
            results[futures[fut]] = r
            what = (f"rendered in {r.seconds:.1f}s ({float(r.info.duration):.1f}s of video)"
                    if r.ok else "FAILED: " + (r.error.splitlines() or ["?"])[-1])
            log(f"  {r.job.entry.name}: {what}")
    except BaseException:
        processes.stop_all()          # the renders die; the scenes not started never start
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _build(catalog, *, root, out, quality, jobs, chapters, manim_args, worksheet_module, series_title,
           log) -> BuildReport:
    selected = [c for c in catalog if chapters is None or c.number in chapters]
    quality_dir = out / "lesson" / quality
    label = f"{RESOLUTIONS[quality]} ({QUALITY_FLAGS[quality]})" + (
        f" with manim {' '.join(manim_args)}" if manim_args else "")

    # ---- render what changed (in the selected chapters; the others only count if up to date)
    jobs_list = [SceneJob(ch, s, root, quality_dir, quality, tuple(manim_args))
                 for ch in catalog for s in ch.scenes]
    results: dict[int, SceneResult] = {}
    pending = []
    for i, job in enumerate(jobs_list):
        r = prepare(job)
        if r.status == "pending" and job.chapter not in selected:
            r.status = NOT_SELECTED
        if r.status == "pending":
            pending.append((i, r))
        else:
            results[i] = r
            if r.status == "failed":
                log(f"  {job.entry.name}: FAILED: {r.error.splitlines()[0]}")
    count = {s: sum(1 for r in results.values() if r.status == s) for s in ("cached", "not yet written")}
    log(f"lesson_build: {len(jobs_list)} scenes: {count['not yet written']} not yet written, "
        f"{count['cached']} up to date, {len(pending)} to render at {label}, {jobs} at a time")
    if pending:
        _render_all(pending, jobs, results, log)
    shutil.rmtree(quality_dir / ".staging", ignore_errors=True)
    scene_results = [results[i] for i in range(len(jobs_list))]

    # ---- chapters from complete sets only
    chapter_results = []
    for ch in catalog:
        parts = [r for r in scene_results if r.job.chapter == ch]
        why = [f"{status}: " + ", ".join(r.job.entry.name for r in parts if r.status == status)
               for status in ("failed", "not yet written", NOT_SELECTED)
               if any(r.status == status for r in parts)]
        if why:
            chapter_results.append(StitchResult(ch.slug, ch.title, "not built", note="; ".join(why)))
            continue
        chapter_results.append(stitch_set(quality_dir, ch.slug, ch.title, parts,
                                          [r.job.entry.title for r in parts], previews=True, log=log))

    # ---- the series from every chapter
    incomplete = [c.slug for c in chapter_results if c.status not in ("built", "up to date")]
    if incomplete:
        # the page shows this note where the series would be: say what is missing and what builds it
        # (the chapters themselves may still be on the page from an earlier build)
        series = StitchResult("series", series_title, "not built",
                              note="it is stitched once every chapter is current, and "
                                   + ", ".join(incomplete) + (" needs" if len(incomplete) == 1 else " need")
                                   + " rendering from the scenes as they are now (make lesson builds them)")
    else:
        series = stitch_set(quality_dir, "series", series_title, scene_results,
                            [r.job.entry.title for r in scene_results], previews=False, log=log)

    # ---- worksheet, the page's scripts and models, and the index page
    out.mkdir(parents=True, exist_ok=True)
    worksheet_status, worksheet = export_worksheet(root, out, worksheet_module)
    if not worksheet_status.startswith("written"):
        log(f"  note: worksheet {worksheet_status}")
    try:
        assets = site.build(root, out, log=log)
        web_status = (f"ready: {len(assets.models['models'])} models in {assets.folder / 'models'}" if assets.models
                      else f"ready without the demo: {assets.models_note}")
    except (weights.WeightsError, OSError) as exc:
        assets = page.WebAssets(out / "web", None, f"the checkpoints could not be converted: {exc}")
        web_status = f"failed: {exc}"
        log(f"  web page: FAILED: {exc}")
    index = out / "index.html"
    rows = page_rows(catalog, out, scene_results, chapter_results)
    shown_series = published(out, "series", [r.job.stem for r in scene_results])
    series_video = shown_series.video if shown_series else None
    html_text = page.render_index(
        index, series_title=series_title, quality_label=RESOLUTIONS[quality],
        chapters=rows, series_video=series_video,
        series_vtt=series_video.with_suffix(".vtt") if series_video else None,
        series_poster=next((r.poster for r in rows if r.poster), None),
        series_note=series.note, worksheet=worksheet, generated=time.strftime("%Y-%m-%d %H:%M"),
        web=assets, series_srt=series_video.with_suffix(".srt") if series_video else None,
        series_duration=shown_series.duration if shown_series else None)
    media.write_text_atomic(index, html_text)
    return BuildReport(quality, scene_results, chapter_results, series, worksheet_status, index, web_status)
